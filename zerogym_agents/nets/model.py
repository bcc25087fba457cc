"""The policy-value network: config, model, loss, and safe save/load.

One set of weights runs on every board size of a game (fully convolutional policy, pooled value:
Cazenave et al., "Polygames: Improved Zero Learning", 2020; Cazenave, "Mobile Networks for
Computer Go", 2020). L2 regularisation is not part of `loss`: pass it as the
optimizer's weight decay, e.g. torch.optim.SGD(net.parameters(), lr, momentum=0.9, weight_decay=1e-4).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn, TypeVar

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from zerogym._types import GameLike
from zerogym_agents.core.checkpoint import CheckpointError, StrPath, atomic_save, read_torch_file, resolve
from zerogym_agents.core.file_checks import Config, Context, Spec, StateDict
from zerogym_agents.core.config_io import Flag, Integer, JsonConfig, Maybe, Number, OneOf, Text, setting
from zerogym_agents.core.devices import autocast
from zerogym_agents.nets.heads import (
    LAYOUTS,
    VALUE_ACTIVATIONS,
    OwnershipHead,
    PolicyHead,
    ValueHead,
    check_layout,
    score_head,
)
from zerogym_agents.nets.trunks import TRUNKS, make_trunk

FILE_FORMAT = "zerogym.PolicyValueNet"
FILE_VERSION = 1
VALUE_LOSSES = ("mse", "bce")
MAX_NET_ELEMENTS = 2**28  # parameters + buffers of a net read from a file: 1 GiB of float32
# a zerogym network: a PolicyValueNet, or another class registered with net_format (the CompositeNet, whose
# module imports this one, so that the union of the two cannot be named here)
Net = Any
# the "format" tag of a network payload -> the class of the net it holds (each class registers itself with
# net_format; the package's __init__ imports every such module, so every format is known once nets is imported).
# Such a class has file_format, file_version, config_class and the classmethod from_config(config).
NET_FORMATS: dict[str, type[Any]] = {}
_N = TypeVar("_N", bound="type[Any]")


def net_format(cls: _N) -> _N:
    """Class decorator: files whose "format" tag is cls.file_format hold a cls (net_from_payload)."""
    NET_FORMATS[cls.file_format] = cls
    return cls


class NetFileError(CheckpointError):
    """A network file that cannot be read, is not a zerogym network, or does not fit what was asked."""


@dataclasses.dataclass
class NetConfig(JsonConfig):
    """Everything that defines a PolicyValueNet's shape and training loss (JSON-able).

    trunk: "resnet" (AlphaZero blocks) or "mobilenet" (MobileNetV2 blocks); blocks, channels: its
    depth and width; expansion: mobilenet's inner width factor. in_planes: input planes (C of the
    game's obs_shape). action_layout: "cells" (action r*W+c, then extra_actions pass/swap logits),
    "columns" (action = column) or "cell_moves" (action (r*W+c)*actions_per_cell + d: the moves
    from each cell, then the extras); actions_per_cell: 1 but for "cell_moves" (absent from net
    files written before it, which read as 1). policy_hidden: channels of the policy's 1x1 conv (0: one conv);
    value_hidden: width of the value MLP; value_activation: its hidden activation, "relu" (what net
    files written before the field hold) or "leaky_relu" (the trainers' default: ReLU units of the
    value MLP died for good in self-play runs at learning rate 0.02, leaving a few alive or none).
    value_loss: "bce" on (v+1)/2 (as Cazenave's mobile networks; the default: MSE on tanh can
    saturate and stop learning) or "mse" on v; value_weight multiplies it.
    game: the zerogym game name it was made for (or None).
    kernel_size: the trunk's spatial kernel (odd; 3 = 3x3; grown with zerogym_agents.transfer.grow).
    ownership_head, score_head: KataGo's auxiliary heads (Go), trained by `loss` and never used by
    the evaluators or the search; absent from net files written before them, which read as False
    (and a net without them has exactly the weights and outputs it had).
    """

    json_indent = None  # one line: configs are embedded in net files
    # file_max: what a network read from a file may claim, checked before anything is allocated
    # (load_net, net_from_payload): plausible maxima for board-game nets (AlphaZero: 40 blocks of 256
    # channels), far above every net of this project
    trunk: str = setting("resnet", OneOf(TRUNKS))
    blocks: int = setting(4, Integer(0), file_max=256)
    channels: int = setting(32, Integer(1), file_max=2048)
    expansion: float = setting(4.0, Number(above=0), file_max=16)
    in_planes: int = setting(3, Integer(1), file_max=512)
    action_layout: str = setting("cells", OneOf(LAYOUTS))
    extra_actions: int = setting(0, Integer(0), file_max=16)
    actions_per_cell: int = setting(1, Integer(1), file_max=64)
    policy_hidden: int = setting(32, Integer(0), file_max=2048)
    value_hidden: int = setting(64, Integer(1), file_max=4096)
    value_activation: str = setting("relu", OneOf(tuple(VALUE_ACTIVATIONS)))
    value_loss: str = setting("bce", OneOf(VALUE_LOSSES))
    value_weight: float = setting(1.0, Number(0))
    game: str | None = setting(None, Maybe(Text("a game name")))
    kernel_size: int = setting(3, Integer(1), file_max=25)
    ownership_head: bool = setting(False, Flag(), "an auxiliary head predicting the final owner of every point")
    score_head: bool = setting(False, Flag(), "an auxiliary head predicting the final score margin")

    def check_rules(self) -> None:
        if self.kernel_size % 2 == 0:
            raise ValueError(f"NetConfig.kernel_size must be odd, got {self.kernel_size}")
        try:
            check_layout(self.action_layout, self.extra_actions, self.actions_per_cell)
        except ValueError as err:
            raise ValueError(f"NetConfig: {err}") from None

    @classmethod
    def for_game(cls, game: GameLike, *, game_kwargs: Mapping[str, Any] | None = None, **overrides: Any) -> NetConfig:
        """A config that fits `game`: a name (with optional game_kwargs), a State, a GameSpec or an env.

        in_planes, action_layout, extra_actions, actions_per_cell and game come from the game; `overrides` set the
        other fields (trunk, blocks, channels, ...).
        """
        fit = _game_fields(_spec_of(game, game_kwargs))
        clash = sorted(k for k in fit if k in overrides and overrides[k] != fit[k])
        if clash:
            raise ValueError(
                f"for_game: {', '.join(f'{k}={overrides[k]!r}' for k in clash)} does not fit "
                f"game {fit['game']!r}, which needs {', '.join(f'{k}={fit[k]!r}' for k in clash)}"
            )
        return cls(**{**overrides, **fit})

    def check_game(self, game: GameLike, game_kwargs: Mapping[str, Any] | None = None) -> None:
        """Raise ValueError unless this config fits `game` (same forms as for_game)."""
        fit = _game_fields(_spec_of(game, game_kwargs))
        name = fit.pop("game") if self.game is None else fit["game"]
        bad = {k: v for k, v in fit.items() if getattr(self, k) != v}
        if bad:
            mine = ", ".join(f"{k}={getattr(self, k)!r}" for k in bad)
            need = ", ".join(f"{k}={v!r}" for k, v in bad.items())
            raise ValueError(
                f"network made for {self.game or 'an unnamed game'} ({mine}) does not fit "
                f"game {name!r}, which needs {need}"
            )


def _spec_of(game: GameLike, game_kwargs: Mapping[str, Any] | None = None) -> Any:
    """The GameSpec of a game name, State, GameSpec or zerogym env."""
    if isinstance(game, str):
        import zerogym

        return zerogym.make_state(game, **(game_kwargs or {})).spec
    if game_kwargs:
        raise ValueError("game_kwargs only apply when the game is given by name")
    for get in (lambda g: g.unwrapped.state.spec, lambda g: g.spec, lambda g: g):
        try:
            spec = get(game)
            spec.num_actions, spec.obs_shape, spec.name  # noqa: B018  (an AttributeError: not a spec)
            return spec
        except AttributeError:
            continue
    raise ValueError(f"expected a game name, State, GameSpec or zerogym env, got {type(game).__name__}")


def _game_fields(spec: Any) -> dict[str, Any]:
    """The NetConfig fields fixed by a game: in_planes, action_layout, extra_actions, actions_per_cell, game."""
    h, w, c = spec.obs_shape
    fit = layout_fields(
        h, w, spec.num_actions, getattr(spec, "action_kind", None), getattr(spec, "actions_per_cell", 1)
    )
    return {"in_planes": c, **fit, "game": spec.name}


def layout_fields(h: int, w: int, a: int, kind: str | None = None, actions_per_cell: int = 1) -> dict[str, Any]:
    """{action_layout, extra_actions, actions_per_cell} of `a` actions on an h x w board: from the game's
    action_kind when given, else guessed from the count (a cell each plus at most 16 extras: "cells";
    one per column: "columns"; k > 1 per cell: "cell_moves")."""
    cells = h * w
    if kind is None:
        if cells <= a <= cells + 16:
            kind = "cells"
        elif a == w:
            kind = "columns"
        elif a % cells == 0:
            kind, actions_per_cell = "cell_moves", a // cells
    if kind == "cells" and a >= cells:
        return {"action_layout": "cells", "extra_actions": a - cells, "actions_per_cell": 1}
    if kind == "columns" and a == w:
        return {"action_layout": "columns", "extra_actions": 0, "actions_per_cell": 1}
    if kind == "cell_moves" and a >= cells * actions_per_cell:
        return {
            "action_layout": "cell_moves",
            "extra_actions": a - cells * actions_per_cell,
            "actions_per_cell": actions_per_cell,
        }
    raise ValueError(
        f"{a} actions on a {h}x{w} board fit none of the layouts: a cell each (+ pass/swap), "
        f"a column each, or k moves per cell" + (f" (the game says {kind!r})" if kind else "")
    )


def for_game(game: GameLike, *, game_kwargs: Mapping[str, Any] | None = None, **overrides: Any) -> NetConfig:
    """NetConfig.for_game: a NetConfig that fits a zerogym game."""
    return NetConfig.for_game(game, game_kwargs=game_kwargs, **overrides)


@net_format
class PolicyValueNet(nn.Module):
    """Trunk + fully convolutional policy head + global-pooling value head, for any board size.

    forward(planes float32 (B, C, H, W)) -> (policy logits (B, A), value (B,) in [-1, 1]) where
    A = H*W + extra_actions (layout "cells"), W (layout "columns") or H*W*actions_per_cell +
    extra_actions (layout "cell_moves"); the value is from the view of
    the player to move (the planes are encoded from that player's view).
    """

    file_format, file_version, config_class = FILE_FORMAT, FILE_VERSION, NetConfig

    def __init__(self, config: NetConfig | Mapping[str, Any] | None = None) -> None:
        super().__init__()
        if config is None:
            config = NetConfig()
        elif isinstance(config, Mapping):
            config = NetConfig.from_dict(config)
        elif not isinstance(config, NetConfig):
            raise ValueError(f"PolicyValueNet needs a NetConfig (or its dict), got {type(config).__name__}")
        self.config = config
        self.trunk = make_trunk(
            config.trunk, config.in_planes, config.channels, config.blocks, config.expansion, config.kernel_size
        )
        self.policy = PolicyHead(
            config.channels, config.policy_hidden, config.extra_actions, config.action_layout, config.actions_per_cell
        )
        self.value = ValueHead(config.channels, config.value_hidden, config.value_activation)
        # KataGo's auxiliary heads: only present when enabled, so older net files keep their weights
        if config.ownership_head:
            self.ownership = OwnershipHead(config.channels)
        if config.score_head:
            self.score = score_head(config.channels, config.value_hidden, config.value_activation)

    @classmethod
    def from_config(cls, config: NetConfig | Mapping[str, Any] | None) -> PolicyValueNet:
        """A fresh net of this config (what net_from_payload fills with saved weights)."""
        return cls(config)

    def with_aux_heads(self, ownership: bool = False, score: bool = False) -> PolicyValueNet:
        """This net with the auxiliary heads asked for added (fresh weights, drawn from torch's global
        generator; the heads it has stay): a new net, on the same device, with every other weight
        this one's, so its policy and value are unchanged. Returns self when nothing is added."""
        cfg = self.config
        new = NetConfig.from_dict(
            {
                **cfg.to_dict(),
                "ownership_head": cfg.ownership_head or bool(ownership),
                "score_head": cfg.score_head or bool(score),
            }
        )
        if new == cfg:
            return self
        param = next(self.parameters())
        net = type(self)(new)
        missing, unexpected = net.load_state_dict(self.state_dict(), strict=False)
        assert not unexpected and all(k.split(".")[0] in ("ownership", "score") for k in missing), missing
        return net.to(device=param.device, dtype=param.dtype).train(self.training)

    def with_value_activation(self, activation: str) -> PolicyValueNet:
        """This net with its value (and score) MLP's hidden activation set to `activation` ("relu" or
        "leaky_relu"): a new net with every weight this one's (the activation has none), or self
        when it already has it. Training a net that has ReLU units stuck below zero with
        "leaky_relu" gives them a gradient again."""
        cfg = self.config
        if activation == cfg.value_activation:
            return self
        param = next(self.parameters())
        net = type(self)(NetConfig.from_dict({**cfg.to_dict(), "value_activation": activation}))
        net.load_state_dict(self.state_dict())
        return net.to(device=param.device, dtype=param.dtype).train(self.training)

    def num_actions(self, height: int, width: int) -> int:
        """How many policy logits the net gives on a height x width board."""
        return self.policy.num_actions(height, width)

    def num_parameters(self) -> int:
        """Number of trainable parameters (BatchNorm running statistics are buffers, not counted)."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

    def _features(self, planes: torch.Tensor) -> torch.Tensor:
        if planes.dim() != 4 or planes.shape[1] != self.config.in_planes:
            raise ValueError(f"planes must have shape (B, {self.config.in_planes}, H, W), got {tuple(planes.shape)}")
        return self.trunk(planes)

    def forward_raw(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(policy logits (B, A), value pre-activation z (B,)); the value is tanh(z)."""
        x = self._features(planes)
        return self.policy(x), self.value(x)

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, z = self.forward_raw(planes)
        return logits, torch.tanh(z)

    def forward_aux(
        self, planes: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
        """forward_raw's (logits, z) and the auxiliary heads' raw outputs: the ownership
        pre-activation (B, H, W) and the score margin over the board's area (B,), each None when
        the net has no such head."""
        x = self._features(planes)
        return (
            self.policy(x),
            self.value(x),
            self.ownership(x) if self.config.ownership_head else None,
            self.score(x) if self.config.score_head else None,
        )

    def predict_aux(self, planes: torch.Tensor | np.ndarray) -> dict[str, torch.Tensor]:
        """{"ownership": (B, H, W) in [-1, 1], "score": (B,) in points}, the auxiliary heads'
        predictions from the mover's view (only the heads the net has), without gradients."""
        with torch.no_grad():
            _, _, own, score = self.forward_aux(_as_tensor(planes, torch.float32, next(self.parameters()).device))
        area = planes.shape[-2] * planes.shape[-1]
        out = {} if own is None else {"ownership": torch.tanh(own)}
        return out if score is None else {**out, "score": score * area}

    def describe(self) -> str:
        c = self.config
        width = f"{c.channels}" + (f"/{self.trunk.hidden}" if c.trunk == "mobilenet" else "")
        kernel = f" ({c.kernel_size}x{c.kernel_size} kernels)" if c.kernel_size != 3 else ""
        return f"{c.trunk} {c.blocks}x{width}{kernel}, {self.num_parameters():,} parameters"

    def save(self, path: StrPath) -> None:
        save_net(self, path)

    @classmethod
    def load(cls, path: StrPath, **options: Any) -> Net:
        """load_net(path, **options): game, game_kwargs, config, device."""
        return load_net(path, **options)


def _as_tensor(x: Any, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    return torch.as_tensor(x).to(device=device, dtype=dtype)


def loss(
    net: Net,
    planes: torch.Tensor | np.ndarray,
    target_policy: torch.Tensor | np.ndarray,
    target_value: torch.Tensor | np.ndarray,
    mask: torch.Tensor | np.ndarray | None = None,
    *,
    ownership: torch.Tensor | np.ndarray | None = None,
    score: torch.Tensor | np.ndarray | None = None,
    ownership_weight: float = 0.0,
    score_weight: float = 0.0,
    parts: dict[str, torch.Tensor] | None = None,
    precision: str = "float32",
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(total, policy cross-entropy, value loss), each a scalar tensor averaged over the batch.

    planes (B, C, H, W); target_policy (B, A) (probabilities, zero on illegal actions);
    target_value (B,) in [-1, 1] from the mover's view; mask (B, A) of legal actions (bool or 0/1),
    or None. Illegal actions are left out of the policy softmax. The value loss is the net's
    config.value_loss: "mse" on v = tanh(z), or "bce" on (v + 1) / 2 = sigmoid(2 z) against
    (target + 1) / 2; total = policy CE + config.value_weight * value loss. Add L2 through the
    optimizer's weight_decay. Tensors or numpy arrays are accepted.

    Auxiliary targets (KataGo: Wu, "Accelerating Self-Play Learning in Go", 2019), for a net with
    the heads, each added to total times its weight when that weight is > 0: ownership (B, H, W)
    in [-1, 1], the final owner of each point from the mover's view, against the ownership head by
    binary cross-entropy of (o + 1) / 2 on sigmoid(2 z), averaged over the points (KataGo sums it
    over the board and scales by 1 / board area, the same); score (B,), the final score
    difference in points from the mover's view, divided by the board's area H * W (so a margin of
    the whole board is 1 on every size) and fitted by mean squared error. `parts`, a dict when
    given, receives "ownership_loss" and "score_loss" (tensors) of those computed.

    precision: "float32" (default), or "bfloat16" for the forward pass (and so its backward) under
    bf16 autocast, the net's outputs cast back to float32 for the losses (mixed precision; the
    weights and their gradients stay float32).
    """
    if precision not in ("float32", "bfloat16"):
        raise ValueError(f"loss: precision must be 'float32' or 'bfloat16', got {precision!r}")
    device = next(net.parameters()).device
    planes = _as_tensor(planes, torch.float32, device)
    if device.type == "cpu" and planes.dim() == 4:  # oneDNN: a 1.2x-1.5x faster SGD step of a ResNet 4x32
        planes = planes.contiguous(memory_format=torch.channels_last)
    use_own, use_score = ownership_weight > 0, score_weight > 0
    aux = use_own or use_score
    if aux:
        cfg = net.config
        lacking = [
            name
            for name, used in (("ownership", use_own), ("score", use_score))
            if used and not getattr(cfg, f"{name}_head", False)
        ]
        if lacking:
            raise ValueError(
                f"loss: {' and '.join(lacking)}_weight > 0 needs a net with the "
                f"{' and '.join(lacking)} head (NetConfig {', '.join(f'{n}_head' for n in lacking)}"
                f"=True, or net.with_aux_heads)"
            )
        if (use_own and ownership is None) or (use_score and score is None):
            raise ValueError("loss: ownership_weight / score_weight > 0 need their targets (ownership=, score=)")
    with autocast(device, precision):
        outputs = [t.float() for t in (net.forward_aux if aux else net.forward_raw)(planes)]
    logits, z = outputs[:2]
    own_z, score_pred = outputs[2:] if aux else (None, None)
    target_policy = _as_tensor(target_policy, torch.float32, device)
    target_value = _as_tensor(target_value, torch.float32, device)
    b, a = logits.shape
    if tuple(target_policy.shape) != (b, a):
        raise ValueError(f"target_policy must have shape {(b, a)} for these planes, got {tuple(target_policy.shape)}")
    if tuple(target_value.shape) != (b,):
        raise ValueError(f"target_value must have shape {(b,)}, got {tuple(target_value.shape)}")
    bad_value = (target_value.abs() > 1).any()
    if mask is not None:
        mask = _as_tensor(mask, torch.bool, device)
        if tuple(mask.shape) != (b, a):
            raise ValueError(f"mask must have shape {(b, a)} for these planes, got {tuple(mask.shape)}")
        illegal_mass = (target_policy * ~mask).sum(dim=1).amax()
        no_legal = ~mask.any(dim=1).all()
        flags = torch.stack([bad_value, illegal_mass > 1e-6, no_legal]).tolist()
        if flags[1]:
            raise ValueError("target_policy puts probability on actions the mask marks illegal")
        if flags[2]:
            raise ValueError("mask has a row with no legal action")
        logp = torch.where(mask, torch.log_softmax(logits.masked_fill(~mask, float("-inf")), dim=1), 0.0)
    else:
        flags = [bool(bad_value)]
        logp = torch.log_softmax(logits, dim=1)
    if flags[0]:
        raise ValueError("target_value must lie in [-1, 1]")
    policy_ce = -(target_policy * logp).sum(dim=1).mean()
    cfg = net.config
    if cfg.value_loss == "mse":
        value_loss = F.mse_loss(torch.tanh(z), target_value)
    else:
        value_loss = F.binary_cross_entropy_with_logits(2 * z, (target_value + 1) / 2)
    total = policy_ce + cfg.value_weight * value_loss
    parts = {} if parts is None else parts
    if use_own:
        assert own_z is not None  # aux: the net has the head (checked above)
        target = _as_tensor(ownership, torch.float32, device)
        if tuple(target.shape) != tuple(own_z.shape):
            raise ValueError(
                f"ownership must have shape {tuple(own_z.shape)} for these planes, got {tuple(target.shape)}"
            )
        parts["ownership_loss"] = F.binary_cross_entropy_with_logits(2 * own_z, (target.clamp(-1, 1) + 1) / 2)
        total = total + ownership_weight * parts["ownership_loss"]
    if use_score:
        assert score_pred is not None
        target = _as_tensor(score, torch.float32, device)
        if tuple(target.shape) != (b,):
            raise ValueError(f"score must have shape {(b,)}, got {tuple(target.shape)}")
        parts["score_loss"] = F.mse_loss(score_pred, target / (planes.shape[2] * planes.shape[3]))
        total = total + score_weight * parts["score_loss"]
    return total, policy_ce, value_loss


# ---- save / load -------------------------------------------------------------------------------


def net_payload(net: Net) -> dict[str, Any]:
    """The dict a network file holds (format tag, config JSON, state_dict); embed it in larger
    checkpoints. Works for every net class named in NET_FORMATS (PolicyValueNet, CompositeNet)."""
    fmt = getattr(type(net), "file_format", None)
    if fmt not in NET_FORMATS:
        raise TypeError(f"net_payload needs a zerogym network ({', '.join(NET_FORMATS)}), got {type(net).__name__}")
    return {
        "format": fmt,
        "version": type(net).file_version,
        "config": net.config.to_json(),
        "state_dict": {k: v.detach().cpu() for k, v in net.state_dict().items()},
    }


class _NetContext(Context):
    """Checks inside a network payload: every failure is a NetFileError 'corrupt zerogym network'."""

    def __init__(self, source: object, where: str) -> None:
        super().__init__(source, NetFileError)
        self.prefix = f"{source}: corrupt zerogym network" + (f" in {where}" if where else "")

    def fail(self, where: str, message: str) -> NoReturn:
        raise NetFileError(f"{self.prefix}: {where or 'it'} {message}")


def _check_limits(config: JsonConfig, ctx: Context, where: str) -> None:
    for name, most in type(config).file_limits.items():
        value = getattr(config, name)
        if value > most:
            ctx.fail(f"{where}.{name}", f"= {value!r} is more than a network file may claim (at most {most})")
    for f in dataclasses.fields(config):
        inner = getattr(config, f.name)
        if hasattr(type(inner), "file_limits"):
            _check_limits(inner, ctx, f"{where}.{f.name}")


def expected_state(cls: type[Any], config: JsonConfig) -> dict[str, tuple[tuple[int, ...], torch.dtype]]:
    """{name: (shape, dtype)} of the state_dict of cls.from_config(config), from a build on torch's
    meta device: no memory for weights is allocated and no random number is drawn."""
    with torch.device("meta"):
        net = cls.from_config(config)
    return {k: (tuple(v.shape), v.dtype) for k, v in net.state_dict().items()}


def check_net_payload(
    payload: Any, source: object = "payload", where: str = "", formats: Iterable[str] | None = None
) -> tuple[type[Any], Any]:
    """(class, config) of a network payload (net_payload's dict) that passes every check, else
    NetFileError naming `source` (and `where` in it) and what is wrong.

    Checked, in this order and before any weight is allocated: the format tag (one of `formats`,
    default NET_FORMATS) and version; the config (JSON of the class's config, every field valid);
    its sizes against the class's file_limits (the file_max of its fields) and its total size against
    MAX_NET_ELEMENTS; the state_dict against the shapes that config gives (the same names, each a
    tensor of that shape, floating or integer as the net's).
    """
    formats = tuple(formats or NET_FORMATS)
    at = f"{source}: {where}" if where else source
    fmt = payload.get("format") if isinstance(payload, Mapping) else None
    if not isinstance(fmt, str) or fmt not in formats:
        found = sorted(map(str, payload))[:8] if isinstance(payload, Mapping) else type(payload).__name__
        raise NetFileError(
            f"{at} is not a zerogym network (expected format {' or '.join(map(repr, formats))}; found {found})"
        )
    cls = NET_FORMATS[fmt]
    if payload.get("version") != cls.file_version:
        raise NetFileError(
            f"{at}: {fmt} format version {payload.get('version')!r} is not supported "
            f"(this zerogym reads version {cls.file_version})"
        )
    ctx = _NetContext(source, where)
    missing = [k for k in ("config", "state_dict") if k not in payload]
    if missing:
        ctx.fail("", f"lacks {', '.join(map(repr, missing))}")
    config = Config(cls.config_class).check(payload["config"], ctx, "config")
    _check_limits(config, ctx, "config")
    shapes = expected_state(cls, config)
    total = sum(math.prod(shape) for shape, _ in shapes.values())
    if total > MAX_NET_ELEMENTS:
        ctx.fail(
            "config",
            f"describes a network of {total:,} weights, more than a network file may hold ({MAX_NET_ELEMENTS:,})",
        )
    StateDict(shapes, label="the network its config describes").check(payload["state_dict"], ctx, "state_dict")
    return cls, config


class NetPayload(Spec):
    """Schema piece (zerogym_agents.core.file_checks.check) for a network payload embedded in a file:
    check_net_payload's checks; returns the payload."""

    what = "a zerogym network"

    def __init__(self, formats: Iterable[str] | None = None) -> None:
        self.formats = formats

    def check(self, value: Any, ctx: Context, where: str) -> Any:
        check_net_payload(value, ctx.source, where, self.formats)
        return value


def net_from_payload(
    payload: Any,
    *,
    source: object = "payload",
    game: GameLike = None,
    game_kwargs: Mapping[str, Any] | None = None,
    config: JsonConfig | None = None,
    device: str | torch.device = "cpu",
) -> Net:
    """Rebuild a network (in eval mode) from net_payload's dict, checking it and what it must fit.

    The payload's "format" tag picks the class (NET_FORMATS): a PolicyValueNet, or a
    zerogym_agents.nets.composite CompositeNet. A malformed payload raises NetFileError (a
    CheckpointError) saying what is wrong before the net is built (check_net_payload).
    """
    cls, saved = check_net_payload(payload, source)
    try:
        net = cls.from_config(saved)
        net.load_state_dict(payload["state_dict"])
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        raise NetFileError(f"{source}: corrupt zerogym network ({type(e).__name__}: {e})") from e
    bad = {k: n for k, v in net.state_dict().items() if v.is_floating_point() and (n := int((~v.isfinite()).sum()))}
    if bad:
        raise NetFileError(
            f"{source}: corrupt zerogym network: non-finite (NaN or infinite) values in "
            + ", ".join(f"{k} ({n})" for k, n in list(bad.items())[:5])
            + (f" and {len(bad) - 5} more tensors" if len(bad) > 5 else "")
            + "; a net with them cannot play (a training run that diverged writes such weights)"
        )
    if config is not None and saved != config:
        if type(config) is not type(saved):
            raise NetFileError(
                f"{source} holds a {cls.__name__} ({type(saved).__name__}), "
                f"not a net of the {type(config).__name__} asked for"
            )
        want = config.to_dict()
        diff = ", ".join(
            f"{k}: saved {v!r}, wanted {want.get(k)!r}" for k, v in saved.to_dict().items() if want.get(k) != v
        )
        raise NetFileError(f"{source} holds a network with another config ({diff})")
    if game is not None:
        try:
            saved.check_game(game, game_kwargs)
        except ValueError as e:
            raise NetFileError(f"{source}: {e}") from e
    return net.to(device).eval()


def save_net(net: Net, path: StrPath) -> None:
    """Write net's config and weights to `path` atomically (temp file in the same folder + os.replace)."""
    atomic_save(net_payload(net), path)


def load_net(
    path: StrPath,
    *,
    game: GameLike = None,
    game_kwargs: Mapping[str, Any] | None = None,
    config: JsonConfig | None = None,
    device: str | torch.device = "cpu",
) -> Net:
    """Load a network with torch.load(weights_only=True) (data, never code) from a file written by
    save_net, or from any zerogym file that holds one: a saved agent (save_agent) or a training
    checkpoint (e.g. a run's checkpoint.pt or agent.pt); "pretrained:NAME" names a shipped agent.

    Returns the PolicyValueNet (or CompositeNet) on `device`, in eval mode (call .train() before
    training it).
    game (name + game_kwargs, State, GameSpec or env) and config, when given, are checked: a file
    made for another game or config raises NetFileError, as does a corrupt or foreign file.
    """
    path, data = read_net_file(path)
    return net_from_payload(
        net_payload_in(data), source=path, game=game, game_kwargs=game_kwargs, config=config, device=device
    )


def read_net_file(path: StrPath) -> tuple[str, Any]:
    """(path, what the file holds) for a file load_net reads ("pretrained:NAME" resolved):
    FileNotFoundError when there is none, NetFileError when torch.load(weights_only=True) fails."""
    path = resolve(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no network file at {path}")
    try:
        return path, read_torch_file(path, what="zerogym network file")
    except CheckpointError as e:
        raise NetFileError(str(e)) from None


def net_payload_in(data: Any) -> Any:
    """The network payload in what a zerogym file holds: a net file's own dict, or the "net" entry
    of a saved agent or a training checkpoint."""
    if (
        isinstance(data, Mapping)
        and data.get("format") not in tuple(NET_FORMATS)
        and isinstance(data.get("net"), Mapping)
    ):
        return data["net"]
    return data
