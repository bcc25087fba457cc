"""examples/rllib_ppo.py and zerogym_agents.interop.rllib (skipped without RLlib)."""

import numpy as np
import pytest
from interop.example_runs import check_run, load_example, skip_without

skip_without("ray.rllib", "RLlib")

from zerogym_agents.interop.rllib import MASK_KEY, OBS_KEY, make_env  # noqa: E402


def test_example_trains_without_illegal_moves_and_plays_the_arena():
    import ray

    try:
        out = load_example("rllib_ppo").train("tictactoe", "greedy", iterations=2, seed=0, batch=200, arena_games=4)
        check_run(out, 400, 4)
        out["algo"].stop()
    finally:
        ray.shutdown()


def test_env_config_builds_the_masked_env():
    env = make_env({"game": "connect_four", "opponent": "random", "learner": "second", "kwargs": {"rows": 5}})
    obs, _ = env.reset(seed=0)
    assert obs[OBS_KEY].shape == (5 * 7 * env.env.observation_space.shape[-1],)
    assert obs[MASK_KEY].dtype == np.float32 and obs[MASK_KEY].sum() == 7
    with pytest.raises(ValueError, match="env_config needs 'game'"):
        make_env({"game": "go", "size": 9})
