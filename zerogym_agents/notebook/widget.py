"""BoardWidget: zerogym.clicks.ClickPlay as a notebook widget (anywidget; board.js draws it in the page).

Python sends what to show as traits (the picture as a PNG data URL, the board as text, the moves, the
status, the message, the result, the buttons); the page sends back clicks, with the point clicked in
the picture's own pixels, and buttons.  click() and press() do the same from Python.
"""

from __future__ import annotations

import base64
import json
import pathlib
from typing import Any

import anywidget
import traitlets

from zerogym.clicks import ClickPlay

HERE = pathlib.Path(__file__).parent


class BoardWidget(anywidget.AnyWidget):
    """A game against an agent, played by clicking its picture (see zerogym_agents.notebook.play)."""

    _esm = HERE / "board.js"
    _css = HERE / "board.css"

    game = traitlets.Unicode("").tag(sync=True)  # the game's registry name
    image = traitlets.Unicode("").tag(sync=True)  # the picture, a data:image/png URL
    board = traitlets.Unicode("").tag(sync=True)  # the board as text
    moves = traitlets.Unicode("[]").tag(sync=True)  # the moves so far, a JSON list of their names
    status = traitlets.Unicode("").tag(sync=True)
    message = traitlets.Unicode("").tag(sync=True)
    result = traitlets.Unicode("").tag(sync=True)
    buttons = traitlets.Unicode("{}").tag(sync=True)  # JSON {button: enabled}
    sides = traitlets.List(traitlets.Unicode()).tag(sync=True)
    human = traitlets.Int(0).tag(sync=True)
    busy = traitlets.Bool(False).tag(sync=True)  # True while the kernel plays a click or a button

    def __init__(self, session: ClickPlay, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.game = session.game.spec.name
        self._show()
        self.on_msg(self._on_msg)

    def click(self, y: float, x: float) -> None:
        """A click at pixel (y, x) of the picture, as from the page."""
        self._do(self.session.click, y, x)

    def press(self, button: str) -> None:
        """Press a button ("pass", "swap", "undo", "hint", "new"), as from the page."""
        self._do(self.session.press, button)

    def choose_side(self, human: int) -> None:
        """Start a new game with the person playing side `human` (0 moves first)."""
        self._do(self.session.new_game, human)

    def _do(self, what: Any, *args: Any) -> None:
        self.busy = True
        try:
            what(*args)
        except Exception as err:  # a widget has no caller to raise to: say it where the person looks
            self.session.lines = [f"{type(err).__name__}: {err}"]
            raise
        finally:
            self._show()
            self.busy = False

    def _on_msg(self, _widget: Any, content: dict[str, Any], _buffers: Any) -> None:
        kind = content.get("kind")
        if kind == "click":
            self.click(float(content["y"]), float(content["x"]))
        elif kind == "press":
            self.press(str(content["button"]))
        elif kind == "side":
            self.choose_side(int(content["human"]))

    def _show(self) -> None:
        view = self.session.view()
        with self.hold_sync():
            self.image = "data:image/png;base64," + base64.b64encode(view["image"]).decode()
            self.board, self.status = view["board"], view["status"]
            self.message, self.result = view["message"], view["result"]
            self.moves, self.buttons = json.dumps(view["moves"]), json.dumps(view["buttons"])
            self.sides, self.human = view["sides"], view["human"]
