"""Types of zerogym_agents/solvers/_minimax.pyx (compiled): exact negamax with a transposition table."""

from typing import SupportsIndex

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from zerogym._core.state import State

@disjoint_base
class Solver:
    """Exact values of positions of one game (fixed GameSpec), memoized across calls."""

    def __init__(
        self, state: State, tt_bits: SupportsIndex = 20, order: npt.ArrayLike | None = None, node_limit: int = 0
    ) -> None: ...
    @property
    def nodes(self) -> int: ...
    node_limit: int
    def clear(self) -> None: ...
    def value(self, st: State) -> int: ...
    def action_values(self, st: State) -> npt.NDArray[np.int8]: ...
