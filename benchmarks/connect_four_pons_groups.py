"""Connect Four error rates per group of Pascal Pons' benchmark: game stage x distance to the end.

    python benchmarks/connect_four_pons_groups.py --build [--per-group 500] [--begin-hard 200] [--min-stones 8]
    python benchmarks/connect_four_pons_groups.py [--agents pretrained:connect_four net:pretrained:connect_four
                                                   uct:1000 random]

The groups are those of Pons' test sets (P. Pons, "Solving Connect 4: how to build a perfect AI",
2019, part 2, "Benchmarking solvers"), which AlphaZero.jl (J. Laurent, "Training a Connect Four
Agent", the AlphaZero.jl tutorial, 2020-2021) scores agents on.  Stage, by the stones played:
begin (at most 14), middle (15 to 28), end (more than 28).  Difficulty, by the moves left to the
end of the game under perfect play (the last one counted): easy (at most 14), medium (15 to 28),
hard (29 or more); end positions are always easy, middle ones never hard, so the six groups
end-easy, middle-easy, middle-medium, begin-easy, begin-medium, begin-hard hold every position.

--build makes the positions (benchmarks/data/connect_four_pons_groups.json): uniformly random games
stopped at a number of stones drawn uniformly in a stage's range (the beginning from --min-stones),
solved exactly by ConnectFourSolver, kept while their group is not full; as in Pons' files, no
position is won or lost with the next stone.  Without --build every agent moves once in every
position; its error rate in a group is AlphaZero.jl's: the share of positions where the move has a
lower game-theoretic value (win / draw / loss) than the best move.  "net:SPEC" is the policy net of
a saved agent alone (its argmax, no search).  Writes benchmarks/results/connect_four_pons_groups.md
and .png.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import matplotlib
import numpy as np
import torch
from tqdm import tqdm

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from connect_four_perfect_play import pct  # noqa: E402
from connect_four_positions import solve  # noqa: E402
from zerogym_agents.agents.specs import agent_from_spec, saved_options_line  # noqa: E402
from zerogym_agents.solvers.connect_four import (  # noqa: E402
    SCORE_MAX,
    STANDARD,
    ConnectFourSolver,
    state_from_moves,
)
from zerogym_agents.solvers.perfect_play import keeps_value, load_positions  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "connect_four_pons_groups.json")
RESULTS = os.path.join(HERE, "results", "connect_four_pons_groups")
AGENTS = ("pretrained:connect_four", "net:pretrained:connect_four", "uct:1000", "random")
CELLS = STANDARD.kwargs["rows"] * STANDARD.kwargs["cols"]
STAGES = {"begin": (0, 14), "middle": (15, 28), "end": (29, CELLS - 1)}  # stones played
EASY, MEDIUM = 14, 28  # most moves left to the end for easy, for medium
# Pons' test files, in AlphaZero.jl's order
GROUPS = {
    "end-easy": "Test_L3_R1",
    "middle-easy": "Test_L2_R1",
    "middle-medium": "Test_L2_R2",
    "begin-easy": "Test_L1_R1",
    "begin-medium": "Test_L1_R2",
    "begin-hard": "Test_L1_R3",
}
# AlphaZero.jl's MCTS agent (600 simulations) after its 15 training iterations, and its depth-5
# minimax baseline: error rates in % read off the plot of its tutorial (pons-benchmark-results.png)
AZJL = {
    "end-easy": (0.0, 1.4),
    "middle-easy": (0.0, 0.7),
    "middle-medium": (2.8, 9.2),
    "begin-easy": (0.0, 1.7),
    "begin-medium": (2.1, 7.3),
    "begin-hard": (7.5, 23.5),
}


def moves_to_end(stones: int, score: int) -> int:
    """Moves left until the game ends under perfect play, the last one counted, for a position after
    `stones` moves whose exact score for the player to move is `score` (Pons' scoring: a win is
    worth 22 - the winner's stone count at the win, a loss the negative, a draw 0)."""
    if isinstance(stones, bool) or not isinstance(stones, (int, np.integer)) or not 0 <= stones < CELLS:
        raise ValueError(f"stones must be an int in 0..{CELLS - 1} (a running game), got {stones!r}")
    if isinstance(score, bool) or not isinstance(score, (int, np.integer)) or abs(score) > SCORE_MAX:
        raise ValueError(f"score must be an int in -{SCORE_MAX}..{SCORE_MAX}, got {score!r}")
    if score == 0:
        return CELLS - stones  # a draw fills the board
    k = CELLS // 2 + 1 - abs(score)  # the winner's stone count at the win
    first_wins = (stones % 2 == 0) == (score > 0)  # the mover is the first player when stones is even
    end = 2 * k - 1 if first_wins else 2 * k  # the move that wins
    if end <= stones:
        raise ValueError(f"score {score} after {stones} stones: the winner would already have its {k} stones")
    return end - stones


def stage_of(stones: int) -> str:
    """begin, middle or end, by the stones played."""
    for name, (lo, hi) in STAGES.items():
        if lo <= stones <= hi:
            return name
    raise ValueError(f"stones must be in 0..{CELLS - 1}, got {stones!r}")


def difficulty_of(remaining: int) -> str:
    """easy, medium or hard, by the moves left to the end (moves_to_end)."""
    if remaining < 1:
        raise ValueError(f"a running game has at least 1 move left, got {remaining!r}")
    return "easy" if remaining <= EASY else ("medium" if remaining <= MEDIUM else "hard")


def group_of(stones: int, score: int) -> str:
    """The Pons group ("begin-hard", ...) of a position after `stones` moves with exact score `score`."""
    return f"{stage_of(stones)}-{difficulty_of(moves_to_end(stones, score))}"


def error_rate(result: dict) -> tuple[int, int]:
    """(errors, positions) of a keeps_value() result, as AlphaZero.jl counts them: a move is an error
    when another legal move has a higher value; lost positions count, with no error possible."""
    errors = sum(result[k]["n"] - result[k]["kept"] for k in ("won", "drawn"))
    return errors, result["won"]["n"] + result["drawn"]["n"] + result["lost"]


def random_game(rng: np.random.Generator, stones: int) -> list[int] | None:
    """The actions of a uniformly random game stopped after `stones` moves; None if it ended before."""
    state = state_from_moves([])
    moves = []
    while len(moves) < stones:
        if state.is_over():
            return None
        a = int(rng.choice(state.legal_actions()))
        state.step(a)
        moves.append(a)
    return None if state.is_over() else moves


def build(args: argparse.Namespace) -> None:
    quota = {g: args.per_group for g in GROUPS}
    quota["begin-hard"] = args.begin_hard
    rng = np.random.default_rng(args.seed)
    solver = ConnectFourSolver(tt_bits=args.tt_bits)
    kept: dict[str, list] = {g: [] for g in GROUPS}
    seconds = {g: 0.0 for g in GROUPS}
    solved = {g: 0 for g in GROUPS}  # solved to find its group, kept or not
    seen: set[bytes] = set()
    start = time.time()
    ranges = {**STAGES, "begin": (args.min_stones, STAGES["begin"][1])}
    stage_groups = {s: [g for g in GROUPS if g.startswith(s + "-")] for s in STAGES}
    bar = tqdm(total=sum(quota.values()), desc="positions")
    while time.time() - start < 60 * args.max_minutes:
        # the stages in the order of their cost to solve: the end first, the beginning last
        stage = next(
            (s for s in ("end", "middle", "begin") if any(len(kept[g]) < quota[g] for g in stage_groups[s])), None
        )
        if stage is None:
            break
        moves = random_game(rng, int(rng.integers(ranges[stage][0], ranges[stage][1] + 1)))
        if moves is None:
            continue
        state = state_from_moves(moves)
        if state.to_bytes() in seen:
            continue
        seen.add(state.to_bytes())
        t = time.time()
        score = solver.score(state)
        remaining = moves_to_end(len(moves), score)
        group = group_of(len(moves), score)
        solved[group] += 1
        if score != 0 and remaining <= 2 or len(kept[group]) >= quota[group]:
            seconds[group] += time.time() - t  # won or lost at once (as in no Pons file), or the group is full
            continue
        record = solve(solver, moves, score_stones=CELLS)  # the value of every move
        seconds[group] += time.time() - t
        del record["move_scores"]
        record.update(score=score, remaining=remaining, group=group)
        kept[group].append(record)
        bar.update(1)
        bar.set_postfix_str(" ".join(f"{g}={len(kept[g])}" for g in GROUPS), refresh=False)
    bar.close()
    positions = [p for g in GROUPS for p in kept[g]]
    data = {
        "game": STANDARD.name,
        "kwargs": dict(STANDARD.kwargs),
        "command": "python benchmarks/" + os.path.basename(__file__) + " " + " ".join(args.argv),
        "about": (
            "positions of uniformly random games, grouped as Pons' test sets: stage by the stones played "
            "(begin <= 14, from " + str(args.min_stones) + " here; middle 15-28; end > 28), difficulty by the "
            "moves left to the end under perfect play, the last one counted (easy <= 14, medium 15-28, hard > 28); "
            "none is won or lost with the next stone; moves: columns 1..7 from the empty board; value: +1 / 0 / -1 "
            "for the player to move; move_values: the value of each column for it (null: full); score: Pons' "
            "score (22 - the winner's stones at the win); remaining: the moves left to the end"
        ),
        "seconds": round(time.time() - start, 1),
        "groups": {
            g: {
                "positions": len(kept[g]),
                "solved": solved[g],
                "solver_seconds": round(seconds[g], 1),
                "seconds_per_solved": round(seconds[g] / max(1, solved[g]), 3),
            }
            for g in GROUPS
        },
        "positions": positions,
    }
    os.makedirs(os.path.dirname(args.data), exist_ok=True)
    with open(args.data, "w") as f:
        json.dump(data, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(json.dumps(data["groups"], indent=1))
    print(f"{len(positions)} positions in {data['seconds']} s -> {args.data}")


def make_agent(spec: str, seed: int):
    """An agent spec, or "net:SPEC": the policy net of the saved agent SPEC alone (argmax, no search)."""
    if spec.startswith("net:"):
        from zerogym_agents.agents.policy import PolicyAgent
        from zerogym_agents.agents.saved import load_agent

        search = load_agent(spec[len("net:") :], seed=seed, game=STANDARD.name, game_kwargs={})
        net = getattr(getattr(search, "evaluator", None), "net", None)
        if net is None:
            raise ValueError(f"agent spec {spec!r}: {spec[4:]} is not a saved AlphaZero agent with a policy-value net")
        return PolicyAgent(net, greedy=True, seed=seed)
    return agent_from_spec(spec, STANDARD.name, {}, seed=seed)


def report(rows, groups, meta, argv, seconds) -> str:
    names = [spec for spec, _, _ in rows]
    first = min((p["stones"] for g, ps in groups.items() if g.startswith("begin-") for p in ps), default=0)
    lines = [
        "# Connect Four: error rates per group of Pons' benchmark",
        "",
        "Positions of random games, solved exactly by `zerogym_agents.solvers.ConnectFourSolver` and grouped as "
        "Pascal Pons' test sets (stage by stones played, difficulty by the moves left to the end under perfect "
        "play). An agent moves once in each; its error rate is AlphaZero.jl's: the share of the group's "
        "positions (lost ones included, where no move is an error) in which its move has a lower value "
        "(win / draw / loss) than the best. `net:` is the policy net alone (argmax, no search).",
        "",
        "The groups follow Pons' files: their easy positions have 1 to 14 moves left (the last counted), medium "
        "15 to 28, hard 29 to 40, and none is won or lost with the next stone. Unlike his, these positions come "
        "from uniformly random games, and the beginning's start at "
        f"{first} stones (his begin-hard ones mostly have 3 to 8): before that the solver takes from 10 s to minutes a "
        "position here. AlphaZero.jl's figures are on Pons' own positions.",
        "",
        f"Command: `{' '.join(['python benchmarks/connect_four_pons_groups.py', *argv])}` ({seconds:.0f} s on 2 "
        "shared CPU cores, one torch thread); positions: `" + meta["command"].strip() + "`",
        "",
        saved_options_line(names),
        "",
        "| group (Pons' file) | positions (won-drawn-lost) | "
        + " | ".join(names)
        + " | AlphaZero.jl MCTS* | AlphaZero.jl minimax* |",
        "|---|---|" + "---|" * len(names) + "---|---|",
    ]
    for g, file in GROUPS.items():
        ps = groups.get(g, [])
        if not ps:
            continue
        v = [p["value"] for p in ps]
        cells = [pct(*error_rate(r[g])) for _, r, _ in rows]
        lines.append(
            f"| {g} ({file}) | {len(ps)} ({v.count(1)}-{v.count(0)}-{v.count(-1)}) | "
            + " | ".join(cells)
            + f" | {AZJL[g][0]:.1f}% | {AZJL[g][1]:.1f}% |"
        )
    lines.append("| ms per move | | " + " | ".join(f"{1000 * t:.1f}" for _, _, t in rows) + " | | |")
    lines += [
        "",
        "\\*Read off the plot of AlphaZero.jl's Connect Four tutorial (its agent after 15 training iterations, "
        "600 MCTS simulations per move; the baseline a depth-5 minimax), on Pons' own 1000 positions per group: "
        "about 0.1% on the easy panels, 0.3% on the others.",
        "",
    ]
    if rows and rows[0][0] == AGENTS[0]:
        verdicts = []
        for g in GROUPS:
            if g in rows[0][1] and error_rate(rows[0][1][g])[1]:
                e, n = error_rate(rows[0][1][g])
                verdicts.append(f"{g} {'at or below' if 100 * e / n <= AZJL[g][0] else 'above'}")
        lines += [f"`{AGENTS[0]}` against AlphaZero.jl's MCTS agent, per group: " + ", ".join(verdicts) + ".", ""]
    lines += [
        "| group | stones | moves left | positions solved (kept or not) | solver s per solved position |",
        "|---|---|---|---|---|",
    ]
    for g in GROUPS:
        ps, info = groups.get(g, []), meta["groups"].get(g)
        if ps and info:
            s, r = [p["stones"] for p in ps], [p["remaining"] for p in ps]
            lines.append(
                f"| {g} | {min(s)}-{max(s)} | {min(r)}-{max(r)} | {info['solved']} | {info['seconds_per_solved']:.3f} |"
            )
    lines += ["", "![errors](connect_four_pons_groups.png)", ""]
    return "\n".join(lines)


def plot(rows, path) -> None:
    fig, ax = plt.subplots(figsize=(8, 3.8))
    groups = [g for g in GROUPS if g in rows[0][1]]
    width = 0.8 / (len(rows) + 1)
    for k, (spec, r, _) in enumerate(rows):
        vals = [100 * error_rate(r[g])[0] / max(1, error_rate(r[g])[1]) for g in groups]
        ax.bar([i + (k - len(rows) / 2) * width for i in range(len(groups))], vals, width, label=spec)
    ax.bar(
        [i + (len(rows) - len(rows) / 2) * width for i in range(len(groups))],
        [AZJL[g][0] for g in groups],
        width,
        label="AlphaZero.jl MCTS (published)",
        color="grey",
    )
    ax.set_xticks(range(len(groups)), groups, fontsize=8)
    ax.set_ylabel("error rate (%)")
    ax.set_yscale("symlog", linthresh=1)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def evaluate(args: argparse.Namespace) -> None:
    with open(args.data) as f:
        meta = json.load(f)
    positions = load_positions(args.data)
    groups: dict[str, list] = {}
    for p in positions:
        if p.get("group") not in GROUPS:
            raise ValueError(f"{args.data}: every position needs a 'group', one of {', '.join(GROUPS)}")
        groups.setdefault(p["group"], []).append(p)
    rows, start = [], time.time()
    for spec in args.agents:
        agent = make_agent(spec, args.seed)
        result, moves, t = {}, 0, time.time()
        for g, ps in groups.items():
            result[g] = keeps_value(
                agent, ps, seed=args.seed, progress=lambda xs, g=g, spec=spec: tqdm(xs, desc=f"{spec} {g}")
            )
            moves += sum(a is not None for a in result[g]["moves"])
        rows.append((spec, result, (time.time() - t) / max(1, moves)))
    text = report(rows, groups, meta, args.argv, time.time() - start)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".md", "w") as f:
        f.write(text)
    plot(rows, args.out + ".png")
    print(text)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", action="store_true", help="make the position set instead of scoring agents")
    ap.add_argument("--per-group", type=int, default=500, help="--build: positions per group")
    ap.add_argument("--begin-hard", type=int, default=200, help="--build: positions of begin-hard, the slowest")
    ap.add_argument("--min-stones", type=int, default=8, help="--build: the fewest stones of a position")
    ap.add_argument("--max-minutes", type=float, default=14.0, help="--build: stop (keeping what is solved) after")
    ap.add_argument("--tt-bits", type=int, default=24, help="--build: the solver's table, 2**N 8-byte entries")
    ap.add_argument("--agents", nargs="+", default=list(AGENTS))
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=RESULTS)
    args = ap.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else argv
    if not 0 <= args.min_stones <= STAGES["begin"][1]:
        ap.error(f"--min-stones must be in 0..{STAGES['begin'][1]} (the beginning's stones), got {args.min_stones}")
    if args.per_group < 0 or args.begin_hard < 0:
        ap.error("--per-group and --begin-hard must be >= 0")
    torch.set_num_threads(1)
    if args.build:
        build(args)
    else:
        evaluate(args)


if __name__ == "__main__":
    main()
