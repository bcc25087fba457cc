"""Time to strength: how much wall-clock training each AlphaZero method needs to reach fixed levels of play.

Methods, each trained for the same minutes of training on the same machine, from the same net and seeds:

    puct             the AlphaZero trainer as it is (PUCT search, Dirichlet noise, visit-count targets)
    gumbel           Gumbel root search (Danihelka et al., "Policy improvement by planning with Gumbel", 2022)
    gumbel+pcr       Gumbel + KataGo's playout cap randomization (Wu, "Accelerating Self-Play Learning in Go", 2019)
    gumbel+pcr+aux   Go only: + KataGo's ownership and score-margin auxiliary targets

Games: Connect Four from scratch; Go 9x9 starting from pretrained:go_5x5 (a size-independent net). Each
run is evaluated before training and every --eval-every minutes of training against fixed references
(Random, UCT(200), UCT(1000); GNU Go levels 1, 5 and 10 on Go when `gnugo` is installed), colours
alternated, pairs of games from the same random opening. The report gives, per method, the training time
(evaluation not counted) of the first evaluation point at which it scored at least 50%, 80% and 95%
against the target reference (UCT(1000); on Go, GNU Go level 1 when installed), for every seed, besides
the pooled Elo over training (fit_elo, Random = 0). Methods run one after the other, seed by seed
(every method's seed 0, then every method's seed 1 ...), so a change of the machine's load hits all
methods alike; the load average is recorded at every evaluation point and reported. With --parallel N,
N runs train side by side in child processes, one core each.

The full benchmark trains 2 seeds x (3 methods x 20 min on Connect Four + 4 methods x 30 min on Go), 6 hours
of training, plus the evaluations, which are not counted in the budgets and on Go 9x9 (UCT(1000), GNU Go,
200 simulations a move) take longer than the training: lower --eval-games or raise --eval-every to
shorten them. Give it a machine of its own: a loaded machine shortens every method's training alike only
when the load stays the same, which the load column lets you check.

It runs on the experiment harness (zerogym_agents.experiment: Budget, Comparison), so it resumes: kill it
and start it again with the same settings, and finished runs are skipped, unfinished ones continue from
their last checkpoint.

    python benchmarks/time_to_strength.py                     # the full benchmark (see below for its length)
    python benchmarks/time_to_strength.py --quick             # a couple of minutes, tiny budgets: a smoke test
    python benchmarks/time_to_strength.py --games connect_four --seeds 3 --minutes 30
    python benchmarks/time_to_strength.py --games go_9x9 --parallel 2   # two runs at a time, one core each
    python benchmarks/time_to_strength.py --report-only       # rebuild the report from the saved runs

Writes benchmarks/results/time_to_strength.md (--quick: time_to_strength_quick.md) and a plot per game
(Elo and score against the target over training minutes): a sitting rewrites the sections of its games
and keeps the others already in the report. The runs (checkpoints, TensorBoard logs under
each run's tb/, final agents) under runs/time_to_strength/<game>/, and a TensorBoard summary of the
evaluation points under runs/time_to_strength/<game>/tb_summary/.
"""

import argparse
import os
import platform
import shlex
import shutil
import statistics
import sys
import time

import torch
from tqdm import tqdm

from zerogym_agents.experiment import Budget, Comparison
from zerogym_agents.experiment.evaluation import total

HERE = os.path.dirname(os.path.abspath(__file__))
LEVELS = (0.5, 0.8, 0.95)  # scores against the target reference
NET = {"trunk": "resnet", "blocks": 4, "channels": 32, "value_loss": "bce", "value_activation": "leaky_relu"}
# AlphaZeroConfig overrides of each method, over the game's training config
METHODS = {
    "puct": {},
    "gumbel": {"search": "gumbel"},
    "gumbel+pcr": {"search": "gumbel", "cheap_simulations": "quarter", "full_search_prob": 0.25},
    "gumbel+pcr+aux": {
        "search": "gumbel",
        "cheap_simulations": "quarter",
        "full_search_prob": 0.25,
        "ownership_weight": 1.5,
        "score_weight": 0.5,
    },
}
AUX_METHODS = ("gumbel+pcr+aux",)  # Go only: the other games have no ownership to predict
GNUGO_LEVELS = ("gnugo:1", "gnugo:5", "gnugo:10")
GAMES = ("connect_four", "go_9x9")


def presets(quick):
    """Per game: name, kwargs, training config, minutes per run, evaluation every, eval games, the
    evaluated agent's simulations, references and target reference."""
    if quick:
        selfplay = dict(concurrent_games=8, simulations=8, pool_fraction=0.0)
        train = dict(selfplay, batch_size=16, min_buffer=16, max_train_per_step=1, checkpoint_every=10, log_every=5)
        common = dict(
            minutes=0.1,
            eval_every=0.05,
            eval_games=2,
            play_simulations=8,
            references=["random", "uct:10", "uct:40"],
            target="uct:40",
        )
        return {
            "connect_four": dict(
                game="connect_four", kwargs={}, config=dict(train, net={"blocks": 1, "channels": 8}), **common
            ),
            "go_9x9": dict(
                game="go",
                kwargs={"board_size": 9},
                config=dict(train, init_from="pretrained:go_5x5", no_pass_fraction=0.3),
                **common,
            ),
        }
    selfplay = dict(concurrent_games=64, simulations=64, temperature_moves=6, pool_fraction=0.0)
    learning = dict(batch_size=256, min_buffer=2048, buffer_size=200_000, lr=0.02, lr_final=0.002)
    train = dict(selfplay, **learning, checkpoint_every=100)
    refs = ["random", "uct:200", "uct:1000"]
    gnugo = gnugo_references()  # the 5x5 net already beats UCT(1000) on 9x9: GNU Go is the yardstick
    return {
        "connect_four": dict(
            game="connect_four",
            kwargs={},
            config=dict(train, net=NET),
            minutes=20.0,
            eval_every=2.5,
            eval_games=20,
            play_simulations=200,
            references=refs,
            target="uct:1000",
        ),
        "go_9x9": dict(
            game="go",
            kwargs={"board_size": 9},
            config=dict(train, init_from="pretrained:go_5x5", dirichlet_alpha=0.15, no_pass_fraction=0.3),
            minutes=30.0,
            eval_every=5.0,
            eval_games=20,
            play_simulations=200,
            references=refs + gnugo,
            target="gnugo:1" if gnugo else "uct:1000",
        ),
    }


def gnugo_references():
    """GNU Go levels as references when the gnugo binary is installed, else none."""
    from zerogym_agents.agents.gnugo import GnuGoNotFoundError, find_gnugo

    try:
        find_gnugo()
    except GnuGoNotFoundError:
        return []
    return list(GNUGO_LEVELS)


def method_config(base, method):
    """The AlphaZeroConfig fields of `method` over the game's `base` config."""
    over = dict(METHODS[method])
    if over.get("cheap_simulations") == "quarter":  # KataGo's cheap search: about a quarter of the full one
        over["cheap_simulations"] = max(1, base["simulations"] // 4)
    return {**base, **over}


class TimedComparison(Comparison):
    """A Comparison that records the machine's load: the 1, 5 and 15-minute load averages at every
    evaluation point, and the host, its cores and the process each time a sitting takes a run up."""

    def open_record(self, name, record):
        super().open_record(name, record)
        record.setdefault("sittings", []).append(
            {
                "host": platform.node(),
                "cpus": os.cpu_count(),
                "pid": os.getpid(),
                "started": time.time(),
                "load": list(os.getloadavg()),
            }
        )

    def evaluation_point(self, name, run, rec, k, target):
        load = list(os.getloadavg())
        super().evaluation_point(name, run, rec, k, target)
        rec["evals"][-1]["load"] = load
        self.save_record(name, rec)


def build(game_name, preset, args, log):
    """The comparison of one game: every method and seed, seed-major."""
    minutes = args.minutes or preset["minutes"]
    every = args.eval_every or min(preset["eval_every"], minutes)
    refs = args.references or preset["references"]
    target = args.target or preset["target"]
    if target not in refs:
        raise SystemExit(f"--target {target} must be one of the references {refs}")
    comp = TimedComparison(
        os.path.join(args.out, game_name),
        preset["game"],
        Budget(minutes=minutes, eval_every=every),
        references=refs,
        game_kwargs=preset["kwargs"],
        eval_games=args.eval_games or preset["eval_games"],
        seed=args.seed,
        opening_moves=args.opening_moves,
        label=game_name,
        command=" ".join(shlex.quote(a) for a in sys.argv),
        log=log,
    )
    comp.target = target
    methods = [m for m in args.methods if preset["game"] == "go" or m not in AUX_METHODS]
    for s in range(args.seeds):
        for m in methods:
            comp.add(
                f"{m}-s{s}",
                "alphazero",
                {**method_config(preset["config"], m), "seed": args.seed + s},
                simulations=preset["play_simulations"],
            )
    comp.methods = methods
    return comp


# ---- the report -----------------------------------------------------------------------------------
def score(match):
    t = total(match)
    n = t["wins"] + t["draws"] + t["losses"]
    return (t["wins"] + 0.5 * t["draws"]) / n if n else float("nan")


def target_scores(record, target):
    """[(training seconds, score against the target)] of a run's evaluation points."""
    return [(ev["seconds"], next(score(m) for m in ev["matches"] if m["agent_b"] == target)) for ev in record["evals"]]


def time_to(points, level):
    """Training seconds of the first evaluation point scoring at least `level`, None when none does."""
    return next((s for s, x in points if x >= level), None)


def fmt_time(seconds):
    if seconds is None:
        return "-"
    return f"{seconds:.0f} s" if seconds < 60 else f"{seconds / 60:.1f} min"


def method_rows(comp, records, elo):
    """Per method: the seeds' times to each level, final score and final Elo."""
    rows = []
    for m in comp.methods:
        runs = [records[n] for n in records if n.rsplit("-s", 1)[0] == m]
        if not runs:
            continue
        pts = [target_scores(r, comp.target) for r in runs]
        cells = []
        for level in LEVELS:
            times = [time_to(p, level) for p in pts]
            reached = [t for t in times if t is not None]
            if not reached:
                cells.append("not reached")
                continue
            med = (
                fmt_time(statistics.median(reached))
                if len(reached) == len(times)
                else f"{len(reached)}/{len(times)} seeds"
            )
            cells.append(f"{med} ({', '.join(fmt_time(t) for t in times)})")
        final = [p[-1][1] for p in pts]
        elos = [elo.rating(r["evals"][-1]["name"]) for r in runs if elo and r["evals"][-1]["name"] in elo.names]
        loads = [ev["load"][0] for r in runs for ev in r["evals"] if "load" in ev]
        rows.append(
            [
                m,
                str(len(runs)),
                *cells,
                " / ".join(f"{x:.0%}" for x in final),
                " / ".join(f"{e:+.0f}" for e in elos) or "-",
                f"{min(loads):.1f}-{max(loads):.1f}" if loads else "-",
            ]
        )
    return rows


def plot(comp, records, elo, path):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4.2))
    ax_elo, ax_score = fig.subplots(1, 2)
    colours = dict(zip(METHODS, ("tab:blue", "tab:orange", "tab:green", "tab:red")))
    for name, rec in records.items():
        method, seed = name.rsplit("-s", 1)
        style = dict(color=colours[method], ls=("-", "--", ":", "-.")[int(seed) % 4], marker="o", ms=3, label=name)
        minutes = [ev["seconds"] / 60 for ev in rec["evals"]]
        if elo:
            ax_elo.plot(
                minutes,
                [elo.rating(ev["name"]) if ev["name"] in elo.names else float("nan") for ev in rec["evals"]],
                **style,
            )
        ax_score.plot(minutes, [x for _, x in target_scores(rec, comp.target)], **style)
    for level in LEVELS:
        ax_score.axhline(level, color="0.6", lw=0.8, ls=":")
    ax_elo.set(title=f"{comp.label}: Elo over training (Random = 0)", xlabel="training minutes", ylabel="Elo")
    ax_score.set(title=f"score against {comp.target}", xlabel="training minutes", ylabel="score", ylim=(-0.02, 1.02))
    for ax in (ax_elo, ax_score):
        ax.grid(alpha=0.3)
    ax_score.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def tensorboard_summary(comp, records, elo):
    """The evaluation points as TensorBoard scalars (x: training seconds), written afresh."""
    from torch.utils.tensorboard import SummaryWriter

    folder = os.path.join(comp.folder, "tb_summary")
    shutil.rmtree(folder, ignore_errors=True)
    with SummaryWriter(folder) as writer:
        for name, rec in records.items():
            for (seconds, x), ev in zip(target_scores(rec, comp.target), rec["evals"]):
                writer.add_scalar(f"score_vs_{comp.target}/{name}", x, int(seconds))
                if elo and ev["name"] in elo.names:
                    writer.add_scalar(f"elo/{name}", elo.rating(ev["name"]), int(seconds))


def report(comps, args, path):
    """Write the report: a section per game of this sitting; the sections of other games (and any other
    section, such as notes on reading the runs) already in `path` are kept as they were."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    command = " ".join(shlex.quote(a) for a in ["python", "benchmarks/time_to_strength.py", *args.argv])
    sections = old_sections(path)
    for comp in comps:
        sections[comp.label] = game_section(comp, command, args.quick, path)
    order = [g for g in GAMES if g in sections] + [h for h in sections if h not in GAMES]
    lines = [
        "# Time to strength",
        "",
        "Each method trains for the same minutes of training on the same machine, one run after the other, "
        "seed by seed (or --parallel runs side by side). A time is the training time (evaluations not "
        "counted) at the first evaluation point scoring at least that much against the target reference: "
        "the median over the seeds when every seed reached it (else how many did), then each seed's time. "
        "Final Elo: each seed's last evaluation point in the pooled Elo fit of every game played (Random = "
        "0). Load: the 1-minute load average at the evaluation points (min-max). Each game's section names "
        "the command that made it.",
        "",
    ]
    with open(path, "w") as f:
        f.write("\n".join(lines + [sections[h] for h in order]))
    return path


def old_sections(path):
    """{heading: text} of the "## " sections of an existing report, in order; {} when there is none."""
    if not os.path.isfile(path):
        return {}
    with open(path) as f:
        parts = f.read().split("\n## ")[1:]
    return {part.split("\n", 1)[0].strip(): "## " + part.rstrip("\n") + "\n" for part in parts}


def game_section(comp, command, quick, path):
    """The markdown section of one game (and its plot and TensorBoard summary)."""
    records = comp.records()
    elo = comp.elo() if records else None
    b = comp.budget
    lines = [
        f"## {comp.label}",
        "",
        f"Generated by `{command}`"
        + (" (quick mode: tiny budgets and references, a smoke test of the script, not a measurement)" if quick else "")
        + ".",
        "",
        f"{b.minutes:g} min of training per run, evaluated every {b.eval_every:g} min and at the start; "
        f"{comp.eval_games} games per reference ({', '.join(comp.references)}); target {comp.target}; "
        f"host {platform.node()}, {os.cpu_count()} CPUs.",
        "",
    ]
    head = ["method", "seeds", *(f"≥ {lv:.0%} vs {comp.target}" for lv in LEVELS), "final score", "final Elo", "load"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in method_rows(comp, records, elo)]
    if records:
        png = f"{os.path.splitext(os.path.basename(path))[0]}_{comp.label}.png"
        plot(comp, records, elo, os.path.join(os.path.dirname(path), png))
        tensorboard_summary(comp, records, elo)
        lines += ["", f"![{comp.label}]({png})"]
    return "\n".join(lines) + "\n"


# ---- the command line -------------------------------------------------------------------------------
def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="tiny budgets and references: a couple of minutes in all")
    ap.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    ap.add_argument("--seeds", type=int, default=None, help="seeds per method (default 2; --quick 1)")
    ap.add_argument("--seed", type=int, default=0, help="the first seed")
    ap.add_argument("--minutes", type=float, default=None, help="training minutes per run (default per game)")
    ap.add_argument("--eval-every", type=float, default=None, help="minutes of training between evaluations")
    ap.add_argument("--eval-games", type=int, default=None, help="games per reference at each evaluation")
    ap.add_argument("--references", nargs="+", default=None, help="arena specs (default per game)")
    ap.add_argument("--target", default=None, help="the reference the strength levels are measured against")
    ap.add_argument("--opening-moves", type=int, default=2, help="random opening moves of each pair of games")
    ap.add_argument("--out", default=None, help="runs folder (default runs/time_to_strength[_quick])")
    ap.add_argument("--results", default=os.path.join(HERE, "results"), help="folder of the report and plots")
    ap.add_argument(
        "--parallel",
        type=int,
        default=1,
        help="runs trained at a time, each in a child process on one torch thread (default 1: one "
        "after the other in this process); runs trained side by side share the machine alike",
    )
    ap.add_argument("--run", default=None, help=argparse.SUPPRESS)  # a --parallel child: train this run only
    ap.add_argument("--report-only", action="store_true", help="rebuild the report from the saved runs")
    args = ap.parse_args(argv)
    args.argv = list(argv)
    args.seeds = args.seeds or (1 if args.quick else 2)
    args.out = args.out or os.path.join("runs", "time_to_strength" + ("_quick" if args.quick else ""))
    return args


def train_in_children(comp, args):
    """Train the runs of `comp` in child processes of this script, args.parallel at a time, in order."""
    from zerogym_agents.experiment import run_children, start_command

    child = [sys.executable, os.path.abspath(__file__), *args.argv, "--games", comp.label, "--parallel", "1"]
    failed = run_children(list(comp.runs), lambda run, slot: start_command(child + ["--run", run]), args.parallel)
    if failed:
        raise SystemExit(
            "time to strength: "
            + ", ".join(f"{run} failed (exit {code})" for run, code in failed)
            + "; its error is printed above, and running it again resumes it"
        )


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    table = presets(args.quick)
    comps = []
    bar = tqdm(total=0, desc="time to strength", unit="run", disable=args.report_only or bool(args.run))
    for name in args.games:
        comp = build(name, table[name], args, log=tqdm.write)
        comps.append(comp)
        bar.total += len(comp.runs)
    bar.refresh()
    if args.run:  # a child of a --parallel sitting
        torch.set_num_threads(1)
        comps[0].train(args.run)
        return 0
    if not args.report_only:
        for comp in comps:
            if args.parallel > 1:
                bar.set_postfix_str(f"{comp.label}: {args.parallel} runs at a time")
                train_in_children(comp, args)
                bar.update(len(comp.runs))
                comp.play_references()
                continue
            for run in comp.runs:
                bar.set_postfix_str(f"{comp.label}/{run}")
                comp.train(run)
                bar.update()
            comp.play_references()
    bar.close()
    out = report(comps, args, os.path.join(args.results, "time_to_strength" + ("_quick" if args.quick else "") + ".md"))
    print(f"report: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
