"""Trainings in child processes: a scheduler that runs tasks `parallel` at a time, and children
that never outlive the process that started them."""
import functools
import os
import subprocess
import time


def die_with_parent(parent_pid=None):
    """Ask Linux to send this process SIGTERM when its parent dies (no-op elsewhere), so that child
    processes of a killed experiment do not train on unseen. parent_pid: exit at once if the parent
    that started this process has already gone (it died before the request was made)."""
    try:
        import ctypes
        import signal
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)       # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if parent_pid is not None and os.getppid() != parent_pid:
        os._exit(1)


def start_command(argv, env=None):
    """Run the command `argv` in a child process (subprocess.Popen) that dies with this one."""
    return subprocess.Popen(argv, env=env, preexec_fn=functools.partial(die_with_parent, os.getpid()))


def start_function(target, *args, name=None):
    """Run target(*args) in a child process (multiprocessing, spawn: a fresh interpreter, so target
    and args must pickle) that dies with this one."""
    import multiprocessing
    proc = multiprocessing.get_context("spawn").Process(target=_child, args=(os.getpid(), target, args), name=name)
    proc.start()
    return proc


def _child(parent_pid, target, args):
    die_with_parent(parent_pid)
    target(*args)


def _exit_code(child):
    """The exit code of a finished Popen or multiprocessing.Process (negative: killed by that signal),
    None while it runs."""
    return child.poll() if isinstance(child, subprocess.Popen) else child.exitcode


def run_children(tasks, start, parallel=2, needs=None, on_failure=None, poll_seconds=0.2):
    """Run every task in a child process, `parallel` at a time, in order. start(task, slot) starts
    one (start_command or start_function) and returns its process; `slot` (0 .. parallel - 1) is
    its own while it runs (a progress bar's line, say). needs: {task: tasks it waits for}, tasks
    that start once all of those have ended, or are dropped when one of them failed (they are not
    listed in `tasks`). on_failure(task, exit code) is called as soon as a task fails, and the
    others go on. Returns [(task, exit code)] of the failed tasks. On the way out (an error,
    KeyboardInterrupt, SIGTERM turned into SystemExit) the children still running are terminated
    and waited for."""
    if isinstance(parallel, bool) or not isinstance(parallel, int) or parallel < 1:
        raise ValueError(f"parallel must be a positive integer, got {parallel!r}")
    queue, waiting = list(tasks), {task: set(need) for task, need in (needs or {}).items()}
    running, finished, failed = {}, set(), []
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
                break                       # only tasks waiting for tasks that never run
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
            child.wait() if isinstance(child, subprocess.Popen) else child.join()
    return failed
