"""The cosine learning-rate schedule over steps or over a wall-clock budget, in both kinds of trainer."""

import math
import time
from types import SimpleNamespace

import pytest

from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
from zerogym_agents.training.schedule import CosineSchedule, cosine
from tiny_runs import alphazero_config


def by_hand(lr, lr_final, t):
    return lr_final + (lr - lr_final) * (1 + math.cos(math.pi * t)) / 2


def test_cosine_runs_from_lr_to_lr_final_and_stays_there():
    assert cosine(0.02, 0.002, 0.0) == pytest.approx(0.02)
    assert cosine(0.02, 0.002, 0.5) == pytest.approx(0.011)
    assert cosine(0.02, 0.002, 0.25) == pytest.approx(by_hand(0.02, 0.002, 0.25))
    assert cosine(0.02, 0.002, 1.0) == cosine(0.02, 0.002, 3.0) == pytest.approx(0.002)
    assert cosine(0.02, 0.002, -1.0) == pytest.approx(0.02)
    assert cosine(0.01, 0.01, 0.7) == pytest.approx(0.01)  # lr_final = lr: a constant rate


class Counter(CosineSchedule):
    """A trainer reduced to what the schedule needs: one step per run() call, each `pause` seconds long."""

    def __init__(self, max_steps, pause=0.0):
        self.cfg = SimpleNamespace(lr=1.0, lr_final=0.0, max_steps=max_steps)
        self.step, self.pause, self.seen = 0, pause, []

    def run(self, progress=True, stop_at=None, max_seconds=None):
        while self.step < stop_at:
            time.sleep(self.pause)
            self.seen.append(self.learning_rate())
            self.step += 1


def test_progress_is_the_share_of_steps_or_of_the_time_budget():
    c = Counter(max_steps=4)
    c.train_for(4)
    assert c.seen == pytest.approx([by_hand(1.0, 0.0, k / 4) for k in range(4)])
    c = Counter(max_steps=10**9, pause=0.05)
    c.time_budget = 10.0
    elapsed = c.train_for(2, time_used=5.0)
    assert 0.1 <= elapsed and c.time_used == 5.0 and c.chunk_start is None
    assert by_hand(1.0, 0.0, 0.5 + elapsed / 10) <= c.seen[-1] < c.seen[0] <= by_hand(1.0, 0.0, 0.5)
    c.time_used = 20.0
    assert c.learning_rate() == pytest.approx(0.0)  # past the budget: lr_final


def test_the_alphazero_trainer_follows_its_time_budget(tmp_path):
    trainer = AlphaZeroTrainer(
        alphazero_config(game="go", game_kwargs={"board_size": 3}, lr=0.02, lr_final=0.002),
        tmp_path,
        log_dir=False,
    )
    assert trainer.learning_rate() == pytest.approx(0.02)
    trainer.time_budget = 100.0
    lrs = []
    for used in (0.0, 50.0, 100.0, 200.0):
        trainer.time_used = used
        lrs.append(trainer.learning_rate())
    assert lrs == pytest.approx([0.02, 0.011, 0.002, 0.002])
