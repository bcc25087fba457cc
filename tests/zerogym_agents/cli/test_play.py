"""`zerogym play`: agents named by specs, the game kwargs of their cards, the command line."""

import re

import pytest

from zerogym.coords import parse_action

from zerogym_agents.cli import main as cli
from zerogym_agents.cli.play import DEFAULT_AGENT, session
from zerogym_agents.agents.saved import pretrained_names


class Talk:
    """input_fn / print_fn for scripted games: answers from a list, then the end of input; output kept."""

    def __init__(self, answers):
        self.answers, self.out = iter(answers), []

    def input(self, prompt):
        try:
            return next(self.answers)
        except StopIteration:
            raise EOFError from None

    def print(self, text=""):
        self.out.extend(str(text).splitlines())


def test_agent_specs_and_their_errors():
    with pytest.raises(ValueError, match="plays tictactoe, not go"):
        session("go", "pretrained:tictactoe", dict(board_size=5))
    with pytest.raises(ValueError, match="unknown agent spec"):
        session("go", "nonsense", dict(board_size=5))
    s = session("go", "random", dict(board_size=5))
    assert s.name == "random" and s.agent.name == "random"


def test_command_line_list_and_game_with_gif(tmp_path, monkeypatch, capsys):
    from PIL import Image

    cli.main(["play", "--list"])
    out = capsys.readouterr().out
    assert all(f"pretrained:{name}" in out for name in pretrained_names())
    monkeypatch.setattr("builtins.input", Talk(["B2", "hint", "A1", "C3", "A3", "C1", "C2", "B3"]).input)
    gif = tmp_path / "game.gif"
    cli.main(
        ["play", "tictactoe", "--agent", "random", "--seed", "2", "--gif", str(gif), "--svg", str(tmp_path / "svg")]
    )
    out = capsys.readouterr().out
    moves = int(re.findall(r"^move (\d+), ", out, re.M)[-1])  # the last board printed
    assert moves >= 2
    assert Image.open(gif).n_frames == len(list((tmp_path / "svg").glob("*.svg"))) == moves + 1


def test_command_line_needs_a_game():
    with pytest.raises(SystemExit) as e:
        cli.main(["play"])
    assert e.value.code == 2 and "zerogym play: error: name a game" in str(e.value)


def test_a_saved_agent_brings_the_kwargs_of_its_card_and_a_default_agent_fits_the_game():
    s = session("go", "pretrained:go_9x9")
    assert s.state.spec.kwargs["board_size"] == 9 and any("model card of pretrained:go_9x9" in n for n in s.notes)
    s = session("go", "pretrained:go_5x5", {"board_size": 7})
    assert s.state.spec.kwargs["board_size"] == 7 and any("zero-shot" in n for n in s.notes)
    assert session("tictactoe").name == "pretrained:tictactoe"  # shipped for exactly this game
    assert session("tictactoe", kwargs={"board_size": 4}).name == DEFAULT_AGENT


def test_hint_from_a_search_agent():
    talk = Talk(["hint", "quit"])
    s = session("tictactoe", "uct:50", input_fn=talk.input, print_fn=talk.print)
    s.run()
    hint = next(ln for ln in talk.out if ln.startswith("hint:")).rsplit(" ", 1)[1]
    assert s.state.is_legal(parse_action(s.spec, hint))
