"""hex_v0: the Hex parts of the env (the contract every game keeps is in test_contract.py): the
observation planes from both sides before and after a swap, a win."""

import numpy as np

from zerogym import hex_v0
from cases import black_plays_d2


def test_observation_from_both_sides_and_masks():
    env = hex_v0.raw_env(board_size=5)
    env.reset()
    ob, ow = env.observe("black_0"), env.observe("white_0")
    assert ob["action_mask"].sum() == 25 and ob["action_mask"][25] == 0  # no swap on move 1
    assert ow["action_mask"].sum() == 0  # white is not to move
    ob, ow = black_plays_d2(env, colour=2, ones=3)
    assert ow["action_mask"][25] == 1 and ow["action_mask"][8] == 0 and ow["action_mask"].sum() == 25
    env.step(25)  # swap
    ob, ow = env.observe("black_0"), env.observe("white_0")
    assert env.agent_selection == "black_0"
    assert ow["observation"][3, 1, 0] == 1 and ow["observation"][:, :, 0].sum() == 1
    assert ob["observation"][3, 1, 1] == 1 and ob["observation"][:, :, 0].sum() == 0
    assert ow["action_mask"].sum() == 0 and ob["action_mask"][25] == 0 and ob["action_mask"].sum() == 24
    assert np.array_equal(env.state(), env.observe("black_0")["observation"])


def test_win_rewards():
    env = hex_v0.env(board_size=3, swap=False)
    env.reset()
    for a in (0, 2, 3, 5, 6):  # black A1 A2 A3: column A, top to bottom
        assert not any(env.terminations.values())
        env.step(a)
    assert all(env.terminations.values())
    assert env.rewards == {"black_0": 1, "white_0": -1}
