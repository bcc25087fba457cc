# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Go on an N x N board (2..25): area scoring (Tromp-Taylor) plus komi, suicide illegal,
positional superko (or simple ko), two consecutive passes end the game.

Internally the board is padded: point (r, c) lives at pt = (r + 1) * W + c with W = N + 1, so
rows -1 and N and the column N (shared as the left border of the next row) hold EDGE, and the
neighbours of pt are pt +- 1 and pt +- W without bounds checks.

Layout of a state blob (all offsets 8-aligned, stored in Params; no pointers):
    Header
    Extra              board-only hash, ko point, consecutive passes, stone counts
    int8  board[P]     EMPTY / BLACK / WHITE / EDGE per padded point
    int16 head[P]      chain representative ("head") of a stone
    int16 nxt[P]       next stone of the same chain (circular linked list)
    Chain chain[P]     per chain, indexed by its head: stones, pseudo-liberties (count, sum of the
                       liberty points, sum of their squares)
    uint64 zx[P]       per chain head: the XOR of the chain's stone keys
    int32 seen[cells+1]  how many stored positions have k stones (positional superko only)
    uint64 seen_set[cap] open-addressing set of the board-only hashes of every position of this
                       game, including the start (positional superko only; 0 marks a free slot)

Chains are kept incrementally (merge the smaller list into the bigger, walk a list only to
capture it); nothing is flood filled per move.  The pseudo-liberty counters give: no liberty iff
libs == 0, exactly one iff libs * lsq == lsum * lsum.

Hashing: every key is splitmix64 of a small salted integer.  bhash (Extra) = K_BOARD ^ keys of the
stones: the board-only hash stored in the superko set.  Header.hash = bhash ^ K_WHITE when white
is to move, so equal boards with different players to move hash differently.
"""
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memcmp, memcpy, memset
import math
import numbers

import numpy as np

from zerogym._core.game cimport (Header, header, align8, splitmix64, finish, check_header, start, played,
                                 mask_over, set_shape, set_rules, REASON_OK, REASON_GAME, RUNNING, TERMINAL, TRUNCATED, BLOB_OK,
                                 BLOB_TO_PLAY, BLOB_STATUS, BLOB_WINNER, BLOB_LAST_ACTION, BLOB_HASH,
                                 BLOB_CELL, BLOB_GAME)
from zerogym._core.spec cimport GameSpec
from zerogym._core.state cimport State
from zerogym._validate import int_arg, choice_arg
from zerogym.coords import point_name
from zerogym.symmetry import DIHEDRAL

MIN_SIZE = 2
MAX_SIZE = 25
MAX_MOVES_LIMIT = 100000

cdef enum:
    OCCUPIED = REASON_GAME
    SUICIDE
    KO
    SUPERKO

cdef enum:
    BAD_BORDER = BLOB_GAME
    BAD_COUNTS
    BAD_CHAINS
    NO_LIBERTY
    BAD_PASSES
    BAD_KO
    BAD_HISTORY

cdef enum:
    EMPTY = 0
    BLACK = 1
    WHITE = 2
    EDGE = 3
    MAXP = 704          # padded points of the largest board: (25 + 2) * (25 + 1) = 702

cdef enum:
    PLANES_N = 7
    LIB = 1             # scan(): a neighbour that gives the new stone a liberty
    CAP = 2             # scan(): a neighbour chain that the new stone captures

# salt of this game's Zobrist keys; a stone's key uses pt * 4 + colour (colour 1 or 2), so
# pt * 4 + 0 and pt * 4 + 3 are free: K_BOARD and K_WHITE use them.
cdef uint64_t SALT = 0x476F5A6F62726973ULL


ctypedef struct Params:
    int n
    int w               # padded row stride, n + 1
    int cells           # n * n; also the pass action
    int npad            # padded points, (n + 2) * (n + 1)
    int max_moves
    int simple          # 1: simple ko only, 0: positional superko
    int cap             # superko set capacity (power of two), 0 in simple mode
    Py_ssize_t nbytes   # the whole blob
    double komi
    Py_ssize_t off_x
    Py_ssize_t off_board
    Py_ssize_t off_head
    Py_ssize_t off_next
    Py_ssize_t off_chain
    Py_ssize_t off_zx
    Py_ssize_t off_seen
    Py_ssize_t off_set

ctypedef struct Extra:
    uint64_t bloom[8]   # 512-bit Bloom filter of the superko set (two bits per key): most
                        # candidate positions are ruled out here, without probing the set
    uint64_t bhash      # board-only hash: K_BOARD ^ stone keys (what the superko set stores)
    int32_t ko          # padded point banned by simple ko for the player to move, or -1
    int32_t passes      # consecutive passes just played
    int32_t nblack      # stones on the board
    int32_t nwhite

ctypedef struct Chain:        # 12 bytes, so the chains of a 9x9 board fit in 20 cache lines
    int32_t lsq         # sum of squares of the pseudo-liberty points (< 2500 * 702**2 < 2**31)
    int32_t lsum        # sum of the pseudo-liberty points
    int16_t libs        # number of pseudo-liberties (a liberty counted once per adjacent stone)
    int16_t size        # stones

# pointers into one blob, built per call (never stored)
ctypedef struct Go:
    Header* h
    Extra* x
    int8_t* b
    int16_t* head
    int16_t* nxt
    Chain* ch
    uint64_t* zx        # per chain head: XOR of the stone keys of the chain
    int32_t* seen
    uint64_t* tab


cdef inline void view(const Params* p, char* s, Go* g) noexcept nogil:
    g.h = header(s)
    g.x = <Extra*> (s + p.off_x)
    g.b = <int8_t*> (s + p.off_board)
    g.head = <int16_t*> (s + p.off_head)
    g.nxt = <int16_t*> (s + p.off_next)
    g.ch = <Chain*> (s + p.off_chain)
    g.zx = <uint64_t*> (s + p.off_zx)
    g.seen = <int32_t*> (s + p.off_seen)
    g.tab = <uint64_t*> (s + p.off_set)


cdef inline uint64_t stone_key(int pt, int color) noexcept nogil:
    return splitmix64(<uint64_t> (pt * 4 + color) + SALT)


cdef inline uint64_t k_board() noexcept nogil:
    return splitmix64(SALT)


cdef inline uint64_t k_white() noexcept nogil:
    return splitmix64(SALT + 3)


cdef inline int pad_of(const Params* p, int a) noexcept nogil:
    return (a // p.n + 1) * p.w + a % p.n


cdef inline void neighbours(int pt, int w, int* dirs) noexcept nogil:
    # the four neighbours of padded point pt (up, down, right, left); border points are EDGE
    dirs[0] = pt + w
    dirs[1] = pt - w
    dirs[2] = pt + 1
    dirs[3] = pt - 1


cdef inline bint in_atari(const Chain* c) noexcept nogil:
    # exactly one liberty: all pseudo-liberties are the same point
    return <int64_t> c.libs * c.lsq == <int64_t> c.lsum * <int64_t> c.lsum


cdef inline void add_lib(Chain* c, int pt) noexcept nogil:
    c.libs += 1
    c.lsum += pt
    c.lsq += pt * pt


cdef inline void del_lib(Chain* c, int pt) noexcept nogil:
    c.libs -= 1
    c.lsum -= pt
    c.lsq -= pt * pt


# ---- superko set (board-only hashes) ----------------------------------------------------------
cdef inline bint bloom_maybe(const Extra* x, uint64_t key) noexcept nogil:
    # False: key is surely not in the set; True: it may be (the set decides)
    cdef int b1 = <int> (key >> 55), b2 = <int> ((key >> 46) & 511)
    return ((x.bloom[b1 >> 6] >> (b1 & 63)) & 1) and ((x.bloom[b2 >> 6] >> (b2 & 63)) & 1)


cdef inline void bloom_add(Extra* x, uint64_t key) noexcept nogil:
    cdef int b1 = <int> (key >> 55), b2 = <int> ((key >> 46) & 511)
    x.bloom[b1 >> 6] |= (<uint64_t> 1) << (b1 & 63)
    x.bloom[b2 >> 6] |= (<uint64_t> 1) << (b2 & 63)


cdef inline bint seen_before(const Params* p, Go* g, uint64_t key) noexcept nogil:
    return bloom_maybe(g.x, key) and set_has(p, g.tab, key)


cdef inline int probe(const Params* p, const uint64_t* tab, uint64_t key) noexcept nogil:
    # the slot of `key` in the set, or the free slot where it would go: linear probing from its home slot
    cdef int m = p.cap - 1
    cdef int i = <int> (key & <uint64_t> m)
    while tab[i] != 0 and tab[i] != key:
        i = (i + 1) & m
    return i


cdef inline bint set_has(const Params* p, const uint64_t* tab, uint64_t key) noexcept nogil:
    return tab[probe(p, tab, key)] != 0


cdef inline bint set_add(const Params* p, uint64_t* tab, uint64_t key) noexcept nogil:
    # True if the key was new.  The set holds at most max_moves + 1 keys, capacity >= twice that.
    cdef int i = probe(p, tab, key)
    if tab[i] != 0:
        return False
    tab[i] = key
    return True


# ---- rules -----------------------------------------------------------------------------------
cdef void reset(const void* pp, char* s) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Go g
    cdef int r, c
    memset(s, 0, p.nbytes)      # every byte, alignment gaps included: equal positions compare equal
    view(p, s, &g)
    g.x.bhash = k_board()
    g.x.ko = -1
    g.x.passes = 0
    g.x.nblack = 0
    g.x.nwhite = 0
    start(g.h, g.x.bhash)
    memset(g.b, EDGE, p.npad)
    for r in range(p.n):
        for c in range(p.n):
            g.b[(r + 1) * p.w + c] = EMPTY
    if not p.simple:
        set_add(p, g.tab, g.x.bhash)
        bloom_add(g.x, g.x.bhash)
        g.seen[0] = 1


cdef inline int check_pt(const Params* p, Go* g, int pt) noexcept nogil:
    # reason code for the player to move placing a stone on padded point pt
    cdef int8_t* b = g.b
    cdef int8_t v, me, opp
    cdef int d, q, hd, k, j, count, dup
    cdef bint libs = False, captures = False
    cdef int dirs[4]
    cdef int caps[4]
    cdef int ncap = 0
    cdef uint64_t key
    if b[pt] != EMPTY:
        return OCCUPIED
    if pt == g.x.ko:
        return KO
    me = <int8_t> (g.h.to_play + 1)
    opp = 3 - me
    neighbours(pt, p.w, dirs)
    for d in range(4):
        q = dirs[d]
        v = b[q]
        if v == EMPTY:
            libs = True
        elif v == me:
            if not in_atari(&g.ch[g.head[q]]):
                libs = True       # joins a chain that keeps another liberty
        elif v == opp:
            if in_atari(&g.ch[g.head[q]]):
                captures = True   # its one liberty is pt
    if not libs and not captures:
        return SUICIDE
    if p.simple:
        return REASON_OK
    # positional superko: the board after the move repeats an earlier one only if an earlier board
    # had as many stones (cheap test first), and then only if the hashes match
    count = g.x.nblack + g.x.nwhite + 1
    if captures:
        for d in range(4):
            q = dirs[d]
            if b[q] == opp:
                hd = g.head[q]
                if in_atari(&g.ch[hd]):
                    dup = 0
                    for j in range(ncap):
                        if caps[j] == hd:
                            dup = 1
                    if not dup:
                        caps[ncap] = hd
                        ncap += 1
                        count -= g.ch[hd].size
    if g.seen[count] == 0:
        return REASON_OK
    key = g.x.bhash ^ stone_key(pt, me)
    for j in range(ncap):
        key ^= g.zx[caps[j]]
    if seen_before(p, g, key):
        return SUPERKO
    return REASON_OK


cdef int check(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Go g
    if a == p.cells:
        return REASON_OK          # passing is always legal while the game runs
    view(p, s, &g)
    return check_pt(p, &g, pad_of(p, a))


cdef inline int merge(Go* g, int a, int bh) noexcept nogil:
    # merge chains a and bh (different heads); the smaller list is relabelled; returns the head
    cdef int t, cur
    cdef Chain* big
    cdef Chain* small
    if g.ch[a].size < g.ch[bh].size:
        t = a
        a = bh
        bh = t
    cur = bh
    while True:
        g.head[cur] = <int16_t> a
        cur = g.nxt[cur]
        if cur == bh:
            break
    t = g.nxt[a]
    g.nxt[a] = g.nxt[bh]
    g.nxt[bh] = <int16_t> t
    big = &g.ch[a]
    small = &g.ch[bh]
    big.size += small.size
    big.libs += small.libs
    big.lsum += small.lsum
    big.lsq += small.lsq
    g.zx[a] ^= g.zx[bh]
    return a


cdef inline void remove_chain(const Params* p, Go* g, int hd) noexcept nogil:
    # capture the chain with head hd: clear its stones, give liberties back to adjacent chains
    cdef int cur = hd, t, d
    cdef int8_t v
    cdef int dirs[4]
    g.x.bhash ^= g.zx[hd]
    while True:
        g.b[cur] = EMPTY
        neighbours(cur, p.w, dirs)
        for d in range(4):
            t = dirs[d]
            v = g.b[t]
            if (v == BLACK or v == WHITE) and g.head[t] != hd:
                add_lib(&g.ch[g.head[t]], cur)
        cur = g.nxt[cur]
        if cur == hd:
            break


cdef void count_area(const Params* p, char* s, int* black, int* white, int8_t* owner=NULL) noexcept nogil:
    # Tromp-Taylor area: stones, plus empty regions that reach stones of one colour only; with
    # `owner` (n * n, row-major), also each point's owner: 1 black, -1 white, 0 neither
    cdef int8_t* b = <int8_t*> (s + p.off_board)
    cdef int16_t stack[MAXP]
    cdef int16_t region[MAXP]
    cdef uint8_t mark[MAXP]
    cdef int r, c, pt, q, t, d, sp, size, reach, i
    cdef int8_t v
    cdef int dirs[4]
    black[0] = 0
    white[0] = 0
    memset(mark, 0, p.npad)
    for r in range(p.n):
        for c in range(p.n):
            pt = (r + 1) * p.w + c
            v = b[pt]
            if v == BLACK:
                black[0] += 1
                if owner != NULL:
                    owner[r * p.n + c] = 1
            elif v == WHITE:
                white[0] += 1
                if owner != NULL:
                    owner[r * p.n + c] = -1
            elif not mark[pt]:
                mark[pt] = 1
                stack[0] = <int16_t> pt
                sp = 1
                size = 0
                reach = 0
                while sp > 0:
                    sp -= 1
                    q = stack[sp]
                    region[size] = <int16_t> q
                    size += 1
                    neighbours(q, p.w, dirs)
                    for d in range(4):
                        t = dirs[d]
                        v = b[t]
                        if v == EMPTY:
                            if not mark[t]:
                                mark[t] = 1
                                stack[sp] = <int16_t> t
                                sp += 1
                        elif v == BLACK:
                            reach |= 1
                        elif v == WHITE:
                            reach |= 2
                if reach == 1:
                    black[0] += size
                elif reach == 2:
                    white[0] += size
                if owner != NULL:
                    for i in range(size):
                        q = region[i]
                        owner[(q // p.w - 1) * p.n + q % p.w] = 1 if reach == 1 else (-1 if reach == 2 else 0)


cdef inline double score_of(const Params* p, char* s) noexcept nogil:
    cdef int black, white
    count_area(p, s, &black, &white)
    return black - white - p.komi


cdef void apply(const void* pp, char* s, int a) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Go g
    cdef int me, pt, d, q, hd, qh, captured = 0, last_cap = -1
    cdef int8_t color, opp, v
    cdef bint in_eye = True
    cdef uint64_t k
    cdef Chain* c
    cdef int dirs[4]
    cdef double score
    view(p, s, &g)
    me = g.h.to_play
    played(g.h, a)
    if a == p.cells:
        g.x.passes += 1
        g.x.ko = -1                       # board unchanged: already in the superko set
    else:
        g.x.passes = 0
        color = <int8_t> (me + 1)
        opp = 3 - color
        pt = pad_of(p, a)
        k = stone_key(pt, color)
        g.b[pt] = color
        g.x.bhash ^= k
        g.head[pt] = <int16_t> pt
        g.nxt[pt] = <int16_t> pt
        c = &g.ch[pt]
        c.size = 1
        c.libs = 0
        c.lsum = 0
        c.lsq = 0
        g.zx[pt] = k
        hd = pt
        neighbours(pt, p.w, dirs)
        for d in range(4):
            q = dirs[d]
            v = g.b[q]
            if v == EMPTY:
                add_lib(&g.ch[hd], q)
                in_eye = False
            elif v == color:
                in_eye = False
                qh = g.head[q]
                del_lib(&g.ch[qh], pt)
                if qh != hd:
                    hd = merge(&g, hd, qh)
            elif v == opp:
                del_lib(&g.ch[g.head[q]], pt)
        for d in range(4):
            q = dirs[d]
            if g.b[q] == opp:
                qh = g.head[q]
                if g.ch[qh].libs == 0:
                    captured += g.ch[qh].size
                    last_cap = q
                    remove_chain(p, &g, qh)
        if me == 0:
            g.x.nblack += 1
            g.x.nwhite -= captured
        else:
            g.x.nwhite += 1
            g.x.nblack -= captured
        # simple ko: a lone stone played into an enemy eye that captured exactly one stone
        g.x.ko = last_cap if (in_eye and captured == 1) else -1
        if not p.simple:
            if set_add(p, g.tab, g.x.bhash):
                bloom_add(g.x, g.x.bhash)
                g.seen[g.x.nblack + g.x.nwhite] += 1
    g.h.hash = g.x.bhash ^ (k_white() if g.h.to_play == 1 else 0)
    if g.x.passes >= 2:
        score = score_of(p, s)
        finish(g.h, 0 if score > 0 else (1 if score < 0 else -1))
    elif g.h.moves >= p.max_moves:
        g.h.status = TRUNCATED
        g.h.winner = -1


# ---- validation of an untrusted blob ------------------------------------------------------------
cdef int check_chains(const Params* p, Go* g) noexcept nogil:
    # every stone's chain list: heads and links in range, one colour, each stone in exactly one
    # list, chains maximal and with a liberty, counters and chain hashes as recomputed
    cdef uint8_t listed[MAXP]
    cdef int r, c, pt, cur, q, d, hd
    cdef int64_t size, libs, lsum, lsq
    cdef uint64_t zx
    cdef int8_t v
    cdef int dirs[4]
    memset(listed, 0, p.npad)
    for r in range(p.n):
        for c in range(p.n):
            pt = (r + 1) * p.w + c
            v = g.b[pt]
            if v == EMPTY:
                continue
            hd = g.head[pt]
            if hd < 0 or hd >= p.npad or g.b[hd] != v or g.head[hd] != hd:
                return BAD_CHAINS
            if hd != pt:
                continue
            cur = pt
            size = libs = lsum = lsq = 0
            zx = 0
            while True:
                if cur < 0 or cur >= p.npad or g.b[cur] != v or g.head[cur] != pt or listed[cur]:
                    return BAD_CHAINS
                listed[cur] = 1
                size += 1
                zx ^= stone_key(cur, v)
                neighbours(cur, p.w, dirs)
                for d in range(4):
                    q = dirs[d]
                    if g.b[q] == EMPTY:
                        libs += 1
                        lsum += q
                        lsq += q * q
                cur = g.nxt[cur]
                if cur == pt:
                    break
            if libs == 0:
                return NO_LIBERTY
            if (g.ch[pt].size != size or g.ch[pt].libs != libs or g.ch[pt].lsum != lsum
                    or g.ch[pt].lsq != lsq or g.zx[pt] != zx):
                return BAD_CHAINS
    for r in range(p.n):
        for c in range(p.n):
            pt = (r + 1) * p.w + c
            v = g.b[pt]
            if v != EMPTY and (not listed[pt] or (g.b[pt + 1] == v and g.head[pt + 1] != g.head[pt])
                               or (g.b[pt + p.w] == v and g.head[pt + p.w] != g.head[pt])):
                return BAD_CHAINS
    return BLOB_OK


cdef int check_history(const Params* p, Go* g) noexcept nogil:
    # the superko set: one entry per distinct position so far (at most moves + 1), each reachable
    # by linear probing from its home slot, the start and the current board among them, tallied
    # per stone count in seen[], and the Bloom filter exactly the OR of the entries' bits
    cdef Extra bloom
    cdef int i, k
    cdef int64_t entries = 0, tallied = 0
    cdef uint64_t key
    memset(&bloom, 0, sizeof(Extra))
    if p.simple:
        return BLOB_OK if memcmp(bloom.bloom, g.x.bloom, sizeof(bloom.bloom)) == 0 else BAD_HISTORY
    for k in range(p.cells + 1):
        if g.seen[k] < 0:
            return BAD_HISTORY
        tallied += g.seen[k]
    for i in range(p.cap):
        key = g.tab[i]
        if key == 0:
            continue
        entries += 1
        if probe(p, g.tab, key) != i:        # reached from its home slot past no free slot, no copy of it
            return BAD_HISTORY
        bloom_add(&bloom, key)
    if entries != tallied or entries > g.h.moves + 1 or memcmp(bloom.bloom, g.x.bloom, sizeof(bloom.bloom)) != 0:
        return BAD_HISTORY
    # entries < cap now, so the probes below end at a free slot
    if g.seen[0] < 1 or g.seen[g.x.nblack + g.x.nwhite] < 1 or not set_has(p, g.tab, k_board()) \
            or not set_has(p, g.tab, g.x.bhash):
        return BAD_HISTORY
    return BLOB_OK


cdef int check_ko(const Params* p, Go* g) noexcept nogil:
    # a ko point is the one stone just captured by a lone stone played into an eye: its only liberty
    cdef int ko = g.x.ko, la = g.h.last_action, pt, d, q, libs = 0
    cdef int dirs[4]
    cdef int8_t opp = <int8_t> (g.h.to_play + 1)       # the player to move is the capturer's opponent
    if ko == -1:
        return BLOB_OK
    if ko < 0 or ko >= p.npad or g.b[ko] != EMPTY or la < 0 or la >= p.cells:
        return BAD_KO
    pt = pad_of(p, la)
    if g.ch[g.head[pt]].size != 1:
        return BAD_KO
    neighbours(pt, p.w, dirs)
    for d in range(4):
        q = dirs[d]
        if g.b[q] == EMPTY:
            if q != ko:
                return BAD_KO
            libs += 1
        elif g.b[q] != opp and g.b[q] != EDGE:
            return BAD_KO
    return BLOB_OK if libs == 1 else BAD_KO


cdef int validate(const void* pp, char* s) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Go g
    cdef int pt, r, c, nb = 0, nw = 0, la, code
    cdef int8_t v
    cdef uint64_t bh = k_board()
    cdef double score
    view(p, s, &g)
    code = check_header(g.h, p.cells + 1, p.max_moves)
    if code != BLOB_OK:
        return code
    if g.h.to_play != g.h.moves % 2:
        return BLOB_TO_PLAY
    for pt in range(p.npad):
        r = pt // p.w
        c = pt % p.w
        v = g.b[pt]
        if 1 <= r <= p.n and c < p.n:
            if v == BLACK or v == WHITE:
                bh ^= stone_key(pt, v)
                nb += v == BLACK
                nw += v == WHITE
            elif v != EMPTY:
                return BLOB_CELL
        elif v != EDGE:
            return BAD_BORDER
    if nb != g.x.nblack or nw != g.x.nwhite:
        return BAD_COUNTS
    if g.x.bhash != bh or g.h.hash != (bh ^ k_white() if g.h.to_play == 1 else bh):
        return BLOB_HASH
    code = check_chains(p, &g)
    if code != BLOB_OK:
        return code
    la = g.h.last_action
    if 0 <= la < p.cells and g.b[pad_of(p, la)] != 2 - g.h.to_play:
        return BLOB_LAST_ACTION               # the stone just played is the last mover's
    if g.x.passes < 0 or g.x.passes > 2 or g.x.passes > g.h.moves or (g.x.passes > 0) != (la == p.cells):
        return BAD_PASSES
    # two passes end the game by the score; else the move limit cuts it off
    if g.x.passes == 2:
        if g.h.status != TERMINAL:
            return BLOB_STATUS
        score = score_of(p, s)
        if g.h.winner != (0 if score > 0 else (1 if score < 0 else -1)):
            return BLOB_WINNER
    elif g.h.status != (TRUNCATED if g.h.moves == p.max_moves else RUNNING):
        return BLOB_STATUS
    code = check_ko(p, &g)
    if code != BLOB_OK:
        return code
    return check_history(p, &g)


# Observation patterns: the 7 plane bytes of one point, plus one spare byte so that a point is
# written with a single 8-byte store (the spare byte lands on the next point, which overwrites it).
cdef enum:
    PAT_EMPTY = 0
    PAT_BANNED = 1      # empty, but the player to move may not play there (ko / superko)
    PAT_OWN = 2
    PAT_OPP = 3         # PAT_OWN + 2 and PAT_OPP + 2: the same in atari
    PAT_N = 6


cdef inline void make_patterns(uint64_t* pat, int8_t black_side) noexcept nogil:
    cdef int8_t* q
    cdef int k
    memset(pat, 0, PAT_N * sizeof(uint64_t))
    for k in range(PAT_N):
        q = <int8_t*> &pat[k]
        q[5] = black_side
        q[6] = 1
    (<int8_t*> &pat[PAT_BANNED])[4] = 1
    (<int8_t*> &pat[PAT_OWN])[0] = 1
    (<int8_t*> &pat[PAT_OPP])[1] = 1
    (<int8_t*> &pat[PAT_OWN + 2])[0] = 1
    (<int8_t*> &pat[PAT_OWN + 2])[2] = 1
    (<int8_t*> &pat[PAT_OPP + 2])[1] = 1
    (<int8_t*> &pat[PAT_OPP + 2])[3] = 1


cdef inline void put(int8_t* out, int i, int last, const uint64_t* pat, int k) noexcept nogil:
    if i < last:
        memcpy(out + i * PLANES_N, &pat[k], 8)
    else:
        memcpy(out + i * PLANES_N, &pat[k], PLANES_N)


cdef inline int stone_pattern(Go* g, int pt, int8_t v, int8_t mine) noexcept nogil:
    return (PAT_OWN if v == mine else PAT_OPP) + 2 * in_atari(&g.ch[g.head[pt]])


cdef int scan(const Params* p, Go* g, int8_t* mask, int8_t* out) noexcept nogil:
    # The legal mask of the player to move and, if out != NULL, its observation: one pass.
    # First every padded point gets a class byte, colour | atari << 2 (each chain's atari test
    # once per stone, not once per neighbour); an empty point then ORs the flags of its four
    # neighbours' classes (LIB: gives a liberty, CAP: captures).  Only moves that capture, or
    # that could repeat an earlier stone count, need the full superko test.
    cdef uint8_t cls[MAXP]
    cdef uint8_t flags[8]
    cdef uint64_t pat[PAT_N]
    cdef int r, c, pt, code, n = 0, i = 0, last = p.cells - 1, w = p.w
    cdef int8_t v, me = <int8_t> (g.h.to_play + 1), opp = 3 - me
    cdef uint8_t f
    cdef int8_t* b = g.b
    cdef bint maybe_repeat
    memset(flags, 0, 8)
    flags[EMPTY] = LIB
    flags[me] = LIB                # own chain with two or more liberties
    flags[opp | 4] = CAP           # opponent chain in atari
    for pt in range(p.npad):
        v = b[pt]
        cls[pt] = <uint8_t> v
        if v == BLACK or v == WHITE:
            cls[pt] |= in_atari(&g.ch[g.head[pt]]) << 2
    maybe_repeat = not p.simple and g.seen[g.x.nblack + g.x.nwhite + 1] != 0
    if out != NULL:
        make_patterns(pat, g.h.to_play == 0)
    for r in range(p.n):
        pt = (r + 1) * w
        for c in range(p.n):
            v = b[pt]
            if v != EMPTY:
                mask[i] = 0
                if out != NULL:
                    put(out, i, last, pat, (PAT_OWN if v == me else PAT_OPP) + 2 * (cls[pt] >> 2))
            else:
                f = flags[cls[pt + w]] | flags[cls[pt - w]] | flags[cls[pt + 1]] | flags[cls[pt - 1]]
                if pt == g.x.ko:
                    code = KO
                elif f == 0:
                    code = SUICIDE
                elif f & CAP:
                    code = check_pt(p, g, pt)
                elif maybe_repeat and seen_before(p, g, g.x.bhash ^ stone_key(pt, me)):
                    code = SUPERKO    # no capture: the new board is this one plus the stone
                else:
                    code = REASON_OK
                mask[i] = code == REASON_OK
                n += code == REASON_OK
                if out != NULL:
                    put(out, i, last, pat, PAT_BANNED if code == KO or code == SUPERKO else PAT_EMPTY)
            i += 1
            pt += 1
    mask[p.cells] = 1
    return n + 1


cdef int legal(const void* pp, char* s, int8_t* mask) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Go g
    if mask_over(header(s), mask, p.cells + 1):
        return 0
    view(p, s, &g)
    return scan(p, &g, mask, NULL)


cdef void observe(const void* pp, char* s, int player, int8_t* out) noexcept nogil:
    cdef const Params* p = <const Params*> pp
    cdef Go g
    cdef int r, c, pt, code, i = 0, last = p.cells - 1
    cdef int8_t v, mine = <int8_t> (player + 1)
    cdef uint64_t pat[PAT_N]
    cdef bint mover
    view(p, s, &g)
    make_patterns(pat, player == 0)
    mover = player == g.h.to_play and g.h.status == RUNNING
    for r in range(p.n):
        pt = (r + 1) * p.w
        for c in range(p.n):
            v = g.b[pt]
            if v != EMPTY:
                put(out, i, last, pat, stone_pattern(&g, pt, v, mine))
            elif mover:
                code = check_pt(p, &g, pt)
                put(out, i, last, pat, PAT_BANNED if code == KO or code == SUPERKO else PAT_EMPTY)
            else:
                put(out, i, last, pat, PAT_EMPTY)
            i += 1
            pt += 1


cdef int observe_mover(const void* pp, char* s, int8_t* out, int8_t* mask) noexcept nogil:
    # observe(s, to_play) and legal(s) in one pass (see scan)
    cdef const Params* p = <const Params*> pp
    cdef Go g
    view(p, s, &g)
    if g.h.status != RUNNING:
        observe(pp, s, g.h.to_play, out)
        memset(mask, 0, p.cells + 1)
        return 0
    return scan(p, &g, mask, out)


PLANES = (
    ("own", "stones of the player the observation is for"),
    ("opponent", "stones of the other player"),
    ("own_atari", "own stones whose chain has exactly one liberty"),
    ("opponent_atari", "opponent stones whose chain has exactly one liberty"),
    ("ko_banned", "empty points the player to move may not play because of ko or superko "
                  "(only for the player to move; zeros otherwise)"),
    ("black", "1 everywhere if the observation is for black (komi side), else 0"),
    ("ones", "1 on every point (marks the board inside zero padding)"),
)
# the texts of the game's own check reasons (spec.pyx's shared REASONS come before them)
REASONS = ("that point is occupied",
           "suicide is not allowed: the stone's chain would have no liberties",
           "ko: immediately recapturing a single-stone ko is not allowed (play elsewhere first)",
           "that move repeats an earlier position (positional superko)")
BLOB_ERRORS = ("board: the border around the board must hold the edge marker (3)",
               "stone counts: do not match the stones on the board",
               "chains: the chain lists, heads or liberty counters do not match the stones on the board",
               "chains: a chain without a liberty is on the board (captured stones are removed)",
               "passes: must be 0, 1 or 2, and count the passes that end the moves so far",
               "ko: the banned point must be -1 or the one stone that the last move captured",
               "superko history: the set of earlier positions is inconsistent (it must hold the start and "
               "the current position, each position once, no more than moves + 1 of them, as many as "
               "the per-stone-count tallies say, and a matching Bloom filter)")


def _komi_arg(komi):
    if isinstance(komi, bool) or not isinstance(komi, numbers.Real) or not math.isfinite(komi):
        raise ValueError(f"go: komi must be a finite number such as 7.5, got {komi!r}")
    return float(komi)


cdef dict _layout(const Params* p):
    cdef Extra x
    cdef Py_ssize_t base = <Py_ssize_t> &x
    at = lambda addr: p.off_x + addr - base
    return {"bloom": (at(<Py_ssize_t> &x.bloom), "u8", 8), "bhash": (at(<Py_ssize_t> &x.bhash), "u8", 1),
            "ko": (at(<Py_ssize_t> &x.ko), "i4", 1), "passes": (at(<Py_ssize_t> &x.passes), "i4", 1),
            "nblack": (at(<Py_ssize_t> &x.nblack), "i4", 1), "nwhite": (at(<Py_ssize_t> &x.nwhite), "i4", 1),
            "board": (p.off_board, "i1", p.npad), "head": (p.off_head, "i2", p.npad),
            "next": (p.off_next, "i2", p.npad),
            "chains": (p.off_chain, [("lsq", "i4"), ("lsum", "i4"), ("libs", "i2"), ("size", "i2")], p.npad),
            "chain_hash": (p.off_zx, "u8", p.npad),
            "seen": (p.off_seen, "i4", p.cells + 1 if p.cap else 0), "superko_set": (p.off_set, "u8", p.cap)}


def make_spec(board_size=19, komi=7.5, superko="positional", max_moves=None):
    """GameSpec for Go on a board_size x board_size board."""
    n = int_arg("go", "board_size", board_size, MIN_SIZE, MAX_SIZE)
    k = _komi_arg(komi)
    sk = choice_arg("go", "superko", superko, ("positional", "simple"))
    if max_moves is None:
        mm = 2 * n * n
    else:
        mm = int_arg("go", "max_moves", max_moves, 1, MAX_MOVES_LIMIT,
                     f" (or None for 2 * board_size**2 = {2 * n * n})")
    cdef GameSpec spec = GameSpec()
    cdef Params* p = <Params*> spec.alloc_params(sizeof(Params))
    cdef int cap = 0
    p.n, p.w, p.cells, p.npad = n, n + 1, n * n, (n + 2) * (n + 1)
    p.max_moves = mm
    p.simple = sk == "simple"
    if not p.simple:
        cap = 1
        while cap < 2 * (mm + 2):
            cap *= 2
    p.cap = cap
    p.komi = k
    p.off_x = align8(sizeof(Header))
    p.off_board = align8(p.off_x + sizeof(Extra))
    p.off_head = align8(p.off_board + p.npad)
    p.off_next = align8(p.off_head + p.npad * sizeof(int16_t))
    p.off_chain = align8(p.off_next + p.npad * sizeof(int16_t))
    p.off_zx = align8(p.off_chain + p.npad * sizeof(Chain))
    p.off_seen = align8(p.off_zx + p.npad * sizeof(uint64_t))
    p.off_set = align8(p.off_seen + ((p.cells + 1) * sizeof(int32_t) if cap else 0))
    p.nbytes = align8(p.off_set + cap * sizeof(uint64_t))
    set_shape(&spec.d, n * n + 1, n, n, PLANES_N, p.nbytes)
    set_rules(&spec.d, reset, check, apply, legal, observe, validate)
    spec.d.observe_mover = observe_mover
    cells = n * n
    spec.describe("go", {"board_size": n, "komi": k, "superko": sk, "max_moves": mm}, ("black_0", "white_0"),
                  REASONS, PLANES, DIHEDRAL, lambda a: "pass" if a == cells else point_name(a // n, a % n),
                  blob_errors=BLOB_ERRORS, layout=_layout(p), pass_action=cells)
    return spec


cdef class GoState(State):
    """Go position: GoState(board_size=19, komi=7.5, superko="positional", max_moves=None).

    Actions r * N + c (row 0 = rank 1), N * N = pass.  Extras: score(), area(), ownership(), board(),
    liberties(r, c), passes, recompute_hash().
    """

    def __init__(self, board_size=19, komi=7.5, superko="positional", max_moves=None):
        self._adopt(make_spec(board_size, komi, superko, max_moves))
        self.reset()

    cdef const Params* _p(self):
        return <const Params*> self.g.params

    def _point(self, r, c):
        cdef const Params* p = self._p()
        for x in (r, c):                   # a float would land between points, off every chain
            if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
                raise TypeError(f"a point's row and column are ints, got {r!r}, {c!r}")
        if not (0 <= r < p.n and 0 <= c < p.n):
            raise ValueError(f"point ({r}, {c}) is off the {p.n}x{p.n} board")
        return (r + 1) * p.w + c

    @property
    def passes(self):
        """Consecutive passes just played (2 ends the game)."""
        return (<Extra*> (self.s + self._p().off_x)).passes

    def board(self):
        """int8 (N, N): 0 empty, 1 black, 2 white; row 0 is rank 1."""
        cdef const Params* p = self._p()
        cdef int8_t* b = <int8_t*> (self.s + p.off_board)
        out = np.empty((p.n, p.n), np.int8)
        cdef int8_t[:, ::1] o = out
        cdef int r, c
        for r in range(p.n):
            for c in range(p.n):
                o[r, c] = b[(r + 1) * p.w + c]
        return out

    def area(self):
        """(black, white) Tromp-Taylor area of the current board (komi not included)."""
        cdef int black, white
        count_area(self._p(), self.s, &black, &white)
        return (black, white)

    def score(self):
        """black area - white area - komi on the current board (> 0: black ahead)."""
        return score_of(self._p(), self.s)

    def ownership(self):
        """int8 (N, N), the Tromp-Taylor owner of every point of the current board: 1 black (a
        black stone, or empty and reaching black stones only), -1 white, 0 neither; row 0 is rank 1."""
        cdef const Params* p = self._p()
        out = np.zeros((p.n, p.n), np.int8)
        cdef int8_t[:, ::1] o = out
        cdef int black, white
        count_area(p, self.s, &black, &white, &o[0, 0])
        return out

    def liberties(self, r, c):
        """Exact number of liberties of the chain on (r, c); 0 for an empty point."""
        cdef const Params* p = self._p()
        cdef int pt = self._point(r, c)
        cdef Go g
        view(p, self.s, &g)
        if g.b[pt] == EMPTY:
            return 0
        libs = set()
        cdef int cur = pt, q
        while True:
            for q in (cur + p.w, cur - p.w, cur + 1, cur - 1):
                if g.b[q] == EMPTY:
                    libs.add(q)
            cur = g.nxt[cur]
            if cur == pt:
                break
        return len(libs)

    def ko_point(self):
        """(r, c) of the point banned by simple ko for the player to move, or None."""
        cdef const Params* p = self._p()
        cdef int ko = (<Extra*> (self.s + p.off_x)).ko
        if ko < 0:
            return None
        return divmod(ko, p.w)[0] - 1, ko % p.w

    def board_hash(self):
        """Zobrist hash of the stones only (what positional superko compares)."""
        return (<Extra*> (self.s + self._p().off_x)).bhash

    def recompute_hash(self):
        """The Header hash computed from scratch from the board and the player to move."""
        cdef const Params* p = self._p()
        cdef int8_t* b = <int8_t*> (self.s + p.off_board)
        cdef uint64_t hsh = k_board()
        cdef int r, c, pt
        for r in range(p.n):
            for c in range(p.n):
                pt = (r + 1) * p.w + c
                if b[pt] == BLACK or b[pt] == WHITE:
                    hsh ^= stone_key(pt, b[pt])
        if header(self.s).to_play == 1:
            hsh ^= k_white()
        return hsh

    def check_chains(self):
        """Verify the incremental chain data against a recomputation from the board (for tests), as
        validate does: chain lists and heads, sizes, pseudo-liberty counters and chain hashes, chains
        maximal and with a liberty, and the stone counts; raises AssertionError naming the first
        inconsistency."""
        cdef const Params* p = self._p()
        cdef Go g
        view(p, self.s, &g)
        code = check_chains(p, &g)
        assert code == BLOB_OK, self.spec.blob_error(code)
        assert g.x.nblack == int(np.count_nonzero(self.board() == 1)), "black stone count"
        assert g.x.nwhite == int(np.count_nonzero(self.board() == 2)), "white stone count"
        return True
