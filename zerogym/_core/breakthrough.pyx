# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Breakthrough (Dan Troyka, 2000) on a rows x cols board.

Player 0 starts on rows 0 and 1 (the top as drawn) and moves toward higher rows; player 1 starts
on the last two rows and moves toward row 0.  A piece moves one row forward, straight to an empty
cell or diagonally to a cell that is empty or holds an enemy piece (captured); there are no
straight captures.  A player wins by reaching the far row or by capturing every enemy piece.
With at least two columns the player to move always has a move (the most advanced piece can go
to one of its diagonal cells), so there are no passes and no draws.

Action (r * cols + c) * 3 + d: the piece on (r, c) moves to column c - 1 (d = 0), c (d = 1) or
c + 1 (d = 2) of the next row toward the opponent.

Layout of a state blob: Header, then int8 board[rows*cols] (row 0 on top; 0 empty, 1 player 0,
2 player 1), then int16 count[2] (pieces of each player), then int16 first (the player who moved
first: 0, or set_position's player to move).  Hash: XOR of a Zobrist key per piece
(cell, player), XOR a side key when player 1 is to move.
"""
from libc.stdint cimport int8_t, int16_t, uint64_t
from libc.string cimport memset, memcpy
import operator

import numpy as np

from zerogym._core.game cimport (Header, header, align8, splitmix64, finish, start, played,
                                 mask_over, set_shape, set_rules, REASON_OK, REASON_GAME, RUNNING, TERMINAL,
                                 BLOB_OK, BLOB_TO_PLAY, BLOB_STATUS, BLOB_WINNER, BLOB_MOVES, BLOB_LAST_ACTION,
                                 BLOB_HASH, BLOB_GAME)
from zerogym._core.common cimport cell_key, board_hash, check_cells
from zerogym._core.spec cimport GameSpec
from zerogym._core.state cimport State
from zerogym._validate import board_arg, int_arg
from zerogym.coords import COLUMNS

MIN_ROWS, MAX_ROWS, MIN_COLS, MAX_COLS = 4, 16, 2, 16
SYMMETRIES = ("identity", "flip_lr")
# sub-action d moves a piece one row toward the opponent ("forward") and d - 1 columns
MOVE_OFFSETS = ((1, -1), (1, 0), (1, 1))

cdef enum:
    MOVES = 3                  # actions per cell: to column c-1, c, c+1

cdef enum:
    # check's reasons, numbered on from REASON_GAME in the order of REASONS' texts
    NO_PIECE = REASON_GAME, OFF_BOARD, BLOCKED, OWN_PIECE

cdef enum:
    # validate's codes, numbered on from BLOB_GAME in the order of BLOB_ERRORS' texts
    BAD_COUNT = BLOB_GAME, BAD_FIRST

cdef uint64_t SALT = 0xB7B7B7B700000000ULL

ctypedef struct Params:
    int rows, cols, cells
    uint64_t side_key
    Py_ssize_t off_board, off_count, state_bytes


cdef inline int8_t* board_of(const Params* p, char* s) noexcept nogil:
    return <int8_t*> (s + p.off_board)


cdef inline int16_t* count_of(const Params* p, char* s) noexcept nogil:
    return <int16_t*> (s + p.off_count)


cdef inline int16_t* first_of(const Params* p, char* s) noexcept nogil:
    return <int16_t*> (s + p.off_count) + 2


cdef inline int goal_row(const Params* p, int player) noexcept nogil:
    return p.rows - 1 if player == 0 else 0


cdef inline int target(const Params* p, int a, int player) noexcept nogil:
    # the cell action a moves to for `player`, or -1 off the board
    cdef int cell = a // MOVES
    cdef int r = cell // p.cols + 1 - 2 * player
    cdef int c = cell % p.cols + a % MOVES - 1
    if r < 0 or r >= p.rows or c < 0 or c >= p.cols:
        return -1
    return r * p.cols + c


cdef void reset(const void* pp, char* s) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef int8_t* b = board_of(p, s)
    cdef int16_t* cnt = count_of(p, s)
    cdef int i, two = 2 * p.cols
    memset(s, 0, p.state_bytes)
    for i in range(two):
        b[i] = 1
        b[p.cells - 1 - i] = 2
    cnt[0] = cnt[1] = <int16_t> two
    start(header(s), board_hash(b, p.cells, SALT))


cdef int check(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef const int8_t* b = board_of(p, s)
    cdef int me = header(s).to_play, t
    if b[a // MOVES] != me + 1:
        return NO_PIECE
    t = target(p, a, me)
    if t < 0:
        return OFF_BOARD
    if b[t] == me + 1:
        return OWN_PIECE
    if a % MOVES == 1 and b[t] != 0:
        return BLOCKED
    return REASON_OK


cdef void apply(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Header* h = header(s)
    cdef int8_t* b = board_of(p, s)
    cdef int16_t* cnt = count_of(p, s)
    cdef int me = h.to_play, src = a // MOVES, t = target(p, a, me)
    if b[t] != 0:                                   # a diagonal capture
        cnt[1 - me] -= 1
        h.hash ^= cell_key(t, 1 - me, SALT)
    b[src] = 0
    b[t] = <int8_t> (me + 1)
    h.hash ^= cell_key(src, me, SALT) ^ cell_key(t, me, SALT) ^ p.side_key
    played(h, a)
    if t // p.cols == goal_row(p, me) or cnt[1 - me] == 0:
        finish(h, me)


cdef int legal(const void* pp, char* s, int8_t* mask) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef const int8_t* b = board_of(p, s)
    cdef int me = header(s).to_play, i, c, t, n = 0
    cdef int8_t v = <int8_t> (me + 1)
    cdef int step = p.cols * (1 - 2 * me)
    if mask_over(header(s), mask, p.cells * MOVES):
        return 0
    memset(mask, 0, p.cells * MOVES)
    for i in range(p.cells):
        if b[i] != v:
            continue
        t = i + step                               # straight ahead; on the board while the game runs
        c = i % p.cols
        if c > 0 and b[t - 1] != v:
            mask[MOVES * i] = 1
            n += 1
        if b[t] == 0:
            mask[MOVES * i + 1] = 1
            n += 1
        if c + 1 < p.cols and b[t + 1] != v:
            mask[MOVES * i + 2] = 1
            n += 1
    return n


cdef void observe(const void* pp, char* s, int player, int8_t* out) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef const int8_t* b = board_of(p, s)
    cdef int i, goal = goal_row(p, player)
    cdef int8_t mine = <int8_t> (player + 1), other = <int8_t> (2 - player), down = player == 0, x
    for i in range(p.cells):
        x = b[i]
        out[5 * i] = x == mine
        out[5 * i + 1] = x == other
        out[5 * i + 2] = i // p.cols == goal
        out[5 * i + 3] = down
        out[5 * i + 4] = 1


cdef int validate(const void* pp, char* s) noexcept nogil:
    # set_position may start a game from any pieces and either player (kept in `first`), so the move
    # counter says nothing of the board; it is only bounded.  Checked: cells, counts, hash, the last move, and
    # that the game is over exactly when a player has reached its far row or lost every piece.
    cdef const Params* p = <const Params*> pp
    cdef const Header* h = header(s)
    cdef const int8_t* b = board_of(p, s)
    cdef const int16_t* cnt = count_of(p, s)
    cdef uint64_t hv = 0
    cdef int count[2]
    cdef int won[2]
    cdef int i, la, mover, t = -1, w, goal
    cdef int code = check_cells(h, p.cells * MOVES, longest(p.rows, p.cols), b, p.cells, SALT, &hv, count)
    if code != BLOB_OK:
        return code
    if cnt[0] != count[0] or cnt[1] != count[1] or count[0] > 2 * p.cols or count[1] > 2 * p.cols:
        return BAD_COUNT
    # moves played and moves still to come fit in the longest game, so the counter stays in range on
    # every move from here (each move but the last one brings a piece a row nearer its far row)
    if h.moves + moves_left(p, b) > longest(p.rows, p.cols) - (h.status == RUNNING):
        return BLOB_MOVES
    if first_of(p, s)[0] != 0 and first_of(p, s)[0] != 1:
        return BAD_FIRST
    if h.to_play != (first_of(p, s)[0] + h.moves) % 2:
        return BLOB_TO_PLAY
    if h.hash != (hv ^ p.side_key if h.to_play == 1 else hv):
        return BLOB_HASH
    la = h.last_action
    if la >= 0:
        mover = 1 - h.to_play
        t = target(p, la, mover)
        if b[la // MOVES] != 0 or t < 0 or b[t] != mover + 1:
            return BLOB_LAST_ACTION            # the piece moved away from its cell to the target
    won[0] = count[1] == 0
    won[1] = count[0] == 0
    for i in range(p.cols):
        won[0] |= b[(p.rows - 1) * p.cols + i] == 1
        won[1] |= b[i] == 2
    if won[0] and won[1]:
        return BLOB_STATUS
    if won[0] or won[1]:
        w = 0 if won[0] else 1
        if h.status != TERMINAL:
            return BLOB_STATUS
        if h.winner != w or (la >= 0 and w != 1 - h.to_play):
            return BLOB_WINNER                 # a move ends the game for the player who made it
        if la >= 0:
            # and it is the last move that won: before it no piece of w was on its far row, and the
            # other player had a piece, which only a diagonal move can have taken
            goal = goal_row(p, w) * p.cols
            for i in range(goal, goal + p.cols):
                if b[i] == w + 1 and i != t:
                    return BLOB_STATUS
            if t < goal or t >= goal + p.cols:
                if count[1 - w] != 0 or la % MOVES == 1:
                    return BLOB_STATUS
            elif count[1 - w] == 0 and la % MOVES == 1:
                return BLOB_STATUS
        return BLOB_OK
    return BLOB_STATUS if h.status != RUNNING else BLOB_OK


cdef inline int moves_left(const Params* p, const int8_t* b) noexcept nogil:
    # the most moves the pieces on b can still make without reaching their far row: rows - 2 - r for a
    # piece of player 0 on row r, r - 1 for one of player 1 (none on or past the row before the goal)
    cdef int i, r, n = 0
    for i in range(p.cells):
        r = i // p.cols
        if b[i] == 1 and r < p.rows - 2:
            n += p.rows - 2 - r
        elif b[i] == 2 and r > 1:
            n += r - 1
    return n


cdef inline int longest(int rows, int cols) noexcept nogil:
    # the longest game (also from a set position): each player has at most 2 * cols pieces, each of
    # which makes at most rows - 2 moves before one reaches the far row, which ends the game
    return 4 * cols * (rows - 2) + 1


def max_moves(rows, cols):
    """The most moves a game on a rows x cols board can last (from any position)."""
    return longest(rows, cols)


PLANES = (
    ("own", "pieces of the player the observation is for"),
    ("opponent", "pieces of the other player"),
    ("goal_row", "1 on the row the observer's pieces must reach"),
    ("moves_down", "1 on every cell if the observer moves toward higher rows (player 0), else 0"),
    ("ones", "1 on every cell (marks the board inside zero padding)"),
)
# the texts of the game's own check reasons (spec.pyx's shared REASONS come before them)
REASONS = ("no piece of the player to move on that cell",
           "that move leaves the board",
           "a straight move needs an empty cell (pieces capture only diagonally)",
           "that cell holds one of the mover's own pieces")
BLOB_ERRORS = ("count: the piece counts do not match the board, or exceed two rows",
               "first: the player who moved first must be 0 or 1")


def action_namer(cols):
    """Action -> "c2-d": the piece's cell, then the column it moves to (its row depends on who
    moves); "a2-off" for a move off the board's side."""
    letters = COLUMNS.lower()

    def name(a):
        cell, d = divmod(a, MOVES)
        r, c = divmod(cell, cols)
        to = c + d - 1
        return f"{letters[c]}{r + 1}-{letters[to] if 0 <= to < cols else 'off'}"
    return name


def make_spec(rows=8, cols=8):
    """GameSpec for Breakthrough on a rows x cols board (rows 4..16, cols 2..16)."""
    nr = int_arg("breakthrough", "rows", rows, MIN_ROWS, MAX_ROWS, " (each side starts on two full rows)")
    nc = int_arg("breakthrough", "cols", cols, MIN_COLS, MAX_COLS)
    cdef GameSpec spec = GameSpec()
    cdef Params* p = <Params*> spec.alloc_params(sizeof(Params))
    p.rows, p.cols, p.cells = nr, nc, nr * nc
    p.side_key = splitmix64(SALT + <uint64_t> 0xFFFF)
    p.off_board = align8(sizeof(Header))
    p.off_count = align8(p.off_board + p.cells)
    p.state_bytes = align8(p.off_count + 3 * sizeof(int16_t))
    set_shape(&spec.d, p.cells * MOVES, nr, nc, 5, p.state_bytes)
    set_rules(&spec.d, reset, check, apply, legal, observe, validate)
    spec.describe("breakthrough", {"rows": nr, "cols": nc}, ("player_0", "player_1"), REASONS, PLANES,
                  SYMMETRIES, action_namer(nc), action_kind="cell_moves", move_offsets=MOVE_OFFSETS,
                  blob_errors=BLOB_ERRORS,
                  layout={"board": (p.off_board, "i1", p.cells), "count": (p.off_count, "i2", 2),
                          "first": (p.off_count + 2 * sizeof(int16_t), "i2", 1)})
    return spec


def _int_arg(x, what):
    """x as an int (any integer type but bool), else TypeError naming `what`."""
    if isinstance(x, (bool, np.bool_)) or not hasattr(type(x), "__index__"):
        raise TypeError(f"breakthrough: {what} must be an int, got {type(x).__name__} {x!r}")
    return operator.index(x)


cdef class BreakthroughState(State):
    """Breakthrough position: BreakthroughState(rows=8, cols=8); action (r * cols + c) * 3 + d."""

    def __init__(self, rows=8, cols=8):
        self._adopt(make_spec(rows, cols))
        self.reset()

    def counts(self):
        """(pieces of player 0, pieces of player 1)."""
        cdef int16_t* cnt = count_of(<const Params*> self.g.params, self.s)
        return (int(cnt[0]), int(cnt[1]))

    def move_cells(self, action, player=None):
        """((r, c) the piece leaves, (r, c) it goes to, or None off the board) of `action` played by
        `player` (default: the player to move)."""
        cdef const Params* p = <const Params*> self.g.params
        a = _int_arg(action, "action")
        pl = self.current_player if player is None else _int_arg(player, "player")
        if not 0 <= a < self.g.num_actions or pl not in (0, 1):
            raise ValueError(f"breakthrough: no action {action!r} for player {player!r}")
        t = target(p, a, pl)
        return divmod(a // MOVES, p.cols), (divmod(t, p.cols) if t >= 0 else None)

    def last_point(self):
        """(row, col) the last move went to, or None at the start."""
        cdef const Params* p = <const Params*> self.g.params
        cdef Header* h = header(self.s)
        if h.last_action < 0:
            return None
        return divmod(target(p, h.last_action, 1 - h.to_play), p.cols)

    def recompute_hash(self):
        """The Zobrist hash computed from scratch from the board and the player to move."""
        cdef const Params* p = <const Params*> self.g.params
        cdef uint64_t hv = board_hash(board_of(p, self.s), p.cells, SALT)
        return hv ^ p.side_key if header(self.s).to_play == 1 else hv

    def set_position(self, board, to_play=0):
        """Test and analysis helper: set the pieces from a (rows, cols) array of 0 empty / 1 player 0 /
        2 player 1, and the player to move.  The move count restarts at 0; a board where a player has
        already reached its far row or has no piece is a finished game.  Raises ValueError for bad
        input (values, shape, more than two rows of pieces, both players already winning)."""
        cdef const Params* p = <const Params*> self.g.params
        arr = board_arg("breakthrough", board, (p.rows, p.cols), "1 (player 0) or 2 (player 1)")
        if _int_arg(to_play, "to_play") not in (0, 1):
            raise ValueError(f"breakthrough: to_play must be 0 or 1, got {to_play!r}")
        to_play = operator.index(to_play)
        counts = [int((arr == 1).sum()), int((arr == 2).sum())]
        if max(counts) > 2 * p.cols:
            raise ValueError(f"breakthrough: at most {2 * p.cols} pieces a player (two rows), got {counts}")
        won = [counts[1] == 0 or bool((arr[p.rows - 1] == 1).any()), counts[0] == 0 or bool((arr[0] == 2).any())]
        if all(won):
            raise ValueError("breakthrough: both players have already won on that board")
        cdef int8_t[::1] flat = np.ascontiguousarray(arr.reshape(-1), dtype=np.int8)
        cdef Header* h = header(self.s)
        cdef int16_t* cnt = count_of(p, self.s)
        memset(self.s, 0, self.g.state_bytes)
        memcpy(board_of(p, self.s), &flat[0], p.cells)
        cnt[0], cnt[1] = counts
        start(h, 0)
        h.to_play = to_play
        first_of(p, self.s)[0] = to_play
        h.hash = self.recompute_hash()
        if any(won):
            finish(h, 0 if won[0] else 1)
        return self
