"""The vector path's own parts: action arrays, buffers, encode, threads, get/set_state (the vector
path against the AEC env, auto-reset and illegal actions, is in envs/test_contract.py)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import zerogym
import zerogym.vector
from zerogym.errors import ActionTypeError, IllegalMoveError
from cases import GAME_CASES, case_id


@pytest.fixture(params=GAME_CASES, ids=case_id)
def case(request):
    return request.param


def test_actions_shape_is_checked():
    venv = zerogym.vector.make("tictactoe", 3)
    venv.reset()
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        venv.step(np.zeros(2, dtype=int))


@pytest.mark.parametrize("actions", [np.array([0, 1, 2, 2**63], dtype=np.uint64), [0, 1, 2, 2**70], [2**70]])
def test_the_shape_is_checked_before_any_value(actions):
    # a value out of range at an index beyond the games is no game's illegal move
    venv = zerogym.vector.make("tictactoe", num_envs=3)
    venv.reset(seed=0)
    before = [venv.get_state(i).to_bytes() for i in range(3)]
    with pytest.raises(ValueError, match=r"actions must have shape \(3,\), got \(\d,\)") as err:
        venv.step(actions)
    assert not isinstance(err.value, IllegalMoveError)
    assert [venv.get_state(i).to_bytes() for i in range(3)] == before


def test_copy_false_reuses_buffers_copy_true_does_not():
    fast = zerogym.vector.make("tictactoe", 2, copy=False)
    o1, _ = fast.reset()
    o2, *_ = fast.step(np.array([0, 1]))
    assert o1["observation"] is not None and np.shares_memory(o1["observation"], o2["observation"])
    safe = zerogym.vector.make("tictactoe", 2)
    o1, _ = safe.reset()
    snapshot = o1["observation"].copy()
    safe.step(np.array([0, 1]))
    assert np.array_equal(o1["observation"], snapshot)


def test_encode_is_channels_first_observation():
    venv = zerogym.vector.make("tictactoe", 3, board_size=4, win_length=3)
    obs, _ = venv.reset()
    obs, *_ = venv.step(np.array([0, 5, 15]))
    planes = venv.encode()
    assert planes.dtype == np.float32
    assert np.array_equal(planes, obs["observation"].transpose(0, 3, 1, 2).astype(np.float32))


def test_sample_actions_are_legal_and_seeded():
    a = zerogym.vector.make("tictactoe", 16, board_size=5, win_length=4)
    b = zerogym.vector.make("tictactoe", 16, board_size=5, win_length=4)
    oa, _ = a.reset(seed=3)
    ob, _ = b.reset(seed=3)
    for _ in range(20):
        xa, xb = a.sample_actions(), b.sample_actions()
        assert np.array_equal(xa, xb)
        assert oa["action_mask"][np.arange(16), xa].all()
        oa, *_ = a.step(xa)
        ob, *_ = b.step(xb)


def test_set_state_round_trip():
    venv = zerogym.vector.make("tictactoe", 2)
    venv.reset()
    st = zerogym.make_state("tictactoe").step(4).step(0)
    obs, infos = venv.reset()
    venv.set_state(1, st)
    assert venv.get_state(1) == st
    fast = zerogym.vector.make("tictactoe", 2, copy=False)  # the shared buffers show the new game at once
    obs, infos = fast.reset()
    fast.set_state(1, st)
    assert np.array_equal(obs["observation"][1], st.observation()) and infos["to_play"][1] == st.current_player
    assert np.array_equal(obs["action_mask"][1], st.legal_mask())
    assert np.array_equal(obs["observation"][0], zerogym.make_state("tictactoe").observation())
    with pytest.raises(IndexError, match="out of range"):
        venv.get_state(2)
    with pytest.raises(ValueError, match="does not fit"):
        venv.set_state(0, zerogym.make_state("tictactoe", board_size=4))


@pytest.mark.parametrize("case", GAME_CASES, ids=case_id)
def test_threads_give_the_same_games(case):
    """Seeded play of every game is the same whatever num_threads is (OpenMP or not); small boards, so that
    games end and are reset inside the threaded step."""
    game, kwargs = case
    runs = []
    for threads in (1, 2):
        venv = zerogym.vector.make(game, 33, num_threads=threads, **kwargs)
        obs, _ = venv.reset(seed=4)
        trace = []
        for _ in range(60):
            actions = venv.sample_actions(obs["action_mask"])
            obs, rewards, term, trunc, infos = venv.step(actions)
            trace.append((actions, obs["observation"], rewards, term, infos["final_observation"]))
        runs.append(trace)
    for a, b in zip(*runs):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_num_threads_is_validated():
    with pytest.raises(ValueError, match="num_threads"):
        zerogym.vector.make("tictactoe", 2, num_threads=0)


# ---- inputs are integers, never cast --------------------------------------------------------------
def played_states(venv):
    return [venv.get_state(i).to_bytes() for i in range(venv.num_envs)]


@pytest.mark.parametrize(
    "bad",
    [
        np.array([4.0, 3.7, 0.0]),
        [4, 3.7, 0],
        np.array([True, False, True]),
        [4, True, 0],
        ["4", "3", "0"],
        np.array(["4", "3", "0"]),
        np.array([4, 3, 0], dtype=complex),
        np.array([4, 3, 0], dtype=object),
        [4, None, 0],
        np.array([4, 3, 0], dtype=np.float16),
    ],
    ids=repr,
)
def test_actions_that_are_not_integers_are_refused_uncast(bad):
    venv = zerogym.vector.make("tictactoe", 3)
    venv.reset(seed=0)
    before = played_states(venv)
    with pytest.raises(ActionTypeError, match="integer array"):
        venv.step(bad)
    assert played_states(venv) == before


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32, np.uint64])
def test_integer_dtypes_that_fit_are_played(dtype):
    a, b = zerogym.vector.make("tictactoe", 3), zerogym.vector.make("tictactoe", 3)
    a.reset(seed=0)
    b.reset(seed=0)
    a.step(np.array([4, 3, 0], dtype=dtype))
    b.step(np.array([4, 3, 0], dtype=np.int64))
    assert played_states(a) == played_states(b)
    a.step([0, 1, 2])  # a list of Python ints
    assert [s.last_action for s in map(a.get_state, range(3))] == [0, 1, 2]


@pytest.mark.parametrize(
    "bad",
    [np.array([4, 2**64 - 1, 0], dtype=np.uint64), [4, 2**70, 0], [4, -(2**64), 0]],
    ids=["uint64-max", "huge", "huge-negative"],
)
def test_values_that_would_wrap_are_out_of_range(bad):
    venv = zerogym.vector.make("tictactoe", 3)
    venv.reset(seed=0)
    before = played_states(venv)
    with pytest.raises(
        IllegalMoveError, match=f"game 1: illegal move action {int(bad[1])} by player_0: action out of range"
    ):
        venv.step(bad)
    assert played_states(venv) == before


@pytest.mark.parametrize("num_envs", [0, -1, 2.5, "8", True, None, 2**31])
def test_num_envs_must_be_a_positive_int(num_envs):
    with pytest.raises(ValueError, match="num_envs must be"):
        zerogym.vector.make("tictactoe", num_envs)


def test_num_envs_takes_numpy_ints_and_an_impossible_size_says_how_much():
    assert zerogym.vector.make("tictactoe", np.int32(2)).num_envs == 2
    with pytest.raises(MemoryError, match=r"2147483647 go games need about \d+ bytes"):
        zerogym.vector.make("go", 2**31 - 1, board_size=19)


def test_batch_refuses_states_of_another_layout():
    venv = zerogym.vector.make("tictactoe", 2)
    venv.reset()
    small = zerogym.make_state("tictactoe")
    for other in (zerogym.make_state("tictactoe", board_size=4), zerogym.make_state("go", board_size=19)):
        with pytest.raises(ValueError, match="cannot hold"):
            venv._batch.get_state(0, other)
        with pytest.raises(ValueError, match="does not fit"):
            venv._batch.set_state(0, other)
    venv._batch.get_state(1, small)
    assert small == zerogym.make_state("tictactoe")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_array_is_played_or_refused_with_no_game_changed(case, data):
    game, kwargs = case
    venv = zerogym.vector.make(game, 3, **kwargs)
    obs, _ = venv.reset(seed=data.draw(st.integers(0, 99)))
    dtype = data.draw(st.sampled_from(["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f4", "f8", "?", "c8"]))
    shape = data.draw(st.sampled_from([(3,), (2,), (4,), (3, 1), ()]))
    legal = [np.flatnonzero(m) for m in obs["action_mask"]]
    use_legal = data.draw(st.booleans())
    actions = data.draw(hnp.arrays(np.dtype(dtype), shape))
    if use_legal and shape == (3,) and np.dtype(dtype).kind in "iu":
        actions = np.array([data.draw(st.sampled_from(list(m))) for m in legal]).astype(dtype)
    before = played_states(venv)
    try:
        venv.step(actions)
    except (ActionTypeError, IllegalMoveError, ValueError):
        assert played_states(venv) == before
        return
    assert shape == (3,) and np.dtype(dtype).kind in "iu"
    for i, a in enumerate(np.asarray(actions).astype(np.int64)):
        assert a == -1 or a in legal[i]


def test_encode_checks_the_buffer_shape():
    venv = zerogym.vector.make("go", 2, board_size=5)
    venv.reset()
    for shape in ((1, 7, 5, 5), (2, 7, 4, 5), (2, 3, 5, 5), (4, 7, 5, 5)):
        with pytest.raises(ValueError, match=r"out must have shape \(2, 7, 5, 5\)"):
            venv.encode(np.zeros(shape, np.float32))
    assert venv.encode(np.zeros((2, 7, 5, 5), np.float32)).shape == (2, 7, 5, 5)
