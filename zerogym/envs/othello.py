"""Othello: an even `board_size` x `board_size` board (4..16); black moves first."""
from zerogym._core.othello import OthelloState
from zerogym.envs.base import BoardGameEnv, env_factories


class OthelloEnv(BoardGameEnv):
    """Othello (board_size=8, even, 4..16); action r * N + c, N * N = pass (legal only when no placement is)."""

    metadata = dict(BoardGameEnv.metadata, name="othello_v0")
    state_class = OthelloState
    text_style = {"symbols": ".XO", "row0_at_bottom": False, "hex": False, "column_labels": "lowercase"}

    def final_info(self):
        black, white = self.state.counts()
        return {"discs": {"black_0": black, "white_0": white}}


env, raw_env = env_factories(OthelloEnv)
