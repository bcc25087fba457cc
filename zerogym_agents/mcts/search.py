"""BatchedMCTS: AlphaZero's PUCT search (or Gumbel search) over G games at once, one evaluator call
per batch of leaves.

    mcts = BatchedMCTS("go", num_games=64, simulations=200, seed=0, board_size=9)
    mcts.set_roots(states)                      # G zerogym States
    policies, values = mcts.run(evaluator)      # (G, A) visit distributions, (G,) root values
    actions = mcts.select_actions(temperature=1.0)
    mcts.advance(actions)                       # tree reuse: the chosen children become the roots

An evaluator is any callable ``evaluator(planes, masks) -> (priors, values)`` with planes float32
(L, C, H, W) from the view of each leaf's player to move, masks int8 (L, A), priors (L, A) (any
non-negative weights; they are renormalised over the legal actions, so uniform_evaluator may return
the mask itself) and values (L,) in [-1, 1] from the view of the player to move at the leaf.  It is
called once per batch with up to num_games * leaves_per_tree leaves.  Averaging over board
symmetries, if wanted, is the evaluator's job (zerogym_agents.nets.evaluate.make_evaluator).

Search (Silver et al. 2018, "A general reinforcement learning algorithm that masters chess, shogi
and Go through self-play"): at a node choose the child maximising
    Q + c_puct * P * sqrt(N_parent) / (1 + N),
with Q = parent's Q - fpu_reduction for children without visits (first-play urgency), Dirichlet
noise P = (1 - epsilon) P + epsilon Dir(alpha) on the root priors, and virtual loss so that
leaves_per_tree leaves per tree go into one batch (each descent in flight counts as virtual_loss
lost visits on its path).  Finished positions are scored by the game result, without the evaluator.

search="gumbel" (Danihelka, Guez, Schrittwieser and Silver, "Policy improvement by planning with
Gumbel", ICLR 2022): the root draws Gumbel noise g, keeps the top min(gumbel_m, legal moves) of
g + log P and shares out exactly `simulations` simulations among them by sequential halving, ranking
by g + log P + sigma(q) with sigma(q) = (c_visit + max N) * c_scale * q, q the completed Q-value in
[0, 1]; below the root it picks argmax pi'(a) - N(a) / (1 + sum N).  run() then returns the improved
policy pi' = softmax(log P + sigma(q)) and select_actions() the surviving best of g + log P + sigma(q).
The root's own evaluation is not counted in the simulations; there is no Dirichlet noise
(gumbel_scale scales g instead: 0 makes the search deterministic).

forced_playouts=k > 0 (Wu, "Accelerating Self-Play Learning in Go", 2019; PUCT only): at the root a
child with visits but fewer than sqrt(k * P * sum N) is searched first, and pruned_policy() gives
the visit distribution with those forced visits taken back out.

decisive_moves=True (Teytaud and Teytaud, "On the huge benefit of decisive moves in Monte-Carlo Tree
Search algorithms", IEEE CIG 2010): a position below the root where the player to move can win at
once is scored as that player's win without the evaluator, and the root puts all its prior on its
winning moves; a move that lets the opponent win at once is refuted by its first visit.  It costs
one trial of every legal move per new leaf: worth it in games won by a single move (Connect Four,
Gomoku, Hex), not in Go, which ends by passing.

solver=True (Winands, Bjornsson and Saito, "Monte-Carlo Tree Search Solver", Computers and Games
2008): finished positions and decisive leaves are proven wins, draws or losses, and a node is proven
as soon as one child is its player's win or all its children are proven (the best of them).  A
descent that reaches a proven node below the root backs up its exact value; selection skips
children proven lost, select_actions() plays a proven win and never a proven loss while another
move is left, and the root value of a proven root is exact (root_proof()).  The policy that run()
returns is still the visit distribution.  It costs nothing per simulation; it pays near the end of
games with short decisive lines (Connect Four, Gomoku, Hex, Breakthrough).
"""

from __future__ import annotations

import concurrent.futures
import numbers
import operator
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, SupportsIndex, Union, cast

import numpy as np
import numpy.typing as npt

from zerogym._core.state import State, same_game
from zerogym.errors import ActionTypeError, IllegalMoveError
from zerogym.registry import make_state
from zerogym_agents.core.checks import integer, real
from zerogym_agents.core.constants import INT32_MAX
from zerogym_agents.core.devices import usable_cores
from zerogym_agents.mcts._puct import PUCTCore
from zerogym_agents.mcts.config import SEARCH_SETTINGS, SearchConfig

if TYPE_CHECKING:
    from zerogym._core.spec import GameSpec

DEFAULT_NODES_LIMIT = 1 << 20  # default tree capacity is at most this many nodes per tree
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
REASON_RANGE = 1  # GameSpec.reason code: action out of range
# the SearchConfig settings that may change between runs (the others are fixed when the trees are made)
TUNABLE = (
    "c_puct",
    "fpu_reduction",
    "virtual_loss",
    "dirichlet_alpha",
    "dirichlet_epsilon",
    "gumbel_m",
    "c_visit",
    "c_scale",
    "forced_playouts",
)
# evaluator(planes (L, C, H, W) float32, masks (L, A) int8) -> (priors (L, A), values (L,)): arrays or tensors
LeafEvaluator = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], tuple[Any, Any]]
# a search's seed: None (fresh entropy), an int, or one int per tree (tree_seeds)
SeedLike = Union[SupportsIndex, Iterable[SupportsIndex], None]


def _tunable(name: str) -> property:
    """A property that reads setting `name` from the compiled core and writes it checked by SearchConfig."""
    return property(
        lambda self: getattr(self._core, name),
        lambda self, v: setattr(self._core, name, SearchConfig.check_field(name, v)),
        doc=SearchConfig.__dataclass_fields__[name].metadata["doc"],
    )


def uniform_evaluator(
    planes: npt.ArrayLike, masks: npt.ArrayLike
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The evaluator of a search without a net: priors uniform over the legal actions (the mask itself:
    the search renormalises priors over the legal actions), value 0. Tests, the search benchmarks (the
    search alone) and a baseline of a net's worth use it."""
    m = np.asarray(masks)
    return m.astype(np.float32), np.zeros(len(m), np.float32)


def game_spec(game: str | GameSpec | State, kwargs: Mapping[str, Any]) -> tuple[GameSpec, State]:
    """(GameSpec, template State) from a game name, a GameSpec or a State."""
    from zerogym._core.spec import GameSpec
    from zerogym._core.state import State

    if isinstance(game, State):
        if kwargs:
            raise ValueError("game kwargs go with a game name, not with a State")
        return game.spec, game.copy().reset()
    if isinstance(game, GameSpec):
        if kwargs:
            raise ValueError("game kwargs go with a game name, not with a GameSpec")
        return game, make_state(game.name, **game.kwargs)
    if isinstance(game, str):
        st = make_state(game, **kwargs)
        return st.spec, st
    raise ValueError(f"game must be a game name (e.g. 'go'), a GameSpec or a State, got {game!r}")


def tree_seeds(seed: SeedLike, n: int) -> list[int]:
    """n 64-bit seeds, one per tree: an int seed gives tree i a stream derived from (seed, i); a
    sequence of n ints gives tree i exactly seeds[i] (so tree i searches as a one-tree search with
    seed=[seeds[i]] does); None draws fresh entropy."""
    if seed is None:
        return [int(x) for x in np.random.SeedSequence().generate_state(n, np.uint64)]
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        return [int(x) for x in np.random.SeedSequence(int(seed) & ((1 << 128) - 1)).generate_state(n, np.uint64)]
    try:
        seeds = [operator.index(s) for s in cast("Iterable[SupportsIndex]", seed)]
    except TypeError:
        raise ValueError(f"seed must be None, an int or a sequence of {n} ints, got {seed!r}") from None
    if len(seeds) != n:
        raise ValueError(f"seed sequence must have one int per game ({n}), got {len(seeds)}")
    return [s & ((1 << 64) - 1) for s in seeds]


class BatchedMCTS:
    """PUCT search over num_games trees of one game (see the module docstring).

    game: a game name with its kwargs (``BatchedMCTS("go", board_size=9)``), a GameSpec or a State.
    simulations: new simulations per tree in each run() (a reused subtree keeps its earlier visits).
    The search settings are SearchConfig's (zerogym_agents.mcts.config: names, defaults, bounds), given
    as a `config` (a SearchConfig, or an AlphaZeroConfig, which has its fields) and/or as keywords over
    it; every other keyword is a game kwarg.  c_puct, fpu_reduction, virtual_loss: the selection
    constants above.  dirichlet_alpha, dirichlet_epsilon: root noise (dirichlet_epsilon=0 turns it
    off).  leaves_per_tree: descents per tree per batch.
    capacity: nodes per tree (default: enough for one search, at most 2**20); when a tree is full,
    new leaves are evaluated and backed up but not expanded (counted in .full_events).
    seed: None, an int, or one int per tree (see tree_seeds); it drives the noise and move choice.
    no_pass_before: before this many moves of a game, the search gives a pass no child (so never
    plays it) wherever another move is legal (0: passes are searched like any move). Self-play uses it
    against early Go training collapsing into passing (AlphaZeroConfig.no_pass_fraction).
    search: "puct" or "gumbel" (see the module docstring), with gumbel_m (most root candidates),
    c_visit, c_scale (the scale of sigma) and gumbel_scale (of the root's Gumbel noise; 0: none).
    forced_playouts: KataGo's k for forced playouts at the root (0: off; PUCT only).
    decisive_moves: score wins in one move exactly (see the module docstring).
    solver: MCTS-Solver proofs of wins, draws and losses (see the module docstring).
    threads: the compiled search works on the trees with this many threads (None: every core the process
    may use); every result is the same for any value, since each tree has its own random stream and
    the leaves reach the evaluator in tree order.
    pipeline: split the trees into this many groups and call the evaluator for one group on a
    worker thread while the search advances the others (1: one batch of every tree at a time); the
    evaluator then runs outside the calling thread, and must release the GIL (a torch net does) to
    overlap with the search.
    """

    def __init__(
        self,
        game: str | GameSpec | State,
        num_games: int = 1,
        simulations: int = 800,
        config: SearchConfig | None = None,
        *,
        capacity: int | None = None,
        seed: SeedLike = None,
        no_pass_before: int = 0,
        gumbel_scale: float = 1.0,
        **kwargs: Any,
    ) -> None:
        given = {k: kwargs.pop(k) for k in list(kwargs) if k in SEARCH_SETTINGS}
        base = {} if config is None else config.search_settings().to_dict()
        settings = SearchConfig(**{**base, **given})
        self.spec, self._template = game_spec(game, kwargs)
        self.num_games = integer("num_games", num_games, 1, INT32_MAX)
        self.simulations = integer("simulations", simulations, 1, INT32_MAX)
        self.num_actions = self.spec.num_actions
        if capacity is None:
            capacity = min(DEFAULT_NODES_LIMIT, (self.simulations + 1) * self.num_actions + 1)
        capacity = integer("capacity", capacity, self.num_actions + 1, INT32_MAX)
        self._threads = settings.threads
        self._pipeline = settings.pipeline
        edges = np.linspace(0, self.num_games, min(settings.pipeline, self.num_games) + 1).round().astype(int)
        self._groups = list(zip(edges[:-1].tolist(), edges[1:].tolist()))
        self._worker: concurrent.futures.ThreadPoolExecutor | None = None
        self._core = PUCTCore(
            self.spec,
            self.num_games,
            settings.leaves_per_tree,
            capacity,
            usable_cores() if settings.threads is None else settings.threads,
        )
        self._core.gumbel = settings.search == "gumbel"
        self._core.decisive = settings.decisive_moves
        self._core.solver = settings.solver
        for name in TUNABLE:
            setattr(self, name, getattr(settings, name))
        self._core.pass_action = self.spec.pass_action
        self.no_pass_before = no_pass_before
        self.gumbel_scale = gumbel_scale
        self.seed(seed)
        G, A = self.num_games, self.num_actions
        self._counts = np.zeros((G, A), np.int32)
        self._policy = np.zeros((G, A), np.float32)
        self._value = np.zeros(G, np.float32)
        self._priors = np.zeros((G, A), np.float32)
        self.evaluator_calls = 0

    # ---- parameters (checked as SearchConfig checks them; the compiled core reads them on every simulation) --
    c_puct = _tunable("c_puct")
    fpu_reduction = _tunable("fpu_reduction")
    virtual_loss = _tunable("virtual_loss")
    dirichlet_alpha = _tunable("dirichlet_alpha")
    dirichlet_epsilon = _tunable("dirichlet_epsilon")
    gumbel_m = _tunable("gumbel_m")
    c_visit = _tunable("c_visit")
    c_scale = _tunable("c_scale")
    forced_playouts = _tunable("forced_playouts")
    no_pass_before = property(
        lambda self: self._core.no_pass_before,
        lambda self, v: setattr(self._core, "no_pass_before", integer("no_pass_before", v, 0, INT32_MAX)),
    )
    gumbel_scale = property(
        lambda self: self._core.gumbel_scale,
        lambda self, v: setattr(self._core, "gumbel_scale", real("gumbel_scale", v, 0.0)),
    )
    search = property(lambda self: "gumbel" if self._core.gumbel else "puct", doc="'puct' or 'gumbel' (fixed)")
    decisive_moves = property(
        lambda self: self._core.decisive, doc="whether wins in one move are scored exactly (fixed)"
    )
    solver = property(lambda self: self._core.solver, doc="whether proven wins, draws and losses are used (fixed)")
    leaves_per_tree = property(lambda self: self._core.leaves_per_tree, doc="descents per tree per batch (fixed)")
    threads = property(lambda self: self._threads, doc="the threads setting (fixed; None: every usable core)")
    pipeline = property(lambda self: self._pipeline, doc="groups of trees pipelined with the evaluator (fixed)")
    threads_used = property(
        lambda self: self._core.threads, doc="threads the compiled search runs on: the setting, at most one per tree"
    )

    @property
    def settings(self) -> SearchConfig:
        """The search's settings now, as a SearchConfig."""
        return SearchConfig(**{name: getattr(self, name) for name in SEARCH_SETTINGS})

    capacity = property(lambda self: self._core.capacity)
    full_events = property(lambda self: self._core.full_events)

    def seed(self, seed: SeedLike) -> None:
        """Reseed every tree's random stream (see tree_seeds)."""
        for i, s in enumerate(tree_seeds(seed, self.num_games)):
            self._core.seed_tree(i, s)

    # ---- roots ---------------------------------------------------------------------------
    def set_roots(self, states: Iterable[State]) -> None:
        """Start a fresh tree at each of the num_games States (copied)."""
        states = list(states)
        if len(states) != self.num_games:
            raise ValueError(f"set_roots needs {self.num_games} states, got {len(states)}")
        for i, st in enumerate(states):
            self.set_root(i, st)

    def set_root(self, i: int | np.integer, state: State) -> None:
        """Start a fresh tree for game i at `state` (copied)."""
        i = integer("game index", i, 0, self.num_games - 1)
        if not isinstance(state, State) or state.spec is None or not same_game(state.spec, self.spec):
            raise ValueError(f"state {i} must be a State of {self.spec!r}, got {state!r}")
        self._core.set_root(i, state)

    def root_state(self, i: int) -> State:
        """A copy of tree i's root position."""
        st = self._template.copy()
        self._core.get_root(integer("game index", i, 0, self.num_games - 1), st)
        return st

    # ---- search --------------------------------------------------------------------------
    def collect(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """Gather the next batch of leaves: (planes (L, C, H, W), masks (L, A)), views valid until
        backup().  L may be 0 when every descent ended on a finished position."""
        n = self._core.collect()
        return self._core.planes[:n], self._core.masks[:n]

    def backup(self, priors: npt.ArrayLike, values: npt.ArrayLike) -> None:
        """Expand the leaves of the last collect() with the evaluator's priors and back up its values."""
        self._backup(priors, values, 0, self.num_games, self._core.pending_leaves)

    def _backup(self, priors: npt.ArrayLike, values: npt.ArrayLike, lo: int, hi: int, n: int) -> None:
        # the n leaves of trees lo..hi-1
        priors = _as_f32(priors, "priors")
        values = _as_f32(values, "values")
        if values.ndim == 2 and values.shape[1] == 1:
            values = values[:, 0]
        if priors.shape != (n, self.num_actions) or values.shape != (n,):
            raise ValueError(
                f"the evaluator must return priors of shape ({n}, {self.num_actions}) and values "
                f"of shape ({n},), got {priors.shape} and {values.shape}"
            )
        bad = self._core.backup(np.ascontiguousarray(priors), np.ascontiguousarray(values), lo, hi)
        if bad >= 0:
            raise ValueError(
                f"the evaluator returned a non-finite value or a negative / non-finite prior on a "
                f"legal action for leaf {bad} (value {values[bad]!r}); priors must be "
                "probabilities or non-negative weights, not logits"
            )

    def run(
        self,
        evaluator: LeafEvaluator,
        copy: bool = True,
        simulations: int | npt.ArrayLike | None = None,
        explore: npt.ArrayLike | None = None,
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Run `simulations` new simulations in every tree whose root game is not over.

        Returns (policies (G, A) float32: root visit counts / their sum, with search="gumbel" the
        improved policy; values (G,) float32: the root value from the view of the player to move
        there; finished roots give zeros and their result).  With copy=False these are buffers that
        the next call overwrites (no allocation).  The planes and masks handed to the evaluator are
        views of internal buffers, valid during the call.
        simulations: None (self.simulations), an int, or one int per tree (KataGo's playout cap
        randomization gives some trees a cheap search).  explore: None, or one bool per tree; False
        searches that tree without Dirichlet noise and forced playouts (KataGo's cheap searches).
        """
        if not callable(evaluator):
            raise ValueError(f"evaluator must be a callable (planes, masks) -> (priors, values), got {evaluator!r}")
        core = self._core
        core.begin(*self._budget(simulations, explore))
        if len(self._groups) > 1:
            self._run_pipelined(evaluator)
        else:
            while not core.finished():
                planes, masks = self.collect()
                if len(masks):
                    try:
                        self._answer(evaluator(planes, masks), 0, self.num_games, len(masks))
                    except BaseException:
                        core.abort()  # the trees stay usable: the failed leaves are dropped
                        raise
        self._stats()
        if not copy:
            return self._policy, self._value
        return self._policy.copy(), self._value.copy()

    def _answer(self, out: Any, lo: int, hi: int, n: int) -> None:
        # back up the evaluator's answer `out` for the n leaves of trees lo..hi-1
        try:
            priors, values = out
        except (TypeError, ValueError):
            raise ValueError("the evaluator must return a pair (priors, values)") from None
        self.evaluator_calls += 1
        self._backup(priors, values, lo, hi, n)

    def _run_pipelined(self, evaluator: LeafEvaluator) -> None:
        # each group in turn: take its evaluation (waiting for it), then collect its next leaves and
        # hand them to the worker thread, which evaluates them while the search serves the next group
        core, k = self._core, self._core.leaves_per_tree
        if self._worker is None:
            self._worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="zerogym-evaluator")
        waiting: dict[int, tuple[concurrent.futures.Future[Any], int]] = {}
        try:
            while True:
                for g, (lo, hi) in enumerate(self._groups):
                    if g in waiting:
                        future, n = waiting.pop(g)
                        self._answer(future.result(), lo, hi, n)
                    if not core.finished(lo, hi):
                        n = core.collect(lo, hi)
                        if n:
                            rows = slice(lo * k, lo * k + n)
                            waiting[g] = self._worker.submit(evaluator, core.planes[rows], core.masks[rows]), n
                if not waiting and core.finished():
                    return
        except BaseException:
            for future, _ in waiting.values():  # let the worker finish with the buffers, then drop
                concurrent.futures.wait([future])
            core.abort()
            raise

    def _budget(
        self, simulations: int | npt.ArrayLike | None, explore: npt.ArrayLike | None
    ) -> tuple[int | npt.NDArray[np.int32], npt.NDArray[np.uint8] | None]:
        G = self.num_games
        sims: int | npt.NDArray[np.int32]
        if simulations is None:
            sims = self.simulations
        elif isinstance(simulations, numbers.Integral) and not isinstance(simulations, bool):
            sims = integer("simulations", simulations, 1, INT32_MAX)
        else:
            arr = np.asarray(simulations)
            if arr.shape != (G,) or arr.dtype.kind not in "iu":
                raise ValueError(f"simulations must be an int or {G} ints (one per tree), got {simulations!r}")
            if arr.min() < 1 or arr.max() > INT32_MAX:
                raise ValueError(f"simulations must be in 1..{INT32_MAX}, got {simulations!r}")
            sims = arr.astype(np.int32)
        if explore is not None:
            flags = np.asarray(explore)
            if flags.shape != (G,) or flags.dtype != np.bool_:
                raise ValueError(f"explore must be None or {G} bools (one per tree), got {explore!r}")
            return sims, flags.astype(np.uint8)
        return sims, None

    def pruned_policy(self) -> npt.NDArray[np.float32]:
        """(G, A) float32: the root visit distributions of the last run with the forced playouts
        taken out (KataGo's policy target pruning; see PUCTCore.pruned_policy).  Without
        forced_playouts, or for trees run with explore False, the plain visit distribution."""
        out = np.zeros((self.num_games, self.num_actions), np.float32)
        self._core.pruned_policy(out)
        return out

    def _stats(self):
        self._core.root_stats(self._counts, self._policy, self._value, self._priors)

    def visit_counts(self) -> npt.NDArray[np.int32]:
        """(G, A) int32: visits of each root child."""
        self._stats()
        return self._counts.copy()

    def root_values(self) -> npt.NDArray[np.float32]:
        self._stats()
        return self._value.copy()

    def root_priors(self) -> npt.NDArray[np.float32]:
        """(G, A) float32: the priors of the root children as searched (after Dirichlet noise)."""
        self._stats()
        return self._priors.copy()

    def node_stats(self, i: int, path: Iterable[int] = ()) -> tuple[int, float, int, npt.NDArray[np.int32]] | None:
        """(visits, value sum from the mover's view, mover, child visit counts (A,)) of the node reached
        by `path` (actions from tree i's root, each an int in 0..num_actions-1), or None if it is not
        in the tree."""
        return self._core.node_stats(integer("game index", i, 0, self.num_games - 1), list(path))

    def root_proof(self, i: int) -> int | None:
        """Tree i's root value proven by the solver for its player to move (1 win, 0 draw, -1 loss),
        or None when it is not proven (always None with solver=False)."""
        return self._core.root_proof(integer("game index", i, 0, self.num_games - 1))

    def tree_size(self, i: int) -> int:
        return self._core.tree_size(integer("game index", i, 0, self.num_games - 1))

    # ---- moves ---------------------------------------------------------------------------
    def select_actions(self, temperature: float = 0.0) -> npt.NDArray[np.int64]:
        """A move per tree from its root visit counts: temperature 0 takes the most visited (ties at
        random), otherwise samples with probability proportional to N ** (1 / temperature).  -1 for
        a game that is over.  With search="gumbel" the search's own choice (the best of
        g + log P + sigma(q) among the most visited candidates); the temperature must then be 0 (set
        gumbel_scale before run() for more or less random moves)."""
        t = real("temperature", temperature, 0.0)
        if self.search == "gumbel" and t != 0:
            raise ValueError(
                "select_actions: with search='gumbel' the move comes from the search; temperature "
                f"must be 0 (gumbel_scale sets how random it is), got {temperature!r}"
            )
        out = np.empty(self.num_games, np.int64)
        self._core.choose(t, out)
        return out

    def advance(self, actions: npt.ArrayLike) -> None:
        """Play actions[i] in game i and keep its subtree (tree reuse).  Actions are integers (an
        integer array or a list of ints; floats and bools raise ActionTypeError, never a cast).
        Illegal actions raise IllegalMoveError naming the game, and then no tree is changed."""
        a = self._action_array(actions)
        if a.shape != (self.num_games,):
            raise ValueError(f"advance needs {self.num_games} actions, got shape {np.shape(actions)}")
        bad, code = self._core.check_moves(a)
        if bad >= 0:
            st = self.root_state(bad)
            raise IllegalMoveError(
                f"game {bad}: illegal move {int(a[bad])} for {self.spec.agents[st.current_player]}: "
                f"{self.spec.reason(code)}",
                action=int(a[bad]),
                player=self.spec.agents[st.current_player],
                reason=self.spec.reason(code),
                game_index=bad,
            )
        self._core.advance(a)

    def _action_array(self, actions):
        """`actions` as a flat C-contiguous int64 array, converted only where no value changes."""
        allowed = f"integers (an integer array or a list of ints) in 0..{self.num_actions - 1}"
        seq = isinstance(actions, (list, tuple))
        if seq:
            for x in actions:
                if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
                    raise ActionTypeError(f"actions must be {allowed}; got an element {x!r} ({type(x).__name__})")
        arr = np.asarray(actions) if not seq or len(actions) else np.zeros(0, np.int64)
        if arr.dtype.kind not in ("iu" + ("O" if seq else "")):
            raise ActionTypeError(f"actions must be {allowed}; got dtype {arr.dtype}")
        flat = arr.reshape(-1)
        if arr.dtype.kind in "uO" and flat.size:
            big = [k for k, x in enumerate(flat.tolist()) if not INT64_MIN <= x <= INT64_MAX]
            if big:
                k = big[0]
                raise IllegalMoveError(
                    f"game {k}: illegal move {flat[k]}: {self.spec.reason(REASON_RANGE)}",
                    action=int(flat[k]),
                    reason=self.spec.reason(REASON_RANGE),
                    game_index=k,
                )
        return np.ascontiguousarray(flat, dtype=np.int64)


def _as_f32(x: Any, name: str) -> npt.NDArray[np.float32]:
    if hasattr(x, "detach"):  # a torch tensor
        x = x.detach().cpu().numpy()
    try:
        return np.asarray(x, dtype=np.float32)
    except (TypeError, ValueError):
        raise ValueError(f"the evaluator's {name} must be an array of numbers, got {type(x).__name__}") from None
