"""Go AEC environment: env(board_size=19, komi=7.5, superko="positional", max_moves=None), raw_env(...)."""
from zerogym.envs.go import GoEnv, env, raw_env  # noqa: F401
