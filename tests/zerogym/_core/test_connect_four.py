"""Connect Four core: hand-built positions for every rule, and property tests over random play.

Boards are written with row 0 on TOP (as displayed); a column's first piece lands in the bottom
row (row rows-1).  Expected values below are derived by hand from the rules.
"""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import zerogym
from zerogym import IllegalMoveError
from zerogym._core.connect_four import ConnectFourState, make_spec

from cases import assert_status_matches_lines, assert_won, lines_of, play_moves


def play(moves, **kw):
    return play_moves(ConnectFourState(**kw), moves)


def win_with(moves, last, winner=0, **kw):
    """The state after `moves` (the game still running) and then `last`, which wins it for `winner`."""
    s = play(moves, **kw)
    assert not s.is_over()
    s.step(last)
    assert_won(s, winner)
    return s


def parse(rows):
    """Board from strings, top row first: '.' empty, 'X' first player, 'O' second."""
    return np.array([[".XO".index(ch) for ch in r] for r in rows], dtype=np.int8)


# ---- spec / metadata -----------------------------------------------------------------------------
def test_spec_metadata():
    spec = make_spec()
    assert spec.kwargs == {"rows": 6, "cols": 7, "connect": 4}
    assert spec.num_actions == 7
    assert spec.obs_shape == (6, 7, 3)
    assert spec.agents == ("player_0", "player_1")
    assert spec.reasons[:4] == ("legal", "action out of range", "the game is over", "that column is full")
    assert [n for n, _ in spec.plane_info] == ["own", "opponent", "ones"]
    assert spec.symmetry_names == ("identity", "flip_lr")
    assert spec.action_name(0) == "column 1" and spec.action_name(6) == "column 7"
    s = ConnectFourState(rows=3, cols=5, connect=3)
    assert s.spec.obs_shape == (3, 5, 3) and s.num_actions == 5
    assert zerogym.make_state("connect_four", rows=3, cols=5, connect=3) == s


def test_extreme_sizes_accepted():
    assert ConnectFourState(rows=25, cols=25, connect=25).spec.obs_shape == (25, 25, 3)
    assert ConnectFourState(rows=1, cols=2, connect=2).num_actions == 2
    assert ConnectFourState(rows=7, cols=1, connect=7).num_actions == 1


# ---- start position, gravity, observation ---------------------------------------------------------
def test_start_position():
    s = ConnectFourState()
    assert s.current_player == 0 and s.move_count == 0 and s.last_action == -1
    assert s.last_point() is None and s.hash == 0 and s.winner == -1
    assert not s.is_over() and s.returns() == (0.0, 0.0)
    assert list(s.legal_actions()) == list(range(7))
    assert (s.board() == 0).all() and list(s.heights()) == [0] * 7
    o = s.observation()
    assert o.dtype == np.int8 and o.shape == (6, 7, 3)
    assert (o[:, :, :2] == 0).all() and (o[:, :, 2] == 1).all()


def test_pieces_fall_to_lowest_empty_cell_and_observation_views():
    s = play([3, 3, 4, 2, 0])  # X d, O d (on top), X e, O c, X a
    expected = parse([".......", ".......", ".......", ".......", "...O...", "X.OXX.."])
    assert (s.board() == expected).all()
    assert list(s.heights()) == [1, 0, 1, 2, 1, 0, 0]
    assert s.last_point() == (5, 0) and s.last_action == 0
    assert s.current_player == 1 and s.move_count == 5
    o0, o1 = s.observation(0), s.observation(1)
    assert (o0[:, :, 0] == (expected == 1)).all() and (o0[:, :, 1] == (expected == 2)).all()
    assert (o1[:, :, 0] == (expected == 2)).all() and (o1[:, :, 1] == (expected == 1)).all()
    assert (o0[:, :, 2] == 1).all() and (o1[:, :, 2] == 1).all()
    assert (s.observation() == o1).all()  # default view: the player to move
    assert (s() == o0).all()  # global state: player 0's view
    enc = s.encode()
    assert enc.shape == (3, 6, 7) and (enc == np.transpose(o1, (2, 0, 1))).all()
    s.step(3)
    assert s.last_point() == (3, 3)


def test_full_column_is_illegal():
    s = play([0] * 6)  # alternating X/O up column a: no four
    assert not s.is_over()
    assert list(s.heights())[0] == 6
    assert not s.is_legal(0)
    assert s.illegal_reason(0) == "that column is full"
    assert list(s.legal_actions()) == [1, 2, 3, 4, 5, 6]
    assert s.legal_mask()[0] == 0
    before = s.to_bytes()
    with pytest.raises(IllegalMoveError) as e:
        s.step(0)
    msg = str(e.value)
    assert "column 1" in msg and "player_0" in msg and "full" in msg
    assert e.value.action == 0 and e.value.player == "player_0"
    assert s.to_bytes() == before
    for bad in (-1, 7):
        assert s.illegal_reason(bad) == "action out of range"
    for bad in (-1, 7, 10**12):
        with pytest.raises(IllegalMoveError):
            s.step(bad)
        assert s.to_bytes() == before
    with pytest.raises(IllegalMoveError):
        s.step("a")
    with pytest.raises(ValueError):
        s.step(None)
    assert s.to_bytes() == before


def test_full_single_column_board():
    s = ConnectFourState(rows=2, cols=1, connect=2)
    s.step(0)
    s.step(0)  # X then O: no two in a row of one colour, board full -> draw
    assert s.is_terminal() and s.winner == -1 and s.returns() == (0.0, 0.0)


# ---- wins: every direction, borders, other connect values and shapes --------------------------------
def test_horizontal_win_bottom_left():
    s = win_with([0, 0, 1, 1, 2, 2], 3)
    assert (s.board()[5, :4] == 1).all()


def test_horizontal_win_right_border():
    s = play([3, 3, 4, 4, 5, 5, 6])
    assert_won(s, 0)


def test_horizontal_win_second_player():
    # X wastes moves on the far right column, O builds a-b-c-d on the bottom row
    s = win_with([6, 0, 6, 1, 6, 2, 5], 3, winner=1)
    assert s.current_player == 0


def test_vertical_win():
    win_with([0, 1, 0, 1, 0, 1], 0)


def test_vertical_win_reaching_top_border():
    # col g: X, O, then X X X X up to the top row; O makes three in column a meanwhile
    s = win_with([6, 6, 6, 0, 6, 0, 6, 0], 6)
    assert list(s.board()[:, 6]) == [1, 1, 1, 1, 2, 1]
    assert s.last_point() == (0, 6)


def test_diagonal_ascending_win():
    # X: a1, b2, c3, d4 (heights from the bottom)
    s = win_with([0, 1, 1, 2, 2, 3, 2, 3, 3, 5], 3)
    b = s.board()
    assert b[5, 0] == b[4, 1] == b[3, 2] == b[2, 3] == 1


def test_diagonal_descending_win():
    # mirror image of the ascending case: X on g1, f2, e3, d4
    s = win_with([6, 5, 5, 4, 4, 3, 4, 3, 3, 1], 3)
    b = s.board()
    assert b[5, 6] == b[4, 5] == b[3, 4] == b[2, 3] == 1


def test_diagonal_corner_to_corner_4x4():
    s = win_with([0, 1, 1, 2, 2, 3, 2, 3, 3, 0], 3, rows=4, cols=4, connect=4)
    assert [s.board()[3 - i, i] for i in range(4)] == [1, 1, 1, 1]


def test_anti_diagonal_corner_to_corner_4x4_by_second_player():
    # O on d1, c2, b3, a4 (bottom-right to top-left); X plays elsewhere without a line
    s = play([2, 3, 1, 2, 1, 1, 0, 0, 3, 0, 2], rows=4, cols=4, connect=4)
    assert not s.is_over()
    expected = parse(["....", "OOX.", "OXOX", "XXXO"])
    assert (s.board() == expected).all()
    s.step(0)
    assert_won(s, 1)


def test_connect_three_vertical_on_5x4():
    win_with([0, 1, 0, 1], 0, rows=5, cols=4, connect=3)
    # the same moves with connect=4 do not end the game
    s4 = play([0, 1, 0, 1, 0], rows=5, cols=4, connect=4)
    assert not s4.is_over()


def test_connect_five_needs_five_on_4x7():
    s = play([0, 0, 1, 1, 2, 2, 3], rows=4, cols=7, connect=5)
    assert not s.is_over()  # four in a row is not enough
    s.step(3)
    assert not s.is_over()  # O now has four on the second row: not enough either
    s.step(4)
    assert_won(s, 0)


def test_connect_two_single_row():
    win_with([0, 2], 1, rows=1, cols=5, connect=2)


def test_connect_five_diagonal_on_tall_board():
    # 7 rows x 5 cols: X on a1, b2, c3, d4, e5; build the staircase with O's fillers
    moves = [0, 1, 1, 2, 2, 3, 2, 3, 3, 4, 3, 4, 4, 0, 4, 0]
    s = play(moves, rows=7, cols=5, connect=5)
    assert not s.is_over()
    b = s.board()
    assert [b[6 - i, i] for i in range(4)] == [1, 1, 1, 1] and b[2, 4] == 0
    s.step(4)
    assert_won(s, 0)


def test_longer_than_connect_wins():
    # X a1 b1 _ d1 e1, then c1 joins them into five
    s = win_with([0, 0, 1, 1, 3, 3, 4, 4], 2)
    assert (s.board()[5, :5] == 1).all()


def test_longer_than_connect_wins_diagonally_with_connect_three():
    # X on a1, b2, d4 then c3 fills the gap: four on the diagonal with connect=3
    s = play([0, 2, 1, 3, 1, 2, 3, 3, 3, 0], rows=5, cols=5, connect=3)
    assert not s.is_over()
    expected = parse([".....", "...X.", "...O.", "OXOX.", "XXOO."])
    # the hand-built position: nobody has three yet (checked by brute force too)
    assert (s.board() == expected).all() and lines_of(expected, 3) == set()
    s.step(2)  # X on c3 -> a1 b2 c3 d4 is four on the diagonal
    assert_won(s, 0)


# ---- draws --------------------------------------------------------------------------------------
def test_draw_on_2x3_connect_3():
    s = play([0, 1, 2, 0, 1], rows=2, cols=3, connect=3)
    assert not s.is_over()
    s.step(2)
    assert (s.board() == parse(["OXO", "XOX"])).all()
    assert s.is_terminal() and s.winner == -1 and s.returns() == (0.0, 0.0)
    assert s.legal_mask().sum() == 0


def test_draw_on_full_6x7():
    # Columns (bottom to top) A = XOXOXO or B = OXOXOX in the order A A B B A A B: no row has four
    # alike (XXOOXXO / OOXXOOX), columns alternate, and a diagonal keeps its colour only across
    # a change of column type, which never happens twice in a row -> at most two on a diagonal.
    A, B = "XOXOXO", "OXOXOX"
    cols = [A, A, B, B, A, A, B]
    expected = np.array([[".XO".index(cols[c][5 - r]) for c in range(7)] for r in range(6)], dtype=np.int8)
    assert lines_of(expected, 4) == set()
    moves = [0] * 6 + [1] * 5 + [2] * 6 + [1] + [4] * 5 + [3] * 6 + [4] + [5] * 5 + [6] * 6 + [5]
    s = play(moves[:-1])
    assert not s.is_over() and list(s.legal_actions()) == [5]
    s.step(moves[-1])
    assert (s.board() == expected).all()
    assert s.is_terminal() and s.winner == -1 and s.returns() == (0.0, 0.0)
    assert s.move_count == 42 and s.legal_mask().sum() == 0
    assert s.illegal_reason(5) == "the game is over"


def test_win_on_last_cell_is_a_win_not_a_draw():
    # 2x2 connect 2: X a1, O b1, X a2 -> X has a vertical two before the board is full
    s = play([0, 1], rows=2, cols=2, connect=2)
    s.step(0)
    assert_won(s, 0)
    # 1x2 connect 2: X, O, full board without two alike -> draw on the last cell
    d = play([0, 1], rows=1, cols=2, connect=2)
    assert d.is_terminal() and d.winner == -1
    # 1x3 connect 2: X a, O c, X b -> X wins by filling the last cell
    w = play([0, 2, 1], rows=1, cols=3, connect=2)
    assert_won(w, 0)
    assert w.move_count == 3


# ---- property tests over random play ------------------------------------------------------------
SHAPES = [(6, 7, 4), (5, 4, 3), (4, 5, 4), (3, 3, 3), (1, 6, 3), (6, 1, 3), (7, 9, 5), (2, 3, 2)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.sampled_from(SHAPES), data=st.data())
def test_random_play_invariants(shape, data):
    rows, cols, k = shape
    s = ConnectFourState(rows=rows, cols=cols, connect=k)
    syms = s.symmetries()
    mirror = ConnectFourState(rows=rows, cols=cols, connect=k)
    flip = syms.names.index("flip_lr")
    while True:
        mask = s.legal_mask()
        legal = s.legal_actions()
        assert list(np.flatnonzero(mask)) == list(legal)
        for a in range(cols):
            assert s.is_legal(a) == bool(mask[a])
            reason = s.illegal_reason(a)
            if mask[a]:
                assert reason is None
            elif s.is_over():
                assert reason == "the game is over"
            else:
                assert reason == "that column is full"
        assert s.illegal_reason(cols) == ("the game is over" if s.is_over() else "action out of range")
        # board invariants
        b = s.board()
        n = s.move_count
        assert (b == 1).sum() == (n + 1) // 2 and (b == 2).sum() == n // 2
        h = s.heights()
        assert list(h) == list((b != 0).sum(axis=0))
        for c in range(cols):  # gravity: pieces packed at the bottom
            assert (b[rows - h[c] :, c] != 0).all() and (b[: rows - h[c], c] == 0).all()
        assert s.hash == s.recompute_hash()
        assert s.current_player == n % 2
        # the reference scan agrees with the game's status
        assert_status_matches_lines(s, k)
        assert s.is_terminal() or mask.sum() > 0
        # symmetry: the mirrored game has the mirrored mask and observation
        assert (syms.policy(mask, flip) == mirror.legal_mask()).all()
        assert (syms.observation(s.observation(), flip) == mirror.observation()).all()
        assert mirror.is_over() == s.is_over() and mirror.winner == s.winner
        # pickling and copying
        p = pickle.loads(pickle.dumps(s))
        assert p == s and p.hash == s.hash and type(p) is ConnectFourState
        if s.is_over():
            break
        # an illegal move raises, names move and player, and changes nothing
        before = s.to_bytes()
        full = [a for a in range(cols) if not mask[a]]
        bad = data.draw(st.sampled_from(full + [cols, -1]))
        with pytest.raises(IllegalMoveError) as e:
            s.step(bad)
        assert s.spec.agents[s.current_player] in str(e.value)
        assert f"action {bad}" in str(e.value)
        assert s.to_bytes() == before
        # copy independence
        a = data.draw(st.sampled_from(list(legal)))
        c = s.copy()
        assert c == s
        c.step(a)
        assert s.to_bytes() == before and c != s
        s.step(a)
        assert s == c and s.last_action == a
        assert s.last_point() == (rows - s.heights()[a], a)
        assert s.board()[s.last_point()] == 2 - s.current_player
        mirror.step(syms.action(a, flip))
    assert s.legal_mask().sum() == 0


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_hash_is_a_function_of_the_position(data):
    # two different move orders reaching the same position give the same hash
    s = ConnectFourState()
    moves = []
    for _ in range(data.draw(st.integers(2, 12))):
        if s.is_over():
            break
        a = data.draw(st.sampled_from(list(s.legal_actions())))
        s.step(a)
        moves.append(a)
    # swap two moves by the same player in different columns: same final position
    p0 = [i for i in range(0, len(moves), 2)]
    pairs = [
        (i, j)
        for i in p0
        for j in p0
        if i < j and moves[i] != moves[j] and moves[i] not in moves[i + 1 : j] and moves[j] not in moves[i + 1 : j]
    ]
    if not pairs:
        return
    i, j = data.draw(st.sampled_from(pairs))
    alt = list(moves)
    alt[i], alt[j] = alt[j], alt[i]
    t = ConnectFourState()
    for a in alt:
        if t.is_over():
            return
        t.step(a)
    if (t.board() == s.board()).all():
        assert t.hash == s.hash == t.recompute_hash()
    u = ConnectFourState()
    u.step(0)
    v = ConnectFourState()
    v.step(1)
    assert u.hash != v.hash and u.hash != 0
