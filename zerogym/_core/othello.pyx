# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Othello (Reversi) on an even N x N board, N in 4..16.

Rules: black (player 0) moves first.  White starts on (N/2-1, N/2-1) and (N/2, N/2), black on
(N/2-1, N/2) and (N/2, N/2-1).  A placement must bracket at least one straight line of opponent
discs (any of the 8 directions) between the new disc and another own disc; every bracketed
line flips.  Pass (action N*N) is legal only when no placement is.  The game ends as soon as
neither side can place a disc (full board included); more discs wins, equal counts draw.

Layout of a state blob: Header, then int8 board[N*N] (0 empty, 1 black, 2 white), then Extra:
disc counts, the legal placements of the player to move (a bitset, cached by reset/apply so
that check is O(1) and legal is one pass over the bits) and, for N <= 8, the two colours as
8x8 bitboards (bit r*8+c), which make move generation and flipping a few word operations.
For N > 8 legality is found by scanning the empty cells in the 8 directions with precomputed
distances to the edge.  The Zobrist hash covers the discs and the side to move.
"""
from libc.stdint cimport int8_t, int32_t, uint8_t, uint64_t
from libc.string cimport memset, memcpy
import numpy as np

from zerogym._core.game cimport (Header, header, align8, splitmix64, finish, start, played,
                                 set_shape, set_rules, REASON_OK, REASON_GAME, RUNNING, TERMINAL, BLOB_OK,
                                 BLOB_STATUS, BLOB_WINNER, BLOB_MOVES, BLOB_LAST_ACTION, BLOB_HASH, BLOB_GAME)
from zerogym._core.common cimport cell_key, board_hash, check_cells
from zerogym._core.spec cimport GameSpec
from zerogym._core.state cimport State
from zerogym._validate import board_arg, int_arg
from zerogym.coords import COLUMNS
from zerogym.symmetry import DIHEDRAL

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    static inline int zg_oth_ctz(unsigned long long x) { return __builtin_ctzll(x); }
    static inline int zg_oth_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    #else
    static inline int zg_oth_ctz(unsigned long long x) { int n = 0; while (!(x & 1ULL)) { x >>= 1; n++; } return n; }
    static inline int zg_oth_popcount(unsigned long long x) { int n = 0; while (x) { x &= x - 1; n++; } return n; }
    #endif
    """
    int ctz "zg_oth_ctz"(uint64_t x) nogil
    int popcount "zg_oth_popcount"(uint64_t x) nogil

MIN_SIZE = 4
MAX_SIZE = 16

cdef enum:
    MAX_CELLS = 256
    LEGAL_WORDS = 4            # MAX_CELLS / 64

cdef enum:
    # check's reasons, numbered on from REASON_GAME in the order of REASONS' texts
    OCCUPIED = REASON_GAME, NO_FLIP, PASS_ILLEGAL, MUST_PASS

cdef enum:
    # validate's codes, numbered on from BLOB_GAME in the order of BLOB_ERRORS' texts
    BAD_COUNTS = BLOB_GAME, BAD_BITBOARDS, BAD_LEGAL

cdef uint64_t SALT = 0x07E1100ULL
cdef uint64_t NOT_A = 0xFEFEFEFEFEFEFEFEULL     # every column but 0
cdef uint64_t NOT_H = 0x7F7F7F7F7F7F7F7FULL     # every column but 7

# the 8 directions as (dr, dc)
cdef int DR[8]
cdef int DC[8]
DR[:] = [-1, -1, -1, 0, 0, 1, 1, 1]
DC[:] = [-1, 0, 1, -1, 1, -1, 0, 1]

ctypedef struct Params:
    int n
    int cells
    int bitboard               # 1 when n <= 8: use the 8x8 bitboards
    int _pad
    Py_ssize_t off_board
    Py_ssize_t off_extra
    Py_ssize_t state_bytes
    uint64_t valid             # bitboard path: the on-board bits
    uint64_t side_key          # xor-ed in while white is to move
    int delta[8]               # cell-index step per direction
    uint64_t keys[MAX_CELLS][2]     # Zobrist key of (cell, colour)
    uint64_t flip_keys[MAX_CELLS]   # keys[c][0] ^ keys[c][1]
    uint8_t dist[MAX_CELLS][8]      # cells from c to the edge in each direction

ctypedef struct Extra:
    uint64_t bb[2]             # N <= 8: discs of black, white (bit r*8+c)
    uint64_t legal[LEGAL_WORDS]  # placements legal for the player to move (bit r*8+c for N <= 8, else bit = cell)
    int32_t count[2]           # discs of black, white
    int32_t nlegal             # number of legal placements for the player to move
    int32_t _pad


cdef inline int8_t* board_of(const Params* p, char* s) noexcept nogil:
    return <int8_t*> (s + p.off_board)


cdef inline Extra* extra_of(const Params* p, char* s) noexcept nogil:
    return <Extra*> (s + p.off_extra)


cdef inline int bit_cell(const Params* p, int bit) noexcept nogil:
    return (bit >> 3) * p.n + (bit & 7)


# ---- bitboard path (N <= 8) -------------------------------------------------------------------
cdef inline uint64_t shift(uint64_t x, int d) noexcept nogil:
    # one step in direction d (0..7, as DR/DC), dropping discs that wrap around a row
    if d == 0:
        return (x >> 9) & NOT_H
    elif d == 1:
        return x >> 8
    elif d == 2:
        return (x >> 7) & NOT_A
    elif d == 3:
        return (x >> 1) & NOT_H
    elif d == 4:
        return (x << 1) & NOT_A
    elif d == 5:
        return (x << 7) & NOT_H
    elif d == 6:
        return x << 8
    else:
        return (x << 9) & NOT_A


cdef inline uint64_t bb_moves(uint64_t me, uint64_t opp, uint64_t empty) noexcept nogil:
    cdef uint64_t moves = 0, x
    cdef int d
    for d in range(8):
        x = shift(me, d) & opp
        x |= shift(x, d) & opp
        x |= shift(x, d) & opp
        x |= shift(x, d) & opp
        x |= shift(x, d) & opp
        x |= shift(x, d) & opp
        moves |= shift(x, d) & empty
    return moves


cdef inline uint64_t bb_flips(uint64_t mv, uint64_t me, uint64_t opp) noexcept nogil:
    cdef uint64_t flips = 0, f, x
    cdef int d
    for d in range(8):
        f = 0
        x = shift(mv, d)
        while x & opp:
            f |= x
            x = shift(x, d)
        if x & me:
            flips |= f
    return flips


# ---- generic path (any N) ---------------------------------------------------------------------
cdef inline bint brackets(const Params* p, const int8_t* b, int i, int d, int8_t v, int8_t o) noexcept nogil:
    # does a disc of value v on empty cell i bracket a line of o discs in direction d?
    cdef int k = p.dist[i][d], st = p.delta[d], m
    if k < 2 or b[i + st] != o:
        return False
    i += st
    m = 1
    while m < k:
        i += st
        m += 1
        if b[i] == v:
            return True
        if b[i] != o:
            return False
    return False


cdef int scan_legal(const Params* p, const int8_t* b, int8_t v, uint64_t* bits, bint first_only) noexcept nogil:
    # legal placements of colour v into bits (cell-indexed); with first_only stop at the first
    cdef int i, d, n = 0
    cdef int8_t o = 3 - v
    memset(bits, 0, LEGAL_WORDS * sizeof(uint64_t))
    for i in range(p.cells):
        if b[i] != 0:
            continue
        for d in range(8):
            if brackets(p, b, i, d, v, o):
                bits[i >> 6] |= (<uint64_t> 1) << (i & 63)
                n += 1
                if first_only:
                    return n
                break
    return n


# ---- shared helpers ---------------------------------------------------------------------------
cdef int find_legal(const Params* p, char* s, int player, uint64_t* bits, bint first_only) noexcept nogil:
    # placements legal for `player` (0 black, 1 white) into bits; returns their number
    cdef Extra* x = extra_of(p, s)
    cdef uint64_t m
    if x.count[0] + x.count[1] == p.cells:
        memset(bits, 0, LEGAL_WORDS * sizeof(uint64_t))
        return 0
    if p.bitboard:
        memset(bits, 0, LEGAL_WORDS * sizeof(uint64_t))
        m = bb_moves(x.bb[player], x.bb[1 - player], p.valid & ~(x.bb[0] | x.bb[1]))
        bits[0] = m
        return popcount(m)
    return scan_legal(p, board_of(p, s), <int8_t> (player + 1), bits, first_only)


cdef void settle(const Params* p, char* s) noexcept nogil:
    # after a move (or a position set): cache the mover's legal placements, end the game if
    # neither side can place a disc
    cdef Header* h = header(s)
    cdef Extra* x = extra_of(p, s)
    cdef uint64_t other[LEGAL_WORDS]
    x.nlegal = find_legal(p, s, h.to_play, x.legal, False)
    if x.nlegal > 0:
        return
    if find_legal(p, s, 1 - h.to_play, other, True) > 0:
        return                              # the player to move must pass
    if x.count[0] > x.count[1]:
        finish(h, 0)
    elif x.count[1] > x.count[0]:
        finish(h, 1)
    else:
        finish(h, -1)


cdef inline bint is_legal_cell(const Params* p, Extra* x, int a) noexcept nogil:
    cdef int bit
    if p.bitboard:
        bit = (a // p.n) * 8 + a % p.n
        return (x.legal[0] >> bit) & 1
    return (x.legal[a >> 6] >> (a & 63)) & 1


# ---- GameDef functions ------------------------------------------------------------------------
cdef void reset(const void* pp, char* s) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Header* h = header(s)
    cdef int8_t* b = board_of(p, s)
    cdef Extra* x = extra_of(p, s)
    cdef int n = p.n, m = p.n // 2
    cdef int cells[4]
    cdef int8_t colour[4]
    cdef int i
    cells[0] = (m - 1) * n + (m - 1)
    cells[1] = m * n + m
    cells[2] = (m - 1) * n + m
    cells[3] = m * n + (m - 1)
    colour[0] = 2
    colour[1] = 2
    colour[2] = 1
    colour[3] = 1
    memset(s, 0, p.state_bytes)            # padding too: equal positions are equal blobs
    start(h, 0)
    for i in range(4):
        b[cells[i]] = colour[i]
        h.hash ^= p.keys[cells[i]][colour[i] - 1]
        if p.bitboard:
            x.bb[colour[i] - 1] |= (<uint64_t> 1) << ((cells[i] // n) * 8 + cells[i] % n)
    x.count[0] = 2
    x.count[1] = 2
    settle(p, s)


cdef int check(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Extra* x = extra_of(p, s)
    if a == p.cells:
        return REASON_OK if x.nlegal == 0 else PASS_ILLEGAL
    if board_of(p, s)[a] != 0:
        return OCCUPIED
    if x.nlegal == 0:
        return MUST_PASS
    return REASON_OK if is_legal_cell(p, x, a) else NO_FLIP


cdef void apply(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Header* h = header(s)
    cdef int8_t* b = board_of(p, s)
    cdef Extra* x = extra_of(p, s)
    cdef int me = h.to_play, i, d, k, st, nflip = 0, c
    cdef int8_t v = <int8_t> (me + 1), o = <int8_t> (2 - me)
    cdef uint64_t mv, flips
    played(h, a)
    h.hash ^= p.side_key
    if a != p.cells:
        b[a] = v
        h.hash ^= p.keys[a][me]
        if p.bitboard:
            mv = (<uint64_t> 1) << ((a // p.n) * 8 + a % p.n)
            flips = bb_flips(mv, x.bb[me], x.bb[1 - me])
            x.bb[me] |= mv | flips
            x.bb[1 - me] ^= flips
            nflip = popcount(flips)
            while flips:
                c = bit_cell(p, ctz(flips))
                flips &= flips - 1
                b[c] = v
                h.hash ^= p.flip_keys[c]
        else:
            for d in range(8):
                if brackets(p, b, a, d, v, o):
                    st = p.delta[d]
                    i = a + st
                    while b[i] == o:
                        b[i] = v
                        h.hash ^= p.flip_keys[i]
                        nflip += 1
                        i += st
        x.count[me] += 1 + nflip
        x.count[1 - me] -= nflip
    settle(p, s)


cdef int legal(const void* pp, char* s, int8_t* mask) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Extra* x = extra_of(p, s)
    cdef uint64_t w
    cdef int j
    memset(mask, 0, p.cells + 1)
    if header(s).status != RUNNING:
        return 0
    if x.nlegal == 0:
        mask[p.cells] = 1
        return 1
    if p.bitboard:
        w = x.legal[0]
        while w:
            mask[bit_cell(p, ctz(w))] = 1
            w &= w - 1
    else:
        for j in range(LEGAL_WORDS):
            w = x.legal[j]
            while w:
                mask[j * 64 + ctz(w)] = 1
                w &= w - 1
    return x.nlegal


cdef void observe(const void* pp, char* s, int player, int8_t* out) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef int8_t* b = board_of(p, s)
    cdef int i
    cdef int8_t own[3]
    cdef int8_t opp[3]
    # table lookups: measurably faster here than comparing each disc
    own[0] = 0
    own[1] = player == 0
    own[2] = player == 1
    opp[0] = 0
    opp[1] = player == 1
    opp[2] = player == 0
    for i in range(p.cells):
        out[3 * i] = own[b[i]]
        out[3 * i + 1] = opp[b[i]]
        out[3 * i + 2] = 1


cdef int validate(const void* pp, char* s) noexcept nogil:
    # set_position may start a game from any discs and either player, so the move counter says
    # nothing of the discs; it is only bounded (each placement fills a cell, no two passes in a row)
    cdef const Params* p = <const Params*> pp
    cdef const Header* h = header(s)
    cdef const int8_t* b = board_of(p, s)
    cdef Extra* x = extra_of(p, s)
    cdef uint64_t bits[LEGAL_WORDS]
    cdef uint64_t bb[2]
    cdef uint64_t hv = 0
    cdef int i, n, other, count[2]
    cdef int code = check_cells(h, p.cells + 1, 2 * p.cells + 1, b, p.cells, SALT, &hv, count)
    if code != BLOB_OK:
        return code
    bb[0] = bb[1] = 0
    if p.bitboard:
        for i in range(p.cells):
            if b[i]:
                bb[b[i] - 1] |= (<uint64_t> 1) << ((i // p.n) * 8 + i % p.n)
    if h.hash != (hv ^ p.side_key if h.to_play == 1 else hv):
        return BLOB_HASH
    if x.count[0] != count[0] or x.count[1] != count[1]:
        return BAD_COUNTS
    # a placement fills a cell, a pass follows a placement: moves + 2 * empty cells never grows by more
    # than one, so a counter within this bound stays within check_header's on every move from here
    if h.moves + 2 * (p.cells - count[0] - count[1]) > 2 * p.cells + 1:
        return BLOB_MOVES
    if x.bb[0] != bb[0] or x.bb[1] != bb[1]:
        return BAD_BITBOARDS
    if 0 <= h.last_action < p.cells and b[h.last_action] != 2 - h.to_play:
        return BLOB_LAST_ACTION           # the disc just placed is the last mover's
    n = find_legal(p, s, h.to_play, bits, False)
    if n != x.nlegal:
        return BAD_LEGAL
    for i in range(LEGAL_WORDS):
        if bits[i] != x.legal[i]:
            return BAD_LEGAL
    other = find_legal(p, s, 1 - h.to_play, bits, True)
    if (h.status == RUNNING) != (n > 0 or other > 0) or (h.status != RUNNING and h.status != TERMINAL):
        return BLOB_STATUS
    if h.status == TERMINAL and h.winner != (0 if count[0] > count[1] else (1 if count[1] > count[0] else -1)):
        return BLOB_WINNER
    return BLOB_OK


PLANES = (
    ("own", "discs of the player the observation is for"),
    ("opponent", "discs of the other player"),
    ("ones", "1 on every square (marks the board inside zero padding)"),
)
# the texts of the game's own check reasons (spec.pyx's shared REASONS come before them)
REASONS = ("that square is occupied",
           "a disc there flips no disc (it must bracket a line of opponent discs)",
           "pass is only legal when no placement is",
           "must pass: no placement is legal")
BLOB_ERRORS = ("count: the disc counts do not match the board",
               "bitboards: the bitboards do not match the board",
               "legal: the cached legal placements of the player to move do not match the board")


def action_namer(n):
    letters = COLUMNS.lower()

    def name(a):
        return "pass" if a == n * n else f"{letters[a % n]}{a // n + 1}"
    return name


cdef dict _layout(const Params* p):
    cdef Extra x
    cdef Py_ssize_t base = <Py_ssize_t> &x
    at = lambda addr: p.off_extra + addr - base
    return {"board": (p.off_board, "i1", p.cells), "bitboards": (at(<Py_ssize_t> &x.bb), "u8", 2),
            "legal": (at(<Py_ssize_t> &x.legal), "u8", LEGAL_WORDS), "count": (at(<Py_ssize_t> &x.count), "i4", 2),
            "nlegal": (at(<Py_ssize_t> &x.nlegal), "i4", 1)}


def make_spec(board_size=8):
    """GameSpec for Othello on an even board_size x board_size board (4..16)."""
    n = int_arg("othello", "board_size", board_size, MIN_SIZE, MAX_SIZE, " (even)")
    if n % 2:
        raise ValueError(f"othello: board_size must be even, 4..16, got {n}")
    cdef GameSpec spec = GameSpec()
    cdef Params* p = <Params*> spec.alloc_params(sizeof(Params))
    cdef int i, d, r, c, k, rr, cc
    p.n, p.cells = n, n * n
    p.bitboard = n <= 8
    p.valid = 0
    if p.bitboard:
        for r in range(n):
            for c in range(n):
                p.valid |= (<uint64_t> 1) << (r * 8 + c)
    p.side_key = splitmix64(SALT + <uint64_t> 0xFFFF)
    for i in range(n * n):
        p.keys[i][0] = cell_key(i, 0, SALT)
        p.keys[i][1] = cell_key(i, 1, SALT)
        p.flip_keys[i] = p.keys[i][0] ^ p.keys[i][1]
        r, c = divmod(i, n)
        for d in range(8):
            k = 0
            rr, cc = r + DR[d], c + DC[d]
            while 0 <= rr < n and 0 <= cc < n:
                k += 1
                rr += DR[d]
                cc += DC[d]
            p.dist[i][d] = k
    for d in range(8):
        p.delta[d] = DR[d] * n + DC[d]
    p.off_board = align8(sizeof(Header))
    p.off_extra = align8(p.off_board + p.cells)
    p.state_bytes = align8(p.off_extra + sizeof(Extra))
    set_shape(&spec.d, n * n + 1, n, n, 3, p.state_bytes)
    set_rules(&spec.d, reset, check, apply, legal, observe, validate)
    spec.describe("othello", {"board_size": n}, ("black_0", "white_0"), REASONS, PLANES, DIHEDRAL,
                  action_namer(n), blob_errors=BLOB_ERRORS, layout=_layout(p), pass_action=n * n)
    return spec


cdef class OthelloState(State):
    """Othello position: OthelloState(board_size=8); action r * N + c, N * N = pass."""

    def __init__(self, board_size=8):
        self._adopt(make_spec(board_size))
        self.reset()

    @property
    def board_size(self):
        return (<const Params*> self.g.params).n

    def counts(self):
        """(black discs, white discs)."""
        cdef Extra* x = extra_of(<const Params*> self.g.params, self.s)
        return (int(x.count[0]), int(x.count[1]))

    def recompute_hash(self):
        """The Zobrist hash computed from scratch (discs and side to move); equals .hash."""
        cdef const Params* p = <const Params*> self.g.params
        cdef uint64_t hv = board_hash(board_of(p, self.s), p.cells, SALT)
        if header(self.s).to_play == 1:
            hv ^= p.side_key
        return hv

    def set_position(self, board, to_play=0):
        """Test helper: set the discs from an (N, N) array of 0 empty / 1 black / 2 white and the
        player to move (0 black, 1 white).  The move count restarts at 0; the game is over at
        once if neither side can place a disc.  Raises ValueError for bad input."""
        cdef const Params* p = <const Params*> self.g.params
        arr = board_arg("othello", board, (p.n, p.n), "1 (black) or 2 (white)")
        if isinstance(to_play, bool) or to_play not in (0, 1):
            raise ValueError(f"othello: to_play must be 0 (black) or 1 (white), got {to_play!r}")
        cdef int8_t[::1] flat = np.ascontiguousarray(arr.reshape(-1), dtype=np.int8)
        cdef Header* h = header(self.s)
        cdef int8_t* b = board_of(p, self.s)
        cdef Extra* x = extra_of(p, self.s)
        cdef int i
        memset(self.s, 0, self.g.state_bytes)
        memcpy(b, &flat[0], p.cells)
        start(h, 0)
        h.to_play = to_play
        for i in range(p.cells):
            if b[i]:
                x.count[b[i] - 1] += 1
                if p.bitboard:
                    x.bb[b[i] - 1] |= (<uint64_t> 1) << ((i // p.n) * 8 + i % p.n)
        h.hash = self.recompute_hash()
        settle(p, self.s)
        return self
