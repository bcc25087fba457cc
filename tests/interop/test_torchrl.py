"""examples/torchrl_dqn.py and zerogym_agents.interop.torchrl (skipped without TorchRL)."""

from interop.example_runs import check_run, load_example, skip_without

skip_without("torchrl", "TorchRL")

from zerogym_agents import RandomAgent  # noqa: E402
from zerogym_agents.interop.torchrl import gym_env, masked_env_of  # noqa: E402


def test_example_trains_without_illegal_moves_and_plays_the_arena():
    out = load_example("torchrl_dqn").train("tictactoe", "greedy", steps=320, seed=0, arena_games=4)
    check_run(out, 320, 4)


def test_env_gives_the_mask_and_counts_illegal_moves():
    import torch

    env = gym_env("tictactoe", RandomAgent(seed=0), learner="first", seed=0)
    td = env.reset()
    assert td["action_mask"].dtype == torch.bool and td["action_mask"].all()
    assert td["observation"].dtype == torch.float32
    td["action"] = torch.tensor(4)
    td = env.step(td)["next"]
    taken = int((~td["action_mask"]).nonzero()[0])
    td["action"] = torch.tensor(taken)
    env.step(td)
    assert masked_env_of(env).illegal_actions == 1
