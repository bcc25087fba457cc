"""Types of zerogym/_core/othello.pyx (compiled): Othello."""

from typing import Callable

import numpy.typing as npt

from zerogym._core.spec import GameSpec
from zerogym._core.state import State
from zerogym.coords import COLUMNS as COLUMNS
from zerogym.symmetry import DIHEDRAL as DIHEDRAL

MIN_SIZE: int
MAX_SIZE: int
PLANES: tuple[tuple[str, str], ...]
REASONS: tuple[str, ...]
BLOB_ERRORS: tuple[str, ...]

def action_namer(n: int) -> Callable[[int], str]: ...
def make_spec(board_size: int = 8) -> GameSpec: ...

class OthelloState(State):
    def __init__(self, board_size: int = 8) -> None: ...
    @property
    def board_size(self) -> int: ...
    def counts(self) -> tuple[int, int]: ...
    def recompute_hash(self) -> int: ...
    def set_position(self, board: npt.ArrayLike, to_play: int = 0) -> None: ...
