"""zerogym on every CPython a course may use (nox, https://nox.thea.codes).

    nox                        # env-3.9 ... env-3.13
    nox -s env-3.9 env-3.13    # some of them
    nox -s full                # the whole suite on 3.11 with the agents

env-3.X: a venv with the environments only plus the test extra (`pip install -e ".[test]"`: no torch, no
agents), built on that Python; checks that the agents' packages are absent and that the `zerogym`
command then says which extra to install, and runs tests/zerogym and tests/test_layers.py.
The install is editable, and pytest runs as `python -m pytest` from the repository root, as in the
README's test command: the package is imported from the source tree (test_layers.py does so in a
subprocess too; the editable install's import hook would come after tests/zerogym, a namespace package
on pytest's path). Each Python's compiled modules sit side by side in the tree (their file names carry
the version).

full: torch==2.13.0 first (install.sh says why), then `pip install -e ".[agents,test,docs]"`, then the
whole suite, as the README's test command runs it.

The interpreters are looked up on PATH as python3.X; pyenv's installed versions (under PYENV_ROOT,
default ~/.pyenv) are put first on PATH, the newest patch release of each minor version. A missing
interpreter fails its session rather than skipping it.
"""

import glob
import os

import nox

PYTHONS = ["3.9", "3.10", "3.11", "3.12", "3.13"]
AGENTS_PYTHON = "3.11"
TORCH = "torch==2.13.0"

nox.options.sessions = [f"env-{v}" for v in PYTHONS]
nox.options.error_on_missing_interpreters = True

# what must be missing in an environments-only venv (AGENTS_EXTRA of zerogym_agents, by import name)
NO_AGENTS = """
import importlib.util, sys
found = [m for m in ("torch", "stable_baselines3", "sb3_contrib", "tensorboard") if importlib.util.find_spec(m)]
sys.exit(f"the agents' packages are installed: {found}" if found else 0)
"""


def pyenv_bins():
    """The bin folders of pyenv's newest X.Y.Z for each X.Y of PYTHONS."""
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    newest = {}
    for python in glob.glob(os.path.join(root, "versions", "3.*", "bin", "python3")):
        version = os.path.basename(os.path.dirname(os.path.dirname(python)))
        parts = version.split(".")
        if len(parts) != 3 or not all(p.isdigit() for p in parts) or ".".join(parts[:2]) not in PYTHONS:
            continue
        key = tuple(int(p) for p in parts)
        if key > newest.get(key[:2], ((),))[0]:
            newest[key[:2]] = (key, os.path.dirname(python))
    return [folder for _, folder in sorted(newest.values())]


os.environ["PATH"] = os.pathsep.join(pyenv_bins() + [os.environ.get("PATH", "")])


@nox.session(python=PYTHONS)
def env(session):
    """The environments only (+ the test extra) on one Python: tests/zerogym and tests/test_layers.py."""
    session.install("-e", ".[test]")
    session.run("python", "-c", NO_AGENTS)
    said = session.run("zerogym", "--help", success_codes=[1], silent=True)
    if 'pip install ".[agents]"' not in (said or ""):
        session.error(f"zerogym without the agents extra said: {said!r}")
    session.run("python", "-c", "import sys, zerogym; print('zerogym', zerogym.__version__, 'on Python', sys.version)")
    session.run("python", "-m", "pytest", "-q", "tests/zerogym", "tests/test_layers.py", *session.posargs)


@nox.session(python=AGENTS_PYTHON)
def full(session):
    """torch (CPU build) + the agents, test and docs extras on 3.11: the whole suite."""
    session.install(TORCH)
    session.install("-e", ".[agents,test,docs]")
    session.run("python", "-m", "pytest", "-q", *session.posargs)
