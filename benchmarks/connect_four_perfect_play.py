"""How often agents keep the game-theoretic value of solved Connect Four positions.

    python benchmarks/connect_four_perfect_play.py [--agents pretrained:connect_four uct:1000 greedy random]
                                                   [--positions benchmarks/data/connect_four_positions.json]

Every agent moves once in every position of the set (benchmarks/connect_four_positions.py made it);
a won position must stay won after its move, a drawn one must not be lost.  "Critical" positions are
those where some legal move gives the value away.  The shipped AlphaZero agent plays with its model
card's options (400 simulations).  Writes benchmarks/results/connect_four_perfect_play.md and .png.
"""

import argparse
import os
import sys
import time

import matplotlib
import torch
from tqdm import tqdm

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from zerogym_agents.solvers.connect_four import STANDARD  # noqa: E402
from zerogym_agents.solvers.perfect_play import keeps_value, load_positions  # noqa: E402
from zerogym_agents.agents.specs import agent_from_spec, saved_options_line  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
POSITIONS = os.path.join(HERE, "data", "connect_four_positions.json")
RESULTS = os.path.join(HERE, "results", "connect_four_perfect_play")
AGENTS = ("pretrained:connect_four", "uct:1000", "greedy", "random")
TARGET = 0.98  # the share of won and drawn positions the shipped agent should keep


def pct(k, n):
    return f"{100 * k / n:.1f}% ({k}/{n})" if n else "-"


def report(rows, positions, args, seconds):
    won = sum(p["value"] > 0 for p in positions)
    drawn = sum(p["value"] == 0 for p in positions)
    lines = [
        "# Connect Four: how often agents keep the game-theoretic value",
        "",
        f"{len(positions)} positions from games between zerogym agents ({won} won, {drawn} drawn, "
        f"{len(positions) - won - drawn} lost for the player to move), solved exactly by "
        "`zerogym_agents.solvers.ConnectFourSolver`; each agent moves once in each. A won position is kept when "
        "the move still wins, a drawn one when the move does not lose. Critical positions: some legal move gives "
        "the value away. Lost positions are not scored (every move keeps a loss).",
        "",
        f"Command: `{' '.join(['python benchmarks/connect_four_perfect_play.py', *args])}` ({seconds:.0f} s on "
        "2 shared CPU cores, one torch thread)",
        "",
        saved_options_line(spec for spec, _, _ in rows),
        "",
        "| agent | won kept | drawn kept | all kept | won kept, critical | drawn kept, critical | ms per move |",
        "|---|---|---|---|---|---|---|",
    ]
    for spec, r, t in rows:
        w, d = r["won"], r["drawn"]
        lines.append(
            f"| {spec} | {pct(w['kept'], w['n'])} | {pct(d['kept'], d['n'])} | "
            f"{pct(w['kept'] + d['kept'], w['n'] + d['n'])} | {pct(w['kept_critical'], w['critical'])} | "
            f"{pct(d['kept_critical'], d['critical'])} | {1000 * t:.1f} |"
        )
    az = next((r for spec, r, _ in rows if spec == AGENTS[0]), None)
    if az is not None:
        kept = (az["won"]["kept"] + az["drawn"]["kept"]) / max(1, az["won"]["n"] + az["drawn"]["n"])
        lines += [
            "",
            f"Target for the shipped agent: keeps the value in at least {100 * TARGET:.0f}% of the won and drawn "
            f"positions: {100 * kept:.1f}%, {'met' if kept >= TARGET else 'not met'}.",
        ]
    lines += ["", "![kept](connect_four_perfect_play.png)", ""]
    return "\n".join(lines)


def plot(rows, path):
    fig, ax = plt.subplots(figsize=(7, 3.6))
    names = [spec for spec, _, _ in rows]
    width = 0.2
    for k, (key, sub) in enumerate(
        (("won", "kept"), ("drawn", "kept"), ("won", "kept_critical"), ("drawn", "kept_critical"))
    ):
        total = "n" if sub == "kept" else "critical"
        vals = [100 * r[key][sub] / r[key][total] if r[key][total] else 0 for _, r, _ in rows]
        label = f"{key}{'' if sub == 'kept' else ', critical'}"
        ax.bar([i + (k - 1.5) * width for i in range(len(rows))], vals, width, label=label)
    ax.set_xticks(range(len(rows)), names)
    ax.set_ylabel("positions whose value the move keeps (%)")
    ax.set_ylim(0, 105)
    ax.axhline(100 * TARGET, color="grey", lw=0.8, ls="--")
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agents", nargs="+", default=list(AGENTS))
    ap.add_argument("--positions", default=POSITIONS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=RESULTS)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    positions = load_positions(args.positions)
    rows, start = [], time.time()
    for spec in args.agents:
        agent = agent_from_spec(spec, STANDARD.name, {}, seed=args.seed)
        t = time.time()
        result = keeps_value(agent, positions, seed=args.seed, progress=lambda xs, spec=spec: tqdm(xs, desc=spec))
        rows.append((spec, result, (time.time() - t) / max(1, sum(a is not None for a in result["moves"]))))
    text = report(rows, positions, sys.argv[1:] if argv is None else argv, time.time() - start)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".md", "w") as f:
        f.write(text)
    plot(rows, args.out + ".png")
    print(text)


if __name__ == "__main__":
    main()
