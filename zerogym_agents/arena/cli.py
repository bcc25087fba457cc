"""`zerogym arena`: a round robin between agents given as specs, with Elo table, plot and records."""
import json
import os
import shlex
import sys

AGENT_SPECS = ("random, greedy, minimax, uct:N (N simulations per move), gnugo[:LEVEL] (GNU Go, Go only), "
               "pretrained:NAME, or a saved agent's path")


def agent_from_spec(spec, game=None, kwargs=None, seed=None):
    """An agent from a spec string: "random", "greedy", "minimax", "uct:N", "gnugo:LEVEL".

    game / kwargs say which game it will play (minimax refuses games it cannot solve).  Others
    extend this hook (e.g. "pretrained:NAME", checkpoint paths) by handling their specs first and
    falling back to it.  Raises ValueError naming the spec and what is allowed.
    """
    from zerogym_agents.base import RandomAgent
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"agent spec must be a non-empty string ({AGENT_SPECS}), got {spec!r}")
    kind, _, arg = spec.partition(":")
    kind = kind.strip().lower()
    if kind in ("random", "greedy", "minimax") and arg:
        raise ValueError(f"agent spec {spec!r}: {kind} takes no argument")
    if kind == "random":
        return RandomAgent(seed)
    if kind == "greedy":
        from zerogym_agents.greedy import GreedyAgent
        return GreedyAgent(seed)
    if kind == "minimax":
        from zerogym_agents.minimax import MinimaxAgent, check_game
        if game is not None:
            from zerogym.registry import game_module
            check_game(game_module(game).raw_env.state_class(**(kwargs or {})).spec.name)
        return MinimaxAgent(seed)
    if kind == "uct":
        try:
            sims = int(arg)
        except ValueError:
            raise ValueError(f"agent spec {spec!r}: uct needs a number of simulations, e.g. uct:200") from None
        if sims < 1:
            raise ValueError(f"agent spec {spec!r}: the number of simulations must be >= 1")
        from zerogym_agents.search_agents import UCTAgent     # imported only when asked for
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
        from zerogym_agents.gnugo import GnuGoAgent
        return GnuGoAgent(level=level, seed=seed)
    if kind == "pretrained" or spec.endswith(".pt") or os.path.isfile(spec):
        from zerogym_agents.saved import load_agent
        return load_agent(spec, seed=seed, game=game, game_kwargs=kwargs)     # refused now, not mid-match
    raise ValueError(f"unknown agent spec {spec!r}; known: {AGENT_SPECS}")


def parse_kwargs(items):
    """Game kwargs from the command line: one JSON object, or key=value words (values read as JSON
    when they parse, e.g. 9, 7.5, true, null; else kept as strings)."""
    if not items:
        return {}
    if len(items) == 1 and items[0].lstrip().startswith("{"):
        try:
            out = json.loads(items[0])
        except json.JSONDecodeError as err:
            raise ValueError(f"--kwargs: not valid JSON ({err}): {items[0]!r}") from None
        if not isinstance(out, dict):
            raise ValueError(f"--kwargs: expected a JSON object, got {items[0]!r}")
        return out
    out = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"--kwargs: expected key=value (or one JSON object), got {item!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def agent_names(specs):
    """Display names for the specs, made unique ("greedy", "greedy#2")."""
    names, seen = [], {}
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return names


def add_arena_parser(subparsers):
    """Add the `arena` sub-command to an argparse subparsers object; returns its parser."""
    p = subparsers.add_parser("arena", help="round robin between agents: Elo table, plot and game records",
                              description="Every pair of agents plays --games games (colours alternated); "
                                          "ratings are maximum-likelihood Elo with 95% intervals.")
    p.add_argument("--game", required=True, help="game name: go, othello, hex, connect_four, tictactoe")
    p.add_argument("--kwargs", nargs="*", default=[], metavar="KW",
                   help="game kwargs: a JSON object or key=value words, e.g. board_size=9 komi=7.5")
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help=f"agent specs: {AGENT_SPECS}")
    p.add_argument("--games", type=int, default=20, help="games per pair (default 20)")
    p.add_argument("--opening-moves", type=int, default=0, metavar="K",
                   help="each pair of games starts from the same K random moves, colours swapped, so that "
                        "agents which play deterministically still meet in different games (default 0)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--anchor", default=None, help="agent name rated 0 (default: mean rating 0)")
    p.add_argument("--out", default="arena_results", help="folder for report.md, elo.png, results.json, games.jsonl")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run_arena)
    return p


def run_arena(args):
    """Run the round robin that the parsed `args` describe, write the report, print the Elo table."""
    from zerogym_agents.arena.elo import fit_elo
    from zerogym_agents.arena.match import round_robin
    from zerogym_agents.arena.report import elo_markdown, pairwise_markdown, write_report
    try:
        kwargs = parse_kwargs(args.kwargs)
        if len(args.agents) < 2:
            raise ValueError("--agents needs at least two agent specs")
        names = agent_names(args.agents)
        if args.anchor is not None and args.anchor not in names:
            raise ValueError(f"--anchor {args.anchor!r} is not one of the agents {names}")
        agents = {name: agent_from_spec(spec, args.game, kwargs) for name, spec in zip(names, args.agents)}
        result = round_robin(agents, args.game, kwargs, args.games, args.seed, progress=not args.no_progress,
                             opening_moves=args.opening_moves)
    except ValueError as err:
        sys.exit(f"zerogym arena: {err}")
    elo = fit_elo(result.outcomes(), names=names, anchor=args.anchor)
    command = "zerogym arena " + " ".join(shlex.quote(a) for a in sys.argv[2:]) if len(sys.argv) > 2 else None
    paths = write_report(result, elo, args.out, command=command)
    print(elo_markdown(elo))
    print(pairwise_markdown(result))
    print(f"wrote {', '.join(paths.values())}")
    return result, elo
