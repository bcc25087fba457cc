"""Tic-tac-toe / Gomoku core: hand-built positions and property tests over random play.

Actions are r * N + c; row 0 is rank 1 in human coordinates (action 0 = "A1").  Expected values
are derived by hand from the rules: `win_length` or more in a row (row, column, either diagonal)
wins, a full board without such a line is a draw.
"""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import zerogym
from zerogym import IllegalMoveError
from zerogym._core.tictactoe import TicTacToeState, make_spec

from cases import assert_status_matches_lines, assert_won, lines_of, play_moves

# the eight lines of the 3x3 board, listed by hand (cells r * 3 + c)
LINES_3x3 = [
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),  # rows
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),  # columns
    (0, 4, 8),
    (2, 4, 6),
]  # diagonals


def play(moves, **kw):
    return play_moves(TicTacToeState(**kw), moves)


def cell(r, c, n=15):
    return r * n + c


# ---- metadata and kwargs --------------------------------------------------------------------------
def test_spec_metadata():
    spec = make_spec()
    assert spec.kwargs == {"board_size": 3, "win_length": 3}
    assert spec.num_actions == 9 and spec.obs_shape == (3, 3, 3)
    assert spec.agents == ("player_0", "player_1")
    assert spec.reasons[:4] == ("legal", "action out of range", "the game is over", "that point is occupied")
    assert [name for name, _ in spec.plane_info] == ["own", "opponent", "ones"]
    assert len(spec.symmetry_names) == 8 and spec.symmetry_names[0] == "identity"
    assert spec.action_name(0) == "A1" and spec.action_name(5) == "C2" and spec.action_name(8) == "C3"
    g = make_spec(15, 5)
    assert g.num_actions == 225 and g.obs_shape == (15, 15, 3)
    assert g.action_name(cell(0, 8)) == "J1"  # GTP letters skip I
    made = zerogym.make_state("tictactoe", board_size=15, win_length=5)
    assert type(made) is TicTacToeState and made.spec.kwargs == {"board_size": 15, "win_length": 5}


def test_start_position():
    s = TicTacToeState()
    assert s.current_player == 0 and s.move_count == 0 and s.last_action == -1 and s.hash == 0
    assert list(s.legal_actions()) == list(range(9)) and not s.is_over() and s.winner == -1
    o = s.observation()
    assert o.shape == (3, 3, 3) and (o[:, :, :2] == 0).all() and (o[:, :, 2] == 1).all()


def test_observation_views():
    s = play([0, 4, 5])  # X A1, O B2, X C2
    b = s.board()
    assert b[0, 0] == 1 and b[1, 1] == 2 and b[1, 2] == 1 and (b != 0).sum() == 3
    o0, o1 = s.observation(0), s.observation(1)
    assert (o0[:, :, 0] == (b == 1)).all() and (o0[:, :, 1] == (b == 2)).all()
    assert (o1[:, :, 0] == (b == 2)).all() and (o1[:, :, 1] == (b == 1)).all()
    assert (s.observation() == o1).all() and s.current_player == 1
    assert (s.encode() == np.transpose(o1, (2, 0, 1))).all()


# ---- 3x3: every line, both players, the draw -------------------------------------------------------
@pytest.mark.parametrize("line", LINES_3x3)
def test_first_player_wins_every_line(line):
    others = [c for c in range(9) if c not in line]
    s = play([line[0], others[0], line[1], others[1]])
    assert not s.is_over()
    s.step(line[2])
    assert_won(s, 0)
    assert s.move_count == 5 and s.current_player == 1


@pytest.mark.parametrize("line", LINES_3x3)
def test_second_player_wins_every_line(line):
    others = [c for c in range(9) if c not in line]
    # X takes three cells off the line that do not make a line themselves
    xs = next(
        (a, b, c)
        for i, a in enumerate(others)
        for j, b in enumerate(others[i + 1 :], i + 1)
        for c in others[j + 1 :]
        if tuple(sorted((a, b, c))) not in LINES_3x3
    )
    s = play([xs[0], line[0], xs[1], line[1], xs[2]])
    assert not s.is_over()
    s.step(line[2])
    assert_won(s, 1)
    assert s.move_count == 6


def test_draw_3x3():
    # X O X / X O O / O X X read from row 0 (cells 0..8): no line of three for anyone
    final = np.array([[1, 2, 1], [1, 2, 2], [2, 1, 1]], dtype=np.int8)
    assert lines_of(final, 3) == set()
    s = play([0, 1, 2, 4, 3, 5, 7, 6])
    assert not s.is_over() and list(s.legal_actions()) == [8]
    s.step(8)
    assert (s.board() == final).all()
    assert s.is_terminal() and s.winner == -1 and s.returns() == (0.0, 0.0)
    assert s.legal_mask().sum() == 0


def test_win_on_the_last_cell_is_a_win():
    # X: 0 2 4 3 ... final X move 8 completes the diagonal 0-4-8 on a full board
    s = play([0, 1, 2, 5, 3, 6, 4, 7])
    assert not s.is_over()
    s.step(8)
    assert_won(s, 0)
    assert s.move_count == 9


def test_occupied_and_out_of_range():
    s = play([4])
    assert not s.is_legal(4) and s.illegal_reason(4) == "that point is occupied"
    assert s.illegal_reason(9) == "action out of range" and s.illegal_reason(-1) == "action out of range"
    before = s.to_bytes()
    with pytest.raises(IllegalMoveError) as e:
        s.step(4)
    assert "B2" in str(e.value) and "player_1" in str(e.value) and "occupied" in str(e.value)
    assert e.value.player == "player_1" and e.value.action == 4
    for bad in (9, -1, 2**40, "x", None):
        with pytest.raises(ValueError):
            s.step(bad)
    assert s.to_bytes() == before


def test_float_action_is_rejected():
    s = play([4])
    with pytest.raises(IllegalMoveError):
        s.step(1.5)


# ---- Gomoku 15x15, five in a row --------------------------------------------------------------
O_FILLER = [cell(7, 0), cell(7, 2), cell(7, 4), cell(7, 6), cell(7, 8), cell(7, 10)]  # spaced: no line


def gomoku(xs, os_=O_FILLER, k=5, n=15):
    """X plays xs in order, O answers from os_; returns the state before X's last stone."""
    moves = []
    for i, x in enumerate(xs[:-1]):
        moves += [x, os_[i]]
    return play(moves, board_size=n, win_length=k), xs[-1]


@pytest.mark.parametrize(
    "name, xs",
    [
        ("row 1 from the left edge", [cell(0, c) for c in range(5)]),
        ("row 15 to the right edge", [cell(14, c) for c in range(10, 15)]),
        ("column A from the bottom", [cell(r, 0) for r in range(5)]),
        ("column P to the top", [cell(r, 14) for r in range(10, 15)]),
        ("diagonal from corner A1", [cell(i, i) for i in range(5)]),
        ("diagonal into corner P15", [cell(14 - i, 14 - i) for i in range(5)]),
        ("anti-diagonal from corner P1", [cell(i, 14 - i) for i in range(5)]),
        ("anti-diagonal into corner A15", [cell(14 - i, i) for i in range(5)]),
    ],
)
def test_gomoku_five_at_the_border_wins_four_does_not(name, xs):
    s, last = gomoku(xs)
    assert not s.is_over(), name  # four stones on the line: not yet
    assert s.move_count == 8
    s.step(last)
    assert_won(s, 0)


def test_gomoku_six_in_a_row_wins():
    # X on A1 B1 C1, E1 F1, then D1 joins them into six
    xs = [cell(0, 0), cell(0, 1), cell(0, 2), cell(0, 4), cell(0, 5), cell(0, 3)]
    s, last = gomoku(xs)
    assert not s.is_over()
    s.step(last)
    assert_won(s, 0)
    assert (s.board()[0, :6] == 1).all()


def test_gomoku_second_player_five():
    # O builds a vertical five in column H; X scatters stones two apart on row 1
    xs = [cell(0, 0), cell(0, 2), cell(0, 4), cell(0, 6), cell(0, 8)]
    os_ = [cell(r, 7) for r in range(10, 15)]
    moves = []
    for x, o in zip(xs, os_):
        moves += [x, o]
    s = play(moves[:-1], board_size=15, win_length=5)
    assert not s.is_over()
    s.step(moves[-1])
    assert_won(s, 1)


def test_smaller_win_length_5x5_k4():
    s = play([0, 5, 1, 6, 2, 7], board_size=5, win_length=4)
    assert not s.is_over()  # X has three, O has three
    s.step(3)
    assert_won(s, 0)
    s = play([20, 0, 21, 1, 22, 2], board_size=5, win_length=4)
    s.step(24)  # X: 20 21 22 _ 24: not four
    assert not s.is_over()
    s.step(3)  # O: 0 1 2 3: four at the bottom edge
    assert_won(s, 1)


# ---- property tests over random play ------------------------------------------------------------
SIZES = [(3, 3), (4, 3), (5, 4), (6, 5), (15, 5), (2, 2), (4, 4)]


def zobrist_keys(n, k):
    """Learn each (cell, player) key from one-stone and two-stone positions (hash = XOR of keys)."""
    keys = np.zeros((n * n, 2), dtype=np.uint64)
    for c in range(n * n):
        keys[c, 0] = TicTacToeState(n, k).step(c).hash
    for c in range(n * n):
        other = 0 if c != 0 else n * n - 1
        if other == c:  # 1x1 board: no second stone fits
            continue
        s = TicTacToeState(n, k).step(other)
        if s.is_over():
            continue
        keys[c, 1] = s.step(c).hash ^ keys[other, 0]
    return keys


_KEYS = {}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.sampled_from(SIZES), data=st.data())
def test_random_play_invariants(size, data):
    n, k = size
    if size not in _KEYS:
        _KEYS[size] = zobrist_keys(n, k)
    keys = _KEYS[size]
    s = TicTacToeState(n, k)
    syms = s.symmetries()
    mirrors = [TicTacToeState(n, k) for _ in range(len(syms))]
    prev = s.board()
    while True:
        mask = s.legal_mask()
        legal = s.legal_actions()
        assert list(np.flatnonzero(mask)) == list(legal)
        b = s.board()
        for a in range(n * n):
            assert s.is_legal(a) == bool(mask[a])
            if mask[a]:
                assert s.illegal_reason(a) is None and b.flat[a] == 0
            elif s.is_over():
                assert s.illegal_reason(a) == "the game is over"
            else:
                assert s.illegal_reason(a) == "that point is occupied" and b.flat[a] != 0
        m = s.move_count
        assert (b == 1).sum() == (m + 1) // 2 and (b == 2).sum() == m // 2
        assert ((b != prev).sum()) == (1 if m else 0)  # one new stone per move, none removed
        assert (prev[prev != 0] == b[prev != 0]).all()
        prev = b
        # hash = XOR of the keys of the stones on the board
        expect = np.uint64(0)
        for c in np.flatnonzero(b.ravel()):
            expect ^= keys[c, b.flat[c] - 1]
        assert s.hash == int(expect) == s.recompute_hash()
        assert_status_matches_lines(s, k)
        assert s.is_terminal() or s.current_player == m % 2
        for j, mir in enumerate(mirrors):
            assert (syms.policy(mask, j) == mir.legal_mask()).all()
            assert (syms.observation(s.observation(), j) == mir.observation()).all()
            assert mir.is_over() == s.is_over() and mir.winner == s.winner
        p = pickle.loads(pickle.dumps(s))
        assert p == s and type(p) is TicTacToeState and p.spec.kwargs == s.spec.kwargs
        if s.is_over():
            break
        before = s.to_bytes()
        taken = list(np.flatnonzero(mask == 0))
        bad = data.draw(st.sampled_from(taken + [n * n, -1]))
        with pytest.raises(IllegalMoveError) as e:
            s.step(bad)
        assert s.spec.agents[s.current_player] in str(e.value) and f"action {bad}" in str(e.value)
        assert s.to_bytes() == before
        a = data.draw(st.sampled_from(list(legal)))
        c = s.copy()
        c.step(a)
        assert s.to_bytes() == before and c != s
        s.step(a)
        assert s == c and s.last_action == a
        for j, mir in enumerate(mirrors):
            mir.step(syms.action(a, j))
    assert s.legal_mask().sum() == 0
