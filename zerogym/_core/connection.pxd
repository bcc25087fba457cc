# Helpers of the connection games Hex and Havannah: one stone placed a move, an optional swap (pie
# rule) as the second move, and a union-find forest of the groups of stones kept in the blob as
# int16 links (a node is a root when it links to itself).  apply() links and compresses (find_mut);
# everything else only reads (find_ro), or works on a scratch copy.
from libc.stdint cimport int8_t, int16_t, uint64_t

from zerogym._core.game cimport (Header, splitmix64, BLOB_OK, BLOB_TO_PLAY, BLOB_MOVES, BLOB_LAST_ACTION,
                                 BLOB_HASH)
from zerogym._core.common cimport board_hash


cdef inline uint64_t side_key(int max_cells, uint64_t salt) noexcept nogil:
    # the Zobrist key XORed in when the second player is to move: an index past every (cell, colour)
    # key of the game's largest board
    return splitmix64(<uint64_t> (2 * max_cells + 7) + salt)


cdef inline uint64_t stones_hash(const int8_t* b, int cells, int to_play, uint64_t salt,
                                 uint64_t side) noexcept nogil:
    # the hash of a position computed from scratch: its stones, and `side` when player 1 is to move
    cdef uint64_t hv = board_hash(b, cells, salt)
    return hv ^ side if to_play == 1 else hv


cdef inline int find_mut(int16_t* par, int x) noexcept nogil:
    # root of x with path halving (apply, and scratch forests)
    while par[x] != x:
        par[x] = par[par[x]]
        x = par[x]
    return x


cdef inline int find_ro(const int16_t* par, int x) noexcept nogil:
    while par[x] != x:
        x = par[x]
    return x


cdef inline void singletons(int16_t* par, int nodes) noexcept nogil:
    # every node its own root
    cdef int i
    for i in range(nodes):
        par[i] = <int16_t> i


cdef inline int check_placements(const Header* h, const int8_t* b, const int* count, uint64_t hv,
                                 uint64_t side, int swap, int swap_action) noexcept nogil:
    # validate's checks of a game where each move places one stone of the mover's and a swap (the
    # second move only, when `swap`) turns the first player's only stone into the second player's:
    # the player to move, the hash (hv: the stones' hash), the stones of each player (count) against
    # the move counter, and the last move
    cdef int m = h.moves, la = h.last_action
    if h.to_play != m % 2:
        return BLOB_TO_PLAY
    if h.hash != (hv ^ side if h.to_play == 1 else hv):
        return BLOB_HASH
    # without a swap player 0 has placed (m+1)//2 stones; a swap (move 2) made its first one player 1's
    if count[1] != m // 2 or not (count[0] == (m + 1) // 2 or (swap and m >= 2 and count[0] == (m - 1) // 2)):
        return BLOB_MOVES
    if la == swap_action:
        if not (swap and m == 2 and count[0] == 0):
            return BLOB_LAST_ACTION
    elif la >= 0 and b[la] != 2 - h.to_play:
        return BLOB_LAST_ACTION
    return BLOB_OK


cdef inline bint same_forest(const int16_t* par, int nodes, const int8_t* b, int cells, int16_t* ref,
                             int16_t* root, int16_t* owner, int16_t* group) noexcept nogil:
    # validate's check of an untrusted forest `par` of `nodes` nodes (cells 0..cells-1 first) against
    # ref, a union-find of the same nodes built from the board alone: every link in range, no cycle, an
    # empty cell (b[i] == 0) linked to nothing, and the same partition into trees.  On success
    # root[i] is par's root of node i and group[r] ref's root of the tree of par's root r.  Scratch
    # arrays of `nodes`: ref (compressed here), root, owner, group.
    cdef int i, x, steps, g
    for i in range(nodes):
        if par[i] < 0 or par[i] >= nodes or (i < cells and b[i] == 0 and par[i] != i):
            return False
    for i in range(nodes):
        x = i
        steps = 0
        while par[x] != x:
            x = par[x]
            steps += 1
            if steps > nodes:
                return False
        root[i] = <int16_t> x
        owner[i] = -1
        group[i] = -1
    for i in range(nodes):
        g = find_mut(ref, i)
        if owner[g] == -1 and group[root[i]] == -1:
            owner[g] = root[i]
            group[root[i]] = <int16_t> g
        elif owner[g] != root[i] or group[root[i]] != g:
            return False
    return True


cdef inline object forest_roots(const int16_t* par, int nodes):
    """A numpy int64 (nodes,) array of the root of every node, read without compressing paths."""
    import numpy
    out = numpy.empty(nodes, dtype=numpy.int64)
    cdef long long[::1] o = out
    cdef int i
    for i in range(nodes):
        o[i] = find_ro(par, i)
    return out
