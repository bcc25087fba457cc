"""The command line: a fuzzing run, --replay of a saved input, --atheris, and a worker's own entry."""

import argparse
import json
import os
import random
import shlex
import sys
import time
from collections import Counter

from . import __doc__ as USAGE
from .common import ROOT, input_seed, sanitizers_active
from .configs import select_games
from .report import Recorder, merge, write_summary
from .runner import Alarm, run_input, run_targets
from .targets import TARGETS, WEIGHTS, make_target
from .workers import run_workers, worker_main


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=USAGE.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=USAGE
    )
    p.add_argument("--minutes", type=float, default=None, help="wall-clock time of the run (default 5)")
    p.add_argument("--seconds", type=float, default=None, help="the same in seconds (overrides --minutes)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--targets", default=",".join(TARGETS), help=f"comma-separated subset of {','.join(TARGETS)}")
    p.add_argument(
        "--games",
        default=None,
        help="comma-separated games for the state targets (default: every game of zerogym.registry.GAMES)",
    )
    p.add_argument(
        "--weights",
        default=None,
        help="time shares, e.g. blobs=4,checkpoints=1 (default "
        + ",".join(f"{k}={v}" for k, v in WEIGHTS.items())
        + ")",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="worker processes (default: the number of cores); 0 runs in this process, where a crash ends the run",
    )
    p.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results", "fuzz.md"), help="markdown summary")
    p.add_argument(
        "--findings",
        default=os.path.join(ROOT, "runs", "fuzz-findings"),
        help="folder for the inputs of findings (emptied first)",
    )
    p.add_argument("--examples", type=int, default=3, help="inputs saved per kind of finding")
    p.add_argument("--max-crashes", type=int, default=25, help="crashes after which a worker gives up a target")
    p.add_argument("--max-rss-mb", type=float, default=8000, help="a worker above this is killed (a finding)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--replay", metavar="FOLDER", help="run the input saved in a findings folder again")
    p.add_argument("--atheris", metavar="TARGET", help="coverage-guided fuzzing of one target with atheris")
    # worker-side options
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--budgets", help=argparse.SUPPRESS)
    p.add_argument("--offset", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--stride", type=int, default=1, help=argparse.SUPPRESS)
    p.add_argument("--start", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--report-fd", type=int, help=argparse.SUPPRESS)
    p.add_argument("--slot-file", help=argparse.SUPPRESS)
    p.add_argument("--crash-at", help=argparse.SUPPRESS)  # TARGET:INDEX, for testing crash handling
    opts = p.parse_args(argv)
    opts.seconds_total = opts.seconds if opts.seconds is not None else 60 * (opts.minutes if opts.minutes else 5)
    select_games(opts.games)
    return opts


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    opts = parse_args(argv)
    if opts.worker:
        worker_main(opts)
        return 0
    if opts.replay:
        return replay(opts.replay)
    if opts.atheris:
        return run_atheris(opts)
    result = run(argv, opts)
    return 1 if result["findings"] else 0


def run(argv, opts=None):
    """A fuzzing run from command-line arguments: writes the summary and returns
    {"counts": {target: Counter(game -> inputs)}, "seconds": {target: s}, "findings": {signature: {...}},
    "elapsed": s, "sanitizers": str}."""
    argv = list(argv)
    opts = opts or parse_args(argv)
    names = [t.strip() for t in opts.targets.split(",") if t.strip()]
    bad = [t for t in names if t not in TARGETS]
    if bad or not names:
        sys.exit(f"fuzz: unknown targets {bad}; choose from {', '.join(TARGETS)}")
    weights = dict(WEIGHTS)
    if opts.weights:
        for item in opts.weights.split(","):
            k, _, v = item.partition("=")
            if k not in TARGETS:
                sys.exit(f"fuzz: --weights names an unknown target {k!r}")
            weights[k] = float(v)
    total_w = sum(weights[t] for t in names)
    budgets = {t: opts.seconds_total * weights[t] / total_w for t in names}
    if opts.jobs is None:
        opts.jobs = os.cpu_count() or 1
    opts.findings = os.path.abspath(opts.findings)
    if os.path.isdir(opts.findings):
        import shutil

        shutil.rmtree(opts.findings)
    os.makedirs(opts.findings, exist_ok=True)
    command = "python scripts/fuzz.py " + " ".join(shlex.quote(a) for a in argv)
    active = sanitizers_active()
    if active:
        command = "scripts/sanitize.sh " + ("--thread " if "ThreadSanitizer" in active else "") + command

    bar = None
    if not opts.no_progress:
        from tqdm import tqdm

        bar = tqdm(
            total=round(opts.seconds_total),
            unit="s",
            desc="fuzz",
            dynamic_ncols=True,
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} s [{elapsed}<{remaining}]{postfix}",
        )
    t0 = time.monotonic()

    def show(n_inputs, n_findings, current=""):
        if bar is not None:
            bar.n = min(round(time.monotonic() - t0), bar.total)
            bar.set_postfix_str(f"{current} inputs={n_inputs:,} findings={n_findings:,}", refresh=True)

    if opts.jobs == 0:
        rec = Recorder(opts.findings, opts.seed, opts.examples)

        def emit(name, index, setup, done=False):
            show(
                sum(sum(c.values()) for c in rec.counts.values()), sum(f["count"] for f in rec.findings.values()), name
            )

        run_targets(names, budgets, opts.seed, 0, 1, {}, rec, emit)
        counts = {t: Counter(rec.counts[t]) for t in names}
        seconds = Counter(rec.seconds)
        findings = rec.findings
        sanitizers = sanitizers_active()
    else:

        def progress(workers, crash_rec):
            counts, _, findings = merge([r for w in workers for r in w.reports()], crash_rec, names)
            show(sum(sum(c.values()) for c in counts.values()), sum(f["count"] for f in findings.values()))

        workers, crash_rec, sanitizers = run_workers(opts, names, budgets, progress)
        counts, seconds, findings = merge([r for w in workers for r in w.reports()], crash_rec, names)
    if bar is not None:
        bar.close()
    elapsed = time.monotonic() - t0
    write_summary(opts.out, opts, names, counts, seconds, findings, elapsed, sanitizers, command, weights)
    total = sum(sum(c.values()) for c in counts.values())
    nfind = sum(f["count"] for f in findings.values())
    print(
        f"fuzz: {total:,} inputs in {elapsed:.0f} s, {nfind:,} findings ({len(findings)} kinds); "
        f"summary in {os.path.relpath(opts.out)}",
        file=sys.stderr,
    )
    for sig, f in sorted(findings.items(), key=lambda kv: -kv[1]["count"])[:20]:
        print(f"  {f['count']:>8,}  {sig}", file=sys.stderr)
    return {
        "counts": counts,
        "seconds": dict(seconds),
        "findings": findings,
        "elapsed": elapsed,
        "sanitizers": sanitizers,
    }


def replay(folder):
    with open(os.path.join(folder, "info.json")) as f:
        info = json.load(f)
    select_games(info.get("games"))  # the inputs of a run over some games depend on which
    tgt = make_target(info["target"], info["seed"])
    inp = tgt.generate(random.Random(input_seed(info["seed"], info["target"], info["index"])))
    print(f"replaying {info['target']} input {info['index']} (seed {info['seed']}): {info['message']}")
    tgt.execute(inp)  # let it raise (or crash) with its full traceback
    print("the input behaved this time")
    return 0


def run_atheris(opts):
    try:
        import atheris
    except ImportError:
        sys.exit(
            "fuzz: --atheris needs the atheris package (pip install atheris); plain random mutation is the default"
        )
    name = opts.atheris
    if name not in ("blobs", "gtp"):
        sys.exit("fuzz: --atheris drives the blobs or the gtp target (their inputs are bytes)")
    with atheris.instrument_imports(include=["zerogym", "zerogym_agents"]):  # Python code; not the .so
        tgt = make_target(name, opts.seed)
    alarm = Alarm()

    def one(data):
        fdp = atheris.FuzzedDataProvider(data)
        inp = tgt.generate(random.Random(fdp.ConsumeInt(8)))
        if name == "blobs":  # the data overwrites the (mutated) blob from an offset
            base = inp["blob"]
            at = fdp.ConsumeIntInRange(0, len(base))
            rest = fdp.ConsumeBytes(fdp.remaining_bytes())
            inp["blob"], inp["via"] = base[:at] + rest + base[at + len(rest) :], "load_bytes"
        else:
            inp["lines"] = fdp.ConsumeBytes(fdp.remaining_bytes()).split(b"\n")[:16] or [b""]
            inp["ends"] = [b"\n"] * len(inp["lines"])
        found = run_input(tgt, inp, alarm)
        if found:
            raise RuntimeError(f"{found[0]}: {found[1]}\n{found[2]}")

    argv = [sys.argv[0], f"-max_total_time={int(opts.seconds_total)}", f"-seed={opts.seed}"]
    atheris.Setup(argv, one)
    atheris.Fuzz()
