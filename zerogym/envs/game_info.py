"""GameInfo: what the Python side knows of a game besides its compiled rules.

Each game's module, zerogym/envs/<game>.py, holds its env class and a GameInfo subclass: how people
see the game (title, player names and words, coordinate labels, which way up the board is drawn,
how a move is typed and printed, the rules line and the score explained at the end of a terminal
game, the picture's scene), the example of its docs page, and the facts other tools ask about
(history_free).  The env class holds one (`GoEnv.game_info`), bound to the game's State class where
the module defines the env, so that a state, a spec or an env leads to it without a name
(zerogym.envs.binding.game_info_of; a game named by a person: zerogym.registry.game_info).  The
shared code (zerogym.coords, zerogym.render, zerogym.play, zerogym.gamedocs) takes every per-game
fact from there and never branches on a game's name.

The defaults below are the conventions most games follow: a board of cells named by a column
letter (A.., no I) and a row number (action r * W + c is the cell at row r, column c), the spec's
pass_action and swap_action named "pass" and "swap", black and white players, row 1 at the bottom,
stones on a board of squares.  A game overrides what it does otherwise.  A GameInfo is generic in
its game's State class (GoInfo is a GameInfo[GoState]): the methods that take a state take that one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, TypeVar

from zerogym._core.state import State
from zerogym._types import Board, Cell, Colour, Example, Item
from zerogym.coords import COLUMNS
from zerogym.render import grid_items, hex_centre, hex_corners, last_point

if TYPE_CHECKING:
    from zerogym._core.spec import GameSpec

SPECIAL_NAMES = ("pass", "swap")  # the names of spec.pass_action and spec.swap_action
StateT = TypeVar("StateT", bound=State)


def _row(text: str) -> bool:
    """True if `text` is a row number int() reads (decimal digits, not too many of them)."""
    return text.isdecimal() and len(text) <= 9


def winning_line(state: State) -> list[Cell]:
    """The cells (row, col) of the longest line through the last piece, in order."""
    board, last = state.board(), last_point(state)
    if last is None:
        return []
    h, w = board.shape
    colour = board[last]
    best = [last]
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        cells = [last]
        for sign in (1, -1):
            r, c = last[0] + sign * dr, last[1] + sign * dc
            while 0 <= r < h and 0 <= c < w and board[r, c] == colour:
                cells.append((r, c))
                r, c = r + sign * dr, c + sign * dc
        if len(cells) > len(best):
            best = sorted(cells, key=lambda rc: (rc[1], rc[0]) if dc else rc)
    return [(int(r), int(c)) for r, c in best]


class GameInfo(Generic[StateT]):
    """One game as people see it, and the facts tools ask about it; subclass it per game."""

    name: str  # the registry name ("go"): every game sets it
    title: str  # the game's name in a sentence ("Go", "Tic-tac-toe"): every game sets it
    player_words = ("black", "white")  # the players in captions and results ("red wins")
    colours: tuple[str, str] | None = ("black", "white")  # zerogym.play's "black (X)"; None: only "X", "O"
    symbols = ".XO"  # text boards: empty, first player, second player
    row0_at_bottom = True  # row 0 (row 1 as typed) is drawn at the bottom
    hex_rows = False  # text boards shift row r by r spaces (Hex's rhombus)
    column_labels = "letters"  # "letters", "lowercase" letters or "numbers"
    moves_name_rows = True  # a typed move names a row (False: a column alone, as in Connect Four)
    board_colours: tuple[Colour, Colour, Colour, Colour] = (  # background, surface, line, ink
        (235, 235, 225),
        (235, 235, 225),
        (60, 60, 60),
        (60, 60, 60),
    )
    marks = False  # pictures draw X and O marks instead of stones
    history_free = True  # a position's future depends on the board and the player to move alone
    example: Example  # the docs page's Example: every game sets it
    size_probe: dict[str, Any] = {}  # kwargs that let every board size be tried on its own (gamedocs)
    draw_line = "A draw."  # score_lines' words for a drawn game
    turnable = True  # False: pictures put row 0 where row0_at_bottom says, whatever their caller asks

    # ---- coordinates (zerogym.coords) ----------------------------------------------------------
    def column_letters(self) -> str:
        """The column letters of the boards, in the case the game writes them."""
        return COLUMNS.lower() if self.column_labels == "lowercase" else COLUMNS

    def format_action(self, spec: GameSpec, a: int) -> str:
        """The name a person types for action `a` (in range): "D4", "pass", "swap"."""
        for special, name in zip((spec.pass_action, spec.swap_action), SPECIAL_NAMES):
            if a == special:
                return name
        w = spec.obs_shape[1]
        return f"{self.column_letters()[a % w]}{a // w + 1}"

    def format_move(self, spec: GameSpec, a: int, player: int) -> str:
        """The name of action `a` played by `player` (0 or 1), where a game's names depend on who
        moves (Breakthrough's destination row); by default format_action's."""
        return self.format_action(spec, a)

    def input_help(self, spec: GameSpec) -> str:
        """What a person may type for a move, as one phrase."""
        h, w, _ = spec.obs_shape
        cols = self.column_letters()
        letters = f"{cols[0]}..{cols[w - 1]}" + (f" (no {'I' if cols[0].isupper() else 'i'})" if w > 8 else "")
        example = self.format_action(spec, min(2, h - 1) * w + min(3, w - 1))
        text = f"a column letter {letters} then a row number 1..{h}, like {example}"
        for special, name in zip((spec.pass_action, spec.swap_action), SPECIAL_NAMES):
            if special >= 0:
                text += f", or {name}"
        return text

    def parse_action(self, spec: GameSpec, text: str) -> int:
        """The action a person means by `text` (case and spaces ignored), or ValueError saying what
        is allowed."""
        h, w, _ = spec.obs_shape
        t = "".join(str(text).split()).upper()
        for special, name in zip((spec.pass_action, spec.swap_action), SPECIAL_NAMES):
            if special >= 0 and t == name.upper():
                return special
        if len(t) >= 2 and t[0] in COLUMNS[:w] and _row(t[1:]) and 1 <= int(t[1:]) <= h:
            return (int(t[1:]) - 1) * w + COLUMNS.index(t[0])
        why = ""
        if t.lower() in SPECIAL_NAMES:
            why = f"{spec.name} has no {t.lower()}; "
        elif t[:1] == "I" and _row(t[1:]) and w > 8:
            why = "there is no column I (the letters skip it); "
        elif len(t) >= 2 and t[0] in COLUMNS + "I" and _row(t[1:]):
            why = f"off the {h}x{w} board; " if t[0] not in COLUMNS[:w] or not 1 <= int(t[1:]) <= h else ""
        raise ValueError(f"{str(text).strip()!r} is not a move: {why}type {self.input_help(spec)}")

    def move_text(self, spec: GameSpec, a: int, player: int | None = None) -> str:
        """A move as a person reads it in a sentence: "D4", "pass", "column 3"; with the `player`
        who makes it, format_move's name (Breakthrough's "c2-c3" rather than "c2-c")."""
        return self.format_action(spec, a) if player is None else self.format_move(spec, a, player)

    # ---- text boards and terminal games (zerogym.play) --------------------------------------------
    @property
    def text_style(self) -> dict[str, Any]:
        """The keyword arguments of zerogym.render.text_board for this game's boards."""
        return dict(
            symbols=self.symbols,
            row0_at_bottom=self.row0_at_bottom,
            hex=self.hex_rows,
            column_labels=self.column_labels,
        )

    def player_name(self, player: int) -> str:
        """'black (X)', 'white (O)', or 'X' / 'O' for games without colours."""
        symbol = self.symbols[1 + player]
        return f"{self.colours[player]} ({symbol})" if self.colours else symbol

    def rules_line(self, state: StateT) -> str:
        """One sentence on how the game is won, with its kwargs."""
        return ", ".join(f"{k}={v}" for k, v in state.spec.kwargs.items()) + "."

    def swap_line(self, name: str, spec: GameSpec, history: list[tuple[int, int]]) -> str:
        """What the agent `name` did when it swapped; `history` holds (player, action) per move."""
        return f"{name} swaps."

    def score_lines(self, state: StateT) -> list[str]:
        """The final result explained, line by line: by default draw_line, or the winner and win_deed."""
        if state.is_truncated():
            return ["The game reached its move limit: no result."]
        if state.winner < 0:
            return [self.draw_line]
        return [self.winner_line(state, self.win_deed(state))]

    def win_deed(self, state: StateT) -> str:
        """What the winner of the finished game `state` did, as score_lines says it after "Black (X)"."""
        return "wins"

    def winner_line(self, state: StateT, deed: str) -> str:
        """The sentence "Black (X) `deed`." on the winner of the finished game `state`."""
        who = self.player_name(state.winner)
        return f"{who[0].upper()}{who[1:]} {deed}."

    # ---- pictures (zerogym.render) ----------------------------------------------------------------
    def scene_items(
        self, board: Board, last: Cell | None, m: float, labels: bool, row0_at_bottom: bool
    ) -> tuple[list[Item], Colour]:
        """(items, background) of the board `board` (int8, 0 empty, 1 and 2 the players' pieces), its
        last move at (row, col) `last` or None, m pixels a cell (see zerogym.render's item list).
        By default a board of squares in `board_colours` with stones (or X and O `marks`)."""
        return grid_items(
            board,
            last,
            m,
            labels,
            row0_at_bottom,
            False,
            self.board_colours,
            marks=self.marks,
            letters=self.column_letters(),
        )

    def picture_up(self, row0_at_bottom: bool | None) -> bool:
        """Whether a picture puts row 0 at the bottom when its caller asks for `row0_at_bottom` (None: the
        game's own way up, which is also the answer for a game that is not turnable)."""
        return self.row0_at_bottom if row0_at_bottom is None or not self.turnable else row0_at_bottom

    def cell_centre(
        self, r: float, c: float, shape: tuple[int, ...], m: float, row0_at_bottom: bool
    ) -> tuple[float, float]:
        """(y, x): where scene_items puts the centre of cell (r, c) of a board of `shape` (rows, columns),
        m pixels a cell (zerogym.render.cell_at maps a picture's pixel back to its cell from it).  By
        default the squares of grid_items."""
        return ((shape[0] - 1 - r if row0_at_bottom else r) + 0.5) * m, (c + 0.5) * m

    def cell_outline(self, m: float) -> list[tuple[float, float]]:
        """The corners (dy, dx) around a cell's centre of the area a click on the cell may fall in (a convex
        polygon; the cells' areas tile the board): by default a square of side m."""
        h = m / 2
        return [(-h, -h), (-h, h), (h, h), (h, -h)]

    def result_detail(self, state: StateT) -> str:
        """What follows "black wins" in a finished game's caption (" by 3.5"), or ""."""
        return ""


class LineGameInfo(GameInfo[StateT]):
    """A game won by making a line (Tic-tac-toe, Gomoku, Connect Four): the score names the line."""

    colours = None
    draw_line = "The board is full and nobody made a line: a draw."

    def win_deed(self, state: StateT) -> str:
        line = winning_line(state)
        return f"made {len(line)} in a row{self.line_place(state.spec, line)}"

    def line_place(self, spec: GameSpec, line: list[Cell]) -> str:
        """Where the winning line lies, after "made 3 in a row": its cells."""
        w = spec.obs_shape[1]
        return ": " + " ".join(self.format_action(spec, r * w + c) for r, c in line)


class HexGameInfo(GameInfo[StateT]):
    """A board of hexagons where row r+1 sits half a cell right of row r, row 1 at the top, and white
    may swap instead of its first move when the kwarg swap is on (Hex, Havannah)."""

    row0_at_bottom = False
    hex_rows = True

    goal: str  # the rules line before the swap, the board and how the game is won, with {board_size}

    def rules_line(self, state: StateT) -> str:
        kw = state.spec.kwargs
        return self.goal.format(**kw) + ("; white may swap instead of its first move." if kw["swap"] else ".")

    def swap_line(self, name: str, spec: GameSpec, history: list[tuple[int, int]]) -> str:
        a = history[0][1]
        cell = self.format_action(spec, a)
        return f"{name} swaps: the black stone on {cell} becomes {self.swapped(spec, a)}, and black moves again."

    def swapped(self, spec: GameSpec, a: int) -> str:
        """What the swap makes of black's first stone, on the cell of action `a`."""
        return "white"

    def cell_centre(
        self, r: float, c: float, shape: tuple[int, ...], m: float, row0_at_bottom: bool
    ) -> tuple[float, float]:
        return hex_centre(r, c, m)

    def cell_outline(self, m: float) -> list[tuple[float, float]]:
        return hex_corners(m)
