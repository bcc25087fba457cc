"""tictactoe_v0: the Tic-tac-toe / Gomoku parts of the env (the contract every game keeps is in
test_contract.py): both views of a Gomoku position, a win and a draw."""

from zerogym import tictactoe_v0


def test_observations_from_both_views_and_masks():
    env = tictactoe_v0.raw_env(board_size=15, win_length=5)
    env.reset()
    env.step(0)  # X A1
    env.step(16)  # O B2
    env.step(2)  # X C1
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
    for a in [0, 3, 1, 4, 2]:  # X completes row 1
        env.step(a)
    assert env.rewards == {"player_0": 1, "player_1": -1}
    assert all(env.terminations.values()) and not any(env.truncations.values())


def test_draw_through_env():
    env = tictactoe_v0.env()
    env.reset()
    for a in [0, 1, 2, 4, 3, 5, 7, 6, 8]:  # X O X / X O O / O X X: no line
        env.step(a)
    assert env.rewards == {"player_0": 0, "player_1": 0}
    assert all(env.terminations.values())
