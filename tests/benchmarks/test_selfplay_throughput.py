"""benchmarks/selfplay_throughput.py: one row per G and cache size; the cache answers repeats."""
import re

from benchmark_scripts import load_script


def test_rows_for_each_cache_size(tmp_path, monkeypatch):
    script = load_script("selfplay_throughput")
    monkeypatch.setattr(script, "HERE", str(tmp_path))
    script.main(["--game", "tictactoe", "--simulations", "16", "--seconds", "0.3", "--games", "4",
                 "--cache", "0", "1000", "--label", "t"])
    text = (tmp_path / "results" / "selfplay_throughput_t.md").read_text()
    rows = re.findall(r"^\| 4 \| (\w+) \| [\d.]+ \| \d+ \| ([\d.]+)% \|", text, re.M)
    assert rows[0] == ("off", "0.0")
    assert rows[1][0] == "1000" and float(rows[1][1]) > 0      # tic-tac-toe trees are full of transpositions


def test_a_saved_agents_net(tmp_path, monkeypatch):
    script = load_script("selfplay_throughput")
    monkeypatch.setattr(script, "HERE", str(tmp_path))
    script.main(["--game", "tictactoe", "--net", "pretrained:tictactoe", "--seconds", "0.2", "--games", "2",
                 "--cache", "64"])
    assert "the net of `pretrained:tictactoe`" in (tmp_path / "results" / "selfplay_throughput.md").read_text()
