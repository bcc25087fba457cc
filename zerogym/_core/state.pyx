# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""State: one game position, driven through the compiled GameDef of its GameSpec."""
from cpython.mem cimport PyMem_Malloc, PyMem_Calloc, PyMem_Free
from cpython.long cimport PyLong_AsLongAndOverflow
from libc.string cimport memcpy, memcmp, memset
from libc.stdint cimport int8_t
cimport numpy as cnp
import operator

import numpy as np

from zerogym._core.game cimport (Header, header, REASON_OK, REASON_RANGE, REASON_OVER, BLOB_OK,
                                 RUNNING, TERMINAL, TRUNCATED)
from zerogym.errors import ActionTypeError, IllegalMoveError

cnp.import_array()

cdef enum:
    MAX_STACK_ACTIONS = 1024   # every supported game has fewer actions (Go 25x25: 626)


cdef class State:
    """A game position: reset, copy, step, legal moves, observations, hashing.

    Each game module subclasses this with a constructor taking the game's kwargs (e.g.
    ``GoState(board_size=9)``).  Stepping and legality run in compiled code without allocation.
    """

    def __cinit__(self):
        self.s = NULL
        self._scratch = NULL
        self.g = NULL

    def __init__(self, *args, **kwargs):
        raise TypeError("State is the base class of the games' states: make one with "
                        "zerogym.make_state(game, **kwargs) or a game's class, e.g. GoState(board_size=9)")

    def __dealloc__(self):
        PyMem_Free(self.s)
        PyMem_Free(self._scratch)

    cdef void _adopt(self, GameSpec spec) except *:
        self.spec = spec
        self.g = &spec.d
        self.s = <char*> PyMem_Calloc(1, spec.d.state_bytes)   # zeroed: padding bytes stay 0, so memcmp/pickle see positions only
        self._scratch = <signed char*> PyMem_Malloc(spec.d.height * spec.d.width * spec.d.planes)
        if self.s == NULL or self._scratch == NULL:
            raise MemoryError()

    @classmethod
    def from_spec(cls, GameSpec spec):
        """A new state at the start position of `spec`'s game."""
        if not spec.ready:
            raise ValueError("from_spec needs a GameSpec built by a game module's make_spec")
        cdef State st = cls.__new__(cls)
        st._adopt(spec)
        st.reset()
        return st

    # ---- lifecycle -------------------------------------------------------------------------
    def reset(self):
        """Back to the start position (every byte of the blob rewritten, so equal positions are equal bytes)."""
        self.restart()
        return self

    cdef void restart(self) noexcept nogil:
        """reset's body, for compiled callers."""
        memset(self.s, 0, self.g.state_bytes)
        self.g.reset(self.g.params, self.s)

    def copy(self):
        """An independent copy (one memcpy)."""
        cdef State st = type(self).__new__(type(self))
        st._adopt(self.spec)
        memcpy(st.s, self.s, self.g.state_bytes)
        return st

    def copy_from(self, State other):
        """Overwrite this state with `other` (same game and kwargs) without allocating."""
        if not same_game(other.spec, self.spec):
            raise ValueError(f"cannot copy a {other.spec!r} state into a {self.spec!r} state")
        memcpy(self.s, other.s, self.g.state_bytes)

    def to_bytes(self):
        """The raw state blob (position independent); see from_bytes."""
        return (<char*> self.s)[:self.g.state_bytes]

    def load_bytes(self, bytes blob):
        """Load a blob written by to_bytes for the same game and kwargs.

        The blob is untrusted: the game's compiled validator checks every field of a copy of it
        (header values in range, every cell, the derived fields against the board) before this
        state takes it.  A bad blob raises ValueError naming the game and the field, and this
        state is unchanged.
        """
        cdef Py_ssize_t n = self.g.state_bytes
        cdef int code
        if len(blob) != n:
            raise ValueError(f"{self.spec.name}: state blob has {len(blob)} bytes, "
                             f"this game at {_kwargs_text(self.spec)} needs {n}")
        cdef char* tmp = <char*> PyMem_Malloc(n)
        if tmp == NULL:
            raise MemoryError(f"{n} bytes for a state blob")
        memcpy(tmp, <char*> blob, n)
        code = self.g.validate(self.g.params, tmp)
        if code == BLOB_OK:
            memcpy(self.s, tmp, n)
        PyMem_Free(tmp)
        if code != BLOB_OK:
            raise ValueError(f"invalid {self.spec.name} state blob ({_kwargs_text(self.spec)}): "
                             f"{self.spec.blob_error(code)}")

    def __reduce__(self):
        return (_restore, (type(self), self.spec.kwargs, self.to_bytes()))

    # ---- queries ---------------------------------------------------------------------------
    @property
    def current_player(self):
        """0 for the first player, 1 for the second."""
        return header(self.s).to_play

    @property
    def num_actions(self):
        return self.g.num_actions

    @property
    def move_count(self):
        return header(self.s).moves

    @property
    def last_action(self):
        """The last action played, or -1 at the start."""
        return header(self.s).last_action

    @property
    def hash(self):
        """Zobrist hash of the position (an unsigned 64-bit int)."""
        return header(self.s).hash

    @property
    def winner(self):
        """0 or 1 for a finished game with a winner, -1 for a draw or an unfinished game."""
        return header(self.s).winner

    def is_terminal(self):
        """True when the game ended by its rules."""
        return header(self.s).status == TERMINAL

    def is_truncated(self):
        """True when the game was cut off by a move limit (Go's max_moves)."""
        return header(self.s).status == TRUNCATED

    def is_over(self):
        return header(self.s).status != RUNNING

    def returns(self):
        """(return of player 0, return of player 1): +1/-1 for a win, 0 for draws and unfinished games."""
        cdef Header* h = header(self.s)
        if h.status != TERMINAL or h.winner < 0:
            return (0.0, 0.0)
        return (1.0, -1.0) if h.winner == 0 else (-1.0, 1.0)

    def legal_mask(self, out=None):
        """int8 array (num_actions,): 1 where the action is legal."""
        cdef cnp.npy_intp n = self.g.num_actions
        if out is None:
            out = cnp.PyArray_EMPTY(1, &n, cnp.NPY_INT8, 0)
        else:
            _check_out(out, cnp.NPY_INT8, (self.g.num_actions,))
        self.g.legal(self.g.params, self.s, <int8_t*> cnp.PyArray_DATA(out))
        return out

    def legal_actions(self):
        """Sorted int64 array of the legal actions."""
        cdef int8_t stack_mask[MAX_STACK_ACTIONS]
        if self.g.num_actions > MAX_STACK_ACTIONS:
            return np.flatnonzero(self.legal_mask())
        cdef cnp.npy_intp count = self.g.legal(self.g.params, self.s, stack_mask)
        cdef cnp.ndarray out = cnp.PyArray_EMPTY(1, &count, cnp.NPY_INT64, 0)
        cdef cnp.int64_t* o = <cnp.int64_t*> cnp.PyArray_DATA(out)
        cdef int i, j = 0
        for i in range(self.g.num_actions):
            if stack_mask[i]:
                o[j] = i
                j += 1
        return out

    cdef int _check(self, int action) noexcept nogil:
        if header(self.s).status != RUNNING:
            return REASON_OVER
        if action < 0 or action >= self.g.num_actions:
            return REASON_RANGE
        return self.g.check(self.g.params, self.s, action)

    def is_legal(self, action):
        """True if `action` is legal here (an int of any size; anything else raises ActionTypeError)."""
        cdef int a
        return _reason(self, action_index(action, self.g.num_actions), &a) == REASON_OK

    def illegal_reason(self, action):
        """None if `action` is legal here, else a sentence saying why not."""
        cdef int a
        cdef int code = _reason(self, action_index(action, self.g.num_actions), &a)
        return None if code == REASON_OK else self.spec.reason(code)

    def step(self, action):
        """Play `action` for the player to move.

        Raises IllegalMoveError (a ValueError) naming the move, the player and the reason, or
        ActionTypeError (an IllegalMoveError and a TypeError) for anything but an int (bools
        included); the state is then unchanged.  The action is converted to a C int once, and
        that value is both checked and played.
        """
        self.play(action)
        return self

    cdef int play(self, object action) except -1:
        """step's body, for compiled callers (the AEC env)."""
        cdef int a
        index = action if type(action) is int else action_index(action, self.g.num_actions)    # no call for an int
        cdef int code = _reason(self, index, &a)
        if code != REASON_OK:
            self._raise_illegal(index, code)
        self.g.apply(self.g.params, self.s, a)
        return 0

    def _raise_illegal(self, a, int code):
        player = agent_name(self.spec, header(self.s).to_play)
        if code == REASON_RANGE:
            move = f"action {a}"
        else:
            move = f"{self.spec.action_name(a)} (action {a})"
        raise IllegalMoveError(f"illegal move {move} by {player}: {self.spec.reason(code)}",
                               action=a, player=player, reason=self.spec.reason(code))

    def observation(self, player=None, out=None):
        """int8 array (H, W, C): the planes (see spec.plane_info) seen from `player` (default: to move)."""
        cdef cnp.npy_intp dims[3]
        cdef int p = header(self.s).to_play if player is None else _player(player)
        if out is None:
            dims[0], dims[1], dims[2] = self.g.height, self.g.width, self.g.planes
            out = cnp.PyArray_EMPTY(3, dims, cnp.NPY_INT8, 0)
        else:
            _check_out(out, cnp.NPY_INT8, self.spec.obs_shape)
        self.g.observe(self.g.params, self.s, p, <int8_t*> cnp.PyArray_DATA(out))
        return out

    def encode(self, out=None):
        """float32 array (C, H, W) from the mover's view: the observation planes, channels first."""
        cdef int H = self.g.height, W = self.g.width, C = self.g.planes
        cdef cnp.npy_intp dims[3]
        if out is None:
            dims[0], dims[1], dims[2] = C, H, W
            out = cnp.PyArray_EMPTY(3, dims, cnp.NPY_FLOAT32, 0)
        else:
            _check_out(out, cnp.NPY_FLOAT32, (C, H, W))
        cdef float* o = <float*> cnp.PyArray_DATA(out)
        cdef int i, c, HW = H * W
        self.g.observe(self.g.params, self.s, header(self.s).to_play, <int8_t*> self._scratch)
        for i in range(HW):
            for c in range(C):
                o[c * HW + i] = self._scratch[i * C + c]
        return out

    def __call__(self):
        """The global state as PettingZoo's AECEnv.state() returns it: the observation from player 0's view."""
        return self.observation(0)

    def board(self):
        """int8 (H, W): 0 empty, 1 a first-player piece, 2 a second-player piece.  A copy of the blob's
        board where the game's layout has one of H * W int8 cells (row-major), else from the observation."""
        cdef int H = self.g.height, W = self.g.width
        place = self.spec.layout.get("board")
        if place is not None and tuple(place[1:]) == ("i1", H * W):
            cells = <const int8_t[:H * W]> <const int8_t*> (self.s + <Py_ssize_t> place[0])
            return np.asarray(cells).reshape(H, W).copy()
        o = self.observation(0)
        return (o[:, :, 0] + 2 * o[:, :, 1]).astype(np.int8)

    def symmetries(self):
        """The board transforms that preserve this game's rules (a zerogym.symmetry.Symmetries)."""
        return self.spec.symmetries

    # ---- identity --------------------------------------------------------------------------
    def __eq__(self, other):
        if not isinstance(other, State):
            return NotImplemented
        cdef State o = other
        if o.spec.name != self.spec.name or o.spec.kwargs != self.spec.kwargs:
            return False
        return memcmp(self.s, o.s, self.g.state_bytes) == 0

    def __hash__(self):
        return hash((header(self.s).hash, header(self.s).to_play, header(self.s).moves))

    def __repr__(self):
        return f"<{type(self).__name__} {self.spec.name} move {self.move_count}, player {self.current_player} to play>"


def action_index(action, int num_actions):
    """`action` as an exact Python int, from one call of its __index__; ActionTypeError for a
    bool or anything that is not an integer."""
    if type(action) is int:
        return action
    if isinstance(action, (bool, np.bool_)):
        raise ActionTypeError(f"action must be an int in 0..{num_actions - 1}, not a bool (got {action!r})")
    try:
        a = operator.index(action)
    except TypeError:
        raise ActionTypeError(f"action must be an int in 0..{num_actions - 1}, "
                              f"got {_short_repr(action)} ({type(action).__name__})") from None
    return a if type(a) is int else int.__index__(a)    # an int subclass: its plain value


cdef int _reason(State st, object index, int* a) except -1:
    """The GameDef reason code for `index` (an exact int from action_index), with the C int
    that was checked in a[0] (0 unless the code is REASON_OK)."""
    cdef int overflow
    cdef long v = PyLong_AsLongAndOverflow(index, &overflow)
    a[0] = 0
    if overflow or not 0 <= v < st.g.num_actions:
        return REASON_OVER if header(st.s).status != RUNNING else REASON_RANGE
    a[0] = <int> v
    return st._check(a[0])


def agent_name(GameSpec spec, int player):
    """The agent name of player 0 or 1 (a bounds-checked lookup: `player` may come from a blob)."""
    return spec.agents[player] if 0 <= player < len(spec.agents) else f"player {player}"


def same_game(GameSpec a not None, GameSpec b not None):
    """True if states of specs a and b have the same layout (same game, same kwargs).  The compiled
    sizes are compared too: they, not the (mutable) kwargs dicts, decide what a memcpy may copy."""
    return a is b or (a.name == b.name and a.kwargs == b.kwargs and a.d.state_bytes == b.d.state_bytes
                      and a.d.num_actions == b.d.num_actions and a.d.height == b.d.height
                      and a.d.width == b.d.width and a.d.planes == b.d.planes)


def _kwargs_text(GameSpec spec):
    return ", ".join(f"{k}={v!r}" for k, v in spec.kwargs.items())


def _short_repr(x):
    try:
        r = repr(x)
    except Exception:
        r = f"<{type(x).__name__} object>"
    return r if len(r) <= 80 else r[:77] + "..."


cdef int _player(object player) except -1:
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    return player


cdef _check_out(object out, int typenum, tuple shape):
    if not cnp.PyArray_Check(out) or cnp.PyArray_TYPE(out) != typenum or not cnp.PyArray_IS_C_CONTIGUOUS(out) \
            or out.shape != shape:
        raise ValueError(f"out must be a C-contiguous {np.dtype(cnp.PyArray_DescrFromType(typenum))} array "
                         f"of shape {shape}, got {getattr(out, 'dtype', type(out))} {getattr(out, 'shape', '')}")


def _restore(cls, kwargs, blob):
    st = cls(**kwargs)
    st.load_bytes(blob)
    return st
