"""Policy-gradient baselines against a pool of past selves: REINFORCE (± value baseline) on the
vector path, MaskablePPO through Stable-Baselines3, and PolicyAgent to play the result.

Files: config.py (PGConfig), agent.py (PolicyAgent), opponents.py (pool snapshots as players),
rollout.py (batched games), reinforce.py, ppo.py, base.py (what the trainers share), trainers.py
(make_trainer, train), cli.py (`zerogym train pg`).
Names are imported on first use, so that `import zerogym_agents.pg` loads neither torch nor SB3.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "PGConfig": "zerogym_agents.pg.config",
    "PolicyAgent": "zerogym_agents.agents.policy",
    "select_actions": "zerogym_agents.agents.policy",
    "PoolOpponent": "zerogym_agents.pg.opponents",
    "SnapshotSchedule": "zerogym_agents.pg.opponents",
    "snapshot": "zerogym_agents.pg.opponents",
    "make_selfplay_env": "zerogym_agents.pg.opponents",
    "RecordPoolResults": "zerogym_agents.pg.opponents",
    "play_episodes": "zerogym_agents.pg.rollout",
    "Episodes": "zerogym_agents.pg.rollout",
    "ReinforceTrainer": "zerogym_agents.pg.reinforce",
    "reinforce_loss": "zerogym_agents.pg.reinforce",
    "PPOTrainer": "zerogym_agents.pg.ppo",
    "PolicyValueNetPolicy": "zerogym_agents.pg.ppo",
    "SnapshotCallback": "zerogym_agents.pg.ppo",
    "SB3PolicyAgent": "zerogym_agents.pg.ppo",
    "policy_snapshot": "zerogym_agents.pg.ppo",
    "make_trainer": "zerogym_agents.pg.trainers",
    "train": "zerogym_agents.pg.trainers",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'zerogym_agents.pg' has no attribute {name!r}")
