"""Rendering: text boards with coordinates, and RGB pictures (numpy only) for every game."""
import numpy as np

from zerogym.coords import COLUMNS

CELL = 36  # pixels per board cell


# ---- text ------------------------------------------------------------------------------------
def last_point(state):
    """(row, col) of the last move's piece, or None (pass, swap, start)."""
    if hasattr(state, "last_point"):
        return state.last_point()
    h, w, _ = state.spec.obs_shape
    a = state.last_action
    return divmod(a, w) if 0 <= a < h * w else None


def text_board(state, symbols=".XO", row0_at_bottom=True, hex=False, column_labels="letters"):
    """The board as text: column labels, row numbers, the last move in brackets."""
    board = state.board()
    h, w = board.shape
    last = last_point(state)
    labels = [COLUMNS[c] if column_labels == "letters" else str(c + 1) for c in range(w)]
    pad = len(str(h)) + 1
    lines = [" " * pad + "".join(f"{lab:>2}"[-2:] for lab in labels)]
    order = range(h - 1, -1, -1) if row0_at_bottom else range(h)
    for r in order:
        chars = list(" " * (2 * w + 1))
        for c in range(w):
            chars[2 * c + 1] = symbols[board[r, c]]
        if last is not None and last[0] == r:
            chars[2 * last[1]] = "["
            chars[2 * last[1] + 2] = "]"
        indent = " " * r if hex else ""
        lines.append(f"{r + 1:>{pad}}" + indent + "".join(chars).rstrip() + ("" if hex else f" {r + 1}"))
    if not hex:
        lines.append(lines[0])
    to_move = state.spec.agents[state.current_player]
    status = "game over" if state.is_over() else f"{to_move} to move"
    lines.append(f"move {state.move_count}, {status}")
    return "\n".join(lines)


# ---- pictures --------------------------------------------------------------------------------
def _disc(img, cy, cx, radius, color, outline=None):
    h, w, _ = img.shape
    y0, y1 = max(int(cy - radius - 1), 0), min(int(cy + radius + 2), h)
    x0, x1 = max(int(cx - radius - 1), 0), min(int(cx + radius + 2), w)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d = np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2)
    region = img[y0:y1, x0:x1]
    if outline is not None:
        region[d <= radius] = outline
        region[d <= radius - 1.5] = color
    else:
        region[d <= radius] = color


def _polygon(img, pts, color):
    pts = np.asarray(pts, dtype=float)
    y0, x0 = np.floor(pts.min(axis=0)).astype(int)
    y1, x1 = np.ceil(pts.max(axis=0)).astype(int) + 1
    y0, x0 = max(y0, 0), max(x0, 0)
    y1, x1 = min(y1, img.shape[0]), min(x1, img.shape[1])
    yy, xx = np.mgrid[y0:y1, x0:x1] + 0.5
    pos = np.ones(yy.shape, bool)
    neg = np.ones(yy.shape, bool)
    n = len(pts)
    for i in range(n):            # convex polygon, either orientation
        (ay, ax), (by, bx) = pts[i], pts[(i + 1) % n]
        cross = (bx - ax) * (yy - ay) - (by - ay) * (xx - ax)
        pos &= cross >= -0.5
        neg &= cross <= 0.5
    img[y0:y1, x0:x1][pos | neg] = color


STONE = {1: (20, 20, 20), 2: (240, 240, 240)}
MARK = (220, 40, 40)


def _grid_game(board, last, background, line, hoshi=False, lines_on_points=True, row0_at_bottom=True):
    h, w = board.shape
    m = CELL
    img = np.empty((h * m + m, w * m + m, 3), np.uint8)
    img[:] = background
    off = m   # centre of point / cell (0, 0) on screen
    if lines_on_points:   # Go: lines through points
        for r in range(h):
            img[off + r * m, off:off + (w - 1) * m + 1] = line
        for c in range(w):
            img[off:off + (h - 1) * m + 1, off + c * m] = line
    else:                 # cells
        for r in range(h + 1):
            img[m // 2 + r * m, m // 2:m // 2 + w * m + 1] = line
        for c in range(w + 1):
            img[m // 2:m // 2 + h * m + 1, m // 2 + c * m] = line
    if hoshi and h == w and h >= 7:
        e = 2 if h < 13 else 3
        pts = {e, h // 2, h - 1 - e} if h % 2 else {e, h - 1 - e}
        for r in pts:
            for c in pts:
                _disc(img, off + r * m, off + c * m, 3, line)
    for r in range(h):
        for c in range(w):
            if board[r, c]:
                y, x = off + ((h - 1 - r) if row0_at_bottom else r) * m, off + c * m
                _disc(img, y, x, m * 0.45, STONE[board[r, c]], outline=(0, 0, 0))
    if last is not None:
        r, c = last
        _disc(img, off + ((h - 1 - r) if row0_at_bottom else r) * m, off + c * m, m * 0.12, MARK)
    return img


def _hex_game(board, last):
    n = board.shape[0]
    s = CELL * 0.55                     # hexagon radius
    dx, dy = s * np.sqrt(3), s * 1.5    # pointy-top hexagons; row r+1 sits half a cell to the right
    width = int(dx * (n + (n - 1) / 2) + 2 * CELL)
    height = int(dy * (n - 1) + 2 * s + 2 * CELL)
    img = np.empty((height, width, 3), np.uint8)
    img[:] = (235, 225, 200)

    def centre(r, c):
        return CELL + s + r * dy, CELL + dx / 2 + c * dx + r * dx / 2

    # each player's edges as bands along the rhombus: black top and bottom, white left and right
    band = s * 0.9
    for (r0, c0), (r1, c1), (oy, ox), color in [
            ((0, 0), (0, n - 1), (-1.0, 0.0), STONE[1]), ((n - 1, 0), (n - 1, n - 1), (1.0, 0.0), STONE[1]),
            ((0, 0), (n - 1, 0), (0.0, -1.0), STONE[2]), ((0, n - 1), (n - 1, n - 1), (0.0, 1.0), STONE[2])]:
        (ay, ax), (by, bx) = centre(r0, c0), centre(r1, c1)
        near, far = band, band + s * 0.5
        _polygon(img, [(ay + oy * near, ax + ox * near), (by + oy * near, bx + ox * near),
                       (by + oy * far, bx + ox * far), (ay + oy * far, ax + ox * far)], color)
    angles = np.deg2rad(np.arange(6) * 60 - 90)
    for r in range(n):
        for c in range(n):
            cy, cx = centre(r, c)
            _polygon(img, [(cy + s * np.sin(t), cx + s * np.cos(t)) for t in angles], (90, 80, 60))
            _polygon(img, [(cy + (s - 2) * np.sin(t), cx + (s - 2) * np.cos(t)) for t in angles], (200, 170, 110))
            if board[r, c]:
                _disc(img, cy, cx, s * 0.7, STONE[board[r, c]], outline=(0, 0, 0))
            if last == (r, c):
                _disc(img, cy, cx, s * 0.2, MARK)
    return img


def _connect_four(board, last):
    h, w = board.shape
    m = CELL
    img = np.empty((h * m + m, w * m + m, 3), np.uint8)
    img[:] = (245, 245, 245)
    img[m // 2:m // 2 + h * m, m // 2:m // 2 + w * m] = (30, 70, 180)
    colors = {0: (245, 245, 245), 1: (230, 40, 40), 2: (240, 200, 30)}
    for r in range(h):
        for c in range(w):
            _disc(img, m + r * m, m + c * m, m * 0.4, colors[board[r, c]])
    if last is not None:
        _disc(img, m + last[0] * m, m + last[1] * m, m * 0.12, (20, 20, 20))
    return img


def draw(state, name, row0_at_bottom=True):
    """An RGB picture (uint8 H x W x 3) of `state`; `name` is the env's metadata name."""
    board, last = state.board(), last_point(state)
    if name.startswith("go"):
        return _grid_game(board, last, (220, 180, 100), (40, 30, 20), hoshi=True)
    if name.startswith("hex"):
        return _hex_game(board, last)
    if name.startswith("connect_four"):
        return _connect_four(board, last)
    if name.startswith("othello"):
        return _grid_game(board, last, (30, 120, 60), (10, 40, 20), lines_on_points=False,
                          row0_at_bottom=row0_at_bottom)
    return _grid_game(board, last, (235, 235, 225), (60, 60, 60), lines_on_points=False,
                      row0_at_bottom=row0_at_bottom)


def show(image, window, title):
    """Show `image` in a pygame window (render_mode="human"); returns the window."""
    try:
        import pygame
    except ImportError:
        raise ImportError('render_mode="human" needs pygame: pip install "zerogym[display]"') from None
    if window is None:
        pygame.init()
        pygame.display.set_caption(title)
        window = pygame.display.set_mode((image.shape[1], image.shape[0]))
    surface = pygame.surfarray.make_surface(np.transpose(image, (1, 0, 2)))
    window.blit(surface, (0, 0))
    pygame.event.pump()
    pygame.display.flip()
    return window


def close(window):
    import pygame
    pygame.display.quit()
