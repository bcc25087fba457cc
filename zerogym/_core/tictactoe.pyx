# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Tic-tac-toe and Gomoku (m,n,k on a square board): `win_length` or more in a row wins.

Layout of a state blob: Header, then int8 board[N*N] (0 empty, 1 first player, 2 second).
"""
from libc.stdint cimport int8_t, uint64_t
from libc.string cimport memset

from zerogym._core.game cimport (Header, header, align8, start, played, mask_over, set_shape, set_rules,
                                 REASON_OK, REASON_GAME, BLOB_OK, BLOB_HASH)
from zerogym._core.common cimport cell_key, board_hash, check_cells, check_turns, empty_mask, observe_pieces
from zerogym._core.lines cimport end_on_line, check_outcome
from zerogym._core.spec cimport GameSpec
from zerogym._core.state cimport State
from zerogym._validate import int_arg
from zerogym.coords import point_name
from zerogym.symmetry import DIHEDRAL

MAX_SIZE = 25

cdef enum:
    OCCUPIED = REASON_GAME
    MAX_CELLS = 625           # 25 x 25

cdef uint64_t SALT = 0x7474u

ctypedef struct Params:
    int n, k, cells
    Py_ssize_t off_board


cdef inline int8_t* board_of(const Params* p, char* s) noexcept nogil:
    return <int8_t*> (s + p.off_board)


cdef void reset(const void* pp, char* s) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    start(header(s), 0)
    memset(board_of(p, s), 0, p.cells)


cdef int check(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    return OCCUPIED if board_of(p, s)[a] != 0 else REASON_OK


cdef void apply(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Header* h = header(s)
    cdef int8_t* b = board_of(p, s)
    cdef int me = h.to_play
    b[a] = <int8_t> (me + 1)
    h.hash ^= cell_key(a, me, SALT)
    played(h, a)
    end_on_line(h, b, p.n, p.n, a // p.n, a % p.n, p.k)


cdef int legal(const void* pp, char* s, int8_t* mask) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    if mask_over(header(s), mask, p.cells):
        return 0
    return empty_mask(board_of(p, s), p.cells, mask)


cdef void observe(const void* pp, char* s, int player, int8_t* out) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    observe_pieces(board_of(p, s), p.cells, player, out)


cdef int validate(const void* pp, char* s) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef const Header* h = header(s)
    cdef int8_t* b = board_of(p, s)
    cdef int8_t tmp[MAX_CELLS]
    cdef int count[2]
    cdef uint64_t hv = 0
    cdef int code = check_cells(h, p.cells, p.cells, b, p.cells, SALT, &hv, count)
    if code == BLOB_OK:
        code = check_turns(h, count)
    if code != BLOB_OK:
        return code
    if h.hash != hv:
        return BLOB_HASH
    return check_outcome(h, b, p.n, p.n, p.k, h.last_action, tmp)


PLANES = (
    ("own", "stones of the player the observation is for"),
    ("opponent", "stones of the other player"),
    ("ones", "1 on every point (marks the board inside zero padding)"),
)
# the texts of the game's own check reasons (spec.pyx's shared REASONS come before them)
REASONS = ("that point is occupied",)


def make_spec(board_size=3, win_length=3):
    """GameSpec for an N x N board where `win_length` in a row wins."""
    n = int_arg("tictactoe", "board_size", board_size, 2, MAX_SIZE)
    k = int_arg("tictactoe", "win_length", win_length, 2, n, f" (at most board_size={n})")
    cdef GameSpec spec = GameSpec()
    cdef Params* p = <Params*> spec.alloc_params(sizeof(Params))
    p.n, p.k, p.cells = n, k, n * n
    p.off_board = align8(sizeof(Header))
    set_shape(&spec.d, n * n, n, n, 3, align8(p.off_board + p.cells))
    set_rules(&spec.d, reset, check, apply, legal, observe, validate)
    spec.describe("tictactoe", {"board_size": n, "win_length": k}, ("player_0", "player_1"), REASONS, PLANES, DIHEDRAL,
                  lambda a: point_name(a // n, a % n), layout={"board": (p.off_board, "i1", p.cells)})
    return spec


cdef class TicTacToeState(State):
    """Tic-tac-toe / Gomoku position: TicTacToeState(board_size=3, win_length=3)."""

    def __init__(self, board_size=3, win_length=3):
        self._adopt(make_spec(board_size, win_length))
        self.reset()

    def recompute_hash(self):
        """The Zobrist hash computed from the board alone (the incremental one must equal it)."""
        cdef const Params* p = <const Params*> self.g.params
        return board_hash(board_of(p, self.s), p.cells, SALT)
