"""Shared by the harness's tests: one torch thread (tiny nets, a machine that may be busy), and tiny
configs of every registered algorithm."""

import pytest

# a 1x8 net and a few games at once: a step takes milliseconds
NET = {"trunk": "resnet", "blocks": 1, "channels": 8, "value_loss": "bce"}
TINY = {
    "alphazero": {
        "net": NET,
        "concurrent_games": 8,
        "simulations": 8,
        "batch_size": 16,
        "min_buffer": 16,
        "max_train_per_step": 1,
        "checkpoint_every": 2,
    },
    "reinforce": {"net": NET, "num_envs": 8, "checkpoint_every": 2, "snapshot_every": 8},
    "reinforce-baseline": {"net": NET, "num_envs": 8, "checkpoint_every": 2, "snapshot_every": 8},
    "ppo": {
        "net": NET,
        "num_envs": 8,
        "ppo_n_steps": 8,
        "ppo_batch_size": 16,
        "ppo_epochs": 1,
        "checkpoint_every": 2,
        "snapshot_every": 8,
    },
}


@pytest.fixture(autouse=True)
def one_thread(one_torch_thread):
    """These nets are tiny, and the machine may be busy."""


@pytest.fixture(scope="session")
def tiny():
    """{algorithm: config fields} of tiny runs (conftest is not importable by name)."""
    return {name: dict(fields) for name, fields in TINY.items()}
