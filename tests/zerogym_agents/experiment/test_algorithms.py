"""The registry of training algorithms."""

import pytest

from zerogym_agents.experiment import algorithms
from zerogym_agents.experiment.algorithms import ALGORITHMS, algorithm, register
from zerogym_agents.pg.config import ALGOS


def test_alphazero_and_every_policy_gradient_algorithm_are_registered():
    assert list(ALGORITHMS)[: 1 + len(ALGOS)] == ["alphazero", *ALGOS]
    assert algorithm("alphazero").defaults == {}
    for name in ALGOS:
        assert algorithm(name).defaults == {"algo": name}


def test_an_unknown_algorithm_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown training algorithm 'muzero'; known: alphazero, reinforce"):
        algorithm("muzero")


def test_a_new_algorithm_registers_by_name(monkeypatch):
    monkeypatch.setattr(algorithms, "ALGORITHMS", dict(ALGORITHMS))
    built = []
    entry = register("mine", lambda fields, folder, resume=False, log_dir=None: built.append(fields), speed=2)
    assert algorithm("mine") is entry and entry.defaults == {"speed": 2}
    entry.build({"x": 1}, "folder")
    assert built == [{"x": 1}]
