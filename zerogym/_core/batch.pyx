# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Batch: N games of one GameSpec stepped together in compiled loops (the vector fast path)."""
from cpython.mem cimport PyMem_Malloc, PyMem_Calloc, PyMem_Free
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
import numpy as np

from zerogym._core.game cimport (GameDef, Header, header, splitmix64, REASON_OK, REASON_RANGE,
                                 RUNNING, TERMINAL, TRUNCATED)
from zerogym._core.spec cimport GameSpec
from zerogym._core.state cimport State


cdef inline void observe_and_mask(const GameDef* g, char* s, int8_t* obs, int8_t* mask) noexcept nogil:
    # the mover's observation and the legal mask, fused where the game offers it
    if g.observe_mover != NULL:
        g.observe_mover(g.params, s, obs, mask)
    else:
        g.observe(g.params, s, header(s).to_play, obs)
        g.legal(g.params, s, mask)


cdef class Batch:
    """N independent games laid end to end in one buffer.

    Results are written into caller-owned arrays so that a step allocates nothing.  Observation
    arrays are passed as 2-D views (N, H*W*C); masks as (N, num_actions).
    """
    cdef readonly GameSpec spec
    cdef const GameDef* g
    cdef readonly int n
    cdef char* blobs
    cdef Py_ssize_t stride
    cdef uint64_t rng

    def __cinit__(self, GameSpec spec, int n):
        if n < 1:
            raise ValueError(f"num_envs must be >= 1, got {n}")
        self.spec = spec
        self.g = &spec.d
        self.n = n
        self.stride = spec.d.state_bytes
        self.rng = splitmix64(0) | 1
        self.blobs = <char*> PyMem_Calloc(n, self.stride)   # zeroed padding, as in State
        if self.blobs == NULL:
            raise MemoryError()

    def __dealloc__(self):
        PyMem_Free(self.blobs)

    def reset(self, int8_t[:, ::1] obs, int8_t[:, ::1] mask, int32_t[::1] to_play):
        """Reset every game and write its first observation, mask and player to move."""
        cdef int i
        cdef char* s
        with nogil:
            memset(self.blobs, 0, self.n * self.stride)
            for i in range(self.n):
                s = self.blobs + i * self.stride
                self.g.reset(self.g.params, s)
                observe_and_mask(self.g, s, &obs[i, 0], &mask[i, 0])
                to_play[i] = 0

    def step(self, const int64_t[::1] actions, int8_t[:, ::1] obs, int8_t[:, ::1] mask,
             float[::1] rewards, uint8_t[::1] terminated, uint8_t[::1] truncated,
             int32_t[::1] to_play, int8_t[:, ::1] final_obs, uint8_t[::1] done):
        """Play actions[i] in game i; finished games are reset in the same call.

        Returns (-1, 0) on success, or (i, reason) for the first illegal action, in which case no
        game was changed.  rewards[i] is the reward of the player who just moved.
        """
        cdef int i, code = REASON_OK, bad = -1, mover, na = self.g.num_actions
        cdef int64_t a
        cdef char* s
        cdef Header* h
        if actions.shape[0] != self.n:
            raise ValueError(f"expected {self.n} actions, got {actions.shape[0]}")
        with nogil:
            for i in range(self.n):
                a = actions[i]
                if a < 0 or a >= na:
                    code = REASON_RANGE
                else:
                    code = self.g.check(self.g.params, self.blobs + i * self.stride, <int> a)
                if code != REASON_OK:
                    bad = i
                    break
        if bad >= 0:
            return (bad, code)
        with nogil:
            for i in range(self.n):
                s = self.blobs + i * self.stride
                h = header(s)
                mover = h.to_play
                self.g.apply(self.g.params, s, <int> actions[i])
                rewards[i] = 0.0
                terminated[i] = h.status == TERMINAL
                truncated[i] = h.status == TRUNCATED
                done[i] = h.status != RUNNING
                if h.status != RUNNING:
                    if h.status == TERMINAL and h.winner >= 0:
                        rewards[i] = 1.0 if h.winner == mover else -1.0
                    self.g.observe(self.g.params, s, h.to_play, &final_obs[i, 0])
                    self.g.reset(self.g.params, s)
                to_play[i] = h.to_play
                observe_and_mask(self.g, s, &obs[i, 0], &mask[i, 0])
        return (-1, 0)

    def seed(self, uint64_t seed):
        """Seed the generator of sample()."""
        self.rng = splitmix64(seed) | 1

    def sample(self, const int8_t[:, ::1] mask, int64_t[::1] out):
        """out[i] = a uniformly random action with mask[i, a] == 1 (0 where none is legal)."""
        cdef int i, a, k, count, na = mask.shape[1]
        cdef uint64_t x = self.rng
        if mask.shape[0] != out.shape[0]:
            raise ValueError(f"mask has {mask.shape[0]} rows, out has {out.shape[0]} entries")
        with nogil:
            for i in range(mask.shape[0]):
                count = 0
                for a in range(na):
                    count += mask[i, a] != 0
                out[i] = 0
                if count == 0:
                    continue
                x ^= x << 13          # xorshift64
                x ^= x >> 7
                x ^= x << 17
                k = <int> ((x >> 11) % <uint64_t> count)
                for a in range(na):
                    if mask[i, a] != 0:
                        if k == 0:
                            out[i] = a
                            break
                        k -= 1
        self.rng = x

    def encode(self, float[:, :, :, ::1] out):
        """Write every game's planes from its mover's view as float32 (N, C, H, W)."""
        cdef int i, j, c, H = self.g.height, W = self.g.width, C = self.g.planes
        cdef int8_t* tmp = <int8_t*> PyMem_Malloc(H * W * C)
        cdef char* s
        if tmp == NULL:
            raise MemoryError()
        with nogil:
            for i in range(self.n):
                s = self.blobs + i * self.stride
                self.g.observe(self.g.params, s, header(s).to_play, tmp)
                for j in range(H * W):
                    for c in range(C):
                        out[i, c, j // W, j % W] = tmp[j * C + c]
        PyMem_Free(tmp)

    def get_state(self, int i, State out):
        """Copy game i into `out` (a State of the same spec)."""
        self._index(i)
        memcpy(out.s, self.blobs + i * self.stride, self.stride)

    def set_state(self, int i, State src):
        """Overwrite game i with `src` (a State of the same spec)."""
        self._index(i)
        if src.spec is not self.spec and src.spec.kwargs != self.spec.kwargs:
            raise ValueError(f"state of {src.spec!r} does not fit a batch of {self.spec!r}")
        memcpy(self.blobs + i * self.stride, src.s, self.stride)

    cdef _index(self, int i):
        if not 0 <= i < self.n:
            raise IndexError(f"game index {i} out of range 0..{self.n - 1}")
