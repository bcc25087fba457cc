"""Devices for training and inference: "auto", "cpu", "cuda" or "cuda:N".

"auto" is the first CUDA device when torch sees one, else the CPU. On the CPU nothing changes from
a run without a device setting (same kernels, same results bit for bit); on CUDA the evaluators copy
their inputs through pinned host buffers and run under autocast (bf16 where the GPU supports it,
fp16 otherwise), and training stays in float32. torch is imported only when a device is resolved,
so configs that name a device stay light to import.
"""
import contextlib
import re

from zerogym_agents.config_io import Check, Refused, setting

ALLOWED = '"auto", "cpu", "cuda" or "cuda:N" (N a GPU index)'
_PATTERN = re.compile(r"auto|cpu|cuda(:\d+)?")


def check_device_name(name):
    """`name` if it is a device setting this package takes (no torch needed), else ValueError."""
    if not isinstance(name, str) or not _PATTERN.fullmatch(name):
        raise ValueError(f"device must be {ALLOWED}, got {name!r}")
    return name


class DeviceName(Check):
    """A config field's check: a device setting (see check_device_name)."""

    what = ALLOWED
    arg_type = str

    def __call__(self, value):
        try:
            return check_device_name(value)
        except ValueError:
            raise Refused from None


def device_setting(where):
    """A config's `device` field (default "auto"), documented as `where` the device is used."""
    return setting("auto", DeviceName(), f"{where}: auto (CUDA when torch sees a GPU, else the CPU), cpu, cuda, cuda:N")


def resolve_device(name="auto"):
    """The torch.device for a device setting (a torch.device passes through). "cuda" or "cuda:N"
    where torch sees no such GPU raises ValueError saying what torch sees."""
    import torch
    if isinstance(name, torch.device):
        name = str(name)
    check_device_name(name)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if not torch.cuda.is_available():
        why = ("this torch is a CPU-only build" if torch.version.cuda is None
               else "torch sees no CUDA GPU (driver, CUDA_VISIBLE_DEVICES?)")
        raise ValueError(f"device {name!r} asked for, but {why}; use device=\"cpu\" or \"auto\"")
    index = int(name.split(":")[1]) if ":" in name else 0
    count = torch.cuda.device_count()
    if index >= count:
        raise ValueError(f"device {name!r} asked for, but torch sees {count} CUDA GPU(s): cuda:0..cuda:{count - 1}")
    return torch.device("cuda", index)


def autocast(device):
    """The context for inference on `device` (a torch.device): CUDA autocast in bf16 where supported,
    else fp16; on any other device nothing (a CPU run keeps float32 exactly)."""
    import torch
    if device.type != "cuda":
        return contextlib.nullcontext()
    dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.autocast("cuda", dtype=dtype)


class HostBuffer:
    """A reusable pinned host tensor for copies to a CUDA device (grown when a batch is larger);
    to(device, array) copies a numpy array through it without blocking the host."""

    def __init__(self):
        self.buf = None

    def to(self, device, array):
        import torch
        src = torch.from_numpy(array)
        n = src.numel()
        if self.buf is None or self.buf.numel() < n or self.buf.dtype != src.dtype:
            self.buf = torch.empty(max(n, 1), dtype=src.dtype, pin_memory=True)
        else:
            torch.cuda.current_stream(device).synchronize()   # the last copy out of the buffer is done
        host = self.buf[:n].view(src.shape)
        host.copy_(src)
        return host.to(device, non_blocking=True)
