"""benchmarks/resign_calibration.py: the agent's values replayed over saved games, and the games each
threshold would resign."""

import json

import pytest

from benchmark_scripts import load_script


def test_resign_move_needs_moves_in_a_row():
    script = load_script("resign_calibration")
    values = [-0.5, -0.95, -0.2, -0.95, -0.99, -0.97]
    assert script.resign_move(values, -0.9, 2) == 4
    assert script.resign_move(values, -0.9, 3) == 5
    assert script.resign_move(values, -0.9, 4) is None
    assert script.resign_move(values, 0.0, 1) == 0


def test_table_counts_the_resigned_games_by_result():
    script = load_script("resign_calibration")
    records = [
        {"winner": 0, "a_moved_first": True},
        {"winner": 0, "a_moved_first": False},
        {"winner": 1, "a_moved_first": False},
        {"winner": -1, "a_moved_first": True},
    ]
    values = [[0.2, -0.95, -0.95], [-0.5, -0.99, -0.99, 0.1], [0.5, -0.6, 0.9], [-0.95, -0.95]]
    # results: won, lost (B won with A second), won, drawn
    lines = script.table(records, values, [-0.9, -0.5], 2)
    assert lines[2] == "| -0.90 | 1 of 2 | 1 of 1 | 1 of 1 | 25% |"  # lost game resigned at move 2 of 4
    assert lines[3] == "| -0.50 | 1 of 2 | 1 of 1 | 1 of 1 | 25% |"


def test_replayed_values_are_the_ones_seen_in_play(tmp_path, monkeypatch):
    from zerogym_agents.arena.match import play_match
    from zerogym_agents.agents.base import RandomAgent
    from zerogym_agents.agents.saved import load_agent

    script = load_script("resign_calibration")
    monkeypatch.setattr(script, "HERE", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    agent = load_agent("pretrained:tictactoe", seed=0, simulations=16)
    seen, act = [], agent.act

    def act_and_note(env):
        action = act(env)
        seen.append(agent.last_value)
        return action

    agent.act = act_and_note
    result = play_match(agent, RandomAgent(1), "tictactoe", games=4, seed=3)
    games = tmp_path / "games.jsonl"
    games.write_text("".join(json.dumps(r) + "\n" for r in result.records))
    script.main(
        [
            "--games",
            str(games),
            "--agent",
            "pretrained:tictactoe",
            "--simulations",
            "16",
            "--workers",
            "2",
            "--thresholds",
            "-0.5",
            "--label",
            "t",
        ]
    )
    rows = [json.loads(line) for line in (tmp_path / "runs" / "resign_calibration" / "values_t.jsonl").open()]
    assert [v for row in rows for v in row["values"]] == pytest.approx(seen)
    assert [row["result"] for row in rows] == [script.result(r) for r in result.records]
    text = (tmp_path / "results" / "resign_calibration_t.md").read_text()
    assert "| -0.50 |" in text and (tmp_path / "results" / "resign_calibration_t.png").stat().st_size > 0
