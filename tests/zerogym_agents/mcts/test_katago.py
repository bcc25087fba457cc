"""KataGo's search-side methods in BatchedMCTS (Wu, "Accelerating Self-Play Learning in Go", 2019):
forced playouts with policy target pruning, and per-tree budgets and exploration for playout cap
randomization."""

import math

import numpy as np
import pytest

import zerogym
from solved import exact_evaluator, play
from zerogym_agents.mcts.search import BatchedMCTS, uniform_evaluator


# X to move wins at 2; every other move loses or draws, so plain PUCT visits them about once
WON = [0, 3, 1, 4]


def searched(forced, seed=0, simulations=400, **kwargs):
    st = play("tictactoe", WON)
    m = BatchedMCTS(
        st,
        simulations=simulations,
        seed=seed,
        dirichlet_epsilon=0.25,
        dirichlet_alpha=0.3,
        forced_playouts=forced,
        **kwargs,
    )
    m.set_roots([st])
    m.run(exact_evaluator(st)[0])
    return m


def forced_shortfall(m):
    """How far each visited root child is below sqrt(k P sum N) with k = 2 (largest gap)."""
    counts, priors = m.visit_counts()[0], m.root_priors()[0]
    total = counts.sum()
    return max(math.sqrt(2 * priors[a] * total) - counts[a] for a in np.flatnonzero(counts))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_forced_playouts_give_every_visited_child_its_minimum(seed):
    assert forced_shortfall(searched(2.0, seed)) <= 1.0
    assert forced_shortfall(searched(0.0, seed)) > 3.0  # without them the losing moves starve


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pruning_takes_the_forced_visits_back_out(seed):
    m = searched(2.0, seed)
    counts = m.visit_counts()[0]
    plain = counts / counts.sum()
    pruned = m.pruned_policy()[0]
    assert pruned.sum() == pytest.approx(1.0, abs=1e-6)
    assert pruned[2] > plain[2] and pruned[2] > 0.95
    others = [a for a in np.flatnonzero(counts) if a != 2]
    assert pruned[others].sum() < plain[others].sum()
    kept = pruned / pruned[2] * counts[2]  # visits left to each child (the most visited keeps all)
    assert np.all(kept <= counts + 1e-3)
    assert np.all((kept < 1e-3) | (kept > 2 - 1e-3))  # a child left with one visit or none is dropped


def test_pruning_keeps_visits_that_puct_wanted():
    # an even position with an uninformative evaluator: the visits follow the priors and Q, so
    # pruning removes little
    st = zerogym.make_state("connect_four")
    m = BatchedMCTS(st, simulations=400, seed=0, dirichlet_epsilon=0.25, forced_playouts=2.0)
    m.set_roots([st])
    m.run(uniform_evaluator)
    counts = m.visit_counts()[0]
    assert np.abs(m.pruned_policy()[0] - counts / counts.sum()).sum() < 0.3


def test_without_forced_playouts_pruned_policy_is_the_visit_distribution():
    m = searched(0.0)
    counts = m.visit_counts()[0]
    np.testing.assert_allclose(m.pruned_policy()[0], counts / counts.sum(), rtol=1e-6)


def test_forced_playouts_off_leave_puct_as_it_was():
    out = []
    for kwargs in ({}, {"forced_playouts": 0.0}):
        st = play("tictactoe", [4])
        m = BatchedMCTS(st, simulations=200, seed=3, **kwargs)
        m.set_roots([st])
        p, v = m.run(uniform_evaluator)
        out.append((p.tobytes(), v.tobytes()))
    assert out[0] == out[1]


# ---- per-tree budgets and exploration (playout cap randomization) -------------------------------
def test_each_tree_gets_its_own_budget():
    st = zerogym.make_state("connect_four")
    for search in ("puct", "gumbel"):
        m = BatchedMCTS(st, num_games=3, simulations=100, seed=0, search=search)
        m.set_roots([st] * 3)
        m.run(uniform_evaluator, simulations=np.array([5, 40, 17]))
        assert m.visit_counts().sum(axis=1).tolist() == ([4, 39, 16] if search == "puct" else [5, 40, 17])
        m.run(uniform_evaluator)  # back to self.simulations
        assert m.visit_counts().sum(axis=1).tolist() == ([104, 139, 116] if search == "puct" else [105, 140, 117])


def test_cheap_trees_search_without_noise():
    st = zerogym.make_state("connect_four")
    m = BatchedMCTS(st, num_games=2, simulations=16, seed=0, dirichlet_epsilon=0.5, forced_playouts=2.0)
    m.set_roots([st] * 2)
    m.run(uniform_evaluator, explore=np.array([True, False]))
    priors = m.root_priors()
    assert not np.allclose(priors[0], 1 / 7)
    np.testing.assert_allclose(priors[1], 1 / 7, rtol=1e-6)


def test_budget_and_explore_arguments_are_checked():
    st = zerogym.make_state("tictactoe")
    m = BatchedMCTS(st, num_games=2, simulations=8, seed=0)
    m.set_roots([st] * 2)
    for bad in (np.array([1, 0]), np.array([1, 2, 3]), np.array([1.5, 2.0]), 0, True):
        with pytest.raises(ValueError, match="simulations"):
            m.run(uniform_evaluator, simulations=bad)
    for bad in (np.array([1, 0]), [True], np.array([True, False, True])):
        with pytest.raises(ValueError, match="explore"):
            m.run(uniform_evaluator, explore=bad)
    with pytest.raises(ValueError, match="forced_playouts"):
        BatchedMCTS(st, forced_playouts=-1.0)
