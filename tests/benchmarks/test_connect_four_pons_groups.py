"""benchmarks/connect_four_pons_groups.py: Pons' groups of solved positions and AlphaZero.jl's error rate."""

import json

import pytest

from benchmark_scripts import load_script
from zerogym_agents.agents.base import Agent, game_state
from zerogym_agents.solvers.connect_four import ConnectFourSolver, state_from_moves

script = load_script("connect_four_pons_groups")


@pytest.fixture(scope="module")
def solver():
    return ConnectFourSolver(tt_bits=18)


def test_moves_to_end_of_pons_examples(solver):
    # Pons' examples: after 4455 the first player wins with its 4th stone (move 7: 3 moves left);
    # after 44455554221 the first player wins with its 7th stone whatever is played (move 13: 2 left)
    assert solver.score(state_from_moves("4455")) == 18
    assert script.moves_to_end(4, 18) == 3
    assert solver.score(state_from_moves("44455554221")) == -15
    assert script.moves_to_end(11, -15) == 2
    assert script.moves_to_end(10, 0) == 32  # a draw fills the board


@pytest.mark.parametrize(
    "moves",
    [
        "4455",
        "44455554221",
        "163244324156543661534227741225636117777",  # a draw, the second player to move
        "54223227471556121535752331361",  # lost for the player to move
        "5621152266744742271654",
        "67265575155543244242",  # 20 moves from the end
    ],
)
def test_moves_to_end_is_the_length_of_the_perfect_game(solver, moves):
    # both sides play a move of the best score (the winner wins soonest, the loser loses latest)
    # until the game ends: the moves played are the ones moves_to_end predicts from the first score
    state = state_from_moves(moves)
    expected = script.moves_to_end(len(moves), solver.score(state))
    played = 0
    while not state.is_over():
        state.step(int(solver.best_moves(state)[0]))
        played += 1
    assert played == expected


def test_stages_and_difficulties_at_their_edges():
    assert [script.stage_of(n) for n in (0, 14, 15, 28, 29, 41)] == ["begin"] * 2 + ["middle"] * 2 + ["end"] * 2
    assert [script.difficulty_of(r) for r in (1, 14, 15, 28, 29, 42)] == ["easy"] * 2 + ["medium"] * 2 + ["hard"] * 2
    assert script.group_of(13, 0) == "begin-hard"  # 29 moves to the full board
    assert script.group_of(14, 0) == "begin-medium"
    assert script.group_of(4, 18) == "begin-easy"
    assert script.group_of(27, 0) == "middle-medium"  # 15 moves to the full board
    assert script.group_of(28, 0) == "middle-easy"
    assert script.group_of(29, 0) == "end-easy"


def test_every_running_position_falls_in_one_of_the_six_groups():
    seen = set()
    for stones in range(42):
        for score in range(-18, 19):
            try:
                seen.add(script.group_of(stones, score))
            except ValueError:  # a win the winner's stones already passed
                continue
    assert seen == set(script.GROUPS)


def test_impossible_scores_and_bad_input_are_refused():
    with pytest.raises(ValueError, match="would already have"):
        script.moves_to_end(30, 18)  # a win with the 4th stone, after 30 stones
    with pytest.raises(ValueError, match="stones must be"):
        script.moves_to_end(42, 0)
    with pytest.raises(ValueError, match="score must be"):
        script.moves_to_end(3, 19)
    with pytest.raises(ValueError, match="at least 1 move"):
        script.difficulty_of(0)


def test_error_rate_counts_lower_valued_moves_over_every_position_lost_ones_included(tmp_path):
    # move values are made up for the count; the agent plays the column given per position
    positions = [
        {"moves": "44", "value": 1, "move_values": [1, 0, -1, 1, 0, 0, 0], "play": 3},  # keeps the win
        {"moves": "4455", "value": 1, "move_values": [0, 0, 1, 0, 0, 1, 0], "play": 0},  # gives a win away: error
        {"moves": "1", "value": 0, "move_values": [-1, 0, 0, 0, 0, 0, -1], "play": 6},  # loses a draw: error
        {"moves": "12", "value": 0, "move_values": [-1, 0, 0, 0, 0, 0, -1], "play": 1},  # keeps the draw
        {"moves": "123", "value": -1, "move_values": [-1] * 7, "play": None},  # lost: never an error
    ]

    class Scripted(Agent):
        def act(self, env):
            return next(p["play"] for p in positions if state_from_moves(p["moves"]) == game_state(env))

    result = script.keeps_value(Scripted(), positions)
    assert script.error_rate(result) == (2, 5)


def test_build_then_score_agents(tmp_path):
    data = tmp_path / "groups.json"
    out = tmp_path / "groups"
    script.main(["--build", "--per-group", "2", "--begin-hard", "0", "--min-stones", "12", "--data", str(data)])
    records = json.loads(data.read_text())["positions"]
    assert len(records) == 10  # two in each group but begin-hard
    for p in records:
        state = state_from_moves(p["moves"])
        assert not state.is_over() and p["stones"] == len(p["moves"]) >= 12
        assert p["group"] == script.group_of(p["stones"], p["score"]) != "begin-hard"
        assert p["score"] == 0 or p["remaining"] >= 3  # no position won or lost with the next stone
        assert max(v for v in p["move_values"] if v is not None) == p["value"]
    script.main(["--data", str(data), "--out", str(out), "--agents", "uct:20", "net:pretrained:connect_four"])
    text = (tmp_path / "groups.md").read_text()
    assert (tmp_path / "groups.png").stat().st_size > 0
    rows = [line for line in text.splitlines() if line.startswith("| ") and "(Test_L" in line]
    assert len(rows) == 5 and all(" 2 (" in r for r in rows)


def test_a_net_spec_needs_a_saved_search_agent():
    with pytest.raises(ValueError):
        script.make_agent("net:random", seed=0)
    with pytest.raises(SystemExit):
        script.main(["--build", "--min-stones", "20"])
