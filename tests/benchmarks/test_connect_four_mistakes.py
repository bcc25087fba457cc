"""benchmarks/connect_four_mistakes.py: the decisive mistakes of the games an agent did not win."""

import json
import re

from benchmark_scripts import load_script

# the second player plays d5 (move 10) instead of blocking f1, and the first wins at once
UNBLOCKED = [3, 0, 4, 2, 3, 3, 2, 3, 6, 3, 5]


def test_records_mode_reports_the_missed_block(tmp_path, monkeypatch, capsys):
    script = load_script("connect_four_mistakes")
    monkeypatch.setattr(script, "HERE", str(tmp_path))
    (tmp_path / "results").mkdir()
    games = tmp_path / "games.jsonl"
    won = {"index": 0, "players": ["me", "them"], "actions": UNBLOCKED, "winner": 0, "opening": 2}
    lost = {"index": 1, "players": ["them", "me"], "actions": UNBLOCKED, "winner": 0, "opening": 2}
    games.write_text("\n".join(json.dumps(r) for r in (won, lost)) + "\n")
    script.main(["--records", str(games), "--agent", "me", "--tt-bits", "16", "--label", "t"])
    text = (tmp_path / "results" / "connect_four_mistakes_t.md").read_text()
    assert (tmp_path / "results" / "connect_four_mistakes_t.png").stat().st_size > 0
    assert "2 games, 1 won, 1 lost or drawn" in text
    assert "| 1 (the reply wins) | 1 |" in text
    assert "| 1 | second | 41 | loss | 10 | 1 | 11 |" in text


def test_play_mode_lists_every_game_the_agent_did_not_win(tmp_path, monkeypatch):
    script = load_script("connect_four_mistakes")
    monkeypatch.setattr(script, "HERE", str(tmp_path))
    (tmp_path / "results").mkdir()
    script.main(
        ["--agent", "random", "--opponent", "solver", "--games", "4", "--opening-moves", "16", "--tt-bits", "18"]
    )
    text = (tmp_path / "results" / "connect_four_mistakes.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ") and line.count("|") == 8][1:]
    # every game the agent did not win is listed (random play wins only where the opening hands it a win)
    won = int(re.search(r"4 games, (\d) won, (\d) lost or drawn", text).group(1))
    assert won < 4 and len(rows) == 4 - won
    assert all(r.split("|")[4].strip() in ("loss", "draw") for r in rows)
