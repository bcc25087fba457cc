"""Havannah: a hexagon of side `board_size`; a ring, a bridge (two corners) or a fork (three sides) wins.

The env class and how people see the game (HavannahInfo: a hexagon of hexagons in its square grid,
row 1 at the top and rows shifted right on text boards as in Hex, the corners marked, the winning
shapes named at the end)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from zerogym._core.havannah import HavannahState
from zerogym._types import Board, Cell, Colour, Item
from zerogym.envs.base import BoardGameEnv, env_factories
from zerogym.envs.game_info import Example, GameInfo
from zerogym.render import MARK, OUTLINE, STONE, label_scale

if TYPE_CHECKING:
    from zerogym._core.spec import GameSpec


class HavannahInfo(GameInfo[HavannahState]):
    name = "havannah"
    title = "Havannah"
    row0_at_bottom = False
    hex_rows = True
    example = Example({"board_size": 4}, "D3 D4 E3 F2 E4 B6 D5 G3 C5 A5 C4",
                      "print(env.render(), env.unwrapped.state.returns())  # (1.0, -1.0) if black won")

    def rules_line(self, state: HavannahState) -> str:
        kw = state.spec.kwargs
        return (f"hexagon of side {kw['board_size']}; a ring, a bridge (two corners) or a fork (three sides) wins"
                + ("; white may swap instead of its first move." if kw["swap"] else "."))

    def swap_line(self, name: str, spec: GameSpec, history: list[tuple[int, int]]) -> str:
        cell = self.format_action(spec, history[0][1])
        return f"{name} swaps: the black stone on {cell} becomes white, and black moves again."

    def score_lines(self, state: HavannahState) -> list[str]:
        if state.winner < 0:
            return ["The board is full and nobody made a ring, bridge or fork: a draw."]
        who = self.player_name(state.winner)
        shapes = " and a ".join(state.winning_shapes())
        d = state.board().shape[1]
        group = " ".join(self.format_action(state.spec, r * d + c) for r, c in state.winning_group() or [])
        return [f"{who[0].upper()}{who[1:]} made a {shapes}: {group}."]

    def scene_items(self, board: Board, last: Cell | None, m: float, labels: bool,
                    row0_at_bottom: bool) -> tuple[list[Item], Colour]:
        """The hexagon's cells as pointy-top hexagons, row r+1 half a cell right of row r, the six
        corners darker; each column's letter above its cell on the top row or below its cell on the bottom
        row, row numbers left of each row."""
        d = board.shape[0]
        n = (d + 1) // 2
        s = m * 0.55
        dx, dy = s * math.sqrt(3), s * 1.5

        def centre(r: float, c: float) -> tuple[float, float]:
            return r * dy, c * dx + r * dx / 2

        corners = {(0, n - 1), (0, d - 1), (n - 1, d - 1), (d - 1, n - 1), (d - 1, 0), (n - 1, 0)}
        points = [(math.sin(t) * s, math.cos(t) * s) for t in np.deg2rad(np.arange(6) * 60 - 90)]
        lw = max(1.5, m / 24)
        items: list[Item] = []
        for r in range(d):
            for c in range(max(0, n - 1 - r), min(d, 3 * n - 2 - r)):
                cy, cx = centre(r, c)
                fill = (180, 150, 100) if (r, c) in corners else (205, 175, 120)
                items.append(("poly", [(cy + y, cx + x) for y, x in points], fill, (90, 75, 50), lw))
                if board[r, c]:
                    items.append(("disc", cy, cx, s * 0.68, STONE[board[r, c]], OUTLINE))
        if last is not None:
            items.append(("disc", *centre(*last), s * 0.22, MARK, None))
        if labels:
            sc, ink = label_scale(m), (60, 50, 40)
            letters = self.column_letters()
            for c in range(d):           # columns run down to the right: from the top row, or to the bottom one
                y, x = centre(-1, c) if c >= n - 1 else centre(d, c)
                items.append(("text", y + (dy if c >= n - 1 else -dy) * 0.15, x, letters[c], sc, ink, "center"))
            for r in range(d):
                y, x = centre(r, max(0, n - 1 - r) - 1)
                items.append(("text", y, x + dx * 0.2, str(r + 1), sc, ink, "right"))
        return items, (225, 210, 180)


class HavannahEnv(BoardGameEnv):
    """Havannah (board_size=8, swap=False); action r * D + c on the D x D grid (D = 2 * board_size - 1)
    holding the hexagon, D * D = swap (second move only, when swap)."""

    metadata = dict(BoardGameEnv.metadata, name="havannah_v0")
    state_class = HavannahState
    game_info = HavannahInfo()


env, raw_env = env_factories(HavannahEnv)
