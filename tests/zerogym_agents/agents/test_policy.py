"""PolicyAgent: legal moves only, argmax or softmax sampling, any board size, saved and loaded as kind "policy"."""

import numpy as np
import pytest
import torch

import zerogym
from zerogym_agents import RandomAgent
from zerogym_agents.nets import PolicyValueNet, for_game
from zerogym_agents.agents.policy import PolicyAgent, select_actions
from zerogym_agents.agents.saved import load_agent, load_card, save_agent

TINY = {"trunk": "resnet", "blocks": 1, "channels": 8}


def tiny_net(game, **kw):
    torch.manual_seed(0)
    return PolicyValueNet(for_game(game, game_kwargs=kw, **TINY)).eval()


def play(env, agents, seed):
    """One game; agents[p] moves for player p. Returns the final State."""
    env.reset(seed=seed)
    st = env.unwrapped.state
    while not st.is_over():
        env.step(agents[st.current_player].act(env))
    return st


def test_select_actions_never_picks_a_masked_action_and_samples_the_softmax():
    logits = np.array([[5.0, 0.0, 1.0, 0.0]] * 40000, np.float32)
    masks = np.array([[0, 1, 1, 1]] * 40000, np.int8)
    a = select_actions(logits, masks, np.random.default_rng(0))
    assert not (a == 0).any()
    p = np.exp([0.0, 1.0, 0.0]) / np.exp([0.0, 1.0, 0.0]).sum()
    assert np.allclose(np.bincount(a, minlength=4)[1:] / len(a), p, atol=0.01)
    assert (select_actions(logits[:3], masks[:3], greedy=True) == 2).all()
    with pytest.raises(ValueError, match="no legal action"):
        select_actions(logits[:2], np.zeros((2, 4), np.int8), greedy=True)
    with pytest.raises(ValueError, match="numpy Generator"):
        select_actions(logits[:2], masks[:2])


@pytest.mark.parametrize(
    "game,kwargs",
    [
        ("tictactoe", {}),
        ("connect_four", {}),
        ("othello", {"board_size": 6}),
        ("hex", {"board_size": 5}),
        ("go", {"board_size": 5}),
    ],
)
@pytest.mark.parametrize("greedy", [True, False])
def test_plays_whole_games_with_legal_moves_only(game, kwargs, greedy):
    agent = PolicyAgent(tiny_net(game, **kwargs), greedy=greedy, seed=1)
    env = zerogym.make(game, illegal="raise", **kwargs)  # an illegal move would raise
    st = play(env, [agent, RandomAgent(2)], seed=3)
    assert st.is_over() and st.move_count > 0


def test_greedy_is_the_argmax_of_the_legal_logits_even_when_an_illegal_move_scores_highest():
    net = tiny_net("connect_four")
    env = zerogym.make("connect_four")
    env.reset()
    for _ in range(6):
        env.step(0)  # column 0 is full now
    real = net.forward_raw

    def biased(x):  # column 0 scores far above every other
        logits, z = real(x)
        return logits + torch.tensor([100.0, 0, 0, 0, 0, 0, 0]), z

    net.forward_raw = biased
    agent = PolicyAgent(net, greedy=True)
    with torch.no_grad():
        logits = biased(torch.from_numpy(env.unwrapped.state.encode()[None]))[0][0].numpy()
    assert agent.act(env) == 1 + int(np.argmax(logits[1:]))
    probs = agent.probabilities(env)
    assert probs[0] == 0 and probs.sum() == pytest.approx(1.0)


def test_sampling_is_seeded():
    env = zerogym.make("go", board_size=5)
    env.reset()
    a, b = (PolicyAgent(tiny_net("go", board_size=5), greedy=False, seed=7) for _ in range(2))
    draws = [a.act(env) for _ in range(30)]
    assert draws == [b.act(env) for _ in range(30)]
    assert len(set(draws)) > 1  # an untrained net spreads its moves


def test_a_size_independent_net_plays_another_board_size_but_not_another_game():
    agent = PolicyAgent(tiny_net("go", board_size=5))
    st = play(zerogym.make("go", board_size=7, illegal="raise"), [agent, RandomAgent(0)], seed=0)
    assert st.is_over()
    env = zerogym.make("othello", board_size=6)
    env.reset()
    with pytest.raises(ValueError, match="does not fit game 'othello'"):
        agent.act(env)
    with pytest.raises(ValueError, match="PolicyValueNet"):
        PolicyAgent(object())
    with pytest.raises(ValueError, match="greedy"):
        PolicyAgent(agent.net, greedy="yes")


def test_saved_as_policy_loads_as_a_policy_agent_with_the_same_net(tmp_path):
    net = tiny_net("connect_four")
    save_agent(tmp_path / "p.pt", net, {"greedy": False}, {"game": "connect_four"}, kind="policy")
    agent = load_agent(str(tmp_path / "p.pt"), seed=3)
    assert isinstance(agent, PolicyAgent) and agent.greedy is False
    assert load_card(str(tmp_path / "p.pt"))["game"] == "connect_four"
    planes = np.random.default_rng(0).integers(0, 2, (4, 3, 6, 7)).astype(np.float32)
    assert np.allclose(agent.logits(planes), PolicyAgent(net).logits(planes))
    assert load_agent(str(tmp_path / "p.pt"), greedy=True).greedy is True
    with pytest.raises(ValueError, match="kind must be one of alphazero, policy"):
        save_agent(tmp_path / "q.pt", net, kind="reinforce")


def test_lazy_export():
    import zerogym_agents

    assert zerogym_agents.PolicyAgent is PolicyAgent
