"""The training budget of a run (wall-clock minutes of training, or steps) and the loop that spends it.

A budget in minutes counts only the time spent in the trainer's train_for (evaluation and checkpoints
are not counted, but measured apart); in that mode the trainer has no step cap and its learning rate
follows the cosine schedule over the share of the time budget used. A budget in steps (AlphaZero
search steps, policy-gradient updates) makes a run a function of its settings: for tests, and
comparisons that need to be repeated exactly.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zerogym_agents.experiment.protocol import TrainingRun

NO_STEP_CAP = 10**9  # the trainer's max_steps in minutes mode: time, not steps, ends a run
CHUNK_SECONDS = 5.0  # minutes mode: train in chunks of at most about this long between clock checks


@dataclass(frozen=True)
class Budget:
    """`minutes` of training per run, or `steps`; evaluation points every `eval_every` minutes (or
    steps), at the end of the budget, and with eval_at_start before training too."""

    minutes: float | None = None
    steps: int | None = None
    eval_every: float | None = None  # default: the whole budget (one point, at its end)
    eval_at_start: bool = True

    def __post_init__(self) -> None:
        if (self.minutes is None) == (self.steps is None):
            raise ValueError(
                f"a Budget has minutes or steps, one of them: got minutes={self.minutes!r}, steps={self.steps!r}"
            )
        if self.steps is not None and (
            isinstance(self.steps, bool) or not isinstance(self.steps, int) or self.steps < 1
        ):
            raise ValueError(f"Budget.steps must be an integer >= 1, got {self.steps!r}")
        if self.minutes is not None and not self.minutes > 0:
            raise ValueError(f"Budget.minutes must be > 0, got {self.minutes!r}")
        if self.eval_every is not None and not self.eval_every > 0:
            raise ValueError(f"Budget.eval_every must be > 0, got {self.eval_every!r}")

    @property
    def unit(self) -> str:
        """What the loop counts: "steps" or "seconds"."""
        return "steps" if self.steps is not None else "seconds"

    @property
    def total(self) -> float:
        """The whole budget, in `unit`."""
        return self.steps if self.steps is not None else 60.0 * self._minutes()

    def _minutes(self) -> float:
        assert self.minutes is not None, "a Budget has minutes or steps"
        return self.minutes

    def max_steps(self) -> int:
        """The trainer's max_steps under this budget."""
        return self.steps if self.steps is not None else NO_STEP_CAP

    def targets(self) -> list[float]:
        """The budget used (in `unit`) at each evaluation point."""
        points: list[float]
        if self.steps is not None:
            every = int(self.eval_every or self.steps)
            points = [min(self.steps, every * (k + 1)) for k in range(-(-self.steps // every))]
        else:
            minutes = self._minutes()
            every_minutes = self.eval_every or minutes
            n = max(1, math.ceil(minutes / every_minutes - 1e-9))
            points = [60.0 * min(minutes, every_minutes * (k + 1)) for k in range(n)]
        return ([0] if self.eval_at_start else []) + points

    def label(self, target: float) -> str:
        """A short name of an evaluation point: "200" (steps) or "2.5min"."""
        return f"{target}" if self.steps is not None else f"{target / 60:g}min"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class ResumeError(RuntimeError):
    """A run folder whose checkpoint and progress record do not fit together."""


class BudgetLoop:
    """Spends a budget on one run (a zerogym_agents.experiment.TrainingRun), keeping the count in
    `record`, a dict saved by the caller: "steps" and "seconds" (training wall-clock time), and
    "cpu_seconds" (the CPU time the training process got in the same chunks: other load on the
    machine shows there). unit: "steps" or "seconds", what train_to's targets count.

    In seconds the run trains in chunks sized from the measured time per step: halves of what is
    left, at most chunk_seconds long, then step by step near the target. end="nearest" stops at the
    step that brings the time used nearest the target (each run ends within half a step of its
    budget); end="reach" trains until the target is reached (a run gets at least its budget). Chunks
    end at the trainer's checkpoints, after which on_checkpoint() is called (to save `record` with
    the checkpoint, so that both tell the same step); on_chunk(seconds) after every chunk.
    """

    def __init__(
        self,
        run: TrainingRun,
        record: dict[str, Any],
        unit: str,
        end: str = "nearest",
        chunk_seconds: float = CHUNK_SECONDS,
        on_checkpoint: Callable[[], Any] | None = None,
        on_chunk: Callable[[float], Any] | None = None,
    ) -> None:
        if unit not in ("steps", "seconds") or end not in ("nearest", "reach"):
            raise ValueError(f"BudgetLoop: unit is steps or seconds, end nearest or reach; got {unit!r}, {end!r}")
        self.run, self.record, self.unit, self.end = run, record, unit, end
        self.chunk_seconds, self.on_checkpoint, self.on_chunk = chunk_seconds, on_checkpoint, on_chunk
        self.seconds_per_step: float | None = None  # measured on the last chunk
        self.saved_at = run.step if run.step > 0 else None
        self.pending = 0  # steps of the checkpoint not in the record, timed at the first chunk

    def used(self) -> float:
        return self.record["steps"] if self.unit == "steps" else self.record["seconds"]

    def reconcile(self, where: str) -> None:
        """Line the record up with the run just resumed from its checkpoint: a checkpoint behind the
        record is refused (ResumeError naming `where`); steps saved after the last record (a run
        killed in between) get an estimated time, added to "seconds" and "estimated_seconds"."""
        run, rec = self.run, self.record
        if run.step < rec["steps"]:
            raise ResumeError(
                f"{where}: the checkpoint (step {run.step}) is behind the progress record (step "
                f"{rec['steps']}); remove the run's folder to start it again"
            )
        extra = run.step - rec["steps"]
        if extra and rec["steps"]:
            self._estimated(extra * rec["seconds"] / rec["steps"])
        else:
            self.pending = extra  # no time per step known yet: the first chunk's is used
        rec["steps"] = run.step

    def _estimated(self, seconds: float) -> None:
        self.record["seconds"] += seconds
        self.record["estimated_seconds"] = self.record.get("estimated_seconds", 0.0) + seconds

    def _go_on(self, target: float) -> bool:
        if self.used() >= target:
            return False
        if self.unit == "steps" or self.end == "reach" or self.seconds_per_step is None:
            return True
        return target - self.used() > 0.5 * self.seconds_per_step

    def train_to(self, target: float) -> None:
        """Train until the budget used reaches `target` (see the class docstring)."""
        run, rec = self.run, self.record
        every, cap = run.cfg.checkpoint_every, run.cfg.max_steps
        while self._go_on(target):
            left, sps = target - self.used(), self.seconds_per_step
            if self.unit == "steps":
                n = int(left)
            else:  # approach the target in halves, chunks of at most chunk_seconds, then step by step
                n = 1 if sps is None or left <= 2 * sps else max(1, int(min(0.5 * left, self.chunk_seconds) / sps))
            n = max(1, min(n, every - run.step % every))
            before = run.step
            dt = run.train_for(n, rec["seconds"])
            if run.step == before:
                raise RuntimeError(f"the trainer made no progress (step {run.step}, max_steps {cap})")
            self.seconds_per_step = dt / (run.step - before)
            if self.pending:
                self._estimated(self.pending * self.seconds_per_step)
                self.pending = 0
            rec["seconds"] += dt
            rec["cpu_seconds"] = rec.get("cpu_seconds", 0.0) + run.last_cpu
            rec["steps"] = run.step
            if self.on_chunk is not None:
                self.on_chunk(dt)
            if run.step % every == 0 or run.step == cap:
                self.saved_at = run.step
                if self.on_checkpoint is not None:
                    self.on_checkpoint()

    def save(self) -> float:
        """Write the run's checkpoint at this step unless it is there already; returns the seconds
        that took (0.0 when nothing was written)."""
        if self.run.step == 0 or self.saved_at == self.run.step:
            return 0.0
        t0 = time.perf_counter()
        self.run.save()
        self.saved_at = self.run.step
        return time.perf_counter() - t0
