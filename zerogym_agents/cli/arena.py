"""`zerogym arena`: a round robin between agents given as specs, with Elo table, plot and records."""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import TYPE_CHECKING

from zerogym.registry import GAMES
from zerogym_agents.agents.specs import AGENT_SPECS, agent_from_spec, agent_names, game_kwargs_for_agents, parse_kwargs

if TYPE_CHECKING:
    from zerogym_agents.arena.elo import EloTable
    from zerogym_agents.arena.match import RoundRobinResult


def add_arena_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add the `arena` sub-command to an argparse subparsers object; returns its parser."""
    p = subparsers.add_parser(
        "arena",
        help="round robin between agents: Elo table, plot and game records",
        description="Every pair of agents plays --games games (colours alternated); "
        "ratings are maximum-likelihood Elo with 95% intervals.",
    )
    p.add_argument("--game", required=True, help="game name: " + ", ".join(GAMES))
    p.add_argument(
        "--kwargs",
        nargs="*",
        default=[],
        metavar="KW",
        help="game kwargs: a JSON object or key=value words, e.g. board_size=9 komi=7.5",
    )
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help=f"agent specs: {AGENT_SPECS}")
    p.add_argument("--games", type=int, default=20, help="games per pair (default 20)")
    p.add_argument(
        "--opening-moves",
        type=int,
        default=0,
        metavar="K",
        help="each pair of games starts from the same K random moves, colours swapped, so that "
        "agents which play deterministically still meet in different games (default 0)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the round robin's games (default 0)")
    p.add_argument("--anchor", default=None, help="agent name rated 0 (default: mean rating 0)")
    p.add_argument(
        "--out",
        default="arena_results",
        help="folder for report.md, elo.png, results.json, games.jsonl (default arena_results)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run_arena)
    return p


def run_arena(args: argparse.Namespace) -> tuple[RoundRobinResult, EloTable]:
    """Run the round robin that the parsed `args` describe, write the report, print the Elo table."""
    from zerogym_agents.arena.elo import fit_elo
    from zerogym_agents.arena.match import round_robin
    from zerogym_agents.arena.report import elo_markdown, pairwise_markdown, write_report

    kwargs = parse_kwargs(args.kwargs)
    if len(args.agents) < 2:
        raise ValueError("--agents needs at least two agent specs")
    names = agent_names(args.agents)
    if args.anchor is not None and args.anchor not in names:
        raise ValueError(f"--anchor {args.anchor!r} is not one of the agents {names}")
    kwargs, notes = game_kwargs_for_agents(args.game, kwargs, args.agents)
    for note in notes:
        print(note)
    agents = {name: agent_from_spec(spec, args.game, kwargs) for name, spec in zip(names, args.agents)}
    result = round_robin(
        agents,
        args.game,
        kwargs,
        args.games,
        args.seed,
        progress=not args.no_progress,
        opening_moves=args.opening_moves,
    )
    elo = fit_elo(result.outcomes(), names=names, anchor=args.anchor)
    command = "zerogym arena " + " ".join(shlex.quote(a) for a in sys.argv[2:]) if len(sys.argv) > 2 else None
    paths = write_report(result, elo, args.out, command=command)
    print(elo_markdown(elo))
    print(pairwise_markdown(result))
    print(f"wrote {', '.join(paths.values())}")
    return result, elo
