"""A trained sb3-contrib MaskablePPO model as a zerogym agent.

Stable-Baselines3 trains on zerogym.wrappers.SingleAgentEnv as it is (its action_masks() is what
MaskablePPO reads while collecting). At prediction the mask has to be passed again:
model.predict(obs, action_masks=...) without it samples from every action, legal or not.
"""
from zerogym_agents.base import Agent
from zerogym_agents.interop import checked_action, mover_view, require


class MaskablePPOAgent(Agent):
    """model.predict on the mover's planes with its legal mask (deterministic: the masked argmax)."""

    name = "maskable-ppo"

    def __init__(self, model, deterministic=True, seed=None):
        super().__init__(seed)
        require("sb3_contrib", "sb3-contrib")
        self.model, self.deterministic = model, bool(deterministic)

    def act(self, env):
        planes, mask = mover_view(env)
        action, _ = self.model.predict(planes, action_masks=mask, deterministic=self.deterministic)
        return checked_action(action, mask, "Stable-Baselines3")
