"""Hex core: hand-built rule edge cases and property tests over random legal play.

Expected values come from the rules (the README's rules section): black (player 0) connects row 0 to row N-1,
white (player 1) column 0 to column N-1; neighbours of (r, c) are (r-1, c), (r-1, c+1), (r, c-1),
(r, c+1), (r+1, c-1), (r+1, c); action N*N is the swap (second move only, swap=True), which turns
black's stone at (r, c) into a white stone at (c, r).  A small BFS reference model below checks
the union-find.
"""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from zerogym._core.hex import HexState
from zerogym.errors import IllegalMoveError

from cases import assert_won as assert_line_won

NEIGHBOURS = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))
OCCUPIED = "that point is occupied"
NO_SWAP = "swap is only legal as the second move of a game with swap=True"


# ---- a reference model -----------------------------------------------------------------------
def node_groups(board):
    """BFS components of the graph over cells r*N+c and edge nodes TOP, BOTTOM, LEFT, RIGHT
    (N*N .. N*N+3): same-coloured neighbouring stones are joined, black stones on row 0 / N-1
    to TOP / BOTTOM, white stones on column 0 / N-1 to LEFT / RIGHT.  Returns a list: node -> id."""
    n = board.shape[0]
    top, bottom, left, right = n * n, n * n + 1, n * n + 2, n * n + 3
    adj = [[] for _ in range(n * n + 4)]

    def join(i, j):
        adj[i].append(j)
        adj[j].append(i)

    for r in range(n):
        for c in range(n):
            v = board[r, c]
            if not v:
                continue
            for dr, dc in NEIGHBOURS:
                if 0 <= r + dr < n and 0 <= c + dc < n and board[r + dr, c + dc] == v:
                    join(r * n + c, (r + dr) * n + c + dc)
            if v == 1 and r == 0:
                join(r * n + c, top)
            if v == 1 and r == n - 1:
                join(r * n + c, bottom)
            if v == 2 and c == 0:
                join(r * n + c, left)
            if v == 2 and c == n - 1:
                join(r * n + c, right)
    comp = [-1] * (n * n + 4)
    for s in range(n * n + 4):
        if comp[s] < 0:
            comp[s] = s
            todo = [s]
            while todo:
                x = todo.pop()
                for y in adj[x]:
                    if comp[y] < 0:
                        comp[y] = s
                        todo.append(y)
    return comp


def bfs_winners(board):
    """The set of players (0 black, 1 white) connecting their edges on `board`."""
    n = board.shape[0]
    g = node_groups(board)
    return ({0} if g[n * n] == g[n * n + 1] else set()) | ({1} if g[n * n + 2] == g[n * n + 3] else set())


def play(st_, moves, n=None):
    """Play moves given as (r, c) tuples, "swap", or ints."""
    n = st_.spec.kwargs["board_size"]
    for m in moves:
        if m == "swap":
            st_.step(n * n)
        elif isinstance(m, tuple):
            st_.step(m[0] * n + m[1])
        else:
            st_.step(m)
    return st_


def interleave(black, white):
    """Black and white move lists alternated, black first."""
    out = []
    for i in range(max(len(black), len(white))):
        if i < len(black):
            out.append(black[i])
        if i < len(white):
            out.append(white[i])
    return out


def assert_won(s, winner):
    assert_line_won(s, winner)
    with pytest.raises(IllegalMoveError, match="the game is over"):
        s.step(int(np.flatnonzero(s.board().ravel() == 0)[0]) if (s.board() == 0).any() else 0)


def assert_running(s):
    assert not s.is_over() and s.winner == -1 and s.returns() == (0.0, 0.0)


SIZES = list(range(2, 20))


# ---- construction ----------------------------------------------------------------------------
def test_defaults_and_spec():
    s = HexState()
    assert s.spec.kwargs == {"board_size": 11, "swap": True}
    assert s.spec.agents == ("black_0", "white_0")
    assert s.num_actions == 11 * 11 + 1
    assert s.spec.obs_shape == (11, 11, 4)
    assert [name for name, _ in s.spec.plane_info][-1] == "ones"
    assert s.spec.reasons[3] == OCCUPIED and s.spec.reasons[4] == NO_SWAP
    assert s.spec.action_name(0) == "A1" and s.spec.action_name(11) == "A2"
    assert s.spec.action_name(10) == "L1"  # column letters skip I
    assert s.spec.action_name(121) == "swap"
    assert s.current_player == 0 and s.move_count == 0 and s.last_action == -1
    assert s.hash == s.recompute_hash()


# ---- wins --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", SIZES)
def test_black_straight_column_wins(n):
    # black fills column 0 top to bottom; white fills column n-1 except the last row (touches only RIGHT)
    s = HexState(board_size=n, swap=False)
    moves = interleave([(r, 0) for r in range(n)], [(r, n - 1) for r in range(n - 1)])
    play(s, moves[:-1])
    assert_running(s)
    play(s, moves[-1:])
    assert_won(s, 0)
    assert s.move_count == 2 * n - 1
    assert s.winning_path() == [(r, 0) for r in range(n)]


@pytest.mark.parametrize("n", SIZES)
def test_white_straight_row_wins(n):
    # white fills the bottom row left to right; black fills row 0 (touches only TOP)
    s = HexState(board_size=n, swap=False)
    moves = interleave([(0, c) for c in range(n)], [(n - 1, c) for c in range(n)])
    play(s, moves[:-1])
    assert_running(s)
    play(s, moves[-1:])
    assert_won(s, 1)
    assert s.move_count == 2 * n
    assert s.winning_path() == [(n - 1, c) for c in range(n)]


@pytest.mark.parametrize("n", SIZES)
def test_black_zigzag_wins(n):
    # rows 0..n-1, stepping alternately straight down (r+1, c) and down-left (r+1, c-1)
    path, c = [], n - 1
    for r in range(n):
        path.append((r, c))
        if r % 2 == 1:
            c -= 1
    assert min(c for _, c in path) >= 0
    # white stays on row 0 / columns far from the path; needs n-1 cells not on the path
    free = [(r2, c2) for r2 in range(n) for c2 in range(n) if (r2, c2) not in path]
    s = HexState(board_size=n, swap=False)
    white = []
    for cell in free:  # pick white fillers that do not connect left-right
        trial = white + [cell]
        b = np.zeros((n, n), np.int8)
        for q in trial:
            b[q] = 2
        if 1 not in bfs_winners(b):
            white = trial
        if len(white) == n - 1:
            break
    assert len(white) == n - 1
    moves = interleave(path, white)
    play(s, moves[:-1])
    assert_running(s)
    play(s, moves[-1:])
    assert_won(s, 0)


@pytest.mark.parametrize("n", SIZES)
def test_white_antidiagonal_wins(n):
    # (r, n-1-r) -> (r+1, n-2-r) is the (r+1, c-1) neighbour: the anti-diagonal joins column n-1 to column 0
    s = HexState(board_size=n, swap=False)
    white = [(r, n - 1 - r) for r in range(n)]
    # black: the cells right of the anti-diagonal, taken from the last row (never reaches row 0)
    black = [(n - 1, c) for c in range(1, n)] + [(n - 2, c) for c in range(2, n)]
    black = black[:n]
    if len(black) < n:  # n = 2: one cell right of the anti-diagonal, plus (0, 0) left of it
        black.append((0, 0))
    assert 0 not in bfs_winners(_board(n, black, []))
    moves = interleave(black, white)
    play(s, moves[:-1])
    assert_running(s)
    play(s, moves[-1:])
    assert_won(s, 1)


def _board(n, black, white):
    b = np.zeros((n, n), np.int8)
    for q in black:
        b[q] = 1
    for q in white:
        b[q] = 2
    return b


@pytest.mark.parametrize("n", SIZES)
def test_main_diagonal_does_not_connect(n):
    # (r, r) and (r+1, r+1) are not neighbours: black on the whole main diagonal has not won
    s = HexState(board_size=n, swap=False)
    black = [(r, r) for r in range(n)]
    white = [(0, c) for c in range(1, n)]  # row 0 from column 1: touches RIGHT only
    play(s, interleave(black, white))
    assert_running(s)
    comp = s.components()
    roots = {comp[r * n + r] for r in range(n)}
    assert len(roots) == n  # every diagonal stone is its own group
    if n == 2:
        # on 2x2, white (1, 0) joins (0, 1) through the (r+1, c-1) neighbour: white wins
        play(s, [(1, 0)])
        assert_won(s, 1)
    else:
        # white passes on (n-1, 0); black (1, 0) neighbours both (0, 0) and (1, 1): one group of three
        play(s, [(n - 1, 0), (1, 0)])
        comp = s.components()
        assert comp[0] == comp[n] == comp[n + 1]


def test_exact_neighbour_rule():
    # a black stone at the centre of 5x5 and one stone in each of the 8 surrounding cells
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr, dc) == (0, 0):
                continue
            s = HexState(board_size=5, swap=False)
            play(s, [(2, 2), (4, 4), (2 + dr, 2 + dc)])
            comp = s.components()
            joined = comp[2 * 5 + 2] == comp[(2 + dr) * 5 + 2 + dc]
            assert joined == ((dr, dc) in NEIGHBOURS), (dr, dc)


def test_edge_nodes_only_join_the_right_colour():
    n = 4
    s = HexState(board_size=n, swap=False)
    top, bottom, left, right = n * n, n * n + 1, n * n + 2, n * n + 3
    play(s, [(0, 0), (1, 0)])  # black on row 0 and column 0; white on column 0
    comp = s.components()
    assert comp[0] == comp[top] and comp[0] != comp[left]
    assert comp[n] == comp[left] and comp[n] != comp[top]
    assert comp[bottom] != comp[top] and comp[right] != comp[left]


def test_occupied_is_illegal_and_state_unchanged():
    s = play(HexState(board_size=5, swap=False), [(2, 2)])
    before = s.to_bytes()
    assert not s.is_legal(12) and s.illegal_reason(12) == OCCUPIED
    with pytest.raises(IllegalMoveError) as e:
        s.step(12)
    msg = str(e.value)
    assert "C3" in msg and "white_0" in msg and OCCUPIED in msg
    assert e.value.player == "white_0" and e.value.action == 12
    assert s.to_bytes() == before
    for bad in (-1, 26, 10**20):
        with pytest.raises(IllegalMoveError, match="range|int"):
            s.step(bad)
        assert s.to_bytes() == before
    assert s.illegal_reason(26) == "action out of range"


# ---- swap ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,cell", [(5, (0, 3)), (5, (2, 2)), (2, (0, 0)), (2, (1, 0)), (11, (3, 7)), (19, (18, 0))])
def test_swap_moves_and_recolours_the_stone(n, cell):
    s = HexState(board_size=n, swap=True)
    assert not s.is_legal(n * n) and s.illegal_reason(n * n) == NO_SWAP  # not as the first move
    play(s, [cell])
    assert s.is_legal(n * n) and s.legal_mask()[n * n] == 1
    assert s.legal_mask().sum() == n * n - 1 + 1  # every empty cell plus the swap
    s.step(n * n)
    b = s.board()
    expected = np.zeros((n, n), np.int8)
    expected[cell[1], cell[0]] = 2  # (r, c) -> white at (c, r)
    assert np.array_equal(b, expected)
    assert s.current_player == 0 and s.move_count == 2 and s.last_action == n * n
    assert s.hash == s.recompute_hash()
    assert not s.is_legal(n * n) and s.illegal_reason(n * n) == NO_SWAP
    # the white stone's edge links were rebuilt; black's old edge link is gone
    comp = s.components()
    t = cell[1] * n + cell[0]
    top, bottom, left, right = n * n, n * n + 1, n * n + 2, n * n + 3
    assert (comp[t] == comp[left]) == (cell[0] == 0)
    assert (comp[t] == comp[right]) == (cell[0] == n - 1)
    assert comp[top] == top and comp[bottom] == bottom
    assert all(comp[i] == i for i in range(n * n) if i != t)
    # observation: black (to move) sees the white stone as the opponent's
    o = s.observation()
    assert o[cell[1], cell[0], 1] == 1 and o[:, :, 0].sum() == 0 and o[:, :, 1].sum() == 1


def test_swap_of_centre_stone_keeps_the_point():
    s = play(HexState(board_size=7), [(3, 3), "swap"])
    assert s.board()[3, 3] == 2 and (s.board() != 0).sum() == 1
    assert s.illegal_reason(3 * 7 + 3) == OCCUPIED


def test_swap_illegal_later_and_without_pie_rule():
    s = play(HexState(board_size=5, swap=False), [(1, 1)])
    assert s.illegal_reason(25) == NO_SWAP and s.legal_mask()[25] == 0
    with pytest.raises(IllegalMoveError, match="swap") as e:
        s.step(25)
    assert "white_0" in str(e.value)
    s = play(HexState(board_size=5), [(1, 1), (2, 2)])
    assert s.illegal_reason(25) == NO_SWAP
    play(s, [(3, 3)])
    assert s.illegal_reason(25) == NO_SWAP and s.legal_mask()[25] == 0


def test_swap_then_white_wins_with_the_swapped_stone():
    # 3x3: black (0, 1) -> swap -> white (1, 0); white completes row 1 left to right
    s = play(HexState(board_size=3), [(0, 1), "swap", (0, 0), (1, 1), (0, 2)])
    assert_running(s)  # black (0, 0) and (0, 2) are not joined: (0, 1) is empty again
    play(s, [(1, 2)])
    assert_won(s, 1)
    assert s.winning_path() == [(1, 0), (1, 1), (1, 2)]


def test_swap_then_black_wins():
    # 2x2: black (0, 0) -> swap -> white (0, 0); black (0, 1), white (1, 0), black (1, 1): column 1
    s = play(HexState(board_size=2), [(0, 0), "swap", (0, 1), (1, 0)])
    assert_running(s)  # white (0, 0), (1, 0) are both on column 0 only
    play(s, [(1, 1)])
    assert_won(s, 0)


def test_observation_planes():
    s = play(HexState(board_size=3, swap=False), [(0, 0), (2, 2)])
    o0, o1 = s.observation(0), s.observation(1)
    assert o0.dtype == np.int8 and o0.shape == (3, 3, 4)
    assert o0[0, 0, 0] == 1 and o0[2, 2, 1] == 1 and o0[:, :, :2].sum() == 2
    assert o1[0, 0, 1] == 1 and o1[2, 2, 0] == 1 and o1[:, :, :2].sum() == 2
    assert (o0[:, :, 2] == 1).all() and (o1[:, :, 2] == 0).all()
    assert (o0[:, :, 3] == 1).all() and (o1[:, :, 3] == 1).all()
    enc = s.encode()
    assert enc.shape == (4, 3, 3) and np.array_equal(enc, np.moveaxis(o0, 2, 0).astype(np.float32))
    assert np.array_equal(s(), o0)


# ---- property tests over random play ------------------------------------------------------------
def rot180(a, n):
    return a if a == n * n else n * n - 1 - a


def check_position(s, model_board, n):
    """Invariants of one position (see the module docstring)."""
    A = n * n + 1
    assert np.array_equal(s.board(), model_board)
    assert s.hash == s.recompute_hash()
    mask = s.legal_mask()
    acts = s.legal_actions()
    assert np.array_equal(np.flatnonzero(mask), acts)
    for a in range(A):
        assert s.is_legal(a) == bool(mask[a])
        assert (s.illegal_reason(a) is None) == bool(mask[a])
    assert not s.is_legal(-1) and not s.is_legal(A)
    comp = s.components()
    # union-find versus BFS over cells and edge nodes: the same partition (root -> BFS group and
    # BFS group -> root are both functions), and empty cells are untouched roots
    bfs = node_groups(model_board)
    root_to_bfs, bfs_to_root = {}, {}
    for i in range(n * n + 4):
        if i < n * n and model_board.flat[i] == 0:
            assert comp[i] == i
        assert root_to_bfs.setdefault(comp[i], bfs[i]) == bfs[i]
        assert bfs_to_root.setdefault(bfs[i], comp[i]) == comp[i]
    winners = bfs_winners(model_board)
    assert len(winners) <= 1
    if winners:
        assert s.is_terminal() and {s.winner} == winners
    else:
        assert not s.is_over()


game_args = st.tuples(st.integers(2, 7), st.booleans())
FAST = settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(game_args, st.data())
def test_random_play_invariants(args, data):
    n, swap = args
    s = HexState(board_size=n, swap=swap)
    model = np.zeros((n, n), np.int8)
    swapped = False
    check_position(s, model, n)
    while not s.is_over():
        acts = s.legal_actions()
        # an illegal action leaves the state unchanged and names move and player
        legal_set = set(acts.tolist())
        illegal = [a for a in range(n * n + 1) if a not in legal_set]
        if illegal:
            bad = data.draw(st.sampled_from(illegal))
            before = s.to_bytes()
            with pytest.raises(IllegalMoveError) as e:
                s.step(bad)
            assert s.spec.action_name(bad) in str(e.value)
            assert s.spec.agents[s.current_player] in str(e.value)
            assert s.to_bytes() == before
        a = int(data.draw(st.sampled_from(acts.tolist())))
        # copy independence
        c = s.copy()
        before = s.to_bytes()
        c.step(a)
        assert s.to_bytes() == before and c != s
        mover = s.current_player
        moves = s.move_count
        s.step(a)
        assert s == c and s.hash == c.hash
        assert s.current_player == 1 - mover and s.move_count == moves + 1 and s.last_action == a
        if a == n * n:
            ((r, col),) = np.argwhere(model == 1)
            model[r, col] = 0
            model[col, r] = 2
            swapped = True
        else:
            model[divmod(a, n)] = mover + 1
        # pieces: one stone per placement, the swap recolours without adding
        assert (model != 0).sum() == s.move_count - swapped
        nb, nw = (model == 1).sum(), (model == 2).sum()
        assert (nb - nw) in ((0, 1) if not swapped else (0, -1))
        check_position(s, model, n)
        # pickle round trip
        p = pickle.loads(pickle.dumps(s))
        assert p == s and p.hash == s.hash and p.to_bytes() == s.to_bytes()
        assert np.array_equal(p.legal_mask(), s.legal_mask())
    assert s.is_terminal() and s.winner in (0, 1)
    assert s.move_count <= n * n + swapped


@FAST
@given(game_args, st.data())
def test_no_draws_and_full_board_has_one_winner(args, data):
    n, swap = args
    s = HexState(board_size=n, swap=swap)
    while not s.is_over():
        s.step(int(data.draw(st.sampled_from(s.legal_actions().tolist()))))
    assert s.is_terminal() and s.winner in (0, 1) and s.returns()[s.winner] == 1.0
    path = s.winning_path()
    b = s.board()
    assert all(b[q] == s.winner + 1 for q in path)
    # fill the empty cells at random: the winning chain stays, and exactly one side connects
    for r, c in np.argwhere(b == 0):
        b[r, c] = data.draw(st.sampled_from([1, 2]))
    assert bfs_winners(b) == {s.winner}


@FAST
@given(st.integers(2, 9), st.data())
def test_full_random_boards_have_exactly_one_winner(n, data):
    # the Hex theorem, checked on the reference model used above
    b = np.array(data.draw(st.lists(st.sampled_from([1, 2]), min_size=n * n, max_size=n * n)), np.int8).reshape(n, n)
    assert len(bfs_winners(b)) == 1


@FAST
@given(game_args, st.data())
def test_rot180_symmetry_maps_masks_and_observations(args, data):
    n, swap = args
    s = HexState(board_size=n, swap=swap)
    t = HexState(board_size=n, swap=swap)
    sym = s.symmetries()
    assert sym.names == ("identity", "rot180")
    k = sym.names.index("rot180")
    assert sym.action(n * n, k) == n * n
    while not s.is_over():
        for j in range(len(sym)):
            if sym.names[j] == "identity":
                assert np.array_equal(sym.policy(s.legal_mask(), j), s.legal_mask())
        assert np.array_equal(sym.policy(s.legal_mask(), k), t.legal_mask())
        for p in (0, 1):
            assert np.array_equal(sym.observation(s.observation(p), k), t.observation(p))
        a = int(data.draw(st.sampled_from(s.legal_actions().tolist())))
        assert sym.action(a, k) == rot180(a, n)
        s.step(a)
        t.step(sym.action(a, k))
    assert t.is_terminal() and t.winner == s.winner
