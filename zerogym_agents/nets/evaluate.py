"""Evaluators: batched numpy-in, numpy-out calls of a policy-value net, as tree search wants them.

An evaluator is any callable (planes (B, C, H, W) float32, masks (B, A) int8) -> (priors (B, A)
float32, zero on illegal actions and summing to 1 over legal ones; values (B,) float32 in [-1, 1]
from the view of the player to move).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from zerogym.symmetry import Symmetries
from zerogym_agents.core.devices import HostBuffer, autocast, check_precision, resolve_device, warn_emulated_bf16
from zerogym_agents.nets.folding import FoldedNet
from zerogym_agents.nets.graphs import GraphedForward
from zerogym_agents.nets.model import Net


def _check_batch(planes: Any, masks: Any, channels: int | None = None) -> None:
    if not isinstance(planes, np.ndarray) or planes.dtype != np.float32 or planes.ndim != 4:
        raise ValueError(
            f"planes must be a float32 numpy array (B, C, H, W), got "
            f"{getattr(planes, 'dtype', type(planes).__name__)} {getattr(planes, 'shape', '')}"
        )
    if channels is not None and planes.shape[1] != channels:
        raise ValueError(f"planes have {planes.shape[1]} channels, the net takes {channels}")
    if not isinstance(masks, np.ndarray) or masks.ndim != 2 or masks.shape[0] != planes.shape[0]:
        raise ValueError(
            f"masks must be a numpy array (B, A) with B = {planes.shape[0]} like the planes, "
            f"got {getattr(masks, 'shape', type(masks).__name__)}"
        )


def _masked_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Softmax over the True entries of each row; rows with no legal action give all zeros."""
    x = logits.masked_fill(~mask, float("-inf"))
    top = x.amax(dim=-1, keepdim=True)
    e = torch.exp(x - torch.where(torch.isfinite(top), top, 0.0))
    return e / e.sum(dim=-1, keepdim=True).clamp_min(1e-30)


def _symmetry_names(symmetries: Any) -> tuple[str, ...]:
    """Transform names from a Symmetries, a GameSpec / State / env, or a sequence of names."""
    if isinstance(symmetries, Symmetries):
        return symmetries.names
    for get in (lambda s: s.unwrapped.state.spec, lambda s: s.spec, lambda s: s):
        try:
            return tuple(get(symmetries).symmetry_names)
        except AttributeError:
            continue
    if (
        isinstance(symmetries, Sequence)
        and not isinstance(symmetries, str)
        and all(isinstance(n, str) for n in symmetries)
        and len(symmetries) > 0
    ):
        return tuple(symmetries)
    raise ValueError(
        "symmetries must be None, a zerogym.symmetry.Symmetries, a game State/GameSpec/env, "
        f"or a non-empty sequence of transform names; got {symmetries!r}"
    )


def _spec_symmetries(obj: Any) -> Symmetries | None:
    """The Symmetries of a game State/GameSpec/env; None for anything else (transform names)."""
    spec = getattr(getattr(getattr(obj, "unwrapped", obj), "state", obj), "spec", obj)
    syms = getattr(spec, "symmetries", None)
    return syms if isinstance(syms, Symmetries) else None


class Evaluator:
    """A batched evaluator over `net` (a PolicyValueNet, moved to `device`: a torch.device, or
    "auto", "cpu", "cuda", "cuda:N" as in zerogym_agents.core.devices; None keeps the net where it is).

    evaluator(planes (B, C, H, W) float32, masks (B, A) int8) -> (priors (B, A) float32: softmax
    over legal actions only, zeros on illegal ones and on rows with no legal action; values (B,)
    float32 in [-1, 1] from the mover's view). Runs under torch.inference_mode an eval-mode copy of the
    net with each BatchNorm folded into the convolution before it (zerogym_agents.nets.folding, 1.25-1.45x
    faster on a CPU), brought up to date whenever the net's weights change; the net itself is left
    as it is, in train or eval mode. On CUDA
    the inputs are copied through pinned host buffers; on a CPU they are handed to the net in channels-last
    memory order, which oneDNN's convolutions run faster (1.2x-1.8x for a Go 9x9 ResNet 4x32 at batch 64 to
    1,024 on 2 cores; values equal up to float rounding). precision: "auto" (default) runs the forward
    pass under autocast on CUDA (bf16, or fp16 where the GPU has no bf16) and in float32 on the CPU;
    "float32" everywhere; "bfloat16" under bf16 autocast on the CPU too, about 1.5-1.8x faster at
    batch 128 on a CPU with native bf16 (zerogym_agents.core.devices.cpu_has_bf16), values within a few
    hundredths of float32's. Priors and values always come back as float32.

    symmetries: None, a zerogym.symmetry.Symmetries, a game State/GameSpec/env, or transform names.
    Then every position is evaluated under each transform (planes mapped with the symmetry's cell
    permutation), each policy is mapped back to the original actions, and priors and values are
    averaged over the transforms (Cazenave, "Spatial Average Pooling for Computer Go", 2018,
    averages the value over the 8 symmetries). Other board sizes reuse the transform names.
    batch_size: most rows (positions x transforms) per forward pass; None = all at once.
    threads: torch.set_num_threads(threads), process-wide; "auto" (default) = half the CPU cores
    (at least 1, at most torch's current setting), leaving the rest to search and other workers;
    None leaves torch's setting alone. Measured on the shared 2-core box: training a small net ran
    about 7x slower on 2 intra-op threads than on 1 while other processes were busy.
    cache: keep the results of up to this many distinct positions (keyed by a 128-bit BLAKE2 digest
    of the planes and the mask) and answer repeats from them, within a batch and across calls; 0
    (default) = off. The cache is emptied when it is full and whenever the net's weights or buffers
    change (an optimizer step, load_state_dict), so a repeat gets what the net would give now, up to
    float rounding. Tree search meets many repeats: transpositions, and the same openings in many
    games. `hits` and `misses` count the positions answered from it and by the net.
    cuda_graphs: replay the forward pass as CUDA graphs, one per padded batch size (see
    zerogym_agents.nets.graphs): one launch per batch instead of one per layer; self-play ran 2-3x
    faster with them on an H200. "auto" (default): on CUDA, without symmetries and batch_size; True: the
    same, refused elsewhere; False: never.
    """

    _index: dict[tuple[int, int, int], tuple[torch.Tensor, torch.Tensor]]
    _cache: dict[bytes, tuple[npt.NDArray[np.float32], np.float32]]
    _weights: object  # what the cache's answers were computed with (_weights_key, board shape)

    def __init__(
        self,
        net: Net,
        device: str | torch.device | None = None,
        symmetries: Any = None,
        batch_size: int | None = None,
        threads: int | str | None = "auto",
        cache: int = 0,
        precision: str = "auto",
        cuda_graphs: bool | str = "auto",
    ) -> None:
        self.precision = check_precision(precision)
        if cuda_graphs not in ("auto", True, False):
            raise ValueError(f"cuda_graphs must be 'auto', True or False, got {cuda_graphs!r}")
        if isinstance(cache, bool) or not isinstance(cache, int) or cache < 0:
            raise ValueError(f"cache must be a non-negative integer (positions kept; 0: off), got {cache!r}")
        if batch_size is not None and (
            isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1
        ):
            raise ValueError(f"batch_size must be a positive integer or None, got {batch_size!r}")
        if threads == "auto":
            threads = min(torch.get_num_threads(), max(1, (os.cpu_count() or 1) // 2))
        if threads is not None:
            if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
                raise ValueError(f"threads must be a positive integer, 'auto' or None, got {threads!r}")
            torch.set_num_threads(threads)
        if device is None:
            first = next(net.parameters(), None)
            device = first.device if first is not None else "cpu"
        self.device = resolve_device(device)
        warn_emulated_bf16(self.device, self.precision)
        self.net = net.to(self.device)
        self._walked: list[torch.nn.Module] = []  # the net's modules at the last walk (_weights_key)
        self._layout: list[int] | None = None
        self._folded, self._synced = FoldedNet(self.net), self._weights_key()
        self.cuda = self.device.type == "cuda"
        if self.cuda:  # inputs go through pinned host memory, copied without blocking
            self._host_planes, self._host_masks = HostBuffer(), HostBuffer()
        self.batch_size = batch_size
        self.names = None if symmetries is None else _symmetry_names(symmetries)
        self._given = symmetries if isinstance(symmetries, Symmetries) else _spec_symmetries(symmetries)
        self._index = {}  # (H, W, A) -> (cell source index (K, HW), action map (K, A)) as tensors
        self.cache_size, self._cache, self._weights = cache, {}, None  # digest of (planes, mask) -> (prior, value)
        self.hits = self.misses = 0
        graphable = self.cuda and self.names is None and batch_size is None
        if cuda_graphs is True and not graphable:
            raise ValueError(
                f"cuda_graphs=True needs a CUDA device, no symmetries and batch_size None; got device "
                f"{self.device}, symmetries {symmetries!r}, batch_size {batch_size!r}"
            )
        self.graphed = (
            None if not (cuda_graphs and graphable) else GraphedForward(self._graph_run, self.device, self._storage)
        )

    def _graph_run(self, x: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # what a graph holds: the forward pass, the masked softmax and float32 outputs
        logits, values = self._run(x)
        return _masked_softmax(logits, masks != 0), values

    def _storage(self) -> object:
        # where the folded net's tensors are: a graph reads them there
        module = self._folded.module
        return tuple(t.data_ptr() for t in itertools.chain(module.parameters(), module.buffers()))

    def _refresh(self) -> None:
        """Bring the folded copy up to date with the net (in place after weight updates, anew when
        the net's tensors were replaced) and _synced, the cache's key of the weights, with it."""
        key = self._weights_key()
        if key == self._synced:
            return
        old = self._synced
        if not (isinstance(key, tuple) and isinstance(old, tuple)) or [p for _, p in key] != [p for _, p in old]:
            self._folded = FoldedNet(self.net)
        else:
            self._folded.sync()
        self._synced = key

    def _maps(self, h, w, a):
        key = (h, w, a)
        if key not in self._index:
            g = self._given
            if g is not None and (g.height, g.width, g.num_actions) == key:
                syms = g
            elif g is not None:
                syms = g.resized(h, w, a)  # another board size: the game's kind of actions
            else:
                assert self.names is not None  # the maps serve evaluations under symmetries only
                syms = Symmetries(self.names, h, w, a, self.net.config.action_layout)
            src = np.stack([syms.planes(np.arange(h * w), k) for k in range(len(syms))])
            self._index[key] = (
                torch.as_tensor(src, device=self.device),
                torch.as_tensor(syms.action_maps, device=self.device),
            )
        return self._index[key]

    def _run(self, x):
        if not self.cuda:  # oneDNN's convolutions on channels-last input: 1.2-1.8x faster for a Go 9x9 ResNet
            x = x.contiguous(memory_format=torch.channels_last)
        with autocast(self.device, self.precision):
            logits, values = self._forward(x)
        return logits.float(), values.float()

    def _forward(self, x):
        net = self._folded.module
        if self.batch_size is None or x.shape[0] <= self.batch_size:
            return net(x)
        parts = [net(x[i : i + self.batch_size]) for i in range(0, x.shape[0], self.batch_size)]
        return torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts])

    def _inputs(self, planes, masks):
        """planes and masks as tensors on the device (through the pinned buffers on CUDA)."""
        planes = np.ascontiguousarray(planes)
        if self.cuda:
            return (
                self._host_planes.to(self.device, planes),
                self._host_masks.to(self.device, np.ascontiguousarray(masks)) != 0,
            )
        return torch.from_numpy(planes).to(self.device), torch.from_numpy(masks).to(self.device) != 0

    def __call__(
        self, planes: np.ndarray, masks: np.ndarray
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        _check_batch(planes, masks, self.net.config.in_planes)
        b, c, h, w = planes.shape
        a = self.net.num_actions(h, w)
        if masks.shape[1] != a:
            raise ValueError(f"masks have {masks.shape[1]} actions; the net gives {a} on a {h}x{w} board")
        self._refresh()
        if not self.cache_size:
            return self._evaluate(planes, masks, b, c, h, w, a)
        return self._cached(planes, masks, b, c, h, w, a)

    def clear_cache(self) -> None:
        """Forget every cached answer."""
        self._cache.clear()

    def _weights_key(self):
        """Changes whenever a weight or buffer of the net is changed in place (torch's version
        counters: optimizer steps, load_state_dict), moved (storage pointers) or replaced, or a module
        of the net replaced. The net's module tree is walked again only when a module's children,
        parameters or buffers are other objects than at the last walk (which keeps the old ones
        referenced, so that their ids are not reused): a walk costs ~0.5 ms, a check ~0.02."""
        if _layout(self._walked) != self._layout:
            self._walked = list(self.net.modules())
            self._layout = _layout(self._walked)
            self._tensors = [*self.net.parameters(), *self.net.buffers()]
        try:
            return tuple((t._version, t.data_ptr()) for t in self._tensors)
        except RuntimeError:  # a tensor without a version counter: never reuse
            return object()

    def _cached(self, planes, masks, b, c, h, w, a):
        """Repeated positions (the same planes and mask, in this batch or an earlier one with the same
        weights) are answered from the cache; the others go through the net in one batch."""
        weights = self._synced, planes.shape[1:]  # a 6x7 and a 7x6 board may share their bytes
        if weights != self._weights:
            self._cache.clear()
            self._weights = weights
        rows = np.ascontiguousarray(planes).reshape(b, -1)
        legal = np.ascontiguousarray(masks)
        keys = []
        for i in range(b):
            digest = hashlib.blake2b(rows[i], digest_size=16)
            digest.update(legal[i])
            keys.append(digest.digest())
        found = {k: self._cache[k] for k in keys if k in self._cache}
        new = {}  # key -> the batch row evaluated for it
        for i, k in enumerate(keys):
            if k not in found and k not in new:
                new[k] = i
        self.hits += b - len(new)
        self.misses += len(new)
        if new:
            index = np.fromiter(new.values(), np.int64, len(new))
            priors, values = self._evaluate(planes[index], masks[index], len(new), c, h, w, a)
            results = dict(zip(new, zip(priors, values)))
            found.update(results)
            if len(self._cache) + len(results) > self.cache_size:
                self._cache.clear()
            if len(results) <= self.cache_size:
                self._cache.update(results)
        return (np.stack([found[k][0] for k in keys]), np.fromiter((found[k][1] for k in keys), np.float32, b))

    def _evaluate(self, planes, masks, b, c, h, w, a):
        with torch.inference_mode():
            if self.graphed is not None:
                try:
                    return self.graphed(planes, masks)
                except RuntimeError as e:  # an op the graph cannot hold: run eagerly from now on
                    warnings.warn(f"CUDA graphs turned off for this evaluator: {e}", RuntimeWarning, stacklevel=2)
                    self.graphed = None
            x, mask = self._inputs(planes, masks)
            if self.names is None:
                logits, values = self._run(x)
                priors = _masked_softmax(logits, mask)
            else:
                src, amap = self._maps(h, w, a)
                k = src.shape[0]
                # board k holds transform k of every position: (K*B, C, H, W)
                xs = x.flatten(2)[:, :, src].permute(2, 0, 1, 3).reshape(k * b, c, h, w)
                logits, values = self._run(xs)
                # logits of transform k, read back at original action a: column amap[k, a]
                logits = torch.gather(logits.view(k, b, a), 2, amap.view(k, 1, a).expand(k, b, a))
                priors = _masked_softmax(logits, mask.unsqueeze(0)).mean(dim=0)
                values = values.view(k, b).mean(dim=0)
            return (priors.to("cpu", torch.float32).numpy(), values.to("cpu", torch.float32).numpy())


def _layout(modules: list[torch.nn.Module]) -> list[int]:
    """The ids of the modules' children, parameters and buffers."""
    return [id(x) for m in modules for d in (m._modules, m._parameters, m._buffers) for x in d.values()]


# the evaluator of a net: make_evaluator(net, ...) is Evaluator(net, ...)
make_evaluator = Evaluator
