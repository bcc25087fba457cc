"""Ctrl-C during a training run: the first one asks the run to stop after the step in progress, so
that it can save a checkpoint first (and `--resume` loses nothing); a second one stops at once."""

from __future__ import annotations

import signal
import sys
import threading
import time
from types import FrameType
from typing import Any, Callable, Literal


class StopRequest:
    """A context manager for a run loop: `.requested` turns True at the first Ctrl-C; the loop
    checks it between steps, saves, and raises KeyboardInterrupt. The handler is installed only
    in the main thread and only where Ctrl-C would raise KeyboardInterrupt anyway (Python's
    default handler); elsewhere `.requested` stays False and Ctrl-C does what it did."""

    def __init__(
        self, message: str = "stopping after this step to save a checkpoint (Ctrl-C again to stop at once)"
    ) -> None:
        self.message = message
        self.requested = False
        self._previous: Callable[[int, FrameType | None], Any] | int | None = None

    def __enter__(self) -> StopRequest:
        self.requested = False
        if (
            threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler
        ):
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print(f"\n{self.message}", file=sys.stderr, flush=True)

    def __exit__(self, *exc: object) -> Literal[False]:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
        return False


def deadline(max_seconds: float | None) -> float | None:
    """The perf_counter time a run given `max_seconds` of wall clock stops at (None: no limit)."""
    if max_seconds is None:
        return None
    if isinstance(max_seconds, bool) or not isinstance(max_seconds, (int, float)) or not max_seconds > 0:
        raise ValueError(f"max_seconds must be a number > 0 or None, got {max_seconds!r}")
    return time.perf_counter() + max_seconds


class OutOfTime(Exception):
    """A step cut short because the run's wall-clock limit has passed (CosineSchedule.on_time): the step
    takes back what it changed, and the run saves where the last whole step ended."""


def stopped(stop: StopRequest, step: int, folder: str) -> None:
    """After a run loop: if Ctrl-C asked it to stop (it has saved), say where and raise KeyboardInterrupt."""
    if stop.requested:
        print(
            f"saved at step {step} in {folder}: the same command with --resume continues the run",
            file=sys.stderr,
            flush=True,
        )
        raise KeyboardInterrupt
