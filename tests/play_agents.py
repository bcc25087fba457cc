"""Agents for the environments' tests of games against a person (tests/zerogym: no agents package there)."""

import numpy as np


class RandomAgent:
    """A uniformly random legal mover (the environments' tests use no agents package)."""

    name = "random"

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def act(self, env):
        return int(self.rng.choice(env.unwrapped.state.legal_actions()))


class ScriptAgent:
    """Plays the given actions in order, then passes where it may, else its first legal move."""

    name = "script"

    def __init__(self, actions):
        self.actions = list(actions)

    def act(self, env):
        st = env.unwrapped.state
        if self.actions:
            return self.actions.pop(0)
        return st.num_actions - 1 if st.is_legal(st.num_actions - 1) else int(st.legal_actions()[0])
