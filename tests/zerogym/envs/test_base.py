"""The shared AEC base: seeding that is cheap per episode and draws exactly what gymnasium's would."""

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils import seeding

import zerogym
from zerogym.registry import GAMES


@pytest.mark.parametrize("game", sorted(GAMES))
def test_seeded_reset_draws_what_gymnasium_seeding_draws(game):
    e = zerogym.make(game)
    for seed in (0, 7, 2**40):
        e.reset(seed=seed)
        expected, _ = seeding.np_random(seed)
        assert np.array_equal(e.unwrapped.np_random.integers(10**9, size=8), expected.integers(10**9, size=8))
        for i, agent in enumerate(e.possible_agents):
            reference = spaces.Discrete(e.action_space(agent).n, seed=seed + i)
            assert [e.action_space(agent).sample() for _ in range(8)] == [reference.sample() for _ in range(8)]


def test_an_unseeded_reset_keeps_the_generator_and_a_pending_seed():
    e = zerogym.make("tictactoe")
    e.reset(seed=3)
    e.reset()  # no seed: the seed of the reset before still decides the draws
    assert e.unwrapped.np_random.integers(10**9) == seeding.np_random(3)[0].integers(10**9)
    g = e.unwrapped.np_random
    e.reset()
    assert e.unwrapped.np_random is g
    space = e.action_space("player_0")
    space.seed(5)
    e.reset()
    assert space.sample() == spaces.Discrete(space.n, seed=5).sample()


def test_a_seeded_reset_builds_no_generator_until_one_is_drawn_from():
    e = zerogym.make("connect_four").unwrapped
    e.reset(seed=11)
    assert e._np_random is None and all(e.action_space(a)._np_random is None for a in e.possible_agents)
    e.np_random.random()
    assert e._np_random is not None


def test_a_generator_can_be_assigned():
    e = zerogym.make("go", board_size=5).unwrapped
    g = np.random.default_rng(1)
    e.np_random = g
    assert e.np_random is g
    e.reset(seed=2)  # a seed replaces it
    assert e.np_random is not g
    assert e.action_space("black_0").seed(None) is not None  # an unseeded seed() still picks one
