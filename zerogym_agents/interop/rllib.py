"""zerogym in RLlib (new API stack: RLModule, Learner, EnvRunner) through its Gymnasium integration.

register(name="zerogym"): registers an env creator with Ray Tune, so that every EnvRunner builds
its own env from env_config {"game", "opponent" (a zerogym agent spec), "learner", "kwargs"}; the
zerogym opponent plays inside the env. The observation is a Dict {"observations": flat float32
planes, "action_mask": float32 legal mask}, the layout of RLlib's ActionMaskingTorchRLModule
(ray.rllib.examples.rl_modules.classes.action_masking_rlm), which masks the logits when acting,
exploring and training; RLlib's default modules ignore a mask.
RLlibAgent(module): a trained RLModule (algo.get_module()) as a zerogym agent, for the arena.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from zerogym_agents.agents.base import AECEnv
from zerogym_agents.interop import LibraryAgent, MaskedDictEnv, masked_env, require

OBS_KEY, MASK_KEY = "observations", "action_mask"
REQUIRES = ("ray.rllib", "RLlib (ray[rllib])")


def _rllib() -> ModuleType:
    return require(*REQUIRES)


def make_env(config: Mapping[str, Any] | None) -> MaskedDictEnv:
    """The env an EnvRunner builds from env_config (a dict, or RLlib's EnvContext)."""
    config = dict(config or {})
    unknown = set(config) - {"game", "opponent", "learner", "kwargs"}
    if unknown or "game" not in config:
        raise ValueError(f"env_config needs 'game' and takes 'opponent', 'learner', 'kwargs'; got {sorted(config)}")
    return masked_env(
        config["game"],
        config.get("opponent", "random"),
        learner=config.get("learner", "alternate"),
        obs_key=OBS_KEY,
        mask_key=MASK_KEY,
        flatten=True,
        mask_dtype=np.float32,
        **dict(config.get("kwargs") or {}),
    )


def register(name: str = "zerogym") -> str:
    """Register make_env with Ray Tune under `name` (config.environment(name, env_config=...))."""
    _rllib()
    from ray.tune.registry import register_env

    register_env(name, make_env)
    return name


def masking_module_spec(hidden: Sequence[int] = (128, 128)) -> Any:
    """An RLModuleSpec of RLlib's ActionMaskingTorchRLModule (PPO) with an MLP of `hidden` units."""
    _rllib()
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": list(hidden), "head_fcnet_hiddens": []}
    )


class RLlibAgent(LibraryAgent):
    """An RLlib RLModule as a zerogym agent: the mover's flat planes and legal mask go in as RLlib's
    masking module reads them; the argmax of the masked logits is played."""

    name, library, requires = "rllib", "RLlib", REQUIRES

    def __init__(self, module: Any, seed: int | None = None) -> None:
        super().__init__(seed)
        self.module = module

    def choose(self, planes: npt.NDArray[np.int8], mask: npt.NDArray[np.bool_], env: AECEnv) -> int:
        import torch
        from ray.rllib.core.columns import Columns

        obs = {
            OBS_KEY: torch.as_tensor(np.asarray(planes, np.float32).reshape(1, -1)),
            MASK_KEY: torch.as_tensor(mask.astype(np.float32)[None]),
        }
        with torch.no_grad():
            logits = self.module.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS]
        return int(logits[0].argmax())
