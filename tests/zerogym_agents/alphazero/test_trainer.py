"""AlphaZero trainer: a short run completes, checkpoints resume exactly, bad checkpoints are refused."""
import json
import os

import numpy as np
import pytest
import torch

import zerogym
from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.alphazero.trainer import AGENT, CHECKPOINT, AlphaZeroTrainer
from zerogym_agents.checkpoint import CheckpointError
from zerogym_agents.nets import load_net
from zerogym_agents.saved import load_agent, load_card


def tiny(**over):
    kw = dict(game="tictactoe", concurrent_games=8, simulations=12, max_steps=24, checkpoint_every=8,
              batch_size=16, min_buffer=32, net={"trunk": "resnet", "blocks": 1, "channels": 8}, seed=3)
    kw.update(over)
    return AlphaZeroConfig(**kw)


def weights(trainer):
    return {k: v.clone() for k, v in trainer.net.state_dict().items()}


def test_short_run_plays_games_trains_and_checkpoints(tmp_path):
    tr = AlphaZeroTrainer(tiny(), tmp_path, log_dir=False)
    before = weights(tr)
    history = tr.run(progress=False)
    assert [h["step"] for h in history] == [8, 16, 24]
    assert tr.games > 0 and tr.positions >= tr.games * 5      # a tic-tac-toe game has at least 5 moves
    assert tr.train_steps > 0
    assert any(not torch.equal(before[k], v) for k, v in tr.net.state_dict().items())
    assert os.path.exists(tmp_path / CHECKPOINT)
    agent = load_agent(str(tmp_path / AGENT))
    env = zerogym.make("tictactoe")
    env.reset(seed=0)
    assert env.unwrapped.state.is_legal(agent.act(env))
    assert load_card(str(tmp_path / AGENT))["training"]["steps"] == 24
    for f in (AGENT, CHECKPOINT):              # load_net reads the net out of agent and checkpoint files
        assert all(torch.equal(v, tr.net.state_dict()[k]) for k, v in load_net(tmp_path / f).state_dict().items())
    assert json.loads((tmp_path / "config.json").read_text())["simulations"] == 12


def test_resume_continues_exactly(tmp_path):
    full = AlphaZeroTrainer(tiny(), tmp_path / "a", log_dir=False)
    full.run(progress=False)
    cut = AlphaZeroTrainer(tiny(), tmp_path / "b", log_dir=False)
    cut.run(progress=False, stop_at=8)        # killed right after the first checkpoint
    resumed = AlphaZeroTrainer(tiny(), tmp_path / "b", resume=True, log_dir=False)
    assert resumed.step == 8
    resumed.run(progress=False)
    assert (resumed.games, resumed.positions, resumed.train_steps) == (full.games, full.positions, full.train_steps)
    for k, v in full.net.state_dict().items():
        assert torch.equal(v, resumed.net.state_dict()[k]), k
    assert np.array_equal(full.replay.values, resumed.replay.values)


def test_value_targets_are_the_game_result_from_the_movers_view(tmp_path):
    tr = AlphaZeroTrainer(tiny(max_steps=12), tmp_path, log_dir=False)
    tr.run(progress=False)
    n = len(tr.replay)
    planes, values = tr.replay.planes[:n], tr.replay.values[:n]
    assert set(np.unique(values)) <= {-1.0, 0.0, 1.0}
    # tic-tac-toe: the mover's stones (plane 0) are never more than the opponent's (plane 1) + 1,
    # and a position with one more stone for the opponent was reached by the opponent's move
    own, opp = planes[:, 0].sum(axis=(1, 2)), planes[:, 1].sum(axis=(1, 2))
    assert np.all((own == opp) | (own + 1 == opp))


def test_resume_refuses_another_game(tmp_path):
    AlphaZeroTrainer(tiny(max_steps=8), tmp_path, log_dir=False).run(progress=False)
    with pytest.raises(CheckpointError, match="connect_four"):
        AlphaZeroTrainer(tiny(game="connect_four", max_steps=8), tmp_path, resume=True, log_dir=False)


def test_no_pass_fraction_keeps_self_play_from_passing_early(tmp_path):
    cfg = tiny(game="go", game_kwargs={"board_size": 5}, pool_fraction=0.0, no_pass_fraction=1.0, max_steps=70,
               checkpoint_every=70)
    tr = AlphaZeroTrainer(cfg, tmp_path, log_dir=False)
    assert tr.mcts.no_pass_before == 25                     # every point of the 5x5 board
    tr.run(progress=False)
    assert tr.games >= 8
    assert tr.positions >= 26 * tr.games                    # no game ends before two passes after move 25
    tr = AlphaZeroTrainer(tiny(game="go", game_kwargs={"board_size": 5}, no_pass_fraction=0.5), tmp_path / "b",
                          log_dir=False)
    assert tr.mcts.no_pass_before == tr.opp_mcts.no_pass_before == 13


def test_bad_config_is_refused():
    with pytest.raises(ValueError, match="simulations"):
        AlphaZeroConfig(simulations=0)
    with pytest.raises(ValueError, match=r"no_pass_fraction must be a number in \[0, 1\]"):
        AlphaZeroConfig(no_pass_fraction=1.5)
    with pytest.raises(ValueError, match="unknown AlphaZeroConfig fields"):
        AlphaZeroConfig.from_dict({"sims": 3})


@pytest.mark.parametrize("value_loss,recovers", [("mse", False), ("bce", True)])
def test_a_saturated_value_head_recovers_only_with_bce(value_loss, recovers):
    """The failure behind the default: a value head stuck at +1 never learns under MSE on tanh."""
    from zerogym_agents.nets import PolicyValueNet, for_game, loss
    torch.manual_seed(0)
    net = PolicyValueNet(for_game("connect_four", trunk="resnet", blocks=1, channels=8, value_loss=value_loss))
    last = [m for m in net.value.modules() if isinstance(m, torch.nn.Linear)][-1]
    with torch.no_grad():
        last.bias.fill_(20.0)                       # tanh(20) = 1 to float precision: saturated
    planes = torch.randint(0, 2, (64, 3, 6, 7)).float()
    policy = torch.full((64, 7), 1 / 7)
    target = -torch.ones(64)                        # every position is lost
    opt = torch.optim.SGD(net.parameters(), lr=0.02, momentum=0.9)
    for _ in range(100):
        opt.zero_grad()
        loss(net, planes, policy, target)[0].backward()
        opt.step()
    with torch.no_grad():
        v = net(planes)[1].mean().item()
    assert (v < 0) == recovers, v


def test_pool_games_train_only_on_the_learners_moves(tmp_path):
    tr = AlphaZeroTrainer(tiny(concurrent_games=4, pool_fraction=0.5, max_steps=40), tmp_path, log_dir=False)
    assert tr.num_pool == 2
    seen_opponent_move = False
    while tr.step < 40:
        tr.self_play_step()
        for j in range(tr.num_pool):
            movers = [m[3] for m in tr.pending[2 + j]]
            assert all(mv == tr.learner_seat[j] for mv in movers)
            seen_opponent_move |= tr.roots[2 + j].move_count > len(movers)
    assert seen_opponent_move
    assert tr.pool_games > 0
    assert tr.pool.learner_elo != 0.0          # every pool game moves the Elo (K > 0, scores 0, 1/2 or 1)


def test_pool_holds_frozen_checkpoints_and_the_opponent_plays_one(tmp_path):
    tr = AlphaZeroTrainer(tiny(max_steps=24, pool_size=3), tmp_path, log_dir=False)
    tr.run(progress=False, stop_at=8)
    snap8 = {k: v.clone() for k, v in tr.pool.entries["step-8"][0].items()}
    assert all(torch.equal(v, tr.net.state_dict()[k]) for k, v in snap8.items())
    tr.run(progress=False)
    assert list(tr.pool.entries) == ["step-8", "step-16", "step-24"]         # the last pool_size, in order
    assert all(torch.equal(v, tr.pool.entries["step-8"][0][k]) for k, v in snap8.items())   # unchanged by training
    assert any(not torch.equal(v, tr.net.state_dict()[k]) for k, v in snap8.items())
    drawn = tr.pool.entries[tr.opponent][0]
    assert all(torch.equal(v, tr.opp_net.state_dict()[k]) for k, v in drawn.items())


def test_without_pool_every_move_is_trained_on(tmp_path):
    tr = AlphaZeroTrainer(tiny(pool_fraction=0.0, max_steps=10), tmp_path, log_dir=False)
    tr.run(progress=False)
    assert tr.num_pool == 0 and len(tr.pool) == 0
    assert all(len(p) == r.move_count for p, r in zip(tr.pending, tr.roots))


def test_init_from_starts_from_a_net_of_another_board_size(tmp_path):
    from zerogym_agents.nets import NetFileError, PolicyValueNet, for_game, save_net
    small = PolicyValueNet(for_game("go", game_kwargs={"board_size": 5}, blocks=1, channels=8))
    save_net(small, tmp_path / "go5.pt")
    cfg = tiny(game="go", game_kwargs={"board_size": 7}, init_from=str(tmp_path / "go5.pt"), max_steps=4,
               checkpoint_every=2)
    tr = AlphaZeroTrainer(cfg, tmp_path / "run", log_dir=False)
    assert all(torch.equal(v, tr.net.state_dict()[k]) for k, v in small.state_dict().items())
    tr.run(progress=False, stop_at=2)
    os.remove(tmp_path / "go5.pt")                 # resuming needs only the run's own checkpoint
    resumed = AlphaZeroTrainer(cfg, tmp_path / "run", resume=True, log_dir=False)
    assert all(torch.equal(v, resumed.net.state_dict()[k]) for k, v in tr.net.state_dict().items())
    save_net(PolicyValueNet(for_game("othello", blocks=1, channels=8)), tmp_path / "othello.pt")
    with pytest.raises(NetFileError, match="othello"):
        AlphaZeroTrainer(tiny(game="go", game_kwargs={"board_size": 5}, init_from=str(tmp_path / "othello.pt")),
                         tmp_path / "bad", log_dir=False)
