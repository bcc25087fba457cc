"""SolverAgent: perfect play for standard Connect Four from the compiled solver."""

from __future__ import annotations

from zerogym_agents.agents.base import AECEnv, Agent, game_state
from zerogym_agents.solvers.connect_four import ConnectFourSolver, check_state


class SolverAgent(Agent):
    """Plays a move of the best exact score: the quickest win, else a draw, else the slowest loss
    (weak=True: any move that keeps the win / draw / loss value, a faster search), uniformly
    (seeded) among equals.  Standard Connect Four only (6 x 7, four in a row); the table
    (2**tt_bits entries of 8 bytes) persists across moves and games.
    """

    name = "solver"

    def __init__(self, seed: int | None = None, tt_bits: int = 22, weak: bool = False) -> None:
        super().__init__(seed)
        if not isinstance(weak, bool):
            raise ValueError(f"weak must be True or False, got {weak!r}")
        self.solver = ConnectFourSolver(tt_bits=tt_bits)
        self.weak = weak

    def act(self, env: AECEnv) -> int:
        state = game_state(env)
        check_state(state)
        best = self.solver.best_moves(state, weak=self.weak)
        return int(best[self.rng.integers(len(best))])
