# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Batched PUCT tree search over G games in flat node arrays (the compiled half of BatchedMCTS).

The selection rule and the root Dirichlet noise follow AlphaZero (Silver et al. 2018); several
leaves per tree are gathered with virtual loss and evaluated in one batch, as in Cazenave's
"Spatial Average Pooling for Computer Go" (2018) and Polygames (Cazenave et al. 2020).

Tree layout: tree g owns nodes[g * cap : (g + 1) * cap]; node 0 is its root; the children of an
expanded node are contiguous (first_child .. first_child + num_children - 1), one per legal action
in increasing action order.  No state is stored per node: a simulation copies the root's state blob
into a scratch buffer and replays the actions down the tree.

Sign convention: a node's value sum `w` is from the view of `mover`, the player who chose the edge
into it (the player to move at its parent), so a parent picks the child with the best Q = w / n as
is.  The evaluator's value and terminal results are from the view of the player to move at the
leaf; backing up adds +v to nodes whose mover is that player and -v to the others.  Nothing assumes
that players alternate.

Gumbel search (Danihelka, Guez, Schrittwieser and Silver, "Policy improvement by planning with
Gumbel", ICLR 2022), when `gumbel` is set: the root samples Gumbel noise g for its children and runs
sequential halving over the top min(gumbel_m, children) of g + log P, spending exactly the budget
(the root's own evaluation is not counted); candidates are ranked by g + log P + sigma(q), with
sigma(q) = (c_visit + max_b N(b)) * c_scale * q, q the completed Q (the visited children's mean
value, the mixed value estimate v_mix for the others) mapped from [-1, 1] to [0, 1].  Below the root
a child is chosen deterministically by argmax(pi'(a) - N(a) / (1 + sum_b N(b))), with
pi' = softmax(log P + sigma(q)).  The move is the best of g + log P + sigma(q) among the most visited
candidates, the policy target pi' at the root.  No Dirichlet noise is used.

Decisive moves (Teytaud and Teytaud, "On the huge benefit of decisive moves in Monte-Carlo Tree
Search algorithms", IEEE CIG 2010), when `decisive` is set: a leaf below the root where the player
to move has a move that wins at once is scored as a win for that player, without the evaluator and
without being expanded; a node that is expanded (the root) puts all its prior on its winning moves.
A reply that lets the opponent win at once is then refuted by its first visit, however small the
prior of the opponent's winning move (PUCT's first-play urgency would otherwise leave it unvisited).

MCTS-Solver (Winands, Bjornsson and Saito, "Monte-Carlo Tree Search Solver", Computers and Games
2008), when `solver` is set: a node whose value is known exactly is proven, for its mover, a win, a
draw or a loss.  A finished position is proven by its result, a decisive leaf by its win; a parent
is proven a win for the player to move there as soon as one child is proven that player's win, and
proven the best of its children's values once all its children are (not while a pass is left out of
them: no_pass_before).  A descent that reaches a proven node below the root backs up its exact value
without going further, selection never takes a child proven lost for the player choosing, and the move choice
plays a proven win, and never a proven loss while another move is left.  Without `solver` nothing is
marked proven and the search is as before.

Forced playouts (Wu, "Accelerating Self-Play Learning in Go", 2019), when `forced_playouts` > 0: a root
child with visits but fewer than sqrt(forced_playouts * P * sum of the children's visits) is chosen first;
pruned_policy() then takes those extra visits back out of the policy target.

Threads: the work on the trees (descents, leaf encoding, expansion and backup, root noise, move
choice, advancing the roots) runs on `threads` OpenMP threads, each tree on one thread at a time with
one Work (scratch space) per thread; nothing is allocated per move.  Tree i's leaves go into its own
slots (i * leaves_per_tree ...) and then, in tree order, into the rows of planes and masks, and each
tree draws from its own random stream, so every result is the same for any number of threads.

Every method callable from Python checks its arguments (tree indices, counts, array shapes, States
of this game, actions, the search constants) before compiled code uses them; the nogil loops
check nothing.  The legal masks that expansion trusts are a private copy: the evaluator gets
`masks` as a view it may overwrite.
"""
from cpython.mem cimport PyMem_Malloc, PyMem_Calloc, PyMem_Free
from libc.math cimport sqrt, isfinite, pow, log, exp, ceil, floor
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from cython.parallel cimport prange, threadid
cimport numpy as cnp

import numpy as np

from zerogym._core.state import same_game
from zerogym.errors import IllegalMoveError
from zerogym_agents.core import checks as args

from zerogym._core.game cimport (GameDef, Header, header, splitmix64, RUNNING, TERMINAL, REASON_OK, REASON_RANGE,
                                 REASON_OVER)
from zerogym._core.spec cimport GameSpec
from zerogym._core.state cimport State
from zerogym_agents.mcts._rng cimport next_u64, below, uniform01, gamma_sample

cnp.import_array()

cdef enum:
    # descend() results
    D_LEAF = 0         # a leaf was queued for the evaluator
    D_BACKED = 1       # ended on a terminal state (or a dead end): backed up at once
    D_COLLISION = 2    # met a leaf already queued in this batch: nothing done

cdef enum:
    # Node.flags
    F_PENDING = 1      # queued for evaluation in the current batch
    F_PARTIAL = 2      # its children leave out a legal move (pass, before no_pass_before)
    F_WIN = 4          # proven (solver): a win for its mover
    F_DRAW = 8         # proven a draw
    F_LOSS = 16        # proven a loss for its mover
    F_PROVEN = F_WIN | F_DRAW | F_LOSS

cdef enum:
    MAX_LEAVES_PER_TREE = 1024   # descents in flight per tree (Node.inflight is 16 bits)
    MAX_ACTIONS = 32767          # Node.action and Node.num_children are 16 bits
    MAX_BUFFERS = 32             # buffers one PUCTCore allocates (28 today)
    MAX_THREADS = 1024
    INT32_MAX = 2147483647


ctypedef struct Node:
    int32_t first_child    # -1 until expanded
    int32_t parent         # -1 for the root
    float prior
    float w                # value sum from the view of `mover`
    int32_t n              # completed visits
    float raw              # the evaluator's value of this node, for its player to move (Gumbel's v_mix)
    int16_t action         # the edge from the parent
    int16_t num_children
    int16_t inflight       # descents in flight through this node (virtual loss)
    int8_t mover           # the player who chose the edge into this node
    uint8_t flags          # F_PENDING, F_PARTIAL and the proof (solver): F_WIN, F_DRAW or F_LOSS


ctypedef struct Work:
    # one thread's scratch space: a search thread touches its trees and this, nothing else
    char* scratch          # one blob replayed per descent
    char* probe            # one blob for trying a leaf's moves (decisive)
    double* work           # num_actions scores of one node's children (Gumbel)
    double* noise          # num_actions gamma draws
    float* work_f          # num_actions priors of a decisive leaf
    Node* spare            # capacity nodes, for compaction on advance


ctypedef struct Constants:
    # the search constants the compiled loops read (set through the properties made by _constant)
    double c_puct, fpu_reduction, virtual_loss, dirichlet_alpha, dirichlet_epsilon
    int gumbel_m
    double c_visit, c_scale, gumbel_scale, forced_playouts


# each search constant's check of a new value: (args.real or args.integer, its bounds and options)
_CHECKS = {
    "c_puct": (args.real, {"lo": 0.0}),
    "fpu_reduction": (args.real, {}),
    "virtual_loss": (args.real, {"lo": 0.0}),
    "dirichlet_alpha": (args.real, {"lo": 0.0, "open_lo": True}),
    "dirichlet_epsilon": (args.real, {"lo": 0.0, "hi": 1.0}),
    "gumbel_m": (args.integer, {"lo": 1, "hi": MAX_ACTIONS}),
    "c_visit": (args.real, {"lo": 0.0}),
    "c_scale": (args.real, {"lo": 0.0}),
    "gumbel_scale": (args.real, {"lo": 0.0}),
    "forced_playouts": (args.real, {"lo": 0.0}),
}


def _constant(name):
    """A property reading and (after its check) writing the field `name` of PUCTCore.cfg."""
    check, bounds = _CHECKS[name]

    def get(PUCTCore self):
        cdef dict cfg = self.cfg      # the struct as a dict
        return cfg[name]

    def put(PUCTCore self, v):
        cdef dict cfg = self.cfg
        cfg[name] = check(name, v, **bounds)
        self.cfg = cfg

    limits = ", ".join(f"{k}={v}" for k, v in bounds.items())
    return property(get, put, doc=f"search constant {name}, checked by {check.__name__}({limits})")


cdef inline int halving_round(int m, int n, int s, bint* shrink) noexcept nogil:
    # sequential halving of n simulations over m candidates: the round of simulation s (0-based), so
    # that a candidate takes part in round r when it has had r visits in this search.  Phase p gives
    # each of its c_p candidates max(1, n // (ceil(log2 m) * c_p)) visits; c_0 = m, then halved,
    # never below 2, until the budget is spent.  shrink: s opens a phase with fewer candidates
    cdef int L = 0, c = m, r = 0, v, prev = m
    shrink[0] = 0
    if m <= 1:
        return s
    while (1 << L) < m:
        L += 1
    while True:
        v = n // (L * c)
        if v < 1:
            v = 1
        if s < <int64_t> v * c:
            shrink[0] = s == 0 and c < prev
            return r + s // c
        s -= v * c
        r += v
        prev = c
        c = c // 2 if c >= 4 else 2


cdef inline double leaf_result(Header* h) noexcept nogil:
    # value of a finished game from the view of the player to move there (truncation: 0)
    if h.status != TERMINAL or h.winner < 0:
        return 0.0
    return 1.0 if h.winner == h.to_play else -1.0


cdef inline uint8_t proof_flag(int result) noexcept nogil:
    # the proof flag of an exact value (+1 win, 0 draw, -1 loss for the node's mover)
    return F_WIN if result > 0 else (F_LOSS if result < 0 else F_DRAW)


cdef inline int proven_value(uint8_t flags) noexcept nogil:
    # the exact value of a proven node for its mover
    return 1 if flags & F_WIN else (-1 if flags & F_LOSS else 0)


cdef inline double log_prior(float p) noexcept nogil:
    # log P with P floored at 1e-30 (a child may have prior 0)
    return log(p if p > 1e-30 else 1e-30)


cdef inline float choice_weight(const Node* c, bint visited) noexcept nogil:
    # a child's weight in the move choice: its visits, or its prior where no child has visits
    return c.n if visited else c.prior


cdef inline bint eligible(const Node* c, uint8_t need, uint8_t avoid) noexcept nogil:
    # whether the move choice may play child c (see PUCTCore._choice_filter)
    return (need == 0 or (c.flags & need) != 0) and (c.flags & avoid) == 0


cdef class PUCTCore:
    """G PUCT trees over one game; driven by zerogym_agents.mcts.search.BatchedMCTS."""
    cdef readonly GameSpec spec
    cdef const GameDef* g
    cdef readonly int num_games, num_actions, leaves_per_tree, capacity, threads
    cdef int C, H, W
    cdef Py_ssize_t stride
    cdef char* roots           # G state blobs
    cdef Work* works           # one per thread
    cdef Node* nodes           # G * capacity
    cdef int32_t* used         # nodes in use per tree
    cdef int64_t* full         # per tree: leaves left unexpanded because the tree was full
    cdef int32_t* done         # simulations done per tree in the current run
    cdef int32_t* budget       # simulations asked of each tree in the current run
    cdef uint8_t* explore      # per tree: root noise and forced playouts in the current run
    cdef uint64_t* rng         # one stream per tree
    cdef uint8_t* noised       # root noise applied since the root was set
    cdef uint8_t* has_root
    # queued leaves: tree i owns the slots i*k .. i*k + leaf_count[i] - 1 (k = leaves_per_tree), and
    # its leaves are the rows leaf_first[i] .. of planes and masks (in tree order, whatever the threads)
    cdef int32_t* leaf_count
    cdef int32_t* leaf_first
    cdef int32_t* leaf_bad     # per tree: its first leaf row with a bad evaluation, or -1 (backup's check)
    cdef int32_t* leaf_node
    cdef int8_t* leaf_player   # the player to move at each queued leaf
    cdef int8_t* leaf_obs      # (G*k, H*W*C) observations of the queued leaves, as the game writes them
    cdef int8_t* leaf_mask     # (G*k, A) legal masks of the queued leaves, as expansion trusts them
    cdef int8_t* leaf_wins     # (G*k, A) the moves that win at once (decisive), valid where leaf_decisive
    cdef uint8_t* leaf_decisive  # (G*k,) whether the queued leaf's player to move can win at once
    cdef int64_t* moves        # G: advance()'s actions, copied before they are checked
    cdef float* gum            # (G, A) Gumbel draws of the root children (by child index), scaled
    cdef int32_t* base_n       # (G, A) visits of the root children when the search began
    cdef int32_t* considered   # G: candidates of the sequential halving
    cdef uint8_t* gready       # G: Gumbel draws taken for the current root
    cdef readonly int pending_leaves
    cdef Constants cfg                     # the search constants (checked by their properties)
    cdef bint _gumbel                      # Gumbel root search and deterministic non-root selection
    cdef bint _decisive                    # decisive moves (see the module docstring)
    cdef bint _solver                      # MCTS-Solver proofs (see the module docstring)
    cdef int _pass_action                  # the game's pass action (-1: none)
    cdef public int no_pass_before         # before this many moves, pass is no child where another move is legal
    cdef readonly object planes            # float32 (G*k, C, H, W)
    cdef readonly object masks             # int8 (G*k, A)
    cdef float* planes_p
    cdef int8_t* masks_p
    cdef bint busy                         # a call has released the GIL inside this search
    cdef void* owned[MAX_BUFFERS]          # the buffers above, from _alloc
    cdef int n_owned

    def __cinit__(self, GameSpec spec not None, num_games, leaves_per_tree, capacity, threads=1):
        if not spec.ready:
            raise ValueError("PUCTCore needs a GameSpec built by a game module's make_spec")
        if not 1 <= spec.d.num_actions <= MAX_ACTIONS:
            raise ValueError(f"{spec.name}: {spec.d.num_actions} actions; the search holds 1..{MAX_ACTIONS}")
        # sizes as Python ints first: their products cannot wrap around
        n_games = args.integer("num_games", num_games, 1, INT32_MAX)
        n_leaves = args.integer("leaves_per_tree", leaves_per_tree, 1, MAX_LEAVES_PER_TREE)
        n_nodes = args.integer("capacity", capacity, 1, INT32_MAX)
        n_threads = min(args.integer("threads", threads, 1, MAX_THREADS), n_games)
        if n_games * n_leaves > INT32_MAX:
            raise ValueError(f"num_games * leaves_per_tree must be at most {INT32_MAX} leaves per batch, "
                             f"got {n_games} * {n_leaves} = {n_games * n_leaves}")
        A_, obs_ = spec.d.num_actions, spec.d.height * spec.d.width * spec.d.planes
        need = (n_games * n_nodes * sizeof(Node) + n_games * spec.d.state_bytes
                + n_games * (6 * sizeof(int32_t) + sizeof(uint64_t) + 2 * sizeof(int64_t) + 4)
                + n_games * A_ * (sizeof(float) + sizeof(int32_t))
                + n_games * n_leaves * (sizeof(int32_t) + 2 + 3 * A_ + 5 * obs_)
                + n_threads * (sizeof(Work) + n_nodes * sizeof(Node) + 2 * spec.d.state_bytes
                               + A_ * (2 * sizeof(double) + sizeof(float))))
        what = (f"PUCTCore: {n_games} {spec.name} search trees of {n_nodes} nodes ({sizeof(Node)} bytes each) "
                f"with {n_leaves} leaves per tree")
        args.check_bytes(what, need)
        cdef Py_ssize_t G = n_games, k = n_leaves, cap = n_nodes
        self.spec = spec
        self.g = &spec.d
        self.num_games = <int> G
        self.num_actions = spec.d.num_actions
        self.leaves_per_tree = <int> k
        self.capacity = <int> cap
        self.threads = <int> n_threads
        self.C, self.H, self.W = spec.d.planes, spec.d.height, spec.d.width
        self.stride = spec.d.state_bytes
        self._pass_action = -1
        self.no_pass_before = 0
        self.cfg = Constants(c_puct=1.5, fpu_reduction=0.25, virtual_loss=1.0, dirichlet_alpha=0.3,
                             dirichlet_epsilon=0.0, gumbel_m=16, c_visit=50.0, c_scale=1.0, gumbel_scale=1.0,
                             forced_playouts=0.0)
        self._gumbel = 0
        cdef Py_ssize_t L = G * k, A = self.num_actions, obs = <Py_ssize_t> self.H * self.W * self.C
        cdef Py_ssize_t T = n_threads
        try:
            # zeroed (last argument 1): what is read before it is first written
            self.roots = <char*> self._alloc(G, self.stride, 1)
            self._alloc_works(T)
            self.nodes = <Node*> self._alloc(G * cap, sizeof(Node), 0)
            self.used = <int32_t*> self._alloc(G, sizeof(int32_t), 1)
            self.full = <int64_t*> self._alloc(G, sizeof(int64_t), 1)
            self.done = <int32_t*> self._alloc(G, sizeof(int32_t), 1)
            self.budget = <int32_t*> self._alloc(G, sizeof(int32_t), 1)
            self.explore = <uint8_t*> self._alloc(G, 1, 1)
            self.considered = <int32_t*> self._alloc(G, sizeof(int32_t), 1)
            self.gready = <uint8_t*> self._alloc(G, 1, 1)
            self.gum = <float*> self._alloc(G * A, sizeof(float), 1)
            self.base_n = <int32_t*> self._alloc(G * A, sizeof(int32_t), 1)
            self.rng = <uint64_t*> self._alloc(G, sizeof(uint64_t), 1)
            self.noised = <uint8_t*> self._alloc(G, 1, 1)
            self.has_root = <uint8_t*> self._alloc(G, 1, 1)
            self.leaf_count = <int32_t*> self._alloc(G, sizeof(int32_t), 1)
            self.leaf_first = <int32_t*> self._alloc(G, sizeof(int32_t), 1)
            self.leaf_bad = <int32_t*> self._alloc(G, sizeof(int32_t), 1)
            self.leaf_node = <int32_t*> self._alloc(L, sizeof(int32_t), 0)
            self.leaf_player = <int8_t*> self._alloc(L, 1, 0)
            self.leaf_obs = <int8_t*> self._alloc(L * obs, 1, 0)
            self.leaf_mask = <int8_t*> self._alloc(L * A, 1, 0)
            self.leaf_wins = <int8_t*> self._alloc(L * A, 1, 0)
            self.leaf_decisive = <uint8_t*> self._alloc(L, 1, 0)
            self.moves = <int64_t*> self._alloc(G, sizeof(int64_t), 0)
            self.planes = np.zeros((L, self.C, self.H, self.W), np.float32)
            self.masks = np.zeros((L, self.num_actions), np.int8)
        except MemoryError:
            raise MemoryError(f"{what} need {need} bytes, which could not be allocated") from None
        memset(self.explore, 1, G)
        self._bind_buffers()

    cdef int _alloc_works(self, Py_ssize_t T) except -1:
        # each thread's Work, its pieces cut from one buffer per kind
        cdef Py_ssize_t t, A = self.num_actions
        cdef char* blobs = <char*> self._alloc(2 * T, self.stride, 1)
        cdef double* d = <double*> self._alloc(2 * T * A, sizeof(double), 0)
        cdef float* f = <float*> self._alloc(T * A, sizeof(float), 0)
        cdef Node* spare = <Node*> self._alloc(T * self.capacity, sizeof(Node), 0)
        self.works = <Work*> self._alloc(T, sizeof(Work), 0)
        for t in range(T):
            self.works[t] = Work(scratch=blobs + 2 * t * self.stride, probe=blobs + (2 * t + 1) * self.stride,
                                 work=d + 2 * t * A, noise=d + (2 * t + 1) * A, work_f=f + t * A,
                                 spare=spare + t * self.capacity)
        return 0

    cdef void* _alloc(self, size_t count, size_t size, bint zero) except NULL:
        # count * size bytes (zeroed if `zero`) that __dealloc__ frees; MemoryError when not had
        if self.n_owned == MAX_BUFFERS:
            raise RuntimeError(f"PUCTCore owns at most {MAX_BUFFERS} buffers")
        cdef void* p = PyMem_Calloc(count, size) if zero else PyMem_Malloc(count * size)
        if p == NULL:
            raise MemoryError()
        self.owned[self.n_owned] = p
        self.n_owned += 1
        return p

    def __dealloc__(self):
        cdef int j
        for j in range(self.n_owned):
            PyMem_Free(self.owned[j])

    @property
    def node_bytes(self):
        return sizeof(Node)

    @property
    def full_events(self):
        """Leaves left unexpanded because their tree was full, since this search was made."""
        cdef int i
        cdef int64_t total = 0
        for i in range(self.num_games):
            total += self.full[i]
        return total

    # ---- search constants (read by the compiled loops; checked here) ----------------------
    c_puct = _constant("c_puct")
    fpu_reduction = _constant("fpu_reduction")
    virtual_loss = _constant("virtual_loss")
    dirichlet_alpha = _constant("dirichlet_alpha")
    dirichlet_epsilon = _constant("dirichlet_epsilon")
    gumbel_m = _constant("gumbel_m")
    c_visit = _constant("c_visit")
    c_scale = _constant("c_scale")
    gumbel_scale = _constant("gumbel_scale")
    forced_playouts = _constant("forced_playouts")

    @property
    def gumbel(self):
        """True: Gumbel root search with sequential halving (see the module docstring); False: PUCT."""
        return bool(self._gumbel)

    @gumbel.setter
    def gumbel(self, v):
        self._gumbel = self._new_mode("gumbel", v)

    @property
    def decisive(self):
        """True: decisive moves (see the module docstring)."""
        return bool(self._decisive)

    @decisive.setter
    def decisive(self, v):
        self._decisive = self._new_mode("decisive", v)

    @property
    def solver(self):
        """True: MCTS-Solver proofs (see the module docstring)."""
        return bool(self._solver)

    @solver.setter
    def solver(self, v):
        self._solver = self._new_mode("solver", v)

    def _new_mode(self, name, v):
        """A mode flag (gumbel, decisive, solver) checked, the trees emptied for it: every search starts anew."""
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {v!r}")
        self._free()
        self._idle()
        return bool(v)

    @property
    def pass_action(self):
        """The game's pass action, dropped from the children before no_pass_before moves (-1: none)."""
        return self._pass_action

    @pass_action.setter
    def pass_action(self, v):
        self._pass_action = args.integer("pass_action", v, -1, self.num_actions - 1)

    # ---- argument checks -----------------------------------------------------------------
    cdef int _tree(self, object i) except -1:
        return args.index("tree index", i, self.num_games)

    cdef int _rooted(self, object i) except -1:
        cdef int t = self._tree(i)
        if not self.has_root[t]:
            raise RuntimeError(f"tree {t} has no root: call set_roots() first")
        return t

    cdef int _same_game(self, State st, str what) except -1:
        if st.s == NULL or st.spec is None:
            raise ValueError(f"{what} is an uninitialised State (make states with zerogym.make_state)")
        if not same_game(st.spec, self.spec):
            raise ValueError(f"{what}: a state of {st.spec!r} does not fit a search of {self.spec!r} "
                             "(same game and kwargs needed)")
        return 0

    cdef int _free(self) except -1:
        # the nogil sections run with `busy` set; a call from another thread meanwhile must not
        # touch the trees (checked after a method's last Python call, right before it does)
        if self.busy:
            raise RuntimeError("PUCTCore: another thread is inside a call on this search; one call at a time")
        return 0

    cdef int _enter(self) except -1:
        # right before a nogil section: refuse a call from another thread, then mark this search
        # busy (the section ends with busy = 0)
        self._free()
        self.busy = 1
        return 0

    cdef int _bind_buffers(self) except -1:
        # the pointers the compiled loops write planes and masks through, taken again from the
        # arrays (which Python could have resized in place) and checked against what they write
        cdef Py_ssize_t L = <Py_ssize_t> self.num_games * self.leaves_per_tree
        p, m = self.planes, self.masks
        if (cnp.PyArray_TYPE(p) != cnp.NPY_FLOAT32 or not cnp.PyArray_IS_C_CONTIGUOUS(p) or
                p.shape != (L, self.C, self.H, self.W) or not cnp.PyArray_ISWRITEABLE(p)):
            raise RuntimeError(f"PUCTCore.planes must stay a writeable C-contiguous float32 array of shape "
                               f"{(L, self.C, self.H, self.W)}, it is now {p.dtype} {p.shape}")
        if (cnp.PyArray_TYPE(m) != cnp.NPY_INT8 or not cnp.PyArray_IS_C_CONTIGUOUS(m) or
                m.shape != (L, self.num_actions) or not cnp.PyArray_ISWRITEABLE(m)):
            raise RuntimeError(f"PUCTCore.masks must stay a writeable C-contiguous int8 array of shape "
                               f"{(L, self.num_actions)}, it is now {m.dtype} {m.shape}")
        self.planes_p = <float*> cnp.PyArray_DATA(p)
        self.masks_p = <int8_t*> cnp.PyArray_DATA(m)
        return 0

    # ---- roots ---------------------------------------------------------------------------
    def seed_tree(self, i, seed):
        """Seed tree i's random stream (root noise, move choice); seed: any int (taken mod 2**64)."""
        cdef int t = self._tree(i)
        cdef uint64_t key = args.seed64("seed", seed)
        self._free()
        self.rng[t] = splitmix64(key)

    def set_root(self, i, State st not None):
        """Make `st` (a copy of it; a State of this game and kwargs) the root of tree i, with an empty tree."""
        cdef int t = self._tree(i)
        self._same_game(st, f"state for tree {t}")
        self._free()
        self._idle()
        memcpy(self.roots + t * self.stride, st.s, self.stride)
        self._fresh_root(t)
        self.has_root[t] = 1

    cdef void _fresh_root(self, int i) noexcept nogil:
        cdef Node* r = self.nodes + <Py_ssize_t> i * self.capacity
        cdef Header* h = header(self.roots + i * self.stride)
        r.first_child = -1
        r.parent = -1
        r.prior = 1.0
        r.w = 0.0
        r.n = 0
        r.raw = 0.0
        r.action = -1
        r.num_children = 0
        r.inflight = 0
        r.mover = <int8_t> (1 - h.to_play)
        r.flags = 0
        self.used[i] = 1
        self.noised[i] = 0
        self.gready[i] = 0

    def get_root(self, i, State out not None):
        """Copy tree i's root state into `out` (a State of this game and kwargs)."""
        cdef int t = self._rooted(i)
        self._same_game(out, "out")
        self._free()
        memcpy(out.s, self.roots + t * self.stride, self.stride)

    def root_over(self, i):
        cdef int t = self._rooted(i)
        return header(self.roots + t * self.stride).status != RUNNING

    def abort(self, lo=0, hi=None):
        """Drop the queued leaves of trees lo..hi-1 (their virtual loss included), e.g. after the
        evaluator failed: those trees are as they were before collect()."""
        cdef int a, b, i, c, slot
        a, b = self._group(lo, hi)
        cdef Node* base
        self._free()
        for i in range(a, b):
            base = self.nodes + <Py_ssize_t> i * self.capacity
            for c in range(self.leaf_count[i]):
                slot = i * self.leaves_per_tree + c
                base[self.leaf_node[slot]].flags &= ~F_PENDING
                self._undo(base, self.leaf_node[slot])
            self.pending_leaves -= self.leaf_count[i]
            self.leaf_count[i] = 0

    cdef _idle(self):
        if self.pending_leaves:
            raise RuntimeError("leaves are waiting for their evaluation: call backup() after collect()")

    cdef tuple _group(self, lo, hi):
        # the trees lo..hi-1 of a collect(), backup(), abort() or finished(), checked (hi None: to the last)
        cdef int a = args.integer("lo", lo, 0, self.num_games - 1)
        cdef int b = self.num_games if hi is None else args.integer("hi", hi, a + 1, self.num_games)
        return a, b

    cdef int _queued(self, int a, int b):
        cdef int i, n = 0
        for i in range(a, b):
            n += self.leaf_count[i]
        return n

    cdef int _check_roots(self) except -1:
        cdef int i
        for i in range(self.num_games):
            if not self.has_root[i]:
                raise RuntimeError(f"tree {i} has no root: call set_roots() first")
        return 0

    # ---- one search ----------------------------------------------------------------------
    def begin(self, simulations, explore=None):
        """Start a search: `simulations` new simulations per tree (1..2**31-1; an int, or an int32
        array with one count per tree).  explore: None (every tree), or a uint8 array with one flag
        per tree, 0 for a tree searched without root noise and forced playouts (a cheap search)."""
        self._free()
        self._idle()
        self._check_roots()
        cdef int i, G = self.num_games
        cdef const int32_t[::1] sims
        cdef const uint8_t[::1] flags
        if isinstance(simulations, np.ndarray):
            args.shape("simulations", simulations.shape, (G,))
            if simulations.dtype != np.int32:
                raise TypeError(f"simulations must be an int or an int32 array, got an array of {simulations.dtype}")
            sims = np.ascontiguousarray(simulations)
            for i in range(G):
                if not 1 <= sims[i] <= INT32_MAX:
                    raise ValueError(f"simulations must be in 1..{INT32_MAX}, got {sims[i]} for tree {i}")
                self.budget[i] = sims[i]
        else:
            n = args.integer("simulations", simulations, 1, INT32_MAX)
            for i in range(G):
                self.budget[i] = n
        if explore is None:
            memset(self.explore, 1, G)
        else:
            if not isinstance(explore, np.ndarray) or explore.dtype != np.uint8:
                raise TypeError(f"explore must be None or a uint8 array, got {explore!r}")
            args.shape("explore", explore.shape, (G,))
            flags = np.ascontiguousarray(explore)
            for i in range(G):
                self.explore[i] = flags[i] != 0
        self._enter()
        with nogil:
            for i in prange(G, num_threads=self.threads, schedule="static"):
                self.done[i] = 0
                self.gready[i] = 0
                if self.nodes[<Py_ssize_t> i * self.capacity].first_child >= 0:
                    self._noise_root(i, self.works + threadid())
                    if self._gumbel:
                        self._gumbel_start(i)
        self.busy = 0

    def finished(self, lo=0, hi=None):
        """True when every tree lo..hi-1 with a running root has done its simulations."""
        cdef int a, b, i
        a, b = self._group(lo, hi)
        for i in range(a, b):
            if self.done[i] < self.budget[i] and header(self.roots + i * self.stride).status == RUNNING:
                return False
        return True

    def collect(self, lo=0, hi=None):
        """Descend every unfinished tree lo..hi-1 (default: all) up to leaves_per_tree times; return
        the number L of leaves queued: their planes and masks are rows lo*leaves_per_tree .. + L - 1 of
        .planes / .masks, tree by tree in tree order (so groups of trees have rows of their own).
        Terminal leaves are backed up at once and not queued.  The group must have no queued leaves."""
        cdef int a, b, i, t, total
        a, b = self._group(lo, hi)
        self._free()
        if self._queued(a, b):
            raise RuntimeError("leaves are waiting for their evaluation: call backup() after collect()")
        self._bind_buffers()
        total = a * self.leaves_per_tree
        self._enter()
        with nogil:
            for i in prange(a, b, num_threads=self.threads, schedule="dynamic", chunksize=8):
                self._collect_tree(i, self.works + threadid())
            for t in range(a, b):
                self.leaf_first[t] = total
                total = total + self.leaf_count[t]
            for i in prange(a, b, num_threads=self.threads, schedule="static"):
                self._write_rows(i)
            total = total - a * self.leaves_per_tree
            self.pending_leaves += total
        self.busy = 0
        return total

    cdef void _collect_tree(self, int i, Work* w) noexcept nogil:
        cdef int t, tries
        if header(self.roots + i * self.stride).status != RUNNING:
            return
        tries = self.budget[i] - self.done[i]
        if tries > self.leaves_per_tree:
            tries = self.leaves_per_tree
        if self._gumbel:
            self._collect_gumbel(i, tries, w)
            return
        for t in range(tries):
            if self._descend(i, -1, w) != D_COLLISION:
                self.done[i] += 1

    cdef void _write_rows(self, int i) noexcept nogil:
        # tree i's queued leaves into their rows of planes (float32, C x H x W) and masks
        cdef int c, ch, k, HW = self.H * self.W, C = self.C, A = self.num_actions
        cdef Py_ssize_t slot, row
        cdef const int8_t* o
        cdef float* out
        for c in range(self.leaf_count[i]):
            slot = <Py_ssize_t> i * self.leaves_per_tree + c
            row = self.leaf_first[i] + c
            o = self.leaf_obs + slot * HW * C
            out = self.planes_p + row * C * HW
            for ch in range(C):
                for k in range(HW):
                    out[ch * HW + k] = o[k * C + ch]
            memcpy(self.masks_p + row * A, self.leaf_mask + slot * A, A)

    cdef void _collect_gumbel(self, int i, int tries, Work* w) noexcept nogil:
        # the root is evaluated first, outside the budget (a dead end, no legal move in a running
        # game, is scored as a draw and counted); then each descent starts at the child that the
        # sequential halving picks
        cdef Node* root = self.nodes + <Py_ssize_t> i * self.capacity
        cdef int t, j, r
        for t in range(tries):
            if root.first_child < 0:
                if root.flags & F_PENDING:
                    return
                r = self._descend(i, -1, w)
                if r != D_BACKED:
                    return
                self.done[i] += 1
                continue
            if not self.gready[i]:
                self._gumbel_start(i)
            j = self._root_pick(i, w)
            if j < 0:
                return
            if self._descend(i, j, w) == D_COLLISION:
                return
            self.done[i] += 1

    cdef void _gumbel_start(self, int i) noexcept nogil:
        # draw the root children's Gumbel noise and note their visits at the start of this search
        cdef Node* root = self.nodes + <Py_ssize_t> i * self.capacity
        cdef Node* kids = root + root.first_child
        cdef int j, n = root.num_children
        cdef Py_ssize_t row = <Py_ssize_t> i * self.num_actions
        for j in range(n):
            self.gum[row + j] = <float> (self.cfg.gumbel_scale * -log(-log(uniform01(&self.rng[i]))))
            self.base_n[row + j] = kids[j].n
        self.considered[i] = self.cfg.gumbel_m if self.cfg.gumbel_m < n else n
        self.gready[i] = 1

    cdef int _root_pick(self, int i, Work* w) noexcept nogil:
        # the root child for the next simulation: among the children at the current round's visit
        # count, the best g + log P (round 0: the Gumbel top-k) or g + log P + sigma(q); -1 to wait
        # when a smaller phase starts while simulations are in flight (it must rank finished ones)
        cdef Node* root = self.nodes + <Py_ssize_t> i * self.capacity
        cdef Node* kids = root + root.first_child
        cdef Py_ssize_t row = <Py_ssize_t> i * self.num_actions
        cdef int j, n = root.num_children, best = -1, fallback = 0
        cdef bint shrink
        cdef int r = halving_round(self.considered[i], self.budget[i], self.done[i], &shrink)
        cdef double x, top = -1e300, any_top = -1e300
        if shrink and root.inflight > 0:
            return -1
        if r > 0:
            self._completed_logits(root, 0, w.work)
        for j in range(n):
            x = self.gum[row + j] + (w.work[j] if r > 0 else log_prior(kids[j].prior))
            if kids[j].n + kids[j].inflight - self.base_n[row + j] == r and x > top:
                top, best = x, j
            if x > any_top:
                any_top, fallback = x, j
        return best if best >= 0 else fallback

    cdef double _completed_logits(self, Node* base, int node, double* out) noexcept nogil:
        # out[j] = log P + sigma(completed q) for each child j of the expanded node (q from the view
        # of its player to move, mapped to [0, 1]); returns the largest
        cdef Node* nd = base + node
        cdef Node* kids = base + nd.first_child
        cdef Node* c
        cdef int j, n = nd.num_children
        cdef int64_t total = 0
        cdef int32_t most = 0
        cdef double p, pw = 0.0, pq = 0.0, v, scale, q, top = -1e300
        for j in range(n):
            c = kids + j
            if c.n > 0:
                p = c.prior if c.prior > 1e-30 else 1e-30
                total += c.n
                pw += p
                pq += p * c.w / c.n
                if c.n > most:
                    most = c.n
        # v_mix (appendix D of the paper): the node's own evaluation mixed with the prior-weighted
        # mean Q of the visited children, weighted by their visits
        v = nd.raw if total == 0 else (nd.raw + total * (pq / pw)) / (1.0 + total)
        scale = (self.cfg.c_visit + most) * self.cfg.c_scale * 0.5
        for j in range(n):
            c = kids + j
            q = c.w / c.n if c.n > 0 else v
            out[j] = log_prior(c.prior) + scale * (q + 1.0)
            if out[j] > top:
                top = out[j]
        return top

    cdef void _improved_policy(self, Node* base, int node, double* out) noexcept nogil:
        # out[j] = pi'(j) = softmax(log P + sigma(completed q)) over the children of the expanded node
        cdef int j, n = base[node].num_children
        cdef double top = self._completed_logits(base, node, out), z = 0.0
        for j in range(n):
            out[j] = exp(out[j] - top)
            z += out[j]
        for j in range(n):
            out[j] = out[j] / z

    cdef int _gumbel_select(self, Node* base, int node, double* work) noexcept nogil:
        # below the root: argmax pi'(a) - N(a) / (1 + sum N), descents in flight counted as visits
        cdef Node* nd = base + node
        cdef Node* kids = base + nd.first_child
        cdef int j, n = nd.num_children, best = 0
        cdef double x, best_x = -1e300
        cdef int64_t seen = 0
        self._improved_policy(base, node, work)
        for j in range(n):
            seen += kids[j].n + kids[j].inflight
        for j in range(n):
            if kids[j].flags & F_LOSS and self._solver:     # proven lost for the player choosing
                continue
            x = work[j] - (kids[j].n + kids[j].inflight) / (1.0 + seen)
            if x > best_x:
                best_x, best = x, j
        return best

    cdef int _descend(self, int i, int first, Work* w) noexcept nogil:
        # one descent of tree i; first >= 0: the root child to take (Gumbel's sequential halving)
        cdef Node* base = self.nodes + <Py_ssize_t> i * self.capacity
        cdef char* s = w.scratch
        cdef Header* h = header(s)
        cdef int node = 0, best, L, count
        cdef Node* nd
        memcpy(s, self.roots + i * self.stride, self.stride)
        while True:
            nd = base + node
            nd.inflight += 1
            if h.status != RUNNING:
                return self._exact(base, node, leaf_result(h), h.to_play)
            if nd.flags & F_PROVEN and self._solver and node != 0:
                # (below the root: a proven root still expands, and gives its children the visits)
                self._backup(base, node, proven_value(nd.flags), nd.mover)
                return D_BACKED
            if nd.flags & F_PENDING:
                self._undo(base, node)
                return D_COLLISION
            if nd.first_child < 0:
                L = i * self.leaves_per_tree + self.leaf_count[i]
                count = self._encode(s, L)
                if count == 0:       # no legal move in a running game: score it as a draw
                    return self._exact(base, node, 0.0, h.to_play)
                self.leaf_decisive[L] = self._decisive and self._wins_now(s, L, w.probe)
                if self.leaf_decisive[L] and node != 0:     # a win in one: scored, not expanded
                    return self._exact(base, node, 1.0, h.to_play)
                if self._pass_action >= 0 and h.moves < self.no_pass_before:
                    nd.flags |= F_PARTIAL
                nd.flags |= F_PENDING
                self.leaf_node[L] = node
                self.leaf_player[L] = <int8_t> h.to_play
                self.leaf_count[i] += 1
                return D_LEAF
            if first >= 0:
                best, first = first, -1
            elif self._gumbel:
                best = self._gumbel_select(base, node, w.work)
            else:
                best = self._puct_select(base, node, h.to_play,
                                         node == 0 and self.cfg.forced_playouts > 0 and self.explore[i])
            node = nd.first_child + best
            self.g.apply(self.g.params, s, base[node].action)

    cdef int _exact(self, Node* base, int node, double v, int player) noexcept nogil:
        # back up the exact value v (from `player`'s view) of a leaf not expanded; with the solver,
        # the leaf is proven and the proof carried up the tree
        self._backup(base, node, v, player)
        if self._solver:
            self._prove(base, node, <int> (v if base[node].mover == player else -v))
        return D_BACKED

    cdef void _prove(self, Node* base, int node, int result) noexcept nogil:
        # mark `node` proven with `result` (for its mover), then its ancestors as far as that proves
        # them: a parent is won by its player to move when one child is that player's win, else it
        # takes the best value of its children once they are all proven (and none is left out)
        cdef int p, j, best, chooser
        cdef Node* kids
        while True:
            base[node].flags |= proof_flag(result)
            p = base[node].parent
            if p < 0 or base[p].flags & F_PROVEN:
                return
            chooser = base[node].mover       # the player to move at p
            if result < 1:
                if base[p].flags & F_PARTIAL:
                    return
                kids = base + base[p].first_child
                best = -1
                for j in range(base[p].num_children):
                    if not kids[j].flags & F_PROVEN:
                        return
                    if proven_value(kids[j].flags) > best:
                        best = proven_value(kids[j].flags)
                result = best
            node = p
            if base[node].mover != chooser:
                result = -result

    cdef bint _wins_now(self, char* s, int slot, char* probe) noexcept nogil:
        # whether the player to move at s has a move that wins at once; leaf_wins row `slot` marks
        # those moves (leaf_mask row `slot` holds the legal ones)
        cdef int a, A = self.num_actions, player = header(s).to_play
        cdef int8_t* m = self.leaf_mask + <Py_ssize_t> slot * A
        cdef int8_t* w = self.leaf_wins + <Py_ssize_t> slot * A
        cdef Header* hp = header(probe)
        cdef bint found = 0
        for a in range(A):
            w[a] = 0
            if m[a]:
                memcpy(probe, s, self.stride)
                self.g.apply(self.g.params, probe, a)
                if hp.status == TERMINAL and hp.winner == player:
                    w[a] = 1
                    found = 1
        return found

    cdef int _puct_select(self, Node* base, int node, int to_play, bint forced) noexcept nogil:
        # PUCT: Q + c_puct * P * sqrt(N_parent) / (1 + N); unvisited children get parent Q - fpu.
        # forced (the root with forced playouts): a child with visits but fewer than
        # sqrt(forced_playouts * P * sum N) comes first
        cdef Node* nd = base + node
        cdef Node* c
        cdef int j, best = 0, best_forced = -1
        cdef double cs, q_parent, fpu, vl = self.cfg.virtual_loss, score, best_score, n_eff, forced_score = -1e300
        cdef double total = 0.0
        cs = self.cfg.c_puct * sqrt(nd.n + vl * (nd.inflight - 1))   # other descents in flight, not this one
        q_parent = nd.w / nd.n if nd.n > 0 else 0.0
        if nd.mover != to_play:
            q_parent = -q_parent
        fpu = q_parent - self.cfg.fpu_reduction
        best_score = -1e300
        c = base + nd.first_child
        if forced:
            for j in range(nd.num_children):
                total += c[j].n + c[j].inflight
        for j in range(nd.num_children):
            if c.flags & F_LOSS and self._solver:    # proven lost for the player choosing
                c += 1
                continue
            n_eff = c.n + vl * c.inflight
            if n_eff > 0:
                score = (c.w - vl * c.inflight) / n_eff + cs * c.prior / (1.0 + n_eff)
            else:
                score = fpu + cs * c.prior
            if score > best_score:
                best_score = score
                best = j
            if forced and c.n + c.inflight > 0 and c.n + c.inflight < sqrt(self.cfg.forced_playouts * c.prior * total) \
                    and score > forced_score:
                forced_score, best_forced = score, j
            c += 1
        return best_forced if best_forced >= 0 else best

    cdef int _encode(self, char* s, int slot) noexcept nogil:
        # write the mover's observation and the legal mask into slot `slot` (without pass before
        # move no_pass_before while another move is legal); returns the number of legal moves
        cdef int count
        cdef int8_t* o = self.leaf_obs + <Py_ssize_t> slot * self.H * self.W * self.C
        cdef int8_t* m = self.leaf_mask + <Py_ssize_t> slot * self.num_actions
        if self.g.observe_mover != NULL:
            count = self.g.observe_mover(self.g.params, s, o, m)
        else:
            self.g.observe(self.g.params, s, header(s).to_play, o)
            count = self.g.legal(self.g.params, s, m)
        if self._pass_action >= 0 and count > 1 and m[self._pass_action] and header(s).moves < self.no_pass_before:
            m[self._pass_action] = 0
            count -= 1
        return count

    cdef void _backup(self, Node* base, int node, double v, int player) noexcept nogil:
        # add one visit of value v (from `player`'s view) from `node` up to the root, releasing virtual loss
        cdef Node* nd
        while node >= 0:
            nd = base + node
            nd.inflight -= 1
            nd.n += 1
            nd.w += <float> (v if nd.mover == player else -v)
            node = nd.parent

    cdef void _undo(self, Node* base, int node) noexcept nogil:
        while node >= 0:
            base[node].inflight -= 1
            node = base[node].parent

    def backup(self, const float[:, ::1] priors not None, const float[::1] values not None, lo=0, hi=None):
        """Expand the queued leaves of trees lo..hi-1 (default: all) with `priors` (renormalised over
        legal actions) and back up `values`, row r of both for the leaf in row lo*leaves_per_tree + r.

        Returns -1, or the index of the first leaf with a non-finite or negative prior or a
        non-finite value (then nothing was changed and the leaves stay queued)."""
        cdef int a, b, L, A = self.num_actions, i, c, j, off
        a, b = self._group(lo, hi)
        L = self._queued(a, b)
        if priors.shape[0] != L or priors.shape[1] != A or values.shape[0] != L:
            raise ValueError(f"expected priors ({L}, {A}) and values ({L},), got priors "
                             f"({priors.shape[0]}, {priors.shape[1]}) and values ({values.shape[0]},)")
        off = a * self.leaves_per_tree
        self._enter()
        with nogil:
            j = self._validate(priors, values, a, b, off)
            if j < 0:
                for i in prange(a, b, num_threads=self.threads, schedule="dynamic", chunksize=8):
                    for c in range(self.leaf_count[i]):
                        self._expand(i, c, &priors[self.leaf_first[i] - off + c, 0],
                                     values[self.leaf_first[i] - off + c], self.works + threadid())
                    self.leaf_count[i] = 0
                self.pending_leaves -= L
        self.busy = 0
        return j

    cdef int _validate(self, const float[:, ::1] priors, const float[::1] values, int lo, int hi,
                       int off) noexcept nogil:
        # the first row (counted from row `off`) of trees lo..hi-1 with a non-finite value or a bad
        # prior on a legal move, or -1: each tree checked on the threads, then the first in tree order
        cdef int i
        for i in prange(lo, hi, num_threads=self.threads, schedule="static"):
            self.leaf_bad[i] = self._validate_tree(priors, values, i, off)
        for i in range(lo, hi):
            if self.leaf_bad[i] >= 0:
                return self.leaf_bad[i]
        return -1

    cdef int _validate_tree(self, const float[:, ::1] priors, const float[::1] values, int i,
                            int off) noexcept nogil:
        cdef int c, j, a, A = self.num_actions
        cdef int8_t* m
        for c in range(self.leaf_count[i]):
            j = self.leaf_first[i] - off + c
            if not isfinite(values[j]):
                return j
            m = self.leaf_mask + (<Py_ssize_t> i * self.leaves_per_tree + c) * A
            for a in range(A):
                if m[a] and not (priors[j, a] >= 0 and isfinite(priors[j, a])):
                    return j
        return -1

    cdef void _expand(self, int i, int c, const float* prior, float value, Work* w) noexcept nogil:
        # expand tree i's queued leaf c with `prior` and back up `value`
        cdef Py_ssize_t j = <Py_ssize_t> i * self.leaves_per_tree + c
        cdef int node = self.leaf_node[j], A = self.num_actions, a, count = 0, first
        cdef Node* base = self.nodes + <Py_ssize_t> i * self.capacity
        cdef Node* nd = base + node
        cdef Node* ch
        cdef int8_t* m = self.leaf_mask + j * A
        cdef double total = 0.0, scale
        cdef int player = self.leaf_player[j]
        if self.leaf_decisive[j]:           # all the prior on the winning moves; the value is exact
            prior = <const float*> w.work_f
            for a in range(A):
                w.work_f[a] = self.leaf_wins[j * A + a]
            value = 1.0
        for a in range(A):
            if m[a]:
                count += 1
                total += prior[a]
        nd.flags &= ~F_PENDING
        nd.raw = value
        if <int64_t> self.used[i] + count <= self.capacity:
            first = self.used[i]
            self.used[i] += count
            scale = 1.0 / total if total > 0 else 0.0
            ch = base + first
            for a in range(A):
                if m[a]:
                    ch.first_child = -1
                    ch.parent = node
                    ch.prior = <float> (prior[a] * scale if total > 0 else 1.0 / count)
                    ch.w = 0.0
                    ch.n = 0
                    ch.raw = 0.0
                    ch.action = <int16_t> a
                    ch.num_children = 0
                    ch.inflight = 0
                    ch.mover = <int8_t> player
                    ch.flags = 0
                    ch += 1
            nd.first_child = first
            nd.num_children = <int16_t> count
            if node == 0:
                self._noise_root(i, w)
        else:
            self.full[i] += 1
        self._backup(base, node, value, player)

    cdef void _noise_root(self, int i, Work* w) noexcept nogil:
        # mix Dirichlet(alpha) noise into the root priors, once per root
        cdef Node* base = self.nodes + <Py_ssize_t> i * self.capacity
        cdef int j, n = base.num_children
        cdef double total = 0.0, eps = self.cfg.dirichlet_epsilon
        cdef Node* c
        if self.noised[i] or eps <= 0 or n == 0 or self._gumbel or not self.explore[i]:
            return
        self.noised[i] = 1
        for j in range(n):
            w.noise[j] = gamma_sample(&self.rng[i], self.cfg.dirichlet_alpha)
            total += w.noise[j]
        for j in range(n):
            c = base + base.first_child + j
            c.prior = <float> ((1.0 - eps) * c.prior + eps * (w.noise[j] / total if total > 0 else 1.0 / n))

    # ---- results and moves ---------------------------------------------------------------
    def root_stats(self, int32_t[:, ::1] counts not None, float[:, ::1] policy not None, float[::1] value not None,
                   float[:, ::1] priors not None):
        """Per tree: child visit counts, the policy (the visit distribution; with gumbel, the
        improved policy softmax(log P + sigma(completed q))), the root value (player to move's view;
        for a finished root, its result), and the root priors (after noise); counts, policy and
        priors of shape (num_games, num_actions), value (num_games,)."""
        cdef int i, A = self.num_actions, G = self.num_games
        args.shape("counts", (counts.shape[0], counts.shape[1]), (G, A))
        args.shape("policy", (policy.shape[0], policy.shape[1]), (G, A))
        args.shape("value", (value.shape[0],), (G,))
        args.shape("priors", (priors.shape[0], priors.shape[1]), (G, A))
        self._check_roots()
        self._enter()
        with nogil:
            for i in prange(G, num_threads=self.threads, schedule="static"):
                self._tree_stats(i, &counts[i, 0], &policy[i, 0], &value[i], &priors[i, 0],
                                 self.works[threadid()].work)
        self.busy = 0

    cdef void _tree_stats(self, int i, int32_t* counts, float* policy, float* value, float* priors,
                          double* work) noexcept nogil:
        cdef Node* base = self.nodes + <Py_ssize_t> i * self.capacity
        cdef Header* h = header(self.roots + i * self.stride)
        cdef Node* c
        cdef int j, A = self.num_actions
        cdef int64_t total = 0
        memset(counts, 0, A * sizeof(int32_t))
        memset(policy, 0, A * sizeof(float))
        memset(priors, 0, A * sizeof(float))
        if h.status != RUNNING:
            value[0] = <float> leaf_result(h)
            return
        value[0] = 0.0
        if base.flags & F_PROVEN and self._solver:     # exact
            value[0] = proven_value(base.flags) if base.mover == h.to_play else -proven_value(base.flags)
        elif base.n > 0:
            value[0] = base.w / base.n if base.mover == h.to_play else -base.w / base.n
        for j in range(base.num_children if base.first_child >= 0 else 0):
            c = base + base.first_child + j
            counts[c.action] = c.n
            priors[c.action] = c.prior
            total += c.n
        if self._gumbel and base.first_child >= 0 and base.num_children > 0:
            self._improved(base, policy, work)
        elif total > 0:
            for j in range(A):
                policy[j] = <float> (<double> counts[j] / total)

    cdef void _improved(self, Node* base, float* out, double* work) noexcept nogil:
        # pi' over the root's children, by action
        cdef Node* kids = base + base.first_child
        cdef int j
        self._improved_policy(base, 0, work)
        for j in range(base.num_children):
            out[kids[j].action] = <float> work[j]

    def pruned_policy(self, float[:, ::1] policy not None):
        """Per tree, the visit distribution with forced playouts taken out (Wu 2019, policy target
        pruning): the most visited child c* keeps its visits; any other child loses up to
        sqrt(forced_playouts * P * sum N) visits as long as its PUCT score (its Q held fixed) stays below
        that of c*, and a child left with one visit or none is dropped.  With forced_playouts = 0 or for
        a tree searched without exploration (explore 0), the plain visit distribution.
        policy: float32 (num_games, num_actions); rows of finished roots are zeros."""
        args.shape("policy", (policy.shape[0], policy.shape[1]), (self.num_games, self.num_actions))
        self._check_roots()
        cdef int i
        self._enter()
        with nogil:
            for i in prange(self.num_games, num_threads=self.threads, schedule="static"):
                memset(&policy[i, 0], 0, self.num_actions * sizeof(float))
                if header(self.roots + i * self.stride).status == RUNNING:
                    self._pruned(i, &policy[i, 0])
        self.busy = 0

    cdef void _pruned(self, int i, float* out) noexcept nogil:
        cdef Node* base = self.nodes + <Py_ssize_t> i * self.capacity
        cdef Node* kids = base + base.first_child
        cdef Node* c
        cdef int j, n = base.num_children if base.first_child >= 0 else 0, star = -1
        cdef double total = 0.0, kept = 0.0, cs = self.cfg.c_puct * sqrt(<double> base.n), best, gap, q, lo, m
        cdef bint prune = self.cfg.forced_playouts > 0 and self.explore[i]
        for j in range(n):
            total += kids[j].n
            if star < 0 or kids[j].n > kids[star].n:
                star = j
        if total <= 0:
            return
        c = kids + star
        best = c.w / c.n + cs * c.prior / (1.0 + c.n)
        for j in range(n):
            c = kids + j
            m = c.n
            if prune and j != star and c.n > 0:
                q = c.w / c.n
                lo = ceil(c.n - sqrt(self.cfg.forced_playouts * c.prior * total))    # at most n_forced visits off
                gap = best - q
                if gap > 0:     # fewest visits keeping q + cs P / (1 + m) < best
                    lo = max(lo, floor(cs * c.prior / gap - 1.0) + 1.0)
                    m = min(<double> c.n, max(lo, 0.0))
                if m <= 1:
                    m = 0
            out[c.action] = <float> m
            kept += m
        for j in range(n):
            out[kids[j].action] = <float> (out[kids[j].action] / kept)

    def choose(self, temperature, int64_t[::1] out not None):
        """out[i] = a move for tree i from its root visit counts: argmax for temperature 0 (ties
        broken at random), else sampled with probability proportional to N^(1/temperature).
        With no child visits the priors are used the same way; -1 for a finished root.
        temperature: a finite number >= 0; out: int64 (num_games,)."""
        cdef double t = args.real("temperature", temperature, 0.0)
        args.shape("out", (out.shape[0],), (self.num_games,))
        self._check_roots()
        cdef int i
        self._enter()
        with nogil:
            for i in prange(self.num_games, num_threads=self.threads, schedule="static"):
                out[i] = self._choose(i, t, self.works[threadid()].work)
        self.busy = 0

    cdef void _choice_filter(self, const Node* kids, int n, uint8_t* need, uint8_t* avoid) noexcept nogil:
        # the solver's part of the move choice: a proven win if there is one (need), else no proven
        # loss while another child is left (avoid); without the solver every child may be played
        cdef int j, lost = 0
        need[0] = 0
        avoid[0] = 0
        if not self._solver:
            return
        for j in range(n):
            if kids[j].flags & F_WIN:
                need[0] = F_WIN
            lost += (kids[j].flags & F_LOSS) != 0
        if need[0] == 0 and lost < n:
            avoid[0] = F_LOSS

    cdef int _any_eligible(self, int i, const Node* kids, int n, uint8_t need, uint8_t avoid) noexcept nogil:
        # a child drawn uniformly among those the move choice may play
        cdef int j, k, count = 0
        for j in range(n):
            count += eligible(kids + j, need, avoid)
        k = below(&self.rng[i], count)
        for j in range(n):
            if eligible(kids + j, need, avoid):
                if k == 0:
                    return j
                k -= 1
        return 0

    cdef int _choose(self, int i, double temperature, double* work) noexcept nogil:
        cdef Node* base = self.nodes + <Py_ssize_t> i * self.capacity
        cdef Node* kids = base + base.first_child
        cdef int j, n = base.num_children, ties = 0, pick = -1, visited = 0
        cdef double x, best = -1.0, total = 0.0, r
        cdef uint8_t need, avoid
        if header(self.roots + i * self.stride).status != RUNNING or base.first_child < 0 or n == 0:
            return -1
        if self._gumbel and self.gready[i]:
            return self._gumbel_choice(i, work)
        self._choice_filter(kids, n, &need, &avoid)
        for j in range(n):
            visited += kids[j].n > 0 and eligible(kids + j, need, avoid)
        if temperature <= 0:
            for j in range(n):
                if not eligible(kids + j, need, avoid):
                    continue
                x = choice_weight(kids + j, visited)
                if x > best:
                    best, ties, pick = x, 1, j
                elif x == best:
                    ties += 1
                    if below(&self.rng[i], ties) == 0:   # reservoir: each tied child kept with chance 1/ties
                        pick = j
            if pick < 0:        # no comparable weight (visit counts past 2**31): any child
                pick = self._any_eligible(i, kids, n, need, avoid)
            return kids[pick].action
        for j in range(n):
            if eligible(kids + j, need, avoid):
                best = max(best, <double> choice_weight(kids + j, visited))
        for j in range(n):
            if eligible(kids + j, need, avoid):
                x = choice_weight(kids + j, visited) / best
                total += pow(x, 1.0 / temperature) if x > 0 else 0.0
        r = uniform01(&self.rng[i]) * total
        for j in range(n):
            if not eligible(kids + j, need, avoid):
                continue
            x = choice_weight(kids + j, visited) / best
            x = pow(x, 1.0 / temperature) if x > 0 else 0.0
            if x > 0:
                pick = j
                r -= x
                if r < 0:
                    break
        if pick < 0:            # no positive weight: any child
            pick = self._any_eligible(i, kids, n, need, avoid)
        return kids[pick].action

    cdef int _gumbel_choice(self, int i, double* work) noexcept nogil:
        # the best g + log P + sigma(q) among the candidates most visited in this search (with the
        # solver, among the children _choice_filter leaves)
        cdef Node* base = self.nodes + <Py_ssize_t> i * self.capacity
        cdef Node* kids = base + base.first_child
        cdef Py_ssize_t row = <Py_ssize_t> i * self.num_actions
        cdef int j, n = base.num_children, pick = 0, most = -1, v
        cdef double x, top = -1e300
        cdef uint8_t need, avoid
        self._choice_filter(kids, n, &need, &avoid)
        self._completed_logits(base, 0, work)
        for j in range(n):
            if not eligible(kids + j, need, avoid):
                continue
            v = kids[j].n - self.base_n[row + j]
            x = self.gum[row + j] + work[j]
            if v > most or (v == most and x > top):
                most, top, pick = v, x, j
        return kids[pick].action

    def check_moves(self, const int64_t[::1] actions not None):
        """(-1, 0) if actions[i] is legal at every root, else (i, reason code) for the first that
        is not.  actions: int64 (num_games,)."""
        args.shape("actions", (actions.shape[0],), (self.num_games,))
        self._check_roots()
        self._free()
        return self._check_moves(&actions[0])

    cdef tuple _check_moves(self, const int64_t* actions):
        cdef int i, code
        cdef int64_t a
        for i in range(self.num_games):
            a = actions[i]
            if header(self.roots + i * self.stride).status != RUNNING:
                return (i, REASON_OVER)
            if a < 0 or a >= self.num_actions:
                return (i, REASON_RANGE)
            code = self.g.check(self.g.params, self.roots + i * self.stride, <int> a)
            if code != REASON_OK:
                return (i, code)
        return (-1, 0)

    def advance(self, const int64_t[::1] actions not None):
        """Play actions[i] at root i and keep that child's subtree, compacted to the front of the
        tree's node array, as the new root.  actions: int64 (num_games,); an illegal one raises
        IllegalMoveError naming the game, and then no tree is changed."""
        args.shape("actions", (actions.shape[0],), (self.num_games,))
        self._check_roots()
        self._free()
        self._idle()
        cdef int i, code
        cdef int64_t* a = self.moves
        # a private copy: the caller's array could change under the nogil loop
        memcpy(a, &actions[0], self.num_games * sizeof(int64_t))
        i, code = self._check_moves(a)
        if i >= 0:
            reason = self.spec.reason(code)
            raise IllegalMoveError(f"game {i}: illegal move {a[i]}: {reason}", action=a[i], reason=reason, game_index=i)
        self._enter()
        with nogil:
            for i in prange(self.num_games, num_threads=self.threads, schedule="dynamic", chunksize=8):
                self._advance_tree(i, <int> a[i], self.works[threadid()].spare)
        self.busy = 0

    cdef void _advance_tree(self, int i, int action, Node* spare) noexcept nogil:
        cdef Node* base = self.nodes + <Py_ssize_t> i * self.capacity
        cdef int j, keep = -1
        for j in range(base.num_children if base.first_child >= 0 else 0):
            if base[base.first_child + j].action == action:
                keep = base.first_child + j
        self.g.apply(self.g.params, self.roots + i * self.stride, action)
        if keep < 0:
            self._fresh_root(i)
        else:
            self._compact(i, keep, spare)

    cdef void _compact(self, int i, int keep, Node* out) noexcept nogil:
        # copy the subtree under `keep` breadth first into `out` (children stay contiguous), then back
        cdef Node* base = self.nodes + <Py_ssize_t> i * self.capacity
        cdef int head = 0, tail = 1, cnt, k
        out[0] = base[keep]
        out[0].parent = -1
        while head < tail:
            if out[head].first_child >= 0:
                cnt = out[head].num_children
                memcpy(out + tail, base + out[head].first_child, cnt * sizeof(Node))
                for k in range(cnt):
                    out[tail + k].parent = head
                out[head].first_child = tail
                tail += cnt
            head += 1
        memcpy(base, out, tail * sizeof(Node))
        self.used[i] = tail
        self.noised[i] = 0
        self.gready[i] = 0

    def root_proof(self, i):
        """Tree i's root value proven by the solver, for its player to move (1 win, 0 draw, -1
        loss), or None when it is not proven (or the solver is off)."""
        cdef int t = self._rooted(i)
        cdef Node* r = self.nodes + <Py_ssize_t> t * self.capacity
        self._free()
        if not (self._solver and r.flags & F_PROVEN):
            return None
        v = proven_value(r.flags)
        return v if r.mover == header(self.roots + t * self.stride).to_play else -v

    def tree_size(self, i):
        """Nodes in use in tree i."""
        return self.used[self._tree(i)]

    def node_stats(self, i, path):
        """(visits, value sum from the mover's view, mover, child visit counts (A,)) of the node
        reached from tree i's root by the actions in `path` (each in 0..num_actions-1); None if
        that node is not in the tree."""
        cdef int t = self._rooted(i)
        actions = [args.integer(f"path[{k}]", x, 0, self.num_actions - 1) for k, x in enumerate(path)]
        cdef Node* base = self.nodes + <Py_ssize_t> t * self.capacity
        cdef int node = 0, j, found, a
        counts = np.zeros(self.num_actions, np.int32)
        self._free()
        for a in actions:
            found = -1
            for j in range(base[node].num_children if base[node].first_child >= 0 else 0):
                if base[base[node].first_child + j].action == a:
                    found = base[node].first_child + j
            if found < 0:
                return None
            node = found
        for j in range(base[node].num_children if base[node].first_child >= 0 else 0):
            counts[base[base[node].first_child + j].action] = base[base[node].first_child + j].n
        return base[node].n, base[node].w, base[node].mover, counts
