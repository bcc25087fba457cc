"""connect_four_v0: the Connect Four parts of the env (the contract every game keeps is in
test_contract.py): pieces fall, both views of a position, a win."""

import numpy as np

from zerogym import connect_four_v0


def test_observations_from_both_views_and_masks():
    env = connect_four_v0.raw_env()
    env.reset()
    for a in [3, 3, 2]:  # X d1, O d2, X c1
        env.step(a)
    assert env.agent_selection == "player_1"
    o0, o1 = env.observe("player_0"), env.observe("player_1")
    own0, opp0 = o0["observation"][:, :, 0], o0["observation"][:, :, 1]
    assert own0[5, 3] == 1 and own0[5, 2] == 1 and own0.sum() == 2
    assert opp0[4, 3] == 1 and opp0.sum() == 1
    assert (o1["observation"][:, :, 0] == opp0).all() and (o1["observation"][:, :, 1] == own0).all()
    assert (o0["observation"][:, :, 2] == 1).all()
    assert (o0["action_mask"] == 0).all()  # not player_0's turn
    assert (o1["action_mask"] == 1).all()
    assert o1["action_mask"].dtype == np.int8
    assert env.observation_space("player_0").contains(o0) and env.observation_space("player_1").contains(o1)
    assert (env.state() == o0["observation"]).all()  # global state: player 0's view


def test_full_game_rewards_through_env():
    env = connect_four_v0.env()
    env.reset(seed=0)
    for a in [0, 1, 0, 1, 0, 1, 0]:  # vertical four for player_0
        env.step(a)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1, "player_1": -1}
    _, reward, term, trunc, _ = env.last()
    assert term and not trunc and reward == -1 and env.agent_selection == "player_1"
