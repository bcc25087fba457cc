"""OpponentPool: capacity, sampling rules, Elo updates, state round trip."""

import math

import numpy as np
import pytest

from zerogym_agents.training.pool import OpponentPool, expected_score


def test_capacity_drops_the_oldest():
    pool = OpponentPool(capacity=3, seed=0)
    names = [pool.add(object()) for _ in range(5)]
    assert list(pool.entries) == names[2:]


def test_elo_rule_matches_the_formula():
    pool = OpponentPool(capacity=5, mode="elo", seed=0)
    pool.learner_elo = 100.0
    for name, elo in [("a", 100.0), ("b", 500.0), ("c", -300.0)]:
        pool.add(name, name=name, elo=elo)
    w = np.array([math.exp(-(100 - e) / 400) for e in (100.0, 500.0, -300.0)])
    assert np.allclose(pool.probabilities(), w / w.sum())
    draws = [pool.sample()[0] for _ in range(4000)]
    freq = np.array([draws.count(n) for n in "abc"]) / 4000
    assert np.allclose(freq, w / w.sum(), atol=0.03)


def test_uniform_rule():
    pool = OpponentPool(capacity=4, mode="uniform", seed=1)
    for i in range(4):
        pool.add(i, elo=100 * i)
    assert np.allclose(pool.probabilities(), 0.25)


def test_record_moves_elo_by_the_logistic_expectation():
    pool = OpponentPool(k_factor=32, seed=0)
    pool.add("s", name="s", elo=0.0)
    pool.record("s", 1.0)  # equal ratings: expected 0.5, so +16 / -16
    assert pool.learner_elo == pytest.approx(16.0) and pool.elo("s") == pytest.approx(-16.0)
    assert expected_score(200, 0) == pytest.approx(1 / (1 + 10 ** (-0.5)))
    with pytest.raises(ValueError, match="score"):
        pool.record("s", 2)


def test_empty_pool_and_bad_arguments():
    with pytest.raises(RuntimeError, match="empty"):
        OpponentPool().sample()
    with pytest.raises(ValueError, match="mode"):
        OpponentPool(mode="best")
    pool = OpponentPool()
    pool.add(1, name="x")
    with pytest.raises(ValueError, match="already"):
        pool.add(2, name="x")


def test_state_round_trip_keeps_the_draws():
    a = OpponentPool(capacity=4, seed=5)
    for i in range(3):
        a.add(f"w{i}", elo=50 * i)
    state = a.state_dict()
    b = OpponentPool()
    b.load_state_dict(state, [a.entries[n][0] for n in state["names"]])
    assert [a.sample() for _ in range(20)] == [b.sample() for _ in range(20)]
