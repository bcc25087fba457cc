"""Connect Four as a PettingZoo AEC env, and the vector path against the State path."""
import functools
import pickle

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import zerogym
import zerogym.vector
from zerogym import IllegalMoveError, connect_four_v0
from zerogym._core.connect_four import ConnectFourState

SHAPES = [dict(), dict(rows=5, cols=4, connect=3)]


@pytest.mark.parametrize("kw", SHAPES)
def test_api_test(kw):
    api_test(connect_four_v0.env(**kw), num_cycles=200)
    api_test(connect_four_v0.raw_env(**kw), num_cycles=200)


@pytest.mark.parametrize("kw", SHAPES)
def test_seed_test(kw):
    seed_test(functools.partial(connect_four_v0.env, **kw), num_cycles=200)


def test_metadata_and_spaces():
    env = connect_four_v0.env(rows=5, cols=4, connect=3)
    env.reset(seed=1)
    assert env.metadata["name"] == "connect_four_v0"
    assert env.possible_agents == ["player_0", "player_1"]
    assert env.agent_selection == "player_0"
    assert env.action_space("player_0").n == 4
    space = env.observation_space("player_1")
    assert space["observation"].shape == (5, 4, 3) and space["observation"].dtype == np.int8
    assert space["action_mask"].shape == (4,)
    assert str(env.unwrapped) == "connect_four_v0(rows=5, cols=4, connect=3)"
    assert isinstance(zerogym.make("connect_four", rows=5, cols=4, connect=3).unwrapped, connect_four_v0.ConnectFourEnv)
    assert isinstance(zerogym.make_raw("connect_four_v0"), connect_four_v0.ConnectFourEnv)


def test_observations_from_both_views_and_masks():
    env = connect_four_v0.raw_env()
    env.reset()
    for a in [3, 3, 2]:        # X d1, O d2, X c1
        env.step(a)
    assert env.agent_selection == "player_1"
    o0, o1 = env.observe("player_0"), env.observe("player_1")
    own0, opp0 = o0["observation"][:, :, 0], o0["observation"][:, :, 1]
    assert own0[5, 3] == 1 and own0[5, 2] == 1 and own0.sum() == 2
    assert opp0[4, 3] == 1 and opp0.sum() == 1
    assert (o1["observation"][:, :, 0] == opp0).all() and (o1["observation"][:, :, 1] == own0).all()
    assert (o0["observation"][:, :, 2] == 1).all()
    assert (o0["action_mask"] == 0).all()              # not player_0's turn
    assert (o1["action_mask"] == 1).all()
    assert o1["action_mask"].dtype == np.int8
    assert env.observation_space("player_0").contains(o0) and env.observation_space("player_1").contains(o1)
    assert (env.state() == o0["observation"]).all()    # global state: player 0's view


def test_full_game_rewards_through_env():
    env = connect_four_v0.env()
    env.reset(seed=0)
    for a in [0, 1, 0, 1, 0, 1, 0]:      # vertical four for player_0
        env.step(a)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1, "player_1": -1}
    obs, reward, term, trunc, info = env.last()
    assert term and not trunc and reward == -1 and env.agent_selection == "player_1"
    assert (obs["action_mask"] == 0).all()
    env.step(None)
    assert env.agent_selection == "player_0"
    _, reward, term, _, _ = env.last()
    assert reward == 1 and term
    env.step(None)
    assert env.agents == []


def test_raw_env_illegal_move_raises_and_changes_nothing():
    env = connect_four_v0.raw_env(rows=2, cols=3, connect=3)
    env.reset()
    env.step(0)
    env.step(0)                         # column 1 now full
    before = env.unwrapped.state.to_bytes()
    with pytest.raises(IllegalMoveError) as e:
        env.step(0)
    assert "column 1" in str(e.value) and "player_0" in str(e.value) and "full" in str(e.value)
    with pytest.raises(IllegalMoveError):
        env.step(3)
    assert env.unwrapped.state.to_bytes() == before
    assert env.agent_selection == "player_0" and not any(env.terminations.values())


def test_env_illegal_move_terminates_with_minus_one():
    env = connect_four_v0.env(rows=2, cols=3, connect=3)
    env.reset()
    env.step(1)
    env.step(1)
    env.step(1)                              # player_0 plays into a full column: no exception
    assert env.rewards["player_0"] == -1 and env.rewards["player_1"] == 0
    assert all(env.terminations.values())
    _, reward, term, _, _ = env.last()
    assert term and reward == -1


def test_env_illegal_raise_mode():
    env = connect_four_v0.env(illegal="raise", rows=2, cols=3, connect=3)
    env.reset()
    env.step(2)
    env.step(2)
    before = env.unwrapped.state.to_bytes()
    with pytest.raises(IllegalMoveError):
        env.step(2)
    assert env.unwrapped.state.to_bytes() == before
    env.step(0)                              # still playable
    assert env.unwrapped.state.move_count == 3


@pytest.mark.parametrize("kw, allowed", [
    (dict(rows=0), "1..25"), (dict(cols=30), "1..25"), (dict(connect=8), "2..7"), (dict(connect=1), "2..7"),
    (dict(illegal="ignore"), "'terminate', 'raise'"), (dict(render_mode="video"), "'ansi'"),
])
def test_bad_kwargs(kw, allowed):
    with pytest.raises(ValueError) as e:
        connect_four_v0.env(**kw)
    assert allowed in str(e.value)
    with pytest.raises(TypeError):
        connect_four_v0.env(size=5)


def test_render_ansi_with_coordinates():
    env = connect_four_v0.env(render_mode="ansi")
    env.reset()
    env.step(3)
    env.step(3)
    text = env.render()
    lines = text.split("\n")
    assert lines[0].split() == ["1", "2", "3", "4", "5", "6", "7"]   # column numbers
    rows = lines[1:7]
    assert [r.split()[0] for r in rows] == ["1", "2", "3", "4", "5", "6"]
    # row 0 on top: the bottom printed row holds X in column 4, above it O (the last move, bracketed)
    assert "X" in rows[5] and rows[5].split()[1:5] == [".", ".", ".", "X"]
    assert "[O]" in rows[4]
    assert "player_0 to move" in text


def test_render_rgb_array():
    env = connect_four_v0.env(render_mode="rgb_array", rows=5, cols=4, connect=3)
    env.reset()
    empty = env.render()
    assert isinstance(empty, np.ndarray) and empty.dtype == np.uint8
    assert empty.ndim == 3 and empty.shape[2] == 3 and empty.shape[0] > 5 and empty.shape[1] > 4
    env.step(0)
    img = env.render()
    assert img.shape == empty.shape and (img != empty).any()
    assert connect_four_v0.env().render() is None    # no render_mode: warns, returns None


def test_state_behind_env_is_picklable_and_copyable():
    env = connect_four_v0.raw_env()
    env.reset()
    env.step(4)
    st = env.unwrapped.state
    assert isinstance(st, ConnectFourState)
    assert pickle.loads(pickle.dumps(st)) == st and st.copy() == st


# ---- the vector path ------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(), dict(rows=3, cols=4, connect=3), dict(rows=2, cols=3, connect=3)])
def test_vector_matches_states(kw):
    n = 8
    venv = zerogym.vector.make("connect_four", num_envs=n, **kw)
    obs, info = venv.reset(seed=3)
    states = [ConnectFourState(**kw) for _ in range(n)]
    rng = np.random.default_rng(5)
    finished = 0
    for s in range(n):
        assert (obs["observation"][s] == states[s].observation()).all()
        assert (obs["action_mask"][s] == states[s].legal_mask()).all()
    assert (info["to_play"] == 0).all()
    for _ in range(150):
        mask = obs["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, rewards, term, trunc, info = venv.step(actions)
        for i, st in enumerate(states):
            mover = st.current_player
            st.step(int(actions[i]))
            done = st.is_over()
            assert term[i] == st.is_terminal() and not trunc[i]
            assert info["_final_observation"][i] == done
            expected_reward = st.returns()[mover] if done else 0.0
            assert rewards[i] == expected_reward
            if done:
                finished += 1
                assert (info["final_observation"][i] == st.observation()).all()
                st.reset()
            assert info["to_play"][i] == st.current_player
            assert (obs["observation"][i] == st.observation()).all()
            assert (obs["action_mask"][i] == st.legal_mask()).all()
            assert venv.get_state(i) == st
    assert finished > 0


def test_vector_illegal_action_changes_no_game():
    venv = zerogym.vector.make("connect_four", num_envs=4, rows=1, cols=3, connect=3)
    venv.reset(seed=0)
    venv.step(np.array([0, 0, 1, 2]))
    before = [venv.get_state(i).to_bytes() for i in range(4)]
    with pytest.raises(IllegalMoveError) as e:
        venv.step(np.array([1, 0, 0, 0]))        # game 1's column 1 is full (1 row)
    assert e.value.game_index == 1 and "column 1" in str(e.value) and "full" in str(e.value)
    assert [venv.get_state(i).to_bytes() for i in range(4)] == before
