"""The perfect-play yardstick: the committed position set, its checks, and the counting of kept values."""

import json
import pathlib

import numpy as np
import pytest

from zerogym.registry import make_state
from zerogym_agents.solvers._minimax import Solver as GenericSolver
from zerogym_agents.agents.base import Agent, game_state
from zerogym_agents.agents.minimax import centre_order
from zerogym_agents import SolverAgent
from zerogym_agents.solvers.connect_four import state_from_moves
from zerogym_agents.solvers.perfect_play import decisive_mistake, keeps_value, load_positions

DATA = pathlib.Path(__file__).resolve().parents[3] / "benchmarks" / "data" / "connect_four_positions.json"


@pytest.fixture(scope="module")
def positions():
    return load_positions(DATA)


def test_the_set_holds_real_game_positions_with_consistent_records(positions):
    assert len(positions) >= 300
    assert {p["value"] for p in positions} == {-1, 0, 1}
    for p in positions:
        state = state_from_moves(p["moves"])  # legal from the empty board, the game not over
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
    record = {"moves": "44", "value": 1, "move_values": [0, 0, 0, 0, 0, 0, 0]}  # best value differs
    path.write_text(json.dumps({"positions": [record]}))
    with pytest.raises(ValueError, match="position 0 needs"):
        load_positions(path)


# the first player has d1, e1 and g1; the second plays d5 instead of blocking f1 (index 9), and loses
UNBLOCKED = [3, 0, 4, 2, 3, 3, 2, 3, 6, 3, 5]


def test_the_decisive_mistake_of_a_missed_block():
    from zerogym_agents.solvers import ConnectFourSolver

    solver = ConnectFourSolver(tt_bits=18)
    assert decisive_mistake(solver, UNBLOCKED, side=1, start=2) == 9
    assert decisive_mistake(solver, UNBLOCKED, side=0, start=2) is None  # the winner gave nothing away
    with pytest.raises(ValueError, match="not over"):
        decisive_mistake(solver, UNBLOCKED[:-1], side=1)
    with pytest.raises(ValueError, match="side must be 0"):
        decisive_mistake(solver, UNBLOCKED, side=2)


def test_decisive_mistakes_agree_with_the_generic_solver(positions):
    # random play to the end from late positions of the set; every move of the loser (or of a side
    # that drew) is checked against the generic alpha-beta solver
    from zerogym_agents.solvers import ConnectFourSolver

    solver = ConnectFourSolver(tt_bits=18)
    generic = GenericSolver(make_state("connect_four"), 20, centre_order(make_state("connect_four").spec))
    rng = np.random.default_rng(0)
    seen = {"mistake": 0, "none": 0}
    for p in [p for p in positions if p["stones"] >= 30][:12]:
        for _ in range(3):
            state = state_from_moves(p["moves"])
            actions = [int(ch) - 1 for ch in p["moves"]]
            while not state.is_over():
                actions.append(int(rng.choice(state.legal_actions())))
                state.step(actions[-1])
            for side in (0, 1):
                r = 0 if state.winner < 0 else (1 if state.winner == side else -1)
                i = decisive_mistake(solver, actions, side, start=len(p["moves"]))
                worth = {
                    j: int(generic.value(state_from_moves(actions[:j])))
                    for j in range(len(p["moves"]), len(actions))
                    if j % 2 == side
                }
                if i is None:
                    assert r == 1 or all(v <= r for v in worth.values())
                    seen["none"] += 1
                else:
                    assert worth[i] > r and all(v <= r for j, v in worth.items() if j > i)
                    seen["mistake"] += 1
    assert seen["mistake"] > 0 and seen["none"] > 0
