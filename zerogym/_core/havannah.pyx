# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Havannah on a hexagon of side N, held in a D x D grid (D = 2N - 1), with the optional swap.

Cell (r, c) of the grid is on the hexagon when N-1 <= r + c <= 3N-3.  Neighbours of (r, c), in
clockwise order as drawn (row r+1 half a cell right of row r, as Hex here): (r-1, c), (r-1, c+1),
(r, c+1), (r+1, c), (r+1, c-1), (r, c-1).  Corners: (0, N-1), (0, D-1), (N-1, D-1), (D-1, N-1),
(D-1, 0), (N-1, 0); the six sides are the edge cells between two corners (corners belong to no
side).  Player 0 moves first.  A stone wins at once when its group makes a ring (a closed chain of
own stones around at least one cell, whatever holds the cells inside), a bridge (two corners) or
a fork (three sides); a full board without a win is a draw.  Action r*D + c places a stone;
action D*D is the swap, legal only as the second move of a game with swap=True: player 1 takes
player 0's stone (it becomes player 1's on its cell) and player 0 moves next.

Layout of a state blob: Header; int32 stones (stones on the board) and win (the shapes the
winning stone made: RING | BRIDGE | FORK, 0 otherwise); int8 board[D*D] (0 empty, 1 player 0,
2 player 1; always 0 off the hexagon); int16 parent[D*D], a union-find forest of the groups; and
uint16 groups[D*D], at each group's root the corners (bits 0..5) and sides (bits 8..13) its
stones touch.  Only apply() links and compresses (path halving); the rest only reads.

Rings: before a move nobody has one, so a ring made by the stone on `a` passes through `a`.
Either two different runs of own stones among a's six neighbours (in circular order, cells off
the hexagon counting as foreign) were already one group -- the new chain closes a loop, and of
the two foreign neighbours on either side of it one lies inside the loop -- or the loop's two
ends are in the same run, and then (as the position had no ring) the loop encloses own stones
only, so some own stone, `a` or a neighbour of it, is now surrounded by six own stones.  Both
checks are local: a few finds and 7 x 6 cell reads per move.  validate() recomputes rings from
the definition instead (a foreign cell cut off from the edge, or an own stone with six own
neighbours).

Hash: XOR of a Zobrist key per stone (cell, colour), XOR SIDE_KEY when player 1 is to move.
"""
from libc.stdint cimport int8_t, int16_t, int32_t, uint16_t, uint64_t
from libc.string cimport memcpy, memset
from cpython.mem cimport PyMem_Malloc, PyMem_Free
import operator

import numpy as np

from zerogym._core.game cimport (Header, header, align8, finish, check_header, start, played, mask_over,
                                 set_shape, set_rules, REASON_OK, REASON_GAME, RUNNING, TERMINAL, BLOB_OK,
                                 BLOB_STATUS, BLOB_WINNER, BLOB_CELL, BLOB_GAME)
from zerogym._core.common cimport cell_key
from zerogym._core.connection cimport (side_key, stones_hash, find_mut, singletons, check_placements,
                                       same_forest, forest_roots)
from zerogym._core.spec cimport GameSpec
from zerogym._core.state cimport State
from zerogym._validate import int_arg, choice_arg
from zerogym.coords import point_name
from zerogym.symmetry import HEXAGON

MIN_SIZE = 3
MAX_SIZE = 13              # D = 25: the 25 column letters of the coordinates

cdef enum:
    # check's reasons, numbered on from REASON_GAME in the order of REASONS' texts
    OCCUPIED = REASON_GAME, OFF_BOARD, NO_SWAP

cdef enum:
    # validate's codes, numbered on from BLOB_GAME in the order of BLOB_ERRORS' texts
    BAD_FOREST = BLOB_GAME, BAD_GROUPS, BAD_STONES, BAD_WIN

cdef enum:
    SALT = 0x48415600          # "HAV\0"
    MAX_CELLS = 25 * 25
    RING = 1
    BRIDGE = 2
    FORK = 4
    CORNERS = 0x3f             # groups[] bits of the six corners
    SIDE_SHIFT = 8             # ... and of the six sides, from bit 8

ctypedef struct Params:
    int n                  # side length N
    int d                  # D = 2N - 1
    int cells              # D*D; also the swap action
    int on_cells           # cells on the hexagon: 3N^2 - 3N + 1
    int swap               # 1 if the pie rule is on
    uint64_t side_key      # xor-ed in while player 1 is to move
    Py_ssize_t off_info    # int32 stones, int32 win
    Py_ssize_t off_board
    Py_ssize_t off_parent
    Py_ssize_t off_groups
    Py_ssize_t state_bytes
    int16_t nbr[MAX_CELLS * 6]     # the six neighbours of each cell in clockwise order, -1 off the hexagon
    uint16_t edge[MAX_CELLS]       # the corner bit or side bit of each cell (0 inside)
    int8_t on[MAX_CELLS]           # 1 on the hexagon
    int8_t inner[MAX_CELLS]        # 1 on the hexagon with all six neighbours on it


cdef inline int32_t* info_of(const Params* p, char* s) noexcept nogil:
    return <int32_t*> (s + p.off_info)


cdef inline int8_t* board_of(const Params* p, char* s) noexcept nogil:
    return <int8_t*> (s + p.off_board)


cdef inline int16_t* parent_of(const Params* p, char* s) noexcept nogil:
    return <int16_t*> (s + p.off_parent)


cdef inline uint16_t* groups_of(const Params* p, char* s) noexcept nogil:
    return <uint16_t*> (s + p.off_groups)


cdef inline int popcount6(unsigned int x) noexcept nogil:
    cdef int k = 0
    while x:
        x &= x - 1
        k += 1
    return k


cdef inline int shapes(uint16_t bits) noexcept nogil:
    # BRIDGE and FORK as a group touching `bits` makes them
    return ((BRIDGE if popcount6(bits & CORNERS) >= 2 else 0) |
            (FORK if popcount6(bits >> SIDE_SHIFT) >= 3 else 0))


cdef inline bint surrounded(const Params* p, const int8_t* b, int x, int8_t v) noexcept nogil:
    # True if x holds v and is enclosed by six stones of v (a ring of six around it)
    cdef int k
    if not p.inner[x] or b[x] != v:
        return False
    for k in range(6):
        if b[p.nbr[6 * x + k]] != v:
            return False
    return True


cdef void reset(const void* pp, char* s) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    memset(s, 0, p.state_bytes)
    start(header(s), 0)
    singletons(parent_of(p, s), p.cells)


cdef int check(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    if a == p.cells:
        return REASON_OK if (p.swap and header(s).moves == 1) else NO_SWAP
    if not p.on[a]:
        return OFF_BOARD
    return OCCUPIED if board_of(p, s)[a] != 0 else REASON_OK


cdef void apply(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Header* h = header(s)
    cdef int32_t* info = info_of(p, s)
    cdef int8_t* b = board_of(p, s)
    cdef int16_t* par = parent_of(p, s)
    cdef uint16_t* grp = groups_of(p, s)
    cdef int me = h.to_play, k, x, ra, rx, runs = 0, win = 0
    cdef int8_t v = <int8_t> (me + 1)
    cdef const int16_t* nb
    cdef int own[6]
    cdef int roots[3]
    if a == p.cells:
        # swap: player 0's only stone becomes player 1's, on the same cell
        x = h.last_action
        b[x] = 2
        h.hash ^= cell_key(x, 0, SALT) ^ cell_key(x, 1, SALT)
    else:
        nb = &p.nbr[6 * a]
        for k in range(6):
            own[k] = nb[k] >= 0 and b[nb[k]] == v
        # a run of own neighbours starts where the one before it (counter-clockwise) is not own; two
        # runs already in one group close a loop around a foreign neighbour
        for k in range(6):
            if own[k] and not own[(k + 5) % 6]:
                roots[runs] = find_mut(par, nb[k])
                for x in range(runs):
                    if roots[x] == roots[runs]:
                        win = RING
                runs += 1
        b[a] = v
        info[0] += 1
        h.hash ^= cell_key(a, me, SALT)
        grp[a] = p.edge[a]
        for k in range(6):
            if own[k]:
                ra = find_mut(par, a)
                rx = find_mut(par, nb[k])
                if ra != rx:
                    par[ra] = <int16_t> rx
                    grp[rx] |= grp[ra]
        if not win:
            # a loop whose two ends lie in one run: some own stone is now surrounded by six
            if surrounded(p, b, a, v):
                win = RING
            for k in range(6):
                if own[k] and surrounded(p, b, nb[k], v):
                    win = RING
        win |= shapes(grp[find_mut(par, a)])
        if win:
            info[1] = win
            finish(h, me)
        elif info[0] == p.on_cells:
            finish(h, -1)
    h.hash ^= p.side_key
    played(h, a)


cdef int legal(const void* pp, char* s, int8_t* mask) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef const int8_t* b = board_of(p, s)
    cdef int i, k = 0
    if mask_over(header(s), mask, p.cells + 1):
        return 0
    for i in range(p.cells):
        mask[i] = p.on[i] and b[i] == 0
        k += mask[i]
    mask[p.cells] = p.swap != 0 and header(s).moves == 1
    return k + mask[p.cells]


cdef void observe(const void* pp, char* s, int player, int8_t* out) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef const int8_t* b = board_of(p, s)
    cdef int i
    cdef int8_t mine = <int8_t> (player + 1), x
    for i in range(p.cells):
        x = b[i]
        out[3 * i] = x == mine
        out[3 * i + 1] = x != 0 and x != mine
        out[3 * i + 2] = p.on[i]


# ---- validation of an untrusted blob (and the rules recomputed from the definitions) -------------
cdef void ref_groups(const Params* p, const int8_t* b, int16_t* ref, uint16_t* bits) noexcept nogil:
    # ref: a fresh union-find of the stones' groups built from the board alone; bits: at each root,
    # the corners and sides of its group
    cdef int a, k, y, ra, ry
    for a in range(p.cells):
        ref[a] = <int16_t> a
        bits[a] = p.edge[a] if b[a] else 0
    for a in range(p.cells):
        if b[a] == 0:
            continue
        for k in range(3):                   # (r-1, c), (r-1, c+1), (r, c+1): the others see a
            y = p.nbr[6 * a + k]
            if y >= 0 and b[y] == b[a]:
                ra = find_mut(ref, a)
                ry = find_mut(ref, y)
                if ra != ry:
                    ref[ra] = <int16_t> ry
                    bits[ry] |= bits[ra]


cdef int ring_on(const Params* p, const int8_t* b, int8_t v) noexcept nogil:
    # RING if stones v make a ring on board b, from the definition: a cell not holding v that no
    # chain of such cells joins to the edge of the hexagon, or a stone v with six neighbours v
    cdef int8_t seen[MAX_CELLS]
    cdef int16_t todo[MAX_CELLS]
    cdef int i, k, y, top = 0
    for i in range(p.cells):
        if surrounded(p, b, i, v):
            return RING
        seen[i] = p.on[i] and b[i] != v and not p.inner[i]
        if seen[i]:
            todo[top] = <int16_t> i
            top += 1
    while top > 0:
        top -= 1
        i = todo[top]
        for k in range(6):
            y = p.nbr[6 * i + k]
            if y >= 0 and b[y] != v and not seen[y]:
                seen[y] = 1
                todo[top] = <int16_t> y
                top += 1
    for i in range(p.cells):
        if p.on[i] and b[i] != v and not seen[i]:
            return RING
    return 0


cdef int wins_on(const Params* p, const int8_t* b, int8_t v, int16_t* ref, uint16_t* bits) noexcept nogil:
    # the shapes (RING | BRIDGE | FORK) stones v make on board b; ref, bits: scratch of p.cells
    cdef int i, w = ring_on(p, b, v)
    ref_groups(p, b, ref, bits)
    for i in range(p.cells):
        if b[i] == v and ref[i] == i:
            w |= shapes(bits[i])
    return w


cdef int validate(const void* pp, char* s) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef const Header* h = header(s)
    cdef const int32_t* info = info_of(p, s)
    cdef const int8_t* b = board_of(p, s)
    cdef const int16_t* par = parent_of(p, s)
    cdef const uint16_t* grp = groups_of(p, s)
    cdef int16_t ref[MAX_CELLS]
    cdef uint16_t bits[MAX_CELLS]
    cdef int16_t root[MAX_CELLS]
    cdef int16_t owner[MAX_CELLS]       # ref group -> the blob's root for it
    cdef int16_t group[MAX_CELLS]       # the blob's root -> ref group
    cdef int8_t tmp[MAX_CELLS]
    cdef int i, la = h.last_action, w, won, before
    cdef int count[2]
    cdef uint64_t hv = 0
    cdef int code = check_header(h, p.cells + 1, p.on_cells + p.swap)
    if code != BLOB_OK:
        return code
    count[0] = count[1] = 0
    for i in range(p.cells):
        if b[i] < 0 or b[i] > 2 or (b[i] != 0 and not p.on[i]):
            return BLOB_CELL
        if b[i]:
            hv ^= cell_key(i, b[i] - 1, SALT)
            count[b[i] - 1] += 1
    code = check_placements(h, b, count, hv, p.side_key, p.swap, p.cells)
    if code != BLOB_OK:
        return code
    if info[0] != count[0] + count[1]:
        return BAD_STONES
    # the union-find forest: links in range, no cycles, the same groups as the board's; at each group's
    # root the corners and sides its stones touch, elsewhere no more than that (bits left from when a
    # stone was a root; an empty cell holds none)
    ref_groups(p, b, ref, bits)
    if not same_forest(par, p.cells, b, p.cells, ref, root, owner, group):
        return BAD_FOREST
    for i in range(p.cells):
        if b[i] == 0:
            if grp[i] != 0:
                return BAD_GROUPS
        elif par[i] == i:
            if grp[i] != bits[group[i]]:
                return BAD_GROUPS
        elif grp[i] & ~bits[group[root[i]]]:
            return BAD_GROUPS
    # the game is over exactly when a player has a ring, bridge or fork, made by the last stone,
    # or when the board is full
    if wins_on(p, b, <int8_t> (1 + h.to_play), ref, bits):
        return BLOB_STATUS                     # the player to move cannot have won
    won = wins_on(p, b, <int8_t> (2 - h.to_play), ref, bits)
    if won:
        w = 1 - h.to_play
        if h.status != TERMINAL or not (0 <= la < p.cells):
            return BLOB_STATUS
        if h.winner != w:
            return BLOB_WINNER
        if info[1] != won:
            return BAD_WIN
        for i in range(p.cells):
            tmp[i] = b[i]
        tmp[la] = 0
        before = wins_on(p, tmp, <int8_t> (w + 1), ref, bits)
        return BLOB_STATUS if before else BLOB_OK
    if info[1] != 0:
        return BAD_WIN
    if count[0] + count[1] == p.on_cells:
        if h.status != TERMINAL:
            return BLOB_STATUS
        return BLOB_WINNER if h.winner != -1 else BLOB_OK
    return BLOB_STATUS if h.status != RUNNING else BLOB_OK


# ---- the board's geometry ------------------------------------------------------------------------
DIRECTIONS = ((-1, 0), (-1, 1), (0, 1), (1, 0), (1, -1), (0, -1))     # clockwise as drawn


def on_hexagon(n, r, c):
    """True if (r, c) of the (2n-1) x (2n-1) grid is a cell of the hexagon of side n."""
    d = 2 * n - 1
    return 0 <= r < d and 0 <= c < d and n - 1 <= r + c <= 3 * n - 3


def corner_cells(n):
    """The six corners (r, c), clockwise from the top left one as drawn."""
    m, e = n - 1, 2 * n - 2
    return ((0, m), (0, e), (m, e), (e, m), (e, 0), (m, 0))


def side_of(n, r, c):
    """0..5: the side (r, c) lies on, clockwise from the top one (side k runs from corner k to corner
    k+1, corners excluded); -1 for a corner, an inner cell or a cell off the hexagon."""
    m, e = n - 1, 2 * n - 2
    if not on_hexagon(n, r, c) or (r, c) in corner_cells(n):
        return -1
    for k, on_side in enumerate((r == 0, c == e, r + c == 3 * m, r == e, c == 0, r + c == m)):
        if on_side:
            return k
    return -1


PLANES = (
    ("own", "stones of the player the observation is for"),
    ("opponent", "stones of the other player"),
    ("on_board", "1 on the cells of the hexagon, 0 on the grid cells outside it"),
)
# the texts of the game's own check reasons (spec.pyx's shared REASONS come before them)
REASONS = ("that cell is occupied", "that cell is not on the hexagon",
           "swap is only legal as the second move of a game with swap=True")
SYMMETRIES = HEXAGON
BLOB_ERRORS = ("parent: the union-find links do not match the groups of stones on the board (a link "
               "out of range, a cycle, an empty cell linked, or groups joined or split wrongly)",
               "groups: a group's root does not hold the corners and sides its stones touch",
               "stones: does not match the number of stones on the board",
               "win: does not match the ring, bridge and fork of the winning stone")
SHAPES = ((RING, "ring"), (BRIDGE, "bridge"), (FORK, "fork"))


def make_spec(board_size=8, swap=False):
    """GameSpec for Havannah on a hexagon of side board_size, with the pie rule when `swap`."""
    n = int_arg("havannah", "board_size", board_size, MIN_SIZE, MAX_SIZE)
    sw = bool(choice_arg("havannah", "swap", swap, (True, False)))
    cdef GameSpec spec = GameSpec()
    cdef Params* p = <Params*> spec.alloc_params(sizeof(Params))
    cdef int d = 2 * n - 1, r, c, k, i, rr, cc
    p.n, p.d, p.cells, p.swap = n, d, d * d, sw
    p.side_key = side_key(MAX_CELLS, SALT)
    p.on_cells = 3 * n * n - 3 * n + 1
    corners = corner_cells(n)
    for i in range(d * d):
        r, c = divmod(i, d)
        p.on[i] = on_hexagon(n, r, c)
        p.inner[i] = p.on[i]
        for k, (dr, dc) in enumerate(DIRECTIONS):
            rr, cc = r + dr, c + dc
            p.nbr[6 * i + k] = rr * d + cc if p.on[i] and on_hexagon(n, rr, cc) else -1
            if p.nbr[6 * i + k] < 0:
                p.inner[i] = 0
        p.edge[i] = 0
        if (r, c) in corners:
            p.edge[i] = 1 << corners.index((r, c))
        elif side_of(n, r, c) >= 0:
            p.edge[i] = 1 << (SIDE_SHIFT + side_of(n, r, c))
    p.off_info = align8(sizeof(Header))
    p.off_board = p.off_info + 2 * sizeof(int32_t)
    p.off_parent = align8(p.off_board + p.cells)
    p.off_groups = p.off_parent + p.cells * sizeof(int16_t)
    p.state_bytes = align8(p.off_groups + p.cells * sizeof(uint16_t))
    set_shape(&spec.d, d * d + 1, d, d, 3, p.state_bytes)
    set_rules(&spec.d, reset, check, apply, legal, observe, validate)
    spec.describe("havannah", {"board_size": n, "swap": sw}, ("player_0", "player_1"), REASONS, PLANES,
                  SYMMETRIES, lambda a: "swap" if a == d * d else point_name(a // d, a % d),
                  blob_errors=BLOB_ERRORS,
                  layout={"stones": (p.off_info, "i4", 1), "win": (p.off_info + 4, "i4", 1),
                          "board": (p.off_board, "i1", p.cells), "parent": (p.off_parent, "i2", p.cells),
                          "groups": (p.off_groups, "u2", p.cells)},
                  swap_action=d * d)
    return spec


def _check_player(player):
    """TypeError unless `player` is an int (not a bool), ValueError unless it is 0 or 1."""
    if isinstance(player, (bool, np.bool_)) or not hasattr(type(player), "__index__"):
        raise TypeError(f"havannah: player must be an int, 0 or 1, got {type(player).__name__} {player!r}")
    if operator.index(player) not in (0, 1):
        raise ValueError(f"havannah: player must be 0 or 1, got {player!r}")


cdef class HavannahState(State):
    """Havannah position: HavannahState(board_size=8, swap=False).  Player 0 moves first."""

    def __init__(self, board_size=8, swap=False):
        self._adopt(make_spec(board_size, swap))
        self.reset()

    def on_board(self):
        """bool (D, D): True on the cells of the hexagon."""
        cdef const Params* p = <const Params*> self.g.params
        out = np.zeros((p.d, p.d), dtype=bool)
        cdef int i
        for i in range(p.cells):
            if p.on[i]:
                out[i // p.d, i % p.d] = True
        return out

    def recompute_hash(self):
        """The Zobrist hash computed from scratch from the board and the player to move."""
        cdef const Params* p = <const Params*> self.g.params
        return stones_hash(board_of(p, self.s), p.cells, header(self.s).to_play, SALT, p.side_key)

    def components(self):
        """int64 (D*D,): the union-find root of every cell (an empty cell is its own), read without
        compressing paths."""
        cdef const Params* p = <const Params*> self.g.params
        return forest_roots(parent_of(p, self.s), p.cells)

    def winning_shapes(self):
        """The shapes the winning stone made, a tuple of "ring", "bridge", "fork" (empty unless won)."""
        cdef const Params* p = <const Params*> self.g.params
        cdef int w = info_of(p, self.s)[1]
        return tuple(name for bit, name in SHAPES if w & bit)

    def shapes_on_board(self, player):
        """The shapes ("ring", "bridge", "fork") `player`'s stones make on the board, recomputed from
        the definitions (no incremental state)."""
        cdef const Params* p = <const Params*> self.g.params
        cdef int16_t ref[MAX_CELLS]
        cdef uint16_t bits[MAX_CELLS]
        _check_player(player)
        cdef int w = wins_on(p, board_of(p, self.s), <int8_t> (player + 1), ref, bits)
        return tuple(name for bit, name in SHAPES if w & bit)

    def winning_cells(self, player):
        """int8 (D*D,): 1 on each empty cell where a stone of `player` (0 or 1) would win at once,
        whoever is to move; all 0 once the game is over.  The state is not changed."""
        cdef const Params* p = <const Params*> self.g.params
        _check_player(player)
        out = np.zeros(p.cells, dtype=np.int8)
        cdef int8_t[::1] o = out
        cdef int a, me = player
        cdef const int8_t* b = board_of(p, self.s)
        cdef char* tmp
        if header(self.s).status != RUNNING:
            return out
        tmp = <char*> PyMem_Malloc(p.state_bytes)
        if tmp == NULL:
            raise MemoryError()
        for a in range(p.cells):
            if p.on[a] and b[a] == 0:
                memcpy(tmp, self.s, p.state_bytes)
                header(tmp).to_play = me
                apply(p, tmp, a)
                o[a] = header(tmp).winner == me
        PyMem_Free(tmp)
        return out

    def winning_group(self):
        """For a game won, the cells (r, c) of the last stone's group, in row-major order; else None."""
        if not self.is_terminal() or self.winner < 0:
            return None
        d = self.spec.obs_shape[0]
        roots = self.components()
        board = self.board().ravel()
        cells = np.flatnonzero((roots == roots[self.last_action]) & (board != 0))
        return [(int(a) // d, int(a) % d) for a in cells]
