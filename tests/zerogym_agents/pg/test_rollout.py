"""Batched episodes: masks always honoured, results and returns from the learner's view, seats respected."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import zerogym.vector
from zerogym_agents.pg.rollout import play_episodes

GAMES = [
    ("tictactoe", {}),
    ("tictactoe", {"board_size": 4, "win_length": 3}),
    ("connect_four", {"rows": 4, "cols": 5, "connect": 3}),
    ("othello", {"board_size": 4}),
    ("hex", {"board_size": 3}),
    ("go", {"board_size": 3}),
    ("go", {"board_size": 4, "max_moves": 12}),
]


def wild_policy(num_actions, seed):
    """Huge random logits that ignore legality: an illegal action often scores highest."""
    rng = np.random.default_rng(seed)
    return lambda planes: rng.normal(0.0, 1e4, (len(planes), num_actions)).astype(np.float32)


def fixed_policy(num_actions, action):
    def policy(planes):
        logits = np.zeros((len(planes), num_actions), np.float32)
        logits[:, action] = 1e6
        return logits

    return policy


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(GAMES),
    n=st.integers(1, 6),
    seed=st.integers(0, 2**31 - 1),
    learner_greedy=st.booleans(),
    opponent_greedy=st.booleans(),
)
def test_masks_are_never_violated_and_the_bookkeeping_adds_up(game, n, seed, learner_greedy, opponent_greedy):
    name, kwargs = game
    venv = zerogym.vector.make(name, n, copy=False, **kwargs)  # an illegal action would raise here
    a = venv.num_actions
    seats = np.random.default_rng(seed).integers(0, 2, n)
    ep = play_episodes(
        venv,
        wild_policy(a, seed),
        wild_policy(a, seed + 1),
        seats,
        np.random.default_rng(seed),
        learner_greedy=learner_greedy,
        opponent_greedy=opponent_greedy,
    )
    assert np.all(ep.masks[np.arange(len(ep)), ep.actions] == 1)
    assert ep.logp.shape == ep.actions.shape and np.all(np.isfinite(ep.logp)) and np.all(ep.logp <= 0)
    assert ep.planes.shape[1:] == tuple(np.roll(venv.spec.obs_shape, 1)) and ep.masks.shape == (len(ep), a)
    assert set(np.unique(ep.results)) <= {-1.0, 0.0, 1.0}
    assert np.array_equal(ep.returns, ep.results[ep.games])  # gamma = 1
    # players alternate, so the learner made ceil(L/2) moves as first player and floor(L/2) as second
    per_game = np.bincount(ep.games, minlength=n)
    assert np.array_equal(per_game, np.where(seats == 0, (ep.lengths + 1) // 2, ep.lengths // 2))
    # every recorded position is the learner's turn: it has a legal move
    assert np.all(ep.masks.sum(axis=1) >= 1)


def test_results_are_from_the_learners_seat():
    """Connect Four, columns only: the first player stacks four in its column on its 4th move."""
    venv = zerogym.vector.make("connect_four", 4, copy=False)
    seats = np.array([0, 1, 0, 1])
    ep = play_episodes(venv, fixed_policy(7, 0), fixed_policy(7, 1), seats, np.random.default_rng(0))
    assert list(ep.results) == [1.0, -1.0, 1.0, -1.0]
    assert list(ep.lengths) == [7, 7, 7, 7]
    assert np.all(ep.actions == 0) and np.allclose(ep.logp, 0.0)  # the only move it would play
    assert list(np.bincount(ep.games)) == [4, 3, 4, 3]
    first = ep.games == 0  # the learner's own stones pile up in column 0, from its view
    assert [int(p[0, :, 0].sum()) for p in ep.planes[first]] == [0, 1, 2, 3]


def test_behaviour_log_probabilities_are_those_of_the_legal_softmax():
    """Uniform logits: each recorded move had probability 1 / (number of legal moves)."""
    venv = zerogym.vector.make("tictactoe", 3, copy=False)

    def uniform(planes):
        return np.zeros((len(planes), 9), np.float32)

    ep = play_episodes(venv, uniform, uniform, np.array([0, 1, 0]), np.random.default_rng(1))
    assert np.allclose(ep.logp, -np.log(ep.masks.sum(axis=1)), atol=1e-6)


def test_returns_are_discounted_per_later_learner_move():
    venv = zerogym.vector.make("connect_four", 2, copy=False)
    ep = play_episodes(
        venv, fixed_policy(7, 0), fixed_policy(7, 1), np.array([0, 1]), np.random.default_rng(0), gamma=0.5
    )
    assert list(ep.returns[ep.games == 0]) == [0.125, 0.25, 0.5, 1.0]
    assert list(ep.returns[ep.games == 1]) == [-0.25, -0.5, -1.0]
    with pytest.raises(ValueError, match="seats"):
        play_episodes(venv, fixed_policy(7, 0), fixed_policy(7, 1), np.array([0, 2]), np.random.default_rng(0))
