"""Shared helpers for the transfer tests: real game positions, nets with non-trivial BatchNorm."""
import numpy as np
import pytest
import torch

from net_cases import positions, randomize_bn
from zerogym_agents.nets import PolicyValueNet, for_game


@pytest.fixture(autouse=True)
def one_thread(one_torch_thread):
    """These nets are tiny, and the machine may be busy."""


def small_go_net(size=5, seed=0, **overrides):
    """A small Go net with randomised BatchNorm, in eval mode."""
    torch.manual_seed(seed)
    kw = {"trunk": "resnet", "blocks": 1, "channels": 8, "value_hidden": 8, "policy_hidden": 8, **overrides}
    return randomize_bn(PolicyValueNet(for_game("go", game_kwargs={"board_size": size}, **kw)), seed, 0.2).eval()


def targets(masks, seed=0):
    """Random legal policy targets and values in [-1, 1] for these masks."""
    rng = np.random.default_rng(seed)
    p = rng.random(masks.shape).astype(np.float32) * masks
    return p / p.sum(axis=1, keepdims=True), rng.uniform(-1, 1, len(masks)).astype(np.float32)


@pytest.fixture
def tools():
    """The helpers above, for the test modules (conftest is not importable by name)."""
    import types
    return types.SimpleNamespace(positions=positions, randomize_bn=lambda net, seed=0: randomize_bn(net, seed, 0.2),
                                 small_go_net=small_go_net, targets=targets)
