"""How safely an AlphaZero agent could resign: replays saved games (arena records, e.g. those of
go_vs_gnugo.py), lets the agent search every position where it was to move, and reports, for each
threshold, how many games it would have resigned with its value below the threshold for
--resign-moves of its moves in a row: the won ones (false resignations) and the lost or drawn ones.

AlphaGo Zero (Silver et al., "Mastering the game of Go without human knowledge", 2017) chose its
resignation threshold so that fewer than 5% of the games resigned would have been won.

    python benchmarks/resign_calibration.py --games runs/go_vs_gnugo/games_go_9x9_80min.jsonl \\
        --agent pretrained:go_9x9 --label go_9x9_80min --workers 2

The search is the agent's own (its saved simulations unless --simulations), seeded as the arena
seeded it for each game and reusing its tree as in play, so with the same simulations the values
are the ones it saw in the games. Writes
benchmarks/results/resign_calibration_<label>.md and .png (the values over the games) and the values
(runs/resign_calibration/values_<label>.jsonl).
"""

import argparse
import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402
from tqdm import tqdm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DRAW = -1  # an arena record's winner of a game without a result


def result(record):
    """The agent's result in an arena record where it is player A: "won", "lost" or "drawn"."""
    if record["winner"] == DRAW:
        return "drawn"
    return "won" if (record["winner"] == 0) == record["a_moved_first"] else "lost"


def values_of(job):
    """[(game's line in the file, [the agent's root value at each of its moves])] of a share of the games."""
    import zerogym
    from zerogym_agents.arena.match import _seed_int
    from zerogym_agents.agents.saved import load_agent

    torch.set_num_threads(1)
    over = {"simulations": job["simulations"]} if job["simulations"] else {}
    agents, out = {}, []
    for line, record in job["records"]:
        key = (record["game"], json.dumps(record["kwargs"], sort_keys=True))
        if key not in agents:
            agents[key] = load_agent(job["agent"], game=record["game"], game_kwargs=record["kwargs"], **over)
        agent = agents[key]
        env = zerogym.make(record["game"], **record["kwargs"])
        env.reset(seed=record["seed"])
        seat, values = 0 if record["a_moved_first"] else 1, []
        agent.seed(_seed_int(record["seed"], 1 + seat))  # as the arena seeded it for this game
        agent.reset()
        state = env.unwrapped.state
        for action in record["actions"]:
            if state.current_player == seat:
                values.append(agent.search(state)[2])
            env.step(action)
        out.append((line, values))
    return out


def resign_move(values, below, moves):
    """The agent's move (0-based, counting its own moves) at which it would resign, or None."""
    low = 0
    for i, v in enumerate(values):
        low = low + 1 if v < below else 0
        if low >= moves:
            return i
    return None


def table(records, values, thresholds, moves):
    """Markdown lines: per threshold, the games it would resign, by their result (values: per record)."""
    results = [result(r) for r in records]
    n = {r: results.count(r) for r in ("won", "lost", "drawn")}
    lines = [
        "| resign below | won games resigned (false) | lost games resigned | drawn games resigned | "
        "median share of its moves left when resigning (lost games) |",
        "|---|---|---|---|---|",
    ]
    for below in thresholds:
        at = [resign_move(v, below, moves) for v in values]
        resigned = {r: sum(a is not None for a, x in zip(at, results) if x == r) for r in n}
        left = [1 - (a + 1) / len(v) for a, v, x in zip(at, values, results) if x == "lost" and a is not None]
        lines.append(
            f"| {below:+.2f} | {resigned['won']} of {n['won']} | {resigned['lost']} of {n['lost']} | "
            f"{resigned['drawn']} of {n['drawn']} | " + (f"{statistics.median(left):.0%}" if left else "-") + " |"
        )
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", required=True, help="arena records, one JSON per line, the agent as player A")
    ap.add_argument(
        "--agent", required=True, help="the saved AlphaZero agent that played them (pretrained:NAME or a file)"
    )
    ap.add_argument("--simulations", type=int, default=None, help="per move (default: the agent file's)")
    ap.add_argument("--thresholds", type=float, nargs="+", default=[-0.8, -0.9, -0.95, -0.98])
    ap.add_argument("--resign-moves", type=int, default=2, help="moves in a row below the threshold")
    ap.add_argument("--workers", type=int, default=2, help="processes searching")
    ap.add_argument("--label", required=True, help="names the results")
    args = ap.parse_args(argv)
    with open(args.games) as f:
        records = [json.loads(line) for line in f]
    if not records:
        raise SystemExit(f"{args.games}: no games")
    workers = max(1, min(args.workers, len(records)))
    jobs = [
        dict(agent=args.agent, simulations=args.simulations, records=list(enumerate(records))[w::workers])
        for w in range(workers)
    ]
    t0 = time.time()
    with ProcessPoolExecutor(workers) as pool:
        done = list(tqdm(pool.map(values_of, jobs), total=workers, desc=f"{args.label}: searching the games"))
    by_line = dict(v for share in done for v in share)
    values = [by_line[i] for i in range(len(records))]
    wall = time.time() - t0
    runs = os.path.join("runs", "resign_calibration")
    os.makedirs(runs, exist_ok=True)
    with open(os.path.join(runs, f"values_{args.label}.jsonl"), "w") as f:
        f.writelines(
            json.dumps({"line": i, "result": result(r), "values": v}) + "\n"
            for i, (r, v) in enumerate(zip(records, values))
        )
    cmd = "python benchmarks/resign_calibration.py " + " ".join(sys.argv[1:] if argv is None else argv)
    lines = [
        f"# Resignation thresholds of {args.agent} ({args.label})",
        "",
        f"Made by `{cmd}` on a machine with {os.cpu_count()} CPU cores, {wall / 60:.0f} minutes.",
        "",
        f"{len(records)} games of {args.games}, searched again at every position where the agent was to move "
        f"({args.simulations or 'its saved number of'} simulations). A game is resigned at a threshold when "
        f"the agent's root value stays below it for {args.resign_moves} of its moves in a row. A won game "
        "resigned is a false resignation.",
        "",
        *table(records, values, args.thresholds, args.resign_moves),
        "",
        f"![values](resign_calibration_{args.label}.png)",
        "",
    ]
    out = os.path.join(HERE, "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"resign_calibration_{args.label}.md"), "w") as f:
        f.write("\n".join(lines))
    fig, ax = plt.subplots(figsize=(7, 4))
    colours = {"won": "tab:green", "lost": "tab:red", "drawn": "tab:grey"}
    for r, v in zip(records, values):
        ax.plot(v, color=colours[result(r)], lw=0.6, alpha=0.5)
    for below in args.thresholds:
        ax.axhline(below, color="k", lw=0.5, ls=":")
    ax.set(
        xlabel="the agent's move",
        ylabel="root value",
        ylim=(-1.05, 1.05),
        title=f"{args.label}: values in won (green), lost (red), drawn (grey) games",
    )
    fig.tight_layout()
    fig.savefig(os.path.join(out, f"resign_calibration_{args.label}.png"), dpi=100)
    plt.close(fig)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
