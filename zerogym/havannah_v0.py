"""Havannah AEC environment: env(board_size=8, swap=False), raw_env(...).

Christian Freeling's game on a hexagon of hexagonal cells with `board_size` cells on each side.
`player_0` (black, X) moves first, then `player_1` (white, O); each move places a stone of one's
colour on an empty cell. A player wins at once by making, with a chain of neighbouring stones of
their colour, one of three shapes:

- a ring: a closed chain around at least one cell; the cells inside may be empty or hold stones of
  either player (six stones around a single cell are the smallest ring);
- a bridge: a chain joining any two of the six corner cells;
- a fork: a chain joining any three of the six sides (the cells of a side are the edge cells
  between two corners; a corner belongs to no side).

A full board without any of them is a draw.

The hexagon lies in a D x D grid, D = 2 * `board_size` - 1: cell (r, c) of the grid is on the
hexagon when `board_size` - 1 <= r + c <= 3 * `board_size` - 3, the other cells are never played.
The neighbours of (r, c) are (r-1, c), (r-1, c+1), (r, c-1), (r, c+1), (r+1, c-1) and (r+1, c), as
in Hex here (row r+1 is drawn half a cell right of row r). The corners are (0, N-1), (0, D-1),
(N-1, D-1), (D-1, N-1), (D-1, 0) and (N-1, 0), with N = `board_size`.

Swap (pie) rule: with `swap=True`, White may answer Black's first stone with the swap action
instead of a stone: that stone becomes White's, on the same cell, and Black moves next. Swap is
legal only as the second move of the game.

Keyword arguments:

- `board_size`: 3..13 (default 8).
- `swap`: False (default) or True.

Actions: `r * D + c` places a stone on row `r`, column `c` of the grid (row 0 is row 1, drawn at
the top; action 0 is A1, column letters skip I); `D * D` is swap (never legal with `swap=False`).

Rewards are 0 until the end, then +1 for the winner and -1 for the loser, 0 for both after a draw;
both agents get their final reward.
"""

from zerogym.envs.havannah import HavannahEnv, env, raw_env  # noqa: F401
