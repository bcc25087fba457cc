"""Stable-Baselines3: MaskablePPO (sb3-contrib) learns a zerogym game against a zerogym agent.

zerogym.wrappers.SingleAgentEnv is the Gymnasium view SB3 trains on: the zerogym opponent plays
inside it, and its action_masks() is what MaskablePPO reads while collecting. The mask must be
passed again at prediction (model.predict(..., action_masks=...)), as MaskablePPOAgent does when
the trained policy plays the opponent in the zerogym arena (zerogym_agents.interop.sb3.MaskablePPOAgent).
examples/sb3_selfplay.py trains against
a pool of the learner's own past selves instead.

    python examples/sb3_maskable_ppo.py --game connect_four --opponent greedy --steps 50000
"""


class IllegalCounter:
    """Counts the learner's illegal actions as SingleAgentEnv reports them (info["illegal_action"])."""

    def __init__(self):
        self.count = 0

    def wrap(self, env):
        import gymnasium

        counter = self

        class Counted(gymnasium.Wrapper):
            def step(self, action):
                out = self.env.step(action)
                counter.count += "illegal_action" in out[-1]
                return out

            def action_masks(self):
                return self.env.unwrapped.action_masks()

        return Counted(env)


def train(game="tictactoe", opponent="random", steps=20_000, seed=0, kwargs=None, arena_games=20, n_steps=512):
    """Train, then evaluate; returns a dict: model, agent (the policy as a zerogym agent),
    gradient_steps, env_steps, illegal_actions (counted by the env), arena (a MatchResult)."""
    from sb3_contrib import MaskablePPO

    import zerogym
    from zerogym.wrappers import SingleAgentEnv
    from zerogym_agents.arena import play_match
    from zerogym_agents.interop.sb3 import MaskablePPOAgent
    from zerogym_agents.agents.specs import agent_from_spec

    kwargs = dict(kwargs or {})
    counter = IllegalCounter()
    env = counter.wrap(
        SingleAgentEnv(
            zerogym.make(game, **kwargs), agent_from_spec(opponent, game, kwargs, seed=seed), learner="alternate"
        )
    )
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=64, n_epochs=4, gamma=0.9, seed=seed, verbose=0)
    model.learn(steps)

    agent = MaskablePPOAgent(model)  # the legal mask at prediction time too
    rival = agent_from_spec(opponent, game, kwargs, seed=seed + 1)
    match = play_match(agent, rival, game, kwargs, games=arena_games, seed=seed, names=("sb3-maskable-ppo", opponent))
    return {
        "model": model,
        "agent": agent,
        "gradient_steps": model._n_updates,
        "env_steps": model.num_timesteps,
        "illegal_actions": counter.count,
        "arena": match,
    }


def main(argv=None):
    from zerogym_agents.interop import run_example  # --game, --opponent, --steps, --seed, --games

    run_example(train, __doc__, argv, "--steps", 20_000, "learner moves")


if __name__ == "__main__":
    main()
