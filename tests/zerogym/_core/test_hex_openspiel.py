"""Differential tests: zerogym Hex against OpenSpiel's "hex" on random games.

OpenSpiel's conventions, found from its parameters and behaviour (see the test_openspiel_*
tests below, which pin them down):
- parameters board_size (or num_rows / num_cols), swap (default False), string_rep;
- player 0 is "x", moves first and connects row 0 to the last row; player 1 "o" connects the first
  column to the last; action = row * num_cols + col; rows are drawn shifted right as they go down,
  so the neighbours of (r, c) are (r-1, c), (r-1, c+1), (r, c-1), (r, c+1), (r+1, c-1), (r+1, c);
- with swap=True it has num_cols * num_rows + 1 actions, the last one being the swap, legal only as
  the second move: it removes x at (r, c) and puts o at (c, r), and x moves next.
That is exactly zerogym's game, so actions map one to one (identity) and the comparison covers
both swap=False and swap=True.  With swap=False OpenSpiel has N*N actions where zerogym keeps
N*N + 1 (the swap action, never legal): the legal sets are still equal.
"""
import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from zerogym._core.hex import HexState  # noqa: E402


def os_game(n, swap):
    return pyspiel.load_game("hex", {"board_size": n, "swap": swap})


def os_board(state, n):
    """OpenSpiel's board as int8 (N, N): 0 empty, 1 x (player 0), 2 o (player 1)."""
    rows = [line.split() for line in str(state).splitlines() if line.strip()]
    assert len(rows) == n and all(len(r) == n for r in rows), str(state)
    code = {".": 0, "x": 1, "o": 2}
    return np.array([[code[ch] for ch in row] for row in rows], np.int8)


def test_openspiel_parameters_and_actions():
    g = os_game(5, False)
    params = g.get_parameters()
    assert params["board_size"] == 5 and params["num_rows"] == 5 and params["num_cols"] == 5
    assert params["swap"] is False
    assert g.num_distinct_actions() == 25 and os_game(5, True).num_distinct_actions() == 26
    t = g.get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    s = g.new_initial_state()
    s.apply_action(7)                      # row 1, column 2
    assert os_board(s, 5)[1, 2] == 1 and s.current_player() == 1


def test_openspiel_geometry_matches():
    # x on the anti-diagonal (uses the (r+1, c-1) neighbour) wins; on the main diagonal it does not
    g = os_game(3, False)
    s = g.new_initial_state()
    for a in (2, 0, 4, 1, 6):
        s.apply_action(a)
    assert s.is_terminal() and s.returns() == [1.0, -1.0]
    s = g.new_initial_state()
    for a in (0, 2, 4, 1, 8):
        s.apply_action(a)
    assert not s.is_terminal()
    # o connects left-right along row 1
    s = g.new_initial_state()
    for a in (0, 3, 1, 4, 8, 5):
        s.apply_action(a)
    assert s.is_terminal() and s.returns() == [-1.0, 1.0]


def test_openspiel_swap_matches():
    g = os_game(4, True)
    s = g.new_initial_state()
    s.apply_action(1 * 4 + 3)              # x at (1, 3)
    assert 16 in s.legal_actions() and s.action_to_string(1, 16) == "swap"
    s.apply_action(16)
    b = os_board(s, 4)
    assert b[3, 1] == 2 and (b != 0).sum() == 1 and s.current_player() == 0
    assert 16 not in s.legal_actions()


def compare_random_game(n, swap, rng, counts):
    g = os_game(n, swap)
    o = g.new_initial_state()
    z = HexState(board_size=n, swap=swap)
    while True:
        assert o.is_terminal() == z.is_terminal()
        assert np.array_equal(os_board(o, n), z.board())
        if o.is_terminal():
            break
        assert o.current_player() == z.current_player
        legal = sorted(o.legal_actions())
        assert legal == z.legal_actions().tolist()
        a = int(rng.choice(legal))
        if swap and z.move_count == 1 and rng.random() < 0.5:
            a = n * n                      # play the swap in half of the games
            assert a in legal
            counts[0] += 1
        o.apply_action(a)
        z.step(a)
    assert list(o.returns()) == list(z.returns())
    assert z.winner in (0, 1)
    return z.move_count


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("n", range(2, 20))   # every size zerogym allows (OpenSpiel allows more)
def test_random_games_agree(n, swap):
    rng = np.random.default_rng(1000 * n + swap)
    games = 100 if n <= 5 else 25 if n <= 11 else 6
    counts = [0]
    lengths = [compare_random_game(n, swap, rng, counts) for _ in range(games)]
    assert min(lengths) >= 2 * n - 1     # the winner has at least n stones on the board
    assert (counts[0] > 0) == swap
