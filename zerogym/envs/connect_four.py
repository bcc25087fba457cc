"""Connect Four: `rows` x `cols`, pieces drop down a column, `connect` or more in a row wins.

The env class and how people see the game (ConnectFourInfo: red and yellow pieces in a blue frame,
row 0 on top, moves typed and printed as column numbers, the winning line's columns at the end)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zerogym._core.connect_four import ConnectFourState
from zerogym._types import Board, Cell, Colour, Item
from zerogym.envs.base import BoardGameEnv, env_factories
from zerogym.envs.game_info import Example, LineGameInfo
from zerogym.render import label_scale

if TYPE_CHECKING:
    from zerogym._core.spec import GameSpec


class ConnectFourInfo(LineGameInfo[ConnectFourState]):
    name = "connect_four"
    title = "Connect Four"
    player_words = ("red", "yellow")
    row0_at_bottom = False
    turnable = False  # pictures show the columns as they stand
    column_labels = "numbers"
    moves_name_rows = False
    example = Example(
        {}, "4 4 5 3 3 5 6 6 2 4", "print(env.render(), env.unwrapped.state.returns())  # (0.0, 0.0) for a draw"
    )

    # ---- a move is a column, typed as its number ----------------------------------------------------
    def format_action(self, spec: GameSpec, a: int) -> str:
        return str(a + 1)

    def input_help(self, spec: GameSpec) -> str:
        return f"a column number 1..{spec.obs_shape[1]}"

    def parse_action(self, spec: GameSpec, text: str) -> int:
        w = spec.obs_shape[1]
        t = "".join(str(text).split()).upper()
        for prefix in ("COLUMN", "COL"):
            if t.startswith(prefix) and t[len(prefix) :].isdecimal():
                t = t[len(prefix) :]
        if t.isdecimal() and len(t) <= 9 and 1 <= int(t) <= w:
            return int(t) - 1
        raise ValueError(f"{str(text).strip()!r} is not a column: type {self.input_help(spec)}")

    def move_text(self, spec: GameSpec, a: int, player: int | None = None) -> str:
        return f"column {self.format_action(spec, a)}"

    # ---- terminal games and pictures ----------------------------------------------------------------
    def rules_line(self, state: ConnectFourState) -> str:
        kw = state.spec.kwargs
        return f"{kw['rows']} rows x {kw['cols']} columns; {kw['connect']} in a row wins."

    def line_place(self, spec: GameSpec, line: list[Cell]) -> str:
        cols = sorted({c + 1 for _, c in line})
        return f" (column {cols[0]})" if len(cols) == 1 else f" (columns {cols[0]}-{cols[-1]})"

    def scene_items(
        self, board: Board, last: Cell | None, m: float, labels: bool, row0_at_bottom: bool
    ) -> tuple[list[Item], Colour]:
        """A blue frame with a hole per cell (row 0 on top), column numbers above."""
        h, w = board.shape
        colours = {0: (245, 245, 245), 1: (225, 40, 40), 2: (245, 200, 30)}
        items: list[Item] = [("rect", 0, 0, h * m, w * m, (30, 70, 180))]
        for r in range(h):
            for c in range(w):
                items.append(
                    (
                        "disc",
                        (r + 0.5) * m,
                        (c + 0.5) * m,
                        m * 0.4,
                        colours[board[r, c]],
                        (20, 40, 110) if board[r, c] == 0 else (90, 30, 10),
                    )
                )
        if last is not None:
            items.append(("disc", (last[0] + 0.5) * m, (last[1] + 0.5) * m, m * 0.13, (20, 20, 20), None))
        if labels:
            scale = label_scale(m)
            items += [("text", -m * 0.4, (c + 0.5) * m, str(c + 1), scale, (40, 40, 40), "center") for c in range(w)]
        return items, (245, 245, 245)


class ConnectFourEnv(BoardGameEnv):
    """Connect Four (rows=6, cols=7, connect=4); action = column index (0 = leftmost)."""

    state_class = ConnectFourState
    game_info = ConnectFourInfo()


env, raw_env = env_factories(ConnectFourEnv)
