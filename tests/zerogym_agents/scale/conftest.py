"""One local Ray instance for every test of the ray backend (skipped where Ray is not installed)."""

import hashlib

import pytest
from tiny_runs import alphazero_fields

# 4 games of 4 simulations a move, half of them against a pool of 3 past nets
GAMES = dict(concurrent_games=4, simulations=4, pool_fraction=0.5, pool_size=3)
TINY = alphazero_fields(GAMES, max_steps=8, checkpoint_every=3, log_every=2)


@pytest.fixture(scope="session")
def ray_session():
    ray = pytest.importorskip("ray", reason='Ray is not installed (pip install ".[ray]")')
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def fingerprint(trainer):
    """What a run's continuation depends on: counters, weights, optimizer, replay contents and pool Elo."""
    h = hashlib.sha256()
    for v in trainer.net.state_dict().values():
        h.update(v.numpy().tobytes())
    for state in trainer.opt.state_dict()["state"].values():
        h.update(state["momentum_buffer"].numpy().tobytes())
    replay = trainer.replay.state_dict()
    for key in sorted(replay):
        if hasattr(replay[key], "numpy"):
            h.update(replay[key].numpy().tobytes())
    return (trainer.games, trainer.positions, trainer.train_steps, trainer.pool.learner_elo, h.hexdigest())
