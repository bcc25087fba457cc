# Small seeded random helpers shared by the compiled searches (splitmix64 stream per tree/search).
from libc.math cimport sqrt, log, cos, pow
from libc.stdint cimport uint64_t


cdef inline uint64_t next_u64(uint64_t* state) noexcept nogil:
    # splitmix64 (Steele, Lea, Flood 2014): one 64-bit output per call, period 2^64
    state[0] += <uint64_t> 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t> 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t> 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline int below(uint64_t* state, int n) noexcept nogil:
    # uniform integer in 0..n-1 (n >= 1), multiply-shift on the top 32 bits
    return <int> (((next_u64(state) >> 32) * <uint64_t> n) >> 32)


cdef inline double uniform01(uint64_t* state) noexcept nogil:
    # uniform in the open interval (0, 1)
    return (<double> (next_u64(state) >> 11) + 0.5) * (1.0 / 9007199254740992.0)


cdef inline double normal01(uint64_t* state) noexcept nogil:
    # standard normal by Box-Muller (one of the pair)
    cdef double u1 = uniform01(state), u2 = uniform01(state)
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2)


cdef inline double gamma_sample(uint64_t* state, double alpha) noexcept nogil:
    # Gamma(alpha, 1) by Marsaglia & Tsang (2000); alpha < 1 through Gamma(alpha + 1) * U^(1/alpha)
    cdef double boost = 1.0, d, c, x, v, u
    if alpha < 1.0:
        boost = pow(uniform01(state), 1.0 / alpha)
        alpha += 1.0
    d = alpha - 1.0 / 3.0
    c = 1.0 / sqrt(9.0 * d)
    while True:
        x = normal01(state)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = uniform01(state)
        if log(u) < 0.5 * x * x + d - d * v + d * log(v):
            return boost * d * v
