"""training.png of a short run: every panel shows its data from the first log entries on (the axes' limits
and artists as matplotlib holds them, not pixels)."""

import math

import numpy as np
import pytest

from zerogym_agents.alphazero.trainer import plot_history as az_plot
from zerogym_agents.pg.base import plot_history as pg_plot
from zerogym_agents.training.schedule import cosine


def az_history(lrs, elos):
    """AlphaZero history rows as a run before its first SGD step logs them: no losses yet."""
    return [
        {
            "step": 5.0 * (i + 1),
            "loss": None,
            "policy_loss": None,
            "value_loss": None,
            "lr": lr,
            "games_per_s": 2.0,
            "positions_per_s": 15.0,
            "buffer_fill": 0.001 * i,
            "elo": elo,
        }
        for i, (lr, elo) in enumerate(zip(lrs, elos))
    ]


def panel(fig, words):
    """The axes whose y label holds `words`."""
    (ax,) = [ax for ax in fig.axes if words in ax.get_ylabel()]
    return ax


def assert_shown_inside(ax, line):
    """Every drawn value lies inside the axis and clear of its top edge; a lone point has a marker."""
    low, high = ax.get_ylim()
    values = np.asarray(line.get_ydata(), dtype=float)
    values = values[np.isfinite(values)]
    assert len(values) and low <= values.min() and values.max() <= high - 0.05 * (high - low), (ax.get_ylim(), values)
    if len(values) == 1:
        assert line.get_marker() not in ("", "None", None, " ")


@pytest.mark.parametrize("steps", [1, 2, 6])
@pytest.mark.parametrize("schedule", ["constant", "cosine"])
def test_the_learning_rate_axis_covers_the_rate(tmp_path, schedule, steps):
    lrs = [0.002] * steps if schedule == "constant" else [cosine(0.02, 0.002, i / 6) for i in range(steps)]
    fig = az_plot(az_history(lrs, [None] * steps), tmp_path / "training.png")
    ax = panel(fig, "learning rate")
    (line,) = ax.lines
    assert np.allclose(np.asarray(line.get_ydata(), dtype=float), lrs)
    assert_shown_inside(ax, line)
    assert ax.get_ylim()[0] == 0
    for words in ("positions / s", "games / s", "positions held"):  # the other axes from 0 as well
        assert_shown_inside(panel(fig, words), panel(fig, words).lines[0])


@pytest.mark.parametrize("elos", [[None, 12.5], [None, -0.7, None, -0.7, None, -0.7], [3.0, -250.0, 400.0]])
def test_the_pool_elo_panel_has_a_readable_range_and_markers(tmp_path, elos):
    fig = az_plot(az_history([0.02] * len(elos), elos), tmp_path / "training.png")
    ax = panel(fig, "Elo in the pool")
    (line,) = ax.lines
    rated = [e for e in elos if e is not None]
    assert list(line.get_ydata()) == rated
    assert line.get_marker() == "o" and line.get_markersize() >= 3
    low, high = ax.get_ylim()
    assert high - low >= 100, "an Elo axis narrower than 100 points makes noise look like a trend"
    assert low < min(rated) and max(rated) < high
    if max(rated) - min(rated) < 100:  # one rating, or a flat series: in the middle of the axis
        assert math.isclose((low + high) / 2, (min(rated) + max(rated)) / 2)


def test_a_policy_gradient_run_of_one_entry_shows_every_series(tmp_path):
    history = [
        {
            "step": 10.0,
            "loss": 0.4,
            "policy_loss": 0.3,
            "entropy": 1.2,
            "win_rate": 0.6,
            "draw_rate": 0.1,
            "episodes_per_s": 30.0,
            "moves_per_s": 200.0,
            "elo": 8.0,
        }
    ]
    fig = pg_plot(history, str(tmp_path / "training.png"))
    for ax in fig.axes:
        for line in ax.lines:
            if np.isfinite(np.asarray(line.get_ydata(), dtype=float)).any() and len(line.get_xdata()) == 1:
                assert line.get_marker() not in ("", "None", None, " "), (ax.get_title(), ax.get_ylabel())
    elo = panel(fig, "Elo in the pool")
    assert elo.get_ylim()[1] - elo.get_ylim()[0] >= 100 and elo.get_ylim()[0] < 8.0 < elo.get_ylim()[1]
