# k-in-a-row detection shared by Tic-tac-toe/Gomoku and Connect Four.
from libc.stdint cimport int8_t


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
