"""CUDA graphs of an evaluator's forward pass.

The nets here are small: at the batch sizes of a batched tree search, launching their kernels one by
one from Python (tens of launches per forward pass, each with the dispatcher's overhead) costs more
host time than the GPU spends computing. A captured graph replays the whole pass, from the masked
softmax to the float32 outputs, with one launch. Each padded batch size (see padded_size) gets its own
graph, captured on first use; all share one memory pool and replay one at a time on one stream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

# run(planes (B, C, H, W) float32, masks (B, A) int8) -> (priors (B, A), values (B,)) float32, on the device
Forward = Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]


def padded_size(n: int) -> int:
    """The batch size that a batch of n rows runs at: n rounded up to a multiple of a quarter of its
    power of two (a quarter more rows at most, four sizes per doubling)."""
    if n < 1:
        raise ValueError(f"a batch has at least one row, got {n}")
    step = 1 << max(0, n.bit_length() - 3)
    return -(-n // step) * step


class _Slot:
    """The fixed buffers of one padded shape: pinned host inputs and outputs, device inputs, and the
    graph writing the device outputs."""

    def __init__(self, shape: tuple[int, int, int, int], actions: int, device: torch.device) -> None:
        pin = device.type == "cuda"
        self.host_planes = torch.zeros(shape, dtype=torch.float32, pin_memory=pin)
        self.host_masks = torch.zeros((shape[0], actions), dtype=torch.int8, pin_memory=pin)
        self.host_priors = torch.zeros((shape[0], actions), dtype=torch.float32, pin_memory=pin)
        self.host_values = torch.zeros(shape[0], dtype=torch.float32, pin_memory=pin)
        self.planes = torch.zeros(shape, dtype=torch.float32, device=device)
        self.masks = torch.zeros((shape[0], actions), dtype=torch.int8, device=device)
        self.graph: torch.cuda.CUDAGraph | None = None
        self.priors = self.values = torch.empty(0)


class GraphedForward:
    """forward(planes, masks) -> (priors, values) as numpy float32, computed by `run` on `device` at
    the padded batch size through a graph captured for that shape (on a CPU device, `run` is called on
    the same fixed buffers without a graph: the padding and copies are the same, which is what tests
    of this class check there). `weights()` identifies the storage the net's tensors live in: when it
    changes (the net moved or replaced), every graph is captured again. In-place changes (optimizer
    steps, load_state_dict) need nothing: a replay reads the weights as they are."""

    def __init__(self, run: Forward, device: torch.device, weights: Callable[[], object]) -> None:
        self.run, self.device, self.weights = run, device, weights
        self._slots: dict[tuple[int, ...], _Slot] = {}
        self._key: object = None
        self._pool: Any = None  # the graphs' shared memory pool (torch.cuda.graph_pool_handle())
        self.captures = 0  # graphs captured so far (one per padded shape and weights)

    def __call__(
        self, planes: npt.NDArray[np.float32], masks: npt.NDArray[np.int8]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        key = self.weights()
        if key != self._key:
            self._slots.clear()
            self._key = key
        n, c, h, w = planes.shape
        shape = (padded_size(n), c, h, w)
        slot = self._slots.get(shape + (masks.shape[1],))
        if slot is None:
            slot = self._slots[shape + (masks.shape[1],)] = _Slot(shape, masks.shape[1], self.device)
        # rows n.. keep an earlier batch's positions: evaluated, never read
        slot.host_planes[:n].copy_(torch.from_numpy(planes))
        slot.host_masks[:n].copy_(torch.from_numpy(masks.view(np.int8) if masks.itemsize == 1 else masks != 0))
        slot.planes[:n].copy_(slot.host_planes[:n], non_blocking=True)
        slot.masks[:n].copy_(slot.host_masks[:n], non_blocking=True)
        if self.device.type != "cuda":
            slot.priors, slot.values = self.run(slot.planes, slot.masks)
        elif slot.graph is None:
            self._capture(slot)
        else:
            slot.graph.replay()
        slot.host_priors[:n].copy_(slot.priors[:n], non_blocking=True)
        slot.host_values[:n].copy_(slot.values[:n], non_blocking=True)
        if self.device.type == "cuda":
            torch.cuda.current_stream(self.device).synchronize()
        # copies: the next call overwrites the slot while the caller may still hold these
        return slot.host_priors[:n].numpy().copy(), slot.host_values[:n].numpy().copy()

    def _capture(self, slot: _Slot) -> None:
        # warm up on a side stream (cuDNN's choice of algorithms, lazy initialisation), capture (which
        # records the kernels without running them), then replay for this batch
        stream = torch.cuda.Stream(self.device)
        stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(stream):
            for _ in range(2):
                self.run(slot.planes, slot.masks)
        torch.cuda.current_stream(self.device).wait_stream(stream)
        if self._pool is None:
            self._pool = torch.cuda.graph_pool_handle()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self._pool, capture_error_mode="thread_local"):
            slot.priors, slot.values = self.run(slot.planes, slot.masks)
        graph.replay()
        slot.graph = graph
        self.captures += 1
