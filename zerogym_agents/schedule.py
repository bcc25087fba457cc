"""The learning-rate schedule the trainers share, over steps or over a wall-clock budget."""
import time

import numpy as np


def cosine(lr, lr_final, t):
    """Cosine decay from lr at t = 0 to lr_final at t >= 1."""
    return float(lr_final + 0.5 * (lr - lr_final) * (1 + np.cos(np.pi * min(1.0, max(0.0, t)))))


class CosineSchedule:
    """Mixin of the trainers (AlphaZeroTrainer, PGTrainer: `cfg.lr`, `cfg.lr_final`, `cfg.max_steps`,
    `step`, `run(progress, stop_at)`). The learning rate follows the cosine schedule over the share
    of training done: step / max_steps, or, when `time_budget` (seconds) is set, the share of that
    budget used (`time_used` before the current train_for chunk plus the chunk's time so far)."""

    time_budget = None
    time_used = 0.0
    chunk_start = None
    last_cpu = 0.0            # CPU seconds of this process during the last train_for

    def progress(self):
        if not self.time_budget:
            return self.step / self.cfg.max_steps
        used = self.time_used + (time.perf_counter() - self.chunk_start if self.chunk_start is not None else 0.0)
        return used / self.time_budget

    def learning_rate(self):
        return cosine(self.cfg.lr, self.cfg.lr_final, self.progress())

    def train_for(self, steps, time_used=0.0):
        """Advance `steps` steps (fewer at max_steps) with `time_used` seconds of the budget already
        spent; returns the wall-clock seconds taken (and leaves the CPU seconds in last_cpu)."""
        self.time_used, self.chunk_start = time_used, time.perf_counter()
        cpu = time.process_time()
        try:
            self.run(progress=False, stop_at=self.step + steps)
        finally:
            elapsed, self.chunk_start = time.perf_counter() - self.chunk_start, None
            self.last_cpu = time.process_time() - cpu
        return elapsed
