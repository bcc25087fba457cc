"""Hex AEC environment: env(board_size=11, swap=True), raw_env(...)."""
from zerogym.envs.hex import HexEnv, env, raw_env  # noqa: F401
