"""State blobs are untrusted input: load_bytes (and unpickling) accept exactly the positions the
rules can reach and refuse anything else with a ValueError naming the game and the field, leaving
the state unchanged.  Layout facts come from spec.layout; the expected verdicts from the rules."""

import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import zerogym
from cases import GAME_CASES, case_id, peek, poke

CASES = GAME_CASES + [
    ("go", {"board_size": 5, "superko": "simple"}),
    ("go", {"board_size": 4, "max_moves": 12}),
    ("othello", {"board_size": 10}),  # no bitboards above 8x8
    ("hex", {"board_size": 2}),
]


def random_game(game, kwargs, seed, stop_at=None):
    """The positions of one random legal game (all of them, or the first `stop_at`)."""
    rng = np.random.default_rng(seed)
    s = zerogym.make_state(game, **kwargs)
    out = [s.copy()]
    while not s.is_over() and (stop_at is None or len(out) < stop_at):
        s.step(int(rng.choice(s.legal_actions())))
        out.append(s.copy())
    return out


def midgame(game, kwargs, seed=0):
    """A running position some moves in (stones on the board, a last move)."""
    for k in range(50):
        positions = random_game(game, kwargs, seed + k)
        running = [p for p in positions if not p.is_over() and p.move_count >= 2]
        if running:
            return running[len(running) // 2]
    raise AssertionError("no running position found")


def refused(state, blob, field):
    """load_bytes(blob) raises ValueError naming the game and `field`, and changes nothing."""
    before = state.to_bytes()
    with pytest.raises(ValueError, match=f"invalid {state.spec.name} state blob.*{field}"):
        state.load_bytes(blob)
    assert state.to_bytes() == before


# ---- what the rules reach is accepted ----------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=case_id)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_every_position_of_random_play_loads_and_unpickles(case, seed):
    game, kwargs = case
    for s in random_game(game, kwargs, seed):
        t = zerogym.make_state(game, **kwargs)
        t.load_bytes(s.to_bytes())
        assert t == s and t.hash == s.hash
        assert pickle.loads(pickle.dumps(s)) == s


def test_hex_swap_and_go_endings_load():
    h = zerogym.make_state("hex", board_size=5, swap=True).step(7).step(25)  # black C2, white swaps
    assert h.board()[2, 1] == 2 and h.last_action == 25
    zerogym.make_state("hex", board_size=5).load_bytes(h.to_bytes())
    for kwargs, last, ended in (
        ({"board_size": 5}, 25, "is_terminal"),
        ({"board_size": 5, "max_moves": 3}, 1, "is_truncated"),
    ):
        g = zerogym.make_state("go", **kwargs).step(0).step(25).step(last)
        assert getattr(g, ended)()
        zerogym.make_state("go", **kwargs).load_bytes(g.to_bytes())


def test_othello_set_position_loads():
    s = zerogym.make_state("othello", board_size=6)
    board = np.zeros((6, 6), np.int8)
    board[0, :3] = 1
    board[1, 1] = 2
    s.set_position(board, to_play=1)
    zerogym.make_state("othello", board_size=6).load_bytes(s.to_bytes())


# ---- the header ---------------------------------------------------------------------------------
HEADER_BREAKS = [
    ("to_play", 2, "to_play"),
    ("to_play", -1, "to_play"),
    ("to_play", 2**31 - 1, "to_play"),
    ("status", 3, "status"),
    ("status", -1, "status"),
    ("winner", 2, "winner"),
    ("winner", -2, "winner"),
    ("winner", 0, "winner"),  # a winner while running
    ("moves", -1, "moves"),
    ("moves", 2**31 - 1, "moves"),
    ("last_action", -2, "last_action"),
    ("last_action", 2**31 - 1, "last_action"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
@pytest.mark.parametrize("field,value,named", HEADER_BREAKS, ids=lambda x: str(x))
def test_header_field_out_of_range_is_refused(case, field, value, named):
    game, kwargs = case
    s = midgame(game, kwargs)
    refused(s, poke(s.to_bytes(), s.spec, field, value), named)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_header_fields_that_disagree_with_the_board_are_refused(case):
    game, kwargs = case
    s = midgame(game, kwargs)
    blob, spec = s.to_bytes(), s.spec
    refused(s, poke(blob, spec, "hash", int(s.hash) ^ 1), "hash")
    refused(s, poke(blob, spec, "status", 1), "status")  # over, with nothing ending it
    refused(s, poke(blob, spec, "last_action", -1), "last_action")  # no last move after moves
    if game != "othello":  # set_position: any player may start
        refused(s, poke(blob, spec, "to_play", 1 - s.current_player), "to_play|hash")
        refused(s, poke(blob, spec, "moves", s.move_count + 1), "moves|to_play")
    with pytest.raises(ValueError, match="bytes"):
        s.load_bytes(blob[:-1])


@pytest.mark.parametrize("case", CASES, ids=case_id)
@pytest.mark.parametrize("value", [3, -1, 127, -128])
def test_a_cell_value_that_is_no_piece_is_refused(case, value):
    game, kwargs = case
    s = midgame(game, kwargs)
    cell = (1 + kwargs.get("board_size", 5) + 1) if game == "go" else 0  # an inside point: (0, 0) padded
    refused(s, poke(s.to_bytes(), s.spec, "board", value, cell), "board")


# ---- each game's derived fields -------------------------------------------------------------------
def test_connect_four_heights_must_match_the_pieces():
    s = zerogym.make_state("connect_four").step(3).step(3).step(4)
    blob, spec = s.to_bytes(), s.spec
    for c, h in ((3, 3), (3, 1), (0, 1), (0, 7), (0, -1), (6, 127)):
        refused(s, poke(blob, spec, "heights", h, c), "heights")
    floating = poke(poke(blob, spec, "board", 0, 5 * 7 + 4), spec, "board", 1, 4 * 7 + 4)  # a gap below it
    refused(s, floating, "heights")


def zobrist(game, board):
    """A k-in-a-row game's hash of `board` (cell -> 1 or 2), from the hashes of played positions:
    hash(X on a) is a's key for X, hash(X on a, O on c) ^ hash(X on a) is c's key for O."""
    h = 0
    for c, v in board.items():
        a = 1 if c == 0 else 0
        x_only = zerogym.make_state(game).step(c if v == 1 else a)
        h ^= x_only.hash if v == 1 else x_only.copy().step(c).hash ^ x_only.hash
    return h


def test_k_in_a_row_outcomes_must_match_the_lines():
    x_line = zerogym.make_state("tictactoe")
    for a in (0, 3, 1, 4, 2):  # X: top row
        x_line.step(a)
    blob, spec = x_line.to_bytes(), x_line.spec
    running = poke(poke(blob, spec, "status", 0), spec, "winner", -1)
    refused(x_line, running, "status")  # a line, but running
    refused(x_line, poke(blob, spec, "winner", 1), "winner")  # the other side won
    refused(x_line, poke(blob, spec, "winner", -1), "winner")  # a draw
    # O moved after X's line: the game went on after a win
    board = {0: 1, 1: 1, 2: 1, 3: 2, 4: 2, 8: 2}
    went_on = running
    for field, value in (("moves", 6), ("to_play", 0), ("last_action", 8), ("hash", zobrist("tictactoe", board))):
        went_on = poke(went_on, spec, field, value)
    went_on = poke(went_on, spec, "board", 2, 8)
    refused(x_line, went_on, "status")
    assert zobrist("tictactoe", {0: 1, 3: 2, 1: 1}) == zerogym.make_state("tictactoe").step(0).step(3).step(1).hash
    # X's line not through X's last piece: the game went on after X's earlier win
    late = zerogym.make_state("tictactoe")
    for a in (0, 3, 1, 4, 8, 6):  # no line yet
        late.step(a)
    board = {0: 1, 1: 1, 2: 1, 8: 1, 3: 2, 4: 2, 6: 2}
    won_before = late.to_bytes()
    for field, value in (
        ("moves", 7),
        ("to_play", 1),
        ("last_action", 8),
        ("status", 1),
        ("winner", 0),
        ("hash", zobrist("tictactoe", board)),
    ):
        won_before = poke(won_before, spec, field, value)
    won_before = poke(won_before, spec, "board", 1, 2)
    refused(late, won_before, "status")
    draw = zerogym.make_state("tictactoe")
    for a in (0, 1, 2, 4, 3, 5, 7, 6, 8):
        draw.step(a)
    assert draw.is_terminal() and draw.winner == -1
    refused(draw, poke(draw.to_bytes(), spec, "status", 0), "status")  # a full board is over


def test_othello_cached_fields_must_match_the_board():
    for n in (6, 10):
        s = midgame("othello", {"board_size": n})
        blob, spec = s.to_bytes(), s.spec
        refused(s, poke(blob, spec, "count", peek(blob, spec, "count")[0] + 1, 0), "count")
        refused(s, poke(blob, spec, "legal", int(peek(blob, spec, "legal")[0]) ^ 2, 0), "legal")
        refused(s, poke(blob, spec, "nlegal", 0), "legal")
        if n <= 8:
            refused(s, poke(blob, spec, "bitboards", int(peek(blob, spec, "bitboards")[0]) ^ (1 << 63), 0), "bitboards")
        else:
            refused(s, poke(blob, spec, "bitboards", 1, 0), "bitboards")


@pytest.mark.parametrize(
    "case", [("othello", {"board_size": 6}), ("breakthrough", {"rows": 6, "cols": 5})], ids=case_id
)
def test_a_move_counter_stays_in_range_on_every_move_from_an_accepted_blob(case):
    # the counter of a game that set_position may start anywhere is only bounded, and by the moves the
    # position still allows: the largest counter accepted plays to the end with every position accepted
    game, kwargs = case
    rng = np.random.default_rng(1)
    s = midgame(game, kwargs)
    blob, spec = s.to_bytes(), s.spec
    top = None
    for moves in range(s.move_count, 4 * s.num_actions, 2):  # the same parity: the same player to move
        try:
            zerogym.make_state(game, **kwargs).load_bytes(poke(blob, spec, "moves", moves))
        except ValueError as err:
            assert "moves" in str(err)
            break
        top = moves
    assert top is not None and top > s.move_count
    t = zerogym.make_state(game, **kwargs)
    t.load_bytes(poke(blob, spec, "moves", top))
    while not t.is_over():
        t.step(int(rng.choice(t.legal_actions())))
        zerogym.make_state(game, **kwargs).load_bytes(t.to_bytes())


def test_hex_union_find_must_match_the_groups():
    s = zerogym.make_state("hex", board_size=4, swap=False)
    for a in (0, 5, 4, 6):  # black A1, A2 (a group on the first row); white B2, C2
        s.step(a)
    blob, spec = s.to_bytes(), s.spec
    nodes = 4 * 4 + 4
    for i, v in ((0, 30000), (0, -1), (0, nodes), (2, 0), (7, 0)):  # out of range; an empty cell linked; cross-colour
        refused(s, poke(blob, spec, "parent", v, i), "parent")
    cycle = poke(poke(blob, spec, "parent", 4, 0), spec, "parent", 0, 4)
    refused(s, cycle, "parent")
    split = poke(blob, spec, "parent", 5, 5)  # white C2 cut from its group
    refused(s, split, "parent")
    # one stone after move 1, the swap's input: last_action must be black's stone
    first = zerogym.make_state("hex", board_size=4).step(9)
    refused(first, poke(first.to_bytes(), first.spec, "last_action", 3), "last_action")


def test_go_chains_must_match_the_stones():
    s = zerogym.make_state("go", board_size=5)
    for a in (0, 24, 1, 23, 6):  # black A1 B1 B2: one chain of three
        s.step(a)
    blob, spec = s.to_bytes(), s.spec
    w = 6
    a1, b1, b2 = w, w + 1, 2 * w + 1  # padded points
    for field, value, at in (
        ("head", 30000, a1),
        ("head", -5, a1),
        ("head", b2, a1),
        ("head", 0, b1),
        ("next", 30000, a1),
        ("next", -1, b1),
        ("next", a1, a1),
        ("chains", {"libs": 1}, int(peek(blob, spec, "head")[a1])),
        ("chains", {"size": 4}, int(peek(blob, spec, "head")[a1])),
        ("chain_hash", 12345, int(peek(blob, spec, "head")[a1])),
        ("nblack", 4, 0),
    ):
        refused(s, poke(blob, spec, field, value, at), "chains|stone counts")
    refused(s, poke(blob, spec, "board", 0, 0), "border")


def test_go_captured_stones_ko_passes_and_history_are_checked():
    s = zerogym.make_state("go", board_size=5)
    blob, spec = s.to_bytes(), s.spec
    w = 6
    # a black stone on A1 surrounded by white on A2 and B1: a chain without a liberty
    g = zerogym.make_state("go", board_size=5)
    for a in (0, 5, 24, 1):
        g.step(a)
    assert g.board()[0, 0] == 0  # the rules captured it
    dead = zerogym.make_state("go", board_size=5)
    for a in (12, 5, 24, 1):
        dead.step(a)
    b = poke(dead.to_bytes(), spec, "board", 1, w)  # put the stone back, uncaptured
    refused(dead, b, "chains|liberty|stone counts|hash")
    # ko: a banned point out of range, on a stone, or with no capture behind it
    for ko in (10**6, -2, w, 3 * w + 2):
        refused(s, poke(blob, spec, "ko", ko), "ko")
    refused(s, poke(blob, spec, "passes", 3), "passes")
    after_pass = zerogym.make_state("go", board_size=5).step(0).step(25)
    refused(after_pass, poke(after_pass.to_bytes(), spec, "passes", 0), "passes")
    # the superko set: full (a probe would never end), a duplicate, a missing start, a wrong tally
    played = midgame("go", {"board_size": 5})
    pb = played.to_bytes()
    cap = spec.layout["superko_set"][2]
    full = bytearray(pb)
    off = spec.layout["superko_set"][0]
    full[off : off + 8 * cap] = np.arange(1, cap + 1, dtype=np.uint64).tobytes()
    refused(played, bytes(full), "superko")
    keys = peek(pb, spec, "superko_set")
    used = np.flatnonzero(keys)
    free = np.flatnonzero(keys == 0)
    refused(played, poke(pb, spec, "superko_set", keys[used[0]], free[-1]), "superko")
    refused(played, poke(pb, spec, "superko_set", 0, used[0]), "superko")
    refused(played, poke(pb, spec, "seen", -1, 3), "superko")
    refused(played, poke(pb, spec, "seen", peek(pb, spec, "seen")[0] + 1, 0), "superko")
    refused(played, poke(pb, spec, "bloom", 0, int(np.flatnonzero(peek(pb, spec, "bloom"))[0])), "superko")
    simple = zerogym.make_state("go", board_size=5, superko="simple")
    refused(simple, poke(simple.to_bytes(), simple.spec, "bloom", 1, 0), "superko")


# ---- any corruption: refused, or a position that plays on safely ----------------------------------
def plays_on(s, seed, moves=12):
    """An accepted position is usable: masks, observations, copies and legal play all work."""
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        mask = s.legal_mask()
        assert mask.sum() == len(s.legal_actions())
        s.observation(0)
        s.encode()
        assert s.copy() == s
        if s.is_over():
            return
        s.step(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_every_single_byte_change_is_refused_or_safe(case):
    game, kwargs = case
    s = midgame(game, kwargs)
    blob = s.to_bytes()
    t = zerogym.make_state(game, **kwargs)
    accepted = 0
    for i in range(len(blob)):
        for x in (0x01, 0x80, 0xFF):
            b = bytearray(blob)
            b[i] ^= x
            try:
                t.load_bytes(bytes(b))
            except ValueError as err:
                assert f"invalid {game} state blob" in str(err)
                continue
            accepted += 1
            plays_on(t, i)
    assert accepted < 3 * len(blob)


@pytest.mark.parametrize("case", CASES, ids=case_id)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_corruptions_are_refused_or_safe(case, data):
    game, kwargs = case
    s = midgame(game, kwargs, seed=data.draw(st.integers(0, 1000)))
    blob = bytearray(s.to_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        i = data.draw(st.integers(0, len(blob) - 1))
        blob[i] = data.draw(st.integers(0, 255))
    t = zerogym.make_state(game, **kwargs)
    before = t.to_bytes()
    try:
        t.load_bytes(bytes(blob))
    except ValueError:
        assert t.to_bytes() == before
        with pytest.raises(ValueError):
            pickle.loads(pickle.dumps(s).replace(s.to_bytes(), bytes(blob)))
        return
    plays_on(t, 0)
