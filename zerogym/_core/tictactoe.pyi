"""Types of zerogym/_core/tictactoe.pyx (compiled): Tic-tac-toe and Gomoku."""

from zerogym._core.spec import GameSpec
from zerogym._core.state import State
from zerogym.symmetry import DIHEDRAL as DIHEDRAL

MAX_SIZE: int
PLANES: tuple[tuple[str, str], ...]
REASONS: tuple[str, ...]

def make_spec(board_size: int = 3, win_length: int = 3) -> GameSpec: ...

class TicTacToeState(State):
    def __init__(self, board_size: int = 3, win_length: int = 3) -> None: ...
    def recompute_hash(self) -> int: ...
