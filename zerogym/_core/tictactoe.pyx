# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Tic-tac-toe and Gomoku (m,n,k on a square board): `win_length` or more in a row wins.

Layout of a state blob: Header, then int8 board[N*N] (0 empty, 1 first player, 2 second).
"""
from libc.stdint cimport int8_t, uint64_t
from libc.string cimport memset

from zerogym._core.game cimport (GameDef, Header, header, align8, splitmix64, finish, check_header,
                                 REASON_OK, REASON_GAME, RUNNING, BLOB_OK, BLOB_TO_PLAY, BLOB_MOVES,
                                 BLOB_HASH, BLOB_CELL)
from zerogym._core.lines cimport makes_line, check_outcome
from zerogym._core.spec cimport GameSpec
from zerogym._core.state cimport State
from zerogym._validate import int_arg
from zerogym.coords import point_name
from zerogym.symmetry import DIHEDRAL

MAX_SIZE = 25

cdef enum:
    OCCUPIED = REASON_GAME
    MAX_CELLS = 625           # 25 x 25

ctypedef struct Params:
    int n
    int k
    int cells
    Py_ssize_t off_board


cdef inline int8_t* board_of(const Params* p, char* s) noexcept nogil:
    return <int8_t*> (s + p.off_board)


cdef inline uint64_t key(int cell, int player) noexcept nogil:
    return splitmix64(<uint64_t> (cell * 2 + player) + 0x7474u)


cdef void reset(const void* pp, char* s) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Header* h = header(s)
    h.hash = 0
    h.to_play = 0
    h.status = RUNNING
    h.winner = -1
    h.moves = 0
    h.last_action = -1
    memset(board_of(p, s), 0, p.cells)


cdef int check(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    return OCCUPIED if board_of(p, s)[a] != 0 else REASON_OK


cdef void apply(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Header* h = header(s)
    cdef int8_t* b = board_of(p, s)
    cdef int me = h.to_play, r = a // p.n, c = a % p.n
    cdef int8_t v = <int8_t> (me + 1)
    b[a] = v
    h.hash ^= key(a, me)
    h.moves += 1
    h.last_action = a
    h.to_play = 1 - me
    if makes_line(b, p.n, p.n, r, c, p.k):
        finish(h, me)
    elif h.moves == p.cells:
        finish(h, -1)


cdef int legal(const void* pp, char* s, int8_t* mask) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef int8_t* b = board_of(p, s)
    cdef int i, n = 0
    if header(s).status != RUNNING:
        memset(mask, 0, p.cells)
        return 0
    for i in range(p.cells):
        mask[i] = b[i] == 0
        n += mask[i]
    return n


cdef void observe(const void* pp, char* s, int player, int8_t* out) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef int8_t* b = board_of(p, s)
    cdef int i
    cdef int8_t mine = <int8_t> (player + 1)
    for i in range(p.cells):
        out[3 * i] = b[i] == mine
        out[3 * i + 1] = b[i] != 0 and b[i] != mine
        out[3 * i + 2] = 1


cdef int validate(const void* pp, char* s) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef const Header* h = header(s)
    cdef int8_t* b = board_of(p, s)
    cdef int8_t tmp[MAX_CELLS]
    cdef int i, n1 = 0, n2 = 0
    cdef uint64_t hv = 0
    cdef int code = check_header(h, p.cells, p.cells)
    if code != BLOB_OK:
        return code
    for i in range(p.cells):
        if b[i] < 0 or b[i] > 2:
            return BLOB_CELL
        if b[i]:
            hv ^= key(i, b[i] - 1)
            n1 += b[i] == 1
            n2 += b[i] == 2
    if h.moves != n1 + n2 or n1 != n2 + h.moves % 2:
        return BLOB_MOVES
    if h.to_play != h.moves % 2:
        return BLOB_TO_PLAY
    if h.hash != hv:
        return BLOB_HASH
    return check_outcome(h, b, p.n, p.n, p.k, h.last_action, tmp)


PLANES = (
    ("own", "stones of the player the observation is for"),
    ("opponent", "stones of the other player"),
    ("ones", "1 on every point (marks the board inside zero padding)"),
)
REASONS = ("legal", "action out of range", "the game is over", "that point is occupied")


def make_spec(board_size=3, win_length=3):
    """GameSpec for an N x N board where `win_length` in a row wins."""
    n = int_arg("tictactoe", "board_size", board_size, 2, MAX_SIZE)
    k = int_arg("tictactoe", "win_length", win_length, 2, n, f" (at most board_size={n})")
    cdef GameSpec spec = GameSpec()
    cdef Params* p = <Params*> spec.alloc_params(sizeof(Params))
    p.n, p.k, p.cells = n, k, n * n
    p.off_board = align8(sizeof(Header))
    spec.d.num_actions = n * n
    spec.d.height = spec.d.width = n
    spec.d.planes = 3
    spec.d.state_bytes = align8(p.off_board + p.cells)
    spec.d.reset = reset
    spec.d.check = check
    spec.d.apply = apply
    spec.d.legal = legal
    spec.d.observe = observe
    spec.d.validate = validate
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
        cdef int8_t* b = board_of(p, self.s)
        cdef uint64_t h = 0
        cdef int i
        for i in range(p.cells):
            if b[i]:
                h ^= key(i, b[i] - 1)
        return h
