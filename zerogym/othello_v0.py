"""Othello AEC environment: env(board_size=8), raw_env(...)."""
from zerogym.envs.othello import OthelloEnv, env, raw_env  # noqa: F401
