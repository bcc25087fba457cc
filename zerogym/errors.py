"""Exceptions raised by zerogym."""


class IllegalMoveError(ValueError):
    """An illegal move: the message names the move, the player and why; nothing was changed."""

    def __init__(self, message, action=None, player=None, reason=None, game_index=None):
        super().__init__(message)
        self.action = action
        self.player = player
        self.reason = reason
        self.game_index = game_index
