"""Perfect play for standard Connect Four (6 rows, 7 columns, four in a row).

ConnectFourSolver gives the game-theoretic value and the distance-aware score of a zerogym State
(Pascal Pons' scoring: a win is worth 22 - k where k counts the winner's stones with the winning
one, a draw 0, a loss the negative of the opponent's win), and the best moves; the search is
compiled (_connect_four.pyx).  Other board sizes are refused: MinimaxAgent solves small ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from zerogym._core.connect_four import make_spec
from zerogym._core.state import State, same_game
from zerogym_agents.solvers._connect_four import SCORE_MAX, SCORE_MIN, Core

if TYPE_CHECKING:
    from typing import TypeGuard

ROWS, COLS, CONNECT = 6, 7, 4
STANDARD = make_spec(ROWS, COLS, CONNECT)
ILLEGAL = -100  # move_scores() of a full column
__all__ = ["ConnectFourSolver", "ILLEGAL", "SCORE_MAX", "SCORE_MIN", "bitboards", "fits", "state_from_moves"]


def fits(state: object) -> TypeGuard[State]:
    """Whether `state` is a State of standard Connect Four (the only game this solver plays)."""
    return isinstance(state, State) and state.spec is not None and same_game(state.spec, STANDARD)


def check_state(state: object) -> None:
    """Raise ValueError unless `state` is a running State of standard Connect Four."""
    if not fits(state):
        spec = state.spec if isinstance(state, State) else None
        what = f"{spec.name} {dict(spec.kwargs)}" if spec is not None else repr(type(state).__name__)
        hint = " (MinimaxAgent solves small boards)" if spec is not None and spec.name == STANDARD.name else ""
        raise ValueError(
            f"the Connect Four solver plays {STANDARD.name} with rows={ROWS}, cols={COLS}, "
            f"connect={CONNECT} only; got {what}{hint}"
        )
    if state.is_over():
        raise ValueError("the game is over: there is nothing to solve")


def bitboards(state: State) -> tuple[int, int, int]:
    """(cur, mask, n) of a standard Connect Four State: bitboards of the mover's stones and of all
    stones (bit col * 7 + row, row 0 at the bottom), and the number of stones."""
    board = state.board()[::-1]  # row 0 at the bottom
    mover = state.current_player + 1
    cur = mask = 0
    for r, c in zip(*np.nonzero(board)):
        bit = 1 << (int(c) * (ROWS + 1) + int(r))
        mask |= bit
        if board[r, c] == mover:
            cur |= bit
    return cur, mask, state.move_count


def state_from_moves(moves: str | Iterable[int]) -> State:
    """A standard Connect Four State after `moves`: a string of column digits 1..7 ("4453", the
    notation of Pons' and Tromp's write-ups) or a sequence of actions 0..6."""
    from zerogym.registry import make_state

    if isinstance(moves, str):
        if any(ch not in "1234567" for ch in moves):
            raise ValueError(f"moves as a string are column digits 1..7, got {moves!r}")
        moves = [int(ch) - 1 for ch in moves]
    state = make_state(STANDARD.name, rows=ROWS, cols=COLS, connect=CONNECT)
    for a in moves:
        state.step(int(a))
    return state


class ConnectFourSolver:
    """Exact values, scores and best moves of standard Connect Four positions.

    ConnectFourSolver(tt_bits=22, node_limit=0): a table of 2**tt_bits 8-byte entries (32 MiB by
    default), kept across calls; node_limit > 0 makes a search over that many nodes raise
    RuntimeError.  Every method takes a zerogym State (6 x 7, four in a row, game not over).
    """

    def __init__(self, tt_bits: int = 22, node_limit: int = 0) -> None:
        for name, v, lo, hi in (("tt_bits", tt_bits, 10, 30), ("node_limit", node_limit, 0, None)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo or (hi is not None and v > hi):
                allowed = f"an int in {lo}..{hi}" if hi is not None else f"an int >= {lo} (0 = no limit)"
                raise ValueError(f"{name} must be {allowed}, got {v!r}")
        self.core = Core(int(tt_bits), int(node_limit))

    @property
    def nodes(self) -> int:
        """Nodes the last call searched."""
        return self.core.nodes

    def clear(self) -> None:
        """Forget every stored position."""
        self.core.clear()

    def score(self, state: State) -> int:
        """The exact score for the player to move: > 0 a win (22 - the winner's stone count at the
        win), 0 a draw, < 0 a loss."""
        check_state(state)
        return self.core.solve(*bitboards(state), False)

    def value(self, state: State) -> int:
        """+1 if the player to move wins with perfect play, 0 a draw, -1 a loss (a faster search than score)."""
        check_state(state)
        return self.core.solve(*bitboards(state), True)

    def move_scores(self, state: State, weak: bool = False) -> npt.NDArray[np.int64]:
        """int array (7,): the exact score for the mover of each column (weak: its sign), ILLEGAL
        where the column is full."""
        check_state(state)
        scores = self.core.move_scores(*bitboards(state), bool(weak))
        return np.array([ILLEGAL if s is None else s for s in scores], dtype=np.int64)

    def action_values(self, state: State) -> npt.NDArray[np.int8]:
        """int8 array (7,): +1 / 0 / -1 for each column, -2 where it is full (MinimaxAgent's form)."""
        scores = self.move_scores(state, weak=True)
        return np.where(scores == ILLEGAL, -2, scores).astype(np.int8)

    def best_moves(self, state: State, weak: bool = False) -> npt.NDArray[np.intp]:
        """The columns of the best score (weak: of the best value: every move that keeps the value), sorted."""
        scores = self.move_scores(state, weak)
        return np.flatnonzero(scores == scores.max())
