"""UCTCore refuses every input that its compiled search would use unchecked (States of another
game, counts, the visits buffer, the exploration constant), with a clean exception."""

import numpy as np
import pytest

import zerogym
from zerogym._core.spec import GameSpec
from zerogym_agents.mcts._uct import UCTCore


def ttt():
    return zerogym.make_state("tictactoe")


def visits(n=9):
    return np.zeros(n, np.int64)


def test_constructor_refuses_a_missing_or_bare_spec():
    with pytest.raises(TypeError):
        UCTCore(None, 10)
    with pytest.raises(ValueError, match="make_spec"):
        UCTCore(GameSpec(), 10)


@pytest.mark.parametrize("capacity", [0, -1, 2**31, 2**62])
def test_capacity_out_of_range(capacity):
    with pytest.raises(ValueError, match=f"capacity must be in 1..2147483647, got {capacity}"):
        UCTCore(ttt().spec, capacity)
    core = UCTCore(ttt().spec, 10)
    with pytest.raises(ValueError, match=f"capacity must be in 1..2147483647, got {capacity}"):
        core.reserve(capacity)
    assert core.capacity == 10


@pytest.mark.parametrize("capacity", [1.5, True, None])
def test_capacity_of_the_wrong_type(capacity):
    with pytest.raises(TypeError, match="capacity must be an integer"):
        UCTCore(ttt().spec, capacity)


def test_one_node_is_enough_to_search():
    core = UCTCore(ttt().spec, 1)
    core.reserve(1)
    v = visits()
    action, value = core.search(ttt(), 50, 1.4, 0, v)
    assert ttt().is_legal(action) and core.tree_size() == 1 and v.sum() == 0


@pytest.mark.parametrize("other", [("connect_four", {}), ("go", {"board_size": 5}), ("tictactoe", {"board_size": 4})])
def test_states_of_another_game_or_kwargs_are_refused(other):
    name, kwargs = other
    st = zerogym.make_state(name, **kwargs)
    core = UCTCore(ttt().spec, 100)
    with pytest.raises(ValueError, match="does not fit a search of GameSpec\\(tictactoe"):
        core.search(st, 10, 1.4, 0, visits())
    with pytest.raises(ValueError, match="does not fit"):
        UCTCore(st.spec, 100).search(ttt(), 10, 1.4, 0, visits(st.num_actions))


def test_a_state_of_another_game_with_equal_kwargs_is_refused():
    # the game's name counts, not only its kwargs
    hexst = zerogym.make_state("hex", board_size=3)
    hexst.spec.kwargs.clear()
    hexst.spec.kwargs.update(ttt().spec.kwargs)  # a fresh spec: nothing else sees it
    core = UCTCore(ttt().spec, 100)
    with pytest.raises(ValueError, match="does not fit"):
        core.search(hexst, 10, 1.4, 0, visits())


def test_missing_and_uninitialised_states_are_refused():
    core = UCTCore(ttt().spec, 100)
    with pytest.raises(TypeError):
        core.search(None, 10, 1.4, 0, visits())
    bare = type(ttt()).__new__(type(ttt()))
    with pytest.raises(ValueError, match="uninitialised State"):
        core.search(bare, 10, 1.4, 0, visits())


def test_visits_buffer_is_checked():
    core = UCTCore(ttt().spec, 100)
    with pytest.raises(TypeError):
        core.search(ttt(), 10, 1.4, 0, None)
    for n in (0, 8, 10):
        with pytest.raises(ValueError, match=f"visits must have shape \\(9,\\), got \\({n},\\)"):
            core.search(ttt(), 10, 1.4, 0, visits(n))
    with pytest.raises(ValueError):  # wrong dtype: the buffer is refused
        core.search(ttt(), 10, 1.4, 0, np.zeros(9, np.int32))


@pytest.mark.parametrize("n", [0, -100, 2**31])
def test_simulations_out_of_range(n):
    with pytest.raises(ValueError, match="simulations must be in 1..2147483647"):
        UCTCore(ttt().spec, 100).search(ttt(), n, 1.4, 0, visits())


def test_simulations_of_the_wrong_type():
    with pytest.raises(TypeError, match="simulations must be an integer"):
        UCTCore(ttt().spec, 100).search(ttt(), 10.0, 1.4, 0, visits())


def test_exploration_constant_is_checked():
    core = UCTCore(ttt().spec, 100)
    for c in (float("nan"), float("inf"), -1.0):
        with pytest.raises(ValueError, match="c must be a finite number >= 0"):
            core.search(ttt(), 10, c, 0, visits())
    with pytest.raises(TypeError, match="c must be a real number"):
        core.search(ttt(), 10, None, 0, visits())


def test_any_int_seeds_the_search():
    core = UCTCore(ttt().spec, 1000)
    a, b = visits(), visits()
    core.search(ttt(), 100, 1.4, -1, a)
    core.search(ttt(), 100, 1.4, 2**64 - 1, b)
    np.testing.assert_array_equal(a, b)  # seeds are taken mod 2**64
    with pytest.raises(TypeError, match="seed must be an integer"):
        core.search(ttt(), 10, 1.4, 0.5, visits())


def test_a_second_thread_cannot_search_or_grow_a_core_in_use():
    # search() releases the GIL: a concurrent search or reserve() on the same core is refused
    from races import race

    st = zerogym.make_state("connect_four")
    core = UCTCore(st.spec, 20000)
    results, theirs, mine, size = [], visits(7), visits(7), [20000]

    def grow():
        size[0] += 1
        core.reserve(size[0])

    refused = race(
        [lambda: results.append(core.search(st, 3000, 1.4, 0, theirs)[0])],
        [lambda: results.append(core.search(st, 300, 1.4, 1, mine)[0]), grow],
    )
    assert all("another thread" in r for r in refused), set(refused)
    assert results and all(st.is_legal(a) for a in results)
