"""Compiled UCT with random rollouts: tactics, seeds, counts, limits."""

import numpy as np
import pytest

import zerogym
from zerogym_agents.mcts._uct import UCTCore


def play(game, moves, **kwargs):
    st = zerogym.make_state(game, **kwargs)
    for a in moves:
        st.step(a)
    return st


def uct(st, simulations, seed=0, c=1.4, capacity=None):
    core = UCTCore(st.spec, capacity or simulations * st.num_actions + 1)
    visits = np.zeros(st.num_actions, np.int64)
    action, value = core.search(st, simulations, c, seed, visits)
    return action, value, visits, core


# (game, moves, the only good move): wins and blocks for both colours
TACTICS = [
    ("tictactoe", [0, 3, 1, 4], 2),
    ("tictactoe", [0, 3, 1, 4, 8], 5),
    ("tictactoe", [0, 4, 1], 2),
    ("tictactoe", [4, 0, 8, 6], 3),
    ("connect_four", [0, 0, 1, 1, 2, 2], 3),
    ("connect_four", [6, 0, 6, 1, 5, 2, 5], 3),
    ("connect_four", [0, 6, 1, 6, 2], 3),
    ("connect_four", [3, 0, 3, 6, 3], 3),
]


@pytest.mark.parametrize("game,moves,good", TACTICS)
def test_finds_wins_and_blocks(game, moves, good):
    action, _, visits, _ = uct(play(game, moves), 3000)
    assert action == good and visits.argmax() == good


def test_visit_counts_add_up_and_follow_legality():
    st = play("connect_four", [3, 3, 3, 3, 3, 3])  # column 3 full
    action, _, visits, core = uct(st, 500)
    # the first simulation rolls out from the root itself; every later one passes a root child
    assert visits.sum() == 499
    assert visits[3] == 0 and (visits[[0, 1, 2, 4, 5, 6]] > 0).all()
    assert core.tree_size() <= 1 + 500 * 7


def test_same_seed_same_search():
    st = zerogym.make_state("go", board_size=5)
    a1, v1, n1, _ = uct(st, 300, seed=9)
    a2, v2, n2, _ = uct(st, 300, seed=9)
    a3, v3, n3, _ = uct(st, 300, seed=10)
    assert (a1, v1) == (a2, v2) and np.array_equal(n1, n2)
    assert not np.array_equal(n1, n3)


def test_children_are_tried_in_uniform_random_order():
    # simulation 1 rolls out from the root; simulation 2 takes the first child of the root's random
    # child order, which over seeds must be uniform over the legal moves
    st = play("tictactoe", [4])
    firsts = []
    for seed in range(900):
        _, _, visits, _ = uct(st, 2, seed=seed)
        firsts.append(int(visits.argmax()))
    counts = np.bincount(firsts, minlength=9)
    assert counts[4] == 0
    np.testing.assert_allclose(counts[[0, 1, 2, 3, 5, 6, 7, 8]] / 900, 1 / 8, atol=0.04)


def test_every_game_runs_to_the_end():
    for game, kw in [
        ("go", {"board_size": 5}),
        ("othello", {"board_size": 6}),
        ("hex", {"board_size": 5}),
        ("connect_four", {}),
        ("tictactoe", {"board_size": 7, "win_length": 4}),
    ]:
        st = zerogym.make_state(game, **kw)
        action, value, visits, _ = uct(st, 200, seed=1)
        assert st.is_legal(action) and -1.0 <= value <= 1.0 and visits.sum() == 199


def test_full_tree_still_searches():
    st = zerogym.make_state("connect_four")
    action, _, visits, core = uct(st, 400, capacity=20)
    assert core.tree_size() <= 20 and core.full_events > 0
    assert visits.sum() == 399 and st.is_legal(action)


def test_errors():
    st = play("tictactoe", [0, 3, 1, 4, 2])
    core = UCTCore(st.spec, 100)
    with pytest.raises(ValueError, match="game is over"):
        core.search(st, 10, 1.4, 0, np.zeros(9, np.int64))
    with pytest.raises(ValueError, match="does not fit"):
        core.search(zerogym.make_state("connect_four"), 10, 1.4, 0, np.zeros(7, np.int64))
