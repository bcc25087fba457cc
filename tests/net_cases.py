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
