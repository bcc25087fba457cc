"""Hex: `board_size` x `board_size` rhombus; black connects top-bottom, white left-right; optional swap."""
from zerogym._core.hex import HexState
from zerogym.envs.base import BoardGameEnv, env_factories


class HexEnv(BoardGameEnv):
    """Hex (board_size=11, swap=True); action r * N + c, N * N = swap (second move only, when swap)."""

    metadata = dict(BoardGameEnv.metadata, name="hex_v0")
    state_class = HexState
    text_style = {"symbols": ".XO", "row0_at_bottom": False, "hex": True, "column_labels": "letters"}


env, raw_env = env_factories(HexEnv)
