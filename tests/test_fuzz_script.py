"""A short slice of scripts/fuzz.py (the package scripts/fuzzing): every target runs inputs and nothing is found.

The inputs run in one worker process (--jobs 1) so that a crash of compiled code becomes a
finding of this test instead of ending the test run.
"""

import importlib
import json
import os
import random
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def fuzz():
    """The package scripts/fuzzing with its modules loaded (scripts/ on sys.path only while importing)."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        package = importlib.import_module("fuzzing")
        for module in ("cli", "common", "configs", "report", "targets"):
            importlib.import_module(f"fuzzing.{module}")
    finally:
        sys.path.remove(os.path.join(ROOT, "scripts"))
    return package


def run(fuzz, tmp_path, options):
    """scripts/fuzz.py with `options` (split at spaces), no progress bar, its report and findings under tmp_path."""
    places = ["--out", str(tmp_path / "fuzz.md"), "--findings", str(tmp_path / "findings")]
    return fuzz.cli.run([*options.split(), "--no-progress", *places])


def describe(findings):
    return "\n".join(f"{f['count']} x {sig} (e.g. {f['examples'][:1]})" for sig, f in findings.items())


def test_every_target_runs_and_finds_nothing(fuzz, tmp_path):
    out = tmp_path / "fuzz.md"
    weights = ",".join(f"{target}=1" for target in fuzz.targets.TARGETS)  # each target as often
    result = run(fuzz, tmp_path, f"--seconds 20 --jobs 1 --seed 1 --weights {weights}")
    assert not result["findings"], describe(result["findings"])
    for target in fuzz.targets.TARGETS:
        assert sum(result["counts"][target].values()) > 0, target
    from zerogym.registry import GAMES

    assert fuzz.configs.games() == tuple(GAMES)  # every game of the registry, none named in the fuzzer
    for game in GAMES:  # every game is fuzzed by the state targets
        assert result["counts"]["blobs"][game] > 0 and result["counts"]["actions"][game] > 0, game
    text = out.read_text()
    assert "| blobs |" in text and "## Findings" in text and "None." in text and "Sanitizers:" in text


def test_a_crash_is_a_finding_with_its_input_and_the_run_goes_on(fuzz, tmp_path):
    result = run(fuzz, tmp_path, "--seconds 6 --jobs 1 --targets blobs,gtp --crash-at blobs:5")
    crashes = [f for f in result["findings"].values() if f["kind"] == "crash"]
    assert len(crashes) == 1 and crashes[0]["target"] == "blobs" and "SIGABRT" in crashes[0]["message"]
    folder = crashes[0]["examples"][0]
    info = json.load(open(os.path.join(folder, "info.json")))
    assert info["index"] == 5 and os.path.getsize(os.path.join(folder, "blob.bin")) > 0
    assert sum(result["counts"]["blobs"].values()) > 5 and sum(result["counts"]["gtp"].values()) > 0


def test_inputs_depend_on_seed_target_and_index_only(fuzz):
    for name in ("blobs", "actions", "vector", "symmetry", "text", "methods", "gtp", "search"):
        a, b = fuzz.targets.make_target(name, 3), fuzz.targets.make_target(name, 3)
        for index in (0, 1, 57):
            ia = a.generate(random.Random(fuzz.common.input_seed(3, name, index)))
            ib = b.generate(random.Random(fuzz.common.input_seed(3, name, index)))
            assert fuzz.report.json_safe(ia) == fuzz.report.json_safe(ib), name
        other = a.generate(random.Random(fuzz.common.input_seed(4, name, 0)))
        first = a.generate(random.Random(fuzz.common.input_seed(3, name, 0)))
        assert fuzz.report.json_safe(other) != fuzz.report.json_safe(first), name


def test_games_narrows_the_state_targets_and_configs_come_from_the_registry(fuzz, tmp_path):
    result = run(fuzz, tmp_path, "--seconds 6 --jobs 0 --games havannah,breakthrough --targets blobs,symmetry")
    assert not result["findings"], describe(result["findings"])
    assert set(result["counts"]["blobs"]) == {"havannah", "breakthrough"}
    configs = fuzz.configs.game_configs()
    assert {g for g, _, _ in configs} == {"havannah", "breakthrough"}
    for game in ("havannah", "breakthrough"):  # each game's weights add up to the same share
        assert abs(sum(w for g, _, w in configs if g == game) - fuzz.configs.GAME_WEIGHT) < 1e-9
    assert ("havannah", {"swap": True}) in [(g, kw) for g, kw, _ in configs]  # a bool kwarg flipped
    fuzz.configs.select_games(None)
    with pytest.raises(SystemExit, match="unknown games"):
        fuzz.configs.select_games("chess")
