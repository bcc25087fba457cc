# Helpers for games whose board is an int8 array of cells, 0 empty, 1 a first-player piece, 2 a
# second-player piece, hashed with one Zobrist key per (cell, player): Tic-tac-toe/Gomoku,
# Connect Four, Hex, Havannah, Othello, Breakthrough.
from libc.stdint cimport int8_t, uint64_t
from libc.string cimport memcpy

from zerogym._core.game cimport (Header, splitmix64, check_header, BLOB_OK, BLOB_TO_PLAY, BLOB_MOVES, BLOB_CELL)


cdef inline uint64_t cell_key(int cell, int player, uint64_t salt) noexcept nogil:
    # Zobrist key of a piece of `player` (0 or 1) on `cell`; each game has its own salt
    return splitmix64(<uint64_t> (cell * 2 + player) + salt)


cdef inline uint64_t board_hash(const int8_t* b, int cells, uint64_t salt) noexcept nogil:
    # XOR of the keys of the pieces on the board, computed from scratch
    cdef uint64_t hv = 0
    cdef int i
    for i in range(cells):
        if b[i]:
            hv ^= cell_key(i, b[i] - 1, salt)
    return hv


cdef inline int scan_board(const int8_t* b, int cells, uint64_t salt, uint64_t* hash,
                           int* count) noexcept nogil:
    # validate's pass over an untrusted board: BLOB_CELL at the first cell that is not 0, 1 or 2,
    # else BLOB_OK with *hash = board_hash and count[0], count[1] the pieces of each player
    cdef uint64_t hv = 0
    cdef int i
    count[0] = count[1] = 0
    for i in range(cells):
        if b[i] < 0 or b[i] > 2:
            return BLOB_CELL
        if b[i]:
            hv ^= cell_key(i, b[i] - 1, salt)
            count[b[i] - 1] += 1
    hash[0] = hv
    return BLOB_OK


cdef inline int check_cells(const Header* h, int num_actions, int max_moves, const int8_t* b, int cells,
                            uint64_t salt, uint64_t* hash, int* count) noexcept nogil:
    # validate's first checks: the Header's fields in range (check_header), then the board's cells
    # (scan_board, which sets *hash and count)
    cdef int code = check_header(h, num_actions, max_moves)
    return scan_board(b, cells, salt, hash, count) if code == BLOB_OK else code


cdef inline int check_turns(const Header* h, const int* count) noexcept nogil:
    # for games where every move adds one piece of the mover's and the first player starts: the
    # move counter, the pieces of each player and the player to move agree
    if h.moves != count[0] + count[1] or count[0] != count[1] + h.moves % 2:
        return BLOB_MOVES
    if h.to_play != h.moves % 2:
        return BLOB_TO_PLAY
    return BLOB_OK


cdef inline int empty_mask(const int8_t* b, int cells, int8_t* mask) noexcept nogil:
    # mask[i] = 1 on the empty cells; returns how many there are
    cdef int i, n = 0
    for i in range(cells):
        mask[i] = b[i] == 0
        n += mask[i]
    return n


cdef inline void observe_pieces(const int8_t* b, int cells, int player, int8_t* out) noexcept nogil:
    # the three planes (own pieces, the other player's, ones) seen from `player`, row-major: each
    # cell's three bytes copied from a table indexed by its value, four at a time (the fourth byte is
    # the next cell's first, written again with that cell)
    cdef int8_t planes[3][4]
    cdef int i, v
    for v in range(3):
        planes[v][0] = v == player + 1
        planes[v][1] = v == 2 - player
        planes[v][2] = 1
        planes[v][3] = 0
    for i in range(cells - 1):
        memcpy(out + 3 * i, planes[b[i]], 4)
    if cells > 0:
        memcpy(out + 3 * (cells - 1), planes[b[cells - 1]], 3)
