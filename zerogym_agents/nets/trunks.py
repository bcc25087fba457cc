"""Convolutional trunks that run on any board size: a residual ResNet and a MobileNetV2.

Every convolution pads 'same' (3x3 with padding 1, or 1x1), so a trunk maps (B, C_in, H, W) to
(B, channels, H, W) for every H x W, and the same weights serve every board size.
"""
from torch import nn

TRUNKS = ("resnet", "mobilenet")


def _stem(in_planes, channels):
    """3x3 conv -> BN -> ReLU from the input planes to the trunk width."""
    return nn.Sequential(nn.Conv2d(in_planes, channels, 3, padding=1, bias=False),
                         nn.BatchNorm2d(channels), nn.ReLU(inplace=True))


class ResidualBlock(nn.Module):
    """The AlphaZero residual block: conv3x3-BN-ReLU-conv3x3-BN, add the input, ReLU."""

    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.relu(y + x)


class InvertedResidual(nn.Module):
    """MobileNetV2 block (Sandler et al. 2018), as used for Go by Cazenave, "Mobile Networks for
    Computer Go" (paper 001): 1x1 expand -> BN -> ReLU, depthwise 3x3 -> BN -> ReLU, 1x1 linear
    squeeze -> BN (no activation), plus the input when input and output shapes match."""

    def __init__(self, in_channels, out_channels, hidden):
        super().__init__()
        self.expand = nn.Conv2d(in_channels, hidden, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(hidden)
        self.depthwise = nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden, bias=False)
        self.bn2 = nn.BatchNorm2d(hidden)
        self.squeeze = nn.Conv2d(hidden, out_channels, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU(inplace=True)
        self.skip = in_channels == out_channels

    def forward(self, x):
        y = self.relu(self.bn1(self.expand(x)))
        y = self.relu(self.bn2(self.depthwise(y)))
        y = self.bn3(self.squeeze(y))
        return y + x if self.skip else y


class ResNetTrunk(nn.Sequential):
    """Stem (3x3 conv-BN-ReLU) then `blocks` AlphaZero residual blocks of width `channels`."""

    def __init__(self, in_planes, channels, blocks):
        super().__init__(_stem(in_planes, channels), *[ResidualBlock(channels) for _ in range(blocks)])
        self.out_channels = channels
        self.radius = 1 + 2 * blocks   # how far (in cells) an output depends on its input


class MobileNetTrunk(nn.Sequential):
    """Stem (3x3 conv-BN-ReLU) then `blocks` inverted residual blocks: trunk width `channels`,
    expanded to round(channels * expansion) inside each block."""

    def __init__(self, in_planes, channels, blocks, expansion):
        hidden = max(1, int(round(channels * expansion)))
        super().__init__(_stem(in_planes, channels),
                         *[InvertedResidual(channels, channels, hidden) for _ in range(blocks)])
        self.out_channels = channels
        self.hidden = hidden
        self.radius = 1 + blocks


def make_trunk(kind, in_planes, channels, blocks, expansion=4.0):
    """The trunk named `kind` ("resnet" or "mobilenet"); `expansion` only matters for mobilenet."""
    if kind == "resnet":
        return ResNetTrunk(in_planes, channels, blocks)
    if kind == "mobilenet":
        return MobileNetTrunk(in_planes, channels, blocks, expansion)
    raise ValueError(f"unknown trunk {kind!r}; choose one of {', '.join(TRUNKS)}")
