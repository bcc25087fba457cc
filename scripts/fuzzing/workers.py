"""Worker processes and the supervisor that restarts them after a crash, a hang or runaway memory."""

import json
import mmap
import os
import random
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter

from .common import ROOT, input_seed, sanitizers_active
from .report import Recorder
from .runner import CRASH_SLOT, run_targets
from .targets import TARGET_CLASSES, TARGETS, make_target

SCRIPT = os.path.join(ROOT, "scripts", "fuzz.py")  # what a worker process runs, with --worker


def worker_main(args):
    """A worker: runs its share of every target and reports on --report-fd as JSON lines."""
    report = os.fdopen(args.report_fd, "w", buffering=1)
    slot = None
    if args.slot_file:
        fd = os.open(args.slot_file, os.O_RDWR)
        slot = mmap.mmap(fd, CRASH_SLOT.size)
        os.close(fd)
    names = args.targets.split(",")
    budgets = dict(zip(names, map(float, args.budgets.split(","))))
    start = {names[0]: args.start} if args.start is not None else {}
    rec = Recorder(args.findings, args.seed, args.examples)
    sanitizers = sanitizers_active()

    def emit(name, index, setup, done=False):
        msg = {
            "target": name,
            "index": index,
            "setup": setup,
            "done": done,
            "seconds": rec.seconds[name],
            "counts": dict(rec.counts[name]),
            "sanitizers": sanitizers,
            "findings": {s: {k: v for k, v in f.items()} for s, f in rec.findings.items() if f["target"] == name},
        }
        report.write(json.dumps(msg) + "\n")

    crash_at = None
    if args.crash_at:
        t, _, i = args.crash_at.partition(":")
        crash_at = (t, int(i))
    run_targets(names, budgets, args.seed, args.offset, args.stride, start, rec, emit, slot=slot, crash_at=crash_at)
    report.close()


class Worker:
    """One worker process (restarted after a crash) and what the main process knows of it."""

    def __init__(self, j, names, budgets, opts, log_dir):
        self.j, self.names, self.budgets, self.opts = j, list(names), dict(budgets), opts
        self.log_dir = log_dir
        self.ended = []  # reports of earlier runs (the last report of each target)
        self.live = {}  # target -> last report of the current run
        self.first_seen = {}  # target -> when the current run started it
        self.crashes = Counter()
        self.finished = set()
        self.start_index = None
        self.restarts = 0
        self.proc = None
        fd, self.slot_file = tempfile.mkstemp(prefix=f"zerogym-fuzz-slot-{j}-")
        os.close(fd)
        self.launch()

    def launch(self):
        """Start a worker process on the targets not finished yet (the first from start_index)."""
        todo = [t for t in self.names if t not in self.finished and self.budgets[t] > 0]
        self.proc = None
        if not todo:
            return
        with open(self.slot_file, "wb") as f:
            f.write(CRASH_SLOT.pack(-1, -1))
        self.current = todo
        read_fd, write_fd = os.pipe()
        self.log_path = os.path.join(self.log_dir, f"worker-{self.j}-{self.restarts}.log")
        argv = [
            sys.executable,
            SCRIPT,
            "--worker",
            "--seed",
            str(self.opts.seed),
            "--targets",
            ",".join(todo),
            "--budgets",
            ",".join(f"{self.budgets[t]:.3f}" for t in todo),
            "--offset",
            str(self.j),
            "--stride",
            str(self.opts.jobs),
            "--report-fd",
            str(write_fd),
            "--slot-file",
            self.slot_file,
            "--examples",
            str(self.opts.examples),
            "--findings",
            self.opts.findings,
        ]
        if self.opts.games:
            argv += ["--games", self.opts.games]
        if self.start_index is not None:
            argv += ["--start", str(self.start_index)]
        if self.opts.crash_at:
            argv += ["--crash-at", self.opts.crash_at]
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, pass_fds=(write_fd,), cwd=ROOT
            )
        os.close(write_fd)
        self.fd = read_fd
        self.buf = b""
        self.live, self.first_seen = {}, {}
        self.last_slot, self.slot_since = None, time.monotonic()
        self.t_launch = time.monotonic()

    def read_reports(self):
        """Read what the worker reported (call when its pipe is readable); False at end of file."""
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            return False
        self.buf += chunk
        *lines, self.buf = self.buf.split(b"\n")
        for line in lines:
            msg = json.loads(line)
            self.live[msg["target"]] = msg
            self.first_seen.setdefault(msg["target"], time.monotonic())
            if msg["done"]:
                self.finished.add(msg["target"])
        return True

    def end_run(self):
        """The process ended: drain its pipe and keep its last reports."""
        while self.read_reports():
            pass
        os.close(self.fd)
        self.ended.append(self.live)
        self.live = {}

    def read_slot(self):
        with open(self.slot_file, "rb") as f:
            return CRASH_SLOT.unpack(f.read(CRASH_SLOT.size))

    def reports(self):
        """Every last report of every run of this worker, the current one included."""
        return self.ended + [self.live]


def run_workers(opts, names, budgets, progress):
    """Run opts.jobs workers to the end; returns (workers, recorder of crashes, sanitizer text)."""
    log_dir = os.path.join(opts.findings, "worker-logs")
    os.makedirs(log_dir, exist_ok=True)
    workers = []
    try:
        for j in range(opts.jobs):
            workers.append(Worker(j, names, budgets, opts, log_dir))
        crash_rec, sanitizers = _supervise(workers, opts, progress)
    finally:
        for w in workers:  # on an error or ^C here: no worker outlives the run
            if w.proc is not None and w.proc.poll() is None:
                w.proc.kill()
                w.proc.wait()
            try:
                os.unlink(w.slot_file)
            except OSError:
                pass
    return workers, crash_rec, sanitizers


def _supervise(workers, opts, progress):
    """Watch the workers: collect reports, restart after crashes, kill hangs and runaway memory."""
    crash_rec = Recorder(opts.findings, opts.seed, opts.examples)
    parent_targets = {}
    sanitizers = None
    while any(w.proc is not None for w in workers):
        fds = [w.fd for w in workers if w.proc is not None]
        ready, _, _ = select.select(fds, [], [], 0.25)
        for w in workers:
            if w.proc is None:
                continue
            if w.fd in ready:
                w.read_reports()
            for msg in w.live.values():
                sanitizers = msg.get("sanitizers", sanitizers)
            number, index = w.read_slot()
            if (number, index) != w.last_slot:
                w.last_slot, w.slot_since = (number, index), time.monotonic()
            name = TARGETS[number] if 0 <= number < len(TARGETS) else w.current[0]
            code = w.proc.poll()
            killed_for = None
            if code is None:
                limit = 2 * TARGET_CLASSES[name].timeout + 15 + (60 if time.monotonic() - w.t_launch < 60 else 0)
                rss = _rss_mb(w.proc.pid)
                if time.monotonic() - w.slot_since > limit:
                    killed_for = ("hang", f"no progress for {limit:g} s (compiled code looping or blocked)")
                elif rss > opts.max_rss_mb:
                    killed_for = ("memory", f"a worker grew to {rss:.0f} MB (limit {opts.max_rss_mb:g} MB)")
                if killed_for is None:
                    continue
                w.proc.kill()
                code = w.proc.wait()
            started = w.first_seen.get(name, w.t_launch)
            w.end_run()
            if code == 0 and killed_for is None:
                w.proc = None
                continue
            # a crash or a kill: record it with the input that was running, then go on after that input
            with open(w.log_path, "rb") as f:
                log = f.read().decode("utf-8", "replace")
            if killed_for:
                kind, message = killed_for
            else:
                kind = "crash"
                sig = -code if code < 0 else None
                message = _sanitizer_tag(log) or (
                    f"killed by signal {signal.Signals(sig).name}" if sig else f"exit status {code}"
                )
            inp = tgt = None
            if index >= 0:
                tgt = crash_target_in_parent(parent_targets, name, opts.seed)
                inp = tgt.generate(random.Random(input_seed(opts.seed, name, index)))
                crash_rec.counts[name][inp["game"]] += 1
            else:
                message += " (while setting up, before any input)"
            crash_rec.add(name, kind, message, log[-20000:], index=index if index >= 0 else "setup", inp=inp, tgt=tgt)
            w.crashes[name] += 1
            w.restarts += 1
            for t in w.names[: w.names.index(name)]:  # targets run before this one are done
                w.finished.add(t)
            w.budgets[name] = max(0.0, w.budgets[name] - (time.monotonic() - started))
            if index < 0 or w.crashes[name] >= opts.max_crashes:
                w.finished.add(name)
                print(f"\nfuzz: worker {w.j} gives up {name} after {w.crashes[name]} crashes", file=sys.stderr)
            w.start_index = index + opts.jobs if name not in w.finished and w.budgets[name] > 0 else None
            w.launch()
            if w.proc is not None and w.current[0] != name:
                w.start_index = None
                w.proc.kill()  # started with a stale start index: redo
                w.proc.wait()
                w.end_run()
                w.launch()
        progress(workers, crash_rec)
    return crash_rec, sanitizers


def crash_target_in_parent(cache, name, seed):
    """The target `name` built in the main process, to rebuild the input a worker crashed on."""
    if name not in cache:
        cache[name] = make_target(name, seed)
    return cache[name]


def _rss_mb(pid):
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def _sanitizer_tag(log):
    m = re.search(
        r"(?:ERROR|WARNING): (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|ThreadSanitizer): ?([\w-]+)?",
        log,
    )
    if m:
        return f"{m.group(1)}: {m.group(2) or ''}".strip()
    m = re.search(r"runtime error: (.{0,120})", log)
    if m:
        return f"UndefinedBehaviorSanitizer: runtime error: {m.group(1)}"
    return None
