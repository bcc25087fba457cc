"""zerogym_agents: agents that play zerogym games (every agent implements act(env) -> int)."""
from zerogym_agents.base import Agent, RandomAgent, game_state
from zerogym_agents.greedy import GreedyAgent
from zerogym_agents.minimax import MinimaxAgent

__all__ = ["Agent", "RandomAgent", "GreedyAgent", "MinimaxAgent", "game_state"]
