"""Trunks: shapes on any board, hand-counted parameters, skip connections, receptive field."""

import pytest
import torch

from zerogym_agents.nets.trunks import InvertedResidual, MobileNetTrunk, ResidualBlock, ResNetTrunk, make_trunk
from net_cases import randomize_bn


@pytest.mark.parametrize("kind", ["resnet", "mobilenet"])
@pytest.mark.parametrize("hw", [(1, 1), (3, 3), (5, 4), (6, 7), (9, 9), (13, 13)])
def test_same_weights_any_board(kind, hw):
    torch.manual_seed(0)
    trunk = make_trunk(kind, in_planes=5, channels=8, blocks=2, expansion=3).eval()
    x = torch.randn(2, 5, *hw)
    y = trunk(x)
    assert y.shape == (2, 8, *hw)
    assert torch.isfinite(y).all()
    assert trunk.out_channels == 8


def test_resnet_parameter_count_by_hand():
    # stem: 3x3 conv 3->4 without bias (3*4*9) + BN (4 scales + 4 shifts)
    stem = 3 * 4 * 9 + 2 * 4
    # a block: two 3x3 convs 4->4 without bias, two BNs
    block = 2 * (4 * 4 * 9) + 2 * (2 * 4)
    trunk = ResNetTrunk(3, 4, 2)
    assert sum(p.numel() for p in trunk.parameters()) == stem + 2 * block == 724


def test_mobilenet_parameter_count_by_hand():
    stem = 3 * 4 * 9 + 2 * 4
    hidden = 8  # 4 channels * expansion 2
    # 1x1 expand 4->8, BN(8), depthwise 3x3 (9 per channel), BN(8), 1x1 squeeze 8->4, BN(4)
    block = 4 * hidden + 2 * hidden + 9 * hidden + 2 * hidden + hidden * 4 + 2 * 4
    trunk = MobileNetTrunk(3, 4, 1, expansion=2)
    assert trunk.hidden == hidden
    assert sum(p.numel() for p in trunk.parameters()) == stem + block == 292


def test_residual_block_adds_its_input():
    # with the last BN zeroed, the block's branch is 0 and the output is relu(x)
    block = ResidualBlock(6).eval()
    block.bn2.weight.data.zero_()
    block.bn2.bias.data.zero_()
    x = torch.randn(3, 6, 5, 5)
    assert torch.equal(block(x), torch.relu(x))


def test_inverted_residual_skip_only_when_shapes_match():
    same = InvertedResidual(4, 4, 12).eval()
    other = InvertedResidual(4, 6, 12).eval()
    for b in (same, other):
        b.bn3.weight.data.zero_()
        b.bn3.bias.data.zero_()
    x = torch.randn(2, 4, 5, 6)
    assert torch.equal(same(x), x)  # linear bottleneck + identity skip
    assert torch.equal(other(x), torch.zeros(2, 6, 5, 6))
    assert same.skip and not other.skip


def test_depthwise_conv_is_depthwise():
    b = InvertedResidual(4, 4, 10)
    assert b.depthwise.groups == 10 and b.depthwise.weight.shape == (10, 1, 3, 3)


@pytest.mark.parametrize("kind,blocks,radius", [("resnet", 1, 3), ("resnet", 2, 5), ("mobilenet", 2, 3)])
def test_receptive_field(kind, blocks, radius):
    # resnet: stem + 2 convs per block; mobilenet: stem + one depthwise 3x3 per block
    gen = torch.Generator().manual_seed(1)
    trunk = make_trunk(kind, 3, 6, blocks, 2).eval()
    randomize_bn(trunk, gen)
    assert trunk.radius == radius
    x = torch.randn(1, 3, 15, 15, generator=gen)
    x2 = x.clone()
    x2[0, :, 7, 7] += 3.0
    with torch.no_grad():
        changed = (trunk(x) - trunk(x2)).abs().amax(dim=(0, 1)) > 1e-6
    rows, cols = torch.nonzero(changed, as_tuple=True)
    assert changed[7, 7]
    assert (rows - 7).abs().max() == radius and (cols - 7).abs().max() == radius


def test_unknown_trunk():
    with pytest.raises(ValueError, match="unknown trunk 'vgg'.*resnet, mobilenet"):
        make_trunk("vgg", 3, 8, 1)
