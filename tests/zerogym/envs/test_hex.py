"""hex_v0: PettingZoo API and seed tests, observations, masks, illegal moves, rendering, and the
vector path against the AEC/State path."""
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import zerogym
import zerogym.vector
from zerogym import hex_v0
from zerogym._core.hex import HexState
from zerogym.errors import IllegalMoveError


@pytest.mark.parametrize("n", [5, 11])
@pytest.mark.parametrize("swap", [True, False])
def test_api(n, swap):
    api_test(hex_v0.env(board_size=n, swap=swap), num_cycles=300)


@pytest.mark.parametrize("n", [5, 11])
@pytest.mark.parametrize("swap", [True, False])
def test_seed(n, swap):
    seed_test(lambda: hex_v0.env(board_size=n, swap=swap), num_cycles=100)


def test_registry_and_spaces():
    env = zerogym.make("hex", board_size=7)
    env.reset()
    assert env.possible_agents == ["black_0", "white_0"]
    assert env.metadata["name"] == "hex_v0"
    assert env.observation_space("white_0")["observation"].shape == (7, 7, 4)
    assert env.action_space("black_0").n == 50
    assert zerogym.make_state("hex", board_size=7).spec.kwargs == {"board_size": 7, "swap": True}
    assert str(env.unwrapped) == "hex_v0(board_size=7, swap=True)"


def test_observation_from_both_sides_and_masks():
    env = hex_v0.raw_env(board_size=5)
    env.reset()
    ob, ow = env.observe("black_0"), env.observe("white_0")
    assert ob["action_mask"].sum() == 25 and ob["action_mask"][25] == 0      # no swap on move 1
    assert ow["action_mask"].sum() == 0                                      # white is not to move
    env.step(1 * 5 + 3)                                                      # black at D2
    ob, ow = env.observe("black_0"), env.observe("white_0")
    assert env.agent_selection == "white_0"
    assert ob["observation"][1, 3, 0] == 1 and ob["observation"][1, 3, 1] == 0
    assert ow["observation"][1, 3, 1] == 1 and ow["observation"][1, 3, 0] == 0
    assert (ob["observation"][:, :, 2] == 1).all() and (ow["observation"][:, :, 2] == 0).all()
    assert (ob["observation"][:, :, 3] == 1).all() and (ow["observation"][:, :, 3] == 1).all()
    assert ob["action_mask"].sum() == 0
    assert ow["action_mask"][25] == 1 and ow["action_mask"][8] == 0 and ow["action_mask"].sum() == 25
    env.step(25)                                                              # swap
    ob, ow = env.observe("black_0"), env.observe("white_0")
    assert env.agent_selection == "black_0"
    assert ow["observation"][3, 1, 0] == 1 and ow["observation"][:, :, 0].sum() == 1
    assert ob["observation"][3, 1, 1] == 1 and ob["observation"][:, :, 0].sum() == 0
    assert ow["action_mask"].sum() == 0 and ob["action_mask"][25] == 0 and ob["action_mask"].sum() == 24
    assert np.array_equal(env.state(), env.observe("black_0")["observation"])


def test_raw_env_illegal_raises_and_keeps_state():
    env = hex_v0.raw_env(board_size=5)
    env.reset()
    with pytest.raises(IllegalMoveError, match="swap.*black_0|black_0.*swap"):
        env.step(25)
    env.step(12)
    before = env.unwrapped.state.to_bytes()
    with pytest.raises(IllegalMoveError) as e:
        env.step(12)
    assert "C3" in str(e.value) and "white_0" in str(e.value) and "occupied" in str(e.value)
    assert isinstance(e.value, ValueError)
    assert env.unwrapped.state.to_bytes() == before
    assert env.agent_selection == "white_0"


def test_env_terminate_on_illegal():
    env = hex_v0.env(board_size=5)
    env.reset(seed=0)
    env.step(12)
    env.step(12)                      # white plays the occupied point
    assert all(env.terminations.values())
    assert env.rewards["white_0"] == -1
    assert env._cumulative_rewards["white_0"] == -1


def test_env_raise_on_illegal():
    env = hex_v0.env(board_size=5, illegal="raise")
    env.reset()
    env.step(12)
    with pytest.raises(IllegalMoveError):
        env.step(12)
    assert env.unwrapped.state.move_count == 1


def test_win_rewards():
    env = hex_v0.env(board_size=3, swap=False)
    env.reset()
    for a in (0, 2, 3, 5, 6):          # black A1 A2 A3: column A, top to bottom
        assert not any(env.terminations.values())
        env.step(a)
    assert all(env.terminations.values())
    assert env.rewards == {"black_0": 1, "white_0": -1}


@pytest.mark.parametrize("kwargs,words", [
    ({"board_size": 1}, "2..19"), ({"board_size": 25}, "2..19"), ({"swap": "no"}, "swap"),
    ({"illegal": "ignore"}, "terminate"), ({"render_mode": "svg"}, "ansi"),
])
def test_bad_kwargs(kwargs, words):
    with pytest.raises(ValueError) as e:
        hex_v0.env(**kwargs)
    assert words in str(e.value)


def test_render_ansi():
    env = hex_v0.env(board_size=5, render_mode="ansi")
    env.reset()
    env.step(0)        # black A1 (row 0)
    env.step(24)       # white E5 (row 4)
    text = env.render()
    lines = text.splitlines()
    assert lines[0].split() == list("ABCDE")
    rows = lines[1:6]
    assert [ln.split()[0] for ln in rows] == ["1", "2", "3", "4", "5"]      # row 1 at the top
    # rhombus: row r is shifted r places right; row 0's cells sit under the column letters
    expected = np.full((5, 5), ".")
    expected[0, 0], expected[4, 4] = "X", "O"
    for r in range(5):
        for c in range(5):
            if r == 0:
                assert lines[0][3 + 2 * c] == "ABCDE"[c]
            assert rows[r][3 + r + 2 * c] == expected[r, c], (r, c)
    assert rows[4].endswith("[O]")                                              # last move marked
    assert "black_0 to move" in text


def test_render_rgb():
    env = hex_v0.env(board_size=5, render_mode="rgb_array")
    env.reset()
    env.step(12)
    img = env.render()
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    env2 = hex_v0.env(board_size=5, render_mode="rgb_array")
    env2.reset()
    assert not np.array_equal(env2.render(), img)       # the stone shows


# ---- vector path -------------------------------------------------------------------------------
@pytest.mark.parametrize("n,swap", [(2, True), (3, False), (4, True), (5, True)])
def test_vector_matches_states(n, swap):
    N = 8
    venv = zerogym.vector.make("hex", num_envs=N, board_size=n, swap=swap)
    obs, infos = venv.reset(seed=3)
    states = [HexState(board_size=n, swap=swap) for _ in range(N)]
    rng = np.random.default_rng(7)
    finished = 0
    for _ in range(120):
        for i, s in enumerate(states):
            assert np.array_equal(obs["observation"][i], s.observation(s.current_player))
            assert np.array_equal(obs["action_mask"][i], s.legal_mask())
            assert infos["to_play"][i] == s.current_player
            assert venv.get_state(i) == s
        actions = np.array([rng.choice(s.legal_actions()) for s in states])
        obs, rewards, term, trunc, infos = venv.step(actions)
        for i, s in enumerate(states):
            mover = s.current_player
            s.step(int(actions[i]))
            assert not trunc[i]
            assert term[i] == s.is_terminal()
            assert infos["_final_observation"][i] == s.is_over()
            if s.is_over():
                finished += 1
                assert rewards[i] == s.returns()[mover] == 1.0        # in Hex the mover wins
                assert np.array_equal(infos["final_observation"][i], s.observation(s.current_player))
                s.reset()
            else:
                assert rewards[i] == 0
    assert finished > N


def test_vector_illegal_changes_nothing():
    venv = zerogym.vector.make("hex", num_envs=4, board_size=3)
    venv.reset()
    venv.step(np.array([0, 1, 2, 3]))
    before = [venv.get_state(i).to_bytes() for i in range(4)]
    with pytest.raises(IllegalMoveError, match="game 2") as e:
        venv.step(np.array([4, 4, 2, 4]))
    assert "white_0" in str(e.value)
    assert [venv.get_state(i).to_bytes() for i in range(4)] == before
