"""zerogym_agents: agents that play zerogym games (every agent implements act(env) -> int).

The network API (NetConfig, PolicyValueNet, ...) is imported on first use, so that importing
the agents does not load torch.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from typing import Any

from zerogym._install import install_command

# the import names of what the agents extra installs (pyproject.toml): looked up, not imported
AGENTS_EXTRA = ("torch", "stable_baselines3", "sb3_contrib", "tqdm", "tensorboard", "matplotlib")


def _installed(name: str) -> bool:
    if name in sys.modules:
        return sys.modules[name] is not None
    return importlib.util.find_spec(name) is not None


def _check_agents_extra() -> None:
    """An ImportError that says what to install when a package of the agents extra is missing (after
    `pip install zerogym`, the environments only); run as the `zerogym` command, that one line on
    stderr and exit status 1 instead of a traceback."""
    missing = [name for name in AGENTS_EXTRA if not _installed(name)]
    if not missing:
        return
    message = f"zerogym_agents needs the agents extra ({', '.join(missing)} not installed): {install_command('agents')}"
    script = os.path.basename(sys.argv[0] if sys.argv else "")
    if script in ("zerogym", "zerogym.exe", "zerogym-script.py", "zerogym-script.pyw"):
        print(message, file=sys.stderr)
        raise SystemExit(1)
    raise ImportError(message)


_check_agents_extra()

# after the check: with the extra missing, the line above says what to install rather than an ImportError
from zerogym_agents.agents.base import Agent, RandomAgent, game_state
from zerogym_agents.agents.greedy import GreedyAgent
from zerogym_agents.agents.minimax import MinimaxAgent

_LAZY = {
    "NetConfig": "zerogym_agents.nets",
    "PolicyValueNet": "zerogym_agents.nets",
    "for_game": "zerogym_agents.nets",
    "loss": "zerogym_agents.nets",
    "save_net": "zerogym_agents.nets",
    "load_net": "zerogym_agents.nets",
    "NetFileError": "zerogym_agents.nets",
    "make_evaluator": "zerogym_agents.nets",
    "uniform_evaluator": "zerogym_agents.mcts.search",
    "CheckpointError": "zerogym_agents.core.checkpoint",
    "OpponentPool": "zerogym_agents.training.pool",
    "load_agent": "zerogym_agents.agents.saved",
    "save_agent": "zerogym_agents.agents.saved",
    "UCTAgent": "zerogym_agents.agents.search",
    "AlphaZeroAgent": "zerogym_agents.agents.search",
    "GnuGoAgent": "zerogym_agents.agents.gnugo",
    "SolverAgent": "zerogym_agents.agents.solver",
    "PolicyAgent": "zerogym_agents.agents.policy",
}

__all__ = ["Agent", "RandomAgent", "GreedyAgent", "MinimaxAgent", "game_state", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'zerogym_agents' has no attribute {name!r}")
