"""Devices for training and inference: "auto", "cpu", "cuda" or "cuda:N".

"auto" is the first CUDA device when torch sees one, else the CPU. On the CPU nothing changes from
a run without a device setting (same kernels, same results bit for bit); on CUDA the evaluators copy
their inputs through pinned host buffers and run under autocast (bf16 where the GPU supports it,
fp16 otherwise), and training stays in float32. torch is imported only when a device is resolved,
so configs that name a device stay light to import.

Precision (`precision=` of make_evaluator, AlphaZeroConfig.precision): "auto" is the above;
"float32" keeps every forward pass in float32, on CUDA too; "bfloat16" runs forward passes under
bf16 autocast on the CPU as well (weights, optimizer state and losses stay float32). On a CPU with
native bf16 (AVX512-BF16 or AMX, see cpu_has_bf16) a small ResNet's forward pass is about 1.5-1.8x
faster that way at batch 128 and 2-3x at 512, an SGD step 1.5-1.75x (benchmarks/net_precision.py);
elsewhere torch emulates bf16, many times slower than float32, and warn_emulated_bf16 says so.
"""

from __future__ import annotations

import contextlib
import os
import re
import warnings
from typing import TYPE_CHECKING, Any

from zerogym_agents.core.config_io import Check, Refused, setting

if TYPE_CHECKING:  # torch is imported when a device is resolved
    import numpy as np
    import torch

ALLOWED = '"auto", "cpu", "cuda" or "cuda:N" (N a GPU index)'
_PATTERN = re.compile(r"auto|cpu|cuda(:\d+)?")


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def check_device_name(name: Any) -> str:
    """`name` if it is a device setting this package takes (no torch needed), else ValueError."""
    if not isinstance(name, str) or not _PATTERN.fullmatch(name):
        raise ValueError(f"device must be {ALLOWED}, got {name!r}")
    return name


class DeviceName(Check):
    """A config field's check: a device setting (see check_device_name)."""

    what = ALLOWED
    arg_type = str

    def __call__(self, value: Any) -> str:
        try:
            return check_device_name(value)
        except ValueError:
            raise Refused from None


def device_setting(where: str) -> Any:
    """A config's `device` field (default "auto"), documented as `where` the device is used."""
    return setting("auto", DeviceName(), f"{where}: auto (CUDA when torch sees a GPU, else the CPU), cpu, cuda, cuda:N")


def resolve_device(name: str | torch.device = "auto") -> torch.device:
    """The torch.device for a device setting (a torch.device passes through); a GPU always with its
    index ("auto" and "cuda" give the current one), so that it compares equal to a tensor's device.
    "cuda" or "cuda:N" where torch sees no such GPU raises ValueError saying what torch sees."""
    import torch

    if isinstance(name, torch.device):
        name = str(name)
    check_device_name(name)
    if name == "cpu" or (name == "auto" and not torch.cuda.is_available()):
        return torch.device("cpu")
    if not torch.cuda.is_available():
        why = (
            "this torch is a CPU-only build"
            if torch.version.cuda is None
            else "torch sees no CUDA GPU (driver, CUDA_VISIBLE_DEVICES?)"
        )
        raise ValueError(f'device {name!r} asked for, but {why}; use device="cpu" or "auto"')
    index = int(name.split(":")[1]) if ":" in name else torch.cuda.current_device()
    count = torch.cuda.device_count()
    if index >= count:
        raise ValueError(f"device {name!r} asked for, but torch sees {count} CUDA GPU(s): cuda:0..cuda:{count - 1}")
    return torch.device("cuda", index)


def device_rng_state(device: torch.device) -> torch.Tensor | None:
    """What a checkpoint keeps of `device`'s own generator besides torch.get_rng_state() (the CPU's):
    on a GPU its state (sampling there, e.g. a policy's actions, draws from it), on the CPU None."""
    import torch

    return torch.cuda.get_rng_state(device) if device.type == "cuda" else None


def set_device_rng_state(device: torch.device, state: torch.Tensor | None) -> None:
    """Restore device_rng_state's `state` on `device`; None (a checkpoint of a CPU run, or an older
    file) leaves the GPU's generator as seeded, and a GPU state is ignored on the CPU."""
    import torch

    if device.type == "cuda" and state is not None:
        torch.cuda.set_rng_state(state, device)


PRECISIONS = ("auto", "float32", "bfloat16")


def check_precision(precision: Any) -> str:
    """`precision` if it is one of PRECISIONS, else ValueError."""
    if not isinstance(precision, str) or precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(map(repr, PRECISIONS))}, got {precision!r}")
    return precision


def cpu_has_bf16() -> bool:
    """Whether this CPU computes bf16 natively (AVX512-BF16 or AMX tiles), where precision="bfloat16"
    speeds up the CPU forward pass; False when torch cannot tell."""
    import torch

    probes = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(bool(getattr(torch.cpu, name, lambda: False)()) for name in probes)


def warn_emulated_bf16(device: torch.device, precision: str) -> None:
    """A RuntimeWarning when precision="bfloat16" would run on a CPU without native bf16, where torch
    emulates it and the forward pass is many times slower than in float32."""
    if precision == "bfloat16" and device.type == "cpu" and not cpu_has_bf16():
        warnings.warn(
            "precision='bfloat16' on a CPU without native bf16 (no AVX512-BF16 or AMX): torch emulates "
            "it, and forward passes run many times slower than in float32 (benchmarks/net_precision.py "
            "measures it); use precision='auto' or 'float32' on this machine",
            RuntimeWarning,
            stacklevel=3,
        )


def autocast(device: torch.device, precision: str = "auto") -> contextlib.AbstractContextManager[Any]:
    """The context for forward passes on `device` (a torch.device) at `precision` (see the module's
    docstring): with "auto", CUDA autocast in bf16 where supported, else fp16, and nothing on the CPU
    (a CPU run keeps float32 exactly); "float32": nothing; "bfloat16": bf16 autocast on any device."""
    import torch

    check_precision(precision)
    if precision == "float32" or (precision == "auto" and device.type != "cuda"):
        return contextlib.nullcontext()
    if device.type == "cuda":
        if precision == "bfloat16" and not torch.cuda.is_bf16_supported():
            raise ValueError(
                f"precision='bfloat16' asked for, but {device} has no bf16; use 'auto' (fp16) or 'float32'"
            )
        dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.autocast("cuda", dtype=dtype)
    return torch.autocast(device.type, dtype=torch.bfloat16)


class HostBuffer:
    """A reusable pinned host tensor for copies to a CUDA device (grown when a batch is larger);
    to(device, array) copies a numpy array through it without blocking the host."""

    def __init__(self) -> None:
        self.buf: torch.Tensor | None = None

    def to(self, device: torch.device, array: np.ndarray) -> torch.Tensor:
        import torch

        src = torch.from_numpy(array)
        n = src.numel()
        if self.buf is None or self.buf.numel() < n or self.buf.dtype != src.dtype:
            self.buf = torch.empty(max(n, 1), dtype=src.dtype, pin_memory=True)
        else:
            torch.cuda.current_stream(device).synchronize()  # the last copy out of the buffer is done
        host = self.buf[:n].view(src.shape)
        host.copy_(src)
        return host.to(device, non_blocking=True)
