from zerogym._core.game cimport GameDef
from zerogym._core.spec cimport GameSpec

cdef class State:
    cdef readonly GameSpec spec
    cdef const GameDef* g
    cdef char* s
    cdef signed char* _scratch
    cdef void _adopt(self, GameSpec spec) except *
    cdef int _check(self, int action) noexcept nogil
    cdef int play(self, object action) except -1
    cdef void restart(self) noexcept nogil
