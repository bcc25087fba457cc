"""FoldedNet: every BatchNorm after a convolution folded into it, the same function as the net in eval
mode, kept up to date in place; the evaluator runs it and leaves the net alone."""

import copy

import numpy as np
import pytest
import torch
from torch import nn

import zerogym
from zerogym_agents.nets import PolicyValueNet, for_game, make_evaluator
from zerogym_agents.nets.composite import CompositeNet
from zerogym_agents.nets.folding import FoldedNet

NETS = [
    ("go", {"board_size": 7}, {"trunk": "resnet", "blocks": 2, "channels": 16}),
    ("go", {"board_size": 7}, {"trunk": "mobilenet", "blocks": 2, "channels": 16}),
    ("connect_four", {}, {"trunk": "resnet", "blocks": 1, "channels": 8, "policy_hidden": 0}),
    ("breakthrough", {"rows": 6, "cols": 6}, {"trunk": "resnet", "blocks": 1, "channels": 8, "kernel_size": 5}),
]


def shaken(net, seed=0):
    """`net` with BatchNorm statistics and affine parameters far from their initial 0 / 1."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, nn.BatchNorm2d):
                n = m.num_features
                m.running_mean.copy_(torch.rand(n, generator=g) - 0.5)
                m.running_var.copy_(torch.rand(n, generator=g) * 2 + 0.2)
                m.weight.copy_(torch.rand(n, generator=g) + 0.5)
                m.bias.copy_(torch.rand(n, generator=g) - 0.5)
    return net


def planes(net, game, kwargs, batch=5, seed=1):
    h, w, _ = zerogym.make_state(game, **kwargs).spec.obs_shape
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 2, (batch, net.config.in_planes, h, w), generator=g).float()


def assert_same_function(net, folded, x):
    net.eval()
    with torch.no_grad():
        for mine, theirs in zip(folded.module(x), net(x)):
            torch.testing.assert_close(mine, theirs, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("game,kwargs,config", NETS)
def test_the_folded_net_computes_what_the_net_does_in_eval_mode(game, kwargs, config):
    net = shaken(PolicyValueNet(for_game(game, game_kwargs=kwargs, **config)))
    folded = FoldedNet(net)
    batchnorms = sum(isinstance(m, nn.BatchNorm2d) for m in net.modules())
    assert folded.folds == batchnorms > 0  # every BatchNorm of these nets follows a conv
    assert not any(isinstance(m, nn.BatchNorm2d) for m in folded.module.modules())
    assert_same_function(net, folded, planes(net, game, kwargs))


def test_sync_follows_training_in_place(tmp_path):
    game, kwargs, config = NETS[0]
    net = shaken(PolicyValueNet(for_game(game, game_kwargs=kwargs, **config)))
    folded = FoldedNet(net)
    where = [t.data_ptr() for t in folded.module.parameters()]
    x = planes(net, game, kwargs, batch=16)
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    net.train()
    logits, value = net(x)  # train mode: the BatchNorm statistics move too
    (logits.square().mean() + value.square().mean()).backward()
    opt.step()
    with pytest.raises(AssertionError):
        assert_same_function(net, folded, x)  # stale until synced
    folded.sync()
    assert_same_function(net, folded, x)
    assert [t.data_ptr() for t in folded.module.parameters()] == where


def test_a_composite_net_folds_its_parts():
    small = shaken(PolicyValueNet(for_game("go", game_kwargs={"board_size": 5}, blocks=1, channels=8)))
    net = shaken(CompositeNet(small, 7, small_size=5), seed=2)
    folded = FoldedNet(net)
    assert folded.folds > 0
    assert_same_function(net, folded, planes(net, "go", {"board_size": 7}))


def test_the_evaluator_follows_the_net_and_leaves_its_mode_alone():
    game, kwargs, config = NETS[0]
    net = shaken(PolicyValueNet(for_game(game, game_kwargs=kwargs, **config))).train()
    ev = make_evaluator(net, threads=None)
    state = zerogym.make_state(game, **kwargs)
    obs = state.encode()[None]
    mask = state.legal_mask()[None]

    def direct():
        net.eval()
        with torch.no_grad():
            logits, value = net(torch.from_numpy(obs))
        net.train()
        return torch.softmax(logits.masked_fill(torch.from_numpy(mask) == 0, float("-inf")), -1)[0], value[0]

    for change in range(3):
        priors, values = ev(obs, mask)
        want_priors, want_value = direct()
        np.testing.assert_allclose(priors[0], want_priors.numpy(), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(values[0], want_value.numpy(), rtol=1e-4, atol=1e-5)
        assert net.training
        with torch.no_grad():
            if change == 0:  # in place, as an optimizer step does
                for p in net.parameters():
                    p.add_(0.05 * torch.randn_like(p))
            else:  # tensors replaced: a new policy head
                net.policy = shaken(copy.deepcopy(net.policy), seed=change)
