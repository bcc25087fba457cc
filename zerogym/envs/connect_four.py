"""Connect Four: `rows` x `cols`, pieces drop down a column, `connect` or more in a row wins."""
from zerogym._core.connect_four import ConnectFourState
from zerogym.envs.base import BoardGameEnv, env_factories


class ConnectFourEnv(BoardGameEnv):
    """Connect Four (rows=6, cols=7, connect=4); action = column index (0 = leftmost)."""

    metadata = dict(BoardGameEnv.metadata, name="connect_four_v0")
    state_class = ConnectFourState
    text_style = {"symbols": ".XO", "row0_at_bottom": False, "hex": False, "column_labels": "numbers"}


env, raw_env = env_factories(ConnectFourEnv)
