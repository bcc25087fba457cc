"""examples/tianshou_dqn.py and zerogym_agents.interop.tianshou (skipped without Tianshou)."""

import numpy as np
import pytest
from interop.example_runs import check_run, load_example, skip_without

skip_without("tianshou", "Tianshou")

from zerogym_agents import GreedyAgent  # noqa: E402
from zerogym_agents.interop.tianshou import AgentAlgorithm, ENV_KEY, TianshouAgent, pettingzoo_env  # noqa: E402


def test_example_trains_without_illegal_moves_and_plays_the_arena():
    out = load_example("tianshou_dqn").train("tictactoe", "greedy", steps=300, seed=0, envs=2, arena_games=4)
    check_run(out, 300, 4)


def test_the_agent_seat_plays_the_zerogym_agents_move():
    from tianshou.data import Batch

    env = pettingzoo_env("connect_four")
    obs, info = env.reset(seed=0)
    env.step(3)  # a greedy agent blocks or builds on column 3
    obs, rewards, term, trunc, info = env.step(3)
    algo = AgentAlgorithm(GreedyAgent(seed=0), env.action_space)
    act = algo.policy(
        Batch(
            obs=Batch(obs=obs["obs"][None], mask=np.array(obs["mask"])[None], agent_id=np.array([obs["agent_id"]])),
            info=Batch({ENV_KEY: np.array([info[ENV_KEY]])}),
        )
    ).act
    assert act.tolist() == [GreedyAgent(seed=0).act(env.env)]


def test_the_env_counts_illegal_actions():
    env = pettingzoo_env("tictactoe")
    env.reset(seed=0)
    env.step(4)
    assert env.illegal_actions == 0
    obs, rewards, term, trunc, info = env.step(4)  # taken: the game ends, the mover loses
    assert env.illegal_actions == 1 and term and rewards[1] == -1


def test_the_agent_seat_refuses_a_batch_without_the_env_key():
    from tianshou.data import Batch

    env = pettingzoo_env("tictactoe")
    algo = AgentAlgorithm(GreedyAgent(seed=0), env.action_space)
    with pytest.raises(LookupError, match="pettingzoo_env"):
        algo.policy(Batch(obs=Batch(obs=np.zeros((1, 3, 3, 3))), info=Batch()))


def test_a_policy_that_ignores_the_mask_is_caught_in_the_arena():
    from tianshou.data import Batch

    class Always0:
        def eval(self):
            return self

        def __call__(self, batch):
            return Batch(act=np.zeros(len(batch.obs.obs), dtype=np.int64))

    env = pettingzoo_env("tictactoe").env
    env.reset(seed=0)
    env.step(0)
    with pytest.raises(ValueError, match="Tianshou policy chose action 0"):
        TianshouAgent(Always0()).act(env)
