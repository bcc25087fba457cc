"""PPO with its games on Ray actors: the same run as in local worker processes, and resumable on either."""

import pytest
import torch

from zerogym_agents.pg.config import PGConfig
from zerogym_agents.pg.ppo import PPOTrainer
from zerogym_agents.scale.pg import ray_pg_trainer
from zerogym_agents.scale.ppo import RayPPOTrainer
from tiny_runs import WORKER_PPO, pg_fields

pytest.importorskip("sb3_contrib")
CFG = pg_fields(WORKER_PPO, max_steps=2, checkpoint_every=1, seed=5)


def _weights(tr):
    return [v.clone() for v in tr.net.state_dict().values()]


def test_ray_workers_play_the_run_local_processes_play(ray_session, tmp_path):
    ray_run = ray_pg_trainer(PGConfig(**CFG), {"workers": 2})(PGConfig(**CFG), tmp_path / "ray", log_dir=False)
    assert isinstance(ray_run, RayPPOTrainer) and "ray, 2 workers" in ray_run.run_name()
    try:
        ray_run.run(progress=False, stop_at=1)
    finally:
        ray_run.close()
    local = PPOTrainer(CFG, tmp_path / "local", log_dir=False, workers=2)
    try:
        local.run(progress=False)
    finally:
        local.close()
    # the Ray run's checkpoint resumes in local processes (same worker count) and ends where they did
    resumed = PPOTrainer(CFG, tmp_path / "ray", resume=True, log_dir=False, workers=2)
    try:
        resumed.run(progress=False)
    finally:
        resumed.close()
    assert (resumed.episodes, resumed.pool.learner_elo) == (local.episodes, local.pool.learner_elo)
    assert all(torch.equal(a, b) for a, b in zip(_weights(resumed), _weights(local)))
