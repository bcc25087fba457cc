"""Convolutional trunks that run on any board size: a residual ResNet and a MobileNetV2.

Every convolution pads 'same' (k x k with padding k // 2, or 1x1), so a trunk maps (B, C_in, H, W)
to (B, channels, H, W) for every H x W, and the same weights serve every board size. The spatial
kernels (stem, residual convs, depthwise convs) are kernel_size x kernel_size, 3 by default.
"""

from __future__ import annotations

import torch
from torch import nn

TRUNKS = ("resnet", "mobilenet")


def _check_kernel(kernel_size: int) -> int:
    if isinstance(kernel_size, bool) or not isinstance(kernel_size, int) or kernel_size < 1 or kernel_size % 2 == 0:
        raise ValueError(f"kernel_size must be an odd integer >= 1, got {kernel_size!r}")
    return kernel_size


def _stem(in_planes: int, channels: int, kernel_size: int = 3) -> nn.Sequential:
    """k x k conv -> BN -> ReLU from the input planes to the trunk width."""
    k = _check_kernel(kernel_size)
    return nn.Sequential(
        nn.Conv2d(in_planes, channels, k, padding=k // 2, bias=False), nn.BatchNorm2d(channels), nn.ReLU(inplace=True)
    )


class ResidualBlock(nn.Module):
    """The AlphaZero residual block: conv3x3-BN-ReLU-conv3x3-BN, add the input, ReLU (k x k convs
    when kernel_size=k)."""

    def __init__(self, channels: int, kernel_size: int = 3) -> None:
        super().__init__()
        k = _check_kernel(kernel_size)
        self.conv1 = nn.Conv2d(channels, channels, k, padding=k // 2, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, k, padding=k // 2, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.relu(y + x)


class InvertedResidual(nn.Module):
    """MobileNetV2 block (Sandler et al. 2018), as used for Go by Cazenave, "Mobile Networks for
    Computer Go" (2020): 1x1 expand -> BN -> ReLU, depthwise 3x3 -> BN -> ReLU, 1x1 linear
    squeeze -> BN (no activation), plus the input when input and output shapes match (a k x k
    depthwise conv when kernel_size=k)."""

    def __init__(self, in_channels: int, out_channels: int, hidden: int, kernel_size: int = 3) -> None:
        super().__init__()
        k = _check_kernel(kernel_size)
        self.expand = nn.Conv2d(in_channels, hidden, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(hidden)
        self.depthwise = nn.Conv2d(hidden, hidden, k, padding=k // 2, groups=hidden, bias=False)
        self.bn2 = nn.BatchNorm2d(hidden)
        self.squeeze = nn.Conv2d(hidden, out_channels, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU(inplace=True)
        self.skip = in_channels == out_channels

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.relu(self.bn1(self.expand(x)))
        y = self.relu(self.bn2(self.depthwise(y)))
        y = self.bn3(self.squeeze(y))
        return y + x if self.skip else y


class ResNetTrunk(nn.Sequential):
    """Stem (k x k conv-BN-ReLU) then `blocks` AlphaZero residual blocks of width `channels`."""

    def __init__(self, in_planes: int, channels: int, blocks: int, kernel_size: int = 3) -> None:
        super().__init__(
            _stem(in_planes, channels, kernel_size), *[ResidualBlock(channels, kernel_size) for _ in range(blocks)]
        )
        self.out_channels = channels
        self.radius = (kernel_size // 2) * (1 + 2 * blocks)  # how far (in cells) an output depends on its input


class MobileNetTrunk(nn.Sequential):
    """Stem (k x k conv-BN-ReLU) then `blocks` inverted residual blocks: trunk width `channels`,
    expanded to round(channels * expansion) inside each block."""

    def __init__(self, in_planes: int, channels: int, blocks: int, expansion: float, kernel_size: int = 3) -> None:
        hidden = mobilenet_hidden(channels, expansion)
        super().__init__(
            _stem(in_planes, channels, kernel_size),
            *[InvertedResidual(channels, channels, hidden, kernel_size) for _ in range(blocks)],
        )
        self.out_channels = channels
        self.hidden = hidden
        self.radius = (kernel_size // 2) * (1 + blocks)


def mobilenet_hidden(channels: int, expansion: float) -> int:
    """The inner width of a MobileNetTrunk's blocks: round(channels * expansion), at least 1."""
    return max(1, int(round(channels * expansion)))


def make_trunk(
    kind: str, in_planes: int, channels: int, blocks: int, expansion: float = 4.0, kernel_size: int = 3
) -> ResNetTrunk | MobileNetTrunk:
    """The trunk named `kind` ("resnet" or "mobilenet"); `expansion` only matters for mobilenet."""
    if kind == "resnet":
        return ResNetTrunk(in_planes, channels, blocks, kernel_size)
    if kind == "mobilenet":
        return MobileNetTrunk(in_planes, channels, blocks, expansion, kernel_size)
    raise ValueError(f"unknown trunk {kind!r}; choose one of {', '.join(TRUNKS)}")
