"""Breakthrough: `rows` x `cols`, two full rows each; reach the far row or capture every enemy piece.

The env class and how people see the game (BreakthroughInfo: row 1 at the top, where black
(player 0) starts; lower-case column letters as in chess; a move typed from-to, "c2-c3" or
"c2c3"; the result says how it was won)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from zerogym._core.breakthrough import MOVE_OFFSETS, BreakthroughState
from zerogym.envs.base import BoardGameEnv, env_factories
from zerogym.envs.game_info import Example, GameInfo

if TYPE_CHECKING:
    from zerogym._core.spec import GameSpec

_MOVE = re.compile(r"^([a-z])(\d{1,9})[-x:]?(off|[a-z])(\d{0,9})$")


class BreakthroughInfo(GameInfo[BreakthroughState]):
    name = "breakthrough"
    title = "Breakthrough"
    row0_at_bottom = False
    column_labels = "lowercase"
    board_colours = ((235, 225, 200), (222, 196, 150), (120, 90, 50), (70, 50, 30))
    example = Example({"rows": 6, "cols": 6}, "d2-e3 c5-c4 e2-d3 c4xd3 c2xd3 d5-c4 d3xc4 b5xc4 a2-a3 c4-d3 a3-a4 e5-e4")

    # ---- a move is a piece's cell and where it goes ----------------------------------------------
    def format_action(self, spec: GameSpec, a: int) -> str:
        """Without knowing who moves: the cell and the column it moves to, "c2-d" ("a2-off" off the side)."""
        return spec.action_name(a)

    def format_move(self, spec: GameSpec, a: int, player: int) -> str:
        """From-to, "c2-d3", for `player`'s move (player 0 moves toward higher rows)."""
        cols, rows = spec.kwargs["cols"], spec.kwargs["rows"]
        cell, d = divmod(a, spec.actions_per_cell)
        (r, c), (dr, dc) = divmod(cell, cols), MOVE_OFFSETS[d]  # the spec's move_offsets
        rr, cc = r + dr * (1 - 2 * player), c + dc
        if not (0 <= rr < rows and 0 <= cc < cols):
            return self.format_action(spec, a)
        letters = self.column_letters()
        return f"{letters[c]}{r + 1}-{letters[cc]}{rr + 1}"

    def input_help(self, spec: GameSpec) -> str:
        cols, rows = spec.kwargs["cols"], spec.kwargs["rows"]
        return (
            f"a move from-to: the piece's column letter a..{self.column_letters()[cols - 1]} and row "
            f"1..{rows}, then the cell one row forward it goes to, like c2-c3 or c2c3 (c2xd3 for a capture)"
        )

    def parse_action(self, spec: GameSpec, text: str) -> int:
        """The action of "c2-c3", "c2c3", "c2xd3" (the destination row, one row forward either way, may
        be left out: "c2-d"), or "a2-off"; ValueError saying what is allowed."""
        cols, rows = spec.kwargs["cols"], spec.kwargs["rows"]
        letters = self.column_letters()[:cols]
        t = "".join(str(text).split()).lower()
        m = _MOVE.match(t)
        why = ""
        if m and m.group(1) in letters and 1 <= int(m.group(2)) <= rows:
            r, c = int(m.group(2)) - 1, letters.index(m.group(1))
            if m.group(3) == "off":
                if not m.group(4) and c in (0, cols - 1):
                    return (r * cols + c) * 3 + (0 if c == 0 else 2)
                why = "only a piece on an edge column can name a move off the board; "
            elif m.group(3) in letters and abs(letters.index(m.group(3)) - c) <= 1:
                if not m.group(4) or abs(int(m.group(4)) - 1 - r) == 1:
                    return (r * cols + c) * 3 + letters.index(m.group(3)) - c + 1
                why = "a piece moves one row forward; "
            else:
                why = "a piece moves to its own column or a neighbouring one; "
        elif m:
            why = f"off the {rows}x{cols} board; "
        raise ValueError(f"{str(text).strip()!r} is not a move: {why}type {self.input_help(spec)}")

    # ---- terminal games and pictures ----------------------------------------------------------------
    def rules_line(self, state: BreakthroughState) -> str:
        kw = state.spec.kwargs
        return (
            f"{kw['rows']}x{kw['cols']}; black starts on rows 1-2 and moves down, white moves up; reach the "
            f"far row or capture every enemy piece to win."
        )

    def win_deed(self, state: BreakthroughState) -> str:
        if state.counts()[1 - state.winner] == 0:
            return f"captured every {self.player_words[1 - state.winner]} piece"
        return f"reached row {state.spec.kwargs['rows'] if state.winner == 0 else 1}"


class BreakthroughEnv(BoardGameEnv):
    """Breakthrough (rows=8, cols=8); action (r * cols + c) * 3 + d moves the piece on (r, c) to
    column c - 1, c or c + 1 of the next row toward the opponent."""

    state_class = BreakthroughState
    game_info = BreakthroughInfo()


env, raw_env = env_factories(BreakthroughEnv)
