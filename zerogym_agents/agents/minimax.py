"""MinimaxAgent: perfect play on small boards by exact alpha-beta search."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from zerogym.registry import GAMES, game_info
from zerogym_agents.solvers._minimax import Solver
from zerogym_agents.agents.base import AECEnv, Agent, game_state

if TYPE_CHECKING:
    from zerogym._core.spec import GameSpec
    from zerogym._core.state import State
    from zerogym_agents.solvers.connect_four import ConnectFourSolver


def supported() -> tuple[str, ...]:
    """The games exact minimax can solve: those whose GameInfo says a position's future depends on
    the board and the player to move alone (history_free), which the transposition table needs."""
    return tuple(game for game in GAMES if game_info(game).history_free)


def centre_order(spec: GameSpec) -> npt.NDArray[np.intp]:
    """Actions sorted by distance of their cell to the board centre (pass/swap last; for moves from
    a cell, the cell it leaves): the move order tried first at every node, which makes alpha-beta
    cut earlier."""
    h, w, _ = spec.obs_shape
    a = spec.num_actions
    if spec.action_kind == "columns":
        dist = np.abs(np.arange(a) - (w - 1) / 2)
    else:
        cells = np.arange(a) // spec.actions_per_cell
        r, c = cells // w, cells % w
        dist = np.hypot(r - (h - 1) / 2, c - (w - 1) / 2)
        dist[cells >= h * w] = np.inf  # pass / swap
    return np.argsort(dist, kind="stable")


def check_game(name: str) -> None:
    """Raise ValueError unless exact minimax supports game `name`."""
    if name not in supported():
        raise ValueError(
            f"minimax supports {', '.join(supported())} (games whose future depends on the position "
            f"alone); got {name!r} (Go's superko and move limit depend on the history)"
        )


class MinimaxAgent(Agent):
    """Perfect player for small boards: exact negamax with alpha-beta pruning over the game values
    {-1, 0, +1} and a transposition table keyed by the State's Zobrist hash (plus the side to move).

    MinimaxAgent(seed=None, tt_bits=20, node_limit=100_000_000).  act() solves every legal move
    exactly and picks uniformly (seeded) among those of the best value, so it never turns a won
    position into a draw or a drawn one into a loss; in a finite game always keeping the value is
    enough to realize it.  The table (2**tt_bits entries of 16 bytes) persists across moves and games
    of the same game and kwargs.  Games: Tic-tac-toe/Gomoku, Connect Four, Othello, Hex (Go is
    refused: with superko and a move limit a position's value depends on its history).  Solving
    times on this machine (about 2.5M nodes/s): Tic-tac-toe 3x3 5 ms, Connect Four 4x4 15 ms,
    5x5 1.3 s, Hex 4x4 0.6 s.  A search over node_limit nodes raises RuntimeError (the board is too
    large for exact search).
    """

    name = "minimax"

    def __init__(self, seed: int | None = None, tt_bits: int = 20, node_limit: int = 100_000_000) -> None:
        super().__init__(seed)
        if not isinstance(tt_bits, (int, np.integer)) or not 4 <= tt_bits <= 30:
            raise ValueError(f"tt_bits must be an int in 4..30, got {tt_bits!r}")
        if not isinstance(node_limit, (int, np.integer)) or node_limit < 0:
            raise ValueError(f"node_limit must be an int >= 0 (0 = no limit), got {node_limit!r}")
        self.tt_bits = int(tt_bits)
        self.node_limit = int(node_limit)
        self._solver: Solver | ConnectFourSolver | None = None
        self._key: tuple[str, tuple[tuple[str, object], ...]] | None = None

    def solver(self, state: State) -> Solver | ConnectFourSolver:
        """The Solver for `state`'s game and kwargs (a new one, with an empty table, when they change)."""
        key = (state.spec.name, tuple(sorted(state.spec.kwargs.items())))
        if self._solver is None or key != self._key:  # (no solver yet: no key either)
            check_game(state.spec.name)
            from zerogym_agents.solvers.connect_four import ConnectFourSolver, fits  # standard Connect Four

            self._solver = (
                ConnectFourSolver(max(self.tt_bits, 10), self.node_limit)
                if fits(state)
                else Solver(state, self.tt_bits, centre_order(state.spec), self.node_limit)
            )
            self._key = key
        return self._solver

    def value(self, state: State) -> int:
        """Exact value of `state` for its player to move: +1 win, 0 draw, -1 loss."""
        return int(self.solver(state).value(state))

    def action_values(self, state: State) -> npt.NDArray[np.int8]:
        """int8 array (num_actions,): exact value of each legal action for the mover, -2 where illegal."""
        return self.solver(state).action_values(state)

    def best_actions(self, state: State) -> npt.NDArray[np.intp]:
        """The legal actions of the best exact value (sorted)."""
        vals = self.action_values(state)
        return np.flatnonzero(vals == vals.max())

    def act(self, env: AECEnv) -> int:
        best = self.best_actions(game_state(env))
        return int(best[self.rng.integers(len(best))])
