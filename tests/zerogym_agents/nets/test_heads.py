"""Heads: size independence, column marginals, pooling invariances, hand checks."""

import math

import pytest
import torch

from zerogym_agents.nets.heads import PolicyHead, ValueHead, global_pool


def test_global_pool_by_hand():
    x = torch.tensor([[[[1.0, 2.0], [3.0, 6.0]], [[-1.0, -5.0], [0.0, -2.0]]]])  # (1, 2, 2, 2)
    assert torch.equal(global_pool(x), torch.tensor([[3.0, -2.0, 6.0, 0.0]]))


@pytest.mark.parametrize("hw", [(3, 3), (5, 5), (9, 9), (6, 7), (5, 4)])
@pytest.mark.parametrize("hidden", [0, 8])
def test_policy_shapes(hw, hidden):
    h, w = hw
    x = torch.randn(2, 6, h, w)
    for extra in (0, 1, 2):
        head = PolicyHead(6, hidden, extra, "cells").eval()
        assert head(x).shape == (2, h * w + extra) and head.num_actions(h, w) == h * w + extra
    head = PolicyHead(6, hidden, 0, "columns").eval()
    assert head(x).shape == (2, w) and head.num_actions(h, w) == w


def test_columns_softmax_is_the_column_marginal_of_the_cell_softmax():
    torch.manual_seed(0)
    cols = PolicyHead(5, 4, 0, "columns").eval()
    cells = PolicyHead(5, 4, 0, "cells").eval()
    cells.load_state_dict(cols.state_dict())
    x = torch.randn(3, 5, 6, 7)
    with torch.no_grad():
        p_cells = torch.softmax(cells(x), dim=1).view(3, 6, 7)
        p_cols = torch.softmax(cols(x), dim=1)
    assert torch.allclose(p_cols, p_cells.sum(dim=1), atol=1e-6)


def test_pooled_parts_ignore_where_things_are():
    # 1x1 convolutions move cell logits with the cells; pooled outputs do not see positions at all
    torch.manual_seed(1)
    head = PolicyHead(4, 3, 2, "cells").eval()
    value = ValueHead(4, 5).eval()
    x = torch.randn(2, 4, 5, 5)
    perm = torch.randperm(25)
    xp = x.flatten(2)[:, :, perm].view(2, 4, 5, 5)
    with torch.no_grad():
        a, b = head(x), head(xp)
        assert torch.allclose(b[:, :25], a[:, :25][:, perm], atol=1e-6)
        assert torch.allclose(b[:, 25:], a[:, 25:], atol=1e-6)
        assert torch.allclose(value(xp), value(x), atol=1e-6)


def test_value_head_by_hand():
    head = ValueHead(2, 2)
    lin1, lin2 = head.mlp[0], head.mlp[2]
    with torch.no_grad():
        lin1.weight.copy_(
            torch.tensor(
                [
                    [1.0, 0.0, 0.0, 0.0],  # mean of channel 0
                    [0.0, 0.0, 0.0, -1.0],
                ]
            )
        )  # minus max of channel 1
        lin1.bias.copy_(torch.tensor([0.0, 0.5]))
        lin2.weight.copy_(torch.tensor([[2.0, 1.0]]))
        lin2.bias.copy_(torch.tensor([-0.25]))
        x = torch.tensor([[[[1.0, 3.0], [0.0, 0.0]], [[0.25, -1.0], [0.0, 0.1]]]])
        # mean ch0 = 1; max ch1 = 0.25 -> hidden relu(1) = 1, relu(-0.25 + 0.5) = 0.25
        z = head(x)
    assert z.shape == (1,)
    assert math.isclose(z.item(), 2 * 1 + 0.25 - 0.25, abs_tol=1e-6)


@pytest.mark.parametrize("activation,slope", [("relu", 0.0), ("leaky_relu", 0.01)])
def test_a_value_unit_below_zero_on_every_input_learns_only_when_leaky(activation, slope):
    head = ValueHead(2, 1, activation)
    lin1, lin2 = head.mlp[0], head.mlp[2]
    with torch.no_grad():
        lin1.weight.fill_(1.0)
        lin1.bias.fill_(-100.0)  # pooled inputs in [-1, 1]: the unit is below zero everywhere
        lin2.weight.fill_(1.0)
    x = torch.rand(8, 2, 3, 3) * 2 - 1
    head(x).sum().backward()
    # d(sum z) / d(bias of the hidden unit) = 8 inputs x the activation's slope below zero x the output weight
    assert lin1.bias.grad.item() == pytest.approx(8 * slope)


def test_parameter_counts_by_hand():
    # 1x1 conv 4->3 (no bias) + BN(3) + 1x1 conv 3->1 with bias + Linear(8 pooled -> 2)
    assert sum(p.numel() for p in PolicyHead(4, 3, 2).parameters()) == 4 * 3 + 2 * 3 + (3 + 1) + (8 * 2 + 2)
    assert sum(p.numel() for p in PolicyHead(4, 0, 0).parameters()) == 4 + 1
    assert sum(p.numel() for p in ValueHead(4, 5).parameters()) == (8 * 5 + 5) + (5 + 1)


def test_bad_heads():
    with pytest.raises(ValueError, match="unknown action layout 'rows'"):
        PolicyHead(4, layout="rows")
    with pytest.raises(ValueError, match="'columns' layout has no extra actions"):
        PolicyHead(4, extra_actions=1, layout="columns")
