"""docs/games/ is generated from the code and must match it."""
import contextlib
import io

import numpy as np
import pytest
from PIL import Image

import zerogym
from zerogym import gamedocs

GAMES = list(zerogym.GAMES)


@pytest.mark.parametrize("path", list(gamedocs.pages()), ids=lambda p: p.name)
def test_committed_page_matches_the_code(path):
    assert path.exists(), f"{path} is missing: run python -m zerogym.gamedocs"
    assert path.read_text() == gamedocs.pages()[path], f"{path} is stale: run python -m zerogym.gamedocs"


@pytest.mark.parametrize("game", GAMES)
def test_every_plane_is_documented(game):
    spec = zerogym.make_state(game).spec
    page = gamedocs.render_game(game)
    assert len(spec.plane_info) == spec.obs_shape[2]
    for i, (name, meaning) in enumerate(spec.plane_info):
        assert f"| {i} | `{name}` | {meaning} |" in page


@pytest.mark.parametrize("game", GAMES)
def test_picture_is_a_png_of_the_example_position(game):
    path = gamedocs.DOCS / "img" / f"{game}.png"
    assert f"](img/{game}.png)" in gamedocs.render_game(game)
    assert path.exists(), f"{path} is missing: run python -m zerogym.gamedocs"
    with Image.open(path) as img:
        assert img.format == "PNG"
        assert all(100 <= side <= 2000 for side in img.size), img.size
        pixels = np.asarray(img.convert("RGB"))
    assert np.array_equal(pixels, gamedocs.picture(game)), f"{path} is stale: run python -m zerogym.gamedocs"


def test_index_links_every_page():
    index = (gamedocs.DOCS / "README.md").read_text()
    for game in GAMES:
        assert f"]({game}.md)" in index
        assert (gamedocs.DOCS / f"{game}.md").exists()


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
    gamedocs.main(["--out", str(tmp_path)])
    gamedocs.main(["--check", "--out", str(tmp_path)])
    (tmp_path / "hex.md").write_text("old")
    with pytest.raises(SystemExit) as exit_:
        gamedocs.main(["--check", "--out", str(tmp_path)])
    assert "hex.md" in str(exit_.value) and "go.md" not in str(exit_.value)
