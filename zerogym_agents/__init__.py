"""zerogym_agents: agents that play zerogym games (every agent implements act(env) -> int)."""
from zerogym_agents.base import Agent, RandomAgent, game_state

__all__ = ["Agent", "RandomAgent", "game_state"]
