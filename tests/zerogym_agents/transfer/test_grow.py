"""grow(): bigger nets that start from the same function, and still train; kernel_size in NetConfig."""

import json

import numpy as np
import pytest
import torch

from zerogym_agents.nets import NetConfig, NetFileError, PolicyValueNet, for_game, load_net, loss, save_net
from zerogym_agents.nets import make_evaluator
from zerogym_agents.agents.saved import load_agent
from zerogym_agents.transfer import CompositeNet, grow

BOARDS = [
    ("go", {"board_size": 5}),
    ("go", {"board_size": 7}),
    ("go", {"board_size": 9}),
    ("othello", {"board_size": 6}),
]
GROWTHS = [
    {"blocks": 3},
    {"channels": 13},
    {"kernel_size": 5},
    {"blocks": 2, "channels": 10},
    {"blocks": 3, "channels": 12, "kernel_size": 7},
]


def make_net(game, trunk, tools, seed=0):
    torch.manual_seed(seed)
    cfg = for_game(game, trunk=trunk, blocks=1, channels=8, expansion=2.5, policy_hidden=6, value_hidden=8)
    return tools.randomize_bn(PolicyValueNet(cfg), seed).eval()


def inputs(game, kwargs, tools, seed=0):
    """Real positions of random play and random 0/1 planes of the same shape."""
    planes, _ = tools.positions(game, 6, seed=seed, **kwargs)
    noise = (np.random.default_rng(seed).random(planes.shape) < 0.4).astype(np.float32)
    return torch.from_numpy(np.concatenate([planes, noise]))


def outputs(net, x):
    with torch.no_grad():
        return net.eval()(x)


@pytest.mark.parametrize("trunk", ["resnet", "mobilenet"])
@pytest.mark.parametrize("growth", GROWTHS, ids=lambda g: "+".join(f"{k}={v}" for k, v in g.items()))
def test_grown_net_computes_the_same_function(trunk, growth, tools):
    for game in ("go", "othello"):
        net = make_net(game, trunk, tools)
        grown = grow(net, seed=1, **growth)  # default: no noise
        for key, value in growth.items():
            assert getattr(grown.config, key) == value
        assert grown.num_parameters() > net.num_parameters() and not grown.training
        for g, kwargs in BOARDS:
            if g != game:
                continue
            x = inputs(game, kwargs, tools)
            (l0, v0), (l1, v1) = outputs(net, x), outputs(grown, x)
            assert l1.shape == l0.shape
            assert (l1 - l0).abs().max() < 1e-4 and (v1 - v0).abs().max() < 1e-4, (game, kwargs)
            assert (v0 - v0.mean()).abs().max() > 1e-3  # the inputs do tell positions apart


@pytest.mark.parametrize("trunk", ["resnet", "mobilenet"])
def test_growth_twice_and_in_train_mode(trunk, tools):
    net = make_net("go", trunk, tools)
    grown = grow(grow(net, blocks=2, noise=0.0), channels=11, kernel_size=5, noise=0.0)
    x = inputs("go", {"board_size": 7}, tools, seed=3)
    (l0, v0), (l1, v1) = outputs(net, x), outputs(grown, x)
    assert (l1 - l0).abs().max() < 1e-4 and (v1 - v0).abs().max() < 1e-4
    # batch statistics: old channels see the same batch, new blocks pass their input through
    with torch.no_grad():
        (l0, v0), (l1, v1) = net.train()(x), grown.train()(x)
    assert (l1 - l0).abs().max() < 1e-4 and (v1 - v0).abs().max() < 1e-4


def test_a_trained_net_keeps_its_play(tools):
    net = load_agent("pretrained:tictactoe").evaluator.net
    grown = grow(net, blocks=net.config.blocks + 2, channels=net.config.channels + 8, kernel_size=5, seed=0)
    for size in (3, 5):
        planes, masks = tools.positions("tictactoe", 12, seed=size, board_size=size)
        p0, v0 = make_evaluator(net)(planes, masks)
        p1, v1 = make_evaluator(grown)(planes, masks)
        assert np.abs(p1 - p0).max() < 1e-4 and np.abs(v1 - v0).max() < 1e-4
        assert (p0.argmax(axis=1) == p1.argmax(axis=1)).all()


def test_noise_moves_the_function_only_a_little(tools):
    net = make_net("go", "resnet", tools)
    x = inputs("go", {"board_size": 9}, tools)
    l0, v0 = outputs(net, x)
    for noise in (1e-3, 1e-4):
        l1, v1 = outputs(grow(net, blocks=2, channels=12, kernel_size=5, noise=noise, seed=0), x)
        change = max((l1 - l0).abs().max(), (v1 - v0).abs().max())
        assert 0 < change < 50 * noise  # not exactly the same, but close: O(noise)
    big = outputs(grow(net, channels=12, kernel_size=5, noise=0.5, seed=0), x)[0]
    assert (big - l0).abs().max() > 1e-2  # the comparison above is able to fail


def test_new_weights_start_where_they_should(tools):
    net = make_net("go", "resnet", tools)
    g = grow(net, blocks=2, channels=10, kernel_size=5, noise=0.0)
    old_stem, new_stem = net.trunk[0][0].weight, g.trunk[0][0].weight  # (8, C, 3, 3) -> (10, C, 5, 5)
    assert torch.equal(new_stem[:8, :, 1:4, 1:4], old_stem)
    rim = new_stem[:8].clone()
    rim[:, :, 1:4, 1:4] = 0
    assert torch.count_nonzero(rim) == 0  # old kernels zero-padded
    assert torch.count_nonzero(new_stem[8:]) > 0  # new channels: fresh weights
    assert torch.count_nonzero(g.trunk[1].conv1.weight[:8, 8:]) == 0  # nothing from new into old
    new_block = g.trunk[2]
    assert torch.count_nonzero(new_block.bn2.weight) == 0 and torch.count_nonzero(new_block.bn2.bias) == 0
    assert torch.count_nonzero(new_block.conv1.weight) > 0
    w0, w1 = net.value.mlp[0].weight, g.value.mlp[0].weight  # pooled [mean(C), max(C)] inputs
    assert torch.equal(w1[:, :8], w0[:, :8]) and torch.equal(w1[:, 10:18], w0[:, 8:])
    assert torch.count_nonzero(w1[:, 8:10]) == 0 and torch.count_nonzero(w1[:, 18:]) == 0


def test_grown_net_trains_new_weights(tools):
    net = make_net("go", "resnet", tools)
    g = grow(net, blocks=2, channels=10, kernel_size=5, noise=0.0).train()
    planes, masks = tools.positions("go", 16, seed=2, board_size=5)
    policy, value = tools.targets(masks)
    total, _, _ = loss(g, planes, policy, value, masks)
    total.backward()
    watched = {
        "new block's last BN scale": lambda m: m.trunk[2].bn2.weight,
        "new block's first conv": lambda m: m.trunk[2].conv1.weight,
        "new channels into old ones": lambda m: m.trunk[1].conv2.weight[:8, 8:],
        "kernel rim": lambda m: m.trunk[1].conv1.weight[:8, :8, 0],
        "new pooled inputs of the value": lambda m: m.value.mlp[0].weight[:, 8:10],
    }
    grads = {k: f(g) for k, f in watched.items()}
    assert g.trunk[2].bn2.weight.grad.abs().sum() > 0  # the way in for a zero-scaled block
    assert g.trunk[1].conv1.weight.grad[:8, :8, 0].abs().sum() > 0
    assert g.value.mlp[0].weight.grad[:, 8:10].abs().sum() > 0
    before = {k: v.detach().clone() for k, v in grads.items()}
    opt = torch.optim.SGD(g.parameters(), lr=0.05, momentum=0.9)
    for _ in range(3):
        opt.zero_grad()
        loss(g, planes, policy, value, masks)[0].backward()
        opt.step()
    for name, f in watched.items():
        assert not torch.equal(f(g).detach(), before[name]), name


def test_grow_is_seeded_and_leaves_the_original_alone(tools):
    net = make_net("go", "mobilenet", tools)
    state = {k: v.clone() for k, v in net.state_dict().items()}
    torch.manual_seed(123)
    a = grow(net, blocks=2, channels=9, seed=7)
    torch.manual_seed(456)
    b = grow(net, blocks=2, channels=9, seed=7)
    c = grow(net, blocks=2, channels=9, seed=8)
    assert all(torch.equal(v, b.state_dict()[k]) for k, v in a.state_dict().items())
    assert any(not torch.equal(v, c.state_dict()[k]) for k, v in a.state_dict().items())
    assert all(torch.equal(v, net.state_dict()[k]) for k, v in state.items())
    assert net.config.blocks == 1 and net.config.channels == 8
    same = grow(net, noise=0.0)  # nothing asked: an equal copy
    assert same is not net and same.config == net.config


def test_grow_refuses_what_it_cannot_do(tools):
    net = make_net("go", "resnet", tools)
    with pytest.raises(ValueError, match="blocks can only grow: the net has 1, asked for 0"):
        grow(net, blocks=0)
    with pytest.raises(ValueError, match="channels can only grow"):
        grow(net, channels=4)
    with pytest.raises(ValueError, match="kernel_size must be odd"):
        grow(net, kernel_size=4)
    with pytest.raises(ValueError, match="noise must be a number >= 0"):
        grow(net, blocks=2, noise=-1)
    with pytest.raises(ValueError, match="channels must be an integer"):
        grow(net, channels=9.5)
    with pytest.raises(TypeError, match="needs a PolicyValueNet"):
        grow(CompositeNet(tools.small_go_net(), 7, small_size=5), blocks=2)


def test_kernel_size_config_and_old_files(tmp_path, tools):
    old = {k: v for k, v in NetConfig().to_dict().items() if k != "kernel_size"}
    assert NetConfig.from_dict(old).kernel_size == 3
    for bad in (0, 2, -1, True, 3.0):
        with pytest.raises(ValueError, match="kernel_size"):
            NetConfig(kernel_size=bad)
    net = make_net("go", "resnet", tools)
    payload = torch.load(_saved(net, tmp_path / "net.pt"), weights_only=True)
    cfg = json.loads(payload["config"])
    del cfg["kernel_size"]  # a file written before kernel_size existed
    payload["config"] = json.dumps(cfg)
    torch.save(payload, tmp_path / "old.pt")
    back = load_net(tmp_path / "old.pt")
    assert back.config.kernel_size == 3 and back.config == net.config
    shipped = load_agent("pretrained:tictactoe")  # shipped before kernel_size existed
    assert shipped.evaluator.net.config.kernel_size == 3


def test_grown_net_saves_and_loads(tmp_path, tools):
    g = grow(make_net("othello", "mobilenet", tools), blocks=2, kernel_size=5, seed=0)
    back = load_net(_saved(g, tmp_path / "g.pt"), game="othello", game_kwargs={"board_size": 6})
    assert back.config.kernel_size == 5 and back.trunk[1].depthwise.kernel_size == (5, 5)
    x = inputs("othello", {"board_size": 6}, tools)
    assert all(torch.equal(a, b) for a, b in zip(outputs(g, x), outputs(back, x)))
    with pytest.raises(NetFileError, match="another config.*kernel_size: saved 5, wanted 3"):
        load_net(tmp_path / "g.pt", config=NetConfig.from_dict({**g.config.to_dict(), "kernel_size": 3}))


def _saved(net, path):
    save_net(net, path)
    return path
