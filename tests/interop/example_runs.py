"""Loading the scripts of examples/ as modules (examples/ is not a package)."""
import importlib.util
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load_example(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_run(out, steps, games):
    """What every example's run must show: it stepped, no illegal move, an arena match was played."""
    assert out["env_steps"] >= steps
    assert out["illegal_actions"] == 0
    match = out["arena"]
    assert match.games == games
    assert all(rec["illegal"] is None for rec in match.records), [rec["illegal"] for rec in match.records]
