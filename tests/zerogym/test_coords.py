"""zerogym.coords: human names of every action of every game, and parsing them back."""

import pytest
from hypothesis import given, settings, strategies as st

import zerogym
from zerogym.coords import COLUMNS, format_action, input_help, parse_action

# (game, kwargs) at small, usual and largest sizes
SIZES = [
    ("go", dict(board_size=2)),
    ("go", dict(board_size=9)),
    ("go", dict(board_size=25)),
    ("othello", dict(board_size=4)),
    ("othello", dict(board_size=16)),
    ("hex", dict(board_size=3)),
    ("hex", dict(board_size=19)),
    ("hex", dict(board_size=5, swap=False)),
    ("connect_four", dict()),
    ("connect_four", dict(rows=2, cols=25, connect=2)),
    ("tictactoe", dict()),
    ("tictactoe", dict(board_size=25, win_length=5)),
]


@pytest.mark.parametrize("game,kw", SIZES)
def test_every_action_round_trips(game, kw):
    spec = zerogym.make_state(game, **kw).spec
    names = [format_action(spec, a) for a in range(spec.num_actions)]
    assert len(set(names)) == spec.num_actions  # no two actions share a name
    for a, name in enumerate(names):
        assert parse_action(spec, name) == a
        assert parse_action(spec, f"  {name.lower()} ") == a  # case and spaces do not matter


@pytest.mark.parametrize("game,kw", SIZES)
def test_names_agree_with_the_compiled_action_names(game, kw):
    spec = zerogym.make_state(game, **kw).spec
    for a in range(spec.num_actions):
        expected = spec.action_name(a)
        if game == "connect_four":
            expected = expected.replace("column ", "")
        assert format_action(spec, a) == expected  # same case too: Othello writes a1, the others A1


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_round_trip_property(data):
    game = data.draw(st.sampled_from(["go", "othello", "hex", "connect_four", "tictactoe"]))
    if game == "othello":
        kw = {"board_size": data.draw(st.sampled_from([4, 6, 8, 10, 12, 14, 16]))}
    elif game == "connect_four":
        kw = {"rows": data.draw(st.integers(2, 25)), "cols": data.draw(st.integers(2, 25)), "connect": 2}
    elif game == "tictactoe":
        kw = {"board_size": data.draw(st.integers(2, 25)), "win_length": 2}
    else:
        kw = {"board_size": data.draw(st.integers(2, 19))}
    spec = zerogym.make_state(game, **kw).spec
    a = data.draw(st.integers(0, spec.num_actions - 1))
    text = format_action(spec, a)
    assert parse_action(spec, data.draw(st.sampled_from([text, text.lower(), " ".join(text)]))) == a


def test_conventions_of_the_contract():
    go = zerogym.make_state("go", board_size=9).spec
    assert format_action(go, 0) == "A1"  # action 0 is A1 (row 0 = rank 1)
    assert format_action(go, 8) == "J1"  # column letters skip I
    assert format_action(go, 9) == "A2"
    assert format_action(go, 81) == "pass"
    assert parse_action(go, "j9") == 80
    hexs = zerogym.make_state("hex", board_size=11).spec
    assert parse_action(hexs, "swap") == 121 and format_action(hexs, 121) == "swap"
    oth = zerogym.make_state("othello", board_size=8).spec
    assert parse_action(oth, "d3") == 2 * 8 + 3 and parse_action(oth, "pass") == 64
    c4 = zerogym.make_state("connect_four").spec
    assert [parse_action(c4, t) for t in ("1", "7", "column 4", "col 2")] == [0, 6, 3, 1]
    ttt = zerogym.make_state("tictactoe").spec
    assert parse_action(ttt, "C3") == 8


def test_accepts_a_spec_a_state_or_an_env():
    env = zerogym.make("go", board_size=5)
    env.reset()
    raw = zerogym.make_raw("go", board_size=5)
    for obj in (env, raw, env.unwrapped.state, env.unwrapped.state.spec):
        assert parse_action(obj, "E5") == 24 and format_action(obj, 25) == "pass"


@pytest.mark.parametrize(
    "game,kw,text,words",
    [
        ("go", dict(board_size=9), "I5", "no column I"),
        ("go", dict(board_size=9), "K1", "off the 9x9 board"),
        ("go", dict(board_size=9), "A10", "off the 9x9 board"),
        ("go", dict(board_size=9), "A0", "off the 9x9 board"),
        ("go", dict(board_size=9), "swap", "go has no swap"),
        ("tictactoe", dict(), "pass", "tictactoe has no pass"),
        ("hex", dict(board_size=5), "pass", "hex has no pass"),
        ("go", dict(board_size=9), "4D", "A..J"),
        ("go", dict(board_size=9), "", "row number 1..9"),
        ("connect_four", dict(), "0", "1..7"),
        ("connect_four", dict(), "8", "1..7"),
        ("connect_four", dict(), "A1", "column number 1..7"),
    ],
)
def test_malformed_input_says_what_is_allowed(game, kw, text, words):
    spec = zerogym.make_state(game, **kw).spec
    with pytest.raises(ValueError) as e:
        parse_action(spec, text)
    assert words in str(e.value)
    assert input_help(spec) in str(e.value)


def test_input_help_names_the_special_moves():
    assert "pass" in input_help(zerogym.make_state("go", board_size=9).spec)
    assert "swap" in input_help(zerogym.make_state("hex", board_size=9).spec)
    assert "pass" not in input_help(zerogym.make_state("tictactoe").spec)
    assert f"A..{COLUMNS[18]} (no I)" in input_help(zerogym.make_state("go", board_size=19).spec)


def test_format_rejects_out_of_range():
    spec = zerogym.make_state("tictactoe").spec
    with pytest.raises(ValueError, match="out of range"):
        format_action(spec, 9)
