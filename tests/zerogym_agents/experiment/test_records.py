"""JSON records written atomically and read back checked, the folder lock, settings compared leaf by leaf."""

import json
import os
import subprocess
import sys

import pytest

from zerogym_agents.core.checkpoint import CheckpointError
from zerogym_agents.experiment.records import FolderInUse, SettingsChanged, check_same_settings, folder_lock
from zerogym_agents.experiment.records import read_json, write_json


def test_json_is_written_atomically_and_read_back(tmp_path):
    path = tmp_path / "deep" / "state.json"
    write_json(path, {"b": [1, 2.5, None], "a": "x"})
    assert read_json(path) == {"a": "x", "b": [1, 2.5, None]}
    assert os.listdir(path.parent) == ["state.json"]  # no temp file left behind
    assert read_json(tmp_path / "none.json") is None


def test_a_broken_or_misshapen_record_is_refused_by_name(tmp_path):
    from zerogym_agents.core.file_checks import Fields, Int

    path = tmp_path / "state.json"
    path.write_text("{not json")
    with pytest.raises(CheckpointError, match=rf"^{path}: not readable JSON"):
        read_json(path)
    write_json(path, {"steps": "two"})
    with pytest.raises(CheckpointError, match=rf"^{path}: .*steps must be an integer >= 0"):
        read_json(path, Fields({"steps": Int(0)}))


def test_the_lock_holds_the_pid_and_is_removed_afterwards(tmp_path):
    with folder_lock(tmp_path / "run"):
        assert (tmp_path / "run" / ".lock").read_text() == str(os.getpid())
        with folder_lock(tmp_path / "run"):  # the same process may take it again
            pass
    assert not (tmp_path / "run" / ".lock").exists()
    with pytest.raises(KeyError):
        with folder_lock(tmp_path, ".lock-x"):
            raise KeyError("on the way out")
    assert not (tmp_path / ".lock-x").exists()


def test_a_live_holder_keeps_the_folder_and_a_dead_ones_lock_is_taken_over(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (tmp_path / ".lock").write_text(str(holder.pid))
        with pytest.raises(FolderInUse, match=f"in use by process {holder.pid}"):
            with folder_lock(tmp_path):
                pass
    finally:
        holder.kill()
        holder.wait()
    with folder_lock(tmp_path):  # its holder is gone now
        assert (tmp_path / ".lock").read_text() == str(os.getpid())


def test_other_settings_are_named_leaf_by_leaf():
    check_same_settings({"a": {"b": 1}}, {"a": {"b": 1}}, "here")
    with pytest.raises(SettingsChanged) as err:
        check_same_settings({"a": {"b": 1, "c": [1]}, "d": 2}, {"a": {"b": 2, "c": [1]}, "e": 3}, "runs/x")
    assert err.value.diffs == ["a.b: saved 1, now 2", "d: saved 2, now None", "e: saved None, now 3"]
    assert str(err.value).startswith("runs/x was started with other settings (a.b: saved 1, now 2;")
    assert json.dumps(err.value.diffs)
