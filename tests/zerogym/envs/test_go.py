"""go_v0: PettingZoo API and seed tests, observations, masks, illegal moves, end-of-game info,
rendering, and the vector path against the AEC/State path."""
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import zerogym
import zerogym.vector
from zerogym import go_v0
from zerogym._core.go import GoState
from zerogym.errors import IllegalMoveError


@pytest.mark.parametrize("n", [5, 9, 19])
def test_api(n):
    api_test(go_v0.env(board_size=n), num_cycles=200)


@pytest.mark.parametrize("n", [5, 9, 19])
def test_seed(n):
    seed_test(lambda: go_v0.env(board_size=n), num_cycles=100)


def test_api_raw_env_small_board_with_short_games():
    api_test(go_v0.raw_env(board_size=3, max_moves=12), num_cycles=300)


def test_registry_and_spaces():
    env = zerogym.make("go", board_size=9)
    env.reset()
    assert env.possible_agents == ["black_0", "white_0"]
    assert env.metadata["name"] == "go_v0"
    assert env.observation_space("white_0")["observation"].shape == (9, 9, 7)
    assert env.action_space("black_0").n == 82
    assert env.unwrapped.state.spec.kwargs == {"board_size": 9, "komi": 7.5, "superko": "positional",
                                               "max_moves": 162}
    assert str(env.unwrapped) == "go_v0(board_size=9, komi=7.5, superko='positional', max_moves=162)"
    assert go_v0.raw_env.state_class is GoState
    default = go_v0.raw_env()
    assert default.state.spec.kwargs["board_size"] == 19 and default.action_space("black_0").n == 362


def test_observation_from_both_sides_and_masks():
    env = go_v0.raw_env(board_size=5)
    env.reset()
    ob, ow = env.observe("black_0"), env.observe("white_0")
    assert ob["action_mask"].sum() == 26 and ow["action_mask"].sum() == 0
    env.step(1 * 5 + 3)                                                      # black D2
    ob, ow = env.observe("black_0"), env.observe("white_0")
    assert env.agent_selection == "white_0"
    assert ob["observation"][1, 3, 0] == 1 and ob["observation"][1, 3, 1] == 0
    assert ow["observation"][1, 3, 1] == 1 and ow["observation"][1, 3, 0] == 0
    assert (ob["observation"][:, :, 5] == 1).all() and (ow["observation"][:, :, 5] == 0).all()
    assert (ob["observation"][:, :, 6] == 1).all() and (ow["observation"][:, :, 6] == 1).all()
    assert ob["action_mask"].sum() == 0
    assert ow["action_mask"][8] == 0 and ow["action_mask"][25] == 1 and ow["action_mask"].sum() == 25
    assert np.array_equal(env.state(), env.observe("black_0")["observation"])
    env.step(25)                                                             # white passes
    assert env.agent_selection == "black_0" and not any(env.terminations.values())
    assert env.observe("white_0")["action_mask"].sum() == 0


def test_raw_env_illegal_raises_and_keeps_state():
    env = go_v0.raw_env(board_size=5)
    env.reset()
    env.step(12)
    before = env.unwrapped.state.to_bytes()
    with pytest.raises(IllegalMoveError) as e:
        env.step(12)
    assert "C3" in str(e.value) and "white_0" in str(e.value) and "occupied" in str(e.value)
    assert isinstance(e.value, ValueError)
    assert env.unwrapped.state.to_bytes() == before
    assert env.agent_selection == "white_0"
    with pytest.raises(IllegalMoveError, match="out of range"):
        env.step(26)
    assert env.unwrapped.state.to_bytes() == before


def test_suicide_through_raw_env_names_the_rule():
    env = go_v0.raw_env(board_size=5)
    env.reset()
    for a in (5, 25, 1):                   # black A2, white pass, black B1: A1 is an eye
        env.step(a)
    with pytest.raises(IllegalMoveError, match="white_0.*suicide"):
        env.step(0)


def test_env_terminate_on_illegal():
    env = go_v0.env(board_size=5)
    env.reset(seed=0)
    env.step(12)
    env.step(12)                          # white plays the occupied point
    assert all(env.terminations.values())
    assert env.rewards["white_0"] == -1
    assert env._cumulative_rewards["white_0"] == -1


def test_env_raise_on_illegal():
    env = go_v0.env(board_size=5, illegal="raise")
    env.reset()
    env.step(12)
    with pytest.raises(IllegalMoveError):
        env.step(12)
    assert env.unwrapped.state.move_count == 1


def test_two_passes_end_with_score_info():
    env = go_v0.env(board_size=5, komi=0.5)
    env.reset()
    env.step(12)                          # black C3
    env.step(25)
    assert not any(env.terminations.values())
    env.step(25)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {"black_0": 1, "white_0": -1}
    info = {"score": 24.5, "black_area": 25, "white_area": 0}
    assert env.infos["black_0"] == info and env.infos["white_0"] == info


def test_max_moves_truncates_with_zero_rewards():
    env = go_v0.env(board_size=5, max_moves=4)
    env.reset()
    for a in (0, 24, 1, 23):
        env.step(a)
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"black_0": 0, "white_0": 0}
    assert env.infos["black_0"] == {"score": 2 - 2 - 7.5, "black_area": 2, "white_area": 2}


@pytest.mark.parametrize("kwargs,words", [
    ({"board_size": 1}, "2..25"), ({"board_size": 26}, "2..25"), ({"komi": "six"}, "komi"),
    ({"superko": "situational"}, "'positional', 'simple'"), ({"max_moves": 0}, "max_moves"),
    ({"illegal": "ignore"}, "terminate"), ({"render_mode": "svg"}, "ansi"),
])
def test_bad_kwargs(kwargs, words):
    with pytest.raises(ValueError) as e:
        go_v0.env(**kwargs)
    assert words in str(e.value)


def test_render_ansi():
    env = go_v0.env(board_size=9, render_mode="ansi")
    env.reset()
    env.step(0)                           # black A1
    env.step(8 * 9 + 8)                   # white J9
    text = env.render()
    lines = text.splitlines()
    assert lines[0].split() == list("ABCDEFGHJ") and lines[10].split() == list("ABCDEFGHJ")
    rows = lines[1:10]
    assert [ln.split()[0] for ln in rows] == [str(r) for r in range(9, 0, -1)]    # rank 1 at the bottom
    assert [ln.split()[-1] for ln in rows] == [str(r) for r in range(9, 0, -1)]
    assert rows[8].split()[1] == "X" and rows[0].rstrip().endswith(".[O] 9")       # last move marked
    assert rows[0].count(".") == 8 and rows[8].count(".") == 8
    assert "black_0 to move" in text


def test_render_rgb():
    env = go_v0.env(board_size=5, render_mode="rgb_array")
    env.reset()
    env.step(12)
    img = env.render()
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    env2 = go_v0.env(board_size=5, render_mode="rgb_array")
    env2.reset()
    assert not np.array_equal(env2.render(), img)       # the stone shows


# ---- vector path -------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(board_size=2), dict(board_size=3, superko="simple"),
                                dict(board_size=4, komi=0, max_moves=20), dict(board_size=5)])
def test_vector_matches_states(kw):
    N = 8
    venv = zerogym.vector.make("go", num_envs=N, **kw)
    obs, infos = venv.reset(seed=3)
    states = [GoState(**kw) for _ in range(N)]
    rng = np.random.default_rng(7)
    finished = {"terminated": 0, "truncated": 0}
    for _ in range(150):
        for i, s in enumerate(states):
            assert np.array_equal(obs["observation"][i], s.observation(s.current_player))
            assert np.array_equal(obs["action_mask"][i], s.legal_mask())
            assert infos["to_play"][i] == s.current_player
            assert venv.get_state(i) == s
        actions = []
        for s in states:                   # mostly stones, so that games run into captures
            legal = s.legal_actions()
            stones = legal[:-1]
            actions.append(rng.choice(stones) if len(stones) and rng.random() < 0.9 else rng.choice(legal))
        actions = np.array(actions)
        obs, rewards, term, trunc, infos = venv.step(actions)
        for i, s in enumerate(states):
            mover = s.current_player
            s.step(int(actions[i]))
            assert term[i] == s.is_terminal() and trunc[i] == s.is_truncated()
            assert infos["_final_observation"][i] == s.is_over()
            assert rewards[i] == s.returns()[mover]
            if s.is_over():
                finished["terminated" if s.is_terminal() else "truncated"] += 1
                assert np.array_equal(infos["final_observation"][i], s.observation(s.current_player))
                s.reset()
    assert finished["terminated"] + finished["truncated"] > N


def test_vector_illegal_changes_nothing():
    venv = zerogym.vector.make("go", num_envs=4, board_size=3)
    venv.reset()
    venv.step(np.array([0, 1, 2, 3]))
    before = [venv.get_state(i).to_bytes() for i in range(4)]
    with pytest.raises(IllegalMoveError, match="game 2") as e:
        venv.step(np.array([4, 4, 2, 4]))
    assert "white_0" in str(e.value) and "occupied" in str(e.value)
    assert [venv.get_state(i).to_bytes() for i in range(4)] == before
