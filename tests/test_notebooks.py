"""The notebooks open and run outside the checkout's .venv (Colab, a bare Jupyter): a Colab badge on top of
each, pointing at pyproject.toml's repository, and a first code cell that installs what the notebook needs
when it is missing and does nothing where it is all there. The slow tests (`-m "not slow"` leaves them out)
make a venv with nothing installed but torch (as Colab has it) and ipykernel (as Jupyter has it), run each
first cell there against a wheel built from this checkout, check that everything the notebook imports then
imports, and run every notebook there top to bottom in quick mode (ZEROGYM_QUICK=1): the suite's run of
the notebooks."""

import ast
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

import pytest

tomllib = pytest.importorskip("tomllib")

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# the extras each notebook's first cell installs: 01 the environments (with pictures), 02 ends with the widget
EXTRAS = {"01": "display", "02": "agents,notebook", "03": "agents", "04": "agents"}
SOURCE_LINE = 'ZEROGYM_SOURCE = ""'
# what Colab (torch) and Jupyter (a kernel) have before a notebook's first cell runs
PREINSTALLED = ["torch==2.13.0", "ipykernel"]


def repository():
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]["urls"]["Repository"]


def colab_url(path):
    owner_name = repository().removeprefix("https://github.com/")
    return f"https://colab.research.google.com/github/{owner_name}/blob/main/notebooks/{path.name}"


def cells(path, kind):
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == kind]


def install_cell(path):
    return cells(path, "code")[0]


def imports(path):
    """The import statements of the notebook's code cells after the first, as lines of Python."""
    found = []
    for code in cells(path, "code")[1:]:
        python = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(python)):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.append(ast.unparse(node))
    return sorted(set(found))


def test_every_notebook_has_a_colab_badge_and_the_readme_lists_them():
    readme = (ROOT / "README.md").read_text()
    assert repository().startswith("https://github.com/")
    for path in NOTEBOOKS:
        badge = f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({colab_url(path)})"
        assert cells(path, "markdown")[0] == badge, path.name
        row = [line for line in readme.splitlines() if line.startswith(f"| [{path.stem}](notebooks/{path.name}) |")]
        assert len(row) == 1 and badge in row[0], path.name


def test_the_first_code_cell_installs_from_the_declared_repository_or_one_source_variable():
    for path in NOTEBOOKS:
        code = install_cell(path)
        assert code.count(SOURCE_LINE) == 1 and f'REPOSITORY = "{repository()}"' in code, path.name
        assert 'ZEROGYM_SOURCE or f"git+{REPOSITORY}"' in code and "about 4 minutes" in code
        assert f'pip_install(f"zerogym[{EXTRAS[path.stem[:2]]}] @ {{source}}"' in code, path.name


def test_no_cell_needs_a_terminal():
    for path in NOTEBOOKS:
        for code in cells(path, "code"):
            for line in code.splitlines():
                assert not line.lstrip().startswith("!"), (path.name, line)
                assert not re.match(r"\s*%%?(bash|sh|system|script)\b", line), (path.name, line)


def test_the_first_cell_does_nothing_where_everything_is_installed(monkeypatch):
    ran = []
    monkeypatch.setattr(subprocess, "run", lambda *args, **kwargs: ran.append(args))
    for path in NOTEBOOKS:
        exec(install_cell(path), {})
        assert ran == [], f"{path.name}'s first cell would install {ran} into the test suite's Python"


# the fresh venv's processes see nothing of this checkout (the tests may run with it on PYTHONPATH)
CLEAN = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def run(args, timeout, **kwargs):
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=CLEAN, **kwargs)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """(the Python of a venv with nothing but PREINSTALLED, a wheel built from this checkout, the venv's
    folder): made once for every notebook."""
    started = time.perf_counter()
    base = tmp_path_factory.mktemp("fresh")
    run([sys.executable, "-m", "venv", str(base / "venv")], 120)
    python = str(base / "venv" / "bin" / "python")
    run([python, "-m", "pip", "install", "-q", *PREINSTALLED], 600)
    # the wheel, from a copy of the sources (the build writes next to them)
    src = base / "src"
    skip = shutil.ignore_patterns(
        ".*", "*.so", "*.c", "build", "dist", "runs", "wheelhouse", "*.egg-info", "__pycache__"
    )
    shutil.copytree(ROOT, src, ignore=skip)
    run([python, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(base / "wheels"), str(src)], 900)
    (wheel,) = (base / "wheels").glob("zerogym-*.whl")
    print(f"fresh venv and wheel: {time.perf_counter() - started:.0f} s")
    return python, wheel, base / "venv"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_in_a_fresh_venv_the_first_cell_installs_what_the_notebook_imports(fresh, path, tmp_path):
    python, wheel, _ = fresh
    cell = install_cell(path).replace(SOURCE_LINE, f"ZEROGYM_SOURCE = {str(wheel)!r}")
    first = run([python, "-c", cell], 600, cwd=tmp_path)
    again = run([python, "-c", cell], 120, cwd=tmp_path)
    assert again.stdout == "", "a second run of the first cell should find everything installed"
    checked = run(
        [python, "-c", "\n".join(imports(path)) + "\nimport zerogym; print(zerogym.__file__)"], 300, cwd=tmp_path
    )
    assert checked.stdout.strip().startswith(str(pathlib.Path(python).parent.parent)), (
        "zerogym was imported from elsewhere than the fresh venv",
        checked.stdout,
        first.stdout,
    )


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_notebook_runs_top_to_bottom_in_the_fresh_venv(fresh, path, tmp_path, monkeypatch):
    """Every cell, in quick mode (ZEROGYM_QUICK=1: minutes, not the class-length runs), in a kernel of the
    fresh venv, after the first cell installed what the notebook needs from the wheel."""
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    python, wheel, venv = fresh
    if not (venv / "share" / "jupyter" / "kernels" / "zerogym-fresh").exists():
        run([python, "-m", "ipykernel", "install", "--prefix", str(venv), "--name", "zerogym-fresh"], 120)
    monkeypatch.setenv("JUPYTER_PATH", str(venv / "share" / "jupyter"))  # where the client finds that kernel
    nb = nbformat.read(path, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    first.source = first.source.replace(SOURCE_LINE, f"ZEROGYM_SOURCE = {str(wheel)!r}")
    nb.cells.append(nbformat.v4.new_code_cell("import zerogym; print(zerogym.__file__)"))
    client = nbclient.NotebookClient(
        nb, kernel_name="zerogym-fresh", timeout=1200, resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute(env={**CLEAN, "ZEROGYM_QUICK": "1"})  # a cell that fails raises CellExecutionError
    printed = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert printed.startswith(str(venv)), printed
