"""zerogym.envs.binding: coordinates, pictures and terminal games take a game's GameInfo from the env, state or
spec they are given, never by looking the game up by name."""

import pickle
import subprocess
import sys

import numpy as np
import pytest

import zerogym
from zerogym import coords, play, registry, render
from zerogym._core.spec import GameSpec
from zerogym._core.state import State
from zerogym._core.tictactoe import TicTacToeState
from zerogym.envs import binding
from zerogym.envs.base import BoardGameEnv, env_factories
from zerogym.envs.game_info import Example, GameInfo
from zerogym.envs.tictactoe import TicTacToeInfo

GAMES = list(zerogym.GAMES)


def refuse_names(monkeypatch):
    """From here on, looking a game up by name fails: the registry's lookups raise and no GameSpec name
    leads to a GameInfo."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"a game was looked up by name: {args}")

    monkeypatch.setattr(registry, "game_info", refuse)
    monkeypatch.setattr(registry, "game_module", refuse)
    monkeypatch.setattr(binding, "_BY_NAME", {})


def finished_game(game):
    """An env (render_mode="ansi") and the states of a random game of `game` at its example's kwargs."""
    env = zerogym.make(game, render_mode="ansi", **registry.game_info(game).example.kwargs)
    env.reset(seed=1)
    state, rng = env.unwrapped.state, np.random.default_rng(1)
    states, history = [state.copy()], []
    while not state.is_over():
        history.append((state.current_player, int(rng.choice(state.legal_actions()))))
        env.step(history[-1][1])
        states.append(state.copy())
    return env, states, history


def what_people_see(env, states, history):
    """Everything the shared code says or draws of a game, asked with its env and its states (no spec)."""
    state = states[-1]
    out = {
        "ansi": env.render(),
        "svg": render.svg(state),
        "result": render.result_text(state),
        "captions": [render.move_caption(st) for st in states],
        "board": play.board_text(state),
        "rules": play.rules_line(state),
        "score": play.score_lines(state),
        "help": play.move_help(states[1]),
        "labels": (coords.column_labels(state), coords.column_letters(env), play.player_name(env, 0)),
        "input": (coords.input_help(env), coords.input_help(state)),
        "lines": [play.agent_move_line("bot", env, a, history[: i + 1]) for i, (_, a) in enumerate(history[:6])],
        "moves": [play.move_text(env, a, p) for p, a in history],
    }
    out["names"] = [coords.format_action(st, a) for st in states[:3] for a in range(st.num_actions)]
    out["parsed"] = [coords.parse_action(env, name) for name in out["names"]]
    out["pictures"] = [render.draw(st, cell=12) for st in (states[0], states[1], state)]
    return out


def same(a, b):
    assert a.keys() == b.keys()
    for key in a:
        if key == "pictures":
            assert all(np.array_equal(x, y) for x, y in zip(a[key], b[key])), key
        else:
            assert a[key] == b[key], key


@pytest.mark.parametrize("game", GAMES)
def test_an_env_and_its_states_show_the_game_without_a_name_lookup(game, monkeypatch):
    env, states, history = finished_game(game)
    expected = what_people_see(env, states, history)
    refuse_names(monkeypatch)
    same(what_people_see(env, states, history), expected)


@pytest.mark.parametrize("game", GAMES)
def test_a_game_missing_from_the_registry_still_shows_its_states_and_specs(game, monkeypatch):
    env, states, history = finished_game(game)
    spec = states[-1].spec
    expected = what_people_see(env, states, history), [coords.format_action(spec, a) for a in range(spec.num_actions)]
    monkeypatch.delitem(registry.GAMES, game)
    with pytest.raises(ValueError, match="unknown game"):
        registry.game_info(game)
    names = [coords.format_action(spec, a) for a in range(spec.num_actions)]
    same(what_people_see(env, states, history), expected[0])
    assert names == expected[1] and [coords.parse_action(spec, n) for n in names] == list(range(spec.num_actions))


class Scripted:
    """An agent that plays the first legal action."""

    name = "first"

    def act(self, env):
        return int(env.unwrapped.state.legal_actions()[0])


def transcript(game, refuse=None):
    """The text of a whole `zerogym play` game (the person plays the last legal action, the agent the first);
    refuse(): called once the session is made (its env is made from the game's name)."""
    out = []
    session = play.Session(
        game,
        Scripted(),
        registry.game_info(game).example.kwargs,
        seed=0,
        print_fn=out.append,
        input_fn=lambda prompt: coords.format_action(session.env, session.state.legal_actions()[-1]),
    )
    if refuse:
        refuse()
    result = session.run()
    return out, result.outcome, result.actions


@pytest.mark.parametrize("game", GAMES)
def test_a_terminal_game_takes_the_gameinfo_from_its_env(game, monkeypatch):
    expected = transcript(game)
    assert len(expected[2]) > 4 and expected[1] in ("win", "loss", "draw", "no result")
    assert transcript(game, lambda: refuse_names(monkeypatch)) == expected


class Marked(TicTacToeInfo):
    """Tic-tac-toe told another way: numbered cells, stones, its own player words and symbols."""

    name = "marked_tictactoe"
    player_words = ("cross", "nought")
    symbols = ".+o"
    marks = False

    def format_action(self, spec, a):
        return f"cell{a}"

    def parse_action(self, spec, text):
        return int(str(text).strip()[4:])


class MarkedState(TicTacToeState):
    pass


@pytest.fixture
def bound_tables(monkeypatch):
    """The binding's tables, restored after the test."""
    monkeypatch.setattr(binding, "_BY_CLASS", dict(binding._BY_CLASS))
    monkeypatch.setattr(binding, "_BY_NAME", dict(binding._BY_NAME))


def test_a_state_has_the_gameinfo_bound_to_its_class_not_to_its_name(bound_tables):
    binding.bind(MarkedState, Marked())
    marked, plain = MarkedState(), TicTacToeState()
    for st in (marked, plain):
        st.step(4)
    assert marked.spec.name == plain.spec.name == "tictactoe"
    assert coords.format_action(marked, 4) == "cell4" and coords.format_action(plain, 4) == "B2"
    assert coords.parse_action(marked, "cell7") == 7 and coords.parse_action(plain, "B3") == 7
    assert render.move_caption(marked) == "1. cross cell4" and render.move_caption(plain) == "1. X B2"
    assert "+" in play.board_text(marked) and "+" not in play.board_text(plain)
    assert not np.array_equal(render.draw(marked), render.draw(plain))  # stones, not X and O
    assert coords.format_action(marked.copy(), 4) == "cell4"  # a copy keeps its class


def test_an_env_has_its_own_gameinfo():
    class MarkedEnv(type(zerogym.make_raw("tictactoe"))):
        game_info = Marked()

    env = MarkedEnv(render_mode="ansi")
    env.step(4)
    assert coords.format_action(env, 4) == "cell4" and coords.format_action(env.state, 4) == "B2"
    assert coords.format_action(zerogym.make("tictactoe"), 4) == "B2"
    assert play.agent_move_line("bot", env, 4, [(0, 4)]) == "bot plays cell4."


def test_a_game_module_binds_its_gameinfo_to_its_state_class():
    for game in GAMES:
        module = registry.game_module(game)
        state = zerogym.make_state(game)
        info = binding.game_info_of(state)
        assert info is module.raw_env.game_info is binding.game_info_of(state.spec)
        assert type(state) is module.raw_env.state_class and info.name == state.spec.name == game


FRESH = """
import pickle, sys
state = pickle.loads(bytes.fromhex(sys.argv[1]))
before = "zerogym.envs.go" in sys.modules
from zerogym import render
from zerogym.coords import format_action
lines = [render.move_caption(state), f"{format_action(state.spec, state.last_action)} {render.draw(state).sum()}"]
print(before, "zerogym.envs.go" in sys.modules)
print(*lines, sep="\\n")
"""


def test_a_state_unpickled_in_a_fresh_process_finds_its_gameinfo():
    state = zerogym.make_state("go", board_size=5)
    for a in (12, 6, 25):
        state.step(a)
    out = subprocess.run(
        [sys.executable, "-c", FRESH, pickle.dumps(state).hex()], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == [
        "False True",
        render.move_caption(state),
        f"{coords.format_action(state.spec, 25)} {render.draw(state).sum()}",
    ]


def test_a_state_of_no_game_class_has_its_specs_gameinfo_and_a_bare_spec_none():
    spec = zerogym.make_state("hex", board_size=5).spec
    bare = State.from_spec(spec)
    assert type(bare) is State and binding.game_info_of(bare) is registry.game_info("hex")
    assert coords.format_action(bare, 0) == "A1"
    with pytest.raises(LookupError, match="no GameInfo"):
        coords.format_action(GameSpec(), 0)
    with pytest.raises(TypeError, match="a State class"):
        binding.bind(object, TicTacToeInfo())


def test_env_factories_binds_a_new_games_gameinfo(bound_tables):
    class PlainState(TicTacToeState):
        pass

    class Plain(GameInfo):
        name, title, example = "plain", "Plain", Example({}, "", "")

    class PlainEnv(BoardGameEnv):
        metadata = dict(BoardGameEnv.metadata, name="plain_v0")
        state_class = PlainState
        game_info = Plain()

    env_factories(PlainEnv)
    state = PlainState()
    state.step(0)
    assert binding.game_info_of(state) is PlainEnv.game_info and render.move_caption(state) == "1. black A1"
