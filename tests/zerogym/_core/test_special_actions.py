"""spec.pass_action and spec.swap_action: the index of the game's pass and swap actions (-1 where it has
none), set where each game builds its spec, at every size; the code that treats a pass or a swap
apart finds it there, never by its name."""

import pytest

import zerogym
from zerogym._core.spec import GameSpec
from zerogym.coords import format_action, parse_action

# (game, kwargs, pass, swap) at the smallest, a usual and the largest size of each game, with the
# variants that change the specials (Hex without the swap rule, Go's ko rule and move limit)
CASES = [
    ("go", {"board_size": 2}, 4, -1),
    ("go", {"board_size": 9}, 81, -1),
    ("go", {"board_size": 25}, 625, -1),
    ("go", {"board_size": 5, "superko": "simple", "max_moves": 3}, 25, -1),
    ("othello", {"board_size": 4}, 16, -1),
    ("othello", {"board_size": 8}, 64, -1),
    ("othello", {"board_size": 16}, 256, -1),
    ("hex", {"board_size": 2}, -1, 4),
    ("hex", {"board_size": 11}, -1, 121),
    ("hex", {"board_size": 19}, -1, 361),
    ("hex", {"board_size": 5, "swap": False}, -1, 25),
    ("connect_four", {"rows": 1, "cols": 2, "connect": 2}, -1, -1),
    ("connect_four", {}, -1, -1),
    ("connect_four", {"rows": 25, "cols": 25, "connect": 25}, -1, -1),
    ("tictactoe", {"board_size": 2, "win_length": 2}, -1, -1),
    ("tictactoe", {}, -1, -1),
    ("tictactoe", {"board_size": 25, "win_length": 5}, -1, -1),
    ("breakthrough", {"rows": 4, "cols": 2}, -1, -1),
    ("breakthrough", {}, -1, -1),
    ("breakthrough", {"rows": 16, "cols": 16}, -1, -1),
    ("havannah", {"board_size": 3}, -1, 25),
    ("havannah", {"board_size": 8, "swap": True}, -1, 225),
    ("havannah", {"board_size": 13}, -1, 625),
]
IDS = [f"{g}-{'-'.join(f'{k}{v}' for k, v in kw.items()) or 'defaults'}" for g, kw, _, _ in CASES]


@pytest.mark.parametrize("game,kw,pass_action,swap_action", CASES, ids=IDS)
def test_each_game_says_which_action_passes_and_which_swaps(game, kw, pass_action, swap_action):
    spec = zerogym.make_state(game, **kw).spec
    assert (spec.pass_action, spec.swap_action) == (pass_action, swap_action)
    h, w, _ = spec.obs_shape
    for special in (pass_action, swap_action):
        if special >= 0:
            assert special == h * w == spec.num_actions - 1  # the action after the cells
    # the compiled names agree: "pass" and "swap" are exactly these actions
    names = [spec.action_name(a) for a in range(spec.num_actions)]
    assert [a for a, n in enumerate(names) if n == "pass"] == ([pass_action] if pass_action >= 0 else [])
    assert [a for a, n in enumerate(names) if n == "swap"] == ([swap_action] if swap_action >= 0 else [])
    for special, word in ((pass_action, "pass"), (swap_action, "swap")):
        if special >= 0:
            assert format_action(spec, special) == word and parse_action(spec, word) == special


@pytest.mark.parametrize("game,kw,pass_action,swap_action", CASES, ids=IDS)
def test_the_specials_are_the_same_through_every_door(game, kw, pass_action, swap_action):
    env = zerogym.make(game, **kw)
    env.reset()
    for spec in (
        env.unwrapped.state.spec,
        zerogym.make_state(f"{game}_v0", **kw).spec,
        zerogym.make_state(game, **kw).copy().spec,
    ):
        assert (spec.pass_action, spec.swap_action) == (pass_action, swap_action)


def test_the_specials_behave_as_the_rules_say():
    go = zerogym.make_state("go", board_size=5)
    assert go.is_legal(go.spec.pass_action)  # Go: pass is always legal
    oth = zerogym.make_state("othello", board_size=6)
    assert not oth.is_legal(oth.spec.pass_action)  # Othello: only when nothing else is
    hx = zerogym.make_state("hex", board_size=5)
    assert not hx.is_legal(hx.spec.swap_action)  # Hex: the second move only
    hx.step(7)
    assert hx.is_legal(hx.spec.swap_action)
    hx.step(hx.spec.swap_action)
    assert hx.board()[2, 1] == 2 and hx.current_player == 0
    off = zerogym.make_state("hex", board_size=5, swap=False)
    off.step(7)
    assert not off.is_legal(off.spec.swap_action)  # named, but never legal


def test_the_specials_are_read_only_and_unset_on_a_bare_spec():
    spec = zerogym.make_state("go", board_size=5).spec
    with pytest.raises(AttributeError):
        spec.pass_action = 3
    with pytest.raises(AttributeError):
        spec.swap_action = 3
    bare = GameSpec()
    assert (bare.pass_action, bare.swap_action) == (-1, -1)


@pytest.mark.parametrize(
    "game,kw,kind",
    [
        ("go", {"board_size": 5}, "cells"),
        ("hex", {}, "cells"),
        ("othello", {}, "cells"),
        ("tictactoe", {}, "cells"),
        ("connect_four", {}, "columns"),
        ("breakthrough", {}, "cell_moves"),
        ("havannah", {}, "cells"),
    ],
)
def test_the_spec_says_what_an_action_stands_for(game, kw, kind):
    assert zerogym.make_state(game, **kw).spec.action_kind == kind
