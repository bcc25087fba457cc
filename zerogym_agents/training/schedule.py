"""What the trainers share: the run loop (steps, logs, checkpoints, a wall-clock limit, Ctrl-C), and
the learning-rate schedule over steps or over a wall-clock budget."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np
from tqdm import tqdm

from zerogym_agents.training.interrupt import StopRequest, deadline, stopped


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
    last_cpu = 0.0            # CPU seconds of this process during the last train_for

    # what the trainer that mixes this in has (see the class docstring)
    cfg: Any
    step: int
    history: list[dict[str, Any]]
    out: str
    writer: Any               # a TensorBoard SummaryWriter, or None
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

    def run(self, progress: bool = True, stop_at: int | None = None,
            max_seconds: float | None = None) -> list[dict[str, Any]]:
        """Train until max_steps steps, or stop_at (to interrupt a run), or when max_seconds of wall
        clock have passed (checked after each step; the run then saves); returns self.history. A
        history entry (and TensorBoard scalars) every log_every steps, a checkpoint every
        checkpoint_every steps and at max_steps; the bar's postfix follows the entries. Ctrl-C stops
        after the step in progress, saves, then raises KeyboardInterrupt (see interrupt.StopRequest)."""
        cfg = self.cfg
        until = deadline(max_seconds)
        end = cfg.max_steps if stop_at is None else min(stop_at, cfg.max_steps)
        bar = tqdm(total=cfg.max_steps, initial=self.step, desc=self.run_name(), unit=self.unit, disable=not progress)
        with StopRequest() as stop:
            while self.step < end:
                self.train_step()
                bar.update(1)
                halt = stop.requested or (until is not None and time.perf_counter() >= until)
                if self.step % cfg.checkpoint_every == 0 or self.step == cfg.max_steps or halt:
                    self.save()                 # logs an entry first
                elif self.step % cfg.log_every == 0:
                    self._log()
                if self.history and self.history[-1]["step"] == self.step:
                    bar.set_postfix(self.postfix(self.history[-1]), refresh=False)
                if halt:
                    break
        bar.close()
        if self.writer:
            self.writer.flush()
        stopped(stop, self.step, self.out)
        return self.history
