# cython: language_level=3, boundscheck=False, wraparound=False
"""GameSpec: one configured game (its kwargs, compiled rule table and descriptive metadata)."""
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.string cimport memset

# where the Header's fields lie in a state blob: name -> (byte offset, numpy dtype, count)
HEADER_LAYOUT = {"hash": (0, "u8", 1), "to_play": (8, "i4", 1), "status": (12, "i4", 1), "winner": (16, "i4", 1),
                 "moves": (20, "i4", 1), "last_action": (24, "i4", 1)}

# what each shared GameDef.check reason means (game.pxd REASON_*); games append their own
REASONS = ("legal", "action out of range", "the game is over")

# what each shared GameDef.validate code means (game.pxd BLOB_*); games append their own
BLOB_ERRORS = (
    "valid",
    "to_play: the player to move must be 0 or 1",
    "status: must be 0 (running), 1 (over by the rules) or 2 (cut off by a move limit), "
    "and agree with the position",
    "winner: must be -1 (none, or a draw), 0 or 1, and agree with the position",
    "moves: the move counter is out of range or does not agree with the pieces on the board",
    "last_action: must be -1 exactly at move 0, else a move that could have made this position",
    "hash: does not match the position",
    "board: a cell holds a value other than empty (0), first player (1) or second player (2)",
)


cdef class GameSpec:
    """A game at fixed kwargs: the compiled GameDef plus what the Python layer needs to know.

    Attributes: name, kwargs, agents (two agent names, first mover first), reasons (text per
    illegal-move reason code), blob_errors (text per GameDef.validate code), layout (where
    each field lies in a state blob: name -> (byte offset, numpy dtype, count)), plane_info ((name, description) per observation plane),
    symmetry_names (board transforms that preserve the rules), action_name (action -> str),
    action_kind ("cells": action r * W + c is a cell, "columns": action c is column c,
    "cell_moves": action (r * W + c) * k + d moves the piece on cell (r, c) by step d of
    move_offsets, k = actions_per_cell of them per cell), actions_per_cell (1 but for "cell_moves"),
    move_offsets (the (rows, columns) step of each move of a cell; None but for "cell_moves"),
    pass_action and swap_action (the index of the game's pass or swap action, whether or not it is
    legal now or at these kwargs; -1 where the game has none).
    """

    def __cinit__(self):
        self._params = NULL
        memset(&self.d, 0, sizeof(GameDef))
        self.pass_action = -1
        self.swap_action = -1

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
                 action_kind="cells", blob_errors=(), layout=None, pass_action=-1, swap_action=-1,
                 move_offsets=None):
        """Set what the Python layer knows of the game (see the class docstring); the board
        transforms are built from the GameDef's shape and action count.  `reasons` and `blob_errors`
        are the texts of the game's own check reasons (from REASON_GAME on) and validate codes (from
        BLOB_GAME on); `layout` places the game's own
        fields in the blob, after the Header; `pass_action` / `swap_action` are the actions that
        pass or swap (-1: none); `move_offsets`, for action_kind "cell_moves" only, the step of each
        of a cell's moves (a transform of the board turns them, zerogym.symmetry)."""
        from zerogym.symmetry import Symmetries
        if self.d.validate == NULL:
            raise TypeError(f"{name}: the GameDef has no validate function")
        for what, a in (("pass_action", pass_action), ("swap_action", swap_action)):
            if not -1 <= a < self.d.num_actions:
                raise ValueError(f"{name}: {what} must be -1 or an action 0..{self.d.num_actions - 1}, got {a}")
        if pass_action >= 0 and pass_action == swap_action:
            raise ValueError(f"{name}: pass and swap cannot be the same action {pass_action}")
        self.action_kind, self.pass_action, self.swap_action = action_kind, pass_action, swap_action
        self.name, self.kwargs, self.agents = name, dict(kwargs), tuple(agents)
        self.reasons, self.plane_info = REASONS + tuple(reasons), tuple(plane_info)
        self.blob_errors = BLOB_ERRORS + tuple(blob_errors)
        self.layout = {**HEADER_LAYOUT, **(layout or {})}
        self.symmetry_names = tuple(symmetry_names)
        self.symmetries = Symmetries(self.symmetry_names, self.d.height, self.d.width, self.d.num_actions,
                                     action_kind=action_kind, move_offsets=move_offsets)
        self.action_name = action_name

    @property
    def actions_per_cell(self):
        """Actions per cell: len(move_offsets) for action_kind "cell_moves", else 1."""
        return 1 if self.symmetries is None else self.symmetries.actions_per_cell

    @property
    def move_offsets(self):
        """The (rows, columns) step of each of a cell's moves ("cell_moves"), else None."""
        return None if self.symmetries is None else self.symmetries.move_offsets

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

    def blob_error(self, int code):
        """Text for a GameDef.validate code."""
        if 0 <= code < len(self.blob_errors):
            return self.blob_errors[code]
        return f"check {code}"

    @property
    def ready(self):
        """True once a game module has built this spec (a bare GameSpec() has no rules)."""
        return self.name is not None

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"GameSpec({self.name}: {args})"
