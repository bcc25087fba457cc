"""Saved agents: round trip, the shipped pretrained agents, refusals."""
import numpy as np
import pytest

import zerogym
from zerogym_agents.arena.cli import agent_from_spec
from zerogym_agents.checkpoint import CheckpointError, save_checkpoint
from zerogym_agents.nets import PolicyValueNet, for_game
from zerogym_agents.saved import load_agent, load_card, pretrained_names, save_agent


def test_round_trip_keeps_the_net_and_options(tmp_path):
    net = PolicyValueNet(for_game("connect_four", trunk="resnet", blocks=1, channels=8))
    save_agent(tmp_path / "a.pt", net, {"simulations": 7}, {"game": "connect_four"})
    agent = load_agent(str(tmp_path / "a.pt"), seed=0)
    assert agent.simulations == 7
    assert load_card(str(tmp_path / "a.pt"))["game"] == "connect_four"
    assert (tmp_path / "a.json").exists()
    planes = np.random.default_rng(0).integers(0, 2, (3, 3, 6, 7)).astype(np.float32)
    masks = np.ones((3, 7), np.int8)
    p1, v1 = agent.evaluator(planes, masks)
    from zerogym_agents.nets import make_evaluator
    p0, v0 = make_evaluator(net)(planes, masks)
    assert np.allclose(p0, p1) and np.allclose(v0, v1)
    assert load_agent(str(tmp_path / "a.pt"), simulations=3).simulations == 3


def test_pretrained_tictactoe_plays_and_never_loses_to_random():
    assert "tictactoe" in pretrained_names()
    card = load_card("pretrained:tictactoe")
    assert card["game"] == "tictactoe" and "command" in card
    from zerogym_agents.arena.match import play_match
    from zerogym_agents import RandomAgent
    result = play_match(load_agent("pretrained:tictactoe", seed=0), RandomAgent(1), "tictactoe", {}, games=10, seed=4)
    assert result.total.losses == 0


def test_pretrained_go_9x9_is_the_transfer_experiments_best_and_beats_random():
    card = load_card("pretrained:go_9x9")
    assert card["game"] == "go" and card["kwargs"]["board_size"] == 9
    final = card["selection"]["final_elo"]
    assert card["selection"]["method"] == max(final, key=final.get) == card["training"]["method"]
    from zerogym_agents.arena.match import play_match
    from zerogym_agents import RandomAgent
    agent = load_agent("pretrained:go_9x9", simulations=32, seed=0)
    result = play_match(agent, RandomAgent(1), "go", {"board_size": 9}, games=4, seed=0)
    assert result.total.wins == 4


def test_arena_specs_reach_saved_agents():
    agent = agent_from_spec("pretrained:tictactoe", "tictactoe", {}, seed=0)
    env = zerogym.make("tictactoe")
    env.reset()
    assert env.unwrapped.state.is_legal(agent.act(env))


def test_arena_specs_take_any_saved_file_and_refuse_an_agent_of_another_game(tmp_path):
    import shutil
    from zerogym_agents.saved import resolve
    shutil.copy(resolve("pretrained:tictactoe"), tmp_path / "ttt.agent")        # not named *.pt
    env = zerogym.make("tictactoe")
    env.reset()
    assert env.unwrapped.state.is_legal(agent_from_spec(str(tmp_path / "ttt.agent"), "tictactoe", {}, seed=0).act(env))
    with pytest.raises(ValueError, match=r"connect_four\.pt: .*does not fit game 'tictactoe'"):
        agent_from_spec("pretrained:connect_four", "tictactoe", {}, seed=0)
    with pytest.raises(ValueError, match="does not fit game 'othello'"):
        load_agent("pretrained:go_5x5", game="othello", game_kwargs={"board_size": 6})
    agent_from_spec("pretrained:go_5x5", "go", {"board_size": 9}, seed=0)        # any board size of its game
    with pytest.raises(ValueError, match="unknown agent spec 'nothing-here'"):
        agent_from_spec("nothing-here", "tictactoe", {}, seed=0)


def test_refusals(tmp_path):
    with pytest.raises(ValueError, match="no pretrained agent 'chess'.*tictactoe"):
        load_agent("pretrained:chess")
    save_checkpoint(tmp_path / "x.pt", "alphazero", {})
    with pytest.raises(CheckpointError, match="expected 'agent'"):
        load_agent(str(tmp_path / "x.pt"))
    (tmp_path / "junk.pt").write_bytes(b"junk")
    with pytest.raises(CheckpointError, match="not a readable"):
        load_agent(str(tmp_path / "junk.pt"))


def test_policy_kind_loads_as_a_policy_agent(tmp_path):
    from zerogym_agents.pg.agent import PolicyAgent
    net = PolicyValueNet(for_game("tictactoe", trunk="resnet", blocks=1, channels=8))
    save_agent(tmp_path / "p.pt", net, {"greedy": False}, {"game": "tictactoe"}, kind="policy")
    agent = agent_from_spec(str(tmp_path / "p.pt"), "tictactoe", {}, seed=0)
    assert isinstance(agent, PolicyAgent) and not agent.greedy
    env = zerogym.make("tictactoe")
    env.reset()
    assert env.unwrapped.state.is_legal(agent.act(env))
    from zerogym_agents.nets import net_payload
    save_checkpoint(tmp_path / "odd.pt", "agent", {"agent": "oracle", "net": net_payload(net), "options": "{}",
                                                   "card": "{}"})
    with pytest.raises(CheckpointError, match="unknown agent kind 'oracle'; known: alphazero, policy"):
        load_agent(str(tmp_path / "odd.pt"))
