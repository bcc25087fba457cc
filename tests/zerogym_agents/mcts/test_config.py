"""SearchConfig is the one declaration of the search settings: AlphaZeroConfig, AlphaZeroAgent and BatchedMCTS
take the same names, with the same defaults, and refuse and accept the same values."""

import inspect
import math
from dataclasses import fields

import numpy as np
import pytest

import zerogym

from zerogym_agents.agents.search import AlphaZeroAgent
from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.core.config_io import Flag, Integer, Maybe, Number, OneOf
from zerogym_agents.mcts import BatchedMCTS, SearchConfig, uniform_evaluator
from zerogym_agents.mcts.config import SEARCH_SETTINGS


def refused(check):
    """Values `check` refuses, read from its bounds."""
    if isinstance(check, Maybe):
        return [x for x in refused(check.check) if x is not None]
    if isinstance(check, Number):
        lows = [x - 0.5 for x in (check.low,) if x is not None] + [x for x in (check.above,) if x is not None]
        highs = [x + 0.5 for x in (check.high,) if x is not None] + [x for x in (check.below,) if x is not None]
        return lows + highs + [math.nan, math.inf, "1", True]
    if isinstance(check, Integer):
        return [
            x
            for x in (None if check.low is None else check.low - 1, None if check.high is None else check.high + 1)
            if x is not None
        ] + [1.5, "2", True]
    if isinstance(check, OneOf):
        return ["mcts", None]
    if isinstance(check, Flag):
        return ["yes", 1, None]
    raise AssertionError(f"no refused values for {check!r}")


def accepted(check):
    """Values `check` accepts: its bounds themselves."""
    if isinstance(check, Maybe):
        return [None] + accepted(check.check)
    if isinstance(check, (Number, Integer)):
        ends = [x for x in (check.low, check.high) if x is not None]
        return ends or [(check.above or 0) + 1]
    if isinstance(check, OneOf):
        return list(check.options)
    return [True, False]


def takers():
    """Each way of taking search settings, as a function of keyword settings."""
    return {
        "SearchConfig": lambda **kw: SearchConfig(**kw),
        "AlphaZeroConfig": lambda **kw: AlphaZeroConfig(**kw),
        "AlphaZeroAgent": lambda **kw: AlphaZeroAgent(uniform_evaluator, **kw),
        "BatchedMCTS": lambda **kw: BatchedMCTS("tictactoe", simulations=4, **kw),
    }


def test_config_and_agent_declare_the_same_names_and_defaults():
    config = {f.name: f for f in fields(AlphaZeroConfig)}
    agent = inspect.signature(AlphaZeroAgent).parameters
    for f in fields(SearchConfig):
        assert config[f.name].metadata["check"] is f.metadata["check"], f.name  # inherited: one declaration
        assert config[f.name].default == f.default, f.name
        if f.name != "leaves_per_tree":  # the agent's one tree batches 8 leaves by default
            assert agent[f.name].default == f.default, f.name
    assert agent["leaves_per_tree"].default == 8
    assert set(SEARCH_SETTINGS) <= set(agent) and len(SEARCH_SETTINGS) >= 12


def test_the_search_reads_every_setting_it_is_given():
    puct = dict(c_puct=2.5, dirichlet_alpha=0.7, dirichlet_epsilon=0.5, fpu_reduction=-0.5, forced_playouts=1.5)
    gumbel = dict(gumbel_m=5, c_visit=40.0, c_scale=0.5)
    batching = dict(virtual_loss=2.0, leaves_per_tree=3, decisive_moves=True, solver=True, threads=2, pipeline=2)
    given = {**puct, **gumbel, **batching}
    assert set(given) | {"search"} == set(SEARCH_SETTINGS)
    m = BatchedMCTS("tictactoe", simulations=4, **given)
    assert m.settings == SearchConfig(**given)
    assert BatchedMCTS(
        "tictactoe", simulations=4, config=AlphaZeroConfig(**given), c_puct=1.0
    ).settings == SearchConfig(**{**given, "c_puct": 1.0})  # a config, then keywords over it


@pytest.mark.parametrize("name", SEARCH_SETTINGS)
def test_every_taker_refuses_and_accepts_the_same_values(name):
    check = SearchConfig.__dataclass_fields__[name].metadata["check"]
    for value in refused(check):
        for _who, take in takers().items():
            with pytest.raises(ValueError, match=name):
                take(**{name: value})
    for value in accepted(check):
        for _who, take in takers().items():
            take(**{name: value})


def test_the_uniform_evaluator_spreads_the_prior_over_the_legal_actions():
    masks = np.array([[1, 1, 0, 1], [0, 0, 0, 0], [0, 1, 0, 0]], np.int8)
    priors, values = uniform_evaluator(np.zeros((3, 2, 2, 2), np.float32), masks)
    assert np.array_equal(priors, masks) and priors.dtype == np.float32  # equal weights where legal
    assert np.array_equal(values, np.zeros(3, np.float32))
    m = BatchedMCTS("tictactoe", simulations=1, dirichlet_epsilon=0.0, seed=0)
    m.set_roots([zerogym.make_state("tictactoe")])
    m.run(uniform_evaluator)
    assert np.allclose(m.root_priors()[0], np.full(9, 1 / 9))  # the search renormalises them


def test_a_setting_changed_on_a_search_is_checked_as_the_config_checks_it():
    m = BatchedMCTS("tictactoe", simulations=4)
    with pytest.raises(ValueError, match=r"SearchConfig.c_puct must be a number >= 0, got -1"):
        m.c_puct = -1
    assert m.c_puct == 1.5
    m.fpu_reduction = -2
    assert m.settings.fpu_reduction == -2.0


def test_gumbel_and_forced_playouts_are_refused_together_everywhere():
    for take in takers().values():
        with pytest.raises(ValueError, match="forced_playouts is for search='puct'"):
            take(search="gumbel", forced_playouts=2.0)
