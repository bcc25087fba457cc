"""othello_v0: the Othello parts of the env (the contract every game keeps is in test_contract.py):
both views of a position, the rewards and disc counts at the end."""

import numpy as np

from zerogym import othello_v0


def test_observations_from_both_views():
    env = othello_v0.raw_env(board_size=8)
    env.reset()
    env.step(19)  # black d3 flips d4
    assert env.agent_selection == "white_0"
    ob, ow = env.observe("black_0"), env.observe("white_0")
    board = env.unwrapped.state.board()
    assert (ob["observation"][..., 0] == (board == 1)).all() and (ob["observation"][..., 1] == (board == 2)).all()
    assert (ow["observation"][..., 0] == (board == 2)).all() and (ow["observation"][..., 1] == (board == 1)).all()
    assert (ob["observation"][..., 2] == 1).all() and (ow["observation"][..., 2] == 1).all()
    assert ob["action_mask"].sum() == 0  # not black's turn
    assert np.flatnonzero(ow["action_mask"]).tolist() == [18, 20, 34]  # c3, e3, c5
    assert ow["action_mask"].dtype == np.int8


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
