"""Tasks in child processes: order, slots, dependencies, failures, and children that die with their parent."""

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from zerogym_agents.experiment.processes import run_children, start_command, start_function

# children get functions of the standard library: a spawned child imports a function by its module's
# name, and a test module's name starts with `tests`, a name other installed packages also use


def sleeper(seconds, code=0):
    return [sys.executable, "-c", f"import sys, time; time.sleep({seconds}); sys.exit({code})"]


def test_tasks_run_in_order_at_most_parallel_at_once_each_in_a_free_slot(tmp_path):
    started = []

    def start(task, slot):
        started.append((task, slot, time.monotonic()))
        return start_command(sleeper(0.4 if task == "a" else 0.1))

    assert run_children(["a", "b", "c", "d"], start, parallel=2, poll_seconds=0.02) == []
    assert [t for t, _, _ in started] == ["a", "b", "c", "d"]
    slots = {t: s for t, s, _ in started}
    assert slots["a"] == 0 and slots["b"] == 1 and slots["c"] == 1  # c takes b's slot while a still runs
    times = {t: at for t, _, at in started}
    assert times["c"] - times["b"] >= 0.08 and times["d"] - times["b"] >= 0.16


def test_a_task_that_needs_others_waits_for_them_and_is_dropped_when_one_fails():
    started, failures = [], []

    def start(task, slot):
        started.append(task)
        return start_command(sleeper(0.05, 3 if task == "bad" else 0))

    failed = run_children(
        ["good", "bad", "other"],
        start,
        parallel=1,
        poll_seconds=0.01,
        needs={"after-good": {"good"}, "after-bad": {"good", "bad"}},
        on_failure=lambda task, code: failures.append((task, code)),
    )
    assert failed == failures == [("bad", 3)]
    assert started == ["good", "bad", "other", "after-good"]  # queued once "good" ended; "after-bad" dropped


def test_functions_run_in_spawned_children(tmp_path):
    procs = []

    def start(task, slot):
        procs.append(start_function((tmp_path / task).write_text, f"slot {slot}", name=task))
        return procs[-1]

    assert run_children(["x", "y"], start, parallel=2, poll_seconds=0.05) == []
    assert (tmp_path / "x").read_text() == "slot 0" and (tmp_path / "y").read_text() == "slot 1"
    assert [p.name for p in procs] == ["x", "y"]
    bad = run_children(
        ["z"],
        lambda task, slot: start_function((tmp_path / "no" / "such" / "dir").write_text, ""),
        parallel=1,
        poll_seconds=0.05,
    )
    assert bad == [("z", 1)]


def test_children_are_stopped_when_the_scheduler_is_interrupted():
    children = []

    def start(task, slot):
        if task == "b":
            raise KeyboardInterrupt  # while "a" runs
        children.append(start_command(sleeper(60)))
        return children[-1]

    with pytest.raises(KeyboardInterrupt):
        run_children(["a", "b"], start, parallel=2)
    assert children[0].returncode == -signal.SIGTERM


@pytest.mark.parametrize("parallel", [0, -1, 1.5, True])
def test_parallel_must_be_a_positive_integer(parallel):
    with pytest.raises(ValueError, match="parallel must be a positive integer"):
        run_children(["a"], None, parallel=parallel)


def children_of(pid):
    """The pids of `pid`'s children started by run_children (not multiprocessing's resource tracker)."""
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(c) for c in found if any(w in _read(f"/proc/{c}/cmdline") for w in ("sleep", "spawn_main"))]


def running(pid):
    status = _read(f"/proc/{pid}/status").lower()
    return bool(status) and "zombie" not in status


def wait_until(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


@pytest.mark.parametrize("how", ["command", "function"])
def test_children_die_with_a_killed_parent(tmp_path, how):
    starter = (
        "start_command([sys.executable, '-c', 'import time; time.sleep(300)'])"
        if how == "command"
        else "start_function(time.sleep, 300)"
    )
    (tmp_path / "parent.py").write_text(
        "import sys, time; from zerogym_agents.experiment.processes import *\n"
        f"if __name__ == '__main__':\n    run_children(['a', 'b'], lambda task, slot: {starter}, parallel=2)\n"
    )
    parent = subprocess.Popen([sys.executable, str(tmp_path / "parent.py")])
    children = []
    try:
        wait_until(lambda: len(children_of(parent.pid)) == 2, 120, "the children did not start")
        children = children_of(parent.pid)
        parent.kill()  # SIGKILL: no finally block runs in the parent
        parent.wait()
        wait_until(lambda: not any(map(running, children)), 30, f"a child outlived its parent: {children}")
    finally:
        parent.kill()
        for c in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(c, signal.SIGKILL)
