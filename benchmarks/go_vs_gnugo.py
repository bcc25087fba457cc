"""A Go agent against GNU Go: games with colours alternated, each pair from the same random opening,
every game scored by Tromp-Taylor area counting (the env's rules, which decide the game) and again by
GNU Go's own counting (final_score, after it removes the stones it thinks dead), the two cross-checked.

    python benchmarks/go_vs_gnugo.py --agent pretrained:go_9x9 --level 10 --games 100 --workers 2
    python benchmarks/go_vs_gnugo.py --agent runs/az-strength-go_9x9/agent.pt --label new --simulations 400

GNU Go plays with --chinese-rules and captures every dead stone before it passes, so the two counts
agree on nearly every game; the report lists those where they do not. --workers N plays the games in
N processes (each its own share of the games, colours alternated within it). The report also
sorts the games by GNU Go's count of the board when it first passed (it thinks the game settled): a
game lost there was decided before, whatever the margin at the end (--first-pass GAMES_JSONL prints
that table for saved games). Writes
benchmarks/results/go_vs_gnugo_<label>.md and .png (the margins), and the games
(games_<label>.jsonl, arena records) under runs/go_vs_gnugo/.
"""

import argparse
import json
import math
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
DRAW = -1  # play_game's winner of a game without a result


def agent_for(spec, simulations, seed, kwargs, resign_below=None):
    """The agent of an arena `spec`; a saved one (pretrained:NAME, a file) with `simulations` per move
    and resigning below `resign_below` (an AlphaZero agent) when given."""
    from zerogym_agents.agents.saved import load_agent
    from zerogym_agents.agents.specs import agent_from_spec, is_saved_agent_spec

    over = {k: v for k, v in (("simulations", simulations), ("resign_below", resign_below)) if v is not None}
    if over and is_saved_agent_spec(spec):
        return load_agent(spec, seed=seed, game="go", game_kwargs=kwargs, **over)
    return agent_from_spec(spec, "go", kwargs, seed=seed)


def play_share(job):
    """One process's games: (records, seconds)."""
    from zerogym_agents.arena.match import play_match
    from zerogym_agents.agents.gnugo import GnuGoAgent

    torch.set_num_threads(1)
    t0 = time.time()
    agent = agent_for(job["agent"], job["simulations"], job["seed"], job["kwargs"], job["resign_below"])
    gnugo = GnuGoAgent(level=job["level"], seed=job["seed"])
    result = play_match(
        agent,
        gnugo,
        "go",
        job["kwargs"],
        games=job["games"],
        seed=job["seed"],
        names=(job["label"], gnugo.name),
        opening_moves=job["opening_moves"],
    )
    return result.records, time.time() - t0


def shares(games, workers):
    """Even game counts per process (colours alternate within each), adding up to `games`."""
    pairs = games // 2
    return [2 * (pairs // workers + (w < pairs % workers)) for w in range(workers)]


def cross_check(record, board_size, komi):
    """(Tromp-Taylor margin for black, GNU Go's final_score for black): both black - white - komi."""
    from zerogym_agents.agents.gnugo import gnugo_final

    tt = record["info"]["score"]
    return tt, gnugo_final(record["actions"], board_size, komi)["score"]


def at_first_pass(record, board_size, komi):
    """GNU Go's count (final_score, dead stones removed) of the board when it first passed and the game
    went on, as the agent's result: "won" / "lost" / "drawn"; None when GNU Go never passed while the
    game went on (the game ended before, or with that pass)."""
    from zerogym_agents.agents.gnugo import gnugo_final

    acts, agent = record["actions"], 0 if record["a_moved_first"] else 1
    pass_ = board_size * board_size
    first = next((i for i, a in enumerate(acts) if a == pass_ and i % 2 != agent), None)
    if first is None or first == len(acts) - 1:
        return None
    margin = gnugo_final(acts[: first + 1], board_size, komi)["score"] * (1 if agent == 0 else -1)
    return "won" if margin > 0 else "lost" if margin < 0 else "drawn"


def first_pass_table(records, board_size, komi):
    """Markdown lines: the games by their final result and the result at GNU Go's first pass."""
    rows = {}
    for r in records:
        final = "drawn" if r["winner"] == DRAW else "won" if (r["winner"] == 0) == r["a_moved_first"] else "lost"
        rows.setdefault(final, []).append(at_first_pass(r, board_size, komi) or "-")
    cols = ("won", "lost", "drawn", "-")
    lines = [
        "| final result | games | won at GNU Go's first pass | lost there | drawn there | GNU Go did not pass "
        "while the game went on |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {final} | {len(rows[final])} | " + " | ".join(str(rows[final].count(c)) for c in cols) + " |"
        for final in ("won", "drawn", "lost")
        if final in rows
    ]
    return lines


def wilson(k, n, z=1.96):
    """The 95% Wilson interval of a proportion k / n."""
    if n == 0:
        return 0.0, 1.0
    p, d = k / n, 1 + z * z / n
    c, h = (p + z * z / (2 * n)) / d, z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agent", default="pretrained:go_9x9", help="a saved agent, pretrained:NAME or arena spec")
    ap.add_argument("--simulations", type=int, default=None, help="per move (default: the agent file's)")
    ap.add_argument("--level", type=int, default=10, help="GNU Go's level (0..10)")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--board-size", type=int, default=9)
    ap.add_argument("--komi", type=float, default=7.5)
    ap.add_argument("--opening-moves", type=int, default=2, help="random moves opening each pair of games")
    ap.add_argument("--workers", type=int, default=2, help="processes playing games")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--label", default=None, help="names the results (default: the agent's file name)")
    ap.add_argument(
        "--resign-below",
        type=float,
        default=None,
        metavar="V",
        help="the agent (a saved AlphaZero one) resigns after 2 moves in a row with its value below V",
    )
    ap.add_argument(
        "--first-pass",
        metavar="GAMES_JSONL",
        default=None,
        help="print the table of results at GNU Go's first pass of games saved by an earlier run, and play nothing",
    )
    args = ap.parse_args(argv)
    if args.first_pass:
        with open(args.first_pass) as f:
            records = [json.loads(line) for line in f]
        print("\n".join(first_pass_table(records, args.board_size, args.komi)))
        return
    from zerogym_agents.agents.gnugo import find_gnugo

    find_gnugo()  # fail now, not in the workers
    from zerogym_agents.agents.specs import is_saved_agent_spec

    if args.resign_below is not None and not is_saved_agent_spec(args.agent):
        raise SystemExit(f"--resign-below needs a saved AlphaZero agent, not {args.agent!r}")
    if args.games < 2 or args.games % 2:
        raise SystemExit(f"--games must be an even number >= 2 (colours alternate), got {args.games}")
    label = args.label or os.path.splitext(os.path.basename(args.agent.replace("pretrained:", "")))[0]
    kwargs = {"board_size": args.board_size, "komi": args.komi}
    counts = [n for n in shares(args.games, max(1, args.workers)) if n]
    jobs = [
        dict(
            agent=args.agent,
            simulations=args.simulations,
            resign_below=args.resign_below,
            level=args.level,
            kwargs=kwargs,
            games=n,
            seed=args.seed + 1000 * w,
            opening_moves=args.opening_moves,
            label=label,
        )
        for w, n in enumerate(counts)
    ]
    t0 = time.time()
    with ProcessPoolExecutor(len(jobs)) as pool:
        done = list(tqdm(pool.map(play_share, jobs), total=len(jobs), desc=f"{label} vs gnugo:{args.level}"))
    wall = time.time() - t0
    records = [r for recs, _ in done for r in recs]
    checks = [
        None if r["resigned"] is not None else cross_check(r, args.board_size, args.komi)
        for r in tqdm(records, desc="GNU Go counts")
    ]  # a resigned game has no count
    cmd = "python benchmarks/go_vs_gnugo.py " + " ".join(sys.argv[1:] if argv is None else argv)
    write(args, cmd, label, records, checks, wall)


def write(args, cmd, label, records, checks, wall):
    runs = os.path.join("runs", "go_vs_gnugo")
    os.makedirs(runs, exist_ok=True)
    with open(os.path.join(runs, f"games_{label}.jsonl"), "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)
    black = [r["a_moved_first"] for r in records]  # the agent played black
    drawn = [r["winner"] == DRAW for r in records]  # stopped at the move limit: no result
    won = [not d and (r["winner"] == 0) == b for r, b, d in zip(records, black, drawn)]
    n, wins, draws = len(records), sum(won), sum(drawn)
    lo, hi = wilson(wins, n)

    def wdl(colour):
        games = [(w, d) for w, d, b in zip(won, drawn, black) if b == colour]
        return f"{sum(w for w, _ in games)}-{sum(d for _, d in games)}-{sum(not w and not d for w, d in games)}"

    counted = [(i, c) for i, c in enumerate(checks) if c is not None]
    disagree = [(i, tt, gg) for i, (tt, gg) in counted if (tt > 0) != (gg > 0)]
    margins = [tt if black[i] else -tt for i, (tt, _) in counted]  # the agent's margin
    resigned = [r["resigned"] == (0 if b else 1) for r, b in zip(records, black) if r["resigned"] is not None]
    lines = [
        f"# {label} against GNU Go level {args.level}",
        "",
        f"Made by `{cmd}` on a machine with {os.cpu_count()} CPU cores, {wall / 60:.0f} minutes.",
        "",
        f"Go {args.board_size}x{args.board_size}, komi {args.komi}, "
        "Tromp-Taylor area scoring (positional superko); "
        f"{args.agent} with {args.simulations or 'its saved number of'} simulations a move; GNU Go "
        f"`--level {args.level} --chinese-rules`, capturing dead stones before passing; colours alternated, "
        f"each pair of games from the same {args.opening_moves} random opening moves.",
        "",
        "| games | agent W-D-L | games won | 95% interval | score (draws half) | as black (W-D-L) | "
        "as white (W-D-L) | median margin |",
        "|---|---|---|---|---|---|---|---|",
        f"| {n} | {wins}-{draws}-{n - wins - draws} | {100 * wins / n:.0f}% | "
        f"{100 * lo:.0f}% .. {100 * hi:.0f}% | "
        f"{100 * (wins + draws / 2) / n:.1f}% | {wdl(True)} | {wdl(False)} | "
        f"{statistics.median(margins) if margins else float('nan'):+.1f} |",
        "",
        "A draw is a game that reached the env's move limit (max_moves) without a result. The margin "
        "is the agent's Tromp-Taylor margin at the end (komi included), in the games not resigned.",
        "",
        f"GNU Go's own count (final_score) gives the same winner in {len(counted) - len(disagree)} of "
        f"{len(counted)} games counted.",
    ]
    if resigned:
        lines[-1] += (
            f" {len(resigned)} games ended by resignation, not counted: the agent resigned {sum(resigned)}, "
            f"GNU Go {len(resigned) - sum(resigned)}."
        )
    if disagree:
        lines += ["", "| game | Tromp-Taylor (black - white - komi) | GNU Go final_score |", "|---|---|---|"]
        lines += [f"| {i} | {tt:+.1f} | {gg:+.1f} |" for i, tt, gg in disagree]
    lines += [
        "",
        "GNU Go passes once it thinks the game is settled. Its count of the board then (dead stones "
        "removed) tells a game decided by then from one that turned later:",
        "",
        *first_pass_table(records, args.board_size, args.komi),
    ]
    lines += ["", f"![margins](go_vs_gnugo_{label}.png)", ""]
    out = os.path.join(HERE, "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"go_vs_gnugo_{label}.md"), "w") as f:
        f.write("\n".join(lines))
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(margins, bins=30)
    ax.axvline(0, color="k", lw=1)
    ax.set_xlabel("agent's margin (points, Tromp-Taylor, komi included)")
    ax.set_ylabel("games")
    ax.set_title(f"{label} against GNU Go level {args.level}: {wins} of {n} won")
    fig.tight_layout()
    fig.savefig(os.path.join(out, f"go_vs_gnugo_{label}.png"), dpi=100)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
