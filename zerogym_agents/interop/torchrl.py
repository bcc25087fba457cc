"""zerogym in TorchRL through its Gymnasium integration (torchrl.envs.GymWrapper).

gym_env(game, opponent, **kwargs): a TorchRL env over zerogym_agents.interop.masked_env: the
zerogym opponent plays inside it; each tensordict holds "observation" (the learner's planes, float)
and "action_mask" (bool), which TorchRL's QValueActor and EGreedyModule take as action_mask_key.
TorchRLAgent(policy): a TorchRL policy module (reads "observation" and "action_mask", writes
"action") as a zerogym agent, for the arena.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from zerogym_agents.agents.base import AECEnv, Player
from zerogym_agents.interop import LibraryPolicyAgent, MaskedDictEnv, masked_env, require

REQUIRES = ("torchrl", "TorchRL")


def _torchrl() -> ModuleType:
    return require(*REQUIRES)


def gym_env(
    game: str, opponent: Player | str, learner: str = "alternate", seed: int | None = None, **kwargs: Any
) -> Any:
    """torchrl GymWrapper over masked_env(game, opponent, learner, **kwargs), categorical actions,
    observations as float32 planes. env.base_env._env is the MaskedDictEnv (illegal_actions, moves)."""
    _torchrl()
    from torchrl.envs import GymWrapper
    from torchrl.envs.transforms import DTypeCastTransform, TransformedEnv
    import torch

    inner = masked_env(game, opponent, learner=learner, **kwargs)
    env = GymWrapper(inner, categorical_action_encoding=True)
    if seed is not None:
        env.set_seed(seed)
    return TransformedEnv(env, DTypeCastTransform(torch.int8, torch.float32, in_keys=["observation"]))


def masked_env_of(env: Any) -> MaskedDictEnv:
    """The MaskedDictEnv under a TorchRL env made by gym_env (its illegal_actions and moves counters)."""
    return env.base_env._env


class TorchRLAgent(LibraryPolicyAgent):
    """A TorchRL policy as a zerogym agent: a tensordict with the mover's "observation" (float32 planes)
    and "action_mask" goes in, its "action" (categorical) is played."""

    name, library, requires = "torchrl", "TorchRL", REQUIRES

    def choose(self, planes: npt.NDArray[np.int8], mask: npt.NDArray[np.bool_], env: AECEnv) -> int:
        import torch
        from tensordict import TensorDict
        from torchrl.envs.utils import ExplorationType, set_exploration_type

        td = TensorDict(
            {"observation": torch.as_tensor(np.asarray(planes, np.float32)), "action_mask": torch.as_tensor(mask)},
            batch_size=[],
        )
        with torch.no_grad(), set_exploration_type(ExplorationType.DETERMINISTIC):
            action = self.policy(td)["action"]
        return int(action.reshape(-1)[0]) if action.numel() == 1 else int(action.argmax())
