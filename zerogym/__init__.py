"""zerogym: board games with a compiled core, as PettingZoo AEC environments at any board size."""
from zerogym.errors import ActionTypeError, IllegalMoveError, KwargsError
from zerogym.registry import GAMES, make, make_raw, make_state

__version__ = "0.1.0"
__all__ = ["ActionTypeError", "IllegalMoveError", "KwargsError", "GAMES", "make", "make_raw", "make_state", "__version__"]
