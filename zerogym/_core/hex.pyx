# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Hex on an N x N rhombus, with the optional swap (pie) rule.

Black (player 0) moves first and connects row 0 to row N-1; white (player 1) connects column 0
to column N-1.  Neighbours of (r, c): (r-1, c), (r-1, c+1), (r, c-1), (r, c+1), (r+1, c-1),
(r+1, c).  Action r*N + c places a stone; action N*N is the swap, legal only as the second move
of a game with swap=True: it removes black's stone at (r, c), puts a white stone at (c, r), and
black moves next.  Hex has no draws.

Layout of a state blob: Header, then int8 board[N*N] (0 empty, 1 black, 2 white), then int16
parent[N*N + 4], a union-find forest over the cells and four virtual edge nodes (TOP, BOTTOM,
LEFT, RIGHT = N*N .. N*N+3).  A black stone is joined to TOP / BOTTOM when it lies on row 0 / N-1,
a white stone to LEFT / RIGHT on column 0 / N-1; a side wins when its two edge nodes share a root.
Only apply() links and compresses (path halving); check/legal/observe only read.

Hash: XOR of a Zobrist key per stone (cell, colour), XOR SIDE_KEY when white is to move.
"""
from libc.stdint cimport int8_t, int16_t, uint64_t
from libc.string cimport memset

from zerogym._core.game cimport (Header, header, align8, finish, start, played, mask_over,
                                 set_shape, set_rules, REASON_OK, REASON_GAME, RUNNING, TERMINAL, BLOB_OK,
                                 BLOB_STATUS, BLOB_WINNER, BLOB_GAME)
from zerogym._core.common cimport cell_key, check_cells, empty_mask
from zerogym._core.connection cimport (side_key, stones_hash, find_mut, singletons, check_placements,
                                       same_forest, forest_roots)
from zerogym._core.spec cimport GameSpec
from zerogym._core.state cimport State
from zerogym._validate import int_arg, choice_arg
from zerogym.coords import point_name

MAX_SIZE = 19

cdef enum:
    # check's reasons, numbered on from REASON_GAME in the order of REASONS' texts
    OCCUPIED = REASON_GAME, NO_SWAP

cdef enum:
    BAD_FOREST = BLOB_GAME

cdef enum:
    SALT = 0x48455800          # "HEX\0"
    MAX_CELLS = 19 * 19

ctypedef struct Params:
    int n
    int cells              # N*N; also the swap action and the TOP node
    int swap               # 1 if the pie rule is on
    int top, bottom, left, right    # the edge nodes; a player's two are edge(p, player) and edge(p, player) + 1
    uint64_t side_key      # xor-ed in while white is to move
    Py_ssize_t off_board, off_parent, state_bytes


cdef inline int8_t* board_of(const Params* p, char* s) noexcept nogil:
    return <int8_t*> (s + p.off_board)


cdef inline int16_t* parent_of(const Params* p, char* s) noexcept nogil:
    return <int16_t*> (s + p.off_parent)


cdef inline int edge(const Params* p, int player) noexcept nogil:
    # the first of the two edge nodes `player` joins: TOP (then BOTTOM) for black, LEFT (then
    # RIGHT) for white
    return p.top + 2 * player


cdef inline void link(int16_t* par, int a, int b) noexcept nogil:
    cdef int ra = find_mut(par, a), rb = find_mut(par, b)
    if ra != rb:
        # keep the virtual edge nodes as roots (they are the nodes looked up most)
        if ra >= rb:
            par[rb] = <int16_t> ra
        else:
            par[ra] = <int16_t> rb


cdef void reset(const void* pp, char* s) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Header* h = header(s)
    # the whole blob, padding included, so that equal positions have equal bytes (memcmp, pickle)
    memset(s, 0, p.state_bytes)
    start(h, 0)
    singletons(parent_of(p, s), p.cells + 4)


cdef int check(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    if a == p.cells:
        return REASON_OK if (p.swap and header(s).moves == 1) else NO_SWAP
    return OCCUPIED if board_of(p, s)[a] != 0 else REASON_OK


cdef void apply(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Header* h = header(s)
    cdef int8_t* b = board_of(p, s)
    cdef int16_t* par = parent_of(p, s)
    cdef int me = h.to_play, n = p.n, a0, r, c, t, x, e
    cdef int8_t v = <int8_t> (me + 1)
    if a == p.cells:
        # swap: black's only stone at (r, c) becomes a white stone at (c, r)
        a0 = h.last_action
        r = a0 // n
        c = a0 % n
        t = c * n + r
        b[a0] = 0
        b[t] = 2
        h.hash ^= cell_key(a0, 0, SALT) ^ cell_key(t, 1, SALT)
        singletons(par, p.cells + 4)
        if r == 0:                 # the white stone's column is r
            par[t] = <int16_t> p.left
        elif r == n - 1:
            par[t] = <int16_t> p.right
    else:
        r = a // n
        c = a % n
        b[a] = v
        h.hash ^= cell_key(a, me, SALT)
        if r > 0:
            if b[a - n] == v:
                link(par, a, a - n)
            if c + 1 < n and b[a - n + 1] == v:
                link(par, a, a - n + 1)
        if c > 0 and b[a - 1] == v:
            link(par, a, a - 1)
        if c + 1 < n and b[a + 1] == v:
            link(par, a, a + 1)
        if r + 1 < n:
            if b[a + n] == v:
                link(par, a, a + n)
            if c > 0 and b[a + n - 1] == v:
                link(par, a, a + n - 1)
        # black joins its edges across the rows, white across the columns
        x = r if me == 0 else c
        e = edge(p, me)
        if x == 0:
            link(par, a, e)
        if x == n - 1:
            link(par, a, e + 1)
        if find_mut(par, e) == find_mut(par, e + 1):
            finish(h, me)
    h.hash ^= p.side_key
    played(h, a)


cdef int legal(const void* pp, char* s, int8_t* mask) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef int k
    if mask_over(header(s), mask, p.cells + 1):
        return 0
    k = empty_mask(board_of(p, s), p.cells, mask)
    mask[p.cells] = p.swap != 0 and header(s).moves == 1
    return k + mask[p.cells]


cdef void observe(const void* pp, char* s, int player, int8_t* out) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef int8_t* b = board_of(p, s)
    cdef int i
    cdef int8_t mine = <int8_t> (player + 1), black = player == 0, v
    for i in range(p.cells):
        v = b[i]
        out[4 * i] = v == mine
        out[4 * i + 1] = v != 0 and v != mine
        out[4 * i + 2] = black
        out[4 * i + 3] = 1


# ---- validation of an untrusted blob ------------------------------------------------------------
cdef void groups(const Params* p, const int8_t* b, int skip, int16_t* ref) noexcept nogil:
    # ref: a fresh union-find of the stones' groups and the edge nodes, built from the board alone
    # (the cell `skip` counted as empty; -1 for none)
    cdef int a, r, c, n = p.n, ra, rb, j, x, e
    cdef int nb[3]
    for a in range(p.cells + 4):
        ref[a] = <int16_t> a
    for a in range(p.cells):
        if b[a] == 0 or a == skip:
            continue
        r = a // n
        c = a % n
        nb[0] = a - n if r > 0 else -1                       # (r-1, c)
        nb[1] = a - n + 1 if r > 0 and c + 1 < n else -1     # (r-1, c+1)
        nb[2] = a - 1 if c > 0 else -1                       # (r, c-1): the other three see a
        for j in range(3):
            if nb[j] >= 0 and nb[j] != skip and b[nb[j]] == b[a]:
                ra = find_mut(ref, a)
                rb = find_mut(ref, nb[j])
                ref[ra] = <int16_t> rb
        x = r if b[a] == 1 else c
        e = edge(p, b[a] - 1)
        if x == 0:
            ref[find_mut(ref, a)] = <int16_t> find_mut(ref, e)
        if x == n - 1:
            ref[find_mut(ref, a)] = <int16_t> find_mut(ref, e + 1)


cdef inline int connected(const Params* p, int16_t* ref, int player) noexcept nogil:
    return find_mut(ref, edge(p, player)) == find_mut(ref, edge(p, player) + 1)


cdef int validate(const void* pp, char* s) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef const Header* h = header(s)
    cdef const int8_t* b = board_of(p, s)
    cdef const int16_t* par = parent_of(p, s)
    cdef int16_t ref[MAX_CELLS + 4]
    cdef int16_t root[MAX_CELLS + 4]
    cdef int16_t owner[MAX_CELLS + 4]       # ref group -> the blob's root for it
    cdef int16_t group[MAX_CELLS + 4]       # the blob's root -> ref group
    cdef int la = h.last_action, w
    cdef int count[2]
    cdef uint64_t hv = 0
    cdef int code = check_cells(h, p.cells + 1, p.cells + 1, b, p.cells, SALT, &hv, count)
    if code == BLOB_OK:
        code = check_placements(h, b, count, hv, p.side_key, p.swap, p.cells)
    if code != BLOB_OK:
        return code
    # the union-find forest: links in range, no cycles, and the same groups as the board's
    groups(p, b, -1, ref)
    if not same_forest(par, p.cells + 4, b, p.cells, ref, root, owner, group):
        return BAD_FOREST
    # the game is over exactly when a side connects, and it was the last stone that connected it
    if connected(p, ref, 0) and connected(p, ref, 1):
        return BLOB_STATUS
    for w in range(2):
        if connected(p, ref, w):
            if h.status != TERMINAL or not (0 <= la < p.cells):
                return BLOB_STATUS
            if h.winner != w or w != 1 - h.to_play:
                return BLOB_WINNER
            groups(p, b, la, ref)
            return BLOB_STATUS if connected(p, ref, w) else BLOB_OK
    return BLOB_STATUS if h.status != RUNNING else BLOB_OK


PLANES = (
    ("own", "stones of the player the observation is for"),
    ("opponent", "stones of the other player"),
    ("connects_top_bottom", "1 on every cell if the observer is black (connects row 0 to row N-1), else 0"),
    ("ones", "1 on every cell (marks the board inside zero padding)"),
)
# the texts of the game's own check reasons (spec.pyx's shared REASONS come before them)
REASONS = ("that point is occupied",
           "swap is only legal as the second move of a game with swap=True")
SYMMETRIES = ("identity", "rot180")
BLOB_ERRORS = ("parent: the union-find links do not match the groups of stones on the board (a link "
               "out of range, a cycle, an empty cell linked, or groups joined or split wrongly)",)


def make_spec(board_size=11, swap=True):
    """GameSpec for Hex on a board_size x board_size rhombus, with the pie rule when `swap`."""
    n = int_arg("hex", "board_size", board_size, 2, MAX_SIZE)
    sw = bool(choice_arg("hex", "swap", swap, (True, False)))
    cdef GameSpec spec = GameSpec()
    cdef Params* p = <Params*> spec.alloc_params(sizeof(Params))
    p.n, p.cells, p.swap = n, n * n, sw
    p.side_key = side_key(MAX_CELLS, SALT)
    p.top, p.bottom, p.left, p.right = n * n, n * n + 1, n * n + 2, n * n + 3
    p.off_board = align8(sizeof(Header))
    p.off_parent = align8(p.off_board + p.cells)
    p.state_bytes = align8(p.off_parent + (p.cells + 4) * sizeof(int16_t))
    set_shape(&spec.d, n * n + 1, n, n, 4, p.state_bytes)
    set_rules(&spec.d, reset, check, apply, legal, observe, validate)
    spec.describe("hex", {"board_size": n, "swap": sw}, ("black_0", "white_0"), REASONS, PLANES, SYMMETRIES,
                  lambda a: "swap" if a == n * n else point_name(a // n, a % n), blob_errors=BLOB_ERRORS,
                  layout={"board": (p.off_board, "i1", p.cells), "parent": (p.off_parent, "i2", p.cells + 4)},
                  swap_action=n * n)
    return spec


cdef class HexState(State):
    """Hex position: HexState(board_size=11, swap=True).  Black (player 0) connects top-bottom."""

    def __init__(self, board_size=11, swap=True):
        self._adopt(make_spec(board_size, swap))
        self.reset()

    def recompute_hash(self):
        """The Zobrist hash computed from scratch from the board and the player to move."""
        cdef const Params* p = <const Params*> self.g.params
        return stones_hash(board_of(p, self.s), p.cells, header(self.s).to_play, SALT, p.side_key)

    def components(self):
        """int64 (N*N + 4,): the union-find root of every cell and of the edge nodes TOP, BOTTOM,
        LEFT, RIGHT (indices N*N .. N*N+3), read without compressing paths."""
        cdef const Params* p = <const Params*> self.g.params
        return forest_roots(parent_of(p, self.s), p.cells + 4)

    def winning_path(self):
        """For a finished game, a shortest chain of the winner's stones joining its two edges, as
        a list of (row, col) from the first edge (row 0 / column 0); None while the game runs."""
        if not self.is_terminal():
            return None
        b = self.board()
        n = b.shape[0]
        w = self.winner
        colour = w + 1
        starts = [(0, c) for c in range(n)] if w == 0 else [(r, 0) for r in range(n)]
        prev = {}
        queue = []
        for q in starts:
            if b[q] == colour:
                prev[q] = None
                queue.append(q)
        i = 0
        while i < len(queue):
            r, c = queue[i]
            i += 1
            if (w == 0 and r == n - 1) or (w == 1 and c == n - 1):
                path = []
                cur = (r, c)
                while cur is not None:
                    path.append(cur)
                    cur = prev[cur]
                path.reverse()
                return path
            for dr, dc in ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0)):
                q = (r + dr, c + dc)
                if 0 <= q[0] < n and 0 <= q[1] < n and b[q] == colour and q not in prev:
                    prev[q] = (r, c)
                    queue.append(q)
        return None
