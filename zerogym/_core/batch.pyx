# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Batch: N games of one GameSpec stepped together in compiled loops (the vector fast path)."""
from cpython.mem cimport PyMem_Calloc, PyMem_Malloc, PyMem_Free
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from cython.parallel cimport prange

from zerogym._core.game cimport (GameDef, Header, header, splitmix64, REASON_OK, REASON_RANGE,
                                 RUNNING, TERMINAL, TRUNCATED)
from zerogym._core.spec cimport GameSpec
from zerogym._core.state cimport State
from zerogym._core.state import same_game


cdef inline void observe_and_mask(const GameDef* g, char* s, int8_t* obs, int8_t* mask) noexcept nogil:
    # the mover's observation and the legal mask, fused where the game offers it
    if g.observe_mover != NULL:
        g.observe_mover(g.params, s, obs, mask)
    else:
        g.observe(g.params, s, header(s).to_play, obs)
        g.legal(g.params, s, mask)


cdef void step_one(const GameDef* g, char* s, int action, int8_t* obs, int8_t* mask, float* reward,
                   uint8_t* terminated, uint8_t* truncated, int32_t* to_play, int8_t* final_obs,
                   uint8_t* done) noexcept nogil:
    # one game of Batch.step: play a legal action, record the outcome, reset a finished game
    cdef Header* h = header(s)
    cdef int mover = h.to_play
    g.apply(g.params, s, action)
    reward[0] = 0.0
    terminated[0] = h.status == TERMINAL
    truncated[0] = h.status == TRUNCATED
    done[0] = h.status != RUNNING
    if h.status != RUNNING:
        if h.status == TERMINAL and h.winner >= 0:
            reward[0] = 1.0 if h.winner == mover else -1.0
        g.observe(g.params, s, h.to_play, final_obs)
        g.reset(g.params, s)
    to_play[0] = h.to_play
    observe_and_mask(g, s, obs, mask)


cdef inline int64_t pick(const int8_t* mask, int na, uint64_t x) noexcept nogil:
    # the k-th legal action for k uniform in 0..count-1 (0 when none is legal)
    cdef int a, k, count = 0
    for a in range(na):
        count += mask[a] != 0
    if count == 0:
        return 0
    k = <int> ((x >> 11) % <uint64_t> count)
    for a in range(na):
        if mask[a] != 0:
            if k == 0:
                return a
            k -= 1
    return 0


cdef class Batch:
    """N independent games laid end to end in one buffer.

    bind() gives it the caller's output arrays once (observations as (N, H*W*C), masks as (N, A),
    and the per-game outcome vectors); step() then writes into them and allocates nothing.
    Loops run on `num_threads` OpenMP threads where the build has OpenMP.
    """
    cdef readonly GameSpec spec
    cdef const GameDef* g
    cdef readonly int n
    cdef char* blobs
    cdef Py_ssize_t stride
    cdef int* codes
    cdef uint64_t seed_key
    cdef uint64_t draws
    cdef int8_t[:, ::1] obs
    cdef int8_t[:, ::1] mask
    cdef int8_t[:, ::1] final_obs
    cdef float[::1] rewards
    cdef uint8_t[::1] terminated
    cdef uint8_t[::1] truncated
    cdef uint8_t[::1] done
    cdef int32_t[::1] to_play
    cdef bint bound

    def __cinit__(self, GameSpec spec, int n):
        if n < 1:
            raise ValueError(f"num_envs must be >= 1, got {n}")
        if not spec.ready:
            raise ValueError("Batch needs a GameSpec built by a game module's make_spec")
        self.spec = spec
        self.g = &spec.d
        self.n = n
        self.stride = spec.d.state_bytes
        self.seed_key = splitmix64(0)
        self.blobs = <char*> PyMem_Calloc(n, self.stride)   # zeroed padding, as in State
        self.codes = <int*> PyMem_Malloc(n * sizeof(int))
        if self.blobs == NULL or self.codes == NULL:
            raise MemoryError(f"{n} {spec.name} games need {n * (self.stride + sizeof(int))} bytes of state "
                              f"({self.stride + sizeof(int)} each), which could not be allocated")

    def __dealloc__(self):
        PyMem_Free(self.blobs)
        PyMem_Free(self.codes)

    def bind(self, int8_t[:, ::1] obs, int8_t[:, ::1] mask, float[::1] rewards, uint8_t[::1] terminated,
             uint8_t[::1] truncated, int32_t[::1] to_play, int8_t[:, ::1] final_obs, uint8_t[::1] done):
        """The arrays reset() and step() write into (kept; shapes are checked here, once)."""
        cdef int obs_len = self.g.height * self.g.width * self.g.planes
        for name, arr, shape in (("obs", obs, (self.n, obs_len)), ("mask", mask, (self.n, self.g.num_actions)),
                                 ("final_obs", final_obs, (self.n, obs_len))):
            if tuple(arr.shape[:2]) != shape:
                raise ValueError(f"{name} must have shape {shape}, got {tuple(arr.shape[:2])}")
        for name, arr in (("rewards", rewards), ("terminated", terminated), ("truncated", truncated),
                          ("to_play", to_play), ("done", done)):
            if arr.shape[0] != self.n:
                raise ValueError(f"{name} must have {self.n} entries, got {arr.shape[0]}")
        self.obs, self.mask, self.final_obs = obs, mask, final_obs
        self.rewards, self.terminated, self.truncated = rewards, terminated, truncated
        self.to_play, self.done = to_play, done
        self.bound = True

    cdef _need_bound(self):
        if not self.bound:
            raise RuntimeError("Batch.bind() the output arrays first")

    def reset(self, int num_threads=1):
        """Reset every game and write its first observation, mask and player to move."""
        self._need_bound()
        cdef int i
        memset(self.blobs, 0, self.n * self.stride)
        with nogil:
            for i in prange(self.n, num_threads=num_threads, schedule="static"):
                self.g.reset(self.g.params, self.blobs + i * self.stride)
                observe_and_mask(self.g, self.blobs + i * self.stride, &self.obs[i, 0], &self.mask[i, 0])
                self.to_play[i] = 0

    def step(self, const int64_t[::1] actions, int num_threads=1):
        """Play actions[i] in game i; finished games are reset in the same call.  actions[i] = -1
        leaves game i as it is (its reward and flags read 0, its observation and mask stay valid).

        Returns (-1, 0) on success, or (i, reason) for the first illegal action, in which case no
        game was changed.  rewards[i] is the reward of the player who just moved.
        """
        self._need_bound()
        cdef int i, na = self.g.num_actions
        cdef int64_t a
        if actions.shape[0] != self.n:
            raise ValueError(f"expected {self.n} actions, got {actions.shape[0]}")
        with nogil:
            for i in prange(self.n, num_threads=num_threads, schedule="static"):
                a = actions[i]
                if a == -1:
                    self.codes[i] = REASON_OK
                elif a < 0 or a >= na:
                    self.codes[i] = REASON_RANGE
                else:
                    self.codes[i] = self.g.check(self.g.params, self.blobs + i * self.stride, <int> a)
        for i in range(self.n):
            if self.codes[i] != REASON_OK:
                return (i, self.codes[i])
        with nogil:
            for i in prange(self.n, num_threads=num_threads, schedule="static"):
                if actions[i] == -1:
                    self.rewards[i] = 0.0
                    self.terminated[i] = 0
                    self.truncated[i] = 0
                    self.done[i] = 0
                else:
                    step_one(self.g, self.blobs + i * self.stride, <int> actions[i], &self.obs[i, 0],
                             &self.mask[i, 0], &self.rewards[i], &self.terminated[i], &self.truncated[i],
                             &self.to_play[i], &self.final_obs[i, 0], &self.done[i])
        return (-1, 0)

    def seed(self, uint64_t seed):
        """Seed sample(): its draws are a function of (seed, call number, game index) only."""
        self.seed_key = splitmix64(seed)
        self.draws = 0

    def sample(self, const int8_t[:, ::1] mask, int64_t[::1] out, int num_threads=1):
        """out[i] = a uniformly random action with mask[i, a] == 1 (0 where none is legal)."""
        cdef int i, na = mask.shape[1]
        cdef uint64_t base = splitmix64(self.seed_key ^ self.draws)
        if mask.shape[0] != out.shape[0]:
            raise ValueError(f"mask has {mask.shape[0]} rows, out has {out.shape[0]} entries")
        with nogil:
            for i in prange(mask.shape[0], num_threads=num_threads, schedule="static"):
                out[i] = pick(&mask[i, 0], na, splitmix64(base + <uint64_t> i))
        self.draws += 1

    def encode(self, float[:, :, :, ::1] out):
        """Write every game's planes from its mover's view as float32 (N, C, H, W)."""
        cdef int i, j, c, H = self.g.height, W = self.g.width, C = self.g.planes
        got = (out.shape[0], out.shape[1], out.shape[2], out.shape[3])
        if got != (self.n, C, H, W):
            raise ValueError(f"out must have shape {(self.n, C, H, W)}, got {got}")
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
        if not same_game(out.spec, self.spec):
            raise ValueError(f"a state of {out.spec!r} cannot hold a game of a batch of {self.spec!r}")
        memcpy(out.s, self.blobs + i * self.stride, self.stride)

    def set_state(self, int i, State src):
        """Overwrite game i with `src` (a State of the same spec); once bound, its observation, mask
        and player to move are written at once."""
        self._index(i)
        if not same_game(src.spec, self.spec):
            raise ValueError(f"state of {src.spec!r} does not fit a batch of {self.spec!r}")
        memcpy(self.blobs + i * self.stride, src.s, self.stride)
        if self.bound:
            observe_and_mask(self.g, self.blobs + i * self.stride, &self.obs[i, 0], &self.mask[i, 0])
            self.to_play[i] = header(self.blobs + i * self.stride).to_play

    cdef _index(self, int i):
        if not 0 <= i < self.n:
            raise IndexError(f"game index {i} out of range 0..{self.n - 1}")
