"""A trained sb3-contrib MaskablePPO model as a zerogym agent.

Stable-Baselines3 trains on zerogym.wrappers.SingleAgentEnv as it is (its action_masks() is what
MaskablePPO reads while collecting). At prediction the mask has to be passed again:
model.predict(obs, action_masks=...) without it samples from every action, legal or not.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from zerogym_agents.agents.base import AECEnv
from zerogym_agents.interop import LibraryAgent


class MaskablePPOAgent(LibraryAgent):
    """model.predict on the mover's planes with its legal mask (deterministic: the masked argmax)."""

    name, library, requires = "maskable-ppo", "Stable-Baselines3", ("sb3_contrib", "sb3-contrib")

    def __init__(self, model: Any, deterministic: bool = True, seed: int | None = None) -> None:
        super().__init__(seed)
        self.model, self.deterministic = model, bool(deterministic)

    def choose(self, planes: npt.NDArray[np.int8], mask: npt.NDArray[np.bool_], env: AECEnv) -> Any:
        action, _ = self.model.predict(planes, action_masks=mask, deterministic=self.deterministic)
        return action
