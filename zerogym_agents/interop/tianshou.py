"""zerogym in Tianshou (2.x) through its PettingZoo integration (tianshou.env.PettingZooEnv).

pettingzoo_env(game, **kwargs): a zerogym AEC env as Tianshou's PettingZooEnv, which gives every
agent {"agent_id", "obs", "mask"}; it counts illegal actions and tags each info with the env's
key, so that AgentAlgorithm can find the position when several envs step in one DummyVectorEnv.
AgentAlgorithm(agent, action_space): a zerogym agent (anything with act(env)) as the opponent's
algorithm in MultiAgentOffPolicyAlgorithm; it never learns.
TianshouAgent(policy): a trained Tianshou policy as a zerogym agent, for the arena.
"""

from __future__ import annotations

import itertools
import weakref
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from zerogym_agents.agents.base import AECEnv, Player
from zerogym_agents.interop import LibraryPolicyAgent, require

ENV_KEY = "zerogym_env"  # the info entry that names the env a row of a batch comes from
_ENVS: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
_KEYS = itertools.count()


REQUIRES = ("tianshou", "Tianshou")


def _tianshou() -> ModuleType:
    return require(*REQUIRES)


def pettingzoo_env(game: str, **kwargs: Any) -> Any:
    """Tianshou's PettingZooEnv over zerogym.make(game, **kwargs) (in-process envs only: put it in a
    DummyVectorEnv when a zerogym agent plays one seat). env.illegal_actions counts illegal actions."""
    _tianshou()
    import zerogym
    from tianshou.env.pettingzoo_env import PettingZooEnv

    class ZerogymPettingZooEnv(PettingZooEnv):
        def __init__(self, aec_env):
            self.key = next(_KEYS)
            self.illegal_actions = 0
            _ENVS[self.key] = self
            super().__init__(aec_env)

        def reset(self, *args, **kwargs):
            obs, info = super().reset(*args, **kwargs)
            return obs, {**info, ENV_KEY: self.key}

        def step(self, action):
            state = self.env.unwrapped.state
            if not state.is_over() and not state.is_legal(int(action)):
                self.illegal_actions += 1
            obs, rewards, term, trunc, info = super().step(action)
            return obs, rewards, term, trunc, {**info, ENV_KEY: self.key}

    return ZerogymPettingZooEnv(zerogym.make(game, **kwargs))


def _env_of(key: Any) -> AECEnv:
    try:
        return _ENVS[int(key)].env
    except KeyError:
        raise LookupError(
            f"no zerogym env with key {key} in this process: AgentAlgorithm plays in envs made "
            "by pettingzoo_env() and stepped in this process (DummyVectorEnv, not "
            "SubprocVectorEnv)"
        ) from None


def AgentAlgorithm(agent: Player, action_space: Any) -> Any:
    """A Tianshou off-policy algorithm whose policy is the zerogym `agent` (act(env) -> action)
    and whose update does nothing: the opponent seat of MultiAgentOffPolicyAlgorithm."""
    _tianshou()
    from tianshou.algorithm.algorithm_base import OffPolicyAlgorithm, Policy, TrainingStats
    from tianshou.data import Batch

    class AgentPolicy(Policy):
        def __init__(self):
            super().__init__(action_space=action_space)
            self.agent = agent

        def forward(self, batch, state=None, **kwargs):
            if ENV_KEY not in batch.info.get_keys():
                raise LookupError(f"the batch has no info[{ENV_KEY!r}]: make the envs with pettingzoo_env()")
            return Batch(act=np.array([self.agent.act(_env_of(k)) for k in batch.info[ENV_KEY]], dtype=np.int64))

    class ZerogymAgentAlgorithm(OffPolicyAlgorithm):
        def __init__(self):
            super().__init__(policy=AgentPolicy())

        def _update_with_batch(self, batch):
            return TrainingStats()

    return ZerogymAgentAlgorithm()


class TianshouAgent(LibraryPolicyAgent):
    """A Tianshou policy (e.g. a DQN's DiscreteQLearningPolicy) as a zerogym agent: it sees the
    mover's planes and legal mask as Tianshou's PettingZooEnv gives them, and plays the policy's
    greedy action (a DQN's masked argmax)."""

    name, library, requires = "tianshou", "Tianshou", REQUIRES

    def choose(self, planes: npt.NDArray[np.int8], mask: npt.NDArray[np.bool_], env: AECEnv) -> Any:
        import torch
        from tianshou.data import Batch

        batch = Batch(
            obs=Batch(obs=planes[None], mask=mask[None], agent_id=np.array([env.agent_selection])), info=Batch()
        )
        self.policy.eval()
        with torch.no_grad():
            act = self.policy(batch).act
        return np.asarray(act)[0]
