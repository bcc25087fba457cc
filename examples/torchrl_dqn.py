"""TorchRL: a DQN learns a zerogym game through TorchRL's Gymnasium integration, against a zerogym agent.

The zerogym opponent plays inside the env (zerogym_agents.interop.masked_env over SingleAgentEnv);
TorchRL's GymWrapper gives the learner's planes as "observation" and its legal moves as
"action_mask", which QValueActor (the argmax) and EGreedyModule (the random moves) both honour
through action_mask_key. The trained policy then plays the opponent in the zerogym arena.

    python examples/torchrl_dqn.py --game tictactoe --opponent random --steps 20000
"""


def train(game="tictactoe", opponent="random", steps=20_000, seed=0, kwargs=None, arena_games=20, frames_per_batch=64):
    """Train, then evaluate; returns a dict: policy, agent (the policy as a zerogym agent),
    gradient_steps, env_steps, illegal_actions (counted by the env), arena (a MatchResult)."""
    import torch
    from torch import nn
    from torchrl.collectors import Collector
    from torchrl.data import LazyTensorStorage, ReplayBuffer
    from torchrl.modules import EGreedyModule, MLP, QValueActor
    from torchrl.objectives import DQNLoss, HardUpdate
    from tensordict.nn import TensorDictSequential

    from zerogym_agents.arena import play_match
    from zerogym_agents.interop.torchrl import TorchRLAgent, gym_env, masked_env_of
    from zerogym_agents.agents.specs import agent_from_spec

    kwargs = dict(kwargs or {})
    torch.manual_seed(seed)
    env = gym_env(game, agent_from_spec(opponent, game, kwargs, seed=seed), seed=seed, **kwargs)
    n_actions = env.action_spec.space.n
    body = nn.Sequential(nn.Flatten(-3, -1), MLP(out_features=n_actions, num_cells=[128, 128]))
    actor = QValueActor(body, in_keys=["observation"], spec=env.action_spec, action_mask_key="action_mask")
    explore = EGreedyModule(
        env.action_spec,
        eps_init=0.5,
        eps_end=0.05,
        annealing_num_steps=max(steps // 2, 1),
        action_mask_key="action_mask",
    )
    policy = TensorDictSequential(actor, explore)
    loss = DQNLoss(actor, action_space=env.action_spec, delay_value=True)
    loss.make_value_estimator(gamma=0.9)
    target = HardUpdate(loss, value_network_update_interval=100)
    optim = torch.optim.Adam(loss.parameters(), lr=1e-3)
    buffer = ReplayBuffer(storage=LazyTensorStorage(max(steps, 1000)), batch_size=64)
    collector = Collector(
        env, policy, frames_per_batch=frames_per_batch, total_frames=steps, auto_register_policy_transforms=False
    )

    gradient_steps = env_steps = 0
    for data in collector:
        buffer.extend(data.reshape(-1))
        env_steps += data.numel()
        explore.step(data.numel())
        if len(buffer) < 256:
            continue
        for _ in range(frames_per_batch // 16):
            optim.zero_grad()
            loss(buffer.sample())["loss"].backward()
            optim.step()
            target.step()
            gradient_steps += 1
    collector.shutdown()

    agent = TorchRLAgent(actor)
    rival = agent_from_spec(opponent, game, kwargs, seed=seed + 1)
    match = play_match(agent, rival, game, kwargs, games=arena_games, seed=seed, names=("torchrl-dqn", opponent))
    counts = {
        "gradient_steps": gradient_steps,
        "env_steps": env_steps,
        "illegal_actions": masked_env_of(env).illegal_actions,
    }
    return {"policy": actor, "agent": agent, **counts, "arena": match}


def main(argv=None):
    from zerogym_agents.interop import run_example  # --game, --opponent, --steps, --seed, --games

    run_example(train, __doc__, argv, "--steps", 20_000, "learner moves")


if __name__ == "__main__":
    main()
