"""REINFORCE with rollouts on Ray actors: trains, resumes exactly; PPO goes to its own Ray trainer."""

import hashlib

import pytest

from zerogym_agents.pg.config import PGConfig
from zerogym_agents.scale.pg import RayReinforceTrainer, ray_pg_trainer
from tiny_runs import pg_fields

CFG = pg_fields(algo="reinforce-baseline", log_every=2)
RC = {"workers": 2}


def _weights(tr):
    h = hashlib.sha256()
    for v in tr.net.state_dict().values():
        h.update(v.numpy().tobytes())
    return tr.episodes, tr.learner_moves, h.hexdigest()


def _run(tmp, stop_at=None, resume=False):
    tr = RayReinforceTrainer(CFG, tmp, resume=resume, log_dir=False, ray_config=RC)
    try:
        tr.run(progress=False, stop_at=stop_at)
        return tr
    finally:
        tr.close()


def test_ray_reinforce_resumes_exactly(ray_session, tmp_path):
    straight = _run(tmp_path / "a")
    assert straight.episodes == 4 * CFG["num_envs"] and straight.learner_moves > 0
    _run(tmp_path / "b", stop_at=2)
    assert _weights(_run(tmp_path / "b", resume=True)) == _weights(straight)


def test_ppo_on_ray_refuses_more_workers_than_games():
    cfg = PGConfig(algo="ppo", game="tictactoe", num_envs=8)
    with pytest.raises(ValueError, match=r"workers \(9\) must be at most num_envs \(8\)"):
        ray_pg_trainer(cfg, {"workers": 9})
