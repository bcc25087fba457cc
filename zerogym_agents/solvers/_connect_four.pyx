# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled perfect-play search for standard Connect Four (6 rows, 7 columns, four in a row).

Bitboards: bit c * 7 + r is the cell of column c, row r (row 0 at the bottom); bit c * 7 + 6 is a
sentinel row that is never set, so lines that would wrap from one column into the next never match.
A position is (cur, mask, n): the stones of the player to move, all stones, and their number.
cur + mask identifies the position (each column's 7 bits hold mask's column, 2**h - 1, plus cur's
stones, a number in [2**h - 1, 2**(h+1) - 2]: no carry, and those ranges do not overlap), so the
table stores it whole in 49 bits and needs no hash verification beyond it.

Scores follow Pascal Pons, "Solving Connect 4: how to build a perfect AI" (2019): a win is worth
22 - k, where k is the number of stones the winner has played with the winning one, a draw 0, a
loss the negative of the opponent's win.  The search is negamax with alpha-beta (fail-soft) over
those scores, the root's score found by null-window searches that halve the remaining interval
(closest to zero first); moves that let the opponent win at once are never tried, and a move is
forced where the opponent threatens to win.  Moves are tried table move first, then by the number
of cells they make winning for the mover, then nearest the centre.  The transposition table is one
array of 64-bit words allocated when the solver is made: key (49 bits), score, bound and best
column packed together, always replaced.
"""
from cpython.mem cimport PyMem_Calloc, PyMem_Free
from libc.stdint cimport uint64_t
from libc.string cimport memset

cdef extern from *:
    int popcount64 "__builtin_popcountll"(unsigned long long x) nogil

cdef enum:
    WIDTH = 7
    HEIGHT = 6
    H1 = 7               # bits per column: HEIGHT cells and the sentinel
    CELLS = 42
    NO_MOVE = 7
    LOWER = 1            # table bounds: the score is >= the stored one
    UPPER = 2            # <= the stored one
    EXACT = 3
    VALUE_SHIFT = 49
    FLAG_SHIFT = 55
    MOVE_SHIFT = 57
    VALUE_OFFSET = 32

cdef uint64_t BOTTOM = 0x40810204081ULL          # bit c * 7 for every column c
cdef uint64_t BOARD = BOTTOM * 63ULL               # the 42 cells, sentinels left out
cdef uint64_t KEY_MASK = (1ULL << VALUE_SHIFT) - 1
cdef uint64_t MIX = 0x9E3779B97F4A7C15ULL        # multiplicative hashing of the key to a slot
cdef int ORDER[7]
ORDER[:] = [3, 2, 4, 1, 5, 0, 6]                   # centre first

SCORE_MIN = -(CELLS // 2) + 3                      # a loss to the opponent's fourth stone
SCORE_MAX = (CELLS + 1) // 2 - 3                   # a win with one's own fourth stone


cdef inline uint64_t column_cells(int c) noexcept nogil:
    return 63ULL << (c * H1)


cdef inline uint64_t playable(uint64_t mask) noexcept nogil:
    # the lowest empty cell of every column that is not full
    return (mask + BOTTOM) & BOARD


cdef inline uint64_t gaps(uint64_t p, int s) noexcept nogil:
    # cells x such that x with three stones of p makes a line of four along step s
    cdef uint64_t low2 = (p << s) & (p << (2 * s))      # the two cells below x along s are p's
    cdef uint64_t high2 = (p >> s) & (p >> (2 * s))     # the two cells above x
    return (low2 & ((p << (3 * s)) | (p >> s))) | (high2 & ((p << s) | (p >> (3 * s))))


cdef inline uint64_t winning_cells(uint64_t p, uint64_t mask) noexcept nogil:
    # the empty cells (playable now or later) where a stone completes four for the stones p
    cdef uint64_t r = (p << 1) & (p << 2) & (p << 3)    # vertical: three stones right below
    r |= gaps(p, H1) | gaps(p, H1 - 1) | gaps(p, H1 + 1)
    return r & (BOARD ^ mask)


cdef inline uint64_t mirror(uint64_t x) noexcept nogil:
    # the columns in reverse order (7 bits each: no bit crosses into another column)
    cdef uint64_t r = 0
    cdef int c
    for c in range(WIDTH):
        r |= ((x >> (c * H1)) & 127ULL) << ((WIDTH - 1 - c) * H1)
    return r


cdef inline bint has_four(uint64_t p) noexcept nogil:
    return pair_of_pairs(p, 1) or pair_of_pairs(p, H1) or pair_of_pairs(p, H1 - 1) or pair_of_pairs(p, H1 + 1)


cdef inline bint pair_of_pairs(uint64_t p, int s) noexcept nogil:
    # four in a row along step s: two stones side by side, twice, two steps apart
    cdef uint64_t m = p & (p >> s)
    return (m & (m >> (2 * s))) != 0


cdef inline uint64_t safe_moves(uint64_t cur, uint64_t mask) noexcept nogil:
    # playable cells after which the opponent cannot win at once; 0 when every move loses at once
    cdef uint64_t poss = playable(mask)
    cdef uint64_t threats = winning_cells(cur ^ mask, mask)
    cdef uint64_t forced = poss & threats
    if forced:
        if forced & (forced - 1):
            return 0                       # two threats to block: lost
        poss = forced
    return poss & ~(threats >> 1)          # never play right below an opponent's winning cell


cdef class Core:
    """The search over bitboards, with its transposition table of 2**tt_bits 8-byte entries.

    Core(tt_bits): the table is allocated once, here.  solve(cur, mask, n, weak) returns the score
    of the position for the player to move (the mover must not have four already);
    weak=True only decides its sign (win / draw / loss), which is much faster.  No move may have
    been played past a finished game; the Python layer (connect_four.py) checks positions first.
    """
    cdef uint64_t* tt
    cdef int shift
    cdef readonly int tt_bits
    cdef readonly long long nodes
    cdef public long long node_limit
    cdef bint aborted
    cdef bint busy

    def __cinit__(self, int tt_bits=22, long long node_limit=0):
        if not 10 <= tt_bits <= 30:
            raise ValueError(f"tt_bits must be in 10..30 (a table of 2**tt_bits 8-byte entries), got {tt_bits}")
        if node_limit < 0:
            raise ValueError(f"node_limit must be >= 0 (0 = no limit), got {node_limit}")
        self.tt = <uint64_t*> PyMem_Calloc((<size_t> 1) << tt_bits, sizeof(uint64_t))
        if self.tt == NULL:
            raise MemoryError(f"Connect Four solver: a table of 2**{tt_bits} entries "
                              f"({8 << tt_bits} bytes) could not be allocated")
        self.tt_bits = tt_bits
        self.shift = 64 - tt_bits
        self.node_limit = node_limit

    def __dealloc__(self):
        PyMem_Free(self.tt)

    def clear(self):
        """Forget every stored position."""
        self._enter()
        memset(self.tt, 0, ((<size_t> 1) << self.tt_bits) * sizeof(uint64_t))
        self.busy = False

    cdef int _enter(self) except -1:
        if self.busy:
            raise RuntimeError("Connect Four solver: another thread is searching with this solver; one call at a time")
        self.busy = True
        self.aborted = False
        return 0

    cdef inline void _store(self, uint64_t* slot, uint64_t key, int value, int flag, int move) noexcept nogil:
        slot[0] = (key | (<uint64_t> (value + VALUE_OFFSET) << VALUE_SHIFT) | (<uint64_t> flag << FLAG_SHIFT)
                   | (<uint64_t> move << MOVE_SHIFT))

    cdef int _negamax(self, uint64_t cur, uint64_t mask, int n, int alpha, int beta) noexcept nogil:
        # fail-soft score of (cur, mask, n), whose mover cannot win with this move: a result r <= alpha
        # is an upper bound, r >= beta a lower bound, anything between exact
        cdef uint64_t moves = safe_moves(cur, mask), key, mkey, entry, mv
        cdef bint flipped
        cdef uint64_t* slot
        cdef int lo, hi, v, flag, tt_move = NO_MOVE, alpha0, best, best_col, k = 0, i, j, c, sc
        cdef int cols[7]
        cdef int scores[7]
        self.nodes += 1
        if self.node_limit and self.nodes > self.node_limit:
            self.aborted = True
        if self.aborted:
            return 0
        if moves == 0:
            return -((CELLS - n) // 2)                 # the opponent wins with the next stone
        if n >= CELLS - 2:
            return 0                                   # we fill one cell safely, the opponent the last
        lo = -((CELLS - 2 - n) // 2)                   # losing takes the opponent two more stones at least
        hi = (CELLS - 1 - n) // 2                      # winning takes us two more stones at least
        if alpha < lo:
            alpha = lo
            if alpha >= beta:
                return alpha
        if beta > hi:
            beta = hi
            if alpha >= beta:
                return beta
        key = cur + mask                               # a position and its mirror image share one entry
        mkey = mirror(key)
        flipped = mkey < key
        if flipped:
            key = mkey
        slot = &self.tt[(key * MIX) >> self.shift]
        entry = slot[0]
        flag = (entry >> FLAG_SHIFT) & 3
        if flag and (entry & KEY_MASK) == key:
            v = <int> ((entry >> VALUE_SHIFT) & 63) - VALUE_OFFSET
            if flag == EXACT:
                return v
            if flag == LOWER and v > alpha:
                alpha = v
            elif flag == UPPER and v < beta:
                beta = v
            if alpha >= beta:
                return v
            tt_move = (entry >> MOVE_SHIFT) & 7
            if flipped and tt_move != NO_MOVE:
                tt_move = WIDTH - 1 - tt_move
        for i in range(WIDTH):                         # order: table move, threats made, centre
            c = ORDER[i]
            mv = moves & column_cells(c)
            if not mv:
                continue
            sc = 1000 if c == tt_move else popcount64(winning_cells(cur | mv, mask | mv))
            j = k
            while j > 0 and scores[j - 1] < sc:
                scores[j] = scores[j - 1]
                cols[j] = cols[j - 1]
                j -= 1
            scores[j] = sc
            cols[j] = c
            k += 1
        alpha0 = alpha
        best = -1000
        best_col = NO_MOVE
        for i in range(k):
            mv = moves & column_cells(cols[i])
            v = -self._negamax(cur ^ mask, mask | mv, n + 1, -beta, -alpha)
            if self.aborted:
                return 0
            if v > best:
                best = v
                best_col = cols[i]
            if v >= beta:
                break
            if v > alpha:
                alpha = v
        if flipped:
            best_col = WIDTH - 1 - best_col
        self._store(slot, key, best, LOWER if best >= beta else (UPPER if best <= alpha0 else EXACT), best_col)
        return best

    cdef int _solve(self, uint64_t cur, uint64_t mask, int n, bint weak) noexcept nogil:
        # exact score (weak: its sign) of a position whose game is not over
        cdef int lo, hi, med, r
        if winning_cells(cur, mask) & playable(mask):
            return 1 if weak else (CELLS + 1 - n) // 2
        if n >= CELLS - 1:
            return 0
        lo = -((CELLS - n) // 2)
        hi = (CELLS - 1 - n) // 2
        if weak:
            lo = max(lo, -1)
            hi = min(hi, 1)
        while lo < hi:                                 # null windows, halving the interval left
            med = lo + (hi - lo) // 2
            if med <= 0 and lo // 2 < med:
                med = lo // 2
            elif med >= 0 and hi // 2 > med:
                med = hi // 2
            r = self._negamax(cur, mask, n, med, med + 1)
            if self.aborted:
                return 0
            if r <= med:
                hi = r
            else:
                lo = r
        if weak:
            return (lo > 0) - (lo < 0)
        return lo

    cdef int _finish(self) except -1:
        self.busy = False
        if self.aborted:
            self.aborted = False
            raise RuntimeError(f"Connect Four solver: searched more than node_limit={self.node_limit} nodes "
                               f"(raise node_limit, or 0 for no limit)")
        return 0

    def solve(self, uint64_t cur, uint64_t mask, int n, bint weak=False):
        """Score of the position for the player to move (weak: -1, 0 or 1)."""
        cdef int v
        self._enter()
        self.nodes = 0
        with nogil:
            v = self._solve(cur, mask, n, weak)
        self._finish()
        return v

    def move_scores(self, uint64_t cur, uint64_t mask, int n, bint weak=False):
        """List of 7: the score for the mover of playing each column, None where the column is full."""
        cdef int c, v
        cdef uint64_t mv, poss = playable(mask)
        cdef int out[7]
        self._enter()
        self.nodes = 0
        with nogil:
            for c in range(WIDTH):
                mv = poss & column_cells(c)
                out[c] = -1000
                if not mv:
                    continue
                if has_four(cur | mv):
                    out[c] = 1 if weak else (CELLS + 1 - n) // 2
                elif n + 1 >= CELLS:
                    out[c] = 0
                else:
                    out[c] = -self._solve(cur ^ mask, mask | mv, n + 1, weak)
                if self.aborted:
                    break
        self._finish()
        return [None if v == -1000 else v for v in out[:WIDTH]]


def has_line(uint64_t stones):
    """Whether the bitboard `stones` holds four in a row (any direction)."""
    return has_four(stones)


def winning_cells_of(uint64_t stones, uint64_t mask):
    """Bitboard of the empty cells where one more stone gives `stones` four in a row."""
    return winning_cells(stones, mask)
