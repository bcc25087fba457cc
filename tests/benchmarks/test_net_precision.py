"""benchmarks/net_precision.py: a forward row per batch and an SGD row per net, in both precisions."""

import re

from benchmark_scripts import load_script


def test_rows_for_each_net_and_batch(tmp_path, monkeypatch):
    script = load_script("net_precision")
    monkeypatch.setattr(script, "HERE", str(tmp_path))
    script.main(["--nets", "pretrained:tictactoe", "--batches", "4", "16", "--seconds", "0.05"])
    text = (tmp_path / "results" / "net_precision.md").read_text()
    rows = re.findall(
        r"^\| `pretrained:tictactoe` \| ([^|]+) \| ([\d.]+) \| ([\d.]+) \| [\d.]+x \| ([-\d.]+) \|", text, re.M
    )
    assert [r[0].strip() for r in rows] == ["forward, batch 4", "forward, batch 16", "SGD step, batch 256"]
    assert all(float(r[1]) > 0 and float(r[2]) > 0 for r in rows)
    gaps = [float(r[3]) for r in rows[:2]]
    assert all(0 < g < 0.1 for g in gaps)  # bf16 rounds, but only a little
    assert rows[2][3] == "-" and (tmp_path / "results" / "net_precision.png").stat().st_size > 0


def test_a_label_names_the_files_and_leaves_the_plain_ones_alone(tmp_path, monkeypatch):
    script = load_script("net_precision")
    monkeypatch.setattr(script, "HERE", str(tmp_path))
    script.main(["--nets", "pretrained:tictactoe", "--batches", "4", "--seconds", "0.02", "--label", "here"])
    text = (tmp_path / "results" / "net_precision_here.md").read_text()
    assert "--label here" in text and "![speed-up](net_precision_here.png)" in text
    assert (tmp_path / "results" / "net_precision_here.png").stat().st_size > 0
    assert not (tmp_path / "results" / "net_precision.md").exists()
