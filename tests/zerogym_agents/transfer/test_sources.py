"""The board size a transfer source was trained at, read from its game kwargs."""

import pytest

from zerogym_agents.transfer.sources import board_size_of


@pytest.mark.parametrize(
    "game,kwargs,size",
    [
        ("go", {"board_size": 5}, 5),
        ("hex", {"board_size": 7}, 7),
        ("havannah", {"board_size": 4}, 4),  # its grid is 7x7: the kwarg, not the grid, is the size
        ("havannah", {}, 8),  # the default side
        ("connect_four", {"rows": 5, "cols": 5}, 5),  # no board_size: the square grid's side
    ],
)
def test_board_size_is_the_kwarg_the_size_is_played_at(game, kwargs, size):
    assert board_size_of(game, kwargs) == size


def test_a_game_without_board_size_needs_a_square_board():
    with pytest.raises(ValueError, match="6x7 board"):
        board_size_of("connect_four", {})
