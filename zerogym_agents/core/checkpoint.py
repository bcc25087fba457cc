"""Checkpoints: written atomically, read with torch.load(weights_only=True) — a checkpoint is data, never code.

Reading is checked as well as safe: every loader describes what it expects with the schema pieces
of zerogym_agents.core.file_checks and checks a file before it builds anything from it.
"""

from __future__ import annotations

import os
import re
import reprlib
import socket
import tempfile
import time
from collections.abc import Mapping
from typing import Any, Union

import torch

from zerogym_agents.core.constants import AGENT, CHECKPOINT

StrPath = Union[str, "os.PathLike[str]"]  # a path as a str or an os.PathLike

FORMAT = "zerogym-checkpoint"
VERSION = 1
TEMP_PREFIX = ".tmp-"
STALE_TEMP_SECONDS = 600  # an atomic_save temp file untouched this long has no live writer


PRETRAINED_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pretrained")


class CheckpointError(ValueError):
    """A file that is not a readable zerogym checkpoint of the expected kind."""


# ---- naming: the agents shipped with the package ---------------------------------------------------


def pretrained_names() -> list[str]:
    """Names usable as load_agent("pretrained:NAME")."""
    if not os.path.isdir(PRETRAINED_DIR):
        return []
    return sorted(f[:-3] for f in os.listdir(PRETRAINED_DIR) if f.endswith(".pt"))


def resolve(spec: StrPath) -> str:
    """The file behind an agent or network spec ("pretrained:NAME" or a path)."""
    spec = os.fspath(spec)
    if spec.startswith("pretrained:"):
        name = spec.split(":", 1)[1]
        path = os.path.join(PRETRAINED_DIR, f"{name}.pt")
        if not os.path.isfile(path):
            raise ValueError(f"no pretrained agent {name!r}; available: {', '.join(pretrained_names()) or 'none'}")
        return path
    if not os.path.exists(spec) and os.sep not in spec and not spec.endswith(".pt"):
        names = pretrained_names()
        hint = (
            f"the shipped agent of that name is pretrained:{spec}"
            if spec in names
            else "shipped agents: " + ", ".join(f"pretrained:{n}" for n in names)
        )
        raise CheckpointError(f"{spec}: no such file; {hint}")
    return spec


# ---- writing -----------------------------------------------------------------------------------


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:64]


# .tmp-<target>.<pid>@<host>.<8 random chars> (mkstemp's suffix); before pids were recorded: .tmp-<target>.<8 chars>
_TEMP_NAME = re.compile(r"^\.tmp-(?P<target>.+?)\.(?:(?P<pid>\d+)@(?P<host>[A-Za-z0-9-]*)\.)?[a-z0-9_]{8}$")


def _writer_alive(pid: int) -> bool:
    if os.name != "posix":  # os.kill(pid, 0) would terminate the process on Windows
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: a process of another user
        return True
    return True


def remove_stale_temp_files(folder: StrPath, max_age: float = STALE_TEMP_SECONDS) -> list[str]:
    """Remove the temp files that atomic_save left in `folder` when its writer died mid-write
    (kill -9, a crash, power loss); returns the paths removed.

    Only names of atomic_save's scheme are touched: `.tmp-<name>.<pid>@<host>.XXXXXXXX` (and the
    older `.tmp-<name>.XXXXXXXX`, without a pid). Such a file is stale when its writer was a process
    of this host that no longer runs, or when nobody has written to it for `max_age` seconds (a
    writer on another host sharing the folder, a pid reused since, a file of an older version). A
    concurrent writer's file is recent and its process alive, so it is left alone; other files are
    never removed. atomic_save calls this for its folder, and the trainers when they start.
    """
    folder = os.fspath(folder)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    host, now, removed = _host(), time.time(), []
    for name in names:
        m = _TEMP_NAME.match(name) if name.startswith(TEMP_PREFIX) else None
        if m is None:
            continue
        path = os.path.join(folder, name)
        try:
            if not os.path.isfile(path) or os.path.islink(path):
                continue
            dead = m["pid"] is not None and m["host"] == host and not _writer_alive(int(m["pid"]))
            if dead or now - os.path.getmtime(path) > max_age:
                os.unlink(path)
                removed.append(path)
        except OSError:  # removed meanwhile by another process, or not ours to remove
            continue
    return removed


def open_run_folder(out_dir: StrPath, resume: bool = False, checkpoint: str = CHECKPOINT) -> str:
    """A trainer's run folder `out_dir` as a str: made if missing and cleared of the temp files of
    dead writers; with resume, CheckpointError unless it holds `checkpoint`."""
    out = os.fspath(out_dir)
    if resume and not os.path.isfile(os.path.join(out, checkpoint)):
        raise CheckpointError(f"{os.path.join(out, checkpoint)}: no such file (nothing to resume in {out})")
    os.makedirs(out, exist_ok=True)
    remove_stale_temp_files(out)
    return out


def atomic_save(obj: object, path: StrPath) -> None:
    """torch.save `obj` to `path` atomically: a temp file in the same folder, fsync, then rename.

    The temp file is `.tmp-<name>.<pid>@<host>.XXXXXXXX`; stale ones left by writers that died
    (see remove_stale_temp_files) are removed from the folder first.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    remove_stale_temp_files(folder)
    fd, tmp = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{os.path.basename(path)}.{os.getpid()}@{_host()}.", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(obj, f)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the usual mode of a new file
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# ---- reading -----------------------------------------------------------------------------------


def read_torch_file(path: StrPath, what: str = "zerogym checkpoint") -> Any:
    """torch.load(path, weights_only=True), or CheckpointError saying why the file is not readable."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise CheckpointError(f"{path}: no such file")
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # truncated, garbage, or a pickle holding code/objects
        raise CheckpointError(f"{path} is not a readable {what}: {_why_unreadable(err)}") from None


def _why_unreadable(err: BaseException) -> str:
    """What torch.load(weights_only=True)'s error means, in one line. PyTorch's own message advises
    weights_only=False, which would let the file run code: that advice is not passed on."""
    text = str(err)
    found = re.search(r"Unsupported global: GLOBAL ([\w.]+)", text)
    if found:
        return (
            f"it holds a Python object ({found.group(1)}), and zerogym reads only tensors and plain data "
            "so that opening a file can never run code in it; save the object's state_dict instead"
        )
    if "WeightsUnpickler" in text or "weights_only" in text:
        return "it is corrupt or not a PyTorch file (its contents do not unpickle as tensors and plain data)"
    first = text.strip().splitlines()[0][:200] if text.strip() else ""
    return f"it is corrupt, truncated or not a PyTorch file ({type(err).__name__}: {first})"


def save_checkpoint(path: StrPath, kind: str, payload: Mapping[str, Any]) -> None:
    """Write {"format", "version", "kind", **payload} to `path` atomically.

    payload may hold tensors, numbers, strings, lists, tuples and dicts of those (what
    weights_only loading accepts); numpy arrays must be converted to tensors first.
    """
    atomic_save({"format": FORMAT, "version": VERSION, "kind": kind, **payload}, path)


def load_checkpoint(path: StrPath, kind: str | None = None) -> dict[str, Any]:
    """The payload dict of a checkpoint; CheckpointError if the file is missing, corrupt, not a
    zerogym checkpoint, from a newer version, or of another kind than `kind`."""
    data = read_torch_file(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a zerogym checkpoint (no '{FORMAT}' marker)")
    version = data.get("version", 0)
    if isinstance(version, bool) or not isinstance(version, int):
        raise CheckpointError(
            f"{path}: checkpoint version must be an integer, got {type(version).__name__} {reprlib.repr(version)}"
        )
    if version > VERSION:
        raise CheckpointError(
            f"{path}: checkpoint version {version} is newer than this zerogym ({VERSION}); upgrade zerogym"
        )
    if kind == "agent" and data.get("kind") != kind and isinstance(data.get("kind"), str):
        agent = os.path.join(os.path.dirname(path), AGENT)
        raise CheckpointError(
            f"{path}: a training checkpoint ({data['kind']}), not an agent; the agent of a run "
            f"is agent.pt in its folder" + (f" ({agent})" if os.path.isfile(agent) else "")
        )
    if kind is not None and data.get("kind") != kind:
        raise CheckpointError(f"{path}: a {data.get('kind')!r} checkpoint, expected {kind!r}")
    return data
