"""Agents and games named on the command line: agent specs ("random", "uct:200", "pretrained:NAME",
a saved agent's path, ...), the game kwargs saved agents were trained on, and `--kwargs` words."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from zerogym_agents.core.config_io import parse_kwargs  # noqa: F401  (--kwargs words, read where agents are named)

if TYPE_CHECKING:
    from zerogym_agents.agents.base import Agent

AGENT_SPECS = (
    "random, greedy, minimax, solver (perfect play, standard 6x7 Connect Four only), uct:N (N simulations "
    "per move), gnugo[:LEVEL] (GNU Go, Go only), "
    "pretrained:NAME, or a saved agent's path"
)


def agent_from_spec(
    spec: str, game: str | None = None, kwargs: dict[str, Any] | None = None, seed: int | None = None
) -> Agent:
    """An agent from a spec string: "random", "greedy", "minimax", "uct:N", "gnugo:LEVEL".

    game / kwargs say which game it will play (minimax refuses games it cannot solve).  Others
    extend this hook (e.g. "pretrained:NAME", checkpoint paths) by handling their specs first and
    falling back to it.  Raises ValueError naming the spec and what is allowed.
    """
    from zerogym_agents.agents.base import RandomAgent

    if not isinstance(spec, str) or not spec:
        raise ValueError(f"agent spec must be a non-empty string ({AGENT_SPECS}), got {spec!r}")
    kind, _, arg = spec.partition(":")
    kind = kind.strip().lower()
    if kind in ("random", "greedy", "minimax", "solver") and arg:
        raise ValueError(f"agent spec {spec!r}: {kind} takes no argument")
    if kind == "random":
        return RandomAgent(seed)
    if kind == "greedy":
        from zerogym_agents.agents.greedy import GreedyAgent

        return GreedyAgent(seed)
    if kind == "minimax":
        from zerogym_agents.agents.minimax import MinimaxAgent, check_game

        if game is not None:
            from zerogym.registry import game_module

            check_game(game_module(game).raw_env.state_class(**(kwargs or {})).spec.name)
        return MinimaxAgent(seed)
    if kind == "solver":
        from zerogym_agents.agents.solver import SolverAgent

        if game is not None:
            from zerogym.registry import make_state
            from zerogym_agents.solvers.connect_four import check_state

            check_state(make_state(game, **(kwargs or {})))
        return SolverAgent(seed, weak=True)  # keeps the value, the faster search
    if kind == "uct":
        try:
            sims = int(arg)
        except ValueError:
            raise ValueError(f"agent spec {spec!r}: uct needs a number of simulations, e.g. uct:200") from None
        if sims < 1:
            raise ValueError(f"agent spec {spec!r}: the number of simulations must be >= 1")
        from zerogym_agents.agents.search import UCTAgent  # imported only when asked for

        return UCTAgent(simulations=sims, seed=seed)
    if kind == "gnugo":
        try:
            level = int(arg) if arg else 10
        except ValueError:
            raise ValueError(f"agent spec {spec!r}: gnugo takes a GNU Go level, e.g. gnugo:1 (default 10)") from None
        if game is not None:
            from zerogym.registry import game_module

            name = game_module(game).raw_env.state_class(**(kwargs or {})).spec.name
            if name != "go":
                raise ValueError(f"agent spec {spec!r}: GNU Go plays Go only, not {name}")
        from zerogym_agents.agents.gnugo import GnuGoAgent

        return GnuGoAgent(level=level, seed=seed)
    if kind == "pretrained" or spec.endswith(".pt") or os.path.isfile(spec):
        from zerogym_agents.agents.saved import load_agent

        return load_agent(spec, seed=seed, game=game, game_kwargs=kwargs)  # refused now, not mid-match
    from zerogym_agents.agents.saved import pretrained_names

    if spec in pretrained_names():
        raise ValueError(f"unknown agent spec {spec!r}; the shipped agent of that name is pretrained:{spec}")
    raise ValueError(f"unknown agent spec {spec!r}; known: {AGENT_SPECS}")


SIZE_KWARGS = ("board_size", "rows", "cols")


def is_saved_agent_spec(spec: object) -> bool:
    """Whether an agent spec names a saved agent (pretrained:NAME or a file), which has a model card."""
    return isinstance(spec, str) and (spec.startswith("pretrained:") or spec.endswith(".pt") or os.path.isfile(spec))


def saved_options_line(specs: Iterable[str]) -> str:
    """A sentence for a report naming the options each saved agent among `specs` plays with ("" if none)."""
    from zerogym_agents.agents.saved import read_agent

    parts = [
        f"`{spec}`: " + ", ".join(f"{k}={v}" for k, v in read_agent(spec)[1]["options"].items())
        for spec in specs
        if is_saved_agent_spec(spec)
    ]
    return f"Saved agents play with their saved options: {'; '.join(parts)}." if parts else ""


def _kwargs_text(game: str, kwargs: dict[str, Any]) -> str:
    return f"{game} " + " ".join(f"{k}={v}" for k, v in kwargs.items()) if kwargs else f"{game} (default kwargs)"


def game_kwargs_for_agents(
    game: str, kwargs: dict[str, Any] | None, specs: Iterable[str]
) -> tuple[dict[str, Any], list[str]]:
    """(kwargs, notes): the kwargs `game` is played with by the agents `specs`, and notices for the user.

    The saved agents among specs (pretrained:NAME, a file) have model cards naming the game and
    kwargs they were trained on.  A card of another game is a ValueError.  No kwargs given (None
    or {}): the cards' kwargs (a ValueError when the cards name different ones).  For every agent
    trained on other kwargs than the ones played, a note says it plays them zero-shot; an agent whose
    network runs on one board size only (a ZetaGo composite) is a ValueError instead.
    """
    from zerogym.registry import make_state

    kwargs = dict(kwargs or {})
    name = make_state(game, **kwargs).spec.name
    trained = []  # (spec, kwargs of its card, whether its net runs on one size only)
    for spec in specs:
        if not is_saved_agent_spec(spec):
            continue
        from zerogym_agents.agents.saved import load_card

        card = load_card(spec)
        card_game = card.get("game")
        if card_game is not None:
            card_game = card_game[:-3] if card_game.endswith("_v0") else card_game
            if card_game != name:
                raise ValueError(f"{spec} plays {card_game}, not {name}")
        if card.get("kwargs") is None or card_game is None:
            continue
        try:
            make_state(name, **card["kwargs"])
        except (ValueError, TypeError):
            continue  # a card with kwargs this version does not take: nothing to go by
        trained.append((spec, dict(card["kwargs"]), "big_size" in (card.get("net") or {})))
    notes = []
    if not kwargs and trained:
        distinct = {json.dumps(make_state(name, **kw).spec.kwargs, sort_keys=True) for _, kw, _ in trained}
        if len(distinct) > 1:
            which = "; ".join(f"{spec}: {_kwargs_text(name, kw)}" for spec, kw, _ in trained)
            raise ValueError(f"the agents were trained on different {name} games ({which}): choose one with --kwargs")
        spec, kwargs = trained[0][0], dict(trained[0][1])
        if kwargs:
            notes.append(f"playing {_kwargs_text(name, kwargs)}, as in the model card of {spec}")
    here = make_state(name, **kwargs).spec.kwargs
    for spec, kw, fixed in trained:
        theirs = make_state(name, **kw).spec.kwargs
        keys = [k for k in here if (k in kw or k in kwargs) and theirs.get(k) != here[k]]
        if not keys:
            continue
        was = _kwargs_text(name, {k: theirs[k] for k in keys})
        now = " ".join(f"{k}={here[k]}" for k in keys)
        if fixed:
            raise ValueError(
                f"{spec} was made for {was} and its network plays no other board "
                f"({' '.join(f'{k}={here[k]}' for k in keys)} asked for)"
            )
        why = " (its network runs on any board size)" if set(keys) & set(SIZE_KWARGS) else ""
        notes.append(f"note: {spec} was trained on {was}; here it plays {now} zero-shot{why}")
    return kwargs, notes


def agent_names(specs: Iterable[str]) -> list[str]:
    """Display names for the specs, made unique ("greedy", "greedy#2")."""
    names: list[str] = []
    seen: dict[str, int] = {}
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return names
