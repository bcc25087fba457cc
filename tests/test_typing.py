"""Types and lint: every compiled module has a stub (.pyi) that matches it, the wheel ships the stubs and
py.typed, mypy finds nothing in the files pyproject.toml names and ruff nothing in the tree (run where they
are installed: the test extra installs both)."""

import importlib.util
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
CORE = ROOT / "zerogym" / "_core"
ALLOWLIST = ROOT / "tests" / "stubtest_allowlist.txt"


def run(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT)


def needs(module):
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")


def test_every_compiled_module_has_a_stub():
    assert {p.stem for p in CORE.glob("*.pyx")} == {p.stem for p in CORE.glob("*.pyi")}


def test_the_stubs_match_the_compiled_modules():
    needs("mypy")
    modules = [f"zerogym._core.{p.stem}" for p in sorted(CORE.glob("*.pyi"))]
    out = run("-m", "mypy.stubtest", "--allowlist", str(ALLOWLIST), *modules)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_wheel_ships_the_types():
    tomllib = pytest.importorskip("tomllib")
    with open(ROOT / "pyproject.toml", "rb") as f:
        package_data = tomllib.load(f)["tool"]["setuptools"]["package-data"]
    assert "*.pyi" in package_data["*"]
    for package in ("zerogym", "zerogym_agents"):
        assert "py.typed" in package_data[package] and (ROOT / package / "py.typed").is_file()


def test_mypy_finds_nothing():
    needs("mypy")
    out = run("-m", "mypy")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found" in out.stdout


def test_ruff_finds_nothing():
    needs("ruff")
    out = run("-m", "ruff", "check", "--no-cache", ".")
    assert out.returncode == 0, out.stdout + out.stderr
