"""`zerogym play`: a person against an agent named by a spec, in the terminal (zerogym.play runs the game).

With no kwargs, a saved agent's game kwargs come from its model card; an agent trained on other
kwargs than the ones given is announced as playing them zero-shot, or refused (see
zerogym_agents.agents.specs.game_kwargs_for_agents).  With no agent, a pretrained agent made for exactly
the game and kwargs plays, else DEFAULT_AGENT.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Mapping
from typing import Any

from zerogym.play import Player, PlayResult, Session
from zerogym.registry import GAMES, make_state
from zerogym_agents.agents.specs import agent_from_spec, game_kwargs_for_agents, parse_kwargs

DEFAULT_AGENT = "uct:400"


def default_agent(game: str, kwargs: Mapping[str, Any]) -> str:
    """A pretrained agent made for exactly this game and kwargs, else DEFAULT_AGENT."""
    want = make_state(game, **kwargs).spec
    for name, card in pretrained_cards().items():
        try:
            if (
                card.get("game") == want.name
                and make_state(want.name, **card.get("kwargs", {})).spec.kwargs == want.kwargs
            ):
                return f"pretrained:{name}"
        except (ValueError, TypeError):
            continue
    return DEFAULT_AGENT


def pretrained_cards() -> dict[str, dict[str, Any]]:
    """{name: model card} of the agents shipped with zerogym_agents (read from their JSON cards)."""
    from zerogym_agents.core.checkpoint import PRETRAINED_DIR, pretrained_names

    cards: dict[str, dict[str, Any]] = {}
    for name in pretrained_names():
        try:
            with open(os.path.join(PRETRAINED_DIR, f"{name}.json")) as f:
                card = json.load(f)
            cards[name] = card if isinstance(card, dict) else {}
        except (OSError, ValueError):
            cards[name] = {}
    return cards


def resolve_agent(
    game: str, agent: str | Player | None, kwargs: dict[str, Any] | None = None, seed: int | None = None
) -> tuple[Player, dict[str, Any], str | None, list[str]]:
    """(player, game kwargs, name, notes) for `agent`: a spec ("uct:400", "pretrained:NAME", a saved
    agent's path), an agent object, or None (default_agent); with a saved agent, the game kwargs as
    the module docstring says, and the notes that announce a zero-shot game.  name: the spec, or None
    for an agent object (its own .name then)."""
    kwargs = dict(kwargs or {})
    if agent is None:
        agent = default_agent(game, kwargs)
    if not isinstance(agent, str):
        return agent, kwargs, None, []
    kwargs, notes = game_kwargs_for_agents(game, kwargs, [agent])
    return agent_from_spec(agent, game, kwargs, seed=seed), kwargs, agent, notes


def session(
    game: str,
    agent: str | Player | None = None,
    kwargs: dict[str, Any] | None = None,
    human: str | int = "first",
    seed: int | None = None,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[..., None] = print,
) -> Session:
    """A zerogym.play.Session against `agent` (see resolve_agent)."""
    player, kwargs, name, notes = resolve_agent(game, agent, kwargs, seed)
    return Session(game, player, kwargs, human, seed, input_fn, print_fn, name=name, notes=notes)


def add_play_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add the `play` sub-command to an argparse subparsers object; returns its parser."""
    p = subparsers.add_parser(
        "play",
        help="play against an agent in the terminal",
        description="A person against an agent: type moves like D4 (a1 in Othello, "
        "a column number in Connect Four), or undo, hint, resign, help, "
        "quit.",
    )
    p.add_argument("game", nargs="?", help=f"{', '.join(list(GAMES)[:-1])} or {list(GAMES)[-1]}")
    p.add_argument(
        "--kwargs",
        nargs="*",
        default=[],
        metavar="KW",
        help="game kwargs: key=value words or one JSON object, e.g. board_size=9 komi=7.5",
    )
    p.add_argument(
        "--agent",
        default=None,
        help=f"pretrained:NAME, a saved agent's path, uct:N, random, greedy, minimax "
        f"(default: a pretrained agent for this game and kwargs, else {DEFAULT_AGENT})",
    )
    p.add_argument("--human", choices=("first", "second"), default="first", help="your side (default first)")
    p.add_argument("--seed", type=int, default=None, help="seed of the agent's random choices")
    p.add_argument("--gif", default=None, metavar="PATH", help="save the game as an animated GIF")
    p.add_argument("--svg", default=None, metavar="DIR", help="save one SVG per position in this folder")
    p.add_argument("--list", action="store_true", help="list the pretrained agents and exit")
    p.set_defaults(func=run_play)
    return p


def run_play(
    args: argparse.Namespace, input_fn: Callable[[str], str] | None = None, print_fn: Callable[..., None] | None = None
) -> PlayResult | None:
    """Run `zerogym play` for parsed `args` (talking through input() / print() unless given other
    functions); returns the PlayResult (None for --list)."""
    input_fn, print_fn = input_fn or input, print_fn or print
    if args.list:
        cards = pretrained_cards()
        if not cards:
            print_fn("No pretrained agents are installed.")
        for name, card in cards.items():
            kw = ", ".join(f"{k}={v}" for k, v in (card.get("kwargs") or {}).items())
            print_fn(f"pretrained:{name}  ({card.get('game', '?')}{' ' + kw if kw else ''})")
        return None
    if not args.game:
        raise ValueError(f"name a game ({', '.join(GAMES)}), or --list")
    try:
        game = session(args.game, args.agent, parse_kwargs(args.kwargs), args.human, args.seed, input_fn, print_fn)
        kwargs = game.kwargs
        outcome = game.run()
    except KeyboardInterrupt:
        print_fn("\nGame abandoned.")
        raise
    if args.gif or args.svg:
        from zerogym import render

        states = render.replay(args.game, outcome.actions, **kwargs)
        if args.gif:
            print_fn(f"wrote {render.save_gif(states, args.gif)}")
        if args.svg:
            print_fn(f"wrote {len(render.save_svgs(states, args.svg))} SVG files to {args.svg}")
    return outcome
