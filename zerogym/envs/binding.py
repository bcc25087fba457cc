"""The GameInfo of a state, a spec or an env, found from the object itself.

A game's module (zerogym/envs/<game>.py) binds its GameInfo to its State class where it defines its env
(zerogym.envs.base.env_factories calls bind).  Then a State finds it through its class, an env holds its own
(env.unwrapped.game_info), and a GameSpec, a compiled object that holds nothing of the Python layer, through
the game name the spec itself carries (spec.name, which is the GameInfo's name).  zerogym.coords,
zerogym.render and zerogym.play ask game_info_of; nothing on that way asks the registry for a game by name.

A State made from its compiled class before any game module was imported (zerogym._core.go.GoState(...), a
state unpickled in a fresh process) finds nothing bound: then every game module of the registry is imported
once, each binding its own, and the lookup is made again.  A State of the base class, which belongs to no
game (State.from_spec), has the GameInfo of its spec.
"""

from __future__ import annotations

from typing import Any

from zerogym._core.spec import GameSpec
from zerogym._core.state import State
from zerogym._types import GameInfoProtocol

_BY_CLASS: dict[type, GameInfoProtocol] = {}  # State class -> its game's GameInfo
_BY_NAME: dict[str, GameInfoProtocol] = {}  # spec.name -> GameInfo, for a bare GameSpec


def bind(state_class: type[State], info: GameInfoProtocol) -> None:
    """Make `info` the GameInfo of the states of `state_class` (and of its subclasses) and of the GameSpecs
    named `info.name`."""
    if not (isinstance(state_class, type) and issubclass(state_class, State)):
        raise TypeError(f"bind: state_class must be a State class, got {state_class!r}")
    _BY_CLASS[state_class] = info
    _BY_NAME[info.name] = info


def _find(obj: Any) -> GameInfoProtocol | None:
    """The GameInfo bound to `obj` (see game_info_of), or None."""
    if isinstance(obj, GameSpec):
        return _BY_NAME.get(obj.name)
    if isinstance(obj, State):
        return next((_BY_CLASS[cls] for cls in type(obj).__mro__ if cls in _BY_CLASS), None)
    env = getattr(obj, "unwrapped", None)
    if env is None:
        raise TypeError(f"expected a GameSpec, a State or an env, got {type(obj).__name__}")
    info: GameInfoProtocol | None = getattr(env, "game_info", None)
    return info if info is not None else _find(env.state)


def game_info_of(obj: Any) -> GameInfoProtocol:
    """The GameInfo (zerogym.envs.game_info) of `obj`: an env (wrapped or not), a State or a GameSpec."""
    info = _find(obj)
    if info is None:
        from zerogym.registry import load_games

        load_games()
        info = _find(obj)
    if info is None and isinstance(obj, State):
        info = _find(obj.spec)  # a State of no game's class (State.from_spec): the one of its spec
    if info is None:
        what = f"a GameSpec named {obj.name!r}" if isinstance(obj, GameSpec) else type(obj).__name__
        raise LookupError(f"no GameInfo is bound to {what}: its game's module binds one (zerogym.envs.binding.bind)")
    return info
