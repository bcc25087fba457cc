"""Play an agent inside a Jupyter or Colab notebook: `play(game, agent, **game_kwargs)` returns a widget
that shows the board (the pictures of render_mode="rgb_array"), takes a click on it as a move and lets
the agent answer, with Pass / Swap where the game has them, Undo, Hint, New game and a choice of side.

The game itself is zerogym.clicks.ClickPlay over zerogym.play.Game, which `zerogym play` plays in the
terminal too; this package adds the widget (anywidget, installed by the `notebook` extra) and reads
agent specs as `zerogym play` does (zerogym_agents.cli.play.resolve_agent).
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

from zerogym._install import install_command
from zerogym.clicks import ClickPlay
from zerogym.play import Game, Player
from zerogym.registry import make_state

if TYPE_CHECKING:
    from zerogym_agents.notebook.widget import BoardWidget

__all__ = ["click_play", "play"]

WIDGET_PACKAGES = ("anywidget", "ipywidgets", "traitlets")  # what the widget imports: the notebook extra
PICTURE_WIDTH = 480  # about how many pixels wide the board is drawn, whatever its size


def click_play(
    game: str,
    agent: str | Player | None = None,
    human: str | int = "first",
    seed: int | None = None,
    cell: float | None = None,
    **game_kwargs: Any,
) -> ClickPlay:
    """The game that play() shows, without the widget: `agent` is an agent, a spec ("pretrained:go_9x9",
    "uct:400", a saved agent's path) or None (a pretrained agent made for the game, else uct:400);
    cell: pixels per board cell of the picture (default: a board about PICTURE_WIDTH pixels wide)."""
    from zerogym_agents.cli.play import resolve_agent

    player, kwargs, name, notes = resolve_agent(game, agent, game_kwargs, seed)
    if cell is None:
        h, w = make_state(game, **kwargs).board().shape
        cell = max(20, min(64, PICTURE_WIDTH // (max(h, w) + 1)))
    return ClickPlay(Game(game, player, kwargs, human, seed, name=name, notes=notes), cell=cell)


def play(game: str, agent: str | Player | None = None, **options: Any) -> BoardWidget:
    """A widget that plays `agent` against clicks; options: click_play's (human="first" or "second",
    seed, cell) and the game's kwargs (board_size=9, ...).  Show it as a cell's last expression, or with
    IPython.display.display."""
    try:
        from zerogym_agents.notebook.widget import BoardWidget
    except ImportError as err:
        if err.name not in WIDGET_PACKAGES:
            raise
        raise ImportError(
            f"the notebook widget needs {err.name}, which is not installed (the notebook extra: anywidget and "
            f"ipywidgets): {install_command('notebook')}"
        ) from err
    if "google.colab" in sys.modules:  # Colab shows widgets of other packages once its manager is on
        importlib.import_module("google.colab.output").enable_custom_widget_manager()
    return BoardWidget(click_play(game, agent, **options))
