from zerogym._core.game cimport GameDef

cdef class GameSpec:
    cdef GameDef d
    cdef void* _params
    cdef readonly str name
    cdef readonly dict kwargs
    cdef readonly tuple agents
    cdef readonly tuple reasons
    cdef readonly tuple blob_errors
    cdef readonly dict layout
    cdef readonly tuple plane_info
    cdef readonly tuple symmetry_names
    cdef readonly object action_name
    cdef readonly str action_kind
    cdef readonly int pass_action
    cdef readonly int swap_action
    cdef void* alloc_params(self, Py_ssize_t nbytes) except NULL
    cdef readonly object symmetries
