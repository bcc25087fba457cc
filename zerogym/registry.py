"""Game names -> modules, for zerogym.make and zerogym.vector.make."""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing, which would triple `import zerogym`'s time
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

    from zerogym._core.spec import GameSpec
    from zerogym._core.state import State
    from zerogym._types import GameInfoProtocol

GAMES = {
    "go": "zerogym.go_v0",
    "othello": "zerogym.othello_v0",
    "hex": "zerogym.hex_v0",
    "connect_four": "zerogym.connect_four_v0",
    "tictactoe": "zerogym.tictactoe_v0",
    "havannah": "zerogym.havannah_v0",
    "breakthrough": "zerogym.breakthrough_v0",
}


def game_module(name: str) -> ModuleType:
    """The env module of game `name` (e.g. "go" or "go_v0")."""
    key = name[:-3] if name.endswith("_v0") else name
    if key not in GAMES:
        raise ValueError(f"unknown game {name!r}; available: {', '.join(GAMES)}")
    return importlib.import_module(GAMES[key])


def load_games() -> None:
    """Import the module of every game (each binds its GameInfo to its State class: zerogym.envs.binding)."""
    for name in GAMES:
        game_module(name)


def game_info(game: str | GameSpec) -> GameInfoProtocol:
    """The GameInfo of a game named by a person (zerogym/envs/game_info.py): how people see it, its docs
    example, the facts tools ask about.  `game` is a name ("go", "go_v0") or a GameSpec; from a State or an
    env, zerogym.envs.binding.game_info_of finds it without a name."""
    return game_module(game if isinstance(game, str) else game.name).raw_env.game_info


def make(name: str, **kwargs: Any) -> Any:
    """The wrapped AEC env of game `name` (zerogym.envs.base.ClassicWrapper), e.g. make("go", board_size=9)."""
    return game_module(name).env(**kwargs)


def make_raw(name: str, **kwargs: Any) -> Any:
    """The unwrapped AEC env of game `name` (a zerogym.envs.base.BoardGameEnv)."""
    return game_module(name).raw_env(**kwargs)


def make_state(name: str, **kwargs: Any) -> State:
    """The compiled State of game `name` at the given kwargs (no env around it)."""
    from zerogym._validate import known_kwargs

    cls = game_module(name).raw_env.state_class
    known_kwargs(cls, kwargs)
    return cls(**kwargs)
