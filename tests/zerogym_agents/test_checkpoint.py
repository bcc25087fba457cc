"""Checkpoints: atomic writes, weights_only reads, clear errors for corrupt or foreign files."""
import os
import pickle
import re

import numpy as np
import pytest
import torch

from zerogym_agents.checkpoint import CheckpointError, load_checkpoint, save_checkpoint


def test_round_trip(tmp_path):
    payload = {"weights": {"w": torch.arange(6.0)}, "step": 7, "rng": np.random.default_rng(3).bit_generator.state,
               "torch_rng": torch.get_rng_state(), "note": "x"}
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
    with pytest.raises(Exception):
        save_checkpoint(path, "k", {"bad": lambda: 0})      # not picklable
    assert load_checkpoint(path)["step"] == 1
    assert [f for f in os.listdir(tmp_path) if f.startswith(".tmp")] == []


@pytest.mark.parametrize("content,match", [
    (b"", "not a readable"),
    (b"garbage bytes", "not a readable"),
])
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


# ---- the schema pieces every loader uses -----------------------------------------------------------

from zerogym_agents.checkpoint import (DictOf, Fields, Int, Json, ListOf, Maybe, Real, RngState, StateDict,  # noqa: E402
                                       Str, Tensor, TorchRngState, check)

SCHEMA = Fields({"n": Int(0, 9), "x": Real(), "name": Str(("a", "b")), "t": Tensor(torch.int8, (None, 3), 0, 1),
                 "items": ListOf(Int(), length=2), "opt": Maybe(Json(DictOf(Str())))},
                rule=lambda d: ("t", f"has {d['t'].shape[0]} rows, n is {d['n']}") if len(d["t"]) != d["n"] else None)
GOOD = {"n": 2, "x": 0.5, "name": "a", "t": torch.zeros(2, 3, dtype=torch.int8), "items": [1, 2], "opt": '{"k": 1}'}


def test_check_returns_the_checked_value_with_json_decoded():
    out = check(GOOD, SCHEMA, "f.pt")
    assert out["opt"] == {"k": 1} and out["n"] == 2 and GOOD["opt"] == '{"k": 1}'


@pytest.mark.parametrize("key,value,match", [
    ("n", None, r"f\.pt: n must be an integer in \[0, 9\], got None"),
    ("n", True, r"n must be an integer in \[0, 9\], got True"),
    ("n", 10, r"n must be an integer in \[0, 9\], got 10"),
    ("n", "2", r"n must be an integer in \[0, 9\], got the string '2'"),
    ("x", float("nan"), r"x must be a finite number, got nan"),
    ("x", [1.0], r"x must be a finite number, got a list of 1"),
    ("name", "c", r"name must be one of 'a', 'b', got the string 'c'"),
    ("t", torch.zeros(2, 3), r"t must be an int8 tensor of shape \(n, 3\), got a float32 tensor of shape \(2, 3\)"),
    ("t", torch.zeros(2, 4, dtype=torch.int8), r"t must be an int8 tensor of shape \(n, 3\), got an int8 tensor of "
                                               r"shape \(2, 4\)"),
    ("t", torch.full((2, 3), 5, dtype=torch.int8), r"t must hold values in \[0, 1\], found 5 to 5"),
    ("t", torch.zeros(3, 3, dtype=torch.int8), r"f\.pt: t has 3 rows, n is 2"),
    ("t", np.zeros((2, 3), np.int8), r"t must be an int8 tensor of shape \(n, 3\), got a numpy ndarray of shape \(2, 3\)"),
    ("items", [1], r"items must be a list of 2, got 1"),
    ("items", [1, "2"], r"items\[1\] must be an integer, got the string '2'"),
    ("items", {"a": 1}, r"items must be a list of 2, got a dict of 1"),
    ("opt", "{not json", r"opt is not valid JSON"),
    ("opt", "[1, 2]", r"opt must be a dict, got a list of 2"),
    ("opt", 5, r"opt must be JSON text of a dict, got 5"),
])
def test_check_names_the_place_and_what_is_wrong(key, value, match):
    with pytest.raises(CheckpointError, match=match):
        check({**GOOD, key: value}, SCHEMA, "f.pt")


@pytest.mark.parametrize("key", sorted(GOOD))
def test_check_names_a_missing_key(key):
    bad = {k: v for k, v in GOOD.items() if k != key}
    with pytest.raises(CheckpointError, match=rf"f\.pt: the file lacks '{key}'"):
        check(bad, SCHEMA, "f.pt")
    with pytest.raises(CheckpointError, match=rf"f\.pt: outer lacks '{key}'"):
        check({"outer": bad}, {"outer": SCHEMA}, "f.pt")
    with pytest.raises(CheckpointError, match=r"f\.pt: outer must be a dict, got a list of 0"):
        check({"outer": []}, {"outer": SCHEMA}, "f.pt")


def test_state_dicts_and_random_states_are_checked_against_the_real_thing():
    ref = {"w": torch.zeros(4, 2), "n": torch.zeros((), dtype=torch.int64)}
    check({"w": torch.ones(4, 2, dtype=torch.float64), "n": torch.tensor(3)}, StateDict(ref), "f.pt")  # any float
    cases = [({"w": torch.zeros(4, 3), "n": torch.tensor(3)}, r"f\.pt: sd\.w must be a floating-point tensor of "
                                                               r"shape \(4, 2\), got a float32 tensor of shape \(4, 3\)"),
             ({"w": torch.zeros(4, 2), "n": torch.tensor(3.0)}, r"sd\.n must be an integer tensor"),
             ({"w": torch.zeros(4, 2)}, r"sd does not fit the network: it lacks 'n'"),
             ({**ref, "extra": torch.zeros(1)}, r"sd does not fit the network: it has unexpected 'extra'"),
             ({"w": "x", "n": torch.tensor(3)}, r"sd\.w must be a floating-point tensor .*got the string 'x'"),
             ({"w": torch.zeros(4, 2, device="meta"), "n": torch.tensor(3)}, r"sd\.w must be a floating-point"),
             ([], r"sd must be a dict of tensors")]
    for value, match in cases:
        with pytest.raises(CheckpointError, match=match):
            check({"sd": value}, {"sd": StateDict(ref)}, "f.pt")
    state = np.random.default_rng(1).bit_generator.state
    check(state, RngState(), "f.pt")
    for bad in ({**state, "bit_generator": "MT19937"}, {**state, "state": {"state": "x", "inc": 1}},
                {**state, "state": {"state": -1, "inc": 1}}, {"bit_generator": "PCG64"}, "x"):
        with pytest.raises(CheckpointError, match=r"f\.pt: rng (is not a numpy PCG64 generator state|must be)"):
            check({"rng": bad}, {"rng": RngState()}, "f.pt")
    check(torch.get_rng_state(), TorchRngState(), "f.pt")
    for bad, match in ((torch.zeros(5056, dtype=torch.uint8), "is not a torch CPU generator state"),
                       (torch.get_rng_state().long(), r"must be a uint8 tensor of shape \(5056,\)"),
                       (torch.get_rng_state()[:10], r"must be a uint8 tensor of shape \(5056,\)"), (None, "must be")):
        with pytest.raises(CheckpointError, match=rf"f\.pt: torch_rng {match}"):
            check({"torch_rng": bad}, {"torch_rng": TorchRngState()}, "f.pt")


# ---- temp files of writes that were killed ----------------------------------------------------------

from zerogym_agents.checkpoint import atomic_save, remove_stale_temp_files  # noqa: E402

KILLED_WRITER = """
import os, signal, sys
import torch
from zerogym_agents import checkpoint

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
    assert load_checkpoint(tmp_path / "a.pt")["step"] == 1          # the old file is whole
    save_checkpoint(tmp_path / "b.pt", "k", {"step": 2})             # another file of the same folder
    assert temp_files(tmp_path) == [".tmp-notes"]
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_only_stale_temp_files_of_our_scheme_are_removed(tmp_path):
    import subprocess
    import sys
    import time
    from zerogym_agents.checkpoint import _host
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    host = _host()
    names = {
        f".tmp-a.pt.{dead_pid}@{host}.abcd_123": "stale",       # its writer is gone
        f".tmp-a.pt.{os.getpid()}@{host}.abcd_124": "live",     # a concurrent writer (alive, recent)
        f".tmp-a.pt.{dead_pid}@other-host.abcd_125": "live",    # another host's writer: judged by age only
        ".tmp-a.pt.abcd_126": "live",                           # older scheme, without a pid: by age only
        ".tmp-a.pt": "other", ".tmp-a.pt.123@h.TOOLONG99": "other", "a.pt.tmp123": "other", ".tmp-x": "other",
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
    assert removed == {n for n, k in names.items() if k == "live"}       # untouched for an hour: no live writer
    assert sorted(os.listdir(tmp_path)) == sorted(n for n, k in names.items() if k == "other")
    atomic_save({"x": 1}, tmp_path / "a.pt")
    assert sorted(os.listdir(tmp_path)) == sorted(["a.pt"] + [n for n, k in names.items() if k == "other"])
