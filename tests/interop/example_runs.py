"""What the interop tests share: skipping without a library, loading the scripts of examples/ as
modules (examples/ is not a package), the checks of an example's run."""

import importlib.util
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
INTEROP_EXTRA = "the interop extra: bash scripts/install_interop.sh"


def skip_without(module, library, extra=INTEROP_EXTRA):
    """Skip the calling test module unless `module` imports (`library`, installed with `extra`)."""
    pytest.importorskip(module, reason=f"{library} is not installed ({extra})", exc_type=ImportError)


def load_example(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_run(out, steps, games):
    """What every example's run must show: it stepped and trained, no illegal move, an arena match was played."""
    assert out["env_steps"] >= steps
    assert out.get("gradient_steps", out.get("trained_samples", 0)) > 0
    assert out["illegal_actions"] == 0
    match = out["arena"]
    assert match.games == games
    assert all(rec["illegal"] is None for rec in match.records), [rec["illegal"] for rec in match.records]
