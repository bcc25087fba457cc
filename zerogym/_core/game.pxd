# The compiled interface every game implements.
#
# A game state is one flat, position-independent block of bytes (a "blob"): a Header followed
# by the game's own arrays at offsets fixed when the game is built.  Copying a state is one
# memcpy, a batch of N games is N blobs end to end, and generic compiled code (the State
# class, the batched stepper, tree search) drives every game through the GameDef table.
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint64_t
from libc.string cimport memset

cdef enum:
    # reasons returned by GameDef.check; games number their own reasons from REASON_GAME
    REASON_OK = 0
    REASON_RANGE = 1
    REASON_OVER = 2
    REASON_GAME = 3

cdef enum:
    # codes returned by GameDef.validate (texts in spec.pyx BLOB_ERRORS, then the game's own);
    # games number their own codes from BLOB_GAME
    BLOB_OK = 0
    BLOB_TO_PLAY = 1
    BLOB_STATUS = 2
    BLOB_WINNER = 3
    BLOB_MOVES = 4
    BLOB_LAST_ACTION = 5
    BLOB_HASH = 6
    BLOB_CELL = 7
    BLOB_GAME = 8

cdef enum:
    # Header.status
    RUNNING = 0
    TERMINAL = 1
    TRUNCATED = 2

ctypedef struct Header:
    uint64_t hash          # Zobrist hash of the position (games define what it covers)
    int32_t to_play        # 0 = first player, 1 = second
    int32_t status         # RUNNING, TERMINAL or TRUNCATED
    int32_t winner         # 0 or 1 when TERMINAL with a winner, -1 otherwise
    int32_t moves          # moves played so far
    int32_t last_action    # -1 before the first move
    int32_t _pad

ctypedef void (*reset_fn)(const void* p, char* s) noexcept nogil
ctypedef int (*check_fn)(const void* p, char* s, int a) noexcept nogil
ctypedef void (*apply_fn)(const void* p, char* s, int a) noexcept nogil
ctypedef int (*legal_fn)(const void* p, char* s, int8_t* mask) noexcept nogil
ctypedef void (*observe_fn)(const void* p, char* s, int player, int8_t* out) noexcept nogil
ctypedef int (*observe_mover_fn)(const void* p, char* s, int8_t* out, int8_t* mask) noexcept nogil
ctypedef int (*validate_fn)(const void* p, char* s) noexcept nogil

ctypedef struct GameDef:
    int num_actions
    int height
    int width
    int planes
    Py_ssize_t state_bytes
    const void* params       # the game's parameter struct (owned by its GameSpec)
    # reset: write the start position into s.  Blobs are allocated zeroed; reset and apply write
    # only the bytes the game uses, so padding stays zero and equal positions are equal bytes.
    reset_fn reset
    # check: REASON_OK if action a is legal in s (s not over, a in range), else the game's reason
    # code (>= REASON_GAME).  Must not change s; callers check range and game over first.
    check_fn check
    # apply: play a legal action a; updates the Header (to_play, status, winner, moves,
    # last_action, hash).  No allocation.
    apply_fn apply
    # legal: write num_actions bytes (1 legal, 0 not) and return how many are legal (0 when over).
    legal_fn legal
    # observe: write the H*W*C int8 observation (row-major H, W, C) seen from `player`.
    observe_fn observe
    # observe_mover (optional, may be NULL): observe(s, to_play, out) and legal(s, mask) in one
    # pass, for games where the two share work (Go); the vector path uses it when present.
    observe_mover_fn observe_mover
    # validate: BLOB_OK if s is a position the rules can reach (or, where a game lets tests set
    # positions, could hold), every derived field agreeing with the board; else the first failed
    # check's code.  The blob is untrusted: every value is range-checked before it is used as an
    # index or followed as a link, and s is only read.  Reset, apply and the rest may assume it.
    validate_fn validate


cdef inline Header* header(char* s) noexcept nogil:
    return <Header*> s


cdef inline Py_ssize_t align8(Py_ssize_t n) noexcept nogil:
    return (n + 7) & ~(<Py_ssize_t> 7)


cdef inline uint64_t splitmix64(uint64_t x) noexcept nogil:
    # fixed mixing function used to derive Zobrist keys: same keys in every process and run
    x = x + <uint64_t> 0x9E3779B97F4A7C15ULL
    x = (x ^ (x >> 30)) * <uint64_t> 0xBF58476D1CE4E5B9ULL
    x = (x ^ (x >> 27)) * <uint64_t> 0x94D049BB133111EBULL
    return x ^ (x >> 31)


cdef inline int check_header(const Header* h, int num_actions, int max_moves) noexcept nogil:
    # the checks every game's validate starts with: each Header field in its range
    if h.to_play != 0 and h.to_play != 1:
        return BLOB_TO_PLAY
    if h.status != RUNNING and h.status != TERMINAL and h.status != TRUNCATED:
        return BLOB_STATUS
    if h.winner < -1 or h.winner > 1 or (h.winner != -1 and h.status != TERMINAL):
        return BLOB_WINNER
    if h.moves < 0 or h.moves > max_moves:
        return BLOB_MOVES
    if h.last_action < -1 or h.last_action >= num_actions or (h.last_action == -1) != (h.moves == 0):
        return BLOB_LAST_ACTION
    return BLOB_OK


cdef inline void finish(Header* h, int winner) noexcept nogil:
    # mark the game over: winner 0/1, or -1 for a draw
    h.status = TERMINAL
    h.winner = winner


cdef inline void start(Header* h, uint64_t hash) noexcept nogil:
    # the Header of a start position: first player to move, nothing played, running
    h.hash = hash
    h.to_play = 0
    h.status = RUNNING
    h.winner = -1
    h.moves = 0
    h.last_action = -1


cdef inline void played(Header* h, int a) noexcept nogil:
    # count action a as played and pass the turn; the hash and the outcome are the game's to update
    h.moves += 1
    h.last_action = a
    h.to_play = 1 - h.to_play


cdef inline bint mask_over(const Header* h, int8_t* mask, int num_actions) noexcept nogil:
    # legal's first step: once the game is over no action is legal (mask cleared, True returned)
    if h.status != RUNNING:
        memset(mask, 0, num_actions)
        return True
    return False


cdef inline void set_shape(GameDef* d, int num_actions, int height, int width, int planes,
                           Py_ssize_t state_bytes) noexcept nogil:
    d.num_actions = num_actions
    d.height = height
    d.width = width
    d.planes = planes
    d.state_bytes = state_bytes


cdef inline void set_rules(GameDef* d, reset_fn reset, check_fn check, apply_fn apply, legal_fn legal,
                           observe_fn observe, validate_fn validate) noexcept nogil:
    # the game's rule functions (observe_mover, optional, is set apart)
    d.reset = reset
    d.check = check
    d.apply = apply
    d.legal = legal
    d.observe = observe
    d.validate = validate
