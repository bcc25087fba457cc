"""zerogym_agents.interop's shared parts: the masked Dict view, the missing-extra error, the action check."""

import builtins

import numpy as np
import pytest

from zerogym_agents import RandomAgent
from zerogym_agents.interop import MaskedDictEnv, checked_action, masked_env, require


def test_masked_env_shows_the_learners_mask_and_counts_illegal_moves():
    env = masked_env("tictactoe", RandomAgent(seed=0), learner="second", flatten=True, mask_dtype=np.float32)
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    assert (
        obs["observation"].shape == (9 * env.env.observation_space.shape[-1],)
        and obs["action_mask"].dtype == np.float32
    )
    assert obs["action_mask"].sum() == 8  # the random first player has moved
    taken = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(taken)
    assert (env.illegal_actions, env.moves, reward, terminated) == (1, 1, -1.0, True) and "illegal_action" in info


def test_masked_env_builds_the_opponent_from_a_spec():
    env = masked_env("connect_four", "greedy", learner="first", mask_key="mask")
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"observation", "mask"} and obs["mask"].dtype == bool and obs["mask"].all()
    assert isinstance(env, MaskedDictEnv) and type(env.unwrapped.opponent).__name__ == "GreedyAgent"


def test_require_names_the_extra(monkeypatch):
    real = builtins.__import__

    def no_such(name, *args, **kwargs):
        if name.startswith("tianshou"):
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_such)
    monkeypatch.delitem(__import__("sys").modules, "tianshou", raising=False)
    with pytest.raises(
        ImportError, match=r'Tianshou.*pip install "\.\[interop\]" in a checkout.*zerogym\[interop\] @ git\+https://'
    ):
        require("tianshou", "Tianshou")


def test_checked_action_refuses_an_action_outside_the_mask():
    mask = np.array([False, True, True])
    assert checked_action(np.int64(2), mask, "X") == 2
    with pytest.raises(ValueError, match=r"X policy chose action 0.*legal: \[1, 2\]"):
        checked_action(0, mask, "X")
    with pytest.raises(ValueError, match="action 3"):
        checked_action(3, mask, "X")
