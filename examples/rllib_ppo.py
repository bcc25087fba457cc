"""RLlib (new API stack): PPO learns a zerogym game through RLlib's Gymnasium integration, against a zerogym agent.

Every EnvRunner builds its env from env_config (the game and a zerogym agent spec for the
opponent, who plays inside the env); RLlib's ActionMaskingTorchRLModule reads the legal-move mask
from the Dict observation and masks the logits when acting, exploring and training. The trained
module then plays the opponent in the zerogym arena.

    python examples/rllib_ppo.py --game tictactoe --opponent random --iterations 20
"""


def train(
    game="tictactoe", opponent="random", iterations=20, seed=0, kwargs=None, arena_games=20, batch=1000, env_runners=0
):
    """Train, then evaluate; returns a dict: algo, agent (the module as a zerogym agent),
    trained_samples (samples the learner trained on, counted once per epoch), env_steps,
    illegal_actions (counted by the envs of the local EnvRunner, so with env_runners=0), arena (a
    MatchResult)."""
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig

    from zerogym_agents.arena import play_match
    from zerogym_agents.interop.rllib import RLlibAgent, masking_module_spec, register
    from zerogym_agents.agents.specs import agent_from_spec

    kwargs = dict(kwargs or {})
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    config = (
        PPOConfig()  # the new API stack is PPOConfig's default
        .environment(register(), env_config={"game": game, "opponent": opponent, "kwargs": kwargs})
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=1)
        .rl_module(rl_module_spec=masking_module_spec())
        .training(train_batch_size_per_learner=batch, minibatch_size=min(batch, 128), num_epochs=4, lr=3e-4, gamma=0.9)
        .debugging(seed=seed)
    )
    algo = config.build_algo()
    for _ in range(iterations):
        result = algo.train()
    env_steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
    trained = int(result["learners"]["default_policy"]["num_module_steps_trained_lifetime"])  # samples, all epochs
    illegal = sum(e.illegal_actions for e in _local_envs(algo)) if env_runners == 0 else None

    agent = RLlibAgent(algo.get_module())
    rival = agent_from_spec(opponent, game, kwargs, seed=seed + 1)
    match = play_match(agent, rival, game, kwargs, games=arena_games, seed=seed, names=("rllib-ppo", opponent))
    return {
        "algo": algo,
        "agent": agent,
        "trained_samples": trained,
        "env_steps": env_steps,
        "illegal_actions": illegal,
        "arena": match,
    }


def _local_envs(algo):
    """The zerogym MaskedDictEnvs of the local EnvRunner's vector env."""
    from zerogym_agents.interop import MaskedDictEnv

    found = []
    for env in algo.env_runner.env.unwrapped.envs:
        while not isinstance(env, MaskedDictEnv):
            env = env.env
        found.append(env)
    return found


def main(argv=None):
    from zerogym_agents.interop import run_example  # --game, --opponent, --iterations, --seed, --games, --batch

    run_example(
        train,
        __doc__,
        argv,
        "--iterations",
        20,
        "training iterations of --batch learner moves",
        batch=(int, 1000, "learner moves per iteration"),
    )


if __name__ == "__main__":
    main()
