"""SingleAgentEnv: Gymnasium and SB3 env checks, seats, rewards, illegal actions."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

import zerogym
from zerogym.errors import ActionTypeError, IllegalMoveError
from zerogym.wrappers import SingleAgentEnv


def random_opponent(env):
    """Random legal moves drawn from the env's generator, so reset(seed=...) makes them reproducible."""
    return int(env.np_random.choice(env.unwrapped.state.legal_actions()))


def first_legal(env):
    return int(env.unwrapped.state.legal_actions()[0])


GAMES = [("tictactoe", {}), ("tictactoe", {"board_size": 5, "win_length": 4})]


@pytest.mark.parametrize("game,kwargs", GAMES)
@pytest.mark.parametrize("learner", ["first", "second", "alternate"])
def test_gymnasium_check_env(game, kwargs, learner):
    env = SingleAgentEnv(zerogym.make(game, **kwargs), random_opponent, learner=learner)
    gym_check_env(env, skip_render_check=True)


@pytest.mark.parametrize("game,kwargs", GAMES)
def test_sb3_check_env(game, kwargs):
    check_env = pytest.importorskip("stable_baselines3.common.env_checker").check_env  # the agents extra
    check_env(SingleAgentEnv(zerogym.make(game, **kwargs), random_opponent), warn=True)


def test_learner_second_sees_opponent_move_first():
    env = SingleAgentEnv(zerogym.make("tictactoe"), first_legal, learner="second")
    obs, info = env.reset(seed=0)
    # the opponent (first player) has played A1 = action 0; the learner sees it as an opponent stone
    assert obs[0, 0, 1] == 1 and obs[:, :, 0].sum() == 0
    assert not info["action_mask"][0] and info["action_mask"].sum() == 8
    assert env.learner_agent == "player_1"


def test_alternate_swaps_seats_each_episode():
    env = SingleAgentEnv(zerogym.make("tictactoe"), first_legal, learner="alternate")
    seats = []
    for _ in range(4):
        env.reset()
        seats.append(env.seat)
    assert seats == [0, 1, 0, 1]


def test_win_and_loss_rewards():
    # learner first plays the left column; the opponent plays the first legal point each time
    env = SingleAgentEnv(zerogym.make("tictactoe"), first_legal, learner="first")
    env.reset()
    # learner 0 (A1), opp 1 (B1), learner 3 (A2), opp 2 (C1), learner 6 (A3) wins the column
    _, r, term, _, _ = env.step(0)
    assert (r, term) == (0.0, False)
    env.step(3)
    _, r, term, trunc, _ = env.step(6)
    assert (r, term, trunc) == (1.0, True, False)
    # learner second: opponent takes 0,1,2 (top row) while the learner plays elsewhere
    env = SingleAgentEnv(zerogym.make("tictactoe"), first_legal, learner="second")
    env.reset()
    env.step(4)
    _, r, term, _, _ = env.step(8)
    assert (r, term) == (-1.0, True)


def test_illegal_action_loses_or_raises():
    env = SingleAgentEnv(zerogym.make("tictactoe"), first_legal, learner="second")
    env.reset()
    before = env.env.state.to_bytes()
    obs, r, term, trunc, info = env.step(0)  # occupied by the opponent
    assert (r, term) == (-1.0, True) and "occupied" in info["illegal_action"]
    assert env.env.state.to_bytes() == before
    env = SingleAgentEnv(zerogym.make("tictactoe"), first_legal, learner="second", illegal="raise")
    env.reset()
    with pytest.raises(IllegalMoveError, match="occupied"):
        env.step(0)


def test_action_masks_match_state():
    env = SingleAgentEnv(zerogym.make("tictactoe", board_size=4, win_length=3), random_opponent)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        mask = env.action_masks()
        assert np.array_equal(mask, env.env.state.legal_mask().astype(bool))
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        done = term or trunc
    assert not env.action_masks().any()


def test_bad_arguments():
    with pytest.raises(ValueError, match="learner"):
        SingleAgentEnv(zerogym.make("tictactoe"), first_legal, learner="both")
    with pytest.raises(TypeError, match="opponent"):
        SingleAgentEnv(zerogym.make("tictactoe"), opponent=42)


def test_reproducible_with_seeded_opponent():
    def episode():
        env = SingleAgentEnv(zerogym.make("tictactoe", board_size=4, win_length=3), random_opponent)
        obs, _ = env.reset(seed=5)
        trace = [obs.copy()]
        rng = np.random.default_rng(11)
        done = False
        while not done:
            obs, r, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            trace.append(obs.copy())
            done = term or trunc
        return trace, r

    (t1, r1), (t2, r2) = episode(), episode()
    assert r1 == r2 and all(np.array_equal(a, b) for a, b in zip(t1, t2))


@pytest.mark.parametrize("bad", [1.0, 4.7, True, np.bool_(False), "4", None, np.array([4])], ids=repr)
def test_non_integer_actions_are_refused_uncast(bad):
    env = SingleAgentEnv(zerogym.make("tictactoe"), first_legal, learner="first")
    env.reset()
    before = env.env.state.to_bytes()
    with pytest.raises(ActionTypeError):
        env.step(bad)
    assert env.env.state.to_bytes() == before
    env.step(np.array(4))  # SB3's predict() gives 0-d integer arrays
    assert env.env.state.board()[1, 1] == 1
