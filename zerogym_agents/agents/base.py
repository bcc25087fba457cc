"""The agent interface: anything with act(env) -> int plays any zerogym AEC env."""
import numpy as np


def game_state(env):
    """The compiled State behind a zerogym AEC env (wrapped or not)."""
    return env.unwrapped.state


class Agent:
    """Base class of zerogym agents.

    act(env) returns the action for the agent to move in `env` (a zerogym AEC env); search
    agents read game_state(env), network-only agents may read env.observe(agent).  seed(s)
    reseeds the agent's own random generator; reset() is called at the start of a game.
    """

    name = "agent"

    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def seed(self, seed):
        self.rng = np.random.default_rng(seed)

    def reset(self):
        pass

    def act(self, env):
        raise NotImplementedError

    def __call__(self, env):
        return self.act(env)

    def __repr__(self):
        return self.name


class RandomAgent(Agent):
    """Uniformly random legal moves."""

    name = "random"

    def act(self, env):
        legal = game_state(env).legal_actions()
        return int(legal[self.rng.integers(len(legal))])
