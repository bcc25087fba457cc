"""Saved agents: a network, how to search with it, and a model card, in one checkpoint file.

load_agent("pretrained:tictactoe") loads an agent shipped with the package (zerogym_agents/pretrained/),
load_agent("path/to/agent.pt") one you saved with save_agent.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Callable

from zerogym_agents.core.checkpoint import (
    PRETRAINED_DIR,  # noqa: F401
    CheckpointError,
    load_checkpoint,
    pretrained_names,  # noqa: F401
    resolve,
    save_checkpoint,
)
from zerogym_agents.core.file_checks import DictOf, Fields, Int, Json, Maybe, Str, check

if TYPE_CHECKING:
    import torch

    from zerogym_agents.agents.policy import PolicyAgent
    from zerogym_agents.agents.search import AlphaZeroAgent

AGENT_KINDS = ("alphazero", "policy")  # alphazero: AlphaZeroAgent (search); policy: PolicyAgent (net only)
# a model card is any JSON object; the entries that tools read must have these types (or be null) when present
CARD = Fields(
    {},
    optional={
        k: Maybe(v)
        for k, v in {
            "game": Str(),
            "kwargs": DictOf(Str()),
            "net": DictOf(Str()),
            "training": DictOf(Str()),
            "parameters": Int(0),
            "command": Str(),
        }.items()
    },
)


def save_agent(
    path: str | os.PathLike[str],
    net: torch.nn.Module,
    options: dict[str, Any] | None = None,
    card: dict[str, Any] | None = None,
    kind: str = "alphazero",
) -> None:
    """Save a network-based agent: its net (config + weights), the agent's options (e.g.
    {"simulations": 200}) and a model card dict (game, kwargs, training budget, results, command).
    The card is also written next to the file as JSON. kind: "alphazero" (loads as AlphaZeroAgent) or
    "policy" (loads as PolicyAgent; options: {"greedy": bool})."""
    from zerogym_agents.nets import net_payload

    if kind not in AGENT_KINDS:
        raise ValueError(f"save_agent: kind must be one of {', '.join(AGENT_KINDS)}, got {kind!r}")
    options, card = dict(options or {}), dict(card or {})
    save_checkpoint(
        path,
        "agent",
        {"agent": kind, "net": net_payload(net), "options": json.dumps(options), "card": json.dumps(card)},
    )
    with open(os.path.splitext(os.fspath(path))[0] + ".json", "w") as f:
        json.dump({"agent": kind, "options": options, **card}, f, indent=2, sort_keys=True)


def copy_agent(
    src: str | os.PathLike[str], dst: str | os.PathLike[str], update_card: Callable[..., dict[str, Any]]
) -> None:
    """Write the agent saved at `src` (a path or "pretrained:NAME") to `dst` (which may be `src`), its
    model card replaced by update_card(card)."""
    from zerogym_agents.nets import net_from_payload

    path, saved = read_agent(src)
    card = update_card(saved["card"])
    save_agent(dst, net_from_payload(saved["net"], source=path), saved["options"], card, kind=saved["agent"])


def read_agent(spec: str | os.PathLike[str]) -> tuple[str, dict[str, Any]]:
    """(path, {"agent", "net", "options", "card"}) of the agent saved at `spec` (a path or
    "pretrained:NAME"), every part checked before use: a zerogym "agent" checkpoint, a known agent
    kind, a network payload that passes nets.model.check_net_payload, options and card as JSON
    objects (decoded here), the card's game / kwargs / net / training of the right types.
    CheckpointError (NetFileError for the net) naming the file and what is wrong otherwise."""
    path = resolve(spec)
    return path, check_agent(load_checkpoint(path, kind="agent"), path)


def check_agent(data: Any, path: str | os.PathLike[str]) -> dict[str, Any]:
    """read_agent's checks of `data`, the dict read from the agent file `path`; returns it with
    options and card decoded."""
    from zerogym_agents.nets.model import NetPayload

    schema = Fields({"agent": Str(), "net": NetPayload(), "options": Json(DictOf(Str())), "card": Json(CARD)})
    data = check(data, schema, path)
    if data["agent"] not in AGENT_KINDS:
        raise CheckpointError(f"{path}: unknown agent kind {data['agent']!r}; known: {', '.join(AGENT_KINDS)}")
    return data


def load_card(spec: str | os.PathLike[str]) -> dict[str, Any]:
    """The model card of a saved agent (a dict; CheckpointError when the file holds none)."""
    path = resolve(spec)
    return check(load_checkpoint(path, kind="agent"), Fields({"card": Json(CARD)}), path)["card"]


def _agent_class(kind: str) -> type[AlphaZeroAgent] | type[PolicyAgent]:
    if kind == "alphazero":
        from zerogym_agents.agents.search import AlphaZeroAgent

        return AlphaZeroAgent
    from zerogym_agents.agents.policy import PolicyAgent

    return PolicyAgent


def load_agent(
    spec: str | os.PathLike[str],
    seed: int | None = None,
    game: str | None = None,
    game_kwargs: dict[str, Any] | None = None,
    device: str = "cpu",
    **overrides: Any,
) -> AlphaZeroAgent | PolicyAgent:
    """An agent from "pretrained:NAME" or a file written by save_agent (options overridable, e.g.
    simulations=50). Checkpoints are read with torch.load(weights_only=True) and checked (read_agent);
    saved options the agent refuses raise CheckpointError too. game (a name, with game_kwargs):
    refuse an agent whose net does not fit that game (NetFileError, a ValueError). device: where the
    net runs, "cpu" (default), "auto" (CUDA when torch sees a GPU), "cuda" or "cuda:N"."""
    from zerogym_agents.core.devices import resolve_device
    from zerogym_agents.nets import net_from_payload

    where = resolve_device(device)
    path, data = read_agent(spec)
    net = net_from_payload(data["net"], source=path, game=game, game_kwargs=game_kwargs, device=where)
    cls, options = _agent_class(data["agent"]), data["options"]
    try:
        return cls(net, seed=seed, **{**options, **overrides})
    except (TypeError, ValueError):
        try:  # whose fault: the file's options, or the overrides?
            cls(net, **options)
        except (TypeError, ValueError) as err:
            raise CheckpointError(
                f"{path}: options {json.dumps(options)} do not fit a {data['agent']} agent ({err})"
            ) from None
        raise
