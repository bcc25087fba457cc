"""benchmarks/go_vs_gnugo.py: games against GNU Go split over processes, every game's winner recounted
by GNU Go, the report's figures taken from the games played."""
import json

import pytest

from benchmark_scripts import load_script


def test_shares_are_even_and_add_up():
    script = load_script("go_vs_gnugo")
    for games in (2, 4, 10, 100):
        for workers in (1, 2, 3, 16):
            parts = script.shares(games, workers)
            assert sum(parts) == games and all(n % 2 == 0 for n in parts) and len(parts) == workers


def test_wilson_interval():
    wilson = load_script("go_vs_gnugo").wilson
    lo, hi = wilson(50, 100)                    # p = 0.5, n = 100: 0.5 -+ 1.96 * 0.05 / (1 + 1.96**2 / 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_a_match_against_gnugo_is_reported_and_cross_checked(tmp_path, monkeypatch):
    from zerogym_agents.gnugo import GnuGoNotFoundError, find_gnugo
    try:
        find_gnugo()
    except GnuGoNotFoundError:
        pytest.skip("gnugo is not installed")
    script = load_script("go_vs_gnugo")
    monkeypatch.setattr(script, "HERE", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    script.main(["--agent", "uct:20", "--level", "0", "--games", "4", "--workers", "2", "--board-size", "5",
                 "--komi", "0.5", "--label", "t"])
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
