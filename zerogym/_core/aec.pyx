# cython: language_level=3, boundscheck=False, wraparound=False
"""The per-move half of the AEC envs, compiled: EnvCore under BoardGameEnv, WrapperCore under
ClassicWrapper (zerogym/envs/base.py), and their agent_iter().

What a game reads and writes lives in C fields, and reset(), observe(), last(), step() (the end of
a game and PettingZoo's leaving of done agents included) and agent_iter() run without a Python
frame: in a course's loop (agent_iter, last, a numpy draw, step) the env costs a fraction of the
draw.  Construction, rendering, the spaces and the illegal-move ending stay in base.py.
"""
cimport numpy as cnp
from cpython.dict cimport PyDict_Next, PyDict_Size
from cpython.object cimport PyObject
from libc.stdint cimport int8_t
from libc.string cimport memset

from zerogym._core.game cimport header, RUNNING, TERMINAL
from zerogym._core.state cimport State
from zerogym.errors import IllegalMoveError

cnp.import_array()

import sysconfig

cdef extern from "Python.h":
    Py_ssize_t Py_REFCNT(PyObject*)

# a reference count of 1 proves an object unreachable from outside only where the GIL guards it
cdef bint RECYCLE = not sysconfig.get_config_var("Py_GIL_DISABLED")


cdef bint unshared(PyObject* a, int ndim, const cnp.npy_intp* dims):
    # an int8 array of shape dims that owns its bytes and that no one but the dict holding it can reach
    if a is NULL or Py_REFCNT(a) != 1 or not cnp.PyArray_CheckExact(<object>a):
        return False
    cdef cnp.ndarray arr = <cnp.ndarray>a
    if cnp.PyArray_NDIM(arr) != ndim or cnp.PyArray_TYPE(arr) != cnp.NPY_INT8 or not cnp.PyArray_CHKFLAGS(
        arr, cnp.NPY_ARRAY_C_CONTIGUOUS | cnp.NPY_ARRAY_WRITEABLE | cnp.NPY_ARRAY_OWNDATA
    ):
        return False
    cdef int i
    for i in range(ndim):
        if cnp.PyArray_DIMS(arr)[i] != dims[i]:
            return False
    return True


cdef class EnvCore:
    """BoardGameEnv's per-move state and methods (PettingZoo's AECEnv API)."""
    cdef public State state
    cdef public list agents, possible_agents
    cdef public object agent_selection, render_mode
    cdef public dict rewards, _cumulative_rewards, terminations, truncations, infos
    cdef public dict _player    # agent name -> 0 or 1
    cdef public object _skip_agent_selection    # PettingZoo's: who acts once the done agents have left
    cdef public dict action_spaces
    cdef public object _np_random, _np_random_seed    # np_random is built from the seed when first used
    # the observation dicts of the last two observe() calls, refilled in place once no one else holds them
    cdef dict _kept0, _kept1
    cdef bint _turn

    def observe(self, agent):
        return self._observe(self._player[agent])

    def last(self, bint observe=True):
        return self._last(observe)

    def step(self, action):
        self._step(action)

    def agent_iter(self, max_iter=2**63):
        """The agent to act, until every agent is done or max_iter turns have been given."""
        return AgentIter(self, max_iter)

    def reset(self, seed=None, options=None):
        """A new game.  seed: reseeds np_random and each agent's action space (with seed + its index)."""
        self._reset(seed)

    cdef int _reset(self, object seed) except -1:
        if seed is not None:
            self._np_random, self._np_random_seed = None, seed
            for i, a in enumerate(self.possible_agents):
                self.action_spaces[a].seed(seed + i)
        self.state.restart()
        agents = list(self.possible_agents)
        self.agents = agents
        self.rewards = {a: 0 for a in agents}
        self._cumulative_rewards = {a: 0 for a in agents}
        self.terminations = {a: False for a in agents}
        self.truncations = {a: False for a in agents}
        self.infos = {a: {} for a in agents}
        self.agent_selection = agents[0]
        return 0

    cdef dict _observe(self, int p):
        cdef State st = self.state
        cdef cnp.npy_intp n = st.g.num_actions
        cdef cnp.npy_intp dims[3]
        dims[0], dims[1], dims[2] = st.g.height, st.g.width, st.g.planes
        cdef PyObject* arrays[2]    # the observation and the action mask
        cdef dict d = self._recycled(dims, n, arrays)
        if d is None:
            obs = cnp.PyArray_EMPTY(3, dims, cnp.NPY_INT8, 0)
            mask = cnp.PyArray_EMPTY(1, &n, cnp.NPY_INT8, 0)
            d = {"observation": obs, "action_mask": mask}
            arrays[0], arrays[1] = <PyObject*> obs, <PyObject*> mask
            if self._turn:
                self._kept1 = d
            else:
                self._kept0 = d
        st.g.observe(st.g.params, st.s, p, <int8_t*> cnp.PyArray_DATA(<cnp.ndarray> arrays[0]))
        if p == header(st.s).to_play:
            st.g.legal(st.g.params, st.s, <int8_t*> cnp.PyArray_DATA(<cnp.ndarray> arrays[1]))
        else:
            memset(cnp.PyArray_DATA(<cnp.ndarray> arrays[1]), 0, n)
        return d

    cdef dict _recycled(self, const cnp.npy_intp* dims, cnp.npy_intp n, PyObject** arrays):
        # The dict observe() returned two calls ago, with its two arrays in `arrays`, if no one but
        # this env can reach it or them any more (the caller let go of it, as a loop does when it
        # rebinds obs): filling it again costs less than numpy's creating and freeing two arrays and a
        # dict every move.  None otherwise.
        cdef PyObject* d
        self._turn = not self._turn
        if self._turn:
            d = <PyObject*> self._kept1
        else:
            d = <PyObject*> self._kept0
        if not RECYCLE or d == <PyObject*> None or Py_REFCNT(d) != 1 or PyDict_Size(<object>d) != 2:
            return None
        cdef Py_ssize_t pos = 0
        cdef PyObject* key
        cdef PyObject* value
        while PyDict_Next(<object>d, &pos, &key, &value):    # the two keys as this env wrote them
            if key == <PyObject*> "observation" and unshared(value, 3, dims):
                arrays[0] = value
            elif key == <PyObject*> "action_mask" and unshared(value, 1, &n):
                arrays[1] = value
            else:
                return None
        return <dict>d

    cdef int _index(self, agent) except -1:
        # _player[agent], without the lookup for the agent names this env made
        cdef list names = self.possible_agents
        if agent is names[0]:
            return 0
        if agent is names[1]:
            return 1
        return self._player[agent]

    cdef tuple _last(self, bint observe):
        agent = self.agent_selection
        return (
            self._observe(self._index(agent)) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    cdef int _step(self, object action) except -1:
        if not self.agents:
            raise IllegalMoveError(f"the {self.state.spec.name} game is over and every agent is done: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise IllegalMoveError(
                    f"the game is over, {agent} is done: step(None) to let it leave, "
                    f"or reset() for a new game (got action {action!r})"
                )
            self._leave()
            return 0
        self.state.play(action)    # raises IllegalMoveError, state unchanged
        if header(self.state.s).status != RUNNING:
            self._end_game(agent)
        self.agent_selection = self.possible_agents[header(self.state.s).to_play]
        if self.render_mode is not None and self.render_mode == "human":
            self.render()
        return 0

    cdef int _end_game(self, agent) except -1:
        # the game ended on agent's move: final rewards and infos, both agents done
        ret = self.state.returns()
        done = {a: True for a in self.agents}
        if header(self.state.s).status == TERMINAL:
            self.terminations = done
        else:
            self.truncations = done
        self.rewards = {a: ret[self._player[a]] for a in self.agents}
        info = self.final_info()
        self.infos = {a: dict(info) for a in self.agents}
        self._cumulative_rewards[agent] = 0
        for a, r in self.rewards.items():   # PettingZoo's _accumulate_rewards
            self._cumulative_rewards[a] += r
        return 0

    cdef int _leave(self) except -1:
        # step(None) by a done agent: PettingZoo's AECEnv._was_dead_step, compiled
        agent = self.agent_selection
        del self.terminations[agent]
        del self.truncations[agent]
        del self.rewards[agent]
        del self._cumulative_rewards[agent]
        del self.infos[agent]
        self.agents.remove(agent)
        for a in self.agents:
            if self.terminations[a] or self.truncations[a]:    # the next done agent leaves next
                if self._skip_agent_selection is None:
                    self._skip_agent_selection = agent
                self.agent_selection = a
                break
        else:
            if self._skip_agent_selection is not None:
                self.agent_selection = self._skip_agent_selection
            self._skip_agent_selection = None
        for a in self.rewards:
            self.rewards[a] = 0
        return 0


cdef class WrapperCore:
    """ClassicWrapper's per-move methods, over the EnvCore it wraps (`_raw`)."""
    cdef public EnvCore _raw
    cdef public bint _has_reset, _ended_illegally    # reset() was called; the last game ended on an illegal move

    @property
    def agent_selection(self):
        return self._raw.agent_selection

    @property
    def agents(self):
        return self._raw.agents

    @property
    def possible_agents(self):
        return self._raw.possible_agents

    @property
    def rewards(self):
        return self._raw.rewards

    @property
    def _cumulative_rewards(self):
        return self._raw._cumulative_rewards

    @property
    def terminations(self):
        return self._raw.terminations

    @property
    def truncations(self):
        return self._raw.truncations

    @property
    def infos(self):
        return self._raw.infos

    @property
    def render_mode(self):
        return self._raw.render_mode

    @property
    def metadata(self):
        return self._raw.metadata

    def reset(self, seed=None, options=None):
        self._has_reset = True
        self._ended_illegally = False
        self._raw._reset(seed)

    def observe(self, agent):
        if not self._has_reset:
            raise AttributeError("observe() cannot be called before reset()")
        return self._no_moves_after_illegal(self._raw._observe(self._raw._player[agent]))

    def last(self, bint observe=True):
        if not self._has_reset:
            raise AttributeError("last() cannot be called before reset()")
        cdef tuple t = self._raw._last(observe)
        if observe:
            self._no_moves_after_illegal(t[0])
        return t

    def step(self, action):
        if not self._has_reset:
            raise AttributeError("step() cannot be called before reset()")
        cdef EnvCore raw = self._raw
        try:
            raw._step(action)    # changes nothing when it raises
        except IllegalMoveError as err:
            if (
                self.illegal == "raise"
                or err.action is None
                or not 0 <= err.action < raw.state.g.num_actions
                or not raw.agents
                or header(raw.state.s).status != RUNNING
            ):
                raise    # out of range, not an int, or no game to end: a caller's bug
            self._terminate_illegal(raw.agent_selection, err.reason)

    def agent_iter(self, max_iter=2**63):
        """The agent to act, until every agent is done or max_iter turns have been given."""
        return AgentIter(self._raw, max_iter)

    cdef dict _no_moves_after_illegal(self, dict obs):
        # after an illegal move the position goes on, the game does not: no legal move
        cdef cnp.npy_intp n
        if self._ended_illegally:
            n = self._raw.state.g.num_actions
            obs["action_mask"] = cnp.PyArray_ZEROS(1, &n, cnp.NPY_INT8, 0)
        return obs


cdef class AgentIter:
    """agent_iter()'s iterator: PettingZoo's AECIterator over an EnvCore."""
    cdef EnvCore env
    cdef unsigned long long left

    def __init__(self, EnvCore env not None, max_iter):
        self.env = env
        self.left = max(0, min(max_iter, 2**64 - 1))

    def __iter__(self):
        return self

    def __next__(self):
        if not self.env.agents or self.left == 0:
            raise StopIteration
        self.left -= 1
        return self.env.agent_selection
