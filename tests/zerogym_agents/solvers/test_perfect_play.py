"""The perfect-play yardstick: the committed position set, its checks, and the counting of kept values."""
import json
import pathlib

import numpy as np
import pytest

from zerogym.registry import make_state
from zerogym_agents._minimax import Solver as GenericSolver
from zerogym_agents.base import Agent, game_state
from zerogym_agents.minimax import centre_order
from zerogym_agents.solvers import SolverAgent
from zerogym_agents.solvers.connect_four import state_from_moves
from zerogym_agents.solvers.perfect_play import keeps_value, load_positions

DATA = pathlib.Path(__file__).resolve().parents[3] / "benchmarks" / "data" / "connect_four_positions.json"


@pytest.fixture(scope="module")
def positions():
    return load_positions(DATA)


def test_the_set_holds_real_game_positions_with_consistent_records(positions):
    assert len(positions) >= 300
    assert {p["value"] for p in positions} == {-1, 0, 1}
    for p in positions:
        state = state_from_moves(p["moves"])           # legal from the empty board, the game not over
        assert not state.is_over() and p["stones"] == len(p["moves"]) and p["to_move"] == state.current_player
        assert [v is None for v in p["move_values"]] == [not m for m in state.legal_mask()]
        if p["move_scores"] is not None:
            assert [np.sign(s) if s is not None else None for s in p["move_scores"]] == p["move_values"]


def test_late_positions_of_the_set_agree_with_the_generic_alpha_beta_solver(positions):
    late = [p for p in positions if p["stones"] >= 30][:25]
    assert len(late) >= 10
    state0 = make_state("connect_four")
    generic = GenericSolver(state0, 20, centre_order(state0.spec))
    for p in late:
        values = generic.action_values(state_from_moves(p["moves"]))
        assert [None if v == -2 else int(v) for v in values] == p["move_values"]


def test_the_solver_keeps_every_value_and_the_worst_mover_only_the_trivial_ones(positions):
    sample = [p for p in positions if p["stones"] >= 18 and p["value"] >= 0][:40]
    assert any(p["value"] == 0 for p in sample) and any(p["value"] == 1 for p in sample)
    perfect = keeps_value(SolverAgent(seed=0, tt_bits=18, weak=True), sample)
    for key in ("won", "drawn"):
        assert perfect[key]["kept"] == perfect[key]["n"] > 0
        assert perfect[key]["kept_critical"] == perfect[key]["critical"]

    class Worst(Agent):
        def act(self, env):
            record = next(p for p in sample if state_from_moves(p["moves"]) == game_state(env))
            return min((v, c) for c, v in enumerate(record["move_values"]) if v is not None)[1]

    worst = keeps_value(Worst(), sample)
    for key in ("won", "drawn"):
        assert worst[key]["kept"] == worst[key]["n"] - worst[key]["critical"]
        assert worst[key]["kept_critical"] == 0
    assert perfect["lost"] == worst["lost"] == 0


def test_malformed_sets_are_refused_with_what_a_position_needs(tmp_path):
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"positions": []}))
    with pytest.raises(ValueError, match="non-empty list 'positions'"):
        load_positions(path)
    record = {"moves": "44", "value": 1, "move_values": [0, 0, 0, 0, 0, 0, 0]}     # best value differs
    path.write_text(json.dumps({"positions": [record]}))
    with pytest.raises(ValueError, match="position 0 needs"):
        load_positions(path)
