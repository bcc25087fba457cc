# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled exact game solver: negamax with alpha-beta over game values {-1, 0, +1} and a
transposition table keyed by the State's Zobrist hash (used by zerogym_agents.agents.minimax).

Every game is driven through its GameDef (zerogym/_core/game.pxd): positions live on a stack of
state blobs allocated once, so a search allocates nothing per node.  The Python-facing methods
check what they are given (a State of the solver's game, the table size, the move order) before
the compiled search, which checks nothing, uses it.
"""
from cpython.mem cimport PyMem_Calloc, PyMem_Malloc, PyMem_Free
from libc.stdint cimport int8_t, int16_t, int32_t, uint64_t
from libc.string cimport memcpy, memset
cimport numpy as cnp

import numpy as np

from zerogym._core.state import same_game
from zerogym_agents.core import checks as args

from zerogym._core.game cimport GameDef, Header, header, RUNNING, TRUNCATED
from zerogym._core.state cimport State

cnp.import_array()

cdef enum:
    EXACT = 1
    LOWER = 2      # the true value is >= the stored value
    UPPER = 3      # the true value is <= the stored value

cdef uint64_t SIDE_KEY = 0x5851F42D4C957F2DULL   # mixed into the key when the second player moves

ctypedef struct Entry:
    uint64_t key
    int16_t move
    int8_t value
    int8_t flag


cdef class Solver:
    """Exact values of positions of one game (fixed GameSpec), memoized across calls.

    Solver(state, tt_bits=20, order=None, node_limit=0): `state` fixes the game; the table has
    2**tt_bits entries (16 bytes each, always-replace); `order` is the move order tried at every
    node after the table's best move (default 0..A-1); node_limit > 0 aborts a search that visits
    more nodes (then a RuntimeError).
    """
    cdef object spec
    cdef const GameDef* g
    cdef Py_ssize_t sb
    cdef int A, max_depth, aborted
    cdef char* stack
    cdef int8_t* masks
    cdef int32_t* order
    cdef Entry* tt
    cdef uint64_t tt_mask
    cdef readonly long long nodes
    cdef public long long node_limit
    cdef bint busy        # a search is running with the GIL released

    def __cinit__(self):
        self.g = NULL
        self.stack = NULL
        self.masks = NULL
        self.order = NULL
        self.tt = NULL

    def __init__(self, State state not None, tt_bits=20, order=None, long long node_limit=0):
        _check_state(state)
        cdef const GameDef* g = state.g
        cdef int A = g.num_actions, bits = args.integer("tt_bits", tt_bits, 4, 30), i
        ordered = np.arange(A) if order is None else np.asarray(order)
        if ordered.dtype.kind not in "iu":
            raise TypeError(f"order must be integers (a permutation of 0..{A - 1}), got dtype {ordered.dtype}")
        if ordered.shape != (A,) or sorted(ordered.tolist()) != list(range(A)):
            raise ValueError(f"order must be a permutation of 0..{A - 1}, got {_short_repr(order)}")
        # no supported game lasts longer than 2 * (cells + 2) moves (Othello passes alternate with placements)
        cdef int max_depth = 2 * (g.height * g.width + 2) + 8
        need = (max_depth + 1) * g.state_bytes + (max_depth + 1) * A + A * sizeof(int32_t) + (1 << bits) * sizeof(Entry)
        # a new table and stacks first: on any failure this solver is left as it was
        self._free()
        cdef char* stack = <char*> PyMem_Calloc(max_depth + 1, g.state_bytes)
        cdef int8_t* masks = <int8_t*> PyMem_Malloc((max_depth + 1) * A)
        cdef int32_t* order_p = <int32_t*> PyMem_Malloc(A * sizeof(int32_t))
        cdef Entry* tt = <Entry*> PyMem_Calloc((<size_t> 1) << bits, sizeof(Entry))
        if stack == NULL or masks == NULL or order_p == NULL or tt == NULL:
            PyMem_Free(stack)
            PyMem_Free(masks)
            PyMem_Free(order_p)
            PyMem_Free(tt)
            raise MemoryError(f"minimax solver: a table of 2**{bits} entries and {state.spec.name} search stacks "
                              f"need {need} bytes, which could not be allocated")
        for i in range(A):
            order_p[i] = ordered[i]
        PyMem_Free(self.stack)
        PyMem_Free(self.masks)
        PyMem_Free(self.order)
        PyMem_Free(self.tt)
        self.spec = state.spec
        self.g = g
        self.sb = g.state_bytes
        self.A = A
        self.max_depth = max_depth
        self.stack, self.masks, self.order, self.tt = stack, masks, order_p, tt
        self.tt_mask = ((<uint64_t> 1) << bits) - 1
        self.node_limit = node_limit
        self.nodes = 0
        self.aborted = 0

    def __dealloc__(self):
        PyMem_Free(self.stack)
        PyMem_Free(self.masks)
        PyMem_Free(self.order)
        PyMem_Free(self.tt)

    cdef int _ready(self) except -1:
        if self.g == NULL:
            raise RuntimeError("this Solver was not initialised: make one with Solver(state, ...)")
        return 0

    cdef int _free(self) except -1:
        if self.busy:
            raise RuntimeError("minimax Solver: another thread is searching with this solver; one call at a time")
        return 0

    def clear(self):
        """Forget every stored position."""
        self._ready()
        self._free()
        memset(self.tt, 0, (self.tt_mask + 1) * sizeof(Entry))

    cdef int _search(self, int d, int alpha, int beta) noexcept nogil:
        # value of stack[d] (running) for its player to move
        cdef char* s = self.stack + d * self.sb
        cdef Header* h = header(s)
        cdef int p = h.to_play, alpha0 = alpha, best = -2, best_move = -1, tt_move = -1, k, a, v
        cdef uint64_t key = h.hash ^ (SIDE_KEY if p else 0)
        cdef Entry* e = &self.tt[key & self.tt_mask]
        cdef int8_t* mask = self.masks + d * self.A
        if e.flag and e.key == key:
            if e.flag == EXACT:
                return e.value
            if e.flag == LOWER and e.value > alpha:
                alpha = e.value
            elif e.flag == UPPER and e.value < beta:
                beta = e.value
            if alpha >= beta:
                return e.value
            tt_move = e.move
        self.nodes += 1
        if (self.node_limit > 0 and self.nodes > self.node_limit) or d + 1 >= self.max_depth:
            self.aborted = 1 if d + 1 < self.max_depth else 2
            return 0
        self.g.legal(self.g.params, s, mask)
        for k in range(-1, self.A):
            if k < 0:
                a = tt_move
                if a < 0:
                    continue
            else:
                a = self.order[k]
                if a == tt_move:
                    continue
            if not mask[a]:
                continue
            v = self._move_value(d, a, alpha, beta)
            if self.aborted:
                return 0
            if v > best:
                best = v
                best_move = a
            if v > alpha:
                alpha = v
            if alpha >= beta:
                break
        e.key = key
        e.value = best
        e.move = best_move
        e.flag = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)
        return best

    cdef int _move_value(self, int d, int a, int alpha, int beta) noexcept nogil:
        # value of action a at stack[d] for its player to move: the child, written to stack[d + 1],
        # scored if the game ended there, else searched in the window (alpha, beta)
        cdef char* child = self.stack + (d + 1) * self.sb
        cdef int p = header(self.stack + d * self.sb).to_play
        cdef Header* ch
        memcpy(child, self.stack + d * self.sb, self.sb)
        self.g.apply(self.g.params, child, a)
        ch = header(child)
        if ch.status != RUNNING:
            return 0 if (ch.status == TRUNCATED or ch.winner < 0) else (1 if ch.winner == p else -1)
        if ch.to_play == p:
            return self._search(d + 1, alpha, beta)
        return -self._search(d + 1, -beta, -alpha)

    cdef void _load(self, State st) except *:
        self._ready()
        _check_state(st)
        if not same_game(st.spec, self.spec):
            raise ValueError(f"this solver is for {self.spec!r}, got a {st.spec!r} state (same game and kwargs needed)")
        if st.is_over():
            raise ValueError("the game is over: there is nothing to solve")
        self._free()
        memcpy(self.stack, st.s, self.sb)

    cdef void _raise_if_aborted(self) except *:
        cdef int why = self.aborted
        self.aborted = 0
        if why == 1:
            raise RuntimeError(f"minimax: searched more than node_limit={self.node_limit} nodes; this position "
                               f"is too large for exact search (raise node_limit, or use a smaller board)")
        if why == 2:
            raise RuntimeError(f"minimax: game longer than {self.max_depth} moves; not a game this solver supports")

    def value(self, State st not None):
        """Exact game value for the player to move: +1 win, 0 draw, -1 loss (with perfect play)."""
        self._load(st)
        self.nodes = 0
        cdef int v
        self.busy = 1
        with nogil:
            v = self._search(0, -1, 1)
        self.busy = 0
        self._raise_if_aborted()
        return v

    def action_values(self, State st not None):
        """int8 array (A,): the exact value of each legal action for the player to move
        (+1 / 0 / -1), and -2 for illegal actions."""
        self._ready()
        cdef cnp.ndarray out = np.full(self.A, -2, dtype=np.int8)
        cdef int8_t* o = <int8_t*> cnp.PyArray_DATA(out)
        self._load(st)          # no Python call from here to the nogil block: no other thread can step in
        self.nodes = 0
        cdef int a, v
        self.g.legal(self.g.params, self.stack, self.masks)
        self.busy = 1
        with nogil:
            for a in range(self.A):
                if not self.masks[a]:
                    continue
                v = self._move_value(0, a, -1, 1)
                if self.aborted:
                    break
                o[a] = v
        self.busy = 0
        self._raise_if_aborted()
        return out


cdef int _check_state(State st) except -1:
    if st.s == NULL or st.spec is None or not st.spec.ready:
        raise ValueError("an uninitialised State (make states with zerogym.make_state)")
    return 0


def _short_repr(x):
    r = repr(x)
    return r if len(r) <= 80 else r[:77] + "..."
