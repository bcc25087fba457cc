"""Types of zerogym/_core/hex.pyx (compiled): Hex."""

import numpy as np
import numpy.typing as npt

from zerogym._core.spec import GameSpec
from zerogym._core.state import State

MAX_SIZE: int
PLANES: tuple[tuple[str, str], ...]
REASONS: tuple[str, ...]
SYMMETRIES: tuple[str, ...]
BLOB_ERRORS: tuple[str, ...]

def make_spec(board_size: int = 11, swap: bool = True) -> GameSpec: ...

class HexState(State):
    def __init__(self, board_size: int = 11, swap: bool = True) -> None: ...
    def recompute_hash(self) -> int: ...
    def components(self) -> npt.NDArray[np.int64]: ...
    def winning_path(self) -> list[tuple[int, int]] | None: ...
