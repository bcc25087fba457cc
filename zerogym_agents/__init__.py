"""zerogym_agents: agents that play zerogym games (every agent implements act(env) -> int).

The network API (NetConfig, PolicyValueNet, ...) is imported on first use, so that importing
the agents does not load torch.
"""
import importlib

from zerogym_agents.base import Agent, RandomAgent, game_state
from zerogym_agents.greedy import GreedyAgent
from zerogym_agents.minimax import MinimaxAgent

_LAZY = {
    "NetConfig": "zerogym_agents.nets", "PolicyValueNet": "zerogym_agents.nets", "for_game": "zerogym_agents.nets",
    "loss": "zerogym_agents.nets", "save_net": "zerogym_agents.nets", "load_net": "zerogym_agents.nets",
    "NetFileError": "zerogym_agents.nets", "make_evaluator": "zerogym_agents.nets",
    "uniform_evaluator": "zerogym_agents.nets", "CheckpointError": "zerogym_agents.checkpoint",
    "OpponentPool": "zerogym_agents.pool", "load_agent": "zerogym_agents.saved", "save_agent": "zerogym_agents.saved",
    "UCTAgent": "zerogym_agents.search_agents", "AlphaZeroAgent": "zerogym_agents.search_agents",
    "GnuGoAgent": "zerogym_agents.gnugo",
    "PolicyAgent": "zerogym_agents.pg.agent",
}

__all__ = ["Agent", "RandomAgent", "GreedyAgent", "MinimaxAgent", "game_state", *_LAZY]


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'zerogym_agents' has no attribute {name!r}")
