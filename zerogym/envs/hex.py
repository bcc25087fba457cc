"""Hex: `board_size` x `board_size` rhombus; black connects top-bottom, white left-right; optional swap.

The env class and how people see the game (HexInfo: a rhombus of hexagons with the players' edges
coloured, row 1 at the top, rows shifted right on text boards, the swap and the winning chain in
words)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from zerogym._core.hex import HexState
from zerogym._types import Board, Cell, Colour, Item
from zerogym.coords import COLUMNS
from zerogym.envs.base import BoardGameEnv, env_factories
from zerogym.envs.game_info import Example, GameInfo
from zerogym.render import MARK, OUTLINE, STONE, label_scale

if TYPE_CHECKING:
    from zerogym._core.spec import GameSpec


class HexInfo(GameInfo[HexState]):
    name = "hex"
    title = "Hex"
    row0_at_bottom = False
    hex_rows = True
    example = Example({"board_size": 11}, "D3 swap F6 E8 G4 D7 E6 F7 F5 H3",
                      "print(env.render(), env.unwrapped.state.returns())  # (1.0, -1.0) if black won")

    def rules_line(self, state: HexState) -> str:
        kw = state.spec.kwargs
        return (f"{kw['board_size']}x{kw['board_size']}; black joins top and bottom, white left and right"
                + ("; white may swap instead of its first move." if kw["swap"] else "."))

    def swap_line(self, name: str, spec: GameSpec, history: list[tuple[int, int]]) -> str:
        n = spec.kwargs["board_size"]
        r, c = divmod(history[0][1], n)
        return (f"{name} swaps: the black stone on {self.format_action(spec, r * n + c)} becomes a white "
                f"stone on {self.format_action(spec, c * n + r)}, and black moves again.")

    def score_lines(self, state: HexState) -> list[str]:
        if state.winner < 0:
            return super().score_lines(state)
        who = self.player_name(state.winner)
        path = state.winning_path() or []
        sides = "top and bottom" if state.winner == 0 else "left and right"
        chain = " ".join(self.format_action(state.spec, r * state.board().shape[1] + c) for r, c in path)
        return [f"{who[0].upper()}{who[1:]} connected {sides}: {chain}."]

    def scene_items(self, board: Board, last: Cell | None, m: float, labels: bool,
                    row0_at_bottom: bool) -> tuple[list[Item], Colour]:
        """A rhombus of pointy-top hexagons; row r+1 sits half a cell right of row r; black's edges
        (top and bottom) and white's (left and right) as coloured borders."""
        n = board.shape[0]
        s = m * 0.55
        dx, dy = s * math.sqrt(3), s * 1.5

        def centre(r: float, c: float) -> tuple[float, float]:
            return r * dy, c * dx + r * dx / 2

        tl, tr, bl, br = centre(-1, -1), centre(-1, n), centre(n, -1), centre(n, n)
        mid = centre((n - 1) / 2, (n - 1) / 2)
        black, white = (40, 40, 40), (250, 250, 250)
        items: list[Item] = [("poly", [tl, tr, mid], black, None, 0), ("poly", [bl, br, mid], black, None, 0),
                 ("poly", [tl, bl, mid], white, None, 0), ("poly", [tr, br, mid], white, None, 0)]
        corners = [(math.sin(t) * s, math.cos(t) * s) for t in np.deg2rad(np.arange(6) * 60 - 90)]
        lw = max(1.5, m / 24)
        for r in range(n):
            for c in range(n):
                cy, cx = centre(r, c)
                items.append(("poly", [(cy + y, cx + x) for y, x in corners], (205, 175, 120), (90, 75, 50), lw))
                if board[r, c]:
                    items.append(("disc", cy, cx, s * 0.68, STONE[board[r, c]], OUTLINE))
        if last is not None:
            items.append(("disc", *centre(*last), s * 0.22, MARK, None))
        if labels:
            sc = label_scale(m)
            for c in range(n):
                y, x = centre(-1, c)
                items.append(("text", y - dy * 0.35, x + dx / 2, COLUMNS[c], sc, (60, 50, 40), "center"))
            for r in range(n):
                y, x = centre(r, -1)
                items.append(("text", y, x - dx * 0.3, str(r + 1), sc, (60, 50, 40), "right"))
        return items, (225, 210, 180)


class HexEnv(BoardGameEnv):
    """Hex (board_size=11, swap=True); action r * N + c, N * N = swap (second move only, when swap)."""

    metadata = dict(BoardGameEnv.metadata, name="hex_v0")
    state_class = HexState
    game_info = HexInfo()


env, raw_env = env_factories(HexEnv)
