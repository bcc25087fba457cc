"""Compiled tree search: batched PUCT (AlphaZero) and UCT with random rollouts.

BatchedMCTS (search.py) drives the PUCT trees of _puct.pyx with the settings of SearchConfig (config.py);
_uct.pyx is UCTAgent's search.
"""

from zerogym_agents.mcts.config import SearchConfig
from zerogym_agents.mcts.search import BatchedMCTS, uniform_evaluator

__all__ = ["BatchedMCTS", "SearchConfig", "uniform_evaluator"]
