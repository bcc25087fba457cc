"""Hex: `board_size` x `board_size` rhombus; black connects top-bottom, white left-right; optional swap.

The env class and how people see the game (HexInfo: a rhombus of hexagons with the players' edges
coloured, row 1 at the top, rows shifted right on text boards, the swap and the winning chain in
words)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zerogym._core.hex import HexState
from zerogym._types import Board, Cell, Colour, Item
from zerogym.coords import COLUMNS
from zerogym.envs.base import BoardGameEnv, env_factories
from zerogym.envs.game_info import Example, HexGameInfo
from zerogym.render import HEX_BACKGROUND, HEX_CELL, hex_centre, hex_items, hex_steps, label_scale

if TYPE_CHECKING:
    from zerogym._core.spec import GameSpec


class HexInfo(HexGameInfo[HexState]):
    name = "hex"
    title = "Hex"
    example = Example({"board_size": 11}, "D3 swap F6 E8 G4 D7 E6 F7 F5 H3")

    goal = "{board_size}x{board_size}; black joins top and bottom, white left and right"

    def swapped(self, spec: GameSpec, a: int) -> str:
        """A white stone on the mirror image of black's (the swap of the rules)."""
        r, c = divmod(a, spec.kwargs["board_size"])
        return f"a white stone on {self.format_action(spec, c * spec.kwargs['board_size'] + r)}"

    def win_deed(self, state: HexState) -> str:
        path = state.winning_path() or []
        sides = "top and bottom" if state.winner == 0 else "left and right"
        chain = " ".join(self.format_action(state.spec, r * state.board().shape[1] + c) for r, c in path)
        return f"connected {sides}: {chain}"

    def scene_items(
        self, board: Board, last: Cell | None, m: float, labels: bool, row0_at_bottom: bool
    ) -> tuple[list[Item], Colour]:
        """A rhombus of pointy-top hexagons; row r+1 sits half a cell right of row r; black's edges
        (top and bottom) and white's (left and right) as coloured borders."""
        n = board.shape[0]
        _, dx, dy = hex_steps(m)
        tl, tr, bl, br = hex_centre(-1, -1, m), hex_centre(-1, n, m), hex_centre(n, -1, m), hex_centre(n, n, m)
        mid = hex_centre((n - 1) / 2, (n - 1) / 2, m)
        black, white = (40, 40, 40), (250, 250, 250)
        items: list[Item] = [
            ("poly", [tl, tr, mid], black, None, 0),
            ("poly", [bl, br, mid], black, None, 0),
            ("poly", [tl, bl, mid], white, None, 0),
            ("poly", [tr, br, mid], white, None, 0),
        ]
        items += hex_items(board, [(r, c, HEX_CELL) for r in range(n) for c in range(n)], last, m)
        if labels:
            sc = label_scale(m)
            for c in range(n):
                y, x = hex_centre(-1, c, m)
                items.append(("text", y - dy * 0.35, x + dx / 2, COLUMNS[c], sc, (60, 50, 40), "center"))
            for r in range(n):
                y, x = hex_centre(r, -1, m)
                items.append(("text", y, x - dx * 0.3, str(r + 1), sc, (60, 50, 40), "right"))
        return items, HEX_BACKGROUND


class HexEnv(BoardGameEnv):
    """Hex (board_size=11, swap=True); action r * N + c, N * N = swap (second move only, when swap)."""

    state_class = HexState
    game_info = HexInfo()


env, raw_env = env_factories(HexEnv)
