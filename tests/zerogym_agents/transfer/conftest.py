"""Shared helpers for the transfer tests: real game positions, nets with non-trivial BatchNorm."""
import numpy as np
import pytest
import torch

import zerogym
from zerogym_agents.nets import PolicyValueNet, for_game


@pytest.fixture(autouse=True)
def one_thread():
    """One torch thread: these nets are tiny, and the machine may be busy."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def positions(game, n, seed=0, **kwargs):
    """n positions of random play: encoded planes (n, C, H, W) float32 and legal masks (n, A)."""
    rng = np.random.default_rng(seed)
    st = zerogym.make_state(game, **kwargs)
    planes, masks = [], []
    while len(planes) < n:
        if st.is_terminal():
            st.reset()
        planes.append(st.encode())
        masks.append(st.legal_mask())
        legal = st.legal_actions()
        st.step(int(legal[rng.integers(len(legal))]))
    return np.stack(planes).astype(np.float32), np.stack(masks)


def randomize_bn(net, seed=0):
    """Give every BatchNorm affine parameters and running statistics far from the defaults."""
    gen = torch.Generator().manual_seed(seed)
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            k = m.num_features
            m.weight.data = torch.rand(k, generator=gen) + 0.5
            m.bias.data = torch.randn(k, generator=gen) * 0.2
            m.running_mean = torch.randn(k, generator=gen) * 0.2
            m.running_var = torch.rand(k, generator=gen) + 0.5
    return net


def small_go_net(size=5, seed=0, **overrides):
    """A small Go net with randomised BatchNorm, in eval mode."""
    torch.manual_seed(seed)
    kw = {"trunk": "resnet", "blocks": 1, "channels": 8, "value_hidden": 8, "policy_hidden": 8, **overrides}
    return randomize_bn(PolicyValueNet(for_game("go", game_kwargs={"board_size": size}, **kw)), seed).eval()


def targets(masks, seed=0):
    """Random legal policy targets and values in [-1, 1] for these masks."""
    rng = np.random.default_rng(seed)
    p = rng.random(masks.shape).astype(np.float32) * masks
    return p / p.sum(axis=1, keepdims=True), rng.uniform(-1, 1, len(masks)).astype(np.float32)


@pytest.fixture
def tools():
    """The helpers above, for the test modules (conftest is not importable by name)."""
    import types
    return types.SimpleNamespace(positions=positions, randomize_bn=randomize_bn, small_go_net=small_go_net,
                                 targets=targets)
