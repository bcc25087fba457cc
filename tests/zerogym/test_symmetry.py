"""Symmetries: transformed move sequences give transformed observations, masks and policies."""

import numpy as np
import pytest

import zerogym
from zerogym.symmetry import Symmetries
from cases import GAME_CASES, case_id

EXPECTED_COUNT = {"go": 8, "othello": 8, "tictactoe": 8, "connect_four": 2, "hex": 2, "breakthrough": 2, "havannah": 12}


@pytest.mark.parametrize("case", GAME_CASES, ids=case_id)
def test_transformed_games_stay_transformed(case):
    game, kwargs = case
    start = zerogym.make_state(game, **kwargs)
    sym = start.symmetries()
    assert len(sym) == EXPECTED_COUNT[game]
    start_obs = start.observation()
    # transforms that fix the start position (all of them except Othello's colour-swapping four)
    usable = [k for k in range(len(sym)) if np.array_equal(sym.observation(start_obs, k), start_obs)]
    assert 0 in usable and len(usable) >= (4 if game == "othello" else len(sym))
    rng = np.random.default_rng(0)
    for k in usable:
        for _ in range(5):
            a, b = start.copy(), start.copy()
            while not a.is_over():
                assert np.array_equal(b.observation(), sym.observation(a.observation(), k))
                assert np.array_equal(b.legal_mask(), sym.policy(a.legal_mask(), k))
                assert np.array_equal(b.encode(), sym.planes(a.encode(), k))
                move = int(rng.choice(a.legal_actions()))
                a.step(move)
                b.step(sym.action(move, k))
            assert b.is_over() and b.returns() == a.returns()


@pytest.mark.parametrize("case", GAME_CASES, ids=case_id)
def test_policy_transform_is_a_permutation_with_inverse(case):
    game, kwargs = case
    sym = zerogym.make_state(game, **kwargs).symmetries()
    p = np.random.default_rng(1).random(sym.num_actions)
    for k in range(len(sym)):
        q = sym.policy(p, k)
        assert np.isclose(q.sum(), p.sum()) and sorted(q) == sorted(p)
        assert np.array_equal(sym.policy(q, sym.inverse(k)), p)
        # the probability of action a moves to the transformed action
        a = int(np.argmax(p))
        assert q[sym.action(a, k)] == p[a]


def test_dihedral_maps_on_a_known_corner():
    sym = Symmetries(("identity", "rot90", "rot180", "flip_lr", "transpose"), 3, 3, 10)
    corner = 0  # (row 0, col 0)
    # rot90 as (r, c) -> (c, N-1-r): (0, 0) -> (0, 2); rot180 -> (2, 2); flip_lr -> (0, 2); transpose fixes it
    assert [sym.action(corner, k) for k in range(5)] == [0, 2, 8, 2, 0]
    assert all(sym.action(9, k) == 9 for k in range(5))  # a non-board action (pass) is fixed


def test_columns_mirror():
    sym = Symmetries(("identity", "flip_lr"), 6, 7, 7, action_kind="columns")
    assert list(sym.action_maps[1]) == [6, 5, 4, 3, 2, 1, 0]


def test_non_square_transforms_are_refused():
    with pytest.raises(ValueError):
        Symmetries(("rot90",), 3, 4, 12)
