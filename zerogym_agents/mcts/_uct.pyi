"""Types of zerogym_agents/mcts/_uct.pyx (compiled): one UCT tree with random rollouts."""

from typing import SupportsIndex

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from zerogym._core.spec import GameSpec
from zerogym._core.state import State

@disjoint_base
class UCTCore:
    """One UCT search tree over a game; search(state, simulations, c, seed) runs a whole search."""

    def __new__(cls, spec: GameSpec, capacity: SupportsIndex) -> UCTCore: ...
    @property
    def spec(self) -> GameSpec: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def capacity(self) -> int: ...
    @property
    def full_events(self) -> int: ...
    def reserve(self, capacity: SupportsIndex) -> None: ...
    def search(
        self, state: State, simulations: SupportsIndex, c: float, seed: SupportsIndex, visits: npt.NDArray[np.int64]
    ) -> tuple[int, float]: ...
    def tree_size(self) -> int: ...
