"""The zerogym command line."""
import subprocess
import sys

import pytest

from zerogym import cli


def test_demo_plays_a_game_and_reports_the_score(capsys):
    cli.main(["demo", "--board-size", "5", "--no-bench", "--seed", "3"])
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
