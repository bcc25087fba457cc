"""docs/games/ is generated from the code (zerogym.gamedocs, written by scripts/gamedocs.py) and must match it."""

import ast
import contextlib
import importlib.util
import io
import pathlib
import re

import numpy as np
import pytest
from PIL import Image

import zerogym
from zerogym import gamedocs

GAMES = list(zerogym.GAMES)
ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_script():
    """scripts/gamedocs.py as a module."""
    spec = importlib.util.spec_from_file_location("zerogym_gamedocs_script", ROOT / "scripts" / "gamedocs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


script = load_script()
DOCS = script.DOCS
REGENERATE = "run python scripts/gamedocs.py"


@pytest.mark.parametrize("name", list(gamedocs.pages()))
def test_committed_page_matches_the_code(name):
    path = DOCS / name
    assert path.exists(), f"{path} is missing: {REGENERATE}"
    assert path.read_text() == gamedocs.pages()[name], f"{path} is stale: {REGENERATE}"


@pytest.mark.parametrize("game", GAMES)
def test_every_plane_is_documented(game):
    spec = zerogym.make_state(game).spec
    page = gamedocs.render_game(game)
    assert len(spec.plane_info) == spec.obs_shape[2]
    for i, (name, meaning) in enumerate(spec.plane_info):
        assert f"| {i} | `{name}` | {meaning} |" in page


@pytest.mark.parametrize("game", GAMES)
def test_picture_is_a_png_of_the_example_position(game):
    path = DOCS / "img" / f"{game}.png"
    assert f"](img/{game}.png)" in gamedocs.render_game(game)
    assert path.exists(), f"{path} is missing: {REGENERATE}"
    with Image.open(path) as img:
        assert img.format == "PNG"
        assert all(100 <= side <= 2000 for side in img.size), img.size
        pixels = np.asarray(img.convert("RGB"))
    assert np.array_equal(pixels, gamedocs.picture(game)), f"{path} is stale: {REGENERATE}"


def test_index_links_every_page():
    index = (DOCS / "README.md").read_text()
    for game in GAMES:
        assert f"]({game}.md)" in index
        assert (DOCS / f"{game}.md").exists()


@pytest.mark.parametrize("game", GAMES)
def test_aec_example_runs_to_the_end(game):
    code = gamedocs.example_code(game)
    assert 5 <= len([line for line in code.splitlines() if line.strip()]) <= 8
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {})
    assert "game over" in out.getvalue()


@pytest.mark.parametrize("game", GAMES)
def test_page_holds_the_rules_and_the_pass_or_swap_action(game):
    page, rules = gamedocs.render_game(game), gamedocs.rules(game)
    assert rules in page
    for needed in [f"`{name}`" for name in gamedocs.signature(game).parameters] + ["Rewards", "Illegal moves"]:
        assert needed in rules, f"the {game} docstring does not mention {needed}"
    spec = gamedocs.spec_of(game)
    for word, special in (("pass", spec.pass_action), ("swap", spec.swap_action)):
        if special >= 0:
            assert special == spec.num_actions - 1
            assert f"| {special} | {word} | {word} |" in page


def test_check_names_a_stale_file(tmp_path):
    script.main(["--out", str(tmp_path)])
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.*")) == sorted(
        [*gamedocs.pages(), *gamedocs.pictures()]
    )
    script.main(["--check", "--out", str(tmp_path)])
    (tmp_path / "hex.md").write_text("old")
    with pytest.raises(SystemExit) as exit_:
        script.main(["--check", "--out", str(tmp_path)])
    assert "hex.md" in str(exit_.value) and "go.md" not in str(exit_.value)


def source_tree_paths(path):
    """The string constants of a module (docstrings left out) that name a folder of the source checkout
    beside the package: docs/, benchmarks/ (also as "../docs")."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and re.match(r"(\.\./)*(docs|benchmarks)(/|$)", node.value)
    ]


def test_the_package_reaches_no_folder_of_the_source_checkout():
    # an installed zerogym has no docs/ or benchmarks/ beside it: nothing in it reads or writes there
    assert source_tree_paths(ROOT / "scripts" / "gamedocs.py") == ["docs"]  # the check sees such a path
    found = {path.name: source_tree_paths(path) for path in sorted((ROOT / "zerogym").rglob("*.py"))}
    assert {name: paths for name, paths in found.items() if paths} == {}
