"""Network growth: more residual blocks, more channels, wider kernels, keeping what the net computes.

Polygames (Cazenave et al., "Polygames: Improved Zero Learning", 2020, section 2.2,
"neuroplasticity") grows a trained net with its "convert" script and resumes training: adding
residual blocks, adding channels and widening kernels (3x3 -> 5x5 ...) are almost neutral when the
new weights start near zero. grow() does the same for a PolicyValueNet (both trunks) so that, with
noise=0, the grown net computes exactly the original function (up to float rounding):

- every old weight is copied to its old place; a kernel is zero-padded around its centre (its
  'same' padding grows with it, so every output cell sees the same inputs);
- a new channel gets freshly initialised incoming weights, and zero weights out of it into every
  old channel (including the pooled inputs of the heads' linear layers);
- a new residual block (appended after the old ones) is fresh except for its last BatchNorm,
  whose scale and shift are 0: the block passes its input through (its input is post-ReLU in a
  ResNet, and a MobileNetV2 block adds its branch linearly).

Gradients reach every new weight (through the zero scale of a new block's BatchNorm first), so
no noise is needed to break symmetry, and the default adds none. noise > 0 adds N(0, noise^2) to
the zero-initialised weights (outgoing weights of new channels, kernel rims, the scales of new
blocks' last BatchNorm): outputs then move by O(noise) times the net's activation scale, which in
a trained net can be large (noise=1e-3 moved a trained 2x32 tic-tac-toe net's logits by ~0.8 when
its kernels grew to 5x5), so keep it tiny.
"""

from __future__ import annotations

import contextlib

import torch

from zerogym_agents.nets.model import NetConfig, PolicyValueNet

# linear layers that read global_pool's (mean, max) features: their input columns come in two halves
POOLED_INPUTS = ("policy.extra.weight", "value.mlp.0.weight", "score.mlp.0.weight")


def _target(name: str, new: int | None, current: int) -> int:
    """The grown value (an int), or the current one when `new` is None; growth only."""
    if new is None:
        return current
    if isinstance(new, bool) or not isinstance(new, int):
        raise ValueError(f"grow: {name} must be an integer, got {new!r}")
    if new < current:
        raise ValueError(f"grow: {name} can only grow: the net has {current}, asked for {new}")
    return new


def _old_index(name: str, d: int, old_size: int, new_size: int, ndim: int) -> torch.Tensor:
    """Where index i of dimension d of the old tensor lands in the new one."""
    if old_size == new_size:
        return torch.arange(new_size)
    if ndim == 4 and d >= 2:  # a spatial kernel dimension: keep the old kernel centred
        return torch.arange(old_size) + (new_size - old_size) // 2
    if ndim == 2 and d == 1 and name in POOLED_INPUTS:
        half, new_half = old_size // 2, new_size // 2  # [mean of C channels, max of C channels]
        return torch.cat([torch.arange(half), torch.arange(half) + new_half])
    return torch.arange(old_size)  # channels: the old ones first, the new ones after


def _embed(
    name: str, old: torch.Tensor, fresh: torch.Tensor, noise: float, gen: torch.Generator | None
) -> torch.Tensor:
    """`fresh` (the new tensor as initialised) with `old` copied in at its old place."""
    if old.dim() != fresh.dim() or any(o > n for o, n in zip(old.shape, fresh.shape)):
        raise ValueError(f"grow: cannot fit {name} of shape {tuple(old.shape)} into {tuple(fresh.shape)}")
    if old.dim() == 0:
        return old.clone()
    index = [_old_index(name, d, o, n, old.dim()) for d, (o, n) in enumerate(zip(old.shape, fresh.shape))]
    out = fresh.detach().clone()
    if old.dim() >= 2 and tuple(old.shape) != tuple(fresh.shape):
        # weights into an old output unit: zero wherever the old layer had no weight
        rows = torch.zeros((len(index[0]),) + tuple(fresh.shape[1:]), dtype=fresh.dtype)
        if noise:
            rows = noise * torch.randn(rows.shape, generator=gen, dtype=fresh.dtype)
        out[index[0]] = rows.to(out.device)
    out[torch.meshgrid(*index, indexing="ij")] = old.to(out.device, out.dtype)
    return out


def grow(
    net: torch.nn.Module,
    blocks: int | None = None,
    channels: int | None = None,
    kernel_size: int | None = None,
    noise: float = 0.0,
    seed: int | None = None,
) -> PolicyValueNet:
    """A bigger PolicyValueNet that starts from `net`'s function (see the module docstring).

    blocks: total residual blocks (>= the net's; new ones are appended); channels: trunk width
    (>= the net's; a MobileNet's inner width grows with it, round(channels * expansion));
    kernel_size: odd spatial kernel of the trunk (>= the net's). None keeps a dimension.
    noise: std of the Gaussian noise on the weights that exact preservation sets to zero (default
    0: exactly the same function, up to float rounding). seed: seeds the new weights and the
    noise (None: torch's global generator). Returns a new net on net's device, in eval mode;
    `net` is not changed.
    """
    if not isinstance(net, PolicyValueNet):
        raise TypeError(f"grow needs a PolicyValueNet, got {type(net).__name__}")
    if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not noise >= 0:
        raise ValueError(f"grow: noise must be a number >= 0, got {noise!r}")
    cfg = net.config
    new_cfg = NetConfig.from_dict(
        {
            **cfg.to_dict(),
            "blocks": _target("blocks", blocks, cfg.blocks),
            "channels": _target("channels", channels, cfg.channels),
            "kernel_size": _target("kernel_size", kernel_size, cfg.kernel_size),
        }
    )
    param = next(net.parameters())
    with torch.random.fork_rng(devices=[]) if seed is not None else contextlib.nullcontext():
        if seed is not None:
            torch.manual_seed(seed)
        grown = PolicyValueNet(new_cfg)
    gen = torch.Generator().manual_seed(seed) if seed is not None else None
    old_state = net.state_dict()
    state = grown.state_dict()
    for name, fresh in state.items():
        if name in old_state:
            state[name] = _embed(name, old_state[name].detach().cpu(), fresh, float(noise), gen)
    first_new = 1 + cfg.blocks  # trunk[0] is the stem
    for block in list(grown.trunk)[first_new:]:
        last_bn = block.bn2 if new_cfg.trunk == "resnet" else block.bn3
        prefix = next(k for k, m in grown.named_modules() if m is last_bn)
        scale = torch.zeros_like(state[prefix + ".weight"])
        if noise:
            scale = noise * torch.randn(scale.shape, generator=gen, dtype=scale.dtype)
        state[prefix + ".weight"] = scale
        state[prefix + ".bias"] = torch.zeros_like(state[prefix + ".bias"])
    grown.load_state_dict(state)
    return grown.to(device=param.device, dtype=param.dtype).eval()
