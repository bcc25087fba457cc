"""Havannah core: hand-built positions for every winning shape (and near misses that must not win),
the swap, draws, blobs, symmetries, and property tests over random legal play against a reference
model written from the rules' definitions.

Rules (Christian Freeling's, as zerogym.havannah_v0 states them): a hexagon of side N in a D x D
grid (D = 2N-1, cell (r, c) on it when N-1 <= r + c <= 3N-3); neighbours (r-1, c), (r-1, c+1),
(r, c+1), (r+1, c), (r+1, c-1), (r, c-1); a ring (a closed chain around at least one cell, whatever
the cells inside hold), a bridge (two of the six corners) or a fork (three of the six sides,
corners excluded) wins at once; a full board without one is a draw.

Positions are drawn as the hexagon is seen: one line per row, the middle row longest, tokens
"." empty, "X" player 0, "O" player 1.  `moves_for` plays a picture's stones alternately (X
first, in reading order), keeping one X for the last move.
"""

import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from zerogym._core.havannah import HavannahState
from zerogym.errors import IllegalMoveError
from cases import peek, poke

NEIGHBOURS = ((-1, 0), (-1, 1), (0, 1), (1, 0), (1, -1), (0, -1))
OCCUPIED = "that cell is occupied"
OFF_BOARD = "that cell is not on the hexagon"
NO_SWAP = "swap is only legal as the second move of a game with swap=True"


# ---- a reference model, from the definitions ----------------------------------------------------
def on(n, r, c):
    d = 2 * n - 1
    return 0 <= r < d and 0 <= c < d and n - 1 <= r + c <= 3 * n - 3


def corners(n):
    m, e = n - 1, 2 * n - 2
    return [(0, m), (0, e), (m, e), (e, m), (e, 0), (m, 0)]


def side(n, r, c):
    """Which side (0..5) an edge cell that is no corner lies on, else None."""
    m, e = n - 1, 2 * n - 2
    if (r, c) in corners(n) or not on(n, r, c):
        return None
    for k, yes in enumerate((r == 0, c == e, r + c == 3 * m, r == e, c == 0, r + c == m)):
        if yes:
            return k
    return None


def groups_of(board):
    """Frozensets of cells, one per group of neighbouring same-coloured stones."""
    d = board.shape[0]
    seen, out = set(), set()
    for start in zip(*np.nonzero(board)):
        start = (int(start[0]), int(start[1]))
        if start in seen:
            continue
        group, todo = {start}, [start]
        while todo:
            r, c = todo.pop()
            for dr, dc in NEIGHBOURS:
                q = (r + dr, c + dc)
                if 0 <= q[0] < d and 0 <= q[1] < d and board[q] == board[start] and q not in group:
                    group.add(q)
                    todo.append(q)
        seen |= group
        out.add(frozenset(group))
    return out


def ref_shapes(board, player):
    """The set of shapes ("ring", "bridge", "fork") `player`'s stones make on `board` (D x D)."""
    d = board.shape[0]
    n = (d + 1) // 2
    v = player + 1
    cells = [(r, c) for r in range(d) for c in range(d) if on(n, r, c)]
    found = set()
    for group in groups_of(board):  # the corners and sides each group touches
        if board[next(iter(group))] != v:
            continue
        if len(group & set(corners(n))) >= 2:
            found.add("bridge")
        if len({side(n, *q) for q in group} - {None}) >= 3:
            found.add("fork")
    # a cell is enclosed when, with the player's other stones as walls, no path of neighbouring
    # cells leads from it off the hexagon: first the cells reached from outside through non-walls
    reach = set()
    todo = [q for q in cells if board[q] != v and any(not on(n, q[0] + dr, q[1] + dc) for dr, dc in NEIGHBOURS)]
    reach.update(todo)
    while todo:
        r, c = todo.pop()
        for dr, dc in NEIGHBOURS:
            q = (r + dr, c + dc)
            if on(n, *q) and board[q] != v and q not in reach:
                reach.add(q)
                todo.append(q)
    for x in cells:
        if board[x] != v:
            enclosed = x not in reach
        else:  # an own stone: walls are the others; it escapes only via its neighbours
            nbrs = [(x[0] + dr, x[1] + dc) for dr, dc in NEIGHBOURS]
            enclosed = all(on(n, *q) for q in nbrs) and not any(board[q] != v and q in reach for q in nbrs)
        if enclosed:
            found.add("ring")
            break
    return found


# ---- pictures ------------------------------------------------------------------------------------
def parse(picture):
    """(n, {(r, c): token}) of a hexagon drawn one row a line."""
    rows = [line.split() for line in picture.strip("\n").splitlines() if line.strip()]
    d = len(rows)
    n = (d + 1) // 2
    assert d == 2 * n - 1, picture
    cells = {}
    for r, tokens in enumerate(rows):
        first = max(0, n - 1 - r)
        assert len(tokens) == d - abs(r - (n - 1)), (r, tokens)
        for k, t in enumerate(tokens):
            cells[(r, first + k)] = t
    return n, cells


def moves_for(picture, last):
    """(n, actions): the X and O stones of `picture` alternately (X first, reading order), the X on
    `last` played last; X must have one stone more than O."""
    n, cells = parse(picture)
    d = 2 * n - 1
    black = [q for q, t in cells.items() if t == "X" and q != last]
    white = [q for q, t in cells.items() if t == "O"]
    assert cells[last] == "X" and len(black) == len(white), (len(black), len(white))
    order = [q for pair in zip(black, white) for q in pair] + [last]
    return n, [r * d + c for r, c in order]


def xs(picture):
    return [q for q, t in parse(picture)[1].items() if t == "X"]


def board_of(picture):
    n, cells = parse(picture)
    d = 2 * n - 1
    b = np.zeros((d, d), np.int8)
    for q, t in cells.items():
        b[q] = ".XO".index(t)
    return b


def play_to_last(picture, last, swap=False):
    """The state just before and after X's stone on `last`; asserts nothing ended before it."""
    n, actions = moves_for(picture, last)
    s = HavannahState(board_size=n, swap=swap)
    for a in actions[:-1]:
        s.step(a)
        assert not s.is_over(), (picture, last, a)
    before = s.copy()
    s.step(actions[-1])
    return before, s


def assert_won(s, winner, shapes):
    assert s.is_terminal() and s.winner == winner
    assert s.returns() == ((1.0, -1.0) if winner == 0 else (-1.0, 1.0))
    assert set(s.winning_shapes()) == set(shapes)
    assert set(s.shapes_on_board(winner)) == set(shapes) == ref_shapes(s.board(), winner)
    assert s.legal_mask().sum() == 0 and len(s.legal_actions()) == 0
    assert s.illegal_reason(s.spec.num_actions - 1) == "the game is over"
    assert s.winning_cells(1 - winner).sum() == 0


def assert_running(s):
    assert not s.is_over() and s.winner == -1 and s.returns() == (0.0, 0.0) and s.winning_shapes() == ()


def around(cells):
    """The cells next to `cells` and not in them (the ring that encloses them)."""
    return sorted({(r + dr, c + dc) for r, c in cells for dr, dc in NEIGHBOURS} - set(cells))


def fillers(n, used, count):
    """`count` cells next to none of `used` nor to each other: lone white stones, no shape."""
    out, taken = [], set(used)
    for r in range(2 * n - 1):
        for c in range(2 * n - 1):
            nbrs = [(r + dr, c + dc) for dr, dc in NEIGHBOURS]
            if len(out) < count and on(n, r, c) and not ({(r, c), *nbrs} & taken):
                out.append((r, c))
                taken.add((r, c))
    assert len(out) == count
    return out


def ring_game(n, ring, black_first, white_inside, last):
    """Actions: black's `black_first` then `ring` (`last` at the end), white's `white_inside` then
    lone fillers, alternated."""
    d = 2 * n - 1
    black = list(black_first) + [q for q in ring if q != last] + [last]
    white = list(white_inside)
    white += fillers(n, set(black) | set(white) | set(ring), len(black) - 1 - len(white))
    order = [q for pair in zip(black, white) for q in pair] + [last]
    return [r * d + c for r, c in order]


HEX7 = [(5, 5)] + [(5 + dr, 5 + dc) for dr, dc in NEIGHBOURS]
# (side, the cells the ring goes around, black stones inside, white stones inside, extra black stones)
RINGS = {
    "six around an empty cell": (5, [(4, 4)], [], [], []),
    "six around a white stone": (5, [(4, 4)], [], [(4, 4)], []),
    "six around a black stone": (5, [(4, 4)], [(4, 4)], [], []),
    "eight around two empty cells": (5, [(4, 4), (4, 5)], [], [], []),
    "eight around a black and a white stone": (5, [(4, 4), (4, 5)], [(4, 4)], [(4, 5)], []),
    "nine around three cells: black, white, empty": (6, [(5, 5), (5, 6), (4, 6)], [(5, 5)], [(5, 6)], []),
    "ten around a line of three": (6, [(5, 4), (5, 5), (5, 6)], [], [(5, 5)], []),
    "twelve around seven cells of both and empty": (6, HEX7, HEX7[1:6:2], HEX7[2:7:2], []),
    "six with a tail of three": (5, [(4, 4)], [], [], [(2, 5), (2, 6), (1, 7)]),
    "on the edge, around a cell next to it": (5, [(1, 5)], [], [], []),
    "through a corner": (5, [(1, 4)], [], [], []),
}


@pytest.mark.parametrize("name", RINGS)
def test_every_stone_that_closes_a_ring_wins(name):
    n, inside, black_inside, white_inside, tail = RINGS[name]
    d = 2 * n - 1
    ring = around(inside)
    assert all(on(n, *q) for q in ring)
    board = np.zeros((d, d), np.int8)
    for q in ring + black_inside + tail:
        board[q] = 1
    for q in white_inside:
        board[q] = 2
    assert ref_shapes(board, 0) == {"ring"}
    closers = []
    for last in ring:  # the stones whose absence leaves no ring
        b = board.copy()
        b[last] = 0
        if not ref_shapes(b, 0):
            closers.append(last)
    assert closers == ring if not black_inside else len(closers) >= 2
    for last in closers:
        s = HavannahState(board_size=n)
        actions = ring_game(n, ring, black_inside + tail, white_inside, last)
        for a in actions[:-1]:
            s.step(a)
            assert not s.is_over(), (last, a)
        before = s.copy()
        assert before.winning_cells(0)[actions[-1]] == 1 and before.winning_cells(1).sum() == 0
        s.step(actions[-1])
        assert_won(s, 0, {"ring"})
        assert set(ring) <= set(s.winning_group())


NOT_RINGS = {
    "five of six": """
        . . . . .
       . . . . . .
      . . . . . . .
     . . . X X . . .
    . . . X . X . . .
     . . . . X . . .
      . . . . . . .
       . . O O . .
        . . O O .
    """,
    "a half ring closed only by the board's edge": """
        . X . X .
       . . X X . .
      . . . . . . .
     . . . . . . . .
    . . . . . . . . .
     . . . . . . . .
      . . . . . . .
       . . . . O .
        . . O O .
    """,
    "a blob of seven without its centre's last neighbour": """
        . . . . .
       . . . . . .
      . . . . . . .
     . . . X X . . .
    . . . X X X . . .
     . . . . X . . .
      . . . . . . .
       . . O O . .
        . O O O .
    """,
    "a band two cells wide": """
        . . . . .
       . . . . . .
      . . X X X X .
     . . X X X X . .
    . . . . . . . . .
     . . . . . . . .
      . . . . . . .
       . O O O . .
        . O O O O
    """,
    "a loop open at one cell": """
        . . . . .
       . . . . . .
      . . X X X . .
     . . X . . X . .
    . . . X . X . . .
     . . . . . . . .
      . . . . . . .
       . O O O . .
        . O O O .
    """,
    "around a corner, along two sides": """
        X X . . .
       X . . . . .
      . . . . . . .
     . . . . . . . .
    . . . . . . . . .
     . . . . . . . .
      . . . . . . .
       . . . . . .
        . O O . .
    """,
}


@pytest.mark.parametrize("name", NOT_RINGS)
def test_near_loops_do_not_win(name):
    picture = NOT_RINGS[name]
    assert ref_shapes(board_of(picture), 0) == set()
    for last in xs(picture):
        _, s = play_to_last(picture, last)
        assert_running(s)
        assert s.shapes_on_board(0) == ()


def test_a_corner_surrounded_by_its_three_neighbours_is_no_ring():
    # corner (0, 4) of side 5: neighbours (0, 5), (1, 3), (1, 4); a stone on each, the corner empty
    s = HavannahState(board_size=5)
    d = 9
    for b, w in zip([(0, 5), (1, 3), (1, 4)], [(8, 1), (8, 2)]):
        s.step(b[0] * d + b[1])
        if not s.is_over() and len(s.board().nonzero()[0]) < 5:
            s.step(w[0] * d + w[1])
    assert_running(s)
    assert "ring" not in ref_shapes(s.board(), 0)


# bridges and forks: minimal chains, every stone tried last
CONNECTIONS = {
    "bridge along a side between two neighbouring corners": (
        """
        X X X X X
       . . . . . .
      . . . . . . .
     . . . . . . . .
    . . . . . . . . .
     . . . . . . . .
      . . . . . . .
       O O . . . .
        . . O O .
    """,
        {"bridge"},
    ),
    "bridge across the board, corner to opposite corner": (
        """
        . . . . .
       . . . . . .
      . . . . . . .
     . . . . . . . .
    X X X X X X X X X
     . . . . . . . .
      . . . . . . .
       O O O O . .
        O O O O .
    """,
        {"bridge"},
    ),
    "fork: three sides": (
        """
            . . X . .
           . . X . . .
          . . X . O O .
         . . X . O O . .
        . . X . . O O . .
         X X X . O O . .
          . . X O O . .
           . . X . . .
            . . X . .
    """,
        {"fork"},
    ),
    "fork through the middle, a Y": (
        """
            . O O . .
           X . . . . .
          . X . . X X X
         . . X . X O O .
        . . . X X . O O .
         . . . . X O O .
          . . . X O O .
           . . X O O .
            . X . . .
    """,
        {"fork"},
    ),
}


@pytest.mark.parametrize("name", CONNECTIONS)
def test_bridges_and_forks(name):
    picture, shapes = CONNECTIONS[name]
    assert ref_shapes(board_of(picture), 0) == shapes
    for last in xs(picture):
        before, s = play_to_last(picture, last)
        assert_running(before)
        assert_won(s, 0, shapes)


def test_corners_are_not_sides():
    # black holds corner (0, 8) (between the top and right sides) and a chain from it to the bottom
    # side: one corner and one side, no win -- were corners counted as sides it would be a fork
    n, d = 5, 9
    chain = [(k, 8 - k) for k in range(7)] + [(7, 2), (8, 1)]
    assert side(n, 0, 8) is None and side(n, 8, 1) == 3 and {side(n, *q) for q in chain[1:-1]} == {None}
    s = HavannahState(board_size=n)
    white = [(4, 0), (5, 0), (6, 0), (3, 1), (7, 0), (2, 3), (1, 4), (3, 2), (4, 1)]
    for b, w in zip(chain, white):
        s.step(b[0] * d + b[1])
        s.step(w[0] * d + w[1])
    assert_running(s)
    assert s.shapes_on_board(0) == () and ref_shapes(s.board(), 0) == set()
    # (1, 8) on the right side: two sides and a corner, still nothing; (0, 7) on the top side: a fork
    s.step(1 * d + 8)
    assert_running(s)
    s.step(6 * d + 5)
    s.step(0 * d + 7)
    assert_won(s, 0, {"fork"})


def test_corner_to_a_cell_next_to_another_corner_is_no_bridge():
    n, d = 5, 9
    s = HavannahState(board_size=n)
    chain = [(0, 4), (0, 5), (0, 6), (0, 7)]  # corner (0, 4) .. next to corner (0, 8)
    for b, w in zip(chain, [(8, 1), (8, 2), (8, 3), (7, 3)]):
        s.step(b[0] * d + b[1])
        s.step(w[0] * d + w[1])
    assert_running(s)
    s.step(1 * d + 7)  # (1, 7) touches (0, 8) but is not it
    assert_running(s)
    s.step(6 * d + 5)
    s.step(0 * d + 8)  # the corner itself: bridge
    assert_won(s, 0, {"bridge"})


def test_white_wins_too():
    n, d = 5, 9
    s = HavannahState(board_size=n)
    ring = [(3, 4), (3, 5), (4, 5), (5, 4), (5, 3), (4, 3)]
    black = [(8, 0), (8, 1), (8, 2), (7, 3), (0, 6), (1, 6)]
    for b, w in zip(black, ring):
        s.step(b[0] * d + b[1])
        assert not s.is_over()
        s.step(w[0] * d + w[1])
    assert_won(s, 1, {"ring"})


def test_one_stone_can_make_several_shapes():
    # (4, 4) completes the middle row, corner (4, 0) to corner (4, 8), and the six around black's (4, 5)
    n, d = 5, 9
    black = [(4, c) for c in range(9) if c != 4] + [(3, 5), (3, 6), (5, 5), (5, 4)]
    white = [(8, 0), (8, 1), (8, 2), (7, 3), (0, 6), (0, 7), (1, 8), (6, 0), (7, 0), (7, 1), (1, 3), (6, 5)]
    s = HavannahState(board_size=n)
    for b, w in zip(black, white):
        s.step(b[0] * d + b[1])
        s.step(w[0] * d + w[1])
    assert_running(s)
    s.step(4 * d + 4)
    assert_won(s, 0, {"ring", "bridge"})


# ---- swap, legality, draws -------------------------------------------------------------------------
def test_defaults_and_spec():
    s = HavannahState()
    assert s.spec.kwargs == {"board_size": 8, "swap": False}
    assert s.spec.agents == ("player_0", "player_1")
    assert s.num_actions == 15 * 15 + 1 and s.spec.swap_action == 225 and s.spec.pass_action == -1
    assert s.spec.obs_shape == (15, 15, 3)
    assert [name for name, _ in s.spec.plane_info] == ["own", "opponent", "on_board"]
    assert s.spec.action_name(0) == "A1" and s.spec.action_name(15) == "A2" and s.spec.action_name(225) == "swap"
    assert int(s.on_board().sum()) == 3 * 64 - 3 * 8 + 1 == len(s.legal_actions())
    assert s.hash == s.recompute_hash()


@pytest.mark.parametrize("n", range(3, 14))
def test_the_hexagon_and_its_legal_cells(n):
    s = HavannahState(board_size=n)
    d = 2 * n - 1
    expected = np.array([[on(n, r, c) for c in range(d)] for r in range(d)])
    assert np.array_equal(s.on_board(), expected)
    assert np.array_equal(s.legal_mask()[:-1].reshape(d, d).astype(bool), expected)
    off = int(np.flatnonzero(~expected.ravel())[0])
    assert s.illegal_reason(off) == OFF_BOARD and s.illegal_reason(d * d) == NO_SWAP
    obs = s.observation()
    assert np.array_equal(obs[..., 2].astype(bool), expected) and not obs[..., :2].any()


@pytest.mark.parametrize("bad", [2, 14, 0, -3, "8", 8.0, True, None])
def test_bad_board_sizes_say_what_is_allowed(bad):
    with pytest.raises(ValueError, match="havannah: board_size must be .*3..13"):
        HavannahState(board_size=bad)


def test_swap_takes_over_the_first_stone():
    s = HavannahState(board_size=4, swap=True)
    assert not s.is_legal(49)
    s.step(2 * 7 + 4)
    assert s.is_legal(49) and s.legal_mask()[49] == 1
    h = s.hash
    s.step(49)
    b = s.board()
    assert b[2, 4] == 2 and (b != 0).sum() == 1
    assert s.current_player == 0 and s.move_count == 2 and s.last_action == 49
    assert s.hash == s.recompute_hash() != h
    assert not s.is_legal(49) and s.illegal_reason(49) == NO_SWAP
    assert s.illegal_reason(2 * 7 + 4) == OCCUPIED
    s.step(3 * 7 + 3)
    assert not s.is_legal(49)
    t = HavannahState(board_size=4, swap=False)
    t.step(10)
    assert t.illegal_reason(49) == NO_SWAP


def test_after_a_swap_the_swapped_stone_counts_for_white():
    # white takes black's corner stone, then completes a bridge along the top side with it
    n, d = 4, 7
    s = HavannahState(board_size=n, swap=True)
    s.step(0 * d + 3)  # black's corner (0, 3)
    s.step(d * d)  # white swaps: the corner is white's
    black = [(6, 0), (6, 1), (5, 1)]
    white = [(0, 4), (0, 5), (0, 6)]
    for b, w in zip(black, white):
        s.step(b[0] * d + b[1])
        s.step(w[0] * d + w[1])
    assert_won(s, 1, {"bridge"})
    assert s.move_count == 8


def test_occupied_and_off_board_moves_change_nothing():
    s = HavannahState(board_size=4)
    s.step(24)
    before = s.to_bytes()
    for a, why in ((24, OCCUPIED), (0, OFF_BOARD), (48, OFF_BOARD)):
        with pytest.raises(IllegalMoveError, match=why):
            s.step(a)
    assert s.to_bytes() == before


def drawn_board(n, more, rng):
    """A full board on which neither player has a shape (by the reference), player `more` (1 or 2)
    holding the extra stone: a random colouring, improved by swapping two cells' colours while the
    number of shapes does not grow."""
    d = 2 * n - 1
    cells = [(r, c) for r in range(d) for c in range(d) if on(n, r, c)]
    colours = [more if k % 2 == 0 else 3 - more for k in range(len(cells))]
    rng.shuffle(colours)
    b = np.zeros((d, d), np.int8)
    for q, v in zip(cells, colours):
        b[q] = v

    def count(b):
        return len(ref_shapes(b, 0)) + len(ref_shapes(b, 1))

    shapes = count(b)
    while shapes:
        x, y = cells[rng.integers(len(cells))], cells[rng.integers(len(cells))]
        if b[x] != b[y]:
            b[x], b[y] = b[y], b[x]
            now = count(b)
            if now <= shapes:
                shapes = now
            else:
                b[x], b[y] = b[y], b[x]
    return b


@pytest.mark.parametrize("n,swap", [(3, False), (3, True), (4, False), (4, True), (6, False)])
def test_a_full_board_without_a_shape_is_a_draw(n, swap):
    # the stones of a drawn board in a random order: shapes only grow as stones are added, so the
    # game runs to the last cell and ends there, drawn
    rng = np.random.default_rng(n + 10 * swap)
    d = 2 * n - 1
    board = drawn_board(n, 2 if swap else 1, rng)
    black = [tuple(q) for q in rng.permutation(np.argwhere(board == 1))]
    white = [tuple(q) for q in rng.permutation(np.argwhere(board == 2))]
    s = HavannahState(board_size=n, swap=swap)
    if swap:  # black's first stone becomes white's
        s.step(white[0][0] * d + white[0][1])
        s.step(d * d)
        white = white[1:]
    order = [q for pair in zip(black, white) for q in pair] + black[len(white) :]
    assert len(order) == len(black) + len(white)
    for _k, (r, c) in enumerate(order):
        assert not s.is_over()
        s.step(r * d + c)
    assert s.is_terminal() and s.winner == -1 and s.returns() == (0.0, 0.0) and s.winning_shapes() == ()
    assert np.array_equal(s.board(), board) and s.move_count == int(s.on_board().sum()) + swap
    assert s.legal_mask().sum() == 0


# ---- property tests over random legal play ----------------------------------------------------------
def clumpy_move(s, rng, bias):
    """A legal move, with probability `bias` one next to the mover's stones (makes rings likelier)."""
    legal = s.legal_actions()
    if rng.random() < bias:
        d = s.board().shape[0]
        own = s.observation()[..., 0]
        near = [
            a
            for a in legal
            if a < d * d
            and any(
                0 <= a // d + dr < d and 0 <= a % d + dc < d and own[a // d + dr, a % d + dc] for dr, dc in NEIGHBOURS
            )
        ]
        if near:
            return int(rng.choice(near))
    return int(rng.choice(legal))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 7), swap=st.booleans(), bias=st.sampled_from([0.0, 0.6, 0.95]), seed=st.integers(0, 2**32 - 1))
def test_random_play_agrees_with_the_reference(n, swap, bias, seed):
    rng = np.random.default_rng(seed)
    s = HavannahState(board_size=n, swap=swap)
    d = 2 * n - 1
    cells = int(s.on_board().sum())
    while not s.is_over():
        mover = s.current_player
        board = s.board()
        mask = s.legal_mask()
        assert np.array_equal(mask[:-1].reshape(d, d).astype(bool), s.on_board() & (board == 0))
        assert mask[-1] == (swap and s.move_count == 1)
        for p in (0, 1):  # winning_cells: exactly the cells where the reference sees a win
            win = s.winning_cells(p)
            for a in np.flatnonzero(mask[:-1])[:: max(1, cells // 4)]:
                b = board.copy()
                b[divmod(int(a), d)] = p + 1
                assert bool(win[a]) == bool(ref_shapes(b, p)), (p, a)
        if swap and s.move_count == 1 and rng.random() < 0.5:
            a = d * d
        else:
            a = clumpy_move(s, rng, bias)
        s.step(a)
        board = s.board()
        shapes = ref_shapes(board, mover)
        assert ref_shapes(board, 1 - mover) == set()
        assert set(s.winning_shapes()) == shapes
        if shapes:
            assert s.is_terminal() and s.winner == mover
        elif (board != 0).sum() == cells:
            assert s.is_terminal() and s.winner == -1
        else:
            assert not s.is_over()
        assert s.hash == s.recompute_hash()
        roots = s.components().reshape(d, d)
        assert {frozenset(zip(*np.nonzero((roots == x) & (board != 0)))) for x in np.unique(roots[board != 0])} == {
            frozenset((int(r), int(c)) for r, c in g) for g in groups_of(board)
        }
        t = HavannahState(board_size=n, swap=swap)
        t.load_bytes(s.to_bytes())
        assert t == s


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_copies_are_independent_and_pickle(seed):
    rng = np.random.default_rng(seed)
    s = HavannahState(board_size=5, swap=True)
    for _ in range(10):
        if s.is_over():
            break
        s.step(int(rng.choice(s.legal_actions())))
    c = s.copy()
    assert pickle.loads(pickle.dumps(s)) == s == c
    if not c.is_over():
        c.step(int(c.legal_actions()[0]))
        assert c != s and c.move_count == s.move_count + 1


# ---- blobs -------------------------------------------------------------------------------------------
def refused(s, blob, field):
    before = s.to_bytes()
    with pytest.raises(ValueError, match=f"invalid havannah state blob.*{field}"):
        s.load_bytes(blob)
    assert s.to_bytes() == before


def before_a_ring():
    """(state, its moves): side 5, a ring around (4, 4) one stone short; its last move closes it."""
    actions = ring_game(5, around([(4, 4)]), [], [], (4, 3))
    s = HavannahState(board_size=5)
    for a in actions[:-1]:
        s.step(a)
    return s, actions


def test_blob_fields_must_agree_with_the_board():
    s, actions = before_a_ring()
    blob, spec = s.to_bytes(), s.spec
    refused(s, poke(blob, spec, "stones", int(peek(blob, spec, "stones")[0]) + 1), "stones")
    refused(s, poke(blob, spec, "win", 1), "win")
    refused(s, poke(blob, spec, "board", 1, 0), "board")  # a stone off the hexagon
    root = int(s.components()[3 * 9 + 4])
    refused(s, poke(blob, spec, "groups", int(peek(blob, spec, "groups")[root]) ^ 1, root), "groups")
    lone = int(np.flatnonzero(s.board().ravel() == 0)[0])
    refused(s, poke(blob, spec, "parent", root, lone), "parent")  # an empty cell linked
    refused(s, poke(blob, spec, "parent", 3 * 9 + 5, root), "parent")  # a cycle, or a group split
    s.step(actions[-1])
    won = s.to_bytes()
    assert int(peek(won, spec, "win")[0]) == 1
    refused(s, poke(won, spec, "win", 2), "win")
    refused(s, poke(won, spec, "winner", 1), "winner")
    refused(s, poke(won, spec, "status", 0), "status|winner")


def test_a_won_position_with_the_win_made_earlier_is_refused():
    # a ring on the board whose last stone is not in it: the game would have ended before
    n, actions = 5, ring_game(5, around([(4, 4)]), [], [], (4, 3))
    s = HavannahState(board_size=n)
    for a in actions:
        s.step(a)
    blob = bytearray(s.to_bytes())
    t = HavannahState(board_size=n)
    t.load_bytes(bytes(blob))
    # move a white filler and the last action elsewhere: same counts, the ring no longer the last stone's
    spec = s.spec
    fake = poke(bytes(blob), spec, "last_action", 8 * 9 + 2)
    refused(t, fake, "last_action|status")


# ---- symmetries ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 4, 8])
def test_the_twelve_symmetries_of_the_hexagon(n):
    s = HavannahState(board_size=n)
    sym = s.symmetries()
    d = 2 * n - 1
    assert len(sym) == 12 and sym.names[0] == "identity"
    assert len({tuple(m) for m in sym.cell_maps}) == 12
    onb = s.on_board().ravel()
    corner_set = {r * d + c for r, c in corners(n)}
    for k in range(12):
        m = sym.cell_maps[k]
        assert sorted(m) == list(range(d * d))
        assert np.array_equal(onb[m], onb)  # the hexagon onto itself
        assert all(m[i] == i for i in np.flatnonzero(~onb))  # the grid outside stays
        assert {int(m[q]) for q in corner_set} == corner_set
        for a in np.flatnonzero(onb):  # neighbours stay neighbours
            r, c = divmod(int(a), d)
            for dr, dc in NEIGHBOURS:
                if on(n, r + dr, c + dc):
                    r2, c2 = divmod(int(m[a]), d)
                    r3, c3 = divmod(int(m[(r + dr) * d + c + dc]), d)
                    assert (r3 - r2, c3 - c2) in NEIGHBOURS
        assert sym.action(d * d, k) == d * d
    # a turn of 60 degrees clockwise as drawn takes the top-left corner to the top-right one
    rot = sym.names.index("hexagon_rot60")
    assert sym.action((n - 1), rot) == d - 1


def test_a_transformed_ring_is_a_ring():
    n, inside, black_inside, white_inside, _ = RINGS["nine around three cells: black, white, empty"]
    actions = ring_game(n, around(inside), black_inside, white_inside, around(inside)[0])
    sym = HavannahState(board_size=n).symmetries()
    for k in range(12):
        s = HavannahState(board_size=n)
        for a in actions:
            s.step(sym.action(a, k))
        assert_won(s, 0, {"ring"})


# ---- OpenSpiel's conventions (the differential test is in test_openspiel.py) ---------------------------
def test_openspiel_layout_is_ours_mirrored_and_its_swap_takes_the_stone():
    pyspiel = pytest.importorskip("pyspiel")
    g = pyspiel.load_game("havannah", {"board_size": 4, "swap": True})
    assert g.num_distinct_actions() == 49 and g.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    s = g.new_initial_state()
    d = 7
    # OpenSpiel's cell (x, y) is action y * D + x with |x - y| < N: ours (r, c) = (y, D-1-x)
    theirs = set(s.legal_actions())
    assert theirs == {y * d + x for y in range(d) for x in range(d) if on(4, y, d - 1 - x)}
    s.apply_action(2 * d + 1)
    assert s.legal_actions().count(2 * d + 1) == 1  # the swap: the first stone's own cell
    s.apply_action(2 * d + 1)
    assert s.current_player() == 0 and "[@]" in str(s)  # the stone is player 1's now ('@')


def test_the_hexagon_transforms_need_an_odd_square_grid():
    from zerogym.symmetry import Symmetries

    for h, w in ((4, 4), (5, 7)):
        with pytest.raises(ValueError, match="hexagon's transforms need a"):
            Symmetries(("identity", "hexagon_rot60"), h, w, h * w + 1)


def test_corner_and_side_bits_off_the_roots_are_checked_too():
    s, actions = before_a_ring()
    blob, spec = s.to_bytes(), s.spec
    roots, board = s.components(), s.board().ravel()
    empty = int(np.flatnonzero(board == 0)[0])
    refused(s, poke(blob, spec, "groups", 1, empty), "groups")  # bits on an empty cell
    member = int(np.flatnonzero((board != 0) & (roots != np.arange(roots.size)))[0])
    full = int(peek(blob, spec, "groups")[roots[member]])
    missing = next(bit for bit in (1 << k for k in (*range(6), *range(8, 14))) if not full & bit)
    refused(s, poke(blob, spec, "groups", missing, member), "groups")  # more than its group touches
    t = HavannahState(board_size=5)
    t.load_bytes(poke(blob, spec, "groups", 0, member))  # a stale subset, as apply leaves
    t.step(actions[-1])
    assert t.winner == s.current_player


def test_odd_players_and_move_text_are_refused_saying_what_is_allowed():
    from zerogym.coords import format_action, parse_action

    s = HavannahState(board_size=4)
    for bad in (True, 1.0, "1", None):
        with pytest.raises(TypeError, match="player must be an int"):
            s.winning_cells(bad)
        with pytest.raises(TypeError, match="player must be an int"):
            s.shapes_on_board(bad)
    with pytest.raises(ValueError, match="0 or 1"):
        s.winning_cells(2)
    assert s.winning_cells(np.int64(1)).sum() == 0
    for text in ("D4²", "D" + "4" * 5000, "\u00b2"):
        with pytest.raises(ValueError, match="is not a move"):
            parse_action(s.spec, text)
    for bad in (3.0, True, "3"):
        with pytest.raises(TypeError, match="an action is an int"):
            format_action(s.spec, bad)
