"""Tic-tac-toe and Gomoku: `board_size` x `board_size`, `win_length` or more in a row wins."""
from zerogym._core.tictactoe import TicTacToeState
from zerogym.envs.base import BoardGameEnv, env_factories


class TicTacToeEnv(BoardGameEnv):
    """Tic-tac-toe / Gomoku (board_size=3, win_length=3); action r * N + c."""

    metadata = dict(BoardGameEnv.metadata, name="tictactoe_v0")
    state_class = TicTacToeState
    text_style = {"symbols": ".XO", "row0_at_bottom": True, "hex": False, "column_labels": "letters"}


env, raw_env = env_factories(TicTacToeEnv)
