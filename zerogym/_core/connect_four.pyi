"""Types of zerogym/_core/connect_four.pyx (compiled): Connect Four."""

import numpy as np
import numpy.typing as npt

from zerogym._core.spec import GameSpec
from zerogym._core.state import State

MAX_SIZE: int
SYMMETRIES: tuple[str, ...]
PLANES: tuple[tuple[str, str], ...]
REASONS: tuple[str, ...]
BLOB_ERRORS: tuple[str, ...]

def make_spec(rows: int = 6, cols: int = 7, connect: int = 4) -> GameSpec: ...

class ConnectFourState(State):
    def __init__(self, rows: int = 6, cols: int = 7, connect: int = 4) -> None: ...
    def heights(self) -> npt.NDArray[np.int64]: ...
    def last_point(self) -> tuple[int, int] | None: ...
    def recompute_hash(self) -> int: ...
