"""zerogym_agents.notebook: the widget's traits follow the game, its messages from the page play it, and
it names the extra to install where anywidget is missing (no browser here: test_browser.py has one)."""

import base64
import json
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("anywidget", reason="the notebook extra (anywidget) is not installed")

from zerogym import render  # noqa: E402
from zerogym_agents.notebook import click_play, play  # noqa: E402


def centre(widget, rc):
    return render.cell_geometry(widget.session.game.state, cell=widget.session.cell).centres[rc]


def test_a_pretrained_agent_answers_clicks_and_the_traits_show_the_game():
    w = play("tictactoe", "pretrained:tictactoe", seed=0)
    assert w.game == "tictactoe" and w.sides == ["X", "O"] and w.human == 0
    png = base64.b64decode(w.image.removeprefix("data:image/png;base64,"))
    assert png.startswith(b"\x89PNG") and json.loads(w.moves) == []
    w._on_msg(w, {"kind": "click", "y": centre(w, (1, 1))[0], "x": centre(w, (1, 1))[1]}, [])
    moves = json.loads(w.moves)
    assert moves[0] == "B2" and len(moves) == 2 and w.message.startswith("You play B2.\npretrained:tictactoe plays ")
    assert w.board.splitlines()[2].split()[2] == "X"  # row 2 (the middle line), column B
    assert json.loads(w.buttons) == {"undo": True, "hint": True, "new": True} and not w.busy
    w._on_msg(w, {"kind": "press", "button": "undo"}, [])
    assert json.loads(w.moves) == [] and w.message.startswith("Took back B2, ")


def test_choosing_the_second_side_starts_a_game_the_agent_opens():
    w = play("connect_four", "greedy", seed=0)
    w._on_msg(w, {"kind": "side", "human": 1}, [])
    assert w.human == 1 and len(json.loads(w.moves)) == 1 and "greedy plays column " in w.message


def test_go_nine_by_nine_plays_clicks_and_pass_from_python():
    w = play("go", "random", board_size=9, seed=1)
    assert 20 <= w.session.cell <= 64 and json.loads(w.buttons)["pass"] is True
    w.click(*centre(w, (2, 2)))
    assert json.loads(w.moves)[0] == "C3"
    w.press("pass")
    assert json.loads(w.moves)[2] == "pass"


def test_the_picture_is_sized_to_the_board():
    small, large = click_play("go", "random", board_size=5), click_play("go", "random", board_size=19)
    widths = [cp.picture().shape[1] for cp in (small, large)]
    assert small.cell > large.cell and all(300 <= x <= 700 for x in widths), widths


def test_an_error_while_playing_is_shown_in_the_widget():
    class Broken:
        name = "broken"

        def act(self, env):
            raise RuntimeError("the agent failed")

    w = play("tictactoe", Broken())
    with pytest.raises(RuntimeError):
        w.click(*centre(w, (0, 0)))
    assert w.message == "RuntimeError: the agent failed" and not w.busy
    assert np.count_nonzero(w.session.game.state.board()) == 1  # the person's move stands


def test_without_anywidget_play_names_the_extra_and_the_environments_still_import():
    code = (
        "import sys; sys.modules['anywidget'] = None\n"
        "import zerogym, zerogym.clicks\n"
        "from zerogym_agents.notebook import click_play, play\n"
        "assert click_play('tictactoe', 'random').game.history == []\n"
        "try:\n    play('tictactoe', 'random')\nexcept ImportError as err:\n    print(err)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert 'pip install ".[notebook]"' in out and "anywidget" in out
