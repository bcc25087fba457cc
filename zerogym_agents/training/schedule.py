"""What the trainers share: the run loop (steps, logs, checkpoints, a wall-clock limit, Ctrl-C), and
the learning-rate schedule over steps or over a wall-clock budget."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from tqdm import tqdm

from zerogym_agents.training.interrupt import OutOfTime, StopRequest, deadline, stopped

F = TypeVar("F", bound=Callable[..., Any])


def cosine(lr: float, lr_final: float, t: float) -> float:
    """Cosine decay from lr at t = 0 to lr_final at t >= 1."""
    return float(lr_final + 0.5 * (lr - lr_final) * (1 + np.cos(np.pi * min(1.0, max(0.0, t)))))


class CosineSchedule:
    """Mixin of the trainers (AlphaZeroTrainer, PGTrainer: `cfg` with lr, lr_final, max_steps,
    log_every, checkpoint_every and game; `step`, `history`, `out`, `writer`; train_step(),
    _log(), save(), postfix(entry); `unit`: what a step is called). run() is their loop. The learning
    rate follows the cosine schedule over the share of training done: step / max_steps, or, when
    `time_budget` (seconds) is set, the share of that budget used (`time_used` before the current
    train_for chunk plus the chunk's time so far)."""

    time_budget: float | None = None
    time_used = 0.0
    chunk_start: float | None = None
    last_cpu = 0.0  # CPU seconds of this process during the last train_for
    until: float | None = None  # the perf_counter time the run in progress stops at (max_seconds)

    # what the trainer that mixes this in has (see the class docstring)
    cfg: Any
    step: int
    history: list[dict[str, Any]]
    out: str
    writer: Any  # a TensorBoard SummaryWriter, or None
    unit: str

    if TYPE_CHECKING:

        def run_name(self) -> str: ...

        def train_step(self) -> None: ...

        def _log(self) -> None: ...

        def save(self) -> None: ...

        def postfix(self, entry: dict[str, Any]) -> dict[str, Any]: ...

    def progress(self) -> float:
        if not self.time_budget:
            return self.step / self.cfg.max_steps
        used = self.time_used + (time.perf_counter() - self.chunk_start if self.chunk_start is not None else 0.0)
        return used / self.time_budget

    def out_of_time(self) -> bool:
        """Whether the wall-clock limit of the run in progress has passed."""
        return self.until is not None and time.perf_counter() >= self.until

    def on_time(self, fn: F) -> F:
        """`fn`, raising OutOfTime before a call once the run's wall-clock limit has passed: a step hands
        it to the work it repeats (a search's evaluator, a rollout's policy), so that a long step stops
        within one call of the limit."""
        if self.until is None:
            return fn
        until = self.until

        def checked(*args: Any, **kwargs: Any) -> Any:
            if time.perf_counter() >= until:
                raise OutOfTime
            return fn(*args, **kwargs)

        return checked  # type: ignore[return-value]

    def learning_rate(self) -> float:
        return cosine(self.cfg.lr, self.cfg.lr_final, self.progress())

    def train_for(self, steps: int, time_used: float = 0.0, max_seconds: float | None = None) -> float:
        """Advance `steps` steps (fewer at max_steps, or when max_seconds have passed) with `time_used`
        seconds of the budget already spent; returns the wall-clock seconds taken (and leaves the CPU
        seconds in last_cpu)."""
        self.time_used, self.chunk_start = time_used, time.perf_counter()
        cpu = time.process_time()
        try:
            self.run(progress=False, stop_at=self.step + steps, max_seconds=max_seconds)
        finally:
            elapsed, self.chunk_start = time.perf_counter() - self.chunk_start, None
            self.last_cpu = time.process_time() - cpu
        return elapsed

    def run(
        self, progress: bool = True, stop_at: int | None = None, max_seconds: float | None = None
    ) -> list[dict[str, Any]]:
        """Train until max_steps steps, or stop_at (to interrupt a run), or when max_seconds of wall
        clock have passed (checked after each step, and inside a step through on_time, where a step cut
        short takes itself back; the run then saves); returns self.history. A history entry (and
        TensorBoard scalars) every log_every steps, a checkpoint every checkpoint_every steps and at
        max_steps; the bar's postfix follows the entries. Ctrl-C stops after the step in progress,
        saves, then raises KeyboardInterrupt (see interrupt.StopRequest)."""
        cfg = self.cfg
        self.until = deadline(max_seconds)
        end = cfg.max_steps if stop_at is None else min(stop_at, cfg.max_steps)
        bar = tqdm(total=cfg.max_steps, initial=self.step, desc=self.run_name(), unit=self.unit, disable=not progress)
        try:
            with StopRequest() as stop:
                while self.step < end:
                    before = self.step
                    try:
                        self.train_step()
                    except OutOfTime:  # the step took itself back: saved as the last one left it
                        pass
                    bar.update(self.step - before)
                    halt = stop.requested or self.out_of_time()
                    if self.step % cfg.checkpoint_every == 0 or self.step == cfg.max_steps or halt:
                        self.save()  # logs an entry first
                    elif self.step % cfg.log_every == 0:
                        self._log()
                    if self.history and self.history[-1]["step"] == self.step:
                        bar.set_postfix(self.postfix(self.history[-1]), refresh=False)
                    if halt:
                        break
        finally:
            self.until = None
        bar.close()
        if self.writer:
            self.writer.flush()
        stopped(stop, self.step, self.out)
        return self.history
