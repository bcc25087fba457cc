"""The scripts of benchmarks/ loaded as modules for their tests (they are scripts, not a package)."""

import importlib.util
import os
import sys

BENCHMARKS = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "benchmarks"))


def load_script(name):
    """benchmarks/<name>.py as a fresh module, registered in sys.modules so that its functions pickle
    (to the worker processes of a script that forks them); benchmarks/ is on sys.path, as it is for a
    script run from it, so that the scripts import each other normally."""
    if BENCHMARKS not in sys.path:
        sys.path.append(BENCHMARKS)
    spec = importlib.util.spec_from_file_location(f"{name}_under_test", os.path.join(BENCHMARKS, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
