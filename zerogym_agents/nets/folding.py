"""A net for inference with each BatchNorm folded into the convolution before it."""

from __future__ import annotations

import copy
import itertools

import torch
from torch import nn

from zerogym_agents.nets.trunks import InvertedResidual, ResidualBlock

# modules whose children run in the order they are declared, each on the output of the one before
# (a Sequential), or whose forward applies each declared BatchNorm to the output of the conv just before it
IN_ORDER = (nn.Sequential, ResidualBlock, InvertedResidual)


class FoldedNet:
    """An eval-mode copy of `net` (`.module`) in which every BatchNorm2d that follows a Conv2d is folded
    into it: the conv's weight scaled by gamma / sqrt(running_var + eps) per output channel, its bias
    beta - running_mean * that scale, the BatchNorm replaced by Identity. The same function up to float
    rounding, without a pass over the activations per BatchNorm: a ResNet 4x32's forward pass on a CPU
    ran 1.25-1.45x faster (Go 9x9 and Connect Four, batches of 64 and 1,024).

    sync() copies the net's current weights in, in place, so that whatever holds the copy's tensors
    (a CUDA graph) stays valid; a net whose tensors were replaced needs a new FoldedNet."""

    def __init__(self, net: nn.Module) -> None:
        self.module = copy.deepcopy(net).eval()
        for p in self.module.parameters():
            p.requires_grad_(False)
        twins = dict(self.module.named_modules())
        self._folds: list[tuple[nn.Conv2d, nn.BatchNorm2d, nn.Conv2d]] = []
        for name, parent in net.named_modules():
            if not isinstance(parent, IN_ORDER):
                continue
            children = list(parent.named_children())
            for (conv_name, conv), (bn_name, bn) in zip(children, children[1:]):
                if not (
                    isinstance(conv, nn.Conv2d)
                    and isinstance(bn, nn.BatchNorm2d)
                    and bn.affine
                    and bn.track_running_stats
                    and bn.num_features == conv.out_channels
                ):
                    continue
                twin_parent = twins[name]
                twin = getattr(twin_parent, conv_name)
                if twin.bias is None:
                    twin.bias = nn.Parameter(torch.zeros_like(bn.bias), requires_grad=False)
                setattr(twin_parent, bn_name, nn.Identity())
                self._folds.append((conv, bn, twin))
        folded = {
            id(t)
            for conv, bn, _ in self._folds
            for t in itertools.chain(conv.parameters(), bn.parameters(), bn.buffers())
        }
        mine = dict(itertools.chain(self.module.named_parameters(), self.module.named_buffers()))
        self._plain = [
            (t, mine[n]) for n, t in itertools.chain(net.named_parameters(), net.named_buffers()) if id(t) not in folded
        ]
        self.sync()

    @property
    def folds(self) -> int:
        """How many BatchNorms were folded."""
        return len(self._folds)

    @torch.no_grad()
    def sync(self) -> None:
        """Bring the copy up to date with the net's weights and BatchNorm statistics."""
        for conv, bn, twin in self._folds:
            # every fold has running statistics (track_running_stats) and a conv bias (given in __init__)
            assert bn.running_var is not None and bn.running_mean is not None and twin.bias is not None
            scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
            twin.weight.copy_(conv.weight * scale.view(-1, *([1] * (conv.weight.dim() - 1))))
            bias = bn.bias - bn.running_mean * scale
            twin.bias.copy_(bias if conv.bias is None else bias + conv.bias * scale)
        for theirs, mine in self._plain:
            mine.copy_(theirs)
