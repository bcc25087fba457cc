"""zerogym: board games with a compiled core, as PettingZoo AEC environments at any board size."""

from zerogym._version import __version__
from zerogym.errors import ActionTypeError, IllegalMoveError, KwargsError
from zerogym.registry import GAMES, make, make_raw, make_state

__all__ = [
    "ActionTypeError",
    "IllegalMoveError",
    "KwargsError",
    "GAMES",
    "make",
    "make_raw",
    "make_state",
    "__version__",
]
