"""Trainings in child processes: a scheduler that runs tasks `parallel` at a time, and children
that never outlive the process that started them."""

from __future__ import annotations

import functools
import os
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

    Child = Union[subprocess.Popen, BaseProcess]


def die_with_parent(parent_pid: int | None = None) -> None:
    """Ask Linux to send this process SIGTERM when its parent dies (no-op elsewhere), so that child
    processes of a killed experiment do not train on unseen. parent_pid: exit at once if the parent
    that started this process has already gone (it died before the request was made)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if parent_pid is not None and os.getppid() != parent_pid:
        os._exit(1)


def start_command(argv: list[str], env: Mapping[str, str] | None = None) -> subprocess.Popen:
    """Run the command `argv` in a child process (subprocess.Popen) that dies with this one."""
    return subprocess.Popen(argv, env=env, preexec_fn=functools.partial(die_with_parent, os.getpid()))


def start_function(target: Callable[..., Any], *args: Any, name: str | None = None) -> BaseProcess:
    """Run target(*args) in a child process (multiprocessing, spawn: a fresh interpreter, so target
    and args must pickle) that dies with this one."""
    import multiprocessing

    proc = multiprocessing.get_context("spawn").Process(target=_child, args=(os.getpid(), target, args), name=name)
    proc.start()
    return proc


def _child(parent_pid: int, target: Callable[..., Any], args: tuple) -> None:
    die_with_parent(parent_pid)
    target(*args)


def _exit_code(child: Child) -> int | None:
    """The exit code of a finished Popen or multiprocessing.Process (negative: killed by that signal),
    None while it runs."""
    return child.poll() if isinstance(child, subprocess.Popen) else child.exitcode


def check_parallel(parallel: object) -> None:
    """ValueError unless `parallel` (how many at a time) is a positive integer."""
    if isinstance(parallel, bool) or not isinstance(parallel, int) or parallel < 1:
        raise ValueError(f"parallel must be a positive integer, got {parallel!r}")


def run_children(
    tasks: Iterable[str],
    start: Callable[[str, int], Child],
    parallel: int = 2,
    needs: Mapping[str, Iterable[str]] | None = None,
    on_failure: Callable[[str, int], Any] | None = None,
    poll_seconds: float = 0.2,
) -> list[tuple[str, int]]:
    """Run every task in a child process, `parallel` at a time, in order. start(task, slot) starts
    one (start_command or start_function) and returns its process; `slot` (0 .. parallel - 1) is
    its own while it runs (a progress bar's line, say). needs: {task: tasks it waits for}, tasks
    that start once all of those have ended, or are dropped when one of them failed (they are not
    listed in `tasks`). on_failure(task, exit code) is called as soon as a task fails, and the
    others go on. Returns [(task, exit code)] of the failed tasks. On the way out (an error,
    KeyboardInterrupt, SIGTERM turned into SystemExit) the children still running are terminated
    and waited for."""
    check_parallel(parallel)
    queue, waiting = list(tasks), {task: set(need) for task, need in (needs or {}).items()}
    running: dict[str, tuple[Child, int]] = {}
    finished: set[str] = set()
    failed: list[tuple[str, int]] = []
    try:
        while queue or running or waiting:
            for task, need in list(waiting.items()):
                if need & {t for t, _ in failed}:
                    del waiting[task]
                elif need <= finished:
                    queue.append(task)
                    del waiting[task]
            while queue and len(running) < parallel:
                task = queue.pop(0)
                slot = min(set(range(parallel)) - {s for _, s in running.values()})
                running[task] = (start(task, slot), slot)
            if not running:
                break  # only tasks waiting for tasks that never run
            time.sleep(poll_seconds)
            for task, (child, _) in list(running.items()):
                code = _exit_code(child)
                if code is not None:
                    del running[task]
                    finished.add(task)
                    if code != 0:
                        failed.append((task, code))
                        if on_failure is not None:
                            on_failure(task, code)
    finally:
        for child, _ in running.values():
            child.terminate()
        for child, _ in running.values():
            if isinstance(child, subprocess.Popen):
                child.wait()
            else:
                child.join()
    return failed
