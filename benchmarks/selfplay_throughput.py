"""Self-play throughput: zerogym beside Pgx + mctx, the compiled search against its thread count,
and the share of the time spent outside the net's forward pass.

    python benchmarks/selfplay_throughput.py versus [--games 64 1024 4096] [--simulations 32] [--seconds 20]
                                             [--device cpu|cuda] [--pipeline 1 4] [--repeats 3]
                                             [--precision auto|float32|bfloat16]
    python benchmarks/selfplay_throughput.py threads [--threads 1 2 4 8 16] [--games 1024]
    python benchmarks/selfplay_throughput.py evaluator [--game connect_four|go] [--cache 0 65536]
                                             [--precision auto bfloat16] [--net pretrained:connect_four]
                                             [--device cpu cuda]

versus: Go 9x9 and Connect Four, G games at once, the same freshly initialised ResNet (4 blocks x 32
channels, float32) in both libraries, Gumbel root search (16 candidates) with --simulations simulations
a move, every finished game restarted, no training. Pgx + mctx runs all in JAX (benchmarks/pgx_selfplay.py;
needs `pip install "jax[cpu]" pgx mctx`, else its column is left empty); zerogym with its search on one
thread (its default before the threaded search) and on every usable core (threads=None, the default),
once for each --pipeline (tree groups), and with the evaluation cache that training's self-play uses by
default (AlphaZeroConfig.eval_cache); its net on --device (on CUDA also a column without CUDA graphs). --repeats
rounds of every column in turn, each figure their median: the machine's slow minutes hit every column.
--precision bfloat16 runs both nets in bf16 (Pgx's weights and inputs cast, zerogym's under autocast),
float32 both in float32; auto (the default) Pgx in float32 and zerogym at make_evaluator's default.
Writes results/selfplay_versus_pgx[_LABEL].md and .png. Targets: >= 2x Pgx + mctx on a 2-core CPU, >= 1x
on one GPU with 16 cores.

threads: the search alone (a uniform evaluator, no net) against its thread count, Go 9x9 and Connect
Four. Writes results/search_threads[_LABEL].md and .png. Target: >= 0.8 N times one thread's speed.

evaluator: with a real net, how much of the wall time is spent outside the forward pass, and how
throughput grows with G; each G with each evaluation cache size (make_evaluator's cache,
AlphaZeroConfig.eval_cache; 0 = off) and each --precision (auto: float32 on the CPU; bfloat16: bf16
autocast, fast on a CPU with native bf16), on each --device (cpu, cuda, cuda:N; the search stays on the
CPU, the forward pass runs there). --net: a saved agent's net instead of a freshly initialised ResNet
4x32. Writes results/selfplay_throughput[_LABEL].md. Target: the share outside the forward pass <= 15%.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from tqdm import tqdm  # noqa: E402

import zerogym  # noqa: E402
from zerogym_agents.alphazero.config import AlphaZeroConfig  # noqa: E402
from zerogym_agents.core.devices import PRECISIONS, cpu_has_bf16, resolve_device, usable_cores  # noqa: E402
from zerogym_agents.mcts.search import BatchedMCTS, uniform_evaluator  # noqa: E402
from zerogym_agents.nets import PolicyValueNet, for_game, make_evaluator  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GAMES = {"go": {"board_size": 9}, "connect_four": {}}
LABELS = {"go": "Go 9x9", "connect_four": "Connect Four"}
TRAINING_CACHE = AlphaZeroConfig().eval_cache  # the evaluation cache self-play trains with by default
PGX_MISSING = 3  # benchmarks/pgx_selfplay.py's exit status where JAX, Pgx or mctx is missing


class TimedEvaluator:
    """Wraps an evaluator and adds up the time spent inside it (the net's forward pass and the
    softmax around it)."""

    def __init__(self, evaluator):
        self.evaluator, self.seconds, self.calls, self.positions = evaluator, 0.0, 0, 0

    def __call__(self, planes, masks):
        t0 = time.perf_counter()
        out = self.evaluator(planes, masks)
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        self.positions += len(masks)
        return out


def measure(
    game,
    kwargs,
    net,
    G,
    simulations,
    seconds,
    seed=0,
    cache=0,
    precision="auto",
    device="cpu",
    threads=None,
    net_threads="auto",
    search="puct",
    pipeline=1,
    cuda_graphs="auto",
):
    """Self-play moves/s and the share of time outside the evaluator, G games at once (net None: the
    uniform evaluator); threads and pipeline: the search's, net_threads: torch's (make_evaluator's)."""
    inner = (
        uniform_evaluator
        if net is None
        else make_evaluator(
            net, device=device, cache=cache, precision=precision, threads=net_threads, cuda_graphs=cuda_graphs
        )
    )
    ev = TimedEvaluator(inner)
    mcts = BatchedMCTS(
        game,
        num_games=G,
        simulations=simulations,
        seed=seed,
        threads=threads,
        search=search,
        pipeline=pipeline,
        **kwargs,
    )
    template = zerogym.make_state(game, **kwargs)
    roots = [template.copy() for _ in range(G)]
    mcts.set_roots(roots)
    mcts.run(inner)  # warm-up, not timed: first allocations, cuDNN's choices, CUDA graph captures
    mcts.set_roots(roots)
    moves, searching, t0 = 0, 0.0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        t1 = time.perf_counter()
        mcts.run(ev)
        searching += time.perf_counter() - t1
        actions = mcts.select_actions(0.0 if search == "gumbel" else 1.0)
        mcts.advance(actions)
        for i, root in enumerate(roots):
            root.step(int(actions[i]))
            if root.is_over():
                root.reset()
                mcts.set_root(i, root)
        moves += G
    wall = time.perf_counter() - t0
    hits = getattr(inner, "hits", 0)  # the evaluation cache's (none for the uniform evaluator)
    return {
        "G": G,
        "cache": cache,
        "precision": precision,
        "device": device,
        "moves_per_s": moves / wall,
        "positions_per_s": ev.positions / wall,
        "outside_share": 1 - ev.seconds / wall,
        # per batch of leaves: the evaluator's call, and the rest of the search (collect, backup, glue)
        "evaluator_ms": 1e3 * ev.seconds / max(ev.calls, 1),
        "search_ms": 1e3 * (searching - ev.seconds) / max(ev.calls, 1),
        "move_ms": 1e3 * (wall - searching) / max(moves // G, 1),  # each move's bookkeeping, all G games
        "batch": ev.positions / max(ev.calls, 1),
        "hit_share": hits / max(hits + getattr(inner, "misses", 0), 1),
    }


def fresh_net(game):
    torch.manual_seed(0)
    config = for_game(game, game_kwargs=GAMES.get(game, {}), trunk="resnet", blocks=4, channels=32)
    return PolicyValueNet(config).eval()


def pgx_rate(game, G, simulations, seconds, dtype="float32"):
    """Pgx + mctx moves/s with its net in `dtype`, measured in a child process (JAX and torch each keep
    their own GPU memory and libraries), or None where JAX, Pgx or mctx is not installed."""
    script = os.path.join(HERE, "pgx_selfplay.py")
    run = subprocess.run(
        [sys.executable, script, game, str(G), str(simulations), str(seconds), dtype], capture_output=True, text=True
    )
    if run.returncode == PGX_MISSING:
        return None
    if run.returncode != 0:
        raise RuntimeError(f"Pgx + mctx failed ({game}, G={G}):\n{run.stderr[-3000:]}")
    return float(run.stdout.split()[-1])


def write(name, lines, fig=None):
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", name + ".md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    if fig is not None:
        fig.savefig(os.path.join(HERE, "results", name + ".png"), dpi=100)
        plt.close(fig)
    print("\n".join(lines))


def machine():
    gpu = f", GPU {torch.cuda.get_device_name()}" if torch.cuda.is_available() else ""
    return f"{os.cpu_count()} CPU cores, {usable_cores()} usable by this process{gpu}"


def versus_variants(args):
    """zerogym's settings in the versus table: (column heading, measure keywords)."""
    cuda = args.device.startswith("cuda")
    out = [("zerogym, one thread", {"threads": 1})]
    for p in args.pipeline:
        label = "zerogym, all cores" + (f", pipeline {p}" if p > 1 else "")
        out.append((label, {"threads": None, "pipeline": p, "net_threads": None if cuda else usable_cores()}))
    if cuda:
        p = max(args.pipeline)
        out.append((f"zerogym, all cores, pipeline {p}, no CUDA graphs", {**out[-1][1], "cuda_graphs": False}))
    best = max(args.pipeline) if cuda else 1
    kw = {"threads": None, "pipeline": best, "net_threads": None if cuda else usable_cores()}
    out.append(("zerogym, all cores, evaluation cache", {**kw, "cache": TRAINING_CACHE}))
    return [(label, {**kw, "precision": args.precision}) for label, kw in out]


def versus_main(args, cmd):
    variants = versus_variants(args)
    runs = [(g, G) for g in args.game for G in args.games]
    rows = []
    for game, G in tqdm(runs, desc="self-play versus Pgx + mctx", unit="run"):
        net = fresh_net(game)
        anchor, mine, hits = [], [[] for _ in variants], []
        for _ in range(args.repeats):  # rounds of every column in turn: a slow minute of the machine hits all
            anchor.append(pgx_rate(game, G, args.simulations, args.seconds, pgx_dtype(args.precision)))
            for k, (_, kw) in enumerate(variants):
                m = measure(
                    game, GAMES[game], net, G, args.simulations, args.seconds, search="gumbel", device=args.device, **kw
                )
                mine[k].append(m["moves_per_s"])
            hits.append(m["hit_share"])  # the last column's: the evaluation cache's
        pgx = None if None in anchor else statistics.median(anchor)
        rows.append((game, G, pgx, [statistics.median(m) for m in mine], statistics.median(hits)))
        versus_write(args, cmd, variants, rows)  # after every run: a cut-off run keeps what it measured


def pgx_dtype(precision):
    """The dtype of Pgx + mctx's net beside zerogym's at `precision` (auto: float32)."""
    return "bfloat16" if precision == "bfloat16" else "float32"


def precisions_text(args):
    """How the two nets compute, for the table's heading."""
    if args.precision == "auto":
        return (
            f"Pgx + mctx runs on JAX's default device, in float32. zerogym's net runs on `{args.device}` "
            "(make_evaluator's default precision: float32 on a CPU, bf16 autocast on CUDA)"
        )
    how = "in float32"
    if args.precision == "bfloat16":
        how = "in bfloat16 (Pgx's weights and inputs cast to it, zerogym's forward pass under bf16 autocast)"
    return f"Both nets compute {how}: Pgx + mctx on JAX's default device, zerogym's net on `{args.device}`"


def versus_write(args, cmd, variants, rows):
    heads = [label for label, _ in variants]
    lines = [
        "# Self-play: zerogym beside Pgx + mctx",
        "",
        f"Made by `{cmd}` on this machine ({machine()}). The same freshly initialised ResNet (4 blocks x 32 "
        f"channels) in both; Gumbel root search with 16 candidates and {args.simulations} simulations "
        f"a move; finished games restarted; no training; timed after a first, untimed move. {precisions_text(args)}"
        ", zerogym's search on the CPU. One thread: "
        "the search on one thread (its default before the threaded search), torch on half the cores; all "
        "cores: the search on every usable core (threads=None, the default) and, on a CPU, torch too "
        "(make_evaluator(threads=N)); pipeline P: the trees in P groups, the net evaluating one group "
        "while the search works on the others. Evaluation cache: all cores with the cache that training's "
        f"self-play uses by default (AlphaZeroConfig.eval_cache = {TRAINING_CACHE} positions: a "
        "position met again, in another game or another simulation, is answered without a forward pass; "
        "the same search, the same net outputs up to float rounding). Each figure is the median of "
        f"{args.repeats} round{'s' if args.repeats > 1 else ''}, every round measuring every column in turn.",
        "",
        "| game | games at once G | Pgx + mctx moves/s | "
        + " | ".join(heads)
        + " | answered from the cache | best zerogym without the cache / Pgx + mctx | with the cache / Pgx + mctx |",
        "|---|---|---|" + "---|" * (len(heads) + 3),
    ]
    for game, G, anchor, mine, hits in rows:
        ratios = ["-", "-"] if anchor is None else [f"{max(mine[:-1]) / anchor:.2f}x", f"{mine[-1] / anchor:.2f}x"]
        lines.append(
            f"| {LABELS[game]} | {G} | {'not installed' if anchor is None else f'{anchor:.1f}'} | "
            + " | ".join(f"{r:.1f}" for r in mine)
            + f" | {hits:.0%} | {' | '.join(ratios)} |"
        )
    lines += ["", "Targets: zerogym >= 2x Pgx + mctx on a 2-core CPU; >= 1x on one GPU with 16 cores."]
    games = [g for g in args.game if any(r[0] == g for r in rows)]
    fig, axes = plt.subplots(1, len(games), figsize=(5 * len(games), 3.5), squeeze=False)
    width = 0.8 / (len(heads) + 1)
    for ax, game in zip(axes[0], games):
        mine = [r for r in rows if r[0] == game]
        x = np.arange(len(mine))
        bars = [("Pgx + mctx", [r[2] or 0 for r in mine])] + [(h, [r[3][k] for r in mine]) for k, h in enumerate(heads)]
        for k, (label, ys) in enumerate(bars):
            ax.bar(x + (k - len(heads) / 2) * width, ys, width, label=label.removeprefix("zerogym, "))
        ax.set_xticks(x, [str(r[1]) for r in mine])
        ax.set(title=LABELS[game], xlabel="games at once", ylabel="self-play moves/s")
        ax.legend(fontsize=7)
    fig.tight_layout()
    write("selfplay_versus_pgx" + (f"_{args.label}" if args.label else ""), lines, fig)


def threads_main(args, cmd):
    runs = [(g, G, t) for g in args.game for G in args.games for t in args.threads]
    rates = {}
    for game, G, t in tqdm(runs, desc="search threads", unit="run"):
        rates[game, G, t] = measure(
            game, GAMES[game], None, G, args.simulations, args.seconds, threads=t, search="gumbel"
        )["moves_per_s"]
    lines = [
        "# The compiled search against its thread count",
        "",
        f"Made by `{cmd}` on this machine ({machine()}). The search alone: a uniform evaluator, no net; "
        f"Gumbel root search, {args.simulations} simulations a move; finished games restarted. Threads past "
        "the usable cores share them.",
        "",
        "| game | games at once G | threads | self-play moves/s | speed-up over one thread | per thread |",
        "|---|---|---|---|---|---|",
    ]
    for (game, G, t), r in rates.items():
        base = rates[game, G, args.threads[0]] / args.threads[0]
        lines.append(f"| {LABELS[game]} | {G} | {t} | {r:.0f} | {r / base:.2f}x | {r / base / t:.2f} |")
    lines += [
        "",
        "Target: >= 0.8 N times one thread's speed with N threads, up to the cores there are "
        "(>= 1.7x with 2 threads on a 2-core machine).",
    ]
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for game in args.game:
        for G in args.games:
            base = rates[game, G, args.threads[0]] / args.threads[0]
            ax.plot(
                args.threads, [rates[game, G, t] / base for t in args.threads], "o-", label=f"{LABELS[game]}, G={G}"
            )
    ax.plot(args.threads, args.threads, "k:", label="linear")
    ax.set(xlabel="search threads", ylabel="speed-up over one thread", title="The search alone")
    ax.legend(fontsize=8)
    fig.tight_layout()
    write("search_threads" + (f"_{args.label}" if args.label else ""), lines, fig)


def parser():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="mode", required=True)
    vs = sub.add_parser("versus", help="zerogym beside Pgx + mctx")
    th = sub.add_parser("threads", help="the search alone against its thread count")
    ev = sub.add_parser("evaluator", help="the time outside the net's forward pass")
    for p, games, sims in ((vs, [64, 1024, 4096], 32), (th, [1024], 32), (ev, [1, 8, 64, 256], 64)):
        p.add_argument("--simulations", type=int, default=sims)
        p.add_argument("--seconds", type=float, default=20.0, help="seconds of each measurement")
        p.add_argument("--games", type=int, nargs="*", default=games, help="games at once (G) to measure")
        p.add_argument("--label", help="appended to the result file's name")
    for p in (vs, th):
        p.add_argument("--game", nargs="*", default=list(GAMES), choices=list(GAMES))
    vs.add_argument(
        "--repeats", type=int, default=1, help="rounds of every column in turn; each figure the median of them"
    )
    vs.add_argument("--device", default="cpu", help="where zerogym's net runs (cpu, cuda, cuda:N)")
    vs.add_argument(
        "--precision",
        default="auto",
        choices=PRECISIONS,
        help="both nets' precision (auto: Pgx + mctx in float32, zerogym at make_evaluator's default)",
    )
    vs.add_argument(
        "--pipeline", type=int, nargs="*", default=[1], help="tree groups of the all-cores runs, one column each"
    )
    th.add_argument(
        "--threads", type=int, nargs="*", default=[1, 2, 4, 8, 16], help="thread counts to measure, the first the base"
    )
    ev.add_argument("--game", default="connect_four")
    ev.add_argument("--cache", type=int, nargs="*", default=[0, 65536], help="evaluation cache sizes (0: off)")
    ev.add_argument(
        "--precision",
        nargs="*",
        default=["auto"],
        choices=PRECISIONS,
        help="forward-pass precisions to measure (make_evaluator's precision)",
    )
    ev.add_argument("--device", nargs="*", default=["cpu"], help="devices for the forward pass (cpu, cuda, cuda:N)")
    ev.add_argument("--net", help="a saved agent (path or pretrained:NAME) whose net to use")
    return ap


def evaluator_main(args, cmd):
    torch.manual_seed(0)
    if args.net:
        from zerogym_agents.nets import net_from_payload
        from zerogym_agents.agents.saved import read_agent

        path, saved = read_agent(args.net)
        net = net_from_payload(saved["net"], source=path, game=args.game).eval()
        what = f"the net of `{args.net}`"
    else:
        net = PolicyValueNet(for_game(args.game, trunk="resnet", blocks=4, channels=32)).eval()
        what = "a freshly initialised ResNet 4x32"
    devices = [resolve_device(d) for d in args.device]  # a missing GPU is refused before any measuring
    runs = [(G, c, p, d) for d in args.device for G in args.games for c in args.cache for p in args.precision]
    rows = [
        measure(
            args.game, GAMES.get(args.game, {}), net, G, args.simulations, args.seconds, cache=c, precision=p, device=d
        )
        for G, c, p, d in tqdm(runs, desc="self-play throughput", unit="run")
    ]
    gpus = sorted({torch.cuda.get_device_name(d) for d in devices if d.type == "cuda"})
    lines = [
        f"# Self-play throughput: {args.game}",
        "",
        f"Made by `{cmd}` on this machine ({os.cpu_count()} CPU cores, torch threads {torch.get_num_threads()}"
        f"{''.join(', GPU ' + g for g in gpus)}).",
        f"Net: {what} ({net.num_parameters()} parameters), {args.simulations} simulations per move, "
        f"one leaf per tree per batch; the CPU {'has' if cpu_has_bf16() else 'has no'} native bf16.",
        "",
        "| device | concurrent games G | evaluation cache | precision | self-play moves/s | "
        "evaluated positions/s | answered from the cache | mean batch | time outside the evaluator | "
        "ms per batch: evaluator | ms per batch: rest of the search | ms per move, outside the search |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['device']} | {r['G']} | {r['cache'] or 'off'} | {r['precision']} | "
        f"{r['moves_per_s']:.1f} | {r['positions_per_s']:.0f} | "
        f"{100 * r['hit_share']:.1f}% | {r['batch']:.0f} | {100 * r['outside_share']:.1f}% | "
        f"{r['evaluator_ms']:.2f} | {r['search_ms']:.2f} | {r['move_ms']:.1f} |"
        for r in rows
    ]
    lines += [
        "",
        "Evaluated positions: the leaves handed to the evaluator, those answered from the cache included. "
        "Outside the evaluator: the compiled search (selection, expansion, backup, leaf encoding), "
        "the Python glue of each batch and the move bookkeeping (the cache's lookups count as inside). "
        "Target <= 15%. Per batch of leaves: the evaluator's call (copies, forward pass, softmax), and the "
        "rest of the search's time (collect, backup, glue); per move of all G games: stepping the roots, "
        "restarting finished games and choosing the moves.",
    ]
    write("selfplay_throughput" + (f"_{args.label}" if args.label else ""), lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parser().parse_args(argv)
    cmd = "python benchmarks/selfplay_throughput.py " + " ".join(argv)
    {"versus": versus_main, "threads": threads_main, "evaluator": evaluator_main}[args.mode](args, cmd)


if __name__ == "__main__":
    main()
