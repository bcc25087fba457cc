"""The harness's records on disk: JSON written atomically and read back checked, and the lock that
keeps two processes out of one folder."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from typing import Any

LOCK = ".lock"


def read_json(path: str, schema: Any = None) -> Any:
    """The JSON value in `path`, None when there is no such file; CheckpointError naming the file
    when it is not JSON, or does not fit `schema` (a zerogym_agents.core.file_checks schema: what the
    code reads from the record on a restart)."""
    from zerogym_agents.core.checkpoint import CheckpointError
    from zerogym_agents.core.file_checks import Any, check

    if not os.path.isfile(path):
        return None
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as err:
        raise CheckpointError(
            f"{path}: not readable JSON ({err}); remove it to redo that part of the experiment"
        ) from None
    return check(data, Any() if schema is None else schema, path)


def write_json(path: str, data: Any) -> None:
    """Write JSON atomically (a temp file in the same folder, then os.replace)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class FolderInUse(RuntimeError):
    """Another live process holds the folder's lock."""


@contextlib.contextmanager
def folder_lock(folder: str, name: str = LOCK) -> Iterator[None]:
    """One process at a time per folder and task: a lock file `name` holding the pid, removed on
    leaving; a dead holder's lock is taken over, a live one's raises FolderInUse."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    try:
        with open(path) as f:
            pid = int(f.read().strip() or 0)
    except (OSError, ValueError):
        pid = 0
    if pid and pid != os.getpid() and _pid_alive(pid):
        raise FolderInUse(f"{folder} is in use by process {pid}; stop it first")
    with open(path, "w") as f:
        f.write(str(os.getpid()))
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


class SettingsChanged(ValueError):
    """A run folder was started with other settings than those given now (`diffs` says which)."""

    def __init__(self, where: str, diffs: list[str]) -> None:
        self.where, self.diffs = where, diffs
        super().__init__(f"{where} was started with other settings ({'; '.join(diffs[:6])})")


def check_same_settings(saved: Any, mine: Any, where: str) -> None:
    """Raise SettingsChanged naming every differing leaf (dotted path, saved and new value) unless
    the two JSON-able settings are equal."""
    if saved == mine:
        return
    diffs: list[str] = []

    def walk(a: Any, b: Any, path: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b)):
                walk(a.get(k), b.get(k), f"{path}.{k}" if path else k)
        elif a != b:
            diffs.append(f"{path}: saved {a!r}, now {b!r}")

    walk(saved, mine, "")
    raise SettingsChanged(where, diffs)
