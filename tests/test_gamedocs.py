"""docs/games.md is generated from the code and must match it."""
import pathlib

from zerogym import gamedocs


def test_games_page_matches_the_code():
    page = pathlib.Path(__file__).resolve().parents[1] / "docs" / "games.md"
    assert page.read_text() == gamedocs.render(), "regenerate: python -m zerogym.gamedocs > docs/games.md"


def test_every_plane_is_documented():
    text = gamedocs.render()
    import zerogym
    for game in zerogym.GAMES:
        spec = zerogym.make_state(game).spec
        assert len(spec.plane_info) == spec.obs_shape[2]
        for name, meaning in spec.plane_info:
            assert f"| {name} | {meaning} |" in text
