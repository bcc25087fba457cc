"""Othello core: hand-built positions for every rule, and property tests over random play.

Boards are written with row 0 on TOP (as displayed, a1 = (0, 0) top left).  'X' is black (player 0,
moves first), 'O' white.  Expected values are derived by hand from the rules, or from `ref_*`
below: a direct, slow transcription of the rules in Python that shares no code with the core.
"""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import zerogym
from zerogym import IllegalMoveError
from zerogym._core.othello import OthelloState, make_spec

DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
LETTERS = "abcdefghjklmnopq"  # GTP-style column letters (no i), as the rendered board shows


def parse(rows):
    """Board from strings, top row (row 0) first: '.' empty, 'X' black, 'O' white."""
    return np.array([[".XO".index(ch) for ch in r] for r in rows], dtype=np.int8)


def pos(rows, to_play=0):
    b = parse(rows)
    return OthelloState(board_size=b.shape[0]).set_position(b, to_play)


def act(name, n):
    """Action of a name like 'd3' (column letter, row number from 1 at the top) or 'pass'."""
    if name == "pass":
        return n * n
    return (int(name[1:]) - 1) * n + LETTERS.index(name[0])


def ref_flips(board, r, c, v):
    """Cells flipped by colour v (1/2) placing on empty (r, c): every bracketed line, any direction."""
    n = board.shape[0]
    o = 3 - v
    out = []
    for dr, dc in DIRS:
        line, rr, cc = [], r + dr, c + dc
        while 0 <= rr < n and 0 <= cc < n and board[rr, cc] == o:
            line.append((rr, cc))
            rr += dr
            cc += dc
        if line and 0 <= rr < n and 0 <= cc < n and board[rr, cc] == v:
            out += line
    return out


def ref_placements(board, v):
    n = board.shape[0]
    return [r * n + c for r in range(n) for c in range(n) if board[r, c] == 0 and ref_flips(board, r, c, v)]


def assert_over(s, winner):
    assert s.is_terminal() and s.is_over() and not s.is_truncated()
    assert s.winner == winner
    assert s.returns() == {0: (1.0, -1.0), 1: (-1.0, 1.0), -1: (0.0, 0.0)}[winner]
    assert s.legal_mask().sum() == 0 and len(s.legal_actions()) == 0
    assert s.illegal_reason(s.num_actions - 1) == "the game is over"


# ---- spec / metadata ---------------------------------------------------------------------------
def test_spec_metadata():
    spec = make_spec()
    assert spec.kwargs == {"board_size": 8}
    assert spec.num_actions == 65 and spec.obs_shape == (8, 8, 3)
    assert spec.agents == ("black_0", "white_0")
    assert spec.reasons[:3] == ("legal", "action out of range", "the game is over")
    assert "occupied" in spec.reasons[3] and "flips no disc" in spec.reasons[4]
    assert spec.reasons[5] == "pass is only legal when no placement is"
    assert spec.reasons[6] == "must pass: no placement is legal"
    assert [n for n, _ in spec.plane_info] == ["own", "opponent", "ones"]
    assert len(spec.symmetries) == 8 and spec.symmetry_names[0] == "identity"
    assert spec.action_name(0) == "a1" and spec.action_name(7) == "h1" and spec.action_name(63) == "h8"
    assert spec.action_name(19) == "d3" and spec.action_name(64) == "pass"
    assert make_spec(board_size=10).action_name(9) == "k1"  # no 'i', as on the rendered board
    assert zerogym.make_state("othello", board_size=6) == OthelloState(6)


@pytest.mark.parametrize("n", [4, 6, 8, 10, 12, 14, 16])
def test_start_position(n):
    s = OthelloState(board_size=n)
    m = n // 2
    want = np.zeros((n, n), np.int8)
    want[m - 1, m - 1] = want[m, m] = 2
    want[m - 1, m] = want[m, m - 1] = 1
    assert (s.board() == want).all()
    assert s.counts() == (2, 2) and s.current_player == 0 and s.move_count == 0 and s.last_action == -1
    assert not s.is_over() and s.winner == -1
    # black's four openings: above/left of the white disc at (m-1, m-1), below/right of (m, m)
    assert list(s.legal_actions()) == sorted([(m - 2) * n + m - 1, (m - 1) * n + m - 2, m * n + m + 1, (m + 1) * n + m])
    assert s.hash == s.recompute_hash()
    obs = s.observation(0)
    assert obs.shape == (n, n, 3) and obs.dtype == np.int8
    assert (obs[..., 0] == (want == 1)).all() and (obs[..., 1] == (want == 2)).all() and (obs[..., 2] == 1).all()
    obs1 = s.observation(1)
    assert (obs1[..., 0] == obs[..., 1]).all() and (obs1[..., 1] == obs[..., 0]).all() and (obs1[..., 2] == 1).all()


def test_8x8_opening_d3():
    s = OthelloState()
    assert list(s.legal_actions()) == [act(x, 8) for x in ("d3", "c4", "f5", "e6")]
    s.step(act("d3", 8))  # flips d4 (the white disc between d3 and black d5)
    assert s.board()[3, 3] == 1 and s.board()[2, 3] == 1
    assert s.counts() == (4, 1) and s.current_player == 1 and s.last_action == 19
    # white: c3 (flanks d4 diagonally with e5), e3 (flanks e4 with e5), c5 (flanks d5 with e5)
    assert list(s.legal_actions()) == [act(x, 8) for x in ("c3", "e3", "c5")]


# ---- flips ------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [6, 8, 10, 16])
@pytest.mark.parametrize("d", range(8))
def test_flip_each_direction(n, d):
    dr, dc = DIRS[d]
    k = 2 if n >= 8 else 1  # white discs in the bracketed line
    r0 = c0 = 3 if n >= 8 else 2
    b = np.zeros((n, n), np.int8)
    for i in range(1, k + 1):
        b[r0 + i * dr, c0 + i * dc] = 2
    b[r0 + (k + 1) * dr, c0 + (k + 1) * dc] = 1
    b[n - 1, 0] = b[n - 1, 1] = 2  # keep white on the board after the flip
    s = OthelloState(n).set_position(b, 0)
    assert list(s.legal_actions()) == [r0 * n + c0]
    s.step(r0 * n + c0)
    want = b.copy()
    want[r0, c0] = 1
    for i in range(1, k + 1):
        want[r0 + i * dr, c0 + i * dc] = 1
    assert (s.board() == want).all()
    assert s.counts() == (k + 2, 2)
    assert s.hash == s.recompute_hash()


@pytest.mark.parametrize("n", [8, 10])
def test_multiple_directions_flip_together(n):
    # black plays c3 (row 2, col 2): bracketed E (d3, e3 then f3), S (c4 then c5), SE (d4 then e5);
    # the line going W (b3) is not bracketed (a3 is empty) and must not flip; N (c2 then c1 white) neither
    b = np.zeros((n, n), np.int8)
    b[2, 3] = b[2, 4] = 2
    b[2, 5] = 1  # E
    b[3, 2] = 2
    b[4, 2] = 1  # S
    b[3, 3] = 2
    b[4, 4] = 1  # SE
    b[2, 1] = 2  # W, open end
    b[1, 2] = 2
    b[0, 2] = 2  # N, runs to the edge
    s = OthelloState(n).set_position(b, 0)
    assert s.illegal_reason(2 * n + 2) is None
    s.step(2 * n + 2)
    want = b.copy()
    want[2, 2] = want[2, 3] = want[2, 4] = want[3, 2] = want[3, 3] = 1
    assert (s.board() == want).all()
    assert s.counts() == (8, 3)


@pytest.mark.parametrize("n", [6, 8, 12])
def test_move_that_flips_nothing_is_illegal(n):
    s = OthelloState(n)
    m = n // 2
    before = s.to_bytes()
    # (m-2, m-2) touches white (m-1, m-1) diagonally, but (m, m) is white too and (m+1, m+1) empty
    for a in (0, (m - 2) * n + m - 2, (m - 2) * n + m + 1):
        assert not s.is_legal(a)
        assert s.illegal_reason(a) == "a disc there flips no disc (it must bracket a line of opponent discs)"
        with pytest.raises(IllegalMoveError, match="flips no disc") as e:
            s.step(a)
        assert "black_0" in str(e.value) and s.spec.action_name(a) in str(e.value)
        assert s.to_bytes() == before
    occupied = (m - 1) * n + m - 1
    assert s.illegal_reason(occupied) == "that square is occupied"
    with pytest.raises(IllegalMoveError, match="occupied"):
        s.step(occupied)
    assert s.to_bytes() == before


def test_line_to_the_edge_is_not_bracketed():
    # white b1..h1 up to the edge: a1 flanks nothing (no black disc at the end)
    s = pos([".OOOOOOO", "........", "........", "...OX...", "...XO...", "........", "........", "........"])
    assert not s.is_legal(0) and "flips no disc" in s.illegal_reason(0)


def board8(**cells):
    """8x8 rows from {row index: row string}; the a8-b8 pair "XO" gives black one legal move, c8."""
    rows = ["........"] * 8
    rows[7] = "XO......"
    for k, v in cells.items():
        rows[int(k[1:])] = v
    return rows


@pytest.mark.parametrize(
    "rows, a, name",
    [
        # the 8x8 bitboard shifts must not carry a line across the board's edge into the next row
        (board8(r2=".......O", r3="X......."), 2 * 8 + 6, "E: g3, h3 white, a4 black"),
        (board8(r2=".......X", r3="OO......"), 3 * 8 + 2, "W: c4, b4 a4 white, h3 black"),
        (board8(r2=".......O", r4="X......."), 1 * 8 + 6, "SE: g2, h3 white, a5 black"),
        (board8(r2="O......X"), 1 * 8 + 1, "SW: b2, a3 white, h3 black"),
        (board8(r4="X......O"), 5 * 8 + 6, "NE: g6, h5 white, a5 black"),
        (board8(r2=".......X", r4="O......."), 5 * 8 + 1, "NW: b6, a5 white, h3 black"),
    ],
)
def test_no_flank_across_the_edge(rows, a, name):
    s = pos(rows)
    assert not s.is_legal(a), name
    assert "flips no disc" in s.illegal_reason(a)
    assert list(s.legal_actions()) == [7 * 8 + 2] == ref_placements(parse(rows), 1)


@pytest.mark.parametrize("n", [6, 8])
def test_no_flank_beyond_small_board(n):
    # on a board smaller than the 8x8 bitboard, a line reaching the right or bottom edge is not
    # bracketed by the missing columns/rows
    b = np.zeros((n, n), np.int8)
    m = n // 2
    b[m - 1, m - 1] = b[m, m] = 2
    b[m - 1, m] = b[m, m - 1] = 1
    b[0, n - 1] = 2  # right edge, row 0
    b[n - 1, 0] = 2  # bottom edge
    s = OthelloState(n).set_position(b, 0)
    assert not s.is_legal(n - 2) and not s.is_legal((n - 2) * n)
    assert list(s.legal_actions()) == ref_placements(b, 1)


# ---- passing and the end ---------------------------------------------------------------------------
def test_forced_pass_then_end_before_full_board():
    # black has no placement (white's only disc, a1, sits in the corner); white can play c1
    s = pos(["OX..", "....", "....", "...."])
    assert not s.is_over()
    assert list(s.legal_actions()) == [16]
    assert s.legal_mask().tolist() == [0] * 16 + [1]
    assert s.illegal_reason(act("c1", 4)) == "must pass: no placement is legal"
    assert s.illegal_reason(0) == "that square is occupied"
    with pytest.raises(IllegalMoveError, match="must pass"):
        s.step(act("c1", 4))
    h0 = s.hash
    s.step(16)
    assert s.current_player == 1 and s.counts() == (1, 1) and s.last_action == 16 and s.move_count == 1
    assert s.hash != h0 and s.hash == s.recompute_hash()  # the hash covers the side to move
    assert (s.board() == parse(["OX..", "....", "....", "...."])).all()
    assert list(s.legal_actions()) == [act("c1", 4)]
    s.step(act("c1", 4))
    # white has a1, b1, c1; black has nothing: neither side can place, 13 squares still empty
    assert s.counts() == (0, 3)
    assert_over(s, 1)
    assert s.current_player == 0


def test_pass_illegal_when_a_placement_exists():
    s = OthelloState()
    before = s.to_bytes()
    assert not s.is_legal(64)
    assert s.illegal_reason(64) == "pass is only legal when no placement is"
    with pytest.raises(IllegalMoveError, match="pass is only legal") as e:
        s.step(64)
    assert "pass" in str(e.value) and "black_0" in str(e.value)
    assert s.to_bytes() == before


def test_end_when_neither_can_move_both_sides_on_board():
    # black c1 flips b1; then black a1-c1 are on the top edge (cannot be flanked) and white's d4 is
    # a corner (cannot be flanked): the game ends with 12 empty squares, black 3 - 1
    s = pos(["XO..", "....", "....", "...O"])
    assert list(s.legal_actions()) == [act("c1", 4)]
    s.step(act("c1", 4))
    assert s.counts() == (3, 1)
    assert_over(s, 0)
    assert (s.board() == parse(["XXX.", "....", "....", "...O"])).all()
    with pytest.raises(IllegalMoveError, match="the game is over"):
        s.step(act("d1", 4))


def test_full_board_draw():
    # black a1 flips b1 only (a2 and b2 are black already); the board is then full at 8 - 8
    s = pos([".OXO", "XXOO", "OOOX", "OOXX"])
    assert list(s.legal_actions()) == [0]
    s.step(0)
    assert (s.board() == parse(["XXXO", "XXOO", "OOOX", "OOXX"])).all()
    assert s.counts() == (8, 8)
    assert_over(s, -1)


def test_full_board_winner_by_count():
    s = pos([".OXO", "XXOO", "OOOX", "XXXX"])
    s.step(0)
    assert s.counts() == (10, 6)
    assert_over(s, 0)


def test_set_position_validates():
    s = OthelloState(4)
    with pytest.raises(ValueError, match="shape"):
        s.set_position(np.zeros((6, 6), np.int8))
    with pytest.raises(ValueError, match="0 .empty., 1 .black. or 2"):
        s.set_position(np.full((4, 4), 3))
    with pytest.raises(ValueError, match="to_play"):
        s.set_position(np.zeros((4, 4), np.int8), 2)
    s.set_position(np.zeros((4, 4), np.int8), 1)  # no discs: over at once, a draw
    assert_over(s, -1)


# ---- symmetry ----------------------------------------------------------------------------------
def test_start_position_symmetries():
    s = OthelloState()
    sym = s.symmetries()
    obs = s.observation(0)
    invariant = [sym.names[k] for k in range(len(sym)) if (sym.observation(obs, k) == obs).all()]
    assert invariant == ["identity", "rot180", "transpose", "antitranspose"]


# ---- property tests over random legal play ---------------------------------------------------------
def random_game(data, n, max_moves):
    s = OthelloState(n)
    states = [s.copy()]
    for _ in range(max_moves):
        if s.is_over():
            break
        legal = s.legal_actions()
        s.step(int(data.draw(st.sampled_from(list(legal)))))
        states.append(s.copy())
    return states


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), n=st.sampled_from([4, 6, 8, 10, 16]))
def test_random_play_invariants(data, n):
    s = OthelloState(n)
    N2 = n * n
    agents = s.spec.agents
    steps = 0
    while not s.is_over():
        board = s.board()
        me = s.current_player
        black, white = s.counts()
        assert (black, white) == (int((board == 1).sum()), int((board == 2).sum()))
        assert s.hash == s.recompute_hash()
        # legality agrees everywhere and with the reference rules
        mask = s.legal_mask()
        legal = s.legal_actions()
        assert list(np.flatnonzero(mask)) == list(legal)
        ref = ref_placements(board, me + 1)
        assert list(legal) == (ref if ref else [N2])
        for a in range(-1, N2 + 2):
            ok = 0 <= a <= N2 and bool(mask[a])
            assert s.is_legal(a) == ok
            assert (s.illegal_reason(a) is None) == ok
        # an illegal step raises, names the move and the player, and changes nothing
        bad = [a for a in range(N2 + 1) if not mask[a]]
        if bad:
            a = data.draw(st.sampled_from(bad))
            before = s.to_bytes()
            with pytest.raises(IllegalMoveError) as e:
                s.step(a)
            assert isinstance(e.value, ValueError)
            assert s.spec.action_name(a) in str(e.value) and agents[me] in str(e.value)
            assert s.to_bytes() == before
        # copies are independent; pickling round-trips
        c = s.copy()
        assert c == s and c.to_bytes() == s.to_bytes()
        p = pickle.loads(pickle.dumps(s))
        assert p == s and p.hash == s.hash and (p.board() == board).all()
        a = int(data.draw(st.sampled_from(list(legal))))
        c.step(a)
        assert s.to_bytes() == p.to_bytes() and (s.board() == board).all()
        # the move: flips exactly the reference lines, counts conserved
        s.step(a)
        steps += 1
        assert s == c and s.move_count == steps and s.last_action == a
        assert s.current_player == 1 - me
        nb, nw = s.counts()
        if a == N2:
            assert (s.board() == board).all() and (nb, nw) == (black, white)
        else:
            fl = ref_flips(board, a // n, a % n, me + 1)
            assert len(fl) >= 1
            want = board.copy()
            want[a // n, a % n] = me + 1
            for rr, cc in fl:
                want[rr, cc] = me + 1
            assert (s.board() == want).all()
            mine, theirs = (nb, nw) if me == 0 else (nw, nb)
            before_mine, before_theirs = (black, white) if me == 0 else (white, black)
            assert mine == before_mine + 1 + len(fl) and theirs == before_theirs - len(fl)
            assert nb + nw == black + white + 1
        # the end: exactly when neither side can place a disc
        after = s.board()
        over = not ref_placements(after, 1) and not ref_placements(after, 2)
        assert s.is_over() == over
        if over:
            assert s.winner == (0 if nb > nw else 1 if nw > nb else -1)
            assert s.hash == s.recompute_hash()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), n=st.sampled_from([4, 6, 8, 10]))
def test_symmetries_map_legal_masks(data, n):
    states = random_game(data, n, data.draw(st.integers(0, n * n)))
    s = states[-1]
    sym = s.symmetries()
    board, mask = s.board(), s.legal_mask()
    for k in range(len(sym)):
        tb = sym.observation(board[..., None], k)[..., 0]
        t = OthelloState(n).set_position(tb, s.current_player)
        assert (t.legal_mask() == sym.policy(mask, k)).all()
        assert (t.observation() == sym.observation(s.observation(), k)).all()
        assert t.counts() == s.counts() and t.is_over() == s.is_over()


@settings(max_examples=10, deadline=None)
@given(data=st.data(), n=st.sampled_from([4, 8, 12]))
def test_full_games_end_correctly(data, n):
    s = random_game(data, n, 2 * n * n)[-1]
    assert s.is_terminal()
    b = s.board()
    assert not ref_placements(b, 1) and not ref_placements(b, 2)
    nb, nw = s.counts()
    assert s.winner == (0 if nb > nw else 1 if nw > nb else -1)
    assert s.returns() == ((1.0, -1.0) if nb > nw else (-1.0, 1.0) if nw > nb else (0.0, 0.0))
