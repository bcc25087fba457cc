"""Checkpoints: written atomically, read with torch.load(weights_only=True) — a checkpoint is data, never code."""
import os
import tempfile

import torch

FORMAT = "zerogym-checkpoint"
VERSION = 1


class CheckpointError(ValueError):
    """A file that is not a readable zerogym checkpoint of the expected kind."""


def atomic_save(obj, path):
    """torch.save `obj` to `path` atomically: a temp file in the same folder, fsync, then rename."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-" + os.path.basename(path) + ".", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(obj, f)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)       # mkstemp makes 0600; give the usual mode of a new file
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_torch_file(path, what="zerogym checkpoint"):
    """torch.load(path, weights_only=True), or CheckpointError saying why the file is not readable."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise CheckpointError(f"{path}: no such file")
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:     # truncated, garbage, or a pickle holding code/objects
        msg = str(err).strip().splitlines()[0][:200] if str(err).strip() else ""
        raise CheckpointError(f"{path} is not a readable {what}: it is corrupt, or holds objects other than "
                              f"tensors and plain data ({type(err).__name__}: {msg})") from None


def save_checkpoint(path, kind, payload):
    """Write {"format", "version", "kind", **payload} to `path` atomically.

    payload may hold tensors, numbers, strings, lists, tuples and dicts of those (what
    weights_only loading accepts); numpy arrays must be converted to tensors first.
    """
    atomic_save({"format": FORMAT, "version": VERSION, "kind": kind, **payload}, path)


def load_checkpoint(path, kind=None):
    """The payload dict of a checkpoint; CheckpointError if the file is missing, corrupt, not a
    zerogym checkpoint, from a newer version, or of another kind than `kind`."""
    data = read_torch_file(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a zerogym checkpoint (no '{FORMAT}' marker)")
    if data.get("version", 0) > VERSION:
        raise CheckpointError(f"{path}: checkpoint version {data['version']} is newer than this zerogym "
                              f"({VERSION}); upgrade zerogym")
    if kind is not None and data.get("kind") != kind:
        raise CheckpointError(f"{path}: a {data.get('kind')!r} checkpoint, expected {kind!r}")
    return data
