"""RayAlphaZeroTrainer: exact resume in deterministic mode, dead workers, bounded tasks in flight."""

import time

import pytest

from zerogym_agents.core.checkpoint import CheckpointError
from zerogym_agents.scale.alphazero import RayAlphaZeroTrainer

from .conftest import TINY, fingerprint

DET = {"workers": 2, "mode": "deterministic", "steps_per_task": 2}


def _run(tmp, stop_at=None, resume=False, ray_config=DET, on_step=None, **changes):
    tr = RayAlphaZeroTrainer({**TINY, **changes}, tmp, resume=resume, log_dir=False, ray_config=ray_config)
    try:
        if on_step is None:
            tr.run(progress=False, stop_at=stop_at)
        else:
            while tr.step < (stop_at or tr.cfg.max_steps):
                tr.run(progress=False, stop_at=tr.step + 1)
                on_step(tr)
        return tr, fingerprint(tr)
    finally:
        tr.close()


@pytest.fixture(scope="module")
def straight(ray_session, tmp_path_factory):
    """A deterministic run never interrupted."""
    return _run(tmp_path_factory.mktemp("straight"))


def test_deterministic_mode_resumes_exactly(straight, tmp_path):
    trainer, expected = straight
    assert trainer.train_steps > 0 and trainer.pool_games > 0  # it trained and played the pool
    assert trainer.cfg.overlap_sgd and trainer.actor is trainer.net  # the workers play: no second copy
    _run(tmp_path, stop_at=3)  # saves at step 3 (checkpoint_every), mid-round: rounds are 2 tasks
    resumed, got = _run(tmp_path, resume=True)
    assert got == expected
    assert [h["step"] for h in resumed.history] == [h["step"] for h in trainer.history]


def test_root_values_of_the_workers_searches_reach_the_value_targets_and_resume_exactly(ray_session, tmp_path):
    import numpy as np

    trainer, expected = _run(tmp_path / "straight", root_value_weight=1.0)
    values = trainer.replay.values[: len(trainer.replay)]
    assert np.all(np.abs(values) <= 1) and not np.isin(values, [-1.0, 0.0, 1.0]).all()
    _run(tmp_path / "cut", stop_at=3, root_value_weight=1.0)
    _, got = _run(tmp_path / "cut", resume=True, root_value_weight=1.0)
    assert got == expected


def test_a_killed_worker_loses_only_its_task_in_flight(straight, tmp_path):
    _, expected = straight
    killed = []

    def kill_once(tr):
        if tr.step == 3 and not killed:
            slot = tr.slots[1]  # its round-1 task is in flight
            assert len(slot.inflight) == 1
            tr.ray.kill(slot.actor, no_restart=True)
            killed.append(slot.inflight[0].index)

    trainer, got = _run(tmp_path, on_step=kill_once)
    assert killed and trainer.lost_tasks == 1
    assert got == expected  # the task was played again from the slot's games: nothing else was lost


def test_async_mode_keeps_tasks_in_flight_bounded_with_a_slow_learner(ray_session, tmp_path, monkeypatch):
    slow = RayAlphaZeroTrainer.train_some

    def sleepy(self, steps=None):
        time.sleep(0.3)
        return slow(self, steps)

    monkeypatch.setattr(RayAlphaZeroTrainer, "train_some", sleepy)
    rc = {"workers": 2, "mode": "async", "steps_per_task": 1, "max_inflight": 2}
    tr = RayAlphaZeroTrainer({**TINY, "min_buffer": 16}, tmp_path, log_dir=False, ray_config=rc)
    try:
        tr.run(progress=False, stop_at=8)
        info = tr.worker_info()
        consumed = [s.consumed for s in tr.slots]
        assert sum(consumed) == tr.step == 8
        assert tr._inflight_max <= 4
        for slot, worker in zip(tr.slots, info):
            assert worker["tasks_run"] <= slot.consumed + 2  # workers never ran ahead of the cap
            assert worker["threads"] == 1  # torch threads = CPUs declared
        entry = tr.history[-1]
        assert entry["staleness_p95"] is not None and entry["samples_per_position"] <= 4.0 + 1e-9
    finally:
        tr.close()


def test_async_resume_loses_no_games(ray_session, tmp_path):
    rc = {"workers": 2, "mode": "async", "steps_per_task": 2}
    first, _ = _run(tmp_path, stop_at=3, ray_config=rc)  # saved at step 3 (checkpoint_every)
    games = [[len(g) for g in s.records.pending] for s in first.slots]
    resumed = RayAlphaZeroTrainer(TINY, tmp_path, resume=True, log_dir=False, ray_config=rc)
    try:
        assert [[len(g) for g in s.records.pending] for s in resumed.slots] == games  # games in progress kept
        assert [s.consumed for s in resumed.slots] == [s.consumed for s in first.slots]
        assert resumed.positions == first.positions and resumed.games == first.games
        resumed.run(progress=False, stop_at=5)

        # two more tasks played moves; whether a game ended in them depends on which worker ran first
        def recorded(t):
            return t.positions + sum(len(g) for s in t.slots for g in s.records.pending)

        assert resumed.step == 5 and recorded(resumed) > recorded(first)
    finally:
        resumed.close()


def test_resume_with_other_workers_is_refused(ray_session, tmp_path):
    _run(tmp_path, stop_at=3)
    with pytest.raises(CheckpointError, match="mode"):
        RayAlphaZeroTrainer(TINY, tmp_path, resume=True, log_dir=False, ray_config={**DET, "mode": "async"})
