"""Go: board_size x board_size (2..25), area scoring (Tromp-Taylor) plus komi, positional superko.

The env class and how people see the game (GoInfo: wooden board with star points, row 1 at the
bottom, the area count explained at the end)."""

from __future__ import annotations

from typing import Any

from zerogym._core.go import GoState
from zerogym._types import Board, Cell, Colour, Item
from zerogym.envs.base import BoardGameEnv, env_factories
from zerogym.envs.game_info import Example, GameInfo
from zerogym.render import grid_items


def star_points(h: int, w: int) -> list[Cell]:
    """Star points of a square Go board: the 3-3 (4-4 from 13x13) corners, the centre of odd
    boards from 7x7, and the side midpoints from 15x15."""
    if h != w or h < 7:
        return []
    e = 2 if h < 13 else 3
    pts = [(e, e), (e, h - 1 - e), (h - 1 - e, e), (h - 1 - e, h - 1 - e)]
    if h % 2:
        mid = h // 2
        pts.append((mid, mid))
        if h >= 15:
            pts += [(e, mid), (mid, e), (mid, h - 1 - e), (h - 1 - e, mid)]
    return pts


class GoInfo(GameInfo[GoState]):
    name = "go"
    title = "Go"
    history_free = False  # positional superko and the move limit depend on the game so far
    turnable = False  # pictures put rank 1 at the bottom, as GTP and the coordinates do
    example = Example(
        {"board_size": 9},
        "E5 D5 C5 F4 D4 C7 D6 G6 E3 F5 E6 F6 C3 E7",
        "print(env.render(), info)  # the final board; info: score (black - white - komi) and areas",
    )

    def rules_line(self, state: GoState) -> str:
        kw = state.spec.kwargs
        return (
            f"{kw['board_size']}x{kw['board_size']}, komi {kw['komi']:g}, area scoring; two passes in a row "
            "end the game (play it out: dead stones are not removed)."
        )

    def score_lines(self, state: GoState) -> list[str]:
        board = state.board()
        stones = [int((board == 1).sum()), int((board == 2).sum())]
        area = state.area()
        komi = state.spec.kwargs["komi"]
        terr = [area[0] - stones[0], area[1] - stones[1]]
        lines = [
            "Area scoring (Tromp-Taylor): stones on the board + empty points reached by that colour only:",
            f"  black: {stones[0]} stones + {terr[0]} territory = {area[0]}",
            f"  white: {stones[1]} stones + {terr[1]} territory + {komi:g} komi = {area[1] + komi:g}",
        ]
        score = state.score()
        if state.is_truncated():
            lines.append(f"The game reached the move limit (max_moves={state.spec.kwargs['max_moves']}): no result.")
        elif score == 0:
            lines.append("Equal scores: a draw.")
        else:
            lines.append(f"{'Black' if score > 0 else 'White'} wins by {abs(score):g}.")
        return lines

    def result_detail(self, state: GoState) -> str:
        return f" by {abs(state.score()):g}"

    def scene_items(
        self, board: Board, last: Cell | None, m: float, labels: bool, row0_at_bottom: bool
    ) -> tuple[list[Item], Colour]:
        wood, ink = (220, 180, 100), (40, 30, 20)
        return grid_items(board, last, m, labels, True, True, (wood, wood, ink, ink), stars=star_points(*board.shape))


class GoEnv(BoardGameEnv):
    """Go (board_size=19, komi=7.5, superko="positional" or "simple", max_moves=None meaning
    2 * board_size**2); agents black_0 (first) and white_0; action r * N + c (row 0 = rank 1),
    N * N = pass.  At the end both agents' info holds score (black - white - komi), black_area
    and white_area."""

    state_class = GoState
    game_info = GoInfo()
    state: GoState

    def final_info(self) -> dict[str, Any]:
        black, white = self.state.area()
        return {"score": self.state.score(), "black_area": black, "white_area": white}


env, raw_env = env_factories(GoEnv)
