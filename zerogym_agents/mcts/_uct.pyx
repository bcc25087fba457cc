# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Classic MCTS: UCB1 selection (Kocsis & Szepesvari 2006) and one uniformly random rollout per
simulation, compiled over any zerogym game (the UCTAgent baseline).

Same scheme as OpenSpiel's MCTSBot with a RandomRolloutEvaluator: a node gets its children (all
legal actions, in a random order) on its second visit; unvisited children are tried first, in
that order; then the child maximising Q + c * sqrt(ln N_parent / N) is taken.  The rollout plays
uniformly random legal moves to the end; the result is backed up (+1 win, -1 loss, 0 draw or
truncation) from the view of each node's mover (the player who chose the edge into it).
Random numbers come from one splitmix64 stream seeded per search.

The Python-facing methods check every argument (the State's game, counts, the visits buffer)
before the compiled loops, which check nothing, use them.
"""
from cpython.mem cimport PyMem_Malloc, PyMem_Calloc, PyMem_Free, PyMem_Realloc
from libc.math cimport sqrt, log
from libc.string cimport memcpy
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint64_t

import numpy as np

from zerogym._core.state import same_game
from zerogym_agents.core import checks as args

from zerogym._core.game cimport GameDef, Header, header, splitmix64, RUNNING, TERMINAL, REASON_OK
from zerogym._core.spec cimport GameSpec
from zerogym._core.state cimport State
from zerogym_agents.mcts._rng cimport next_u64, below

cdef enum:
    REJECTION_TRIES = 8   # random actions tried with check() before computing the full legal mask
    MAX_ACTIONS = 32767   # UNode.action and UNode.num_children are 16 bits
    INT32_MAX = 2147483647


ctypedef struct UNode:
    int32_t first_child    # -1 until expanded
    int32_t parent
    float w                # result sum from the view of `mover`
    int32_t n
    int16_t action
    int16_t num_children
    int16_t tried          # children visited so far (they are visited in their stored order first)
    int8_t mover


cdef class UCTCore:
    """One UCT search tree over a game; search(state, simulations, c, seed) runs a whole search."""
    cdef readonly GameSpec spec
    cdef const GameDef* g
    cdef readonly int num_actions
    cdef readonly Py_ssize_t capacity
    cdef Py_ssize_t stride, used
    cdef char* root
    cdef char* scratch
    cdef int8_t* mask
    cdef int16_t* order
    cdef UNode* nodes
    cdef uint64_t rng
    cdef readonly int64_t full_events
    cdef double c_explore
    cdef bint busy        # a search is running with the GIL released

    def __cinit__(self, GameSpec spec not None, capacity):
        if not spec.ready:
            raise ValueError("UCTCore needs a GameSpec built by a game module's make_spec")
        if not 1 <= spec.d.num_actions <= MAX_ACTIONS:
            raise ValueError(f"{spec.name}: {spec.d.num_actions} actions; the search holds 1..{MAX_ACTIONS}")
        self.spec = spec
        self.g = &spec.d
        self.num_actions = spec.d.num_actions
        self.stride = spec.d.state_bytes
        self.capacity = 0
        self.root = <char*> PyMem_Calloc(1, self.stride)
        self.scratch = <char*> PyMem_Calloc(1, self.stride)
        self.mask = <int8_t*> PyMem_Malloc(self.num_actions)
        self.order = <int16_t*> PyMem_Malloc(self.num_actions * sizeof(int16_t))
        if self.root == NULL or self.scratch == NULL or self.mask == NULL or self.order == NULL:
            raise MemoryError(f"UCTCore: {2 * self.stride + 3 * self.num_actions} bytes for {spec.name} "
                              "search buffers could not be allocated")
        self.nodes = NULL
        self.reserve(capacity)

    def __dealloc__(self):
        PyMem_Free(self.root)
        PyMem_Free(self.scratch)
        PyMem_Free(self.mask)
        PyMem_Free(self.order)
        PyMem_Free(self.nodes)

    def reserve(self, capacity):
        """Make room for at least `capacity` nodes, 1..2**31-1 (kept between searches)."""
        cdef Py_ssize_t n = args.integer("capacity", capacity, 1, INT32_MAX)
        cdef UNode* p
        if n <= self.capacity:
            return
        self._free()
        p = <UNode*> PyMem_Realloc(self.nodes, n * sizeof(UNode))
        if p == NULL:
            raise MemoryError(f"UCTCore: a tree of {n} nodes needs {n * sizeof(UNode)} bytes "
                              f"({sizeof(UNode)} per node), which could not be allocated")
        self.nodes = p
        self.capacity = n

    cdef int _free(self) except -1:
        if self.busy:
            raise RuntimeError("UCTCore: another thread is searching with this core; one search at a time")
        return 0

    def search(self, State state not None, simulations, c, seed, int64_t[::1] visits not None):
        """Run `simulations` (1..2**31-1) simulations from `state` (a running State of this game and
        kwargs) with exploration constant c (finite, >= 0) and random stream `seed` (any int, mod
        2**64); write root child visit counts into visits (int64, (A,)).

        Returns (action, root value): the most visited child (ties: larger value sum, then the
        random child order), and the mean result from the view of the player to move at the root."""
        cdef int i, best = -1, j
        cdef UNode* r
        cdef UNode* ch
        cdef double total_w = 0.0
        cdef int64_t total_n = 0
        if state.s == NULL or state.spec is None:
            raise ValueError("state is an uninitialised State (make states with zerogym.make_state)")
        if not same_game(state.spec, self.spec):
            raise ValueError(f"a state of {state.spec!r} does not fit a search of {self.spec!r} "
                             "(same game and kwargs needed)")
        cdef int n = args.integer("simulations", simulations, 1, INT32_MAX)
        cdef double c_explore = args.real("c", c, 0.0)
        cdef uint64_t key = args.seed64("seed", seed)
        if header(state.s).status != RUNNING:
            raise ValueError("the game is over: there is no move to search")
        args.shape("visits", (visits.shape[0],), (self.num_actions,))
        self._free()
        memcpy(self.root, state.s, self.stride)
        self.rng = splitmix64(key)
        self.c_explore = c_explore
        self.busy = 1
        with nogil:
            r = self.nodes
            r.first_child = -1
            r.parent = -1
            r.w = 0.0
            r.n = 0
            r.action = -1
            r.num_children = 0
            r.tried = 0
            r.mover = <int8_t> (1 - header(self.root).to_play)
            self.used = 1
            for i in range(n):
                self._simulate()
            for j in range(self.num_actions):
                visits[j] = 0
            if r.first_child >= 0:
                for j in range(r.num_children):
                    ch = self.nodes + r.first_child + j
                    visits[ch.action] = ch.n
                    total_n += ch.n
                    total_w += ch.w
                    if (best < 0 or ch.n > self.nodes[best].n or
                            (ch.n == self.nodes[best].n and ch.w > self.nodes[best].w)):
                        best = r.first_child + j
        self.busy = 0
        if best < 0:      # too few simulations to expand the root: a random legal move
            self.g.legal(self.g.params, self.root, self.mask)
            return self._random_legal(self.root), 0.0
        return self.nodes[best].action, (total_w / total_n if total_n > 0 else 0.0)

    def tree_size(self):
        return self.used

    cdef void _simulate(self) noexcept nogil:
        cdef char* s = self.scratch
        cdef Header* h = header(s)
        cdef int node = 0, j, best, a
        cdef UNode* nd
        cdef UNode* ch
        cdef double log_n, score, best_score, v
        memcpy(s, self.root, self.stride)
        while h.status == RUNNING:
            nd = self.nodes + node
            if nd.n == 0:
                break          # first visit: the rollout starts here
            if nd.first_child < 0 and not self._expand(node, h.to_play):
                break          # tree full: roll out from here
            if nd.tried < nd.num_children:
                best = nd.tried
                nd.tried += 1
            else:
                log_n = log(<double> nd.n)
                best = 0
                best_score = -1e300
                for j in range(nd.num_children):
                    ch = self.nodes + nd.first_child + j
                    score = ch.w / ch.n + self.c_explore * sqrt(log_n / ch.n)
                    if score > best_score:
                        best_score = score
                        best = j
            node = nd.first_child + best
            self.g.apply(self.g.params, s, self.nodes[node].action)
        # rollout
        while h.status == RUNNING:
            a = self._random_move(s)
            self.g.apply(self.g.params, s, a)
        # back up the result from each mover's view
        while node >= 0:
            nd = self.nodes + node
            nd.n += 1
            if h.status == TERMINAL and h.winner >= 0:
                nd.w += 1.0 if nd.mover == h.winner else -1.0
            node = nd.parent

    cdef bint _expand(self, int node, int player) noexcept nogil:
        # give `node` one child per legal action, in a uniformly random order (Fisher-Yates)
        cdef UNode* nd = self.nodes + node
        cdef UNode* ch
        cdef int a, j, k, count = 0
        cdef int16_t t
        self.g.legal(self.g.params, self.scratch, self.mask)
        for a in range(self.num_actions):
            if self.mask[a]:
                self.order[count] = <int16_t> a
                count += 1
        if count == 0 or self.used + count > self.capacity:
            if count > 0:
                self.full_events += 1
            return False
        for j in range(count - 1, 0, -1):
            k = below(&self.rng, j + 1)
            t = self.order[j]
            self.order[j] = self.order[k]
            self.order[k] = t
        nd.first_child = <int32_t> self.used
        nd.num_children = <int16_t> count
        nd.tried = 0
        for j in range(count):
            ch = self.nodes + self.used + j
            ch.first_child = -1
            ch.parent = node
            ch.w = 0.0
            ch.n = 0
            ch.action = self.order[j]
            ch.num_children = 0
            ch.tried = 0
            ch.mover = <int8_t> player
        self.used += count
        return True

    cdef inline int _random_move(self, char* s) noexcept nogil:
        # uniform over the legal actions: rejection sampling with check(), then the full mask
        cdef int t, a
        for t in range(REJECTION_TRIES):
            a = below(&self.rng, self.num_actions)
            if self.g.check(self.g.params, s, a) == REASON_OK:
                return a
        self.g.legal(self.g.params, s, self.mask)
        return self._random_legal(s)

    cdef int _random_legal(self, char* s) noexcept nogil:
        # the k-th set entry of self.mask for k uniform (0 if none is set)
        cdef int a, k, count = 0
        for a in range(self.num_actions):
            count += self.mask[a] != 0
        if count == 0:
            return 0
        k = below(&self.rng, count)
        for a in range(self.num_actions):
            if self.mask[a]:
                if k == 0:
                    return a
                k -= 1
        return 0
