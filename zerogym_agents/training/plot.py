"""What the trainers' training.png panels share: series of a history, a panel with two rates on two
axes, the pool-Elo panel, and the caption under the panels that says what each one shows.

Every panel must show its data from the first log entry on: an axis from 0 ends a tenth above its
highest value (a flat series is a line below the frame, not on it), a series of one point gets a
marker (a line needs two), and the Elo axis spans at least ELO_SPAN points (one checkpoint, or a flat
series, is then a dot in the middle of a readable range, not on an axis of 0.05)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def pool_elo_note(what: str, arena: str = "zerogym arena") -> str:
    """Why the pool Elo can fall while the learner improves (`what`: what the pool holds)."""
    return (
        f"the Elo is measured against the learner's own pool of past {what}, which gets stronger as the "
        f"learner does, so it can stay flat or fall while the agent improves; absolute strength is measured "
        f"in the arena against fixed opponents ({arena})"
    )


def series(rows: Iterable[Mapping[str, Any]], key: str) -> list[Any]:
    """history rows' values of `key`, NaN where missing (matplotlib leaves a gap)."""
    return [np.nan if h.get(key) is None else h[key] for h in rows]


ELO_SPAN = 100.0  # the least range of the pool-Elo axis, in Elo points
HEADROOM = 1.1  # an axis from 0 ends this much above its highest value


def finite(values: Sequence[Any]) -> npt.NDArray[np.float64]:
    """The values that can be drawn (NaN stands for a missing entry)."""
    array = np.asarray(values, dtype=float)
    return array[np.isfinite(array)]


def marker_for(values: Sequence[Any]) -> str:
    """A marker for a series of one drawable point, which a line alone would not show."""
    return "o" if len(finite(values)) == 1 else ""


def from_zero(ax: Axes, values: Sequence[Any], top: float | None = None) -> None:
    """y from 0 to `top`, or to HEADROOM times the highest value (1 when there is none above 0)."""
    data = finite(values)
    if top is None:
        top = HEADROOM * float(data.max()) if len(data) and data.max() > 0 else 1.0
    ax.set_ylim(0, top)


def lines_panel(
    ax: Axes,
    history: Sequence[Mapping[str, Any]],
    curves: Iterable[tuple[str, str]],
    title: str,
    always: Iterable[str] = (),
) -> None:
    """A line against the entries' "step" for each (key, label) of `curves` that some entry of
    `history` has, or whose key is in `always`; a legend when there is a line."""
    steps = [h["step"] for h in history]
    for key, label in curves:
        if key in always or any(h.get(key) is not None for h in history):
            values = series(history, key)
            ax.plot(steps, values, label=label, lw=1.2, marker=marker_for(values))
    ax.set_title(title)
    if ax.lines:
        ax.legend(fontsize=8)


def two_axes(
    ax: Axes,
    history: Sequence[Mapping[str, Any]],
    solid: tuple[str, str],
    dashed: tuple[str, str],
    title: str,
    solid_colour: str = "tab:blue",
    dashed_colour: str = "tab:orange",
    solid_top: float | None = None,
) -> None:
    """A panel of two series of `history` against the entries' "step", on their own y axes: `solid` =
    (key, label) on the left, `dashed` on the right (its label says "dashed"); both start at 0
    (`solid_top`: the left axis' top)."""
    steps = [h["step"] for h in history]
    left, right = series(history, solid[0]), series(history, dashed[0])
    ax.plot(steps, left, color=solid_colour, lw=1.2, marker=marker_for(left))
    ax.set_ylabel(solid[1], color=solid_colour)
    from_zero(ax, left, solid_top)
    twin = ax.twinx()
    twin.plot(steps, right, color=dashed_colour, lw=1.0, ls="--", marker=marker_for(right))
    twin.set_ylabel(f"{dashed[1]} (dashed)", color=dashed_colour)
    from_zero(twin, right)
    ax.set_title(title)


def elo_panel(ax: Axes, steps: Sequence[float], elo: Sequence[Any], title: str) -> None:
    """The learner's Elo in its pool, a dot per rating joined by a line, on an axis of at least ELO_SPAN
    points around the ratings."""
    ax.plot(steps, elo, marker="o", ms=4, color="tab:purple")
    ax.set_ylabel("Elo in the pool")
    ax.set_title(title)
    data = finite(elo)
    if len(data) and data.max() - data.min() < ELO_SPAN:
        middle = (data.max() + data.min()) / 2
        ax.set_ylim(middle - ELO_SPAN / 2, middle + ELO_SPAN / 2)


def draw_caption(fig: Figure, paragraphs: Sequence[str], title: str = "", width: int = 160) -> None:
    """Lay the panels of `fig` out above a caption of wrapped paragraphs, draw it, and put `title`
    on top (the trainers' training.png)."""
    wrapped = [textwrap.wrap(p, width) for p in paragraphs]
    height = fig.get_figheight()
    line, gap = 0.16 / height, 0.06 / height  # a caption line and the gap between paragraphs
    bottom = 0.2 / height + sum(len(w) for w in wrapped) * line + (len(wrapped) - 1) * gap
    if title:
        fig.suptitle(title, y=1 - 0.06 / height, va="top")
    fig.tight_layout(rect=(0, bottom, 1, 1), h_pad=1.2)  # leaves room for the suptitle
    y = bottom - 0.08 / height
    for lines in wrapped:
        fig.text(0.015, y, "\n".join(lines), ha="left", va="top", fontsize=8.5, color="0.15", linespacing=1.3)
        y -= len(lines) * line + gap
