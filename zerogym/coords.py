"""Human coordinates: GTP-style column letters (no I) and 1-based rows, row 0 = rank 1.

Every game names its actions the way a person types them (parse_action accepts any case):
Go, Hex and Tic-tac-toe/Gomoku "D4" (plus "pass" / "swap"), Othello "d3" and "pass" (lower case,
as Othello is written and as OpenSpiel names its moves), Connect Four the column number "1".."W",
Breakthrough a move from-to, "c2-c3" (also typed "c2c3" or "c2xd3"; without the mover, "c2-c").
Row 1 is action row 0 in every game; only the display differs (Go, Tic-tac-toe: row 1 at the
bottom; Othello, Hex, Breakthrough: row 1 at the top).

The conventions are written once, in zerogym.envs.game_info.GameInfo; a game's own module says
where it departs from them (lower-case letters, column numbers), and the functions here ask the
GameInfo of the spec, state or env they are given (zerogym.envs.binding.game_info_of).  The pass
and swap actions are the spec's pass_action and swap_action.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from zerogym._types import Cell, GameInfoProtocol, GameLike
from zerogym.envs.binding import game_info_of

if TYPE_CHECKING:
    from zerogym._core.spec import GameSpec

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # 25 letters: enough for every supported board


def _info(game: str | GameLike) -> GameInfoProtocol:
    """The GameInfo of a game name (the registry's) or of a GameSpec, State or env (its own)."""
    if isinstance(game, str):
        from zerogym.registry import game_info

        return game_info(game)
    return game_info_of(game)


def column_labels(game: str | GameLike) -> str:
    """How a game's columns are labelled on its boards: "numbers", "lowercase" or "letters".  `game` is a
    name, a GameSpec, a State or an env."""
    return _info(game).column_labels


def column_letters(game: str | GameLike) -> str:
    """The column letters of a game's boards, in the case it writes them (`game` as for column_labels)."""
    return _info(game).column_letters()


def point_name(r: int, c: int) -> str:
    """'A1' for (0, 0), 'J1' for (0, 8): the GTP name of a point."""
    return f"{COLUMNS[c]}{r + 1}"


def parse_point(text: str, size: int) -> Cell:
    """(r, c) for a GTP point name like 'd4' on a size x size board, or ValueError saying why."""
    t = text.strip().upper()
    if len(t) < 2 or t[0] not in COLUMNS[:size] or not t[1:].isdigit():
        raise ValueError(
            f"{text!r} is not a point: use a column letter A..{COLUMNS[size - 1]} (no I) then a row 1..{size}, like A1"
        )
    r, c = int(t[1:]) - 1, COLUMNS.index(t[0])
    if not 0 <= r < size:
        raise ValueError(f"{text!r}: row must be 1..{size}")
    return r, c


def spec_of(obj: GameLike) -> GameSpec:
    """The GameSpec of a GameSpec, a State or an env (wrapped or not)."""
    if hasattr(obj, "obs_shape"):
        return obj
    if hasattr(obj, "unwrapped"):
        return obj.unwrapped.state.spec
    return obj.spec


def checked_action(spec: GameSpec, action: Any) -> int:
    """`action` as an int, or TypeError if it is no integer (a float, a bool, a string), ValueError if it
    is not one of the game's actions."""
    if isinstance(action, bool) or type(action).__name__ == "bool_" or not hasattr(type(action), "__index__"):
        raise TypeError(f"an action is an int, got {type(action).__name__} {action!r}")
    a = operator.index(action)
    if not 0 <= a < spec.num_actions:
        raise ValueError(f"action {action!r} is out of range 0..{spec.num_actions - 1} for {spec.name}")
    return a


def _player(obj: GameLike) -> int | None:
    """The player to move of a State or an env (wrapped or not); None for a GameSpec."""
    if hasattr(obj, "obs_shape"):
        return None
    return (obj.unwrapped.state if hasattr(obj, "unwrapped") else obj).current_player


def format_action(spec: GameLike, action: Any, player: int | None = None) -> str:
    """The human name of `action` ("D4", "pass", "swap", or "3" for Connect Four's column 3).

    `spec` is a GameSpec, a State or an env; parse_action(spec, format_action(spec, a)) == a.
    Where a move's name depends on who makes it (Breakthrough: "c2-c3" from-to, the destination
    row depends on the mover), `player` says who does; by default the player to move of a State or
    env, and for a GameSpec the name without it ("c2-c").
    """
    if player is None:
        player = _player(spec)
    info, spec = game_info_of(spec), spec_of(spec)
    a = checked_action(spec, action)
    return info.format_action(spec, a) if player is None else info.format_move(spec, a, player)


def input_help(spec: GameLike) -> str:
    """What a person may type for a move in this game, as one phrase (`spec`: a GameSpec, a State or an env)."""
    return game_info_of(spec).input_help(spec_of(spec))


def parse_action(spec: GameLike, text: str) -> int:
    """The action a person means by `text` (case and spaces ignored), or ValueError saying what
    is allowed; `spec` is a GameSpec, a State or an env.  Legality is not checked: the State's
    step() does that and says why."""
    return game_info_of(spec).parse_action(spec_of(spec), text)
