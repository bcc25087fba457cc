"""Tic-tac-toe / Gomoku as a PettingZoo AEC env, and the vector path against the State path."""
import functools

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import zerogym
import zerogym.vector
from zerogym import IllegalMoveError, tictactoe_v0
from zerogym._core.tictactoe import TicTacToeState

SIZES = [dict(board_size=3, win_length=3), dict(board_size=15, win_length=5)]


@pytest.mark.parametrize("kw", SIZES)
def test_api_test(kw):
    api_test(tictactoe_v0.env(**kw), num_cycles=200)
    api_test(tictactoe_v0.raw_env(**kw), num_cycles=200)


@pytest.mark.parametrize("kw", SIZES)
def test_seed_test(kw):
    seed_test(functools.partial(tictactoe_v0.env, **kw), num_cycles=200)


def test_defaults_and_spaces():
    env = tictactoe_v0.env()
    env.reset(seed=0)
    assert env.metadata["name"] == "tictactoe_v0"
    assert env.possible_agents == ["player_0", "player_1"] and env.agent_selection == "player_0"
    assert env.action_space("player_1").n == 9
    assert env.observation_space("player_0")["observation"].shape == (3, 3, 3)
    g = zerogym.make("tictactoe", board_size=15, win_length=5)
    assert g.action_space("player_0").n == 225
    assert g.observation_space("player_1")["observation"].shape == (15, 15, 3)


def test_observations_from_both_views_and_masks():
    env = tictactoe_v0.raw_env(board_size=15, win_length=5)
    env.reset()
    env.step(0)            # X A1
    env.step(16)           # O B2
    env.step(2)            # X C1
    assert env.agent_selection == "player_1"
    o0, o1 = env.observe("player_0"), env.observe("player_1")
    own0, opp0 = o0["observation"][:, :, 0], o0["observation"][:, :, 1]
    assert own0[0, 0] == own0[0, 2] == 1 and own0.sum() == 2
    assert opp0[1, 1] == 1 and opp0.sum() == 1
    assert (o1["observation"][:, :, 0] == opp0).all() and (o1["observation"][:, :, 1] == own0).all()
    assert (o1["observation"][:, :, 2] == 1).all()
    assert (o0["action_mask"] == 0).all()
    m = o1["action_mask"]
    assert m.sum() == 222 and m[0] == m[16] == m[2] == 0
    assert env.observation_space("player_1").contains(o1)


def test_win_through_env():
    env = tictactoe_v0.env()
    env.reset()
    for a in [0, 3, 1, 4, 2]:       # X completes row 1
        env.step(a)
    assert env.rewards == {"player_0": 1, "player_1": -1}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    _, reward, term, _, _ = env.last()
    assert term and reward == -1
    env.step(None)
    env.step(None)
    assert env.agents == []


def test_draw_through_env():
    env = tictactoe_v0.env()
    env.reset()
    for a in [0, 1, 2, 4, 3, 5, 7, 6, 8]:      # X O X / X O O / O X X: no line
        env.step(a)
    assert env.rewards == {"player_0": 0, "player_1": 0}
    assert all(env.terminations.values())


def test_raw_env_illegal_move_raises_and_changes_nothing():
    env = tictactoe_v0.raw_env()
    env.reset()
    env.step(4)
    before = env.unwrapped.state.to_bytes()
    with pytest.raises(IllegalMoveError) as e:
        env.step(4)
    assert "B2" in str(e.value) and "player_1" in str(e.value)
    with pytest.raises(IllegalMoveError):
        env.step(9)
    assert env.unwrapped.state.to_bytes() == before and env.agent_selection == "player_1"


def test_env_illegal_move_terminates_with_minus_one():
    env = tictactoe_v0.env()
    env.reset()
    env.step(4)
    env.step(4)                  # player_1 plays on an occupied point
    assert env.rewards["player_1"] == -1 and env.rewards["player_0"] == 0
    assert all(env.terminations.values())


def test_env_illegal_raise_mode():
    env = tictactoe_v0.env(illegal="raise")
    env.reset()
    env.step(4)
    before = env.unwrapped.state.to_bytes()
    with pytest.raises(IllegalMoveError):
        env.step(4)
    assert env.unwrapped.state.to_bytes() == before
    env.step(0)
    assert env.unwrapped.state.move_count == 2


@pytest.mark.parametrize("kw, allowed", [
    (dict(board_size=1), "2..25"), (dict(board_size=26), "2..25"), (dict(win_length=4), "2..3"),
    (dict(board_size=15, win_length=16), "2..15"), (dict(illegal="skip"), "'terminate', 'raise'"),
    (dict(render_mode="svg"), "'ansi'"),
])
def test_bad_kwargs(kw, allowed):
    with pytest.raises(ValueError) as e:
        tictactoe_v0.env(**kw)
    assert allowed in str(e.value)


def test_render_ansi_with_coordinates():
    env = tictactoe_v0.env(render_mode="ansi")
    env.reset()
    env.step(0)     # X on A1
    env.step(5)     # O on C2
    text = env.render()
    lines = text.split("\n")
    assert lines[0].split() == ["A", "B", "C"] and lines[4].split() == ["A", "B", "C"]
    # rank 3 printed first, rank 1 (row 0) last
    assert [ln.split()[0] for ln in lines[1:4]] == ["3", "2", "1"]
    assert lines[3].split() == ["1", "X", ".", ".", "1"]
    assert "[O]" in lines[2]
    assert "player_0 to move" in text


def test_render_rgb_array():
    env = tictactoe_v0.env(render_mode="rgb_array", board_size=15, win_length=5)
    env.reset()
    empty = env.render()
    assert isinstance(empty, np.ndarray) and empty.dtype == np.uint8 and empty.ndim == 3 and empty.shape[2] == 3
    env.step(112)
    img = env.render()
    assert img.shape == empty.shape and (img != empty).any()


# ---- the vector path ------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(), dict(board_size=5, win_length=4), dict(board_size=15, win_length=5)])
def test_vector_matches_states(kw):
    n = 8
    venv = zerogym.vector.make("tictactoe", num_envs=n, **kw)
    obs, info = venv.reset(seed=1)
    states = [TicTacToeState(**kw) for _ in range(n)]
    for i in range(n):
        assert (obs["observation"][i] == states[i].observation()).all()
        assert (obs["action_mask"][i] == states[i].legal_mask()).all()
    rng = np.random.default_rng(2)
    finished = 0
    for _ in range(120):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, rewards, term, trunc, info = venv.step(actions)
        for i, st in enumerate(states):
            mover = st.current_player
            st.step(int(actions[i]))
            done = st.is_over()
            assert term[i] == st.is_terminal() and not trunc[i] and info["_final_observation"][i] == done
            assert rewards[i] == (st.returns()[mover] if done else 0.0)
            if done:
                finished += 1
                assert (info["final_observation"][i] == st.observation()).all()
                st.reset()
            assert info["to_play"][i] == st.current_player
            assert (obs["observation"][i] == st.observation()).all()
            assert (obs["action_mask"][i] == st.legal_mask()).all()
            g = venv.get_state(i)
            assert (g.board() == st.board()).all() and g.move_count == st.move_count and g.hash == st.hash
    assert finished > 0
