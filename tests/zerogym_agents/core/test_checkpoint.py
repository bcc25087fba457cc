"""Checkpoints: atomic writes, weights_only reads, clear errors for corrupt or foreign files."""

import os
import pickle
import re

import numpy as np
import pytest
import torch

from zerogym_agents.core.checkpoint import (
    CheckpointError,
    atomic_save,
    load_checkpoint,
    remove_stale_temp_files,
    save_checkpoint,
)


def test_round_trip(tmp_path):
    payload = {
        "weights": {"w": torch.arange(6.0)},
        "step": 7,
        "rng": np.random.default_rng(3).bit_generator.state,
        "torch_rng": torch.get_rng_state(),
        "note": "x",
    }
    save_checkpoint(tmp_path / "a.pt", "alphazero", payload)
    got = load_checkpoint(tmp_path / "a.pt", kind="alphazero")
    assert torch.equal(got["weights"]["w"], torch.arange(6.0)) and got["step"] == 7
    g = np.random.default_rng()
    g.bit_generator.state = got["rng"]
    assert g.random() == np.random.default_rng(3).random()
    assert [f for f in os.listdir(tmp_path) if f.startswith(".tmp")] == []


def test_a_failed_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "a.pt"
    save_checkpoint(path, "k", {"step": 1})
    with pytest.raises((AttributeError, TypeError, pickle.PicklingError)):
        save_checkpoint(path, "k", {"bad": lambda: 0})  # not picklable
    assert load_checkpoint(path)["step"] == 1
    assert [f for f in os.listdir(tmp_path) if f.startswith(".tmp")] == []


@pytest.mark.parametrize(
    "content,match",
    [
        (b"", "not a readable"),
        (b"garbage bytes", "not a readable"),
    ],
)
def test_corrupt_files(tmp_path, content, match):
    p = tmp_path / "bad.pt"
    p.write_bytes(content)
    with pytest.raises(CheckpointError, match=match):
        load_checkpoint(p)


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_code_in_a_pickle_is_refused(tmp_path):
    p = tmp_path / "evil.pt"
    with open(p, "wb") as f:
        pickle.dump({"format": "zerogym-checkpoint", "x": Evil()}, f)
    with pytest.raises(CheckpointError, match="not a readable"):
        load_checkpoint(p)


@pytest.mark.parametrize(
    "write,words",
    [
        (lambda p: p.write_bytes(bytes(range(256)) * 4), "corrupt or not a PyTorch file"),
        (lambda p: torch.save({"layer": torch.nn.Linear(2, 2)}, p), r"holds a Python object \(torch\.nn\.modules"),
    ],
)
def test_an_unreadable_file_is_explained_without_passing_on_the_advice_to_drop_weights_only(tmp_path, write, words):
    p = tmp_path / "x.pt"
    write(p)
    with pytest.raises(CheckpointError, match=words) as err:
        load_checkpoint(p)
    assert "weights_only" not in str(err.value) and len(str(err.value).splitlines()) == 1


def test_a_training_checkpoint_where_an_agent_is_expected_names_the_runs_agent_file(tmp_path):
    save_checkpoint(tmp_path / "checkpoint.pt", "alphazero", {})
    with pytest.raises(
        CheckpointError,
        match=r"checkpoint\.pt: a training checkpoint \(alphazero\), not an agent; "
        r"the agent of a run is agent\.pt in its folder$",
    ):
        load_checkpoint(tmp_path / "checkpoint.pt", kind="agent")
    save_checkpoint(tmp_path / "agent.pt", "agent", {})
    with pytest.raises(CheckpointError, match=re.escape(f"in its folder ({tmp_path / 'agent.pt'})")):
        load_checkpoint(tmp_path / "checkpoint.pt", kind="agent")


def test_foreign_newer_and_other_kind(tmp_path):
    torch.save({"model": torch.zeros(2)}, tmp_path / "foreign.pt")
    with pytest.raises(CheckpointError, match="not a zerogym checkpoint"):
        load_checkpoint(tmp_path / "foreign.pt")
    torch.save({"format": "zerogym-checkpoint", "version": 99, "kind": "k"}, tmp_path / "new.pt")
    with pytest.raises(CheckpointError, match="newer"):
        load_checkpoint(tmp_path / "new.pt")
    save_checkpoint(tmp_path / "pg.pt", "pg", {})
    with pytest.raises(CheckpointError, match="expected 'alphazero'"):
        load_checkpoint(tmp_path / "pg.pt", kind="alphazero")
    with pytest.raises(CheckpointError, match="no such file"):
        load_checkpoint(tmp_path / "missing.pt")


def test_a_version_that_is_not_an_integer_is_refused(tmp_path):
    for version in ("1", None, [1], 1.5, True):
        torch.save({"format": "zerogym-checkpoint", "version": version, "kind": "k"}, tmp_path / "v.pt")
        with pytest.raises(CheckpointError, match=r"v\.pt: checkpoint version must be an integer"):
            load_checkpoint(tmp_path / "v.pt")


# ---- temp files of writes that were killed ----------------------------------------------------------


KILLED_WRITER = """
import os, signal, sys
import torch
from zerogym_agents.core import checkpoint

def save(obj, f):                      # half a file written, then kill -9
    f.write(b"PK partial checkpoint")
    f.flush()
    os.kill(os.getpid(), signal.SIGKILL)

torch.save = save
checkpoint.atomic_save({"x": 1}, sys.argv[1])
"""


def temp_files(folder):
    return sorted(f for f in os.listdir(folder) if f.startswith(".tmp-"))


def test_a_write_killed_midway_leaves_a_temp_file_that_the_next_save_removes(tmp_path):
    import signal
    import subprocess
    import sys

    save_checkpoint(tmp_path / "a.pt", "k", {"step": 1})
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / ".tmp-notes").write_text("not ours: another naming scheme")
    run = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(tmp_path / "a.pt")], capture_output=True)
    assert run.returncode == -signal.SIGKILL
    left = temp_files(tmp_path)
    assert len(left) == 2 and re.match(r"\.tmp-a\.pt\.\d+@[A-Za-z0-9-]*\.\w{8}$", left[0]) and left[1] == ".tmp-notes"
    assert load_checkpoint(tmp_path / "a.pt")["step"] == 1  # the old file is whole
    save_checkpoint(tmp_path / "b.pt", "k", {"step": 2})  # another file of the same folder
    assert temp_files(tmp_path) == [".tmp-notes"]
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_only_stale_temp_files_of_our_scheme_are_removed(tmp_path):
    import subprocess
    import sys
    import time
    from zerogym_agents.core.checkpoint import _host

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    host = _host()
    names = {
        f".tmp-a.pt.{dead_pid}@{host}.abcd_123": "stale",  # its writer is gone
        f".tmp-a.pt.{os.getpid()}@{host}.abcd_124": "live",  # a concurrent writer (alive, recent)
        f".tmp-a.pt.{dead_pid}@other-host.abcd_125": "live",  # another host's writer: judged by age only
        ".tmp-a.pt.abcd_126": "live",  # older scheme, without a pid: by age only
        ".tmp-a.pt": "other",
        ".tmp-a.pt.123@h.TOOLONG99": "other",
        "a.pt.tmp123": "other",
        ".tmp-x": "other",
    }
    for name in names:
        (tmp_path / name).write_text("x")
    removed = remove_stale_temp_files(tmp_path)
    assert [os.path.basename(p) for p in removed] == [n for n, k in names.items() if k == "stale"]
    old = time.time() - 3600
    for name, kind in names.items():
        if kind != "stale":
            os.utime(tmp_path / name, (old, old))
    removed = {os.path.basename(p) for p in remove_stale_temp_files(tmp_path)}
    assert removed == {n for n, k in names.items() if k == "live"}  # untouched for an hour: no live writer
    assert sorted(os.listdir(tmp_path)) == sorted(n for n, k in names.items() if k == "other")
    atomic_save({"x": 1}, tmp_path / "a.pt")
    assert sorted(os.listdir(tmp_path)) == sorted(["a.pt"] + [n for n, k in names.items() if k == "other"])
