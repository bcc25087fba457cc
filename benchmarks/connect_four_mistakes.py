"""Where an agent's lost and drawn Connect Four games went wrong, found by the perfect-play solver.

    python benchmarks/connect_four_mistakes.py [--agent pretrained:connect_four] [--set decisive_moves=true]
                                               [--opponent uct:1000] [--games 200] [--opening-moves 2]
                                               [--seed 1] [--label NAME]
    python benchmarks/connect_four_mistakes.py --records arena_results/games.jsonl --agent NAME

The agent plays the opponent as `zerogym arena --agents AGENT OPPONENT` does (colours alternated, each
pair of games from the same random opening), or --records reads the games of an arena run. In every
game the agent did not win, the solver finds its decisive mistake
(zerogym_agents.solvers.perfect_play.decisive_mistake): its last move from a position worth more to
it than the result. The report gives each mistake's move number and how many moves the game went on
after it. A short distance is a tactical slip that a deeper search finds, a long one a misjudgement
by the value net. Writes benchmarks/results/connect_four_mistakes[_LABEL].md and .png.
"""

import argparse
import json
import os
import statistics
import sys
import time

import matplotlib
import torch
from tqdm import tqdm

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from zerogym_agents.arena.match import round_robin  # noqa: E402
from zerogym_agents.core.config_io import parse_kwargs  # noqa: E402
from zerogym_agents.solvers import ConnectFourSolver  # noqa: E402
from zerogym_agents.solvers.connect_four import STANDARD  # noqa: E402
from zerogym_agents.solvers.perfect_play import decisive_mistake  # noqa: E402
from zerogym_agents.agents.specs import agent_from_spec, is_saved_agent_spec  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BUCKETS = ((1, 1, "1 (the reply wins)"), (2, 5, "2-5"), (6, 11, "6-11"), (12, 99, "12 or more"))


def play(args):
    """The match's game records, as the arena plays them."""
    if args.set and not is_saved_agent_spec(args.agent):
        raise SystemExit(f"--set overrides the options of a saved agent; {args.agent!r} is not one")
    if args.set:
        from zerogym_agents.agents.saved import load_agent

        agent = load_agent(args.agent, game=STANDARD.name, game_kwargs={}, **parse_kwargs(args.set))
    else:
        agent = agent_from_spec(args.agent, STANDARD.name, {})
    agents = {args.agent: agent, args.opponent: agent_from_spec(args.opponent, STANDARD.name, {})}
    result = round_robin(agents, STANDARD.name, {}, args.games, args.seed, opening_moves=args.opening_moves)
    return result.matches[0].records


def analyse(records, name, solver):
    """One row per game that `name` did not win: its colour, the opening, the result and the mistake."""
    rows = []
    lost = [r for r in records if r["winner"] != r["players"].index(name)]
    for r in tqdm(lost, desc="solving"):
        side, actions = r["players"].index(name), r["actions"]
        i = decisive_mistake(solver, actions, side, start=r.get("opening", 0))
        rows.append(
            {
                "index": r["index"],
                "side": side,
                "opening": actions[: r.get("opening", 0)],
                "result": "draw" if r["winner"] < 0 else "loss",
                "moves": len(actions),
                "mistake": None if i is None else i + 1,
                "after": None if i is None else len(actions) - i - 1,
            }
        )
    return rows


def report(rows, records, name, args, seconds):
    won = sum(r["winner"] == r["players"].index(name) for r in records)
    found = [r for r in rows if r["mistake"] is not None]
    after = [r["after"] for r in found]
    source = (
        f"`{args.records}`"
        if args.records
        else f"`{' '.join(['python benchmarks/connect_four_mistakes.py', *args.argv])}`"
    )
    lines = [
        f"# Connect Four: where {name} went wrong",
        "",
        f"Games: {source} ({len(records)} games, {won} won, {len(rows)} lost or drawn; {seconds:.0f} s). "
        "In each game the agent did not win, the solver finds its decisive mistake: its last move from a "
        "position worth more to it, with perfect play, than the result.",
        "",
        f"- Games with such a mistake: {len(found)} of {len(rows)}; the others were already worth no more than "
        "the result at the agent's first move.",
        f"- Moves the game went on after the mistake: median {statistics.median(after) if after else '-'}.",
        "",
        "| moves after the mistake | games |",
        "|---|---|",
    ]
    for lo, hi, label in BUCKETS:
        lines.append(f"| {label} | {sum(lo <= a <= hi for a in after)} |")
    lines += [
        "",
        "| game | agent plays | opening | result | mistake at move | moves after it | game length |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        opening = "".join(str(a + 1) for a in r["opening"]) or "-"
        lines.append(
            f"| {r['index']} | {'first' if r['side'] == 0 else 'second'} | {opening} | {r['result']} | "
            f"{r['mistake'] if r['mistake'] is not None else '-'} | "
            f"{r['after'] if r['after'] is not None else '-'} | {r['moves']} |"
        )
    lines += ["", f"![mistakes](connect_four_mistakes{'_' + args.label if args.label else ''}.png)", ""]
    return "\n".join(lines)


def plot(rows, path):
    found = [r for r in rows if r["mistake"] is not None]
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    for ax, key, label in zip(axes, ("mistake", "after"), ("move number of the mistake", "moves after the mistake")):
        ax.hist([r[key] for r in found], bins=range(0, 44, 2), color="tab:red" if key == "after" else "tab:blue")
        ax.set_xlabel(label)
        ax.set_ylabel("games")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agent", default="pretrained:connect_four", help="agent spec (with --records: its name there)")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="options of a saved agent")
    ap.add_argument("--opponent", default="uct:1000")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--opening-moves", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--records", default=None, help="an arena games.jsonl to analyse instead of playing")
    ap.add_argument("--tt-bits", type=int, default=24, help="the solver's table: 2**BITS entries of 8 bytes")
    ap.add_argument("--label", default="")
    args = ap.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else list(argv)
    torch.set_num_threads(1)
    start = time.time()
    if args.records:
        with open(args.records) as f:
            records = [json.loads(line) for line in f if line.strip()]
        records = [r for r in records if args.agent in r["players"]]
        if not records:
            raise SystemExit(f"{args.records}: no game of {args.agent!r}")
    else:
        records = play(args)
    rows = analyse(records, args.agent, ConnectFourSolver(tt_bits=args.tt_bits))
    out = os.path.join(HERE, "results", "connect_four_mistakes" + (f"_{args.label}" if args.label else ""))
    text = report(rows, records, args.agent, args, time.time() - start)
    with open(out + ".md", "w") as f:
        f.write(text)
    plot(rows, out + ".png")
    print(text)


if __name__ == "__main__":
    main()
