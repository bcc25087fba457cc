"""Search agents: UCTAgent (classic MCTS with random rollouts) and AlphaZeroAgent (PUCT or Gumbel
search guided by a policy-value evaluator).  Both read the compiled State behind the env (env.unwrapped.state)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from zerogym_agents.agents.base import AECEnv, Agent, game_state
from zerogym_agents.core.checks import integer, real
from zerogym_agents.mcts._uct import UCTCore
from zerogym_agents.mcts.config import SearchConfig
from zerogym_agents.mcts.search import BatchedMCTS, LeafEvaluator

if TYPE_CHECKING:
    import torch

    from zerogym._core.spec import GameSpec
    from zerogym._core.state import State

S = SearchConfig  # the defaults of the search settings
UCT_NODES_LIMIT = 1 << 22  # at most this many nodes per UCT tree (about 100 MB); then leaves stop growing


def _seed_draw(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**63))


def _running_state(env: AECEnv, who: str) -> State:
    st = game_state(env)
    if st.is_over():
        raise ValueError(f"{who}: the game is over, there is no move to choose")
    return st


class UCTAgent(Agent):
    """Classic MCTS: UCB1 with exploration constant c and one uniformly random rollout per
    simulation, compiled (zerogym_agents.mcts._uct).  Plays the most visited root move.

    After act(), .last_visits (A,) and .last_value (mean result for the player to move) describe the search.
    """

    name = "uct"

    def __init__(self, simulations: int = 1000, c: float = 1.4, seed: int | None = None) -> None:
        super().__init__(seed)
        self.simulations = integer("simulations", simulations, 1)
        self.c = real("c", c, 0.0)
        self.name = f"uct{self.simulations}"
        self._core: UCTCore | None = None
        self.last_visits: npt.NDArray[np.int64] | None = None
        self.last_value: float | None = None

    def _core_for(self, st: State) -> UCTCore:
        spec = st.spec
        if self._core is None or (
            self._core.spec is not spec and (self._core.spec.name, self._core.spec.kwargs) != (spec.name, spec.kwargs)
        ):
            self._core = UCTCore(spec, 1)
            self._visits = np.zeros(spec.num_actions, np.int64)
        self._core.reserve(min(UCT_NODES_LIMIT, self.simulations * spec.num_actions + 1))
        return self._core

    def search(self, state: State) -> tuple[int, npt.NDArray[np.int64], float]:
        """(action, root child visit counts (A,), value for the player to move) for a State."""
        if state.is_over():
            raise ValueError("UCTAgent: the game is over, there is no move to choose")
        core = self._core_for(state)
        action, value = core.search(state, self.simulations, self.c, _seed_draw(self.rng), self._visits)
        self.last_visits, self.last_value = self._visits.copy(), value
        return int(action), self.last_visits, value

    def act(self, env: AECEnv) -> int:
        return self.search(_running_state(env, "UCTAgent"))[0]


def _as_evaluator(evaluator_or_net: torch.nn.Module | LeafEvaluator, symmetries: Any) -> LeafEvaluator:
    """A callable (planes, masks) -> (priors, values): evaluators as they are, torch nets through
    zerogym_agents.nets.evaluate.make_evaluator."""
    torch = sys.modules.get("torch")  # a torch net implies torch is loaded: do not import it here
    is_net = torch is not None and isinstance(evaluator_or_net, torch.nn.Module)
    if is_net:
        from zerogym_agents.nets.evaluate import make_evaluator

        return (
            make_evaluator(evaluator_or_net, symmetries=symmetries)
            if symmetries is not None
            else make_evaluator(evaluator_or_net)
        )
    if not callable(evaluator_or_net):
        raise ValueError(
            "AlphaZeroAgent needs a policy-value net (torch.nn.Module) or an evaluator callable "
            f"(planes, masks) -> (priors, values), got {evaluator_or_net!r}"
        )
    if symmetries is not None:
        raise ValueError("symmetries is for nets; an evaluator callable averages over symmetries itself")
    return evaluator_or_net


def _same_game(a: GameSpec, b: GameSpec) -> bool:
    """Whether two GameSpecs are the same game with the same kwargs."""
    return a is b or (a.name, a.kwargs) == (b.name, b.kwargs)


class AlphaZeroAgent(Agent):
    """PUCT or Gumbel search (BatchedMCTS with one tree) guided by a policy-value evaluator.

    evaluator_or_net: a callable (planes (B, C, H, W) float32, masks (B, A) int8) -> (priors (B, A),
    values (B,)), or a torch net (wrapped by zerogym_agents.nets.evaluate.make_evaluator, optionally
    averaging over `symmetries`).  temperature: 0 plays the most visited move, > 0 samples
    N ** (1 / temperature).  dirichlet: add root noise (dirichlet_alpha, dirichlet_epsilon).  leaves_per_tree:
    leaves evaluated per evaluator call (virtual loss).  reuse_tree: keep the subtree of the moves
    played since the last act() when the new position follows from them.
    search: "puct" or "gumbel" (Danihelka et al. 2022: sequential halving over the top gumbel_m
    moves, sigma(q) = (c_visit + max N) * c_scale * q); with gumbel, temperature scales the root's
    Gumbel noise (0: the best move of the search, deterministic; 1: a sample of the improved policy)
    and dirichlet is refused.
    decisive_moves: a position where the player to move can win at once is scored as won without the
    net, so a move that lets the opponent win at once is seen at its first visit (BatchedMCTS).
    solver: MCTS-Solver (BatchedMCTS): proven wins, draws and losses are carried up the tree, a proven
    win is played and a proven loss avoided while another move is left.
    resign_below: resign (set .resigned, which the arena and GTP read) once the root value, the
    expected result for the agent from -1 to 1, has been below it for resign_moves of its moves in a
    row in the same game; None (the default) never resigns. AlphaGo Zero (Silver et al., "Mastering
    the game of Go without human knowledge", 2017) resigned below a threshold chosen to keep false
    resignations under 5%; -0.9 is a cautious start.
    The search settings (SearchConfig's names, defaults and bounds) are in .settings; .simulations is the
    budget of each move's search. After act(), .last_policy (A,) holds the visit distribution (with
    gumbel, the improved policy) and .last_value the root value.
    """

    name = "alphazero"

    def __init__(
        self,
        evaluator_or_net: torch.nn.Module | LeafEvaluator,
        simulations: int = 200,
        c_puct: float = S.c_puct,
        temperature: float = 0.0,
        dirichlet: bool = False,
        dirichlet_alpha: float = S.dirichlet_alpha,
        dirichlet_epsilon: float = S.dirichlet_epsilon,
        fpu_reduction: float = S.fpu_reduction,
        virtual_loss: float = S.virtual_loss,
        leaves_per_tree: int = 8,
        reuse_tree: bool = True,
        symmetries: Any = None,
        seed: int | None = None,
        search: str = S.search,
        gumbel_m: int = S.gumbel_m,
        c_visit: float = S.c_visit,
        c_scale: float = S.c_scale,
        resign_below: float | None = None,
        resign_moves: int = 2,
        decisive_moves: bool = S.decisive_moves,
        solver: bool = S.solver,
        forced_playouts: float = S.forced_playouts,
        threads: int | None = S.threads,
        pipeline: int = S.pipeline,
    ) -> None:
        super().__init__(seed)
        # one tree: 8 leaves per evaluator call by default (self-play's many trees batch with 1 each)
        self.settings = SearchConfig(
            search=search,
            c_puct=c_puct,
            dirichlet_alpha=dirichlet_alpha,
            dirichlet_epsilon=dirichlet_epsilon,
            fpu_reduction=fpu_reduction,
            virtual_loss=virtual_loss,
            leaves_per_tree=leaves_per_tree,
            gumbel_m=gumbel_m,
            c_visit=c_visit,
            c_scale=c_scale,
            decisive_moves=decisive_moves,
            solver=solver,
            forced_playouts=forced_playouts,
            threads=threads,
            pipeline=pipeline,
        )
        if not isinstance(dirichlet, (bool, np.bool_)):
            raise ValueError(f"dirichlet must be True or False, got {dirichlet!r}")
        if dirichlet and search == "gumbel":
            raise ValueError(
                "dirichlet noise is for search='puct'; the Gumbel search explores by its Gumbel noise (temperature > 0)"
            )
        if not dirichlet:
            self.settings.dirichlet_epsilon = 0.0
        self.evaluator = _as_evaluator(evaluator_or_net, symmetries)
        self.simulations = integer("simulations", simulations, 1)
        self.temperature = real("temperature", temperature, 0.0)
        if not isinstance(reuse_tree, (bool, np.bool_)):
            raise ValueError(f"reuse_tree must be True or False, got {reuse_tree!r}")
        self.reuse_tree = bool(reuse_tree)
        self.resign_below = None if resign_below is None else real("resign_below", resign_below, -1.0, 1.0)
        self.resign_moves = integer("resign_moves", resign_moves, 1)
        self.resigned = False
        self._low_moves = 0  # own moves in a row with the root value below resign_below
        self._mcts: BatchedMCTS | None = None
        self._last_root: State | None = None
        self.last_policy: npt.NDArray[np.float32] | None = None
        self.last_value: float | None = None

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        if self._mcts is not None:  # the stream a new search would get: a game replays alone
            self._mcts.seed([_seed_draw(self.rng)])

    def reset(self) -> None:
        self._last_root = None
        self.resigned = False
        self._low_moves = 0

    def _tree_for(self, st: State, path: list[int] | None) -> BatchedMCTS:
        # the search tree at st: the last one moved down `path` (see _path_from_last) or a fresh root
        m = self._mcts
        if m is None or not _same_game(m.spec, st.spec):
            self._check_game(st)
            self._mcts = m = BatchedMCTS(
                st, num_games=1, simulations=self.simulations, config=self.settings, seed=[_seed_draw(self.rng)]
            )
            path = None
        if self.reuse_tree and path is not None:
            for a in path:
                m.advance([a])
            return m
        m.set_root(0, st)
        return m

    def _check_game(self, st: State) -> None:
        # a net knows the game it was made for: say so, rather than fail on the planes' shape
        config = getattr(getattr(self.evaluator, "net", None), "config", None)
        if config is not None and hasattr(config, "check_game"):
            try:
                config.check_game(st.spec)
            except ValueError as err:
                raise ValueError(
                    f"AlphaZeroAgent: this agent cannot play {st.spec.name} {dict(st.spec.kwargs)}: {err}"
                ) from None

    def _path_from_last(self, st: State) -> list[int] | None:
        # the actions from the last searched root to st: our move, then maybe the opponent's; None
        # when st does not follow from it (or there is none)
        root = self._last_root
        if root is None or not _same_game(root.spec, st.spec):
            return None
        mine = self._last_action
        after = root.copy().step(mine)
        if after == st:
            return [mine]
        if not after.is_over() and st.last_action >= 0 and after.is_legal(st.last_action):
            if after.copy().step(st.last_action) == st:
                return [mine, st.last_action]
        return None

    def search(self, state: State) -> tuple[int, npt.NDArray[np.float32], float]:
        """(action, visit distribution (A,), root value for the player to move) for a State."""
        if state.is_over():
            raise ValueError("AlphaZeroAgent: the game is over, there is no move to choose")
        path = self._path_from_last(state)
        if path is None:
            self._low_moves = 0  # not the game of the last move: count afresh
        m = self._tree_for(state, path)
        gumbel = m.search == "gumbel"
        if gumbel:
            m.gumbel_scale = self.temperature
        policy, value = m.run(self.evaluator)
        action = int(m.select_actions(0.0 if gumbel else self.temperature)[0])
        self._last_root, self._last_action = state.copy(), action
        self.last_policy, self.last_value = policy[0], float(value[0])
        if self.resign_below is not None:
            self._low_moves = self._low_moves + 1 if self.last_value < self.resign_below else 0
        self.resigned = self._low_moves >= self.resign_moves
        return action, self.last_policy, self.last_value

    def act(self, env: AECEnv) -> int:
        return self.search(_running_state(env, "AlphaZeroAgent"))[0]
