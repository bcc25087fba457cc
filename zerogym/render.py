"""Rendering: text boards with coordinates, pictures (RGB arrays, numpy only) and SVG drawings of
every game, and whole games saved as an animated GIF or one SVG per position.

A picture is built once as a scene (rectangles, discs, polygons, labels) and then either rasterized
(`draw`) or written as SVG (`svg`), so both show the same board: coordinates as the player types
them (zerogym.coords), the last move marked.  What differs between games (which way up the board is,
the picture's scene, the players' words) comes from each game's GameInfo (zerogym.envs.<game>),
which the state drawn leads to (zerogym.envs.binding); this module holds the drawing that every game
shares.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from zerogym._font import draw_text, text_size
from zerogym._install import install_command
from zerogym._types import Board, Cell, Colour, Item
from zerogym.coords import COLUMNS
from zerogym.envs.binding import game_info_of

if TYPE_CHECKING:
    from zerogym._core.state import State

Picture = npt.NDArray[np.uint8]  # an RGB picture, (height, width, 3)

CELL = 36  # pixels per board cell


def __getattr__(name: str) -> dict[str, tuple[str, str]]:
    """PLAYER_WORDS: {game name: the words for its two players in captions and results}, from each game's
    GameInfo."""
    if name == "PLAYER_WORDS":
        from zerogym.registry import GAMES, game_info

        return {game: game_info(game).player_words for game in GAMES}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---- text ------------------------------------------------------------------------------------
def last_point(state: State) -> Cell | None:
    """(row, col) of the last move's piece, or None (pass, start).  After a swap: the swapped stone."""
    if hasattr(state, "last_point"):
        return state.last_point()
    h, w, _ = state.spec.obs_shape
    a = state.last_action
    if 0 <= a < h * w:
        return divmod(a, w)
    if a == state.spec.swap_action:
        stones = np.argwhere(state.board())
        if len(stones) == 1:
            return int(stones[0][0]), int(stones[0][1])
    return None


def text_board(
    state: State,
    symbols: str = ".XO",
    row0_at_bottom: bool = True,
    hex: bool = False,
    column_labels: str = "letters",
    row_labels: bool = True,
) -> str:
    """The board as text: column labels ("letters", "lowercase" letters or "numbers"), row numbers
    (unless row_labels=False), the last move in brackets.  On a hexagon of hexagons (Havannah: `hex`,
    and cells off the board) a column runs down to the right, one character a row, and its label
    stands just beyond both of its ends, where the column's line leaves the board (hex_end_labels)."""
    board = state.board()
    h, w = board.shape
    on = state.on_board() if hasattr(state, "on_board") else None  # a board that fills part of its grid
    last = last_point(state)
    labels = [
        str(c + 1) if column_labels == "numbers" else COLUMNS.lower()[c] if column_labels == "lowercase" else COLUMNS[c]
        for c in range(w)
    ]
    cw = 1 + max(len(lab) for lab in labels)  # a cell: a space, then its label's width
    pad = len(str(h)) + 1 if row_labels else 0
    ends = hex_end_labels(on) if hex and on is not None else None
    lines = [] if ends is not None else [" " * pad + "".join(f"{lab:>{cw}}" for lab in labels)]
    order = list(range(h - 1, -1, -1) if row0_at_bottom else range(h))
    if ends is not None:
        order = [-1, *order, h]  # the lines above and below the board hold the labels of the ends there
    for r in order:
        chars = list(" " * (cw * w + 1))
        for c in range(w):
            if 0 <= r < h and (on is None or on[r, c]):
                chars[cw * c + cw - 1] = symbols[board[r, c]]  # under its label's end
            elif ends is not None and (r, c) in ends:
                chars[cw * c : cw * c + cw] = f"{labels[c]:>{cw}}"
        if last is not None and last[0] == r:
            chars[cw * last[1] + cw - 2] = "["
            chars[cw * last[1] + cw] = "]"
        indent = " " * (r + (ends is not None)) if hex else ""
        body = "".join(chars).rstrip()
        number = f"{r + 1:>{pad}}" if row_labels and 0 <= r < h else " " * pad
        lines.append(number + indent + body + ("" if hex or not row_labels else f" {r + 1}"))
    if not hex:
        lines.append(lines[0])
    to_move = state.spec.agents[state.current_player]
    status = "game over" if state.is_over() else f"{to_move} to move"
    lines.append(f"move {state.move_count}, {status}")
    return "\n".join(line.rstrip() for line in lines)


def hex_end_labels(on: npt.NDArray[np.bool_]) -> set[Cell]:
    """The cells just beyond both ends of every column of a board of hexagons that fills part of its
    grid (`on`, its cells): off the board, one row above the column's first cell and one row below its
    last, where a text board writes the column's label (rows -1 and h included)."""
    h, w = on.shape
    ends = set()
    for c in range(w):
        rows = np.flatnonzero(on[:, c])
        if len(rows):
            ends |= {(int(rows[0]) - 1, c), (int(rows[-1]) + 1, c)}
    return ends


# ---- scenes: what a picture contains -----------------------------------------------------------
# items, drawn in order:  ("rect", y0, x0, y1, x1, fill or None)
#                         ("disc", cy, cx, r, fill, stroke or None[, stroke_width])   (stroke inside r)
#                         ("poly", [(y, x), ...], fill, stroke or None, stroke_width)   (convex)
#                         ("text", y, x, text, scale, colour, anchor)   (5x7 glyphs times scale; y is the centre)
STONE = {1: (20, 20, 20), 2: (240, 240, 240)}
MARK = (220, 40, 40)
MARK_X, MARK_O, LAST_SQUARE = (40, 70, 170), (200, 50, 40), (250, 232, 150)
HIGHLIGHT = (60, 200, 90)  # the spots of scene(highlight=...)
OUTLINE = (0, 0, 0)


def label_scale(m: float) -> int:
    """The glyph scale of coordinate labels on cells of m pixels."""
    return max(1, int(m * 0.3 / 7 + 0.5))


def _x_or_o(player: int, y: float, x: float, m: float, surface: Colour) -> list[Item]:
    """Tic-tac-toe marks: an X (two bars) for the first player, an O (a ring) for the second."""
    if player == 2:
        return [("disc", y, x, m * 0.33, surface, MARK_O, m * 0.11)]
    a, t = m * 0.27, m * 0.055  # half the diagonal's reach, half the bar's thickness
    return [
        (
            "poly",
            [(y - a - t, x - a + t), (y - a + t, x - a - t), (y + a + t, x + a - t), (y + a - t, x + a + t)],
            MARK_X,
            None,
            0,
        ),
        (
            "poly",
            [(y - a - t, x + a - t), (y - a + t, x + a + t), (y + a + t, x - a + t), (y + a - t, x - a - t)],
            MARK_X,
            None,
            0,
        ),
    ]


def grid_items(
    board: Board,
    last: Cell | None,
    m: float,
    labels: bool,
    row0_at_bottom: bool,
    points: bool,
    colours: tuple[Colour, Colour, Colour, Colour],
    marks: bool = False,
    letters: str = COLUMNS,
    stars: Iterable[Cell] = (),
) -> tuple[list[Item], Colour]:
    """(items, background) of a square grid: points=True, lines through the points (Go, with star
    points `stars`, (row, col) as drawn); else a board of squares (marks=True: X and O instead of
    stones).  colours: (background, surface, line, ink); letters: the column labels."""
    h, w = board.shape
    background, surface, line, ink = colours
    lw = max(1, round(m / 36))
    items: list[Item] = [("rect", 0, 0, h * m, w * m, surface)]
    if points:
        x0, x1, y0, y1 = m / 2 - lw / 2, (w - 0.5) * m + lw / 2, m / 2 - lw / 2, (h - 0.5) * m + lw / 2
        items += [("rect", (i + 0.5) * m - lw / 2, x0, (i + 0.5) * m + lw / 2, x1, line) for i in range(h)]
        items += [("rect", y0, (j + 0.5) * m - lw / 2, y1, (j + 0.5) * m + lw / 2, line) for j in range(w)]
        for row, col in stars:
            items.append(("disc", (row + 0.5) * m, (col + 0.5) * m, max(2.0, m * 0.08), line, None))
    else:
        items += [("rect", i * m - lw / 2, -lw / 2, i * m + lw / 2, w * m + lw / 2, line) for i in range(h + 1)]
        items += [("rect", -lw / 2, j * m - lw / 2, h * m + lw / 2, j * m + lw / 2, line) for j in range(w + 1)]

    def screen_row(r: int) -> int:
        return (h - 1 - r) if row0_at_bottom else r

    if marks and last is not None:  # X and O: the last move's square is highlighted
        y, x = screen_row(last[0]) * m, last[1] * m
        items.insert(1, ("rect", y + lw / 2, x + lw / 2, y + m - lw / 2, x + m - lw / 2, LAST_SQUARE))
    for r in range(h):
        for c in range(w):
            y, x = (screen_row(r) + 0.5) * m, (c + 0.5) * m
            if board[r, c] and marks:
                items += _x_or_o(board[r, c], y, x, m, surface)
            elif board[r, c]:
                items.append(("disc", y, x, m * 0.45, STONE[board[r, c]], OUTLINE))
    if last is not None and not marks:
        items.append(("disc", (screen_row(last[0]) + 0.5) * m, (last[1] + 0.5) * m, m * 0.13, MARK, None))
    if labels:
        s, off = label_scale(m), m * 0.45
        for c in range(w):
            for y in (-off, h * m + off):
                items.append(("text", y, (c + 0.5) * m, letters[c], s, ink, "center"))
        for r in range(h):
            for x in (-off - m * 0.05, w * m + off + m * 0.05):
                items.append(("text", (screen_row(r) + 0.5) * m, x, str(r + 1), s, ink, "center"))
    return items, background


HEX_CELL, HEX_EDGE, HEX_BACKGROUND = (205, 175, 120), (90, 75, 50), (225, 210, 180)


def hex_steps(m: float) -> tuple[float, float, float]:
    """(side, dx, dy) of pointy-top hexagons on cells of m pixels: the hexagon's side, the step from
    one column to the next and from one row to the next."""
    s = m * 0.55
    return s, s * math.sqrt(3), s * 1.5


def hex_centre(r: float, c: float, m: float) -> tuple[float, float]:
    """(y, x) of the centre of cell (r, c) on a board of hexagons where row r+1 sits half a cell right
    of row r (Hex's rhombus, Havannah's hexagon)."""
    _, dx, dy = hex_steps(m)
    return r * dy, c * dx + r * dx / 2


def hex_corners(m: float) -> list[tuple[float, float]]:
    """The corners (dy, dx) of a pointy-top hexagon around its centre, on cells of m pixels."""
    s = hex_steps(m)[0]
    return [(math.sin(t) * s, math.cos(t) * s) for t in np.deg2rad(np.arange(6) * 60 - 90)]


def hex_items(board: Board, cells: Iterable[tuple[int, int, Colour]], last: Cell | None, m: float) -> list[Item]:
    """A pointy-top hexagon at hex_centre for each (row, col, fill) of `cells`, the stone on it, and the
    last move's mark."""
    s, corners = hex_steps(m)[0], hex_corners(m)
    lw = max(1.5, m / 24)
    items: list[Item] = []
    for r, c, fill in cells:
        cy, cx = hex_centre(r, c, m)
        items.append(("poly", [(cy + y, cx + x) for y, x in corners], fill, HEX_EDGE, lw))
        if board[r, c]:
            items.append(("disc", cy, cx, s * 0.68, STONE[board[r, c]], OUTLINE))
    if last is not None:
        items.append(("disc", *hex_centre(*last, m), s * 0.22, MARK, None))
    return items


def scene(
    state: State,
    row0_at_bottom: bool | None = None,
    cell: float = CELL,
    labels: bool = True,
    caption: str | None = None,
    highlight: Iterable[Cell] = (),
) -> tuple[int, int, Colour, list[Item]]:
    """(height, width, background, items) of a picture of `state` (see the item list above), drawn
    by its game's GameInfo.scene_items.

    row0_at_bottom: where row 0 goes on games that may draw it either way, such as Othello and
    Tic-tac-toe (default: the game's own way up); caption: a line of text under the board (None: none);
    highlight: cells (row, col) marked with a green spot (a piece picked up, the places it may go)."""
    return _layout(state, row0_at_bottom, cell, labels, caption, highlight)[:4]


def _layout(
    state: State,
    row0_at_bottom: bool | None,
    cell: float,
    labels: bool,
    caption: str | None,
    highlight: Iterable[Cell] = (),
) -> tuple[int, int, Colour, list[Item], tuple[float, float]]:
    """scene's (height, width, background, items), and (dy, dx): how far the picture moved the drawing
    of GameInfo.scene_items (whose cells lie at GameInfo.cell_centre)."""
    info = game_info_of(state)
    board, last, m = state.board(), last_point(state), float(cell)
    row0_at_bottom = info.picture_up(row0_at_bottom)
    items, bg = info.scene_items(board, last, m, labels, row0_at_bottom)
    for r, c in highlight:
        y, x = info.cell_centre(r, c, board.shape, m, row0_at_bottom)
        items.append(("disc", y, x, m * 0.18, HIGHLIGHT, OUTLINE, max(1.0, m / 24)))
    height, width, items, (dy, dx) = _fit(items, pad=m * 0.3)
    if caption:
        strip = m * 0.8
        scale = label_scale(m)
        while scale > 1 and text_size(caption, scale)[1] > width - m * 0.5:
            scale -= 1
        wider = int(math.ceil(text_size(caption, scale)[1] + m * 0.5)) - width
        if wider > 0:  # widen the picture rather than cut the caption
            items = [_shift(it, 0, wider / 2) for it in items]
            width += wider
            dx += wider / 2
        items += [
            ("rect", height, 0, height + strip, width, (250, 250, 250)),
            ("text", height + strip / 2, m * 0.25, caption, scale, (30, 30, 30), "left"),
        ]
        height += int(math.ceil(strip))
    return height, width, bg, items, (dy, dx)


# ---- where the cells are: from a picture's pixel back to the board ---------------------------------
class CellGeometry:
    """Where the cells of a board lie in one picture of it: `centres` {(row, col): (y, x)} in pixels (a board
    shaped as a hexagon: its cells only) and `outline`, the corners (dy, dx) of a cell's area around its
    centre (a square, or a hexagon; the areas tile the board).  cell_at maps a pixel back to its cell."""

    def __init__(self, centres: dict[Cell, tuple[float, float]], outline: Sequence[tuple[float, float]]) -> None:
        self.centres = centres
        self.outline = np.asarray(outline, float)
        self._cells = list(centres)
        self._at = np.array([centres[k] for k in self._cells], float).reshape(-1, 2)

    def cell_at(self, y: float, x: float) -> Cell | None:
        """The cell whose area holds the point (y, x) of the picture; None for a point off the board (a
        label, the margin, the caption)."""
        if not (isinstance(y, (int, float, np.number)) and isinstance(x, (int, float, np.number))):
            raise TypeError(f"a point of the picture is two numbers (y, x), got {y!r}, {x!r}")
        if not (math.isfinite(y) and math.isfinite(x)):
            raise ValueError(f"a point of the picture has finite coordinates, got y={y!r}, x={x!r}")
        d = (self._at[:, 0] - y) ** 2 + (self._at[:, 1] - x) ** 2
        i = int(np.argmin(d))
        return self._cells[i] if _inside(self.outline, y - self._at[i, 0], x - self._at[i, 1]) else None


def cell_geometry(
    state: State,
    row0_at_bottom: bool | None = None,
    cell: float = CELL,
    labels: bool = True,
    caption: str | None = None,
) -> CellGeometry:
    """Where the cells of the board lie in the picture that draw(state, ...) makes with the same arguments
    (from the game's GameInfo.cell_centre and cell_outline, moved as the picture moves the drawing)."""
    info = game_info_of(state)
    *_, (dy, dx) = _layout(state, row0_at_bottom, cell, labels, caption)
    up = info.picture_up(row0_at_bottom)
    board = state.board()
    on = state.on_board() if hasattr(state, "on_board") else np.ones(board.shape, bool)
    centres = {}
    for r, c in zip(*np.nonzero(on)):
        y, x = info.cell_centre(int(r), int(c), board.shape, float(cell), up)
        centres[int(r), int(c)] = (y + dy, x + dx)
    return CellGeometry(centres, info.cell_outline(float(cell)))


def _inside(polygon: npt.NDArray[np.float64], y: float, x: float) -> bool:
    """True if (y, x) lies in the convex polygon of (y, x) corners, or on its edge."""
    crosses = [
        (bx - ax) * (y - ay) - (by - ay) * (x - ax) for (ay, ax), (by, bx) in zip(polygon, np.roll(polygon, -1, 0))
    ]
    return all(v >= -1e-9 for v in crosses) or all(v <= 1e-9 for v in crosses)


def _bounds(item: Item) -> tuple[float, float, float, float]:
    kind = item[0]
    if kind == "rect":
        return item[1:5]
    if kind == "disc":
        _, y, x, r = item[:4]
        return y - r, x - r, y + r, x + r
    if kind == "poly":
        ys, xs = zip(*item[1])
        return min(ys), min(xs), max(ys), max(xs)
    _, y, x, text, scale, _, anchor = item
    th, tw = text_size(text, scale)
    left = x - (tw / 2 if anchor == "center" else tw if anchor == "right" else 0)
    return y - th / 2, left, y + th / 2, left + tw


def _shift(item: Item, dy: float, dx: float) -> Item:
    kind = item[0]
    if kind == "rect":
        return (kind, item[1] + dy, item[2] + dx, item[3] + dy, item[4] + dx, item[5])
    if kind == "poly":
        return (kind, [(y + dy, x + dx) for y, x in item[1]]) + tuple(item[2:])
    return (kind, item[1] + dy, item[2] + dx) + tuple(item[3:])


def _fit(items: list[Item], pad: float) -> tuple[int, int, list[Item], tuple[float, float]]:
    """Move the items so their bounding box starts at (pad, pad); (height, width, items, (dy, dx) the move)."""
    b = np.array([_bounds(it) for it in items])
    y0, x0, y1, x1 = b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max()
    dy, dx = pad - y0, pad - x0
    height, width = int(math.ceil(y1 - y0 + 2 * pad)), int(math.ceil(x1 - x0 + 2 * pad))
    return height, width, [_shift(it, dy, dx) for it in items], (dy, dx)


# ---- raster ----------------------------------------------------------------------------------
def _disc(
    img: Picture,
    cy: float,
    cx: float,
    radius: float,
    color: Colour,
    outline: Colour | None = None,
    width: float | None = None,
) -> None:
    """An antialiased disc (with an outline ring of `width` pixels inside its edge, if outline)."""
    h, w, _ = img.shape
    y0, y1 = max(int(cy - radius - 1), 0), min(int(cy + radius + 2), h)
    x0, x1 = max(int(cx - radius - 1), 0), min(int(cx + radius + 2), w)
    if y0 >= y1 or x0 >= x1:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1] + 0.5
    d = np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2)
    region = img[y0:y1, x0:x1].astype(float)
    layers = [(radius, color)]
    if outline is not None:
        width = width if width is not None else max(1.0, radius / 14)
        layers = [(radius, outline), (radius - width, color)]
    for rad, col in layers:
        alpha = np.clip(rad + 0.5 - d, 0.0, 1.0)[..., None]
        region = region * (1 - alpha) + np.asarray(col, float) * alpha
    img[y0:y1, x0:x1] = np.round(region).astype(np.uint8)


def _polygon(img: Picture, pts: npt.ArrayLike, color: Colour) -> None:
    pts = np.asarray(pts, dtype=float)
    y0, x0 = np.floor(pts.min(axis=0)).astype(int)
    y1, x1 = np.ceil(pts.max(axis=0)).astype(int) + 1
    y0, x0 = max(y0, 0), max(x0, 0)
    y1, x1 = min(y1, img.shape[0]), min(x1, img.shape[1])
    if y0 >= y1 or x0 >= x1:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1] + 0.5
    pos = np.ones(yy.shape, bool)
    neg = np.ones(yy.shape, bool)
    n = len(pts)
    for i in range(n):  # convex polygon, either orientation
        (ay, ax), (by, bx) = pts[i], pts[(i + 1) % n]
        cross = (bx - ax) * (yy - ay) - (by - ay) * (xx - ax)
        pos &= cross >= 0
        neg &= cross <= 0
    img[y0:y1, x0:x1][pos | neg] = color


def _shrink(pts: npt.ArrayLike, width: float) -> npt.NDArray[np.float64]:
    """A convex polygon moved `width` pixels inwards (towards its centroid)."""
    pts = np.asarray(pts, float)
    centre = pts.mean(axis=0)
    inner = min(
        abs((b[0] - a[0]) * (centre[1] - a[1]) - (b[1] - a[1]) * (centre[0] - a[0])) / np.hypot(*(b - a))
        for a, b in zip(pts, np.roll(pts, -1, axis=0))
    )
    return centre + (pts - centre) * max(0.0, 1 - width / inner)


def rasterize(height: int, width: int, background: Colour, items: Iterable[Item]) -> Picture:
    """An RGB uint8 picture (height, width, 3) of a scene."""
    img = np.empty((height, width, 3), np.uint8)
    img[:] = background
    for it in items:
        kind = it[0]
        if kind == "rect" and it[5] is not None:
            y0, x0, y1, x1 = (int(math.floor(v + 0.5)) for v in it[1:5])
            img[max(y0, 0) : max(y1, 0), max(x0, 0) : max(x1, 0)] = it[5]
        elif kind == "disc":
            _disc(img, *it[1:])
        elif kind == "poly":
            _, pts, fill, stroke, sw = it
            if stroke is not None:
                _polygon(img, pts, stroke)
                pts = _shrink(pts, sw)
            _polygon(img, pts, fill)
        elif kind == "text":
            _, y, x, text, scale, colour, anchor = it
            draw_text(img, text, y, x, scale, colour, anchor)
    return img


def draw(
    state: State,
    name: str | None = None,
    row0_at_bottom: bool | None = None,
    cell: float = CELL,
    labels: bool = True,
    caption: str | None = None,
    highlight: Iterable[Cell] = (),
) -> Picture:
    """An RGB picture (uint8 H x W x 3) of `state`: the board with coordinates, the last move marked.

    name: ignored (the game comes from the state; kept for callers that pass the env's name);
    cell: pixels per board cell; caption: a line of text under the board; highlight: cells marked with
    a green spot.  cell_geometry says where its cells are."""
    return rasterize(*scene(state, row0_at_bottom, cell, labels, caption, highlight))


# ---- SVG -------------------------------------------------------------------------------------
def _rgb(colour: Sequence[float]) -> str:
    r, g, b = (int(v) for v in colour)
    return f"#{r:02x}{g:02x}{b:02x}"


def svg(
    state: State,
    row0_at_bottom: bool | None = None,
    cell: float = CELL,
    labels: bool = True,
    caption: str | None = None,
) -> str:
    """The picture of `state` as an SVG document (text), the same drawing as draw()."""
    height, width, background, items = scene(state, row0_at_bottom, cell, labels, caption)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
        f'<rect width="{width}" height="{height}" fill="{_rgb(background)}"/>',
    ]
    for it in items:
        kind = it[0]
        if kind == "rect" and it[5] is not None:
            _, y0, x0, y1, x1, fill = it
            out.append(
                f'<rect x="{x0:.2f}" y="{y0:.2f}" width="{x1 - x0:.2f}" height="{y1 - y0:.2f}" fill="{_rgb(fill)}"/>'
            )
        elif kind == "disc":
            _, cy, cx, r, fill, stroke = it[:6]
            if stroke is None:
                out.append(f'<circle cx="{cx:.2f}" cy="{cy:.2f}" r="{r:.2f}" fill="{_rgb(fill)}"/>')
            else:
                sw = it[6] if len(it) > 6 else max(1.0, r / 14)
                out.append(
                    f'<circle cx="{cx:.2f}" cy="{cy:.2f}" r="{r - sw / 2:.2f}" fill="{_rgb(fill)}" '
                    f'stroke="{_rgb(stroke)}" stroke-width="{sw:.2f}"/>'
                )
        elif kind == "poly":
            _, pts, fill, stroke, sw = it
            points = " ".join(f"{x:.2f},{y:.2f}" for y, x in pts)
            extra = (
                "" if stroke is None else f' stroke="{_rgb(stroke)}" stroke-width="{sw:.2f}" stroke-linejoin="round"'
            )
            out.append(f'<polygon points="{points}" fill="{_rgb(fill)}"{extra}/>')
        elif kind == "text":
            _, y, x, text, scale, colour, anchor = it
            h, w = text_size(text, scale)
            left = x - (w / 2 if anchor == "center" else w if anchor == "right" else 0)
            out.append(
                f'<text x="{left + w / 2:.2f}" y="{y:.2f}" font-size="{h * 1.35:.1f}" fill="{_rgb(colour)}" '
                'text-anchor="middle" dominant-baseline="central" font-weight="bold" '
                f'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace">{_escape(text)}</text>'
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _escape(text: object) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# ---- whole games -----------------------------------------------------------------------------
def replay(game: str | State, actions: Iterable[int], **kwargs: Any) -> list[State]:
    """The positions of a game: [start, after action 1, ...].  game: a name ("go") with the game's
    kwargs, or a State to start from (not changed).  An illegal action raises IllegalMoveError."""
    if isinstance(game, str):
        from zerogym.registry import make_state

        state = make_state(game, **kwargs)
    else:
        if kwargs:
            raise ValueError("replay: kwargs go with a game name, not with a start State")
        state = game.copy()
    states = [state.copy()]
    for a in actions:
        state.step(int(a))
        states.append(state.copy())
    return states


def result_text(state: State) -> str:
    """The result of a finished game in a few words ("black wins by 3.5", "draw"), else ""."""
    if not state.is_over():
        return ""
    if state.is_truncated():
        return "move limit: no result"
    if state.winner < 0:
        return "draw"
    info = game_info_of(state)
    return f"{info.player_words[state.winner]} wins{info.result_detail(state)}"


def move_caption(state: State) -> str:
    """A caption for a position: its move number, who played what, and the result at the end."""
    if state.move_count == 0 or state.last_action < 0:
        text = "start"
    else:
        info = game_info_of(state)
        mover = (state.move_count - 1) % 2  # players alternate (a pass or a swap is a move)
        text = f"{state.move_count}. {info.player_words[mover]} {info.move_text(state.spec, state.last_action, mover)}"
    result = result_text(state)
    return f"{text} - {result}" if result else text


def save_gif(
    states: Iterable[State],
    path: str | os.PathLike[str],
    fps: float = 2.0,
    cell: float = 24,
    labels: bool = True,
    captions: bool = True,
    hold_last: float = 2.0,
) -> str | os.PathLike[str]:
    """Write the positions `states` (e.g. replay(...)) as an animated GIF, one frame per position,
    each shown 1/fps seconds and the last one at least `hold_last` seconds; returns the path.
    Needs Pillow.  With captions=False, identical consecutive pictures (a pass) merge into one frame."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("saving a GIF needs Pillow: pip install pillow") from None
    states = list(states)
    if not states:
        raise ValueError("save_gif: no positions to draw")
    if not fps > 0:
        raise ValueError(f"save_gif: fps must be > 0, got {fps!r}")
    frames = [
        Image.fromarray(draw(st, cell=cell, labels=labels, caption=move_caption(st) if captions else None))
        for st in states
    ]
    step = max(20, int(round(1000 / fps)))
    durations = [step] * (len(frames) - 1) + [max(step, int(hold_last * 1000))]
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=durations, loop=0)
    return path


def save_svgs(
    states: Iterable[State],
    folder: str | os.PathLike[str],
    prefix: str = "position",
    cell: float = CELL,
    labels: bool = True,
    captions: bool = True,
) -> list[str]:
    """Write one SVG per position into `folder` (created if needed): prefix_000.svg, prefix_001.svg, ...;
    returns the paths in order."""
    os.makedirs(folder, exist_ok=True)
    states = list(states)
    digits = max(3, len(str(len(states) - 1)))
    paths = []
    for i, st in enumerate(states):
        path = os.path.join(folder, f"{prefix}_{i:0{digits}d}.svg")
        with open(path, "w") as f:
            f.write(svg(st, cell=cell, labels=labels, caption=move_caption(st) if captions else None))
        paths.append(path)
    return paths


def save_game(
    states: Iterable[State], path: str | os.PathLike[str], **options: Any
) -> str | os.PathLike[str] | list[str]:
    """Save positions as a GIF (path ending in .gif) or as one SVG per position (any other path: a
    folder); options go to save_gif / save_svgs.  Returns what they return."""
    if os.fspath(path).lower().endswith(".gif"):
        return save_gif(states, path, **options)
    return save_svgs(states, path, **options)


# ---- windows ---------------------------------------------------------------------------------
def show(image: Picture, window: Any, title: str) -> Any:
    """Show `image` in a pygame window (render_mode="human"); returns the window."""
    try:
        import pygame
    except ImportError:
        raise ImportError(f'render_mode="human" needs pygame: {install_command("display")}') from None
    if window is None:
        pygame.init()
        pygame.display.set_caption(title)
        window = pygame.display.set_mode((image.shape[1], image.shape[0]))
    surface = pygame.surfarray.make_surface(np.transpose(image, (1, 0, 2)))
    window.blit(surface, (0, 0))
    pygame.event.pump()
    pygame.display.flip()
    return window


def close(window: Any) -> None:
    """Close the pygame window that `show` opened."""
    import pygame

    pygame.display.quit()
