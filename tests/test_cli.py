"""The zerogym command line."""
import subprocess
import sys

import pytest

from zerogym import cli


def test_demo_plays_a_game_and_reports_the_score(capsys):
    cli.main(["demo", "--board-size", "5", "--no-bench", "--no-train", "--seed", "3"])
    out = capsys.readouterr().out
    assert "A B C D E" in out
    assert "Tromp-Taylor area: black" in out and "score" in out


def test_unknown_command_fails_with_usage():
    with pytest.raises(SystemExit) as e:
        cli.main(["fly"])
    assert e.value.code == 2


def test_console_script_is_installed():
    out = subprocess.run([sys.executable, "-m", "zerogym.cli", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and all(c in out.stdout for c in ("demo", "bench", "arena"))


def test_demo_trains_then_writes_a_round_robin_report(tmp_path, capsys):
    out = tmp_path / "demo"
    cli.main(["demo", "--board-size", "5", "--no-bench", "--minutes", "0.05", "--games-per-pair", "2",
              "--out", str(out)])
    text = capsys.readouterr().out
    assert "self-play games" in text
    report = (out / "report.md").read_text()
    for name in ("alphazero", "uct:200", "greedy", "random"):
        assert f"| {name} |" in report
    assert (out / "elo.png").stat().st_size > 0
    assert (out / "run" / "agent.pt").exists()
