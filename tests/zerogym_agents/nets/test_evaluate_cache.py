"""make_evaluator(cache=N): repeats answered from the cache, emptied when the weights change."""

import numpy as np
import pytest
import torch

from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
from zerogym_agents.nets.evaluate import make_evaluator
from zerogym_agents.nets.model import PolicyValueNet, for_game
from net_cases import positions
from tiny_runs import alphazero_config


def make_net(seed=0):
    torch.manual_seed(seed)
    return PolicyValueNet(for_game("connect_four", blocks=1, channels=8)).eval()


def close(a, b):
    return np.allclose(a[0], b[0], atol=1e-6) and np.allclose(a[1], b[1], atol=1e-6)


def test_repeats_get_the_nets_answer_and_reach_the_net_once():
    net = make_net()
    planes, masks = positions("connect_four", 6)
    batch = np.concatenate([planes, planes[:3], planes[:1]]), np.concatenate([masks, masks[:3], masks[:1]])
    rows = []
    net.register_forward_hook(lambda m, i, o: rows.append(i[0].shape[0]))
    cached = make_evaluator(net, cache=100)
    got = cached(*batch)
    assert rows == [6] and (cached.hits, cached.misses) == (4, 6)
    again = cached(planes[::-1].copy(), masks[::-1].copy())  # every one seen before
    assert rows == [6] and (cached.hits, cached.misses) == (10, 6)
    assert close(got, make_evaluator(net)(*batch))
    assert close(again, (got[0][:6][::-1], got[1][:6][::-1]))
    again[0][:] = 7.0  # the caller's copy, not the cache's
    assert close(cached(planes, masks), (got[0][:6], got[1][:6]))


def test_the_mask_is_part_of_the_key():
    net = make_net()
    planes, masks = positions("connect_four", 1)
    other = masks.copy()
    other[0, np.flatnonzero(other[0])[0]] = 0
    cached = make_evaluator(net, cache=100)
    p1, _ = cached(planes, masks)
    p2, _ = cached(planes, other)
    assert cached.misses == 2 and p2[0, np.flatnonzero(masks[0])[0]] == 0 and not np.allclose(p1, p2)


@pytest.mark.parametrize("change", ["optimizer step", "load_state_dict", "buffer"])
def test_a_change_of_weights_empties_the_cache(change):
    net = make_net()
    planes, masks = positions("connect_four", 8)
    cached = make_evaluator(net, cache=100)
    before = cached(planes, masks)
    if change == "optimizer step":
        opt = torch.optim.SGD(net.parameters(), lr=0.5)
        net.train()
        logits, values = net(torch.from_numpy(planes))
        (logits.square().mean() + values.square().mean()).backward()
        opt.step()
        net.eval()
    elif change == "load_state_dict":
        net.load_state_dict(make_net(seed=1).state_dict())
    else:
        with torch.no_grad():
            next(m for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d)).running_mean.add_(0.5)
    after = cached(planes, masks)
    assert cached.misses == 16 and not close(before, after)
    assert close(after, make_evaluator(net)(planes, masks))


def test_a_full_cache_is_emptied_and_answers_stay_right():
    net = make_net()
    planes, masks = positions("connect_four", 10)
    cached, plain = make_evaluator(net, cache=4), make_evaluator(net)
    for lo in (0, 3, 6, 0):
        assert close(cached(planes[lo : lo + 4], masks[lo : lo + 4]), plain(planes[lo : lo + 4], masks[lo : lo + 4]))
        assert len(cached._cache) <= 4
    assert close(cached(planes, masks), plain(planes, masks))  # a batch larger than the cache
    assert len(cached._cache) <= 4


def test_another_board_shape_with_the_same_bytes_is_not_a_repeat():
    torch.manual_seed(0)
    net = PolicyValueNet(for_game("othello", blocks=1, channels=8)).eval()
    cached, plain = make_evaluator(net, cache=100), make_evaluator(net)
    rng = np.random.default_rng(0)
    planes = (rng.random((1, net.config.in_planes, 4, 6)) < 0.3).astype(np.float32)
    masks = np.ones((1, 4 * 6 + 1), np.int8)
    wide = cached(planes, masks)
    tall = planes.reshape(1, -1, 6, 4)  # the same bytes on a 6x4 board
    assert close(cached(tall, masks), plain(tall, masks)) and cached.misses == 2
    assert close(wide, plain(planes, masks))


def test_bad_cache_setting():
    for bad in (-1, 1.5, True, "64"):
        with pytest.raises(ValueError, match="cache must be a non-negative integer"):
            make_evaluator(make_net(), cache=bad)


def test_self_play_uses_the_configs_cache(tmp_path):
    cfg = alphazero_config(concurrent_games=4, simulations=8, batch_size=8, min_buffer=8, eval_cache=123)
    trainer = AlphaZeroTrainer(cfg, tmp_path / "run")
    assert trainer.evaluator.cache_size == trainer.opp_evaluator.cache_size == 123
    trainer.train_for(2)
    assert trainer.evaluator.hits > 0  # transpositions and shared openings
    off = AlphaZeroTrainer(AlphaZeroConfig(**{**cfg.to_dict(), "eval_cache": 0}), tmp_path / "off")
    assert off.evaluator.cache_size == 0
