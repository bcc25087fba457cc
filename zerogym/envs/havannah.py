"""Havannah: a hexagon of side `board_size`; a ring, a bridge (two corners) or a fork (three sides) wins.

The env class and how people see the game (HavannahInfo: a hexagon of hexagons in its square grid,
row 1 at the top and rows shifted right on text boards as in Hex, each column's letter just past both
of its ends, the corners marked, the winning shapes named at the end)."""

from __future__ import annotations

from zerogym._core.havannah import HavannahState
from zerogym._types import Board, Cell, Colour, Item
from zerogym.envs.base import BoardGameEnv, env_factories
from zerogym.envs.game_info import Example, HexGameInfo
from zerogym.render import HEX_BACKGROUND, HEX_CELL, hex_centre, hex_items, hex_steps, label_scale


class HavannahInfo(HexGameInfo[HavannahState]):
    name = "havannah"
    title = "Havannah"
    example = Example({"board_size": 4}, "D3 D4 E3 F2 E4 B6 D5 G3 C5 A5 C4")

    goal = "hexagon of side {board_size}; a ring, a bridge (two corners) or a fork (three sides) wins"
    draw_line = "The board is full and nobody made a ring, bridge or fork: a draw."

    def win_deed(self, state: HavannahState) -> str:
        shapes = " and a ".join(state.winning_shapes())
        d = state.board().shape[1]
        group = " ".join(self.format_action(state.spec, r * d + c) for r, c in state.winning_group() or [])
        return f"made a {shapes}: {group}"

    def scene_items(
        self, board: Board, last: Cell | None, m: float, labels: bool, row0_at_bottom: bool
    ) -> tuple[list[Item], Colour]:
        """The hexagon's cells as pointy-top hexagons, row r+1 half a cell right of row r, the six
        corners darker; each column's letter above its cell on the top row or below its cell on the bottom
        row, row numbers left of each row."""
        d = board.shape[0]
        n = (d + 1) // 2
        _, dx, dy = hex_steps(m)
        corners = {(0, n - 1), (0, d - 1), (n - 1, d - 1), (d - 1, n - 1), (d - 1, 0), (n - 1, 0)}
        items = hex_items(
            board,
            [
                (r, c, (180, 150, 100) if (r, c) in corners else HEX_CELL)
                for r in range(d)
                for c in range(max(0, n - 1 - r), min(d, 3 * n - 2 - r))
            ],
            last,
            m,
        )
        if labels:
            sc, ink = label_scale(m), (60, 50, 40)
            letters = self.column_letters()
            for c in range(d):  # columns run down to the right: from the top row, or to the bottom one
                y, x = hex_centre(-1, c, m) if c >= n - 1 else hex_centre(d, c, m)
                items.append(("text", y + (dy if c >= n - 1 else -dy) * 0.15, x, letters[c], sc, ink, "center"))
            for r in range(d):
                y, x = hex_centre(r, max(0, n - 1 - r) - 1, m)
                items.append(("text", y, x + dx * 0.2, str(r + 1), sc, ink, "right"))
        return items, HEX_BACKGROUND


class HavannahEnv(BoardGameEnv):
    """Havannah (board_size=8, swap=False); action r * D + c on the D x D grid (D = 2 * board_size - 1)
    holding the hexagon, D * D = swap (second move only, when swap)."""

    state_class = HavannahState
    game_info = HavannahInfo()


env, raw_env = env_factories(HavannahEnv)
