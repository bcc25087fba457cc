# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Connect Four on a rows x cols board: pieces drop to the lowest empty cell of a column,
`connect` or more in a row (horizontal, vertical, either diagonal) wins, a full board is a draw.

Layout of a state blob: Header, then int8 board[rows*cols] (row 0 is the TOP row as displayed;
0 empty, 1 first player, 2 second), then int8 heights[cols] (pieces in each column).
The action is the column; Header.last_action is the column of the last piece.
"""
from libc.stdint cimport int8_t, uint64_t
from libc.string cimport memset
import numpy as np

from zerogym._core.game cimport (Header, header, align8, start, played, mask_over, set_shape, set_rules,
                                 REASON_OK, REASON_GAME, BLOB_OK, BLOB_LAST_ACTION, BLOB_HASH, BLOB_GAME)
from zerogym._core.common cimport cell_key, board_hash, check_cells, check_turns, observe_pieces
from zerogym._core.lines cimport end_on_line, check_outcome
from zerogym._core.spec cimport GameSpec
from zerogym._core.state cimport State
from zerogym._validate import int_arg

MAX_SIZE = 25
SYMMETRIES = ("identity", "flip_lr")

cdef enum:
    FULL = REASON_GAME
    BAD_HEIGHTS = BLOB_GAME
    MAX_CELLS = 625           # 25 x 25

cdef uint64_t SALT = 0xC4C4C4C400000000ULL

ctypedef struct Params:
    int rows, cols, k, cells
    Py_ssize_t nbytes, off_board, off_heights


cdef inline int8_t* board_of(const Params* p, char* s) noexcept nogil:
    return <int8_t*> (s + p.off_board)


cdef inline int8_t* heights_of(const Params* p, char* s) noexcept nogil:
    return <int8_t*> (s + p.off_heights)


cdef void reset(const void* pp, char* s) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    # the whole blob, padding included, so that equal positions are equal bytes (== is memcmp)
    memset(s, 0, p.nbytes)
    start(header(s), 0)


cdef int check(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    return FULL if heights_of(p, s)[a] >= p.rows else REASON_OK


cdef void apply(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Header* h = header(s)
    cdef int8_t* b = board_of(p, s)
    cdef int8_t* hts = heights_of(p, s)
    cdef int me = h.to_play, c = a
    cdef int r = p.rows - 1 - hts[c]
    cdef int cell = r * p.cols + c
    b[cell] = <int8_t> (me + 1)
    hts[c] += 1
    h.hash ^= cell_key(cell, me, SALT)
    played(h, a)
    end_on_line(h, b, p.rows, p.cols, r, c, p.k)


cdef int legal(const void* pp, char* s, int8_t* mask) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef int8_t* hts = heights_of(p, s)
    cdef int c, n = 0
    if mask_over(header(s), mask, p.cols):
        return 0
    for c in range(p.cols):
        mask[c] = hts[c] < p.rows
        n += mask[c]
    return n


cdef void observe(const void* pp, char* s, int player, int8_t* out) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    observe_pieces(board_of(p, s), p.cells, player, out)


cdef int validate(const void* pp, char* s) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef const Header* h = header(s)
    cdef int8_t* b = board_of(p, s)
    cdef int8_t* hts = heights_of(p, s)
    cdef int8_t tmp[MAX_CELLS]
    cdef int r, c
    cdef int count[2]
    cdef uint64_t hv = 0
    cdef int code = check_cells(h, p.cols, p.cells, b, p.cells, SALT, &hv, count)
    if code != BLOB_OK:
        return code
    for c in range(p.cols):
        if hts[c] < 0 or hts[c] > p.rows:
            return BAD_HEIGHTS
        for r in range(p.rows):          # pieces fill the bottom hts[c] cells, nothing above
            if (b[r * p.cols + c] != 0) != (r >= p.rows - hts[c]):
                return BAD_HEIGHTS
    code = check_turns(h, count)
    if code != BLOB_OK:
        return code
    if h.hash != hv:
        return BLOB_HASH
    c = h.last_action
    if h.moves > 0 and hts[c] == 0:
        return BLOB_LAST_ACTION
    return check_outcome(h, b, p.rows, p.cols, p.k, (p.rows - hts[c]) * p.cols + c if c >= 0 else -1, tmp)


PLANES = (
    ("own", "pieces of the player the observation is for"),
    ("opponent", "pieces of the other player"),
    ("ones", "1 on every cell (marks the board inside zero padding)"),
)
# the texts of the game's own check reasons (spec.pyx's shared REASONS come before them)
REASONS = ("that column is full",)
BLOB_ERRORS = ("heights: a column's height does not match its pieces (pieces stack from the bottom, "
               "without gaps)",)


def _column_name(a):
    return f"column {a + 1}"


def make_spec(rows=6, cols=7, connect=4):
    """GameSpec for a rows x cols board where `connect` or more in a row wins."""
    nr = int_arg("connect_four", "rows", rows, 1, MAX_SIZE)
    nc = int_arg("connect_four", "cols", cols, 1, MAX_SIZE)
    longest = max(nr, nc)
    if longest < 2:
        raise ValueError(f"connect_four: connect must be in 2..max(rows, cols), and a {nr}x{nc} board "
                         f"allows none; use rows or cols of at least 2")
    k = int_arg("connect_four", "connect", connect, 2, longest, f" (at most max(rows, cols)={longest})")
    cdef GameSpec spec = GameSpec()
    cdef Params* p = <Params*> spec.alloc_params(sizeof(Params))
    p.rows, p.cols, p.k, p.cells = nr, nc, k, nr * nc
    p.off_board = align8(sizeof(Header))
    p.off_heights = align8(p.off_board + p.cells)
    p.nbytes = align8(p.off_heights + nc)
    set_shape(&spec.d, nc, nr, nc, 3, p.nbytes)
    set_rules(&spec.d, reset, check, apply, legal, observe, validate)
    spec.describe("connect_four", {"rows": nr, "cols": nc, "connect": k}, ("player_0", "player_1"),
                  REASONS, PLANES, SYMMETRIES, _column_name, action_kind="columns", blob_errors=BLOB_ERRORS,
                  layout={"board": (p.off_board, "i1", p.cells), "heights": (p.off_heights, "i1", nc)})
    return spec


cdef class ConnectFourState(State):
    """Connect Four position: ConnectFourState(rows=6, cols=7, connect=4); action = column."""

    def __init__(self, rows=6, cols=7, connect=4):
        self._adopt(make_spec(rows, cols, connect))
        self.reset()

    def heights(self):
        """int64 (cols,): the number of pieces in each column."""
        cdef const Params* p = <const Params*> self.g.params
        cdef int8_t[::1] view = <int8_t[:p.cols]> heights_of(p, self.s)
        return np.array(view, dtype=np.int64)

    def last_point(self):
        """(row, col) of the last piece played (row 0 on top), or None at the start."""
        cdef const Params* p = <const Params*> self.g.params
        cdef int c = header(self.s).last_action
        if c < 0:
            return None
        return (p.rows - heights_of(p, self.s)[c], c)

    def recompute_hash(self):
        """The Zobrist hash computed from scratch from the pieces on the board (for tests)."""
        cdef const Params* p = <const Params*> self.g.params
        return board_hash(board_of(p, self.s), p.cells, SALT)
