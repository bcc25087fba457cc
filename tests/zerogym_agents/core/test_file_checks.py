"""The schema pieces every loader uses: what they accept, and the CheckpointError for the rest."""

import numpy as np
import pytest
import torch

from zerogym_agents.core.checkpoint import CheckpointError
from zerogym_agents.core.file_checks import (
    CudaRngState,
    DictOf,
    Fields,
    Int,
    Json,
    ListOf,
    Maybe,
    Real,
    RngState,
    StateDict,
    Str,
    Tensor,
    TorchRngState,
    check,
)


SCHEMA = Fields(
    {
        "n": Int(0, 9),
        "x": Real(),
        "name": Str(("a", "b")),
        "t": Tensor(torch.int8, (None, 3), 0, 1),
        "items": ListOf(Int(), length=2),
        "opt": Maybe(Json(DictOf(Str()))),
    },
    rule=lambda d: ("t", f"has {d['t'].shape[0]} rows, n is {d['n']}") if len(d["t"]) != d["n"] else None,
)
GOOD = {"n": 2, "x": 0.5, "name": "a", "t": torch.zeros(2, 3, dtype=torch.int8), "items": [1, 2], "opt": '{"k": 1}'}


def test_check_returns_the_checked_value_with_json_decoded():
    out = check(GOOD, SCHEMA, "f.pt")
    assert out["opt"] == {"k": 1} and out["n"] == 2 and GOOD["opt"] == '{"k": 1}'


@pytest.mark.parametrize(
    "key,value,match",
    [
        ("n", None, r"f\.pt: n must be an integer in \[0, 9\], got None"),
        ("n", True, r"n must be an integer in \[0, 9\], got True"),
        ("n", 10, r"n must be an integer in \[0, 9\], got 10"),
        ("n", "2", r"n must be an integer in \[0, 9\], got the string '2'"),
        ("x", float("nan"), r"x must be a finite number, got nan"),
        ("x", [1.0], r"x must be a finite number, got a list of 1"),
        ("name", "c", r"name must be one of 'a', 'b', got the string 'c'"),
        ("t", torch.zeros(2, 3), r"t must be an int8 tensor of shape \(n, 3\), got a float32 tensor of shape \(2, 3\)"),
        (
            "t",
            torch.zeros(2, 4, dtype=torch.int8),
            r"t must be an int8 tensor of shape \(n, 3\), got an int8 tensor of "
            r"shape \(2, 4\)",
        ),
        ("t", torch.full((2, 3), 5, dtype=torch.int8), r"t must hold values in \[0, 1\], found 5 to 5"),
        ("t", torch.zeros(3, 3, dtype=torch.int8), r"f\.pt: t has 3 rows, n is 2"),
        (
            "t",
            np.zeros((2, 3), np.int8),
            r"t must be an int8 tensor of shape \(n, 3\), got a numpy ndarray of shape "
            r"\(2, 3\)",
        ),
        ("items", [1], r"items must be a list of 2, got 1"),
        ("items", [1, "2"], r"items\[1\] must be an integer, got the string '2'"),
        ("items", {"a": 1}, r"items must be a list of 2, got a dict of 1"),
        ("opt", "{not json", r"opt is not valid JSON"),
        ("opt", "[1, 2]", r"opt must be a dict, got a list of 2"),
        ("opt", 5, r"opt must be JSON text of a dict, got 5"),
    ],
)
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
    cases = [
        (
            {"w": torch.zeros(4, 3), "n": torch.tensor(3)},
            r"f\.pt: sd\.w must be a floating-point tensor of "
            r"shape \(4, 2\), got a float32 tensor of "
            r"shape \(4, 3\)",
        ),
        ({"w": torch.zeros(4, 2), "n": torch.tensor(3.0)}, r"sd\.n must be an integer tensor"),
        ({"w": torch.zeros(4, 2)}, r"sd does not fit the network: it lacks 'n'"),
        ({**ref, "extra": torch.zeros(1)}, r"sd does not fit the network: it has unexpected 'extra'"),
        ({"w": "x", "n": torch.tensor(3)}, r"sd\.w must be a floating-point tensor .*got the string 'x'"),
        ({"w": torch.zeros(4, 2, device="meta"), "n": torch.tensor(3)}, r"sd\.w must be a floating-point"),
        ([], r"sd must be a dict of tensors"),
    ]
    for value, match in cases:
        with pytest.raises(CheckpointError, match=match):
            check({"sd": value}, {"sd": StateDict(ref)}, "f.pt")
    state = np.random.default_rng(1).bit_generator.state
    check(state, RngState(), "f.pt")
    for bad in (
        {**state, "bit_generator": "MT19937"},
        {**state, "state": {"state": "x", "inc": 1}},
        {**state, "state": {"state": -1, "inc": 1}},
        {"bit_generator": "PCG64"},
        "x",
    ):
        with pytest.raises(CheckpointError, match=r"f\.pt: rng (is not a numpy PCG64 generator state|must be)"):
            check({"rng": bad}, {"rng": RngState()}, "f.pt")
    check(torch.get_rng_state(), TorchRngState(), "f.pt")
    for bad, match in (
        (torch.zeros(5056, dtype=torch.uint8), "is not a torch CPU generator state"),
        (torch.get_rng_state().long(), r"must be a uint8 tensor of shape \(5056,\)"),
        (torch.get_rng_state()[:10], r"must be a uint8 tensor of shape \(5056,\)"),
        (None, "must be"),
    ):
        with pytest.raises(CheckpointError, match=rf"f\.pt: torch_rng {match}"):
            check({"torch_rng": bad}, {"torch_rng": TorchRngState()}, "f.pt")
    philox = torch.arange(16, dtype=torch.uint8)  # what torch.cuda.get_rng_state() returns: seed, offset
    assert check(philox, CudaRngState(), "f.pt") is philox and check(None, CudaRngState(), "f.pt") is None
    for bad in (torch.zeros(8, dtype=torch.uint8), philox.long(), philox.view(4, 4), "x", [0] * 16):
        with pytest.raises(CheckpointError, match=r"f\.pt: cuda_rng must be None or a CUDA generator state"):
            check({"cuda_rng": bad}, {"cuda_rng": CudaRngState()}, "f.pt")
