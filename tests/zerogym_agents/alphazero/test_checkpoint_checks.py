"""AlphaZero resume: a malformed checkpoint (a key missing, a value of the wrong type, tensors of the
wrong shape or dtype, corrupt game positions, bad random states) is refused with a CheckpointError
naming the file and what is wrong, never a KeyError / TypeError / torch RuntimeError."""

import copy
import json
import os

import numpy as np
import pytest
import torch

from zerogym_agents.core.constants import CHECKPOINT
from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
from zerogym_agents.core.checkpoint import CheckpointError
from tiny_runs import alphazero_config


def tiny(**over):
    return alphazero_config({"max_steps": 24}, **over)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """The checkpoint of a short run (8 search steps: replay, pool, games in progress), as a dict."""
    folder = tmp_path_factory.mktemp("run")
    tr = AlphaZeroTrainer(tiny(), folder, log_dir=False)
    tr.run(progress=False, stop_at=8)
    data = torch.load(folder / CHECKPOINT, weights_only=True)
    assert tr.num_pool == 2 and len(data["pool"]["names"]) == 2 and any(data["pending"])
    return data


def resume(tmp_path, data, cfg=None):
    folder = tmp_path / "resume"
    folder.mkdir(exist_ok=True)
    torch.save(data, folder / CHECKPOINT)
    return AlphaZeroTrainer(cfg or tiny(), folder, resume=True, log_dir=False)


def refused(tmp_path, data, *words, cfg=None):
    path = str(tmp_path / "resume" / CHECKPOINT)
    with pytest.raises(CheckpointError) as err:
        resume(tmp_path, data, cfg)
    msg = str(err.value)
    assert msg.startswith(path), msg
    for w in words:
        assert w in msg, (w, msg)
    return msg


KEYS = [
    "config",
    "net",
    "optimizer",
    "replay",
    "rng",
    "torch_rng",
    "counters",
    "history",
    "roots",
    "move_no",
    "pending",
    "pool",
    "pool_snapshots",
    "pool_games",
    "learner_seat",
]
WRONG = {"None": None, "str": "x", "list": [1], "dict": {"a": 1}, "negative": -1}


def test_the_fixture_checkpoint_resumes(tmp_path, saved):
    assert sorted(KEYS + ["cuda_rng"]) == sorted(k for k in saved if k not in ("format", "version", "kind"))
    tr = resume(tmp_path, copy.deepcopy(saved))
    assert tr.step == 8 and len(tr.replay) == saved["replay"]["size"]


def test_a_file_without_the_gpu_generator_state_resumes(tmp_path, saved):
    data = copy.deepcopy(saved)
    del data["cuda_rng"]  # written before GPUs' generators were kept
    assert resume(tmp_path, data).step == 8


@pytest.mark.parametrize("kind", sorted(set(WRONG) - {"None"}))
def test_a_gpu_generator_state_of_the_wrong_type_is_named(tmp_path, saved, kind):
    data = copy.deepcopy(saved)
    data["cuda_rng"] = WRONG[kind]
    refused(tmp_path, data, "cuda_rng must be None or a CUDA generator state")


@pytest.mark.parametrize("key", KEYS)
def test_a_missing_key_is_named(tmp_path, saved, key):
    data = copy.deepcopy(saved)
    del data[key]
    refused(tmp_path, data, repr(key) if key != "pool" else "without a tournament pool")


@pytest.mark.parametrize("kind", sorted(WRONG))
@pytest.mark.parametrize("key", KEYS)
def test_a_value_of_the_wrong_type_is_named(tmp_path, saved, key, kind):
    data = copy.deepcopy(saved)
    data[key] = WRONG[kind]
    refused(tmp_path, data, key)


def _set(path, value):
    """A mutation of the checkpoint dict: the entry at `path` (keys / indices) replaced by value(old)."""

    def mutate(data):
        *head, last = path
        node = data
        for k in head:
            node = node[k]
        node[last] = value(node[last])

    return mutate


def _drop(path):
    def mutate(data):
        *head, last = path
        node = data
        for k in head:
            node = node[k]
        del node[last]

    return mutate


def _config(**change):
    return _set(["config"], lambda text: json.dumps({**json.loads(text), **change}))


def _net_config(**change):
    return _set(["net", "config"], lambda text: json.dumps({**json.loads(text), **change}))


def _blob_byte(i, value):
    def change(blob):
        blob = blob.clone()
        blob[i] = value
        return blob

    return change


CASES = {
    "config not JSON": (_set(["config"], lambda _: "{nope"), "config is not valid JSON"),
    "config field of a wrong type": (_config(pool_fraction="most"), "config is not a valid AlphaZeroConfig"),
    "config missing a needed check": (_config(min_buffer=1), "min_buffer (1) must be at least batch_size"),
    "other concurrent_games": (_config(concurrent_games=4), "concurrent_games=4, but this run has concurrent_games=8"),
    "other buffer_size": (_config(buffer_size=99), "buffer_size=99, but this run has buffer_size=50000"),
    "net claims 100000 blocks": (_net_config(blocks=10**5), "config.blocks = 100000 is more than"),
    "net claims 10**6 channels": (_net_config(channels=10**6), "config.channels = 1000000 is more than"),
    "net of another shape": (_net_config(channels=16), "corrupt zerogym network in net: state_dict"),
    "net weight missing": (_drop(["net", "state_dict", "value.mlp.2.bias"]), "lacks 'value.mlp.2.bias'"),
    "net weight of a wrong shape": (
        _set(["net", "state_dict", "trunk.0.0.weight"], lambda t: t[:4]),
        "state_dict['trunk.0.0.weight'] must be a floating-point tensor of shape (8, 3, 3, 3)",
    ),
    "momentum of a wrong shape": (
        _set(["optimizer", "state", 0, "momentum_buffer"], lambda t: t.flatten()),
        "optimizer.state[0].momentum_buffer must be a floating-point tensor of shape",
    ),
    "optimizer state of no parameter": (
        _set(["optimizer", "state"], lambda s: {**s, 99: s[0]}),
        "optimizer.state[99] is the state of no parameter",
    ),
    "two param groups": (
        _set(["optimizer", "param_groups"], lambda g: g + g),
        "optimizer.param_groups must be a list of 1",
    ),
    "params list too short": (
        _set(["optimizer", "param_groups", 0, "params"], lambda p: p[:-1]),
        "optimizer.param_groups[0].params must be a list of",
    ),
    "lr not a number": (
        _set(["optimizer", "param_groups", 0, "lr"], lambda _: "fast"),
        "optimizer.param_groups[0].lr must be a finite number",
    ),
    "optimizer without state": (_drop(["optimizer", "state"]), "optimizer lacks 'state'"),
    "replay planes float": (_set(["replay", "planes"], lambda t: t.float()), "replay.planes must be an int8 tensor"),
    "replay planes of another board": (
        _set(["replay", "planes"], lambda t: t[:, :, :2]),
        "replay.planes must be an int8 tensor of shape (n, 3, 3, 3)",
    ),
    "replay values out of range": (
        _set(["replay", "values"], lambda t: t + 5),
        "replay.values must hold values in [-1, 1]",
    ),
    "replay values NaN": (_set(["replay", "values"], lambda t: t * float("nan")), "replay.values holds NaN"),
    "replay policies negative": (
        _set(["replay", "policies"], lambda t: t - 1),
        "replay.policies must hold values in [0, 1]",
    ),
    "replay size too big": (_set(["replay", "size"], lambda n: n + 1), "replay holds"),
    "replay counters disagree": (_set(["replay", "next"], lambda n: n + 1), "replay has inconsistent counters"),
    "replay of another capacity": (
        _set(["replay", "capacity"], lambda n: 10),
        "replay.capacity must be an integer equal to 50000",
    ),
    "replay uses float": (_set(["replay", "uses"], lambda t: t.float()), "replay.uses must be an int32 tensor"),
    "replay rng garbage": (
        _set(["replay", "rng"], lambda s: {**s, "state": {"state": "x", "inc": 1}}),
        "replay.rng is not a numpy PCG64 generator state",
    ),
    "rng of another generator": (
        _set(["rng"], lambda s: {**s, "bit_generator": "MT19937"}),
        "rng is not a numpy PCG64 generator state",
    ),
    "torch_rng int64": (_set(["torch_rng"], lambda t: t.long()), "torch_rng must be a uint8 tensor of shape (5056,)"),
    "torch_rng short": (_set(["torch_rng"], lambda t: t[:100]), "torch_rng must be a uint8 tensor"),
    "torch_rng invalid": (_set(["torch_rng"], torch.zeros_like), "torch_rng is not a torch CPU generator state"),
    "cuda_rng of another size": (
        _set(["cuda_rng"], lambda _: torch.zeros(8, dtype=torch.uint8)),
        "cuda_rng must be None or a CUDA generator state (a uint8 tensor of shape (16,))",
    ),
    "counter not an int": (_set(["counters", "step"], lambda _: 8.0), "counters.step must be an integer >= 0"),
    "counter missing": (_drop(["counters", "games"]), "counters lacks 'games'"),
    "history entry not numbers": (_set(["history", 0, "loss"], lambda _: "low"), "history[0].loss must be"),
    "a root of another length": (
        _set(["roots", 0], lambda t: t[:10]),
        "roots[0] must be a uint8 tensor of shape (48,)",
    ),
    "a root of another dtype": (_set(["roots", 0], lambda t: t.long()), "roots[0] must be a uint8 tensor"),
    "a corrupt root position": (_set(["roots", 3], _blob_byte(8, 77)), "roots[3] is not a valid tictactoe position"),
    "a missing root": (_set(["roots"], lambda r: r[:-1]), "roots must be a list of 8, got 7"),
    "move_no negative": (_set(["move_no"], lambda t: t - 100), "move_no must hold values >= 0"),
    "move_no of another length": (_set(["move_no"], lambda t: t[:3]), "move_no must be an int64 tensor of shape (8,)"),
    "pending of other games": (_set(["pending"], lambda p: p[:2]), "pending must be a list of 8, got 2"),
    "pending move not a tuple": (
        _set(["pending"], lambda p: [[1]] + p[1:]),
        "pending[0][0] must be a (planes, mask, policy, mover, root value) tuple",
    ),
    "pending move of a third player": (
        _set(["pending"], lambda p: [[(*m[:3], 2) for m in g] for g in p]),
        "[3] must be an integer in [0, 1], got 2",
    ),
    "pending planes of another board": (
        _set(["pending"], lambda p: [[(m[0][:, :2], *m[1:]) for m in g] for g in p]),
        "[0] must be a float32 tensor of shape (3, 3, 3)",
    ),
    "pool mode unknown": (_set(["pool", "mode"], lambda _: "best"), "pool.mode must be one of 'elo', 'uniform'"),
    "pool names and Elos disagree": (_set(["pool", "elos"], lambda e: e[:1]), "pool.elos must be a list of 2"),
    "pool names repeated": (_set(["pool", "names"], lambda n: [n[0], n[0]]), "pool.names must be at most 10 distinct"),
    "pool Elo infinite": (
        _set(["pool", "learner_elo"], lambda _: float("inf")),
        "pool.learner_elo must be a finite number",
    ),
    "pool rng garbage": (_set(["pool", "rng"], lambda _: {"bit_generator": "PCG64"}), "pool.rng is not a numpy"),
    "fewer snapshots than names": (_set(["pool_snapshots"], lambda s: s[:1]), "pool_snapshots holds 1 nets for 2"),
    "a snapshot of another net": (
        _set(["pool_snapshots", 0, "trunk.0.0.weight"], lambda t: t[:4]),
        "pool_snapshots[0]['trunk.0.0.weight'] must be a floating-point tensor",
    ),
    "a snapshot without a weight": (
        _drop(["pool_snapshots", 1, "trunk.0.0.weight"]),
        "pool_snapshots[1] does not fit the network",
    ),
    "learner seat 2": (_set(["learner_seat"], lambda t: t + 2), "learner_seat must hold values in [0, 1]"),
    "learner seats of another pool": (
        _set(["learner_seat"], lambda t: t[:1]),
        "learner_seat must be an int64 tensor of shape (2,)",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_malformed_entry_is_refused_with_what_is_wrong(tmp_path, saved, case):
    mutate, words = CASES[case]
    data = copy.deepcopy(saved)
    mutate(data)
    refused(tmp_path, data, words)


def test_a_refused_resume_leaves_the_run_folder_as_it_was(tmp_path, saved):
    data = copy.deepcopy(saved)
    data["roots"][0] = data["roots"][0][:5]
    refused(tmp_path, data, "roots[0]")
    assert sorted(os.listdir(tmp_path / "resume")) == [CHECKPOINT]


def test_a_finished_game_among_the_roots_is_refused(tmp_path, saved):
    import zerogym

    st = zerogym.make_state("tictactoe")
    for a in (0, 3, 1, 4, 2):
        st.step(a)
    assert st.is_over()
    data = copy.deepcopy(saved)
    data["roots"][5] = torch.frombuffer(bytearray(st.to_bytes()), dtype=torch.uint8)
    refused(tmp_path, data, "roots[5] is a finished game")


def test_resume_of_a_missing_checkpoint_creates_no_folder(tmp_path):
    with pytest.raises(CheckpointError, match=r"nothing/checkpoint\.pt: no such file \(nothing to resume in "):
        AlphaZeroTrainer(tiny(), tmp_path / "nothing", resume=True, log_dir=False)
    assert not (tmp_path / "nothing").exists()


def test_stale_temp_files_of_a_killed_save_are_removed_when_the_trainer_starts(tmp_path, saved):
    import subprocess
    import sys
    from zerogym_agents.core.checkpoint import _host

    dead = int(
        subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout
    )
    folder = tmp_path / "resume"
    folder.mkdir()
    stale = folder / f".tmp-{CHECKPOINT}.{dead}@{_host()}.k9k9k9k9"
    stale.write_bytes(b"half a checkpoint")
    live = folder / f".tmp-agent.pt.{os.getpid()}@{_host()}.live1234"  # a writer that is still at it
    live.write_bytes(b"being written")
    torch.save(copy.deepcopy(saved), folder / CHECKPOINT)
    AlphaZeroTrainer(tiny(), folder, resume=True, log_dir=False)
    assert not stale.exists() and live.exists()


def test_the_numpy_and_torch_states_resume_exactly(tmp_path, saved):
    tr = resume(tmp_path, copy.deepcopy(saved))
    g = np.random.default_rng()
    g.bit_generator.state = saved["rng"]
    assert tr.rng.random() == g.random()
    assert torch.equal(torch.get_rng_state(), saved["torch_rng"])
