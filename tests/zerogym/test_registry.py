"""zerogym.make and friends: names, kwargs, errors, independent instances (the values each game's
kwargs allow are checked through make and the envs in envs/test_contract.py)."""

import pytest
from pettingzoo.utils.env import AECEnv

import zerogym
import zerogym.vector
from cases import GAME_CASES, case_id


@pytest.mark.parametrize("case", GAME_CASES, ids=case_id)
def test_make_builds_the_named_game(case):
    game, kwargs = case
    env = zerogym.make(game, **kwargs)
    assert isinstance(env, AECEnv)
    assert env.unwrapped.metadata["name"] == f"{game}_v0"
    for k, v in kwargs.items():
        assert env.unwrapped.state.spec.kwargs[k] == v
    assert zerogym.make(f"{game}_v0", **kwargs).unwrapped.state.spec.kwargs == env.unwrapped.state.spec.kwargs
    assert type(zerogym.make_raw(game, **kwargs)) is type(env.unwrapped)


def test_unknown_game_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown game 'chess'.*go.*othello.*hex.*connect_four.*tictactoe"):
        zerogym.make("chess")


def test_unknown_kwarg_is_an_error():
    with pytest.raises(TypeError):
        zerogym.make("tictactoe", size=3)


def test_sizes_live_side_by_side():
    small, big = (
        zerogym.make_state("tictactoe", board_size=3),
        zerogym.make_state("tictactoe", board_size=15, win_length=5),
    )
    small.step(4)
    big.step(112)
    assert small.num_actions == 9 and big.num_actions == 225
    assert small.legal_actions().tolist() == [0, 1, 2, 3, 5, 6, 7, 8]
    assert len(big.legal_actions()) == 224


@pytest.mark.parametrize(
    "make", [zerogym.make, zerogym.make_raw, zerogym.make_state, lambda game, **kw: zerogym.vector.make(game, 2, **kw)]
)
def test_unknown_kwarg_names_the_game_and_what_it_takes(make):
    with pytest.raises(
        TypeError,
        match=r"go: unknown keyword argument 'boardsize' \(did you mean board_size\?\); "
        r"go takes board_size=19, komi=7.5, superko='positional', max_moves=None",
    ):
        make("go", boardsize=9)
    with pytest.raises(TypeError, match=r"connect_four: unknown keyword argument 'size'; connect_four takes rows=6"):
        make("connect_four", size=5)
