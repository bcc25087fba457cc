# cython: language_level=3, boundscheck=False, wraparound=False
"""GameSpec: one configured game (its kwargs, compiled rule table and descriptive metadata)."""
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.string cimport memset


cdef class GameSpec:
    """A game at fixed kwargs: the compiled GameDef plus what the Python layer needs to know.

    Attributes: name, kwargs, agents (two agent names, first mover first), reasons (text per
    illegal-move reason code), plane_info ((name, description) per observation plane),
    symmetry_names (board transforms that preserve the rules), action_name (action -> str).
    """

    def __cinit__(self):
        self._params = NULL
        memset(&self.d, 0, sizeof(GameDef))

    def __dealloc__(self):
        if self._params != NULL:
            PyMem_Free(self._params)

    cdef void* alloc_params(self, Py_ssize_t nbytes) except NULL:
        self._params = PyMem_Malloc(nbytes)
        if self._params == NULL:
            raise MemoryError()
        memset(self._params, 0, nbytes)
        self.d.params = self._params
        return self._params

    def describe(self, name, kwargs, agents, reasons, plane_info, symmetry_names, action_name,
                 action_kind="cells"):
        """Set what the Python layer knows of the game (see the class docstring); the board
        transforms are built from the GameDef's shape and action count."""
        from zerogym.symmetry import Symmetries
        self.name, self.kwargs, self.agents = name, dict(kwargs), tuple(agents)
        self.reasons, self.plane_info = tuple(reasons), tuple(plane_info)
        self.symmetry_names = tuple(symmetry_names)
        self.symmetries = Symmetries(self.symmetry_names, self.d.height, self.d.width, self.d.num_actions,
                                     action_kind=action_kind)
        self.action_name = action_name

    @property
    def num_actions(self):
        return self.d.num_actions

    @property
    def obs_shape(self):
        """Observation shape (H, W, C)."""
        return (self.d.height, self.d.width, self.d.planes)

    @property
    def state_bytes(self):
        return self.d.state_bytes

    def reason(self, int code):
        """Text for an illegal-move reason code."""
        if 0 <= code < len(self.reasons):
            return self.reasons[code]
        return f"reason {code}"

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"GameSpec({self.name}: {args})"
