"""benchmarks/go_vs_gnugo.py: games against GNU Go split over processes, every game's winner recounted
by GNU Go, the report's figures taken from the games played."""

import json

import pytest

from benchmark_scripts import load_script


@pytest.fixture
def script(tmp_path, monkeypatch):
    """The script, writing under tmp_path; skips the test when gnugo is not installed."""
    from zerogym_agents.agents.gnugo import GnuGoNotFoundError, find_gnugo

    try:
        find_gnugo()
    except GnuGoNotFoundError:
        pytest.skip("gnugo is not installed")
    script = load_script("go_vs_gnugo")
    monkeypatch.setattr(script, "HERE", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return script


def test_shares_are_even_and_add_up():
    script = load_script("go_vs_gnugo")
    for games in (2, 4, 10, 100):
        for workers in (1, 2, 3, 16):
            parts = script.shares(games, workers)
            assert sum(parts) == games and all(n % 2 == 0 for n in parts) and len(parts) == workers


def test_wilson_interval():
    wilson = load_script("go_vs_gnugo").wilson
    lo, hi = wilson(50, 100)  # p = 0.5, n = 100: 0.5 -+ 1.96 * 0.05 / (1 + 1.96**2 / 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_a_match_against_gnugo_is_reported_and_cross_checked(script, tmp_path):
    script.main(
        [
            "--agent",
            "uct:20",
            "--level",
            "0",
            "--games",
            "4",
            "--workers",
            "2",
            "--board-size",
            "5",
            "--komi",
            "0.5",
            "--label",
            "t",
        ]
    )
    records = [json.loads(line) for line in (tmp_path / "runs" / "go_vs_gnugo" / "games_t.jsonl").open()]
    assert len(records) == 4 and sum(r["a_moved_first"] for r in records) == 2
    assert all(r["kwargs"] == {"board_size": 5, "komi": 0.5} for r in records)
    draws = sum(r["winner"] == -1 for r in records)
    wins = sum(r["winner"] != -1 and (r["winner"] == 0) == r["a_moved_first"] for r in records)
    text = (tmp_path / "results" / "go_vs_gnugo_t.md").read_text()
    assert f"| 4 | {wins}-{draws}-{4 - wins - draws} | {100 * wins / 4:.0f}% |" in text
    assert "GNU Go's own count (final_score) gives the same winner in" in text
    assert (tmp_path / "results" / "go_vs_gnugo_t.png").exists()
    with pytest.raises(SystemExit, match="even"):
        script.main(["--games", "3"])


def test_results_at_gnugos_first_pass(script):
    P = 25  # the pass of 5x5 Go

    def rec(actions, agent_black, winner):
        return {"actions": actions, "a_moved_first": agent_black, "winner": winner}

    # the agent (black) alone on the board when GNU Go passes: all 25 points its own
    won = rec([12, P, 6, P, P], True, 0)
    assert script.at_first_pass(won, 5, 0.5) == "won"
    assert script.at_first_pass(won, 5, 30.5) == "lost"  # 25 points do not make up a komi of 30.5
    # GNU Go (black) passes first on the empty board: komi gives it to the agent (white)
    assert script.at_first_pass(rec([P, 12, 6, P, P], False, 1), 5, 0.5) == "won"
    # GNU Go never passes while the game goes on: the game ends with its pass, or it never passes
    assert script.at_first_pass(rec([12, P, P], True, 0), 5, 0.5) == "won"  # black passed back: over at idx 2
    assert script.at_first_pass(rec([12, 6, P], True, 0), 5, 0.5) is None
    assert script.at_first_pass(rec([12, 6, 7], True, -1), 5, 0.5) is None
    # with komi 30.5: GNU Go's count has the agent lost at its pass, whatever the record says came after
    table = script.first_pass_table([won, rec([12, 6, 7], True, -1), rec([12, P, 6, P, P], True, 1)], 5, 30.5)
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]] for line in table[2:]}
    assert rows == {
        "won": ["1", "0", "1", "0", "0"],
        "drawn": ["1", "0", "0", "0", "1"],
        "lost": ["1", "0", "1", "0", "0"],
    }


def test_resignations_are_losses_and_not_counted(script, tmp_path):
    # every value is below 1: the agent resigns at its second move, in every game
    script.main(
        [
            "--agent",
            "pretrained:go_5x5",
            "--simulations",
            "8",
            "--resign-below",
            "1",
            "--level",
            "0",
            "--games",
            "2",
            "--workers",
            "1",
            "--board-size",
            "5",
            "--komi",
            "0.5",
            "--label",
            "r",
        ]
    )
    records = [json.loads(line) for line in (tmp_path / "runs" / "go_vs_gnugo" / "games_r.jsonl").open()]
    assert [r["resigned"] for r in records] == [0, 1]  # the agent: black in game 0, white in game 1
    text = (tmp_path / "results" / "go_vs_gnugo_r.md").read_text()
    assert "| 2 | 0-0-2 | 0% |" in text
    assert "0 of 0 games counted. 2 games ended by resignation, not counted: the agent resigned 2, GNU Go 0." in text
    with pytest.raises(SystemExit, match="needs a saved AlphaZero agent"):
        script.main(["--agent", "uct:20", "--resign-below", "-0.9"])
