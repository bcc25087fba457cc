"""An action is converted to a C int once, and that value is both checked and played; anything but
an integer (bools included) raises ActionTypeError, the same from the State, raw_env() and env()."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import zerogym
from cases import GAME_CASES, case_id
from zerogym import ActionTypeError, IllegalMoveError
from zerogym._core.spec import GameSpec
from zerogym._core.state import State


class Shifty:
    """__index__ gives `first` on its first call and `later` after; __int__ always `later`."""

    def __init__(self, first, later):
        self.first, self.later, self.calls = first, later, 0

    def __index__(self):
        self.calls += 1
        return self.first if self.calls == 1 else self.later

    def __int__(self):
        return self.later


@pytest.mark.parametrize("case", GAME_CASES, ids=case_id)
def test_the_value_checked_is_the_value_played(case):
    game, kwargs = case
    s = zerogym.make_state(game, **kwargs)
    s.step(int(s.legal_actions()[0]))
    legal = int(s.legal_actions()[0])
    illegal = [a for a in range(s.num_actions) if not s.is_legal(a)]
    for later in illegal[:3] + [s.num_actions, -1, 10**6]:
        t = s.copy()
        act = Shifty(legal, later)
        t.step(act)
        assert act.calls == 1 and t == s.copy().step(legal)


@pytest.mark.parametrize("case", GAME_CASES, ids=case_id)
@pytest.mark.parametrize(
    "bad",
    [True, False, np.bool_(True), 3.0, 2.7, np.float32(1), "3", b"3", None, 1j, [1], np.array([1]), object()],
    ids=repr,
)
def test_anything_but_an_int_is_a_type_error_everywhere(case, bad):
    game, kwargs = case
    s = zerogym.make_state(game, **kwargs)
    before = s.to_bytes()
    for call in (s.step, s.is_legal, s.illegal_reason):
        with pytest.raises(ActionTypeError, match="action must be an int") as err:
            call(bad)
        assert isinstance(err.value, TypeError) and isinstance(err.value, IllegalMoveError)
    assert s.to_bytes() == before
    for env in (
        zerogym.make_raw(game, **kwargs),
        zerogym.make(game, **kwargs),
        zerogym.make(game, illegal="raise", **kwargs),
    ):
        env.reset(seed=0)
        before = env.unwrapped.state.to_bytes()
        with pytest.raises(ActionTypeError):
            env.step(bad)
        assert env.unwrapped.state.to_bytes() == before and env.agent_selection == env.possible_agents[0]


def test_bool_message_says_why():
    s = zerogym.make_state("connect_four")
    with pytest.raises(ActionTypeError, match="not a bool"):
        s.step(True)


@pytest.mark.parametrize(
    "dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.intp]
)
def test_numpy_integers_play(dtype):
    s = zerogym.make_state("tictactoe")
    s.step(dtype(4))
    assert s.board()[1, 1] == 1 and s.last_action == 4 and type(s.last_action) is int


def test_int_subclasses_play_their_value():
    class Odd(int):
        def __index__(self):
            return 0

        def __int__(self):
            return 0

    s = zerogym.make_state("tictactoe").step(Odd(4))
    assert s.last_action == 4


@settings(max_examples=200, deadline=None)
@given(a=st.integers(-(2**70), 2**70))
def test_any_int_is_played_or_refused_cleanly(a):
    s = zerogym.make_state("go", board_size=5).step(12)
    before = s.to_bytes()
    legal = s.is_legal(a)
    assert legal == (0 <= a < s.num_actions and bool(s.legal_mask()[a]))
    if legal:
        s.step(a)
        assert s.last_action == a
    else:
        with pytest.raises(IllegalMoveError, match=f"action {a}"):
            s.step(a)
        assert s.to_bytes() == before


def test_bare_classes_cannot_be_used():
    with pytest.raises(TypeError, match="base class"):
        State()
    with pytest.raises(ValueError, match="make_spec"):
        State.from_spec(GameSpec())


def test_states_of_another_layout_are_refused_even_with_equal_kwargs():
    small, big = zerogym.make_state("go", board_size=5), zerogym.make_state("go", board_size=9)
    big.spec.kwargs.update(small.spec.kwargs)  # the kwargs dict is mutable: sizes must decide
    try:
        with pytest.raises(ValueError, match="cannot copy"):
            small.copy_from(big)
    finally:
        big.spec.kwargs["board_size"] = 9
