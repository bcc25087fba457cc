"""Inputs for the network tests: positions of random play, and BatchNorm statistics far from the defaults."""

import numpy as np
import torch

import zerogym


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


def randomize_bn(module, seed=0, spread=0.1):
    """Give every BatchNorm of `module` affine parameters and running statistics far from the
    defaults (so that eval mode matters); seed: an int or a torch.Generator. Returns the module."""
    gen = seed if isinstance(seed, torch.Generator) else torch.Generator().manual_seed(seed)
    for m in module.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            k = m.num_features
            m.weight.data = torch.rand(k, generator=gen) + 0.5
            m.bias.data = torch.randn(k, generator=gen) * spread
            m.running_mean = torch.randn(k, generator=gen) * spread
            m.running_var = torch.rand(k, generator=gen) + 0.5
    return module


def small_go_net(size=5, seed=0, **overrides):
    """A small Go net with randomised BatchNorm, in eval mode."""
    from zerogym_agents.nets import PolicyValueNet, for_game

    torch.manual_seed(seed)
    kw = {"trunk": "resnet", "blocks": 1, "channels": 8, "value_hidden": 8, "policy_hidden": 8, **overrides}
    return randomize_bn(PolicyValueNet(for_game("go", game_kwargs={"board_size": size}, **kw)), seed, 0.2).eval()


def targets(masks, seed=0):
    """Random legal policy targets and values in [-1, 1] for these masks."""
    rng = np.random.default_rng(seed)
    p = rng.random(masks.shape).astype(np.float32) * masks
    return p / p.sum(axis=1, keepdims=True), rng.uniform(-1, 1, len(masks)).astype(np.float32)
