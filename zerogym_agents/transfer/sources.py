"""Where a transfer starts: the net of any file load_net accepts (a net file, a saved agent, a training
checkpoint, "pretrained:NAME"), with the game it was trained on when the file says so."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zerogym_agents.agents.policy import PolicyNet


def read_source(path: str | os.PathLike[str]) -> tuple[PolicyNet, dict[str, Any] | None, str, dict[str, Any] | None]:
    """(net, agent, game, game_kwargs): the net in `path` (or "pretrained:NAME"); agent =
    {"kind", "options", "card"} when it is a saved agent, else None; the game and its kwargs
    (None when the file does not say them: a plain net file)."""
    from zerogym_agents.core.checkpoint import FORMAT
    from zerogym_agents.core.file_checks import DictOf, Fields, Json, Str, check
    from zerogym_agents.nets.model import net_from_payload, net_payload_in, read_net_file
    from zerogym_agents.agents.saved import check_agent

    path, data = read_net_file(path)
    net = net_from_payload(net_payload_in(data), source=path)
    agent, game, kwargs = None, None, None
    if isinstance(data, dict) and data.get("format") == FORMAT:
        if data.get("kind") == "agent":
            saved = check_agent(data, path)
            agent = {"kind": saved["agent"], "options": saved["options"], "card": saved["card"]}
            game, kwargs = agent["card"].get("game"), agent["card"].get("kwargs")
        elif "config" in data:  # a training checkpoint: its run's game
            cfg = check(
                data["config"], Json(Fields({}, optional={"game": Str(), "game_kwargs": DictOf(Str())})), path, "config"
            )
            game, kwargs = cfg.get("game"), cfg.get("game_kwargs")
    if kwargs is not None and game:
        return net, agent, game, kwargs
    return net, agent, net.config.game, None


def board_size_of(game: str, kwargs: dict[str, Any]) -> int:
    """The board_size `game` is played at with `kwargs` (its side for Havannah, not the 2 * side - 1
    cells of its grid); for a game without that kwarg, the side of its square board (ValueError for a
    non-square one)."""
    import zerogym

    spec = zerogym.make_state(game, **kwargs).spec
    if "board_size" in spec.kwargs:
        return int(spec.kwargs["board_size"])
    h, w, _ = spec.obs_shape
    if h != w:
        raise ValueError(f"{game} {kwargs} has a {h}x{w} board; a composite needs square boards")
    return h
