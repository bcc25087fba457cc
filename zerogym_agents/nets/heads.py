"""Size-independent heads: a fully convolutional policy, a global-pooling value, and the optional
auxiliary heads of KataGo (Wu, "Accelerating Self-Play Learning in Go", 2019): a per-point
ownership and a pooled score margin.

Neither head holds a weight whose shape depends on the board, so the same weights run on every
board size (Cazenave et al., "Polygames: Improved Zero Learning", 2020, section 2.1; Cazenave,
"Mobile Networks for Computer Go", 2020).
"""

from __future__ import annotations

import torch
from torch import nn

LAYOUTS = ("cells", "columns", "cell_moves")


def global_pool(x: torch.Tensor) -> torch.Tensor:
    """(B, C, H, W) -> (B, 2C): the mean then the max of every channel over the board."""
    return torch.cat([x.mean(dim=(2, 3)), x.amax(dim=(2, 3))], dim=1)


class PolicyHead(nn.Module):
    """Policy logits for a board of any size.

    Cell logits come from 1x1 convolutions (conv-BN-ReLU to `hidden` channels, then a conv to one
    plane; a single 1x1 conv when hidden=0), one logit per cell, flattened row-major (r * W + c).
    Layout "cells": the output is the H*W cell logits followed by `extra_actions` logits (pass,
    swap) from a linear map of the globally pooled (mean, max) trunk features.
    Layout "columns" (Connect Four, action = column): the logit of column c is
    logsumexp_r(cell logit[r, c]), so the softmax over columns is exactly the column marginal of
    the softmax over cells; no extra actions.
    Layout "cell_moves" (Breakthrough: k = actions_per_cell moves from each cell): the last conv
    gives k planes, and action (r * W + c) * k + d is plane d at (r, c); then the extra logits.
    """

    def __init__(
        self, channels: int, hidden: int = 32, extra_actions: int = 0, layout: str = "cells", actions_per_cell: int = 1
    ) -> None:
        super().__init__()
        check_layout(layout, extra_actions, actions_per_cell)
        self.layout, self.extra_actions, self.actions_per_cell = layout, extra_actions, actions_per_cell
        k = actions_per_cell
        self.cells: nn.Module
        if hidden:
            self.cells = nn.Sequential(
                nn.Conv2d(channels, hidden, 1, bias=False),
                nn.BatchNorm2d(hidden),
                nn.ReLU(inplace=True),
                nn.Conv2d(hidden, k, 1),
            )
        else:
            self.cells = nn.Conv2d(channels, k, 1)
        self.extra = nn.Linear(2 * channels, extra_actions) if extra_actions else None

    def num_actions(self, height: int, width: int) -> int:
        """How many logits this head gives on a height x width board."""
        return width if self.layout == "columns" else height * width * self.actions_per_cell + self.extra_actions

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        planes = self.cells(x)  # (B, k, H, W)
        if self.layout == "columns":
            return torch.logsumexp(planes[:, 0], dim=1)  # (B, W)
        logits = planes.permute(0, 2, 3, 1).flatten(1)  # (r * W + c) * k + d
        if self.extra is not None:
            logits = torch.cat([logits, self.extra(global_pool(x))], dim=1)
        return logits


def check_layout(layout: str, extra_actions: int, actions_per_cell: int) -> None:
    """ValueError unless the three describe a policy layout: a known layout, no extras for
    "columns", and more than one action per cell exactly for "cell_moves"."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown action layout {layout!r}; choose one of {', '.join(LAYOUTS)}")
    if layout == "columns" and extra_actions:
        raise ValueError(f"the 'columns' layout has no extra actions, got extra_actions={extra_actions}")
    if (layout == "cell_moves") != (actions_per_cell > 1):
        raise ValueError(
            f"actions_per_cell must be more than 1 for the 'cell_moves' layout and 1 for the others, "
            f"got {actions_per_cell} with {layout!r}"
        )


VALUE_ACTIVATIONS: dict[str, type[nn.ReLU] | type[nn.LeakyReLU]] = {"relu": nn.ReLU, "leaky_relu": nn.LeakyReLU}


class ValueHead(nn.Module):
    """Global pooling (mean and max per channel) -> Linear(2C, hidden) -> activation -> Linear(hidden, 1).

    forward returns the pre-activation z (B,); the value is tanh(z) in [-1, 1]. Keeping z lets the
    BCE loss on (v + 1) / 2 = sigmoid(2 z) be computed stably from logits. activation: "relu", or
    "leaky_relu" (slope 0.01 below zero), whose units cannot die: at a high learning rate a ReLU unit
    can be pushed below zero on every input, and then no gradient ever brings it back.
    """

    def __init__(self, channels: int, hidden: int = 64, activation: str = "relu") -> None:
        super().__init__()
        self.mlp = nn.Sequential(
            nn.Linear(2 * channels, hidden), VALUE_ACTIVATIONS[activation](inplace=True), nn.Linear(hidden, 1)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlp(global_pool(x))[:, 0]


class OwnershipHead(nn.Module):
    """One 1x1 convolution to one plane: the pre-activation (B, H, W) of the predicted final owner
    of every point, tanh of it in [-1, 1] (+1: the player to move owns it). Size-independent like
    the policy's cell logits."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)[:, 0]


def score_head(channels: int, hidden: int = 64, activation: str = "relu") -> ValueHead:
    """The score margin head: the value head's pooled MLP, read as a number without tanh (the
    final score difference from the mover's view divided by the board's area; see nets.loss)."""
    return ValueHead(channels, hidden, activation)
