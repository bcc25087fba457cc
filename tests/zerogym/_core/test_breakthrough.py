"""Breakthrough rules: hand-built positions (wins by the far row and by capturing every piece, moves
blocked, no straight capture, diagonal captures, the edge columns, the smallest and largest and
non-square boards), the player to move always having a move, blobs refused, the left-right mirror
of the moves, the coordinates, and property tests over random legal play against a reference
written here.  The move-by-move comparison with OpenSpiel is in test_openspiel.py."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import zerogym
from zerogym._core.breakthrough import BreakthroughState, max_moves
from zerogym.coords import format_action, parse_action
from cases import peek, poke

NO_STRAIGHT = "a straight move needs an empty cell (pieces capture only diagonally)"


def make(rows=8, cols=8):
    return BreakthroughState(rows=rows, cols=cols)


def act(cols, r, c, d):
    return (r * cols + c) * 3 + d


def position(rows, cols, pieces, to_play=0):
    """A state with `pieces` {(r, c): 1 or 2} and `to_play` to move."""
    b = np.zeros((rows, cols), np.int8)
    for (r, c), v in pieces.items():
        b[r, c] = v
    return make(rows, cols).set_position(b, to_play)


def reference_moves(board, player):
    """{action: captured?} of `player` on `board`, from the rules as written (independent of the core)."""
    rows, cols = board.shape
    own, opp, f = player + 1, 2 - player, 1 - 2 * player
    out = {}
    for r in range(rows):
        for c in range(cols):
            if board[r, c] != own or not 0 <= r + f < rows:
                continue
            for d, dc in enumerate((-1, 0, 1)):
                rr, cc = r + f, c + dc
                if not 0 <= cc < cols:
                    continue
                t = board[rr, cc]
                if (dc == 0 and t == 0) or (dc != 0 and t != own):
                    out[act(cols, r, c, d)] = t == opp
    return out


# ---- the start ------------------------------------------------------------------------------------
@pytest.mark.parametrize("rows,cols", [(4, 2), (4, 4), (5, 3), (6, 6), (8, 8), (4, 9), (12, 5), (16, 16)])
def test_the_start_has_two_full_rows_each_and_black_moves_first(rows, cols):
    s = make(rows, cols)
    b = s.board()
    assert (b[:2] == 1).all() and (b[-2:] == 2).all() and (b[2:-2] == 0).all()
    assert s.counts() == (2 * cols, 2 * cols) and s.current_player == 0 and not s.is_over()
    assert s.num_actions == rows * cols * 3 and s.spec.obs_shape == (rows, cols, 5)
    # the second row's pieces: straight ahead into an empty row, diagonals too; with 4 rows the rows
    # meet, and only the diagonal captures are left
    expect = 2 * (cols - 1) if rows == 4 else 3 * cols - 2
    assert len(s.legal_actions()) == expect
    assert set(s.legal_actions().tolist()) == set(reference_moves(b, 0))


@pytest.mark.parametrize(
    "kw,words",
    [
        ({"rows": 3}, "4..16"),
        ({"rows": 17}, "4..16"),
        ({"cols": 1}, "2..16"),
        ({"cols": 17}, "2..16"),
        ({"rows": 8.0}, "integer"),
        ({"cols": True}, "integer"),
    ],
)
def test_bad_sizes_are_refused_saying_what_is_allowed(kw, words):
    with pytest.raises(ValueError, match=words):
        zerogym.make_state("breakthrough", **kw)


# ---- the rules on hand-built positions ------------------------------------------------------------------
@pytest.mark.parametrize("player", [0, 1])
def test_reaching_the_far_row_wins_for_either_player(player):
    rows, cols = 6, 5
    near = rows - 2 if player == 0 else 1  # one row before the far row
    s = position(rows, cols, {(near, 2): player + 1, (3 if player == 0 else 2, 0): 2 - player}, player)
    s.step(act(cols, near, 2, 1))
    assert s.is_terminal() and s.winner == player and s.last_point() == (rows - 1 if player == 0 else 0, 2)
    assert s.returns() == ((1.0, -1.0) if player == 0 else (-1.0, 1.0))
    assert s.legal_mask().sum() == 0 and len(s.legal_actions()) == 0


def test_capturing_the_last_enemy_piece_wins():
    s = position(6, 6, {(1, 1): 1, (2, 2): 2, (4, 4): 1}, to_play=0)
    s.step(act(6, 1, 1, 2))  # b2 takes c3, white's only piece
    assert s.is_terminal() and s.winner == 0 and s.counts() == (2, 0)
    s = position(6, 6, {(3, 3): 2, (2, 2): 1, (5, 0): 2}, to_play=1)
    s.step(act(6, 3, 3, 0))  # white: d4 takes c3, black's only piece
    assert s.is_terminal() and s.winner == 1 and s.counts() == (0, 2)


def test_a_straight_move_is_blocked_by_any_piece_and_never_captures():
    s = position(6, 6, {(2, 2): 1, (3, 2): 2, (2, 4): 1, (3, 4): 1, (5, 0): 2})
    assert s.illegal_reason(act(6, 2, 2, 1)) == NO_STRAIGHT  # an enemy piece ahead
    assert s.illegal_reason(act(6, 2, 4, 1)) == "that cell holds one of the mover's own pieces"
    assert s.is_legal(act(6, 2, 2, 0)) and s.is_legal(act(6, 2, 2, 2))
    before = s.copy()
    with pytest.raises(zerogym.IllegalMoveError, match="c3-c .*player_0.*capture only diagonally"):
        s.step(act(6, 2, 2, 1))
    assert s == before  # nothing changed


def test_a_diagonal_move_captures_and_a_diagonal_to_an_own_piece_is_refused():
    s = position(6, 6, {(2, 2): 1, (3, 1): 2, (3, 3): 1, (5, 5): 2})
    assert s.illegal_reason(act(6, 2, 2, 2)) == "that cell holds one of the mover's own pieces"
    s.step(act(6, 2, 2, 0))  # c3 takes b4
    b = s.board()
    assert b[3, 1] == 1 and b[2, 2] == 0 and s.counts() == (2, 1) and s.current_player == 1
    assert s.hash == s.recompute_hash() and not s.is_over()


def test_the_edge_columns_have_no_move_off_the_side():
    s = position(5, 4, {(1, 0): 1, (1, 3): 1, (4, 1): 2})
    assert s.illegal_reason(act(4, 1, 0, 0)) == "that move leaves the board"
    assert s.illegal_reason(act(4, 1, 3, 2)) == "that move leaves the board"
    assert set(s.legal_actions().tolist()) == {act(4, 1, 0, 1), act(4, 1, 0, 2), act(4, 1, 3, 0), act(4, 1, 3, 1)}
    assert s.illegal_reason(act(4, 4, 1, 1)) == "no piece of the player to move on that cell"


def test_the_player_to_move_always_has_a_move():
    # every black piece is blocked straight ahead and, but for the most advanced one, diagonally by
    # its own pieces: that one still has its diagonal (why no rule for "no legal move" is needed)
    rows, cols = 6, 3
    pieces = {(1, 0): 1, (1, 2): 1, (2, 1): 1, (2, 0): 2, (2, 2): 2, (3, 1): 2}
    s = position(rows, cols, pieces)
    assert set(s.legal_actions().tolist()) == {act(3, 2, 1, 0), act(3, 2, 1, 2)} == set(reference_moves(s.board(), 0))
    # with one column a position without a move could arise, so one column is refused (as OpenSpiel does)
    with pytest.raises(ValueError, match="cols must be in 2..16"):
        make(6, 1)


def test_set_position_finishes_a_won_board_and_refuses_bad_ones():
    s = position(5, 5, {(4, 0): 1, (3, 3): 2})  # black is on its far row already
    assert s.is_terminal() and s.winner == 0
    s = position(5, 5, {(2, 2): 1}, to_play=1)  # white has no piece
    assert s.is_terminal() and s.winner == 0
    with pytest.raises(ValueError, match="both players"):
        position(5, 5, {(4, 0): 1, (0, 0): 2})
    with pytest.raises(ValueError, match="at most 10 pieces"):
        make(5, 5).set_position(np.ones((5, 5), np.int8))
    with pytest.raises(ValueError, match="shape"):
        make(5, 5).set_position(np.zeros((4, 5), np.int8))
    with pytest.raises(ValueError, match="to_play"):
        make(5, 5).set_position(np.zeros((5, 5), np.int8), to_play=2)


@pytest.mark.parametrize("rows,cols", [(4, 2), (16, 16), (4, 11), (13, 3)])
def test_random_games_at_the_extreme_and_non_square_sizes_end_with_a_winner(rows, cols):
    rng = np.random.default_rng(rows * 100 + cols)
    for _ in range(20):
        s = make(rows, cols)
        while not s.is_over():
            moves = reference_moves(s.board(), s.current_player)
            assert set(s.legal_actions().tolist()) == set(moves)
            s.step(int(rng.choice(sorted(moves))))
        b = s.board()
        w = s.winner
        assert w in (0, 1) and s.move_count <= max_moves(rows, cols)
        assert (b[rows - 1] == 1).any() or s.counts()[1] == 0 if w == 0 else (b[0] == 2).any() or s.counts()[0] == 0


# ---- observations, symmetry, coordinates ---------------------------------------------------------------
def test_the_planes_say_whose_pieces_which_row_to_reach_and_which_way():
    s = make(5, 4)
    for player in (0, 1):
        o = s.observation(player)
        assert (o[..., 0] == (s.board() == player + 1)).all() and (o[..., 1] == (s.board() == 2 - player)).all()
        goal = np.zeros((5, 4), bool)
        goal[4 if player == 0 else 0] = True
        assert (o[..., 2] == goal).all() and (o[..., 3] == (player == 0)).all() and (o[..., 4] == 1).all()


def test_the_mirror_maps_a_move_to_the_mirrored_move():
    sym = make(5, 4).symmetries()
    assert sym.names == ("identity", "flip_lr")
    for r in range(5):
        for c in range(4):
            for d in range(3):
                assert sym.action(act(4, r, c, d), 1) == act(4, r, 3 - c, 2 - d)
                assert sym.action(act(4, r, c, d), 0) == act(4, r, c, d)
    assert sym.inverse(1) == 1


def test_a_transform_that_turns_forward_moves_backward_is_refused():
    from zerogym.symmetry import Symmetries

    offsets = make().spec.move_offsets
    with pytest.raises(ValueError, match="flip_ud turns the move step"):
        Symmetries(("identity", "flip_ud"), 6, 6, 108, "cell_moves", offsets)
    with pytest.raises(ValueError, match="move_offsets"):
        Symmetries(("identity",), 6, 6, 108, "cell_moves")
    with pytest.raises(ValueError, match="fewer than 3 per cell"):
        Symmetries(("identity",), 6, 6, 100, "cell_moves", offsets)


def test_moves_are_named_from_to_and_typed_in_several_forms():
    spec = make(6, 6).spec
    s = make(6, 6)
    c2c3 = act(6, 1, 2, 1)
    assert format_action(s, c2c3) == "c2-c3" and format_action(spec, c2c3) == "c2-c"
    assert format_action(spec, c2c3, player=1) == "c2-c1" and format_action(spec, act(6, 1, 2, 2), 0) == "c2-d3"
    assert format_action(spec, act(6, 0, 0, 0)) == "a1-off" and format_action(spec, act(6, 0, 5, 2)) == "f1-off"
    for text in ("c2-c3", "c2c3", "C2C3", " c2 - c3 ", "c2-c", "c2c1", "c2:c3"):
        assert parse_action(spec, text) == c2c3
    assert parse_action(spec, "b5xc4") == act(6, 4, 1, 2) == parse_action(spec, "b5-c6")
    for a in range(spec.num_actions):
        assert parse_action(spec, format_action(spec, a)) == a
        for player in (0, 1):
            assert parse_action(spec, format_action(spec, a, player)) == a
    for bad, words in (
        ("c2-c5", "one row forward"),
        ("c2-e3", "neighbouring"),
        ("g2-g3", "off the 6x6 board"),
        ("c2-off", "edge column"),
        ("c2", "is not a move"),
        ("pass", "is not a move"),
    ):
        with pytest.raises(ValueError, match=words):
            parse_action(spec, bad)


def test_the_text_board_marks_where_the_last_move_went():
    env = zerogym.make("breakthrough", rows=5, cols=4, render_mode="ansi")
    env.reset()
    env.step(parse_action(env, "b2-c3"))
    lines = env.render().splitlines()
    assert lines[0].split() == ["a", "b", "c", "d"] and lines[1].split()[0] == "1"
    assert "[X]" in lines[3] and lines[3].split()[0] == "3"
    assert env.unwrapped.state.last_point() == (2, 2)


# ---- blobs ------------------------------------------------------------------------------------------
def test_a_blob_whose_fields_disagree_with_the_board_is_refused():
    s = make(6, 6)
    s.step(act(6, 1, 2, 1))
    blob = s.to_bytes()
    other = make(6, 6)
    other.load_bytes(blob)
    assert other == s
    bad = {
        "count": poke(blob, s.spec, "count", 11),
        "hash": poke(blob, s.spec, "hash", int(peek(blob, s.spec, "hash")[0]) ^ 1),
        "last_action": poke(blob, s.spec, "last_action", act(6, 1, 3, 1)),
        "board": poke(blob, s.spec, "board", 3, 0),
        "first": poke(blob, s.spec, "first", 2),
        "to_play": poke(blob, s.spec, "moves", 2),
    }  # the first player moved twice
    later = position(6, 6, {(2, 0): 1, (3, 5): 2}, to_play=1)  # white moves first here
    later.step(act(6, 3, 5, 0))
    make(6, 6).load_bytes(later.to_bytes())
    won = position(6, 6, {(4, 0): 1, (1, 5): 2})
    won.step(act(6, 4, 0, 1))  # black reaches row 6
    won_blob = won.to_bytes()
    for field, b in [
        *bad.items(),
        ("status", poke(poke(won_blob, s.spec, "status", 0), s.spec, "winner", -1)),
        ("winner", poke(won_blob, s.spec, "winner", 1)),
    ]:
        for state, good in ((other, blob), (make(6, 6), won_blob)):
            state.load_bytes(good)
            with pytest.raises(ValueError, match=f"invalid breakthrough state blob.*{field}"):
                state.load_bytes(b)
            assert state.to_bytes() == good


# ---- properties over random play -------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(rows=st.integers(4, 10), cols=st.integers(2, 9), seed=st.integers(0, 2**32 - 1))
def test_random_play_keeps_every_invariant(rows, cols, seed):
    rng = np.random.default_rng(seed)
    s = make(rows, cols)
    sym = s.symmetries()
    while not s.is_over():
        board, me = s.board(), s.current_player
        moves = reference_moves(board, me)
        mask = s.legal_mask()
        assert set(np.flatnonzero(mask).tolist()) == set(moves) and moves  # never without a move
        # the mirrored position's moves are the mirrored moves
        mirror = make(rows, cols).set_position(board[:, ::-1], me)
        assert (mirror.legal_mask() == sym.policy(mask, 1)).all()
        a = int(rng.choice(sorted(moves)))
        counts = s.counts()
        s.step(a)
        lost = np.array(counts) - np.array(s.counts())
        assert lost.tolist() == ([0, int(moves[a])] if me == 0 else [int(moves[a]), 0])
        assert s.hash == s.recompute_hash() and s.move_count <= max_moves(rows, cols)
        copy = make(rows, cols)
        copy.load_bytes(s.to_bytes())  # every position validates
        assert copy == s
    b = s.board()
    won = [(b[rows - 1] == 1).any() or s.counts()[1] == 0, (b[0] == 2).any() or s.counts()[0] == 0]
    assert won[s.winner] and not won[1 - s.winner] and s.winner == 1 - s.current_player


# ---- untrusted input: blobs the rules cannot reach, odd arguments -------------------------------------
def rehash(blob, spec, board, to_play):
    """`blob` with the hash of `board` with `to_play` to move (taken from a state set to it)."""
    h = make(*board.shape).set_position(board, to_play).hash
    return poke(blob, spec, "hash", h)


def test_a_finished_blob_must_have_been_won_by_its_last_move():
    # black reaches row 6 with a second black piece already there: the game was over before
    s = position(6, 6, {(4, 0): 1, (4, 3): 1, (1, 5): 2})
    s.step(act(6, 4, 0, 1))
    spec = s.spec
    make(6, 6).load_bytes(s.to_bytes())
    b = s.board()
    b[4, 3], b[5, 3] = 0, 1
    blob = poke(poke(s.to_bytes(), spec, "board", 0, 4 * 6 + 3), spec, "board", 1, 5 * 6 + 3)
    with pytest.raises(ValueError, match="invalid breakthrough state blob.*status"):
        make(6, 6).load_bytes(rehash(blob, spec, b, 1))
    # white moved last, yet black is the winner (black on its far row all along)
    s = position(6, 6, {(4, 3): 2, (2, 0): 1}, to_play=1)
    s.step(act(6, 4, 3, 1))
    blob = poke(poke(s.to_bytes(), spec, "board", 0, 2 * 6), spec, "board", 1, 5 * 6)
    b = s.board()
    b[2, 0], b[5, 0] = 0, 1
    blob = poke(poke(rehash(blob, spec, b, 0), spec, "status", 1), spec, "winner", 0)
    with pytest.raises(ValueError, match="invalid breakthrough state blob.*winner"):
        make(6, 6).load_bytes(blob)
    # white's last piece gone after a straight move, which captures nothing
    s = position(6, 6, {(1, 2): 1, (4, 4): 2})
    s.step(act(6, 1, 2, 1))
    b = s.board()
    b[4, 4] = 0
    blob = poke(poke(s.to_bytes(), spec, "board", 0, 4 * 6 + 4), spec, "count", 0, 1)
    blob = poke(poke(rehash(blob, spec, b, 1), spec, "status", 1), spec, "winner", 0)
    with pytest.raises(ValueError, match="invalid breakthrough state blob.*status"):
        make(6, 6).load_bytes(blob)


def moves_left(board):
    """Moves the pieces can still make short of their far row (black moves to higher rows)."""
    rows = board.shape[0]
    return sum(max(0, rows - 2 - r) if v == 1 else max(0, r - 1) for (r, c), v in np.ndenumerate(board) if v)


def test_a_move_counter_that_play_would_run_past_the_longest_game_is_refused():
    # before, a blob was accepted with any counter up to max_moves, and play from it then reached
    # positions that were refused; now the counter plus the moves still possible must fit
    rng = np.random.default_rng(0)
    s = make(6, 6)
    s.step(int(s.legal_actions()[0]))
    spec, limit = s.spec, max_moves(6, 6)
    top = limit - 1 - moves_left(s.board())
    top -= (top - s.move_count) % 2  # keep the parity: the same player to move
    t = make(6, 6)
    t.load_bytes(poke(s.to_bytes(), spec, "moves", top))
    while not t.is_over():
        t.step(int(rng.choice(t.legal_actions())))
        make(6, 6).load_bytes(t.to_bytes())  # every position on the way loads
    assert t.move_count <= limit
    with pytest.raises(ValueError, match="invalid breakthrough state blob.*moves"):
        make(6, 6).load_bytes(poke(s.to_bytes(), spec, "moves", top + 2))


def test_odd_arguments_are_refused_saying_what_is_allowed():
    s = make(6, 6)
    with pytest.raises(ValueError, match="no action"):
        s.move_cells(2**64)
    for bad in (1.5, "3", True, None):
        with pytest.raises(TypeError, match="action must be an int"):
            s.move_cells(bad)
    with pytest.raises(TypeError, match="player must be an int"):
        s.move_cells(3, 1.0)
    assert s.move_cells(np.int64(act(6, 1, 2, 1))) == ((1, 2), (2, 2))
    board = s.board()
    for bad in (1.0, True, "1"):
        with pytest.raises(TypeError, match="to_play must be an int"):
            make(6, 6).set_position(board, bad)
    assert make(6, 6).set_position(board, np.int8(1)).current_player == 1


def test_garbage_move_text_and_transform_arguments_are_refused():
    spec = make(6, 6).spec
    for text in ("c2-c" + "3" * 5000, "c" + "2" * 400 + "-c3", "c2²-c3", ""):
        with pytest.raises(ValueError, match="is not a move"):
            parse_action(spec, text)
    for bad in (2.0, True, "3"):
        with pytest.raises(TypeError, match="an action is an int"):
            format_action(spec, bad)
    sym = spec.symmetries
    for a, k in ((-1, 1), (spec.num_actions, 1), (0, -1), (0, len(sym))):
        with pytest.raises(ValueError, match="out of range"):
            sym.action(a, k)
    with pytest.raises(TypeError):
        sym.action(True, 1)
    for shape in ((spec.num_actions + 1,), (spec.num_actions - 1,), ()):
        with pytest.raises(ValueError, match="entries"):
            sym.policy(np.zeros(shape), 1)
