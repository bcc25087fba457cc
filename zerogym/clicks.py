"""A game played by clicks on its picture: what a notebook widget (zerogym_agents.notebook) shows and
does, without a browser.

ClickPlay holds a zerogym.play.Game (the moves, undo, hint, result: the same as `zerogym play`), draws
the board after every move (zerogym.render.draw) and turns a click on the picture into a move through
the picture's own geometry (zerogym.render.cell_geometry): the cell clicked (Go, Hex, Havannah,
Othello, Tic-tac-toe), its column (Connect Four), or, where a move takes a piece somewhere
(Breakthrough), two clicks: the piece, shown picked up with the places it may go, then one of those.
Pass and swap are buttons, as are undo, hint and a new game.  A click that is not a move leaves the
game as it was and says why in `message`.
"""

from __future__ import annotations

import io
from typing import Any

from zerogym._types import Cell
from zerogym.coords import column_letters, format_action
from zerogym.errors import IllegalMoveError
from zerogym.play import Game, board_text, move_text
from zerogym.render import CELL, Picture, cell_geometry, draw

BUTTONS = ("pass", "swap", "undo", "hint", "new")  # what press() takes


class ClickPlay:
    """A Game played by clicks: click(y, x) on picture() (pixels of its full size), press(button) for
    BUTTONS; `message` says what happened since the last click or button, `selected` is the piece
    picked up (Breakthrough).  The agent answers at once; cell: pixels per board cell of the picture."""

    def __init__(self, game: Game, cell: float = CELL) -> None:
        if not (isinstance(cell, (int, float)) and 12 <= cell <= 200):
            raise ValueError(f"cell is the picture's pixels per board cell, 12..200, got {cell!r}")
        self.game, self.cell = game, float(cell)
        self.selected: Cell | None = None
        self.lines: list[str] = []
        self.new_game()

    # ---- what is shown -------------------------------------------------------------------------
    @property
    def message(self) -> str:
        """What was said since the last click or button, one line each."""
        return "\n".join(self.lines)

    def picture(self) -> Picture:
        """The board as drawn now (the piece picked up and where it may go marked)."""
        spots = [] if self.selected is None else [self.selected, *self._targets(self.selected)]
        return draw(self.game.state, cell=self.cell, highlight=spots)

    def png(self) -> bytes:
        """picture() as PNG bytes."""
        from PIL import Image

        out = io.BytesIO()
        Image.fromarray(self.picture()).save(out, format="PNG")
        return out.getvalue()

    def board(self) -> str:
        """The board as text, with the move number and who moves (as `zerogym play` prints it)."""
        return board_text(self.game.state)

    def moves(self) -> list[str]:
        """Every move played so far, named as a person types it ("B2", "pass", "c2-c3")."""
        return [format_action(self.game.env, a, p) for p, a in self.game.history]

    def status(self) -> str:
        """One line: whose turn it is, or that the game is over."""
        g = self.game
        if g.over:
            return (
                "Game over: "
                + {
                    "win": "you win.",
                    "loss": f"{g.name} wins.",
                    "draw": "a draw.",
                    "no result": "no result.",
                    "resigned": "you resigned.",
                }[g.outcome]
            )
        if g.must_pass:
            return "You have no legal placement: press Pass."
        if self.selected is not None:
            return (
                f"{self._cell_name(self.selected)} picked up: click where it goes (or the piece again to put it back)."
            )
        if g.spec.action_kind == "cell_moves":
            return f"Your move, {g.info.player_name(g.me)}: click one of your pieces, then where it goes."
        what = "a column" if g.spec.action_kind == "columns" else "a cell"
        return f"Your move, {g.info.player_name(g.me)}: click {what}."

    def result(self) -> str:
        """The end of the game explained (the score, then the verdict), or "" while it goes on."""
        return "\n".join(self.game.ending())

    def buttons(self) -> dict[str, bool]:
        """{button: whether pressing it does something now}: pass in the games that have one, swap only
        while it is legal, undo, hint and new game always."""
        g = self.game
        mine = not g.over and not g.agent_to_move
        out = {}
        if g.spec.pass_action >= 0:
            out["pass"] = mine and g.state.is_legal(g.spec.pass_action)
        if g.spec.swap_action >= 0 and mine and g.state.is_legal(g.spec.swap_action):
            out["swap"] = True
        out["undo"] = any(p == g.me for p, _ in g.history)
        out["hint"] = mine
        out["new"] = True
        return out

    # ---- what a person does ----------------------------------------------------------------------
    def new_game(self, human: str | int | None = None) -> None:
        """Start a new game (the person playing `human`, "first" or "second", when given)."""
        self.game.new_game(human)
        self.selected = None
        self.lines = self.game.intro()
        self._agent_turns()

    def click(self, y: float, x: float) -> None:
        """A click at pixel (y, x) of picture(): a move, or a piece picked up; anything else is refused
        with a reason in `message`, the game unchanged."""
        g = self.game
        geo = cell_geometry(g.state, cell=self.cell)
        cell = geo.cell_at(y, x)
        self.lines = []
        if g.over:
            self.lines = ["The game is over: press New game to play another."]
        elif cell is None:
            self.lines = ["That is not on the board: click a cell."]
        elif g.spec.action_kind == "columns":
            self._play(cell[1])
        elif g.spec.action_kind == "cells":
            self._play(cell[0] * g.state.board().shape[1] + cell[1])
        else:
            self._pick_or_move(cell)

    def press(self, button: str) -> None:
        """Press one of BUTTONS; a button that does nothing now says why in `message`."""
        if button not in BUTTONS:
            raise ValueError(f"unknown button {button!r}; the buttons are {', '.join(BUTTONS)}")
        g = self.game
        self.lines = []
        if button == "new":
            self.new_game()
        elif button == "undo":
            self.selected = None
            self.lines = [g.undo()]
        elif g.over:
            self.lines = ["The game is over: press New game to play another."]
        elif button == "hint":
            self.lines = [g.hint_line()]
        else:
            action = g.spec.pass_action if button == "pass" else g.spec.swap_action
            if action < 0:
                self.lines = [f"{g.info.title} has no {button}."]
            else:
                self._play(action)

    # ---- inside ----------------------------------------------------------------------------------
    def _play(self, action: int) -> None:
        g = self.game
        try:
            g.move(action)
        except IllegalMoveError as err:
            self.lines = [g.refusal(action, err)]
            return
        self.selected = None
        self.lines = [f"You play {move_text(g.env, action, g.me)}."]
        self._agent_turns()

    def _agent_turns(self) -> None:
        while self.game.agent_to_move:
            self.lines.append(self.game.agent_move())

    def _pick_or_move(self, cell: Cell) -> None:
        g = self.game
        mine = g.state.board()[cell] == g.me + 1
        if self.selected is None or mine:
            if not mine:
                self.lines = [f"Click one of your pieces ({g.info.player_name(g.me)}) first, then where it goes."]
            elif cell == self.selected:
                self.selected = None  # put back
            elif not self._targets(cell):
                self.lines = [f"The piece on {self._cell_name(cell)} has no move."]
            else:
                self.selected = cell
            return
        targets = self._targets(self.selected)
        if cell in targets:
            self._play(targets[cell])
            return
        where = ", ".join(self._cell_name(t) for t in targets)
        self.lines = [
            f"The piece on {self._cell_name(self.selected)} cannot go to {self._cell_name(cell)}; it may go to {where}."
        ]

    def _targets(self, cell: Cell) -> dict[Cell, int]:
        """{cell the piece on `cell` may go to: its action}, from the legal moves of that piece."""
        state = self.game.state
        k, w = state.spec.actions_per_cell, state.board().shape[1]
        first = (cell[0] * w + cell[1]) * k
        out = {}
        for a in range(first, first + k):
            if state.is_legal(a):
                before, after = state.board(), state.copy().step(a).board()
                gained = (after == state.current_player + 1) & (before != after)
                r, c = (int(v[0]) for v in gained.nonzero())
                out[r, c] = a
        return out

    def _cell_name(self, cell: Cell) -> str:
        return f"{column_letters(self.game.state)[cell[1]]}{cell[0] + 1}"

    def view(self) -> dict[str, Any]:
        """Everything a widget shows, as plain data: image (PNG bytes), board, moves, status, message,
        result, buttons, sides (the players' names), human (the person's side, 0 or 1)."""
        g = self.game
        return dict(
            image=self.png(),
            board=self.board(),
            moves=self.moves(),
            status=self.status(),
            message=self.message,
            result=self.result(),
            buttons=self.buttons(),
            sides=[g.info.player_name(0), g.info.player_name(1)],
            human=g.me,
        )
