"""Opponent pools as players: frozen snapshots, never the live learner, usable by SingleAgentEnv."""

import numpy as np
import pytest
import torch

import zerogym
from zerogym.wrappers import SingleAgentEnv
from zerogym_agents.nets import PolicyValueNet, for_game
from zerogym_agents.pg.opponents import PoolOpponent, SnapshotSchedule, make_selfplay_env, snapshot
from zerogym_agents.training.pool import OpponentPool

TINY = {"trunk": "resnet", "blocks": 1, "channels": 8}


def learner(game="connect_four"):
    torch.manual_seed(0)
    return PolicyValueNet(for_game(game, **TINY))


def storages(module_or_dict):
    tensors = (
        module_or_dict.values()
        if isinstance(module_or_dict, dict)
        else list(module_or_dict.parameters()) + list(module_or_dict.buffers())
    )
    return {t.untyped_storage().data_ptr() for t in tensors if t.numel()}


def train_a_bit(net, steps=3):
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    net.train()
    for _ in range(steps):
        logits, value = net(torch.rand(8, 3, 6, 7))
        opt.zero_grad()
        (logits.logsumexp(1).mean() + value.mean()).backward()
        opt.step()
    net.eval()


def test_the_pool_never_hands_out_the_live_learner():
    net = learner()
    pool = OpponentPool(capacity=3, seed=0)
    pool.add(snapshot(net))
    _, snap = pool.sample()
    assert not storages(snap["state_dict"]) & storages(net)
    opp = PoolOpponent(pool, seed=0)
    opp.reset()
    assert opp.net is not net
    assert not storages(opp.net) & storages(net)
    assert not opp.net.training and not any(p.requires_grad for p in opp.net.parameters())


def test_snapshots_stay_frozen_while_the_learner_trains():
    net = learner()
    pool = OpponentPool(capacity=3, seed=0)
    pool.add(snapshot(net), name="s")
    opp = PoolOpponent(pool, seed=0)
    opp.reset()
    before = {k: v.clone() for k, v in net.state_dict().items()}
    train_a_bit(net)
    assert any(not torch.equal(before[k], v) for k, v in net.state_dict().items())  # the learner moved
    for k, v in pool.entries["s"][0]["state_dict"].items():
        assert torch.equal(v, before[k]), k
    for k, v in opp.net.state_dict().items():
        assert torch.equal(v, before[k]), k


def test_pool_size_is_bounded_and_draws_follow_the_pool():
    net = learner()
    pool = OpponentPool(capacity=2, mode="uniform", seed=1)
    for i in range(5):
        pool.add(snapshot(net), name=f"s{i}")
    assert list(pool.entries) == ["s3", "s4"]
    opp = PoolOpponent(pool, seed=0)
    drawn = set()
    for _ in range(40):
        opp.reset()
        drawn.add(opp.current)
    assert drawn == {"s3", "s4"}


def test_snapshot_schedule_fires_once_per_multiple_passed():
    sched = SnapshotSchedule(10, "episodes")
    fired = [c for c in (4, 8, 12, 13, 19, 20, 35, 38, 41) if sched.due(c)]
    assert fired == [12, 20, 35, 41]  # 35 passes 30 (one snapshot however many multiples), 41 passes 40
    with pytest.raises(ValueError, match="snapshot unit must be one of 'episodes', 'steps'"):
        SnapshotSchedule(10, "games")
    with pytest.raises(ValueError, match="integer >= 1"):
        SnapshotSchedule(0)


def test_single_agent_env_plays_pool_opponents_and_reports_results():
    pool = OpponentPool(capacity=4, mode="elo", seed=0)
    pool.add(snapshot(learner()), name="a")
    torch.manual_seed(1)
    pool.add(snapshot(PolicyValueNet(for_game("connect_four", **TINY))), name="b")
    env = make_selfplay_env("connect_four", pool, seed=0)
    rng = np.random.default_rng(0)
    seen, seats = set(), []
    for episode in range(12):
        obs, info = env.reset(seed=episode if episode == 0 else None)
        seats.append(info["seat"])
        done = False
        while not done:
            mask = env.action_masks()
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = terminated or truncated
        assert "illegal_action" not in info  # the pool opponent's moves were all legal
        assert info["result"] == reward
        seen.add(info["opponent"])
    assert seen == {"a", "b"}
    assert seats == [0, 1] * 6  # colours alternate
    assert env.episodes == 12 and env.wins + env.losses + env.draws == 12
    assert pool.learner_elo != 0.0


def test_pool_opponent_also_plays_agents_and_callables():
    pool = OpponentPool(capacity=2, seed=0)
    pool.add(lambda env: int(env.unwrapped.state.legal_actions()[-1]), name="last")
    opp = PoolOpponent(pool)
    with pytest.raises(RuntimeError, match="reset"):
        opp.act(None)
    single = SingleAgentEnv(zerogym.make("tictactoe"), opp, learner="second")
    single.reset(seed=0)  # the opponent moved first: the last legal cell
    assert single.env.state.last_action == 8
    with pytest.raises(ValueError, match="not a net"):
        opp.logits(np.zeros((1, 3, 3, 3), np.float32))
    pool.add(42, name="junk")
    with pytest.raises(ValueError, match="neither snapshot"):
        opp.load("junk", 42)
