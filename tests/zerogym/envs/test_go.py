"""go_v0: the Go parts of the env (the contract every game keeps is in test_contract.py): the
observation planes from both sides, the score info at the end, truncation at max_moves."""

import numpy as np

from zerogym import go_v0
from cases import black_plays_d2


def test_observation_from_both_sides_and_masks():
    env = go_v0.raw_env(board_size=5)
    env.reset()
    ob, ow = env.observe("black_0"), env.observe("white_0")
    assert ob["action_mask"].sum() == 26 and ow["action_mask"].sum() == 0
    ob, ow = black_plays_d2(env, colour=5, ones=6)
    assert ow["action_mask"][8] == 0 and ow["action_mask"][25] == 1 and ow["action_mask"].sum() == 25
    assert np.array_equal(env.state(), env.observe("black_0")["observation"])
    env.step(25)  # white passes
    assert env.agent_selection == "black_0" and not any(env.terminations.values())
    assert env.observe("white_0")["action_mask"].sum() == 0


def test_two_passes_end_with_score_info():
    env = go_v0.env(board_size=5, komi=0.5)
    env.reset()
    env.step(12)  # black C3
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
