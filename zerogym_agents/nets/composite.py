"""The ZetaGo composite: a frozen small-board net inside a learned net for a bigger board.

Painter & Johnston, "Mastering the game of Go from scratch" (section 3.4, figure 1,
table 1) reuse a net trained on W1 x W1 Go on a W2 x W2 board through three sets of features,
concatenated and followed by output layers. How CompositeNet maps onto their Table 1:

- W1, W2 (5, 9): small_size, big_size, any 1 <= W1 < W2.
- C_s, k_s (5, 32): the frozen PolicyValueNet's trunk, of any depth; k_s = its channels.
- R1, the W1 net's policy on each of the F = (W2-W1+1)^2 windows, zero-padded back to its place:
  the same, F planes (softmax of the frozen net's cell logits within each window).
- R2, N (32) learned downscalings W2 -> W1 through the W1 net, mapped back to W2: `downscalings`
  (default 4), each a K x K conv without padding (K = W2-W1+1, the poster's 5x5 for 9 -> 5; the
  text's 3x3 filters cannot reach W1 in one layer), the frozen trunk (k_s features), then a
  depthwise K x K transposed conv back to W2; N * k_s planes.
- R3, C_L (5) conv layers of k_L (32) filters on the W2 board: `feature_layers` (5) 3x3
  conv-BN-ReLU layers of `features` (32) channels.
- C_f (3) conv layers of k_f (32) filters on R = (R1; R2; R3): `head_layers` (3) 3x3 conv-BN-ReLU
  layers of `head_channels` (32).
- Output, a 1x1 conv and a softmax over cells (a policy net only): zerogym's heads, one logit per
  cell plus pass from pooled features, and a pooled value MLP -> tanh.

Differences: N defaults to 4 rather than 32 (each downscaling runs the frozen trunk once more and
adds k_s planes); the transposed conv is learned, not tied to the downscaling filter (the channel
counts differ); convs have BatchNorm; there is a value head, which AlphaZero needs.

The frozen net (trunk and policy head) never trains: its parameters do not require gradients and
it stays in eval mode (BatchNorm running statistics fixed) even when the composite trains. All
windows of a batch go through the frozen trunk in one call (B * F boards of W1 x W1).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from typing import Any

import torch
from torch import nn

from zerogym._types import GameLike
from zerogym_agents.core.config_io import Integer, JsonConfig, Nested, Number, OneOf, setting
from zerogym_agents.nets.heads import PolicyHead, ValueHead
from zerogym_agents.nets.model import VALUE_LOSSES, NetConfig, PolicyValueNet, _spec_of, net_format

FILE_FORMAT = "zerogym.CompositeNet"
FILE_VERSION = 1
KIND = "composite"


@dataclasses.dataclass
class CompositeConfig(JsonConfig):
    """Everything that defines a CompositeNet (JSON-able); `small` is the frozen net's NetConfig.

    in_planes, action_layout, extra_actions, actions_per_cell and game are the frozen net's; value_loss and
    value_weight (used by nets.loss) default to its too.
    """

    json_indent = None  # one line: configs are embedded in net files
    # file_max: the largest values a network file may hold (nets.model.check_net_payload; `small` has NetConfig's)
    small: NetConfig = setting(check=Nested(NetConfig))
    small_size: int = setting(check=Integer(1), file_max=64)
    big_size: int = setting(check=Integer(2), file_max=64)
    downscalings: int = setting(4, Integer(0), file_max=64)
    features: int = setting(32, Integer(1), file_max=2048)
    feature_layers: int = setting(5, Integer(0), file_max=256)
    head_layers: int = setting(3, Integer(1), file_max=256)
    head_channels: int = setting(32, Integer(1), file_max=2048)
    policy_hidden: int = setting(32, Integer(0), file_max=2048)
    value_hidden: int = setting(64, Integer(1), file_max=4096)
    value_loss: str = setting("mse", OneOf(VALUE_LOSSES))
    value_weight: float = setting(1.0, Number(0))

    def check_rules(self) -> None:
        if self.small_size >= self.big_size:
            raise ValueError(
                f"CompositeConfig: the small board ({self.small_size}) must be smaller than the big "
                f"one ({self.big_size})"
            )

    in_planes = property(lambda self: self.small.in_planes)
    action_layout = property(lambda self: self.small.action_layout)
    extra_actions = property(lambda self: self.small.extra_actions)
    actions_per_cell = property(lambda self: self.small.actions_per_cell)
    game = property(lambda self: self.small.game)

    @property
    def windows(self) -> int:
        """F: how many small_size x small_size windows the big board has."""
        return (self.big_size - self.small_size + 1) ** 2

    def to_dict(self) -> dict[str, Any]:
        return {"kind": KIND, **super().to_dict()}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CompositeConfig:
        if not isinstance(d, Mapping):
            raise ValueError(f"CompositeConfig.from_dict needs a mapping, got {type(d).__name__}")
        d = dict(d)
        if d.pop("kind", KIND) != KIND:
            raise ValueError(f"not a composite network config (kind {d.get('kind')!r})")
        return super().from_dict(d)

    def check_game(self, game: GameLike, game_kwargs: Mapping[str, Any] | None = None) -> None:
        """Raise ValueError unless the frozen net fits `game` and its board is big_size x big_size."""
        spec = _spec_of(game, game_kwargs)
        self.small.check_game(spec)
        h, w, _ = spec.obs_shape
        if (h, w) != (self.big_size, self.big_size):
            raise ValueError(
                f"composite network for {self.big_size}x{self.big_size} boards does not fit game "
                f"{spec.name!r} on a {h}x{w} board"
            )


def _conv_stack(in_channels: int, channels: int, layers: int) -> nn.Sequential:
    mods: list[nn.Module] = []
    for i in range(layers):
        mods += [
            nn.Conv2d(in_channels if i == 0 else channels, channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(channels),
            nn.ReLU(inplace=True),
        ]
    return nn.Sequential(*mods)


@net_format
class CompositeNet(nn.Module):
    """ZetaGo's composite (see the module docstring): a drop-in PolicyValueNet for one board size.

    CompositeNet(small_net, big_size, small_size=W1, downscalings=4, features=32, ...) copies
    small_net (a PolicyValueNet trained on W1 x W1 boards) and freezes the copy.
    forward(planes (B, C, W2, W2)) -> (policy logits (B, A), value (B,) in [-1, 1]), as
    PolicyValueNet; other board sizes raise ValueError. policy_hidden, value_hidden, value_loss
    and value_weight default to small_net's.
    """

    file_format, file_version, config_class = FILE_FORMAT, FILE_VERSION, CompositeConfig
    # the layers that a config may leave out (None), and the buffer of the big-board cells of each window (F, W1 * W1)
    down: nn.Conv2d | None
    up: nn.ConvTranspose2d | None
    features: nn.Sequential | None
    window_cells: torch.Tensor

    def __init__(
        self,
        small_net: PolicyValueNet,
        big_size: int,
        *,
        small_size: int,
        downscalings: int = 4,
        features: int = 32,
        feature_layers: int = 5,
        head_layers: int = 3,
        head_channels: int = 32,
        policy_hidden: int | None = None,
        value_hidden: int | None = None,
        value_loss: str | None = None,
        value_weight: float | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(small_net, PolicyValueNet):
            raise TypeError(f"CompositeNet needs a PolicyValueNet to freeze, got {type(small_net).__name__}")
        s = small_net.config
        cfg = CompositeConfig(
            small=NetConfig.from_dict(s.to_dict()),
            small_size=small_size,
            big_size=big_size,
            downscalings=downscalings,
            features=features,
            feature_layers=feature_layers,
            head_layers=head_layers,
            head_channels=head_channels,
            policy_hidden=s.policy_hidden if policy_hidden is None else policy_hidden,
            value_hidden=s.value_hidden if value_hidden is None else value_hidden,
            value_loss=s.value_loss if value_loss is None else value_loss,
            value_weight=s.value_weight if value_weight is None else value_weight,
        )
        self.config = cfg
        # on the device new layers go to (the CPU, or torch's meta device when a loader checks shapes)
        self.small = copy.deepcopy(small_net).to(torch.empty(0).device).float()
        self.small.requires_grad_(False)
        self.small.eval()
        c, k_s, n = cfg.in_planes, s.channels, cfg.downscalings
        kernel = cfg.big_size - cfg.small_size + 1
        self.down = nn.Conv2d(c, n * c, kernel) if n else None
        self.up = nn.ConvTranspose2d(n * k_s, n * k_s, kernel, groups=n * k_s) if n else None
        self.features = _conv_stack(c, cfg.features, cfg.feature_layers) if cfg.feature_layers else None
        width = cfg.windows + n * k_s + (cfg.features if cfg.feature_layers else 0)
        self.head = _conv_stack(width, cfg.head_channels, cfg.head_layers)
        self.policy = PolicyHead(
            cfg.head_channels, cfg.policy_hidden, cfg.extra_actions, cfg.action_layout, cfg.actions_per_cell
        )
        self.value = ValueHead(cfg.head_channels, cfg.value_hidden)
        # window f = (i, j) (row-major over the (W2-W1+1)^2 offsets): the big-board cells it covers
        w1, w2, p = cfg.small_size, cfg.big_size, cfg.big_size - cfg.small_size + 1
        r = torch.arange(w1)
        cells = torch.stack([((i + r)[:, None] * w2 + (j + r)[None, :]).flatten() for i in range(p) for j in range(p)])
        self.register_buffer("window_cells", cells, persistent=False)

    @classmethod
    def from_config(cls, config: CompositeConfig) -> CompositeNet:
        """A composite of this config with fresh weights everywhere (what net_from_payload fills)."""
        rest = {
            f.name: getattr(config, f.name)
            for f in dataclasses.fields(config)
            if f.name not in ("small", "small_size", "big_size")
        }
        return cls(PolicyValueNet(config.small), config.big_size, small_size=config.small_size, **rest)

    def train(self, mode: bool = True) -> CompositeNet:
        """Set train/eval mode; the frozen net stays in eval mode, without gradients."""
        super().train(mode)
        self.small.eval()
        self.small.requires_grad_(False)
        return self

    def _check_size(self, height: int, width: int) -> None:
        n = self.config.big_size
        if (height, width) != (n, n):
            raise ValueError(
                f"this composite network runs on {n}x{n} boards only (built from a "
                f"{self.config.small_size}x{self.config.small_size} net), got {height}x{width}"
            )

    def num_actions(self, height: int, width: int) -> int:
        """How many policy logits the net gives on a height x width board (big_size only)."""
        self._check_size(height, width)
        return self.policy.num_actions(height, width)

    def num_parameters(self) -> int:
        """Number of trainable parameters (the frozen net's are not counted)."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

    def num_frozen_parameters(self) -> int:
        return sum(p.numel() for p in self.small.parameters())

    def window_policies(self, planes: torch.Tensor) -> torch.Tensor:
        """R1: (B, F, W2, W2), the frozen net's cell policy on each window, zero outside it (with
        several moves per cell, the probability of moving from each cell)."""
        cfg = self.config
        b, c = planes.shape[:2]
        w1, f, k = cfg.small_size, cfg.windows, cfg.actions_per_cell
        with torch.no_grad():
            win = planes.unfold(2, w1, 1).unfold(3, w1, 1)  # (B, C, P, P, W1, W1)
            win = win.permute(0, 2, 3, 1, 4, 5).reshape(b * f, c, w1, w1)
            logits = self.small.policy.cells(self.small.trunk(win))  # (B*F, k, W1, W1)
            probs = torch.softmax(logits.reshape(b, f, k * w1 * w1), dim=2).reshape(b, f, k, w1 * w1).sum(dim=2)
            out = planes.new_zeros(b, f, cfg.big_size**2)
            out.scatter_(2, self.window_cells.expand(b, f, w1 * w1), probs)
        return out.view(b, f, cfg.big_size, cfg.big_size)

    def forward_raw(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(policy logits (B, A), value pre-activation z (B,)); the value is tanh(z)."""
        cfg = self.config
        if planes.dim() != 4 or planes.shape[1] != cfg.in_planes:
            raise ValueError(
                f"planes must have shape (B, {cfg.in_planes}, {cfg.big_size}, {cfg.big_size}), "
                f"got {tuple(planes.shape)}"
            )
        self._check_size(planes.shape[2], planes.shape[3])
        b, c, w1, n = planes.shape[0], cfg.in_planes, cfg.small_size, cfg.downscalings
        parts = [self.window_policies(planes)]
        if n and self.down is not None and self.up is not None:  # both made when there are downscalings
            small_boards = self.down(planes).reshape(b * n, c, w1, w1)
            feats = self.small.trunk(small_boards)  # frozen, but gradients pass through
            parts.append(self.up(feats.reshape(b, n * feats.shape[1], w1, w1)))
        if self.features is not None:
            parts.append(self.features(planes))
        x = self.head(torch.cat(parts, dim=1))
        return self.policy(x), self.value(x)

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, z = self.forward_raw(planes)
        return logits, torch.tanh(z)

    def describe(self) -> str:
        cfg, s = self.config, self.config.small
        return (
            f"composite {cfg.small_size}x{cfg.small_size} -> {cfg.big_size}x{cfg.big_size}: frozen "
            f"{s.trunk} {s.blocks}x{s.channels}; {cfg.windows} windows, {cfg.downscalings} downscalings, "
            f"{cfg.feature_layers}x{cfg.features} board features, {cfg.head_layers}x{cfg.head_channels} head; "
            f"{self.num_parameters():,} trainable + {self.num_frozen_parameters():,} frozen parameters"
        )
