"""zerogym.render: pictures mark the last move in the right place, GIF and SVG records of games."""

import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import zerogym
from zerogym import render
from zerogym.coords import parse_action

# two move orders reaching the same board with a different last move: (game, kwargs, order 1, order 2)
TRANSPOSITIONS = [
    ("go", dict(board_size=5), ["A1", "C3", "E5"], ["E5", "C3", "A1"]),
    ("tictactoe", dict(), ["A1", "B2", "C3"], ["C3", "B2", "A1"]),
    ("tictactoe", dict(board_size=9, win_length=5), ["A1", "E5", "J9"], ["J9", "E5", "A1"]),
    ("hex", dict(board_size=5, swap=False), ["A1", "C3", "E5"], ["E5", "C3", "A1"]),
    ("connect_four", dict(), ["1", "4", "7"], ["7", "4", "1"]),
    ("othello", dict(board_size=6), ["C2", "B2", "B3"], ["B3", "B2", "C2"]),
]


def positions(game, kw, moves):
    st = zerogym.make_state(game, **kw)
    for m in moves:
        st.step(parse_action(st.spec, m))
    return st


def blobs(diff):
    """Centres (y, x) of the two groups of changed pixels, split across the wider gap."""
    ys, xs = np.nonzero(diff)
    pts = np.stack([ys, xs], 1).astype(float)
    axis = 1 if np.ptp(xs) >= np.ptp(ys) else 0  # split along the axis where they are farther apart
    cut = (pts[:, axis].min() + pts[:, axis].max()) / 2
    a, b = pts[pts[:, axis] < cut], pts[pts[:, axis] >= cut]
    assert len(a) and len(b)
    return a.mean(0), b.mean(0)


def where_on_the_picture(game, kw, point):
    """Roughly where (as fractions of height and width) a cell should appear: Go and Tic-tac-toe
    with row 1 at the bottom, Othello and Hex with row 1 on top (Hex rows leaning right), Connect
    Four with its row 0 on top."""
    r, c = point
    if game == "connect_four":
        h, w = kw.get("rows", 6), kw.get("cols", 7)
        return (r + 0.5) / h, (c + 0.5) / w
    n = kw["board_size"] if "board_size" in kw else 3
    if game == "hex":
        return (r + 0.5) / n, (c + r / 2 + 0.5) / (1.5 * n)
    y = (r + 0.5) / n
    return (1 - y if game in ("go", "tictactoe") else y), (c + 0.5) / n


@pytest.mark.parametrize("cell", [16, 36])
@pytest.mark.parametrize("game,kw,one,two", TRANSPOSITIONS)
def test_the_last_move_is_marked_where_it_was_played(game, kw, one, two, cell):
    s1, s2 = positions(game, kw, one), positions(game, kw, two)
    assert np.array_equal(s1.board(), s2.board())  # the same stones ...
    img1, img2 = render.draw(s1, cell=cell), render.draw(s2, cell=cell)
    assert img1.shape == img2.shape
    diff = (img1 != img2).any(axis=2)
    assert diff.any()  # ... but the marks differ
    # the changed pixels are two spots, at the two last moves: near where the cells should be, and
    # in the right order across and down the picture
    size = np.array(diff.shape, float)
    found = sorted(tuple(c / size) for c in blobs(diff))
    expected = sorted(where_on_the_picture(game, kw, render.last_point(s)) for s in (s1, s2))
    assert np.allclose(found, expected, atol=0.25), (found, expected)
    for axis in (0, 1):
        want, got = expected[1][axis] - expected[0][axis], found[1][axis] - found[0][axis]
        if abs(want) < 0.02:
            assert abs(got) < 0.05
        else:
            assert np.sign(got) == np.sign(want) and abs(got) > 0.3 * abs(want)


@pytest.mark.parametrize(
    "game,kw",
    [
        ("go", dict(board_size=9)),
        ("othello", dict(board_size=8)),
        ("hex", dict(board_size=7)),
        ("connect_four", dict()),
        ("tictactoe", dict()),
    ],
)
def test_pictures_scale_with_the_cell_size_and_labels(game, kw):
    st = zerogym.make_state(game, **kw)
    st.step(int(st.legal_actions()[0]))
    small, big = render.draw(st, cell=16), render.draw(st, cell=48)
    for img in (small, big):
        assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    ratio = np.array(big.shape[:2]) / np.array(small.shape[:2])
    assert np.all(ratio > 2.5) and np.all(ratio < 3.5)
    bare = render.draw(st, cell=48, labels=False)
    assert bare.shape[0] < big.shape[0] and bare.shape[1] <= big.shape[1]
    captioned = render.draw(st, cell=48, caption="hello")
    assert captioned.shape[0] > big.shape[0] and captioned.shape[1] == big.shape[1]


def test_env_rgb_array_is_the_same_drawing():
    env = zerogym.make("othello", board_size=6, render_mode="rgb_array")
    env.reset()
    env.step(8)
    assert np.array_equal(env.render(), render.draw(env.unwrapped.state))


def test_go_star_points():
    from zerogym.envs.go import star_points

    assert len(star_points(19, 19)) == 9 and (3, 3) in star_points(19, 19) and (9, 9) in star_points(19, 19)
    assert sorted(star_points(9, 9)) == [(2, 2), (2, 6), (4, 4), (6, 2), (6, 6)]
    assert sorted(star_points(13, 13)) == [(3, 3), (3, 9), (6, 6), (9, 3), (9, 9)]
    assert star_points(5, 5) == []


def test_after_a_hex_swap_the_swapped_stone_is_the_last_move():
    st = zerogym.make_state("hex", board_size=5)
    st.step(1 * 5 + 3)  # D2: row 1, column 3
    st.step(25)  # swap
    assert render.last_point(st) == (3, 1)
    assert "[O]" in render.text_board(st, hex=True, row0_at_bottom=False).splitlines()[4]


def random_game(game, kw, seed, limit=200):
    st = zerogym.make_state(game, **kw)
    rng = np.random.default_rng(seed)
    actions = []
    while not st.is_over() and len(actions) < limit:
        a = int(rng.choice(st.legal_actions()))
        st.step(a)
        actions.append(a)
    return actions


@pytest.mark.parametrize(
    "game,kw",
    [
        ("tictactoe", dict()),
        ("connect_four", dict(rows=4, cols=5, connect=3)),
        ("hex", dict(board_size=4)),
        ("othello", dict(board_size=4)),
    ],
)
def test_gif_has_one_frame_per_position(tmp_path, game, kw):
    from PIL import Image

    actions = random_game(game, kw, seed=1)
    states = render.replay(game, actions, **kw)
    assert len(states) == len(actions) + 1 and states[-1].is_over()
    path = render.save_gif(states, tmp_path / "game.gif", fps=4, cell=12)
    with Image.open(path) as im:
        assert im.n_frames == len(states)
        assert im.info.get("loop") == 0


def test_go_passes_keep_their_frames(tmp_path):
    # two passes leave the board unchanged; the captions still tell the positions apart
    from PIL import Image

    states = render.replay("go", [12, 13, 25, 25], board_size=5)
    assert states[-1].is_terminal()
    with Image.open(render.save_gif(states, tmp_path / "go.gif", cell=12)) as im:
        assert im.n_frames == 5
    assert "black wins" in render.move_caption(states[-1]) or "white wins" in render.move_caption(states[-1])


def test_svg_sequence_one_file_per_position(tmp_path):
    actions = random_game("go", dict(board_size=5), seed=2, limit=12)
    states = render.replay("go", actions, board_size=5)
    paths = render.save_svgs(states, tmp_path / "svg")
    assert len(paths) == len(states) == len(list((tmp_path / "svg").glob("*.svg")))
    assert paths == sorted(paths)
    ns = "{http://www.w3.org/2000/svg}"
    for path, st in zip(paths, states):
        root = ET.parse(path).getroot()
        assert root.tag == ns + "svg"
        stones = [c for c in root.iter(ns + "circle") if c.get("stroke") == "#000000"]
        assert len(stones) == int((st.board() > 0).sum())  # one outlined circle per stone
        texts = [t.text for t in root.iter(ns + "text")]
        assert render.move_caption(st) in texts


def test_save_game_picks_the_format_and_replay_checks_moves(tmp_path):
    from PIL import Image

    states = render.replay("tictactoe", [4, 0, 8])
    assert render.save_game(states, tmp_path / "t.gif") == tmp_path / "t.gif"
    with Image.open(tmp_path / "t.gif") as im:
        assert im.n_frames == 4
    assert len(render.save_game(states, tmp_path / "frames")) == 4
    start = zerogym.make_state("tictactoe")
    assert len(render.replay(start, [4])) == 2 and start.move_count == 0  # the start state is copied
    with pytest.raises(zerogym.IllegalMoveError):
        render.replay("tictactoe", [4, 4])
    with pytest.raises(ValueError, match="fps"):
        render.save_gif(states, tmp_path / "x.gif", fps=0)
    with pytest.raises(ValueError, match="no positions"):
        render.save_gif([], tmp_path / "x.gif")


def test_gif_without_pillow_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match="Pillow"):
        render.save_gif(render.replay("tictactoe", [4]), tmp_path / "x.gif")


def test_captions_name_the_mover_and_the_result():
    st = render.replay("connect_four", [0, 1, 0, 1, 0, 1, 0])[-1]
    assert render.move_caption(st) == "7. red column 1 - red wins"
    st = render.replay("hex", [8, 25], board_size=5)[-1]
    assert render.move_caption(st).startswith("2. white swap")
    assert render.move_caption(zerogym.make_state("go", board_size=5)) == "start"
    st = render.replay("breakthrough", [(1 * 5 + 1) * 3 + 2], rows=5, cols=5)[-1]  # b2 to c3
    assert render.move_caption(st) == "1. black b2-c3"


def test_player_words_of_every_game():
    words = render.PLAYER_WORDS
    assert set(words) == set(zerogym.GAMES)
    assert words["connect_four"] == ("red", "yellow") and words["tictactoe"] == ("X", "O")
    assert words["go"] == words["othello"] == words["hex"] == ("black", "white")


# ---- cell_geometry: a picture's pixel back to its cell --------------------------------------------
from cases import GAME_CASES, case_id  # noqa: E402


@pytest.mark.parametrize("case", GAME_CASES, ids=case_id)
@pytest.mark.parametrize("cell,labels,caption", [(18, True, None), (36, False, None), (50, True, "a long caption")])
def test_each_cell_centre_and_its_area_map_back_to_the_cell(case, cell, labels, caption):
    game, kw = case
    state = zerogym.make_state(game, **kw)
    geo = render.cell_geometry(state, cell=cell, labels=labels, caption=caption)
    h, w = state.board().shape
    on = state.on_board() if hasattr(state, "on_board") else np.ones((h, w), bool)
    assert sorted(geo.centres) == sorted((int(r), int(c)) for r, c in zip(*np.nonzero(on)))
    height, width, _ = render.draw(state, cell=cell, labels=labels, caption=caption).shape
    for rc, (y, x) in geo.centres.items():
        assert 0 < y < height and 0 < x < width
        assert geo.cell_at(y, x) == rc
        for dy, dx in geo.outline:  # just inside each corner of the cell's area: still the cell
            assert geo.cell_at(y + 0.9 * dy, x + 0.9 * dx) == rc
    # the picture's corner is margin (or label), never a cell; so is a point past the outermost cell
    assert geo.cell_at(0.5, 0.5) is None
    (y, x), reach = max(geo.centres.values()), np.abs(geo.outline).max()
    assert geo.cell_at(y + 1.5 * reach, x) is None


@pytest.mark.parametrize("case", GAME_CASES, ids=case_id)
def test_the_last_move_is_drawn_at_the_centre_cell_geometry_gives(case):
    # independent of the geometry: the picture's pixels show the last move's mark where the centre is
    game, kw = case
    state = zerogym.make_state(game, **kw)
    rng = np.random.default_rng(3)
    seen = 0
    for cell in (20, 41):
        state.reset()
        while not state.is_over() and state.move_count < 30:
            state.step(int(rng.choice(state.legal_actions())))
            last = render.last_point(state)
            if last is None:
                continue
            img, geo = render.draw(state, cell=cell), render.cell_geometry(state, cell=cell)
            y, x = geo.centres[last]
            if game == "tictactoe":  # the last move's square is highlighted, its mark drawn over the centre
                assert tuple(img[int(y), int(x + 0.42 * cell)]) == render.LAST_SQUARE
            else:
                mark = (20, 20, 20) if game == "connect_four" else render.MARK
                assert tuple(img[int(y), int(x)]) == mark, (last, state.move_count)
            assert geo.cell_at(y, x) == last
            seen += 1
    assert seen >= 10


def test_highlighted_cells_get_a_spot_at_their_centre():
    state = zerogym.make_state("breakthrough", rows=6, cols=6)
    img = render.draw(state, cell=30, highlight=[(1, 2), (2, 3)])
    geo = render.cell_geometry(state, cell=30)
    for rc in [(1, 2), (2, 3)]:
        y, x = geo.centres[rc]
        assert tuple(img[int(y), int(x)]) == render.HIGHLIGHT
    y, x = geo.centres[(2, 2)]
    assert tuple(img[int(y), int(x)]) != render.HIGHLIGHT


def test_cell_at_refuses_points_that_are_not_numbers():
    geo = render.cell_geometry(zerogym.make_state("go", board_size=5))
    with pytest.raises(ValueError, match="finite"):
        geo.cell_at(float("nan"), 3.0)
    with pytest.raises(TypeError, match=r"two numbers \(y, x\)"):
        geo.cell_at("3", 4)
