"""Connect Four AEC environment: env(rows=6, cols=7, connect=4), raw_env(...)."""
from zerogym.envs.connect_four import ConnectFourEnv, env, raw_env  # noqa: F401
