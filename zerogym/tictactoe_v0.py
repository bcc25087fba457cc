"""Tic-tac-toe / Gomoku AEC environment: env(board_size=3, win_length=3), raw_env(...)."""
from zerogym.envs.tictactoe import TicTacToeEnv, env, raw_env  # noqa: F401
