"""Go: board_size x board_size (2..25), area scoring (Tromp-Taylor) plus komi, positional superko."""
from zerogym._core.go import GoState
from zerogym.envs.base import BoardGameEnv, env_factories


class GoEnv(BoardGameEnv):
    """Go (board_size=19, komi=7.5, superko="positional" or "simple", max_moves=None meaning
    2 * board_size**2); agents black_0 (first) and white_0; action r * N + c (row 0 = rank 1),
    N * N = pass.  At the end both agents' info holds score (black - white - komi), black_area
    and white_area."""

    metadata = dict(BoardGameEnv.metadata, name="go_v0")
    state_class = GoState
    text_style = {"symbols": ".XO", "row0_at_bottom": True, "hex": False, "column_labels": "letters"}

    def final_info(self):
        black, white = self.state.area()
        return {"score": self.state.score(), "black_area": black, "white_area": white}


env, raw_env = env_factories(GoEnv)
