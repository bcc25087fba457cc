"""Exceptions raised by zerogym."""

from __future__ import annotations


class IllegalMoveError(ValueError):
    """An illegal move: the message names the move, the player and why; nothing was changed."""

    def __init__(
        self,
        message: str,
        action: int | None = None,
        player: str | None = None,
        reason: str | None = None,
        game_index: int | None = None,
    ) -> None:
        super().__init__(message)
        self.action = action
        self.player = player
        self.reason = reason
        self.game_index = game_index


class ActionTypeError(IllegalMoveError, TypeError):
    """An action that is not an integer (a bool, float, string, None, a float or bool array...).

    Both an IllegalMoveError, as every refused move is, and a TypeError, as Python raises for a
    value of the wrong type; nothing was changed.  Bools are refused although they are ints in
    Python: `True` as a move is almost always a mask or a flag passed by mistake.
    """


class KwargsError(TypeError):
    """An unknown keyword argument to a game (a typo like boardsize=9): the message names the game,
    the closest keyword and every keyword the game takes.  A TypeError, as Python raises for an
    unexpected keyword argument; its own class so that the command line can tell this user's mistake
    from a TypeError raised by a bug.
    """
