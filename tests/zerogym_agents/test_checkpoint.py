"""Checkpoints: atomic writes, weights_only reads, clear errors for corrupt or foreign files."""
import os
import pickle

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
