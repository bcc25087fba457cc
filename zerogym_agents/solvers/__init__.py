"""Exact solvers for particular games, and the agents and yardsticks built on them.

- connect_four.py: ConnectFourSolver, perfect play for standard Connect Four (compiled search in
  _connect_four.pyx).
- perfect_play.py: how often an agent keeps the game-theoretic value over a set of solved positions,
  and where in a game a player gave its result away (decisive_mistake).
"""

from zerogym_agents.solvers.connect_four import ConnectFourSolver

__all__ = ["ConnectFourSolver"]
