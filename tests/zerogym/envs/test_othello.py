"""Othello as a PettingZoo AEC env, and the vector path against the State path."""
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import zerogym
import zerogym.vector
from zerogym import IllegalMoveError, othello_v0
from zerogym._core.othello import OthelloState


@pytest.mark.parametrize("n", [6, 8, 10])
def test_api(n):
    api_test(othello_v0.env(board_size=n), num_cycles=300)
    api_test(othello_v0.raw_env(board_size=n), num_cycles=300)


@pytest.mark.parametrize("n", [6, 8, 10])
def test_seed(n):
    seed_test(lambda: othello_v0.env(board_size=n), num_cycles=300)


def test_registry_and_spaces():
    env = zerogym.make("othello", board_size=6)
    env.reset()
    assert env.possible_agents == ["black_0", "white_0"]
    assert env.agent_selection == "black_0"
    assert env.action_space("white_0").n == 37
    sp = env.observation_space("black_0")
    assert sp["observation"].shape == (6, 6, 3) and sp["action_mask"].shape == (37,)
    assert str(env.unwrapped) == "othello_v0(board_size=6)"


def test_observations_from_both_views():
    env = othello_v0.raw_env(board_size=8)
    env.reset()
    env.step(19)                                   # black d3 flips d4
    assert env.agent_selection == "white_0"
    ob, ow = env.observe("black_0"), env.observe("white_0")
    board = env.unwrapped.state.board()
    assert (ob["observation"][..., 0] == (board == 1)).all() and (ob["observation"][..., 1] == (board == 2)).all()
    assert (ow["observation"][..., 0] == (board == 2)).all() and (ow["observation"][..., 1] == (board == 1)).all()
    assert (ob["observation"][..., 2] == 1).all() and (ow["observation"][..., 2] == 1).all()
    assert ob["action_mask"].sum() == 0                         # not black's turn
    assert np.flatnonzero(ow["action_mask"]).tolist() == [18, 20, 34]   # c3, e3, c5
    assert ow["action_mask"].dtype == np.int8


def test_illegal_raw_env_raises_and_changes_nothing():
    env = othello_v0.raw_env(board_size=8)
    env.reset()
    before = env.unwrapped.state.to_bytes()
    for a, why in ((0, "flips no disc"), (27, "occupied"), (64, "pass is only legal")):
        with pytest.raises(IllegalMoveError, match=why) as e:
            env.step(a)
        assert "black_0" in str(e.value) and env.unwrapped.state.spec.action_name(a) in str(e.value)
        assert env.unwrapped.state.to_bytes() == before
        assert env.agent_selection == "black_0"


def test_illegal_terminate_and_raise():
    env = othello_v0.env(board_size=8)
    env.reset()
    env.step(0)                                    # a1 flips nothing: black loses
    assert env.rewards["black_0"] == -1 and env.rewards["white_0"] == 0
    assert all(env.terminations.values())
    env = othello_v0.env(board_size=8, illegal="raise")
    env.reset()
    with pytest.raises(IllegalMoveError):
        env.step(0)
    assert env.unwrapped.state.move_count == 0 and not any(env.terminations.values())


@pytest.mark.parametrize("kw, allowed", [
    (dict(board_size=7), "even"), (dict(board_size=2), "4..16"), (dict(board_size=18), "4..16"),
    (dict(board_size="8"), "4..16"), (dict(render_mode="svg"), "ansi"), (dict(illegal="ignore"), "terminate"),
])
def test_bad_kwargs(kw, allowed):
    with pytest.raises(ValueError, match=allowed):
        othello_v0.env(**kw)


def test_game_to_the_end_rewards():
    # black c1 flips b1, then neither side can place: black wins 3 - 1 (see tests/zerogym/_core)
    env = othello_v0.raw_env(board_size=4)
    env.reset()
    b = np.zeros((4, 4), np.int8)
    b[0, 0], b[0, 1], b[3, 3] = 1, 2, 2
    env.unwrapped.state.set_position(b, 0)
    env.step(2)
    assert env.terminations == {"black_0": True, "white_0": True}
    assert env.rewards == {"black_0": 1, "white_0": -1}
    assert env.infos["black_0"]["discs"] == {"black_0": 3, "white_0": 1}


def test_render():
    env = othello_v0.env(board_size=8, render_mode="ansi")
    env.reset()
    env.step(19)
    text = env.render()
    lines = text.splitlines()
    assert lines[0].split() == list("abcdefgh")          # lower case, as Othello moves are written (d3)
    assert lines[1].split() == ["1", ".", ".", ".", ".", ".", ".", ".", ".", "1"]    # row 1 at the top
    assert lines[3].replace(" ", "") == "3...[X]....3"                               # d3, the last move
    assert lines[4].split() == ["4", ".", ".", ".", "X", "X", ".", ".", ".", "4"]
    assert lines[5].split() == ["5", ".", ".", ".", "X", "O", ".", ".", ".", "5"]
    assert "white_0 to move" in text
    img = othello_v0.env(board_size=6, render_mode="rgb_array")
    img.reset()
    pic = img.render()
    assert pic.dtype == np.uint8 and pic.ndim == 3 and pic.shape[2] == 3 and pic.shape[0] > 6


@pytest.mark.parametrize("n", [4, 6, 8, 10])
def test_vector_matches_states(n):
    N = 8
    venv = zerogym.vector.make("othello", num_envs=N, board_size=n)
    obs, infos = venv.reset(seed=3)
    states = [OthelloState(n) for _ in range(N)]
    rng = np.random.default_rng(n)
    resets = 0
    for _ in range(4 * n * n):
        for i, s in enumerate(states):
            assert (obs["observation"][i] == s.observation()).all()
            assert (obs["action_mask"][i] == s.legal_mask()).all()
            assert infos["to_play"][i] == s.current_player
        actions = np.array([rng.choice(s.legal_actions()) for s in states])
        obs, rewards, term, trunc, infos = venv.step(actions)
        for i, s in enumerate(states):
            mover = s.current_player
            s.step(int(actions[i]))
            assert term[i] == s.is_terminal() and not trunc[i]
            assert rewards[i] == (s.returns()[mover] if s.is_over() else 0.0)
            assert infos["_final_observation"][i] == s.is_over()
            if s.is_over():
                assert (infos["final_observation"][i] == s.observation()).all()
                s.reset()
                resets += 1
            assert venv.get_state(i) == s
    assert resets > 0


def test_vector_illegal_changes_nothing():
    venv = zerogym.vector.make("othello", num_envs=3, board_size=6)
    venv.reset(seed=0)
    before = [venv.get_state(i).to_bytes() for i in range(3)]
    legal = [int(np.flatnonzero(venv.get_state(i).legal_mask())[0]) for i in range(3)]
    with pytest.raises(IllegalMoveError, match="game 1") as e:
        venv.step(np.array([legal[0], 0, legal[2]]))
    assert "a1" in str(e.value) and "black_0" in str(e.value)
    assert [venv.get_state(i).to_bytes() for i in range(3)] == before
