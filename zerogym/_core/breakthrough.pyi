"""Types of zerogym/_core/breakthrough.pyx (compiled): Breakthrough."""

from typing import Callable

import numpy.typing as npt

from zerogym._core.spec import GameSpec
from zerogym._core.state import State
from zerogym.coords import COLUMNS as COLUMNS

MIN_ROWS: int
MAX_ROWS: int
MIN_COLS: int
MAX_COLS: int
SYMMETRIES: tuple[str, ...]
MOVE_OFFSETS: tuple[tuple[int, int], ...]
PLANES: tuple[tuple[str, str], ...]
REASONS: tuple[str, ...]
BLOB_ERRORS: tuple[str, ...]

def max_moves(rows: int, cols: int) -> int: ...
def action_namer(cols: int) -> Callable[[int], str]: ...
def make_spec(rows: int = 8, cols: int = 8) -> GameSpec: ...

class BreakthroughState(State):
    def __init__(self, rows: int = 8, cols: int = 8) -> None: ...
    def counts(self) -> tuple[int, int]: ...
    def move_cells(self, action: int, player: int | None = None) -> tuple[tuple[int, int], tuple[int, int] | None]: ...
    def last_point(self) -> tuple[int, int] | None: ...
    def recompute_hash(self) -> int: ...
    def set_position(self, board: npt.ArrayLike, to_play: int = 0) -> None: ...
