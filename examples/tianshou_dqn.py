"""Tianshou: a DQN learns a zerogym game through Tianshou's PettingZoo integration, against a zerogym agent.

The learner and the opponent are the two seats of Tianshou's MultiAgentOffPolicyAlgorithm; the
opponent's seat is AgentAlgorithm(agent), a zerogym agent that never learns. The DQN masks illegal
actions with the mask Tianshou's PettingZooEnv puts in every observation, in its argmax and in its
epsilon-greedy exploration. The trained policy then plays the opponent in the zerogym arena.

    python examples/tianshou_dqn.py --game tictactoe --opponent random --steps 20000
"""

import logging


def train(
    game="tictactoe", opponent="random", steps=20_000, seed=0, learner_seat=1, envs=4, kwargs=None, arena_games=20
):
    """Train, then evaluate; returns a dict: algorithm, agent (the trained policy as a zerogym agent),
    gradient_steps, env_steps, illegal_actions (counted by the envs), arena (a MatchResult)."""
    import numpy as np
    import torch
    from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.trainer import OffPolicyTrainerParams
    from tianshou.utils.net.common import Net

    from zerogym_agents.arena import play_match
    from zerogym_agents.interop.tianshou import AgentAlgorithm, TianshouAgent, pettingzoo_env
    from zerogym_agents.agents.specs import agent_from_spec

    kwargs = dict(kwargs or {})
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)  # multi-agent returns are 2-D: it warns
    torch.manual_seed(seed)
    np.random.seed(seed)
    env = pettingzoo_env(game, **kwargs)  # spaces, and the agents' order
    # DummyVectorEnv: the opponent reads its env's position in this process
    train_envs = DummyVectorEnv([lambda: pettingzoo_env(game, **kwargs) for _ in range(envs)])
    train_envs.seed(seed)
    net = Net(
        state_shape=env.observation_space["observation"].shape, action_shape=env.action_space.n, hidden_sizes=[128, 128]
    )
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.2, eps_inference=0.0)
    dqn = DQN(
        policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.9, n_step_return_horizon=1, target_update_freq=100
    )
    rival = AgentAlgorithm(agent_from_spec(opponent, game, kwargs, seed=seed), env.action_space)
    seats = [rival, dqn] if learner_seat == 1 else [dqn, rival]
    marl = MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env)
    learner_id = env.agents[learner_seat]

    buffer = VectorReplayBuffer(max(steps, 1000), len(train_envs))
    collector = Collector(marl, train_envs, buffer, exploration_noise=True)
    collector.reset()
    collector.collect(n_step=64 * envs)  # not random=True: that samples the action space, no mask
    result = marl.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=1,
            epoch_num_steps=steps,
            collection_step_num_env_steps=16,
            update_step_num_gradient_steps_per_sample=0.25,
            batch_size=64,
            test_collector=None,
            multi_agent_return_reduction=lambda rews: rews[:, learner_seat],
            verbose=False,
            show_progress=False,
        )
    )

    agent = TianshouAgent(marl.get_algorithm(learner_id).policy)
    rival = agent_from_spec(opponent, game, kwargs, seed=seed + 1)
    match = play_match(agent, rival, game, kwargs, games=arena_games, seed=seed, names=("tianshou-dqn", opponent))
    illegal = sum(w.env.illegal_actions for w in train_envs.workers)
    return {
        "algorithm": marl,
        "agent": agent,
        "gradient_steps": result.update_step,
        "env_steps": result.train_step,
        "illegal_actions": illegal,
        "arena": match,
    }


def main(argv=None):
    from zerogym_agents.interop import run_example  # --game, --opponent, --steps, --seed, --games

    run_example(train, __doc__, argv, "--steps", 20_000, "environment steps (both seats)")


if __name__ == "__main__":
    main()
