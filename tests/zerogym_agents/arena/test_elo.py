"""Elo by maximum likelihood: closed-form cases, score equations, intervals, the prior, anchoring."""

import math

import numpy as np
import pytest

from zerogym_agents.arena import fit_elo

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal
K = math.log(10) / 400


def games(a, b, wins, draws, losses):
    return [(a, b, 1.0)] * wins + [(a, b, 0.5)] * draws + [(a, b, 0.0)] * losses


@pytest.mark.parametrize("wins, draws, losses", [(70, 0, 30), (60, 20, 20), (3, 0, 1), (50, 0, 50)])
def test_two_players_give_the_logistic_difference(wins, draws, losses):
    n = wins + draws + losses
    p = (wins + draws / 2) / n
    e = fit_elo(games("a", "b", wins, draws, losses), prior_sd=None, anchor="b")
    assert e.rating("b") == 0
    assert e.rating("a") == pytest.approx(400 * math.log10(p / (1 - p)), abs=1e-7)
    # Fisher information of the difference: n p (1 - p) (ln 10 / 400)^2 (delta method, by hand)
    assert e.halfwidth[0] == pytest.approx(Z95 / (K * math.sqrt(n * p * (1 - p))), rel=1e-9)
    assert e.halfwidth[1] == 0  # the anchor is exact by definition


def test_mean_anchor_is_symmetric():
    e = fit_elo(games("a", "b", 30, 0, 10), prior_sd=None)
    d = 400 * math.log10(3)
    assert e.rating("a") == pytest.approx(d / 2) and e.rating("b") == pytest.approx(-d / 2)
    assert e.halfwidth[0] == pytest.approx(e.halfwidth[1])


def test_transitive_chain_fitting_the_model_exactly():
    # a beats b 3:1 and b beats c 3:1 -> 400 log10(3) each; then a against c should score 9:1,
    # since 1 / (1 + 10**(-2 * log10(3))) = 9/10; with those counts the MLE is exactly that chain
    outcomes = games("a", "b", 30, 0, 10) + games("b", "c", 30, 0, 10) + games("a", "c", 36, 0, 4)
    e = fit_elo(outcomes, prior_sd=None, anchor="c")
    d = 400 * math.log10(3)
    assert e.rating("b") == pytest.approx(d, abs=1e-6)
    assert e.rating("a") == pytest.approx(2 * d, abs=1e-6)
    assert e.order() == [0, 1, 2]


def test_score_equations_hold_at_the_optimum():
    # at the plain MLE each agent's expected total score equals its actual score
    rng = np.random.default_rng(0)
    names = ["a", "b", "c", "d"]
    outcomes = []
    for i in range(4):
        for j in range(i + 1, 4):
            for _ in range(int(rng.integers(5, 15))):
                outcomes.append((names[i], names[j], float(rng.choice([0.0, 0.5, 1.0], p=[0.3, 0.2, 0.5]))))
    e = fit_elo(outcomes, prior_sd=None)
    for x in names:
        actual = sum(s if a == x else 1 - s for a, b, s in outcomes if x in (a, b))
        expected = 0.0
        for a, b, _ in outcomes:
            if x in (a, b):
                other = b if a == x else a
                expected += 1 / (1 + 10 ** (-(e.rating(x) - e.rating(other)) / 400))
        assert expected == pytest.approx(actual, abs=1e-8)
    assert sum(e.ratings) == pytest.approx(0, abs=1e-9)


def test_symmetric_results_give_equal_ratings():
    cycle = games("a", "b", 6, 0, 4) + games("b", "c", 6, 0, 4) + games("c", "a", 6, 0, 4)
    e = fit_elo(cycle, prior_sd=None)
    assert np.allclose(e.ratings, 0, atol=1e-9)
    draws = games("a", "b", 0, 10, 0) + games("b", "c", 0, 10, 0)
    e = fit_elo(draws)
    assert np.allclose(e.ratings, 0, atol=1e-9)


def test_intervals_shrink_as_games_grow():
    base = games("a", "b", 7, 2, 3) + games("b", "c", 5, 3, 4) + games("a", "c", 8, 1, 3)
    small = fit_elo(base, prior_sd=None)
    big = fit_elo(base * 4, prior_sd=None)
    assert np.allclose(big.ratings, small.ratings)  # same proportions, same MLE
    assert np.allclose(big.halfwidth, small.halfwidth / 2)  # Fisher information scales with the games
    with_prior = [fit_elo(base * k).halfwidth for k in (1, 4, 16)]
    assert np.all(with_prior[1] < with_prior[0]) and np.all(with_prior[2] < with_prior[1])


def test_a_perfect_score_stays_finite_with_the_prior():
    outcomes = games("a", "b", 10, 0, 0) + games("b", "c", 5, 0, 5)
    with pytest.raises(ValueError, match="prior"):
        fit_elo(outcomes, prior_sd=None)
    e = fit_elo(outcomes)
    assert np.all(np.isfinite(e.ratings)) and np.all(np.isfinite(e.halfwidth))
    assert e.rating("a") > e.rating("b") + 200 and e.order()[0] == 0
    more = fit_elo(games("a", "b", 40, 0, 0) + games("b", "c", 20, 0, 20))
    assert more.rating("a") - more.rating("b") > e.rating("a") - e.rating("b")
    # a stronger prior pulls harder
    tight = fit_elo(outcomes, prior_sd=100)
    assert tight.rating("a") - tight.rating("b") < e.rating("a") - e.rating("b")


def test_the_prior_barely_moves_well_sampled_ratings():
    outcomes = games("a", "b", 700, 0, 300)
    plain = fit_elo(outcomes, prior_sd=None)
    weak = fit_elo(outcomes)
    assert abs(plain.rating("a") - weak.rating("a")) < 0.5


def test_anchoring_shifts_only():
    outcomes = games("a", "b", 7, 2, 3) + games("b", "c", 5, 3, 4) + games("a", "c", 8, 1, 3)
    mean = fit_elo(outcomes)
    named = fit_elo(outcomes, anchor="b")
    assert named.rating("b") == 0
    assert np.allclose(named.ratings - mean.ratings, -mean.rating("b"))
    # the uncertainty of a difference does not depend on the anchor
    for cov in (mean.covariance, named.covariance):
        assert cov[0, 0] + cov[2, 2] - 2 * cov[0, 2] == pytest.approx(
            named.covariance[0, 0] + named.covariance[2, 2] - 2 * named.covariance[0, 2]
        )


def test_bad_input():
    with pytest.raises(ValueError, match="anchor"):
        fit_elo(games("a", "b", 1, 0, 1), anchor="z")
    with pytest.raises(ValueError, match="score"):
        fit_elo([("a", "b", 2.0)])
    with pytest.raises(ValueError, match="itself"):
        fit_elo([("a", "a", 1.0)])
    with pytest.raises(ValueError, match="prior_sd"):
        fit_elo(games("a", "b", 1, 0, 1), prior_sd=0)
    with pytest.raises(ValueError, match="at least two"):
        fit_elo([])
    with pytest.raises(ValueError, match="never met|prior"):
        fit_elo(games("a", "b", 2, 0, 2) + games("c", "d", 2, 0, 2), prior_sd=None)
