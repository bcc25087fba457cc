# k-in-a-row detection shared by Tic-tac-toe/Gomoku and Connect Four.
from libc.stdint cimport int8_t

from zerogym._core.game cimport (Header, finish, BLOB_OK, BLOB_STATUS, BLOB_WINNER, BLOB_LAST_ACTION,
                                 RUNNING, TERMINAL, TRUNCATED)


cdef inline int run_length(const int8_t* b, int rows, int cols, int r, int c, int dr, int dc) noexcept nogil:
    # pieces equal to b[r, c] from (r, c) exclusive, stepping (dr, dc)
    cdef int n = 0
    cdef int8_t v = b[r * cols + c]
    r += dr
    c += dc
    while 0 <= r < rows and 0 <= c < cols and b[r * cols + c] == v:
        n += 1
        r += dr
        c += dc
    return n


cdef inline bint makes_line(const int8_t* b, int rows, int cols, int r, int c, int k) noexcept nogil:
    # True if the piece at (r, c) lies on k or more equal pieces in a row, in any of the 4 directions
    return (1 + run_length(b, rows, cols, r, c, 0, 1) + run_length(b, rows, cols, r, c, 0, -1) >= k or
            1 + run_length(b, rows, cols, r, c, 1, 0) + run_length(b, rows, cols, r, c, -1, 0) >= k or
            1 + run_length(b, rows, cols, r, c, 1, 1) + run_length(b, rows, cols, r, c, -1, -1) >= k or
            1 + run_length(b, rows, cols, r, c, 1, -1) + run_length(b, rows, cols, r, c, -1, 1) >= k)


cdef inline void end_on_line(Header* h, const int8_t* b, int rows, int cols, int r, int c, int k) noexcept nogil:
    # after a piece went to (r, c) and h counts the move: a line through it wins for its player,
    # else a full board draws (only lines through the new piece can be new)
    if makes_line(b, rows, cols, r, c, k):
        finish(h, 1 - h.to_play)
    elif h.moves == rows * cols:
        finish(h, -1)


cdef inline bint has_line(const int8_t* b, int rows, int cols, int k, int8_t v) noexcept nogil:
    # True if pieces of value v make k or more in a row anywhere on the board
    cdef int i
    for i in range(rows * cols):
        if b[i] == v and makes_line(b, rows, cols, i // cols, i % cols, k):
            return True
    return False


cdef inline int check_outcome(const Header* h, const int8_t* b, int rows, int cols, int k, int last,
                              int8_t* tmp) noexcept nogil:
    # validate's check of a k-in-a-row game's status and winner against the board (Connect Four,
    # Tic-tac-toe/Gomoku): the last mover's piece is on `last` (cell index; -1 at move 0), a line
    # ends the game at once, so only the last mover can have one, and only through that piece.
    # tmp: rows * cols bytes of scratch.  Returns a BLOB_* code.
    cdef int8_t v = <int8_t> (2 - h.to_play)           # the last mover's pieces
    cdef int i
    if h.moves > 0 and b[last] != v:
        return BLOB_LAST_ACTION
    if h.status == TRUNCATED or has_line(b, rows, cols, k, 3 - v):
        return BLOB_STATUS
    if h.moves > 0 and has_line(b, rows, cols, k, v):
        if h.status != TERMINAL:
            return BLOB_STATUS
        if h.winner != 1 - h.to_play:
            return BLOB_WINNER
        for i in range(rows * cols):
            tmp[i] = b[i]
        tmp[last] = 0
        return BLOB_STATUS if has_line(tmp, rows, cols, k, v) else BLOB_OK
    if h.moves == rows * cols:
        if h.status != TERMINAL:
            return BLOB_STATUS
        return BLOB_WINNER if h.winner != -1 else BLOB_OK
    return BLOB_STATUS if h.status != RUNNING else BLOB_OK
