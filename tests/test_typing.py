"""Types and lint: every compiled module has a stub (.pyi) that matches it, the wheel ships the stubs and
py.typed, mypy finds nothing in the files pyproject.toml names, ruff nothing in the tree and its formatter
nothing to change (run where they are installed: the test extra installs both)."""

import ast
import importlib.util
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = (ROOT / "zerogym", ROOT / "zerogym_agents")
ALLOWLIST = ROOT / "tests" / "stubtest_allowlist.txt"


def run(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT)


def needs(module):
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")


def sources(suffix):
    """The files of zerogym and zerogym_agents that end in `suffix`, as module names (zerogym._core.go)."""
    return sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts) for package in PACKAGES for p in package.rglob(f"*{suffix}")
    )


def test_every_compiled_module_has_a_stub():
    assert "zerogym._core.go" in sources(".pyx") and "zerogym_agents.mcts._puct" in sources(".pyx")
    assert sources(".pyx") == sources(".pyi")


def test_the_stubs_match_the_compiled_modules():
    needs("mypy")
    out = run("-m", "mypy.stubtest", "--allowlist", str(ALLOWLIST), *sources(".pyi"))
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_wheel_ships_the_types():
    tomllib = pytest.importorskip("tomllib")
    with open(ROOT / "pyproject.toml", "rb") as f:
        package_data = tomllib.load(f)["tool"]["setuptools"]["package-data"]
    assert "*.pyi" in package_data["*"]
    for package in ("zerogym", "zerogym_agents"):
        assert "py.typed" in package_data[package] and (ROOT / package / "py.typed").is_file()


def untyped_public_functions(root):
    """["path:line name"] of every public function and method (a public class's __init__ and __call__ too)
    of the public modules under `root` that lacks a type hint on a parameter (self and cls aside) or,
    __init__ aside, on its return."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if any(part.startswith("_") and part != "__init__.py" for part in path.relative_to(ROOT).parts):
            continue
        tree = ast.parse(path.read_text())
        scopes = [(tree, True)] + [(c, not c.name.startswith("_")) for c in tree.body if isinstance(c, ast.ClassDef)]
        for scope, public in scopes:
            for f in scope.body:
                if not (public and isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))):
                    continue
                if f.name.startswith("_") and f.name not in ("__init__", "__call__"):
                    continue
                args = f.args.posonlyargs + f.args.args + f.args.kwonlyargs
                args += [a for a in (f.args.vararg, f.args.kwarg) if a]
                if (
                    scope is not tree
                    and args
                    and args[0].arg in ("self", "cls")
                    and not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in f.decorator_list)
                ):
                    args = args[1:]
                if any(a.annotation is None for a in args) or (f.returns is None and f.name != "__init__"):
                    found.append(f"{path.relative_to(ROOT)}:{f.lineno} {f.name}")
    return found


def test_every_public_function_of_the_agents_has_type_hints():
    assert untyped_public_functions(ROOT / "zerogym_agents") == []


def test_the_hint_check_sees_a_missing_hint(tmp_path):
    (tmp_path / "m.py").write_text(
        "def f(x: int) -> int: ...\ndef g(x): ...\nclass C:\n    def h(self) -> None: ...\n"
        "    def k(self, y) -> None: ...\n    def _p(self, z): ...\n"
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert untyped_public_functions(tmp_path) == ["m.py:2 g", "m.py:5 k"]
    finally:
        ROOT = saved


def test_mypy_finds_nothing():
    needs("mypy")
    out = run("-m", "mypy")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found" in out.stdout


def test_ruff_finds_nothing():
    needs("ruff")
    out = run("-m", "ruff", "check", "--no-cache", ".")
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_format_leaves_every_file_as_it_is():
    needs("ruff")
    out = run("-m", "ruff", "format", "--check", "--no-cache", ".")
    assert out.returncode == 0, out.stdout + out.stderr
