"""Hex AEC environment: env(board_size=11, swap=True), raw_env(...).

Black (`black_0`) moves first, then White (`white_0`); each move places a stone of one's colour on
an empty cell of a `board_size` x `board_size` rhombus of hexagons. The neighbours of (r, c) are
(r-1, c), (r-1, c+1), (r, c-1), (r, c+1), (r+1, c-1) and (r+1, c). Black wins by joining row 0
(top) to the last row (bottom) with a chain of neighbouring black stones, White by joining column
0 (left) to the last column (right). The game ends at once with that win; there are no draws.

Swap (pie) rule: with `swap=True`, White may answer Black's first stone with the swap action
instead of a stone: Black's stone at (r, c) becomes a White stone at (c, r) (mirrored in the long
diagonal), and Black moves next. Swap is legal only as the second move of the game.

Keyword arguments:

- `board_size`: 2..19 (default 11).
- `swap`: True (default) or False.

Actions: `r * N + c` places a stone on row `r`, column `c` (row 0 is row 1, drawn at the top;
action 0 is A1, column letters skip I); `N * N` is swap (never legal with `swap=False`).

Rewards are 0 until the end, then +1 for the winner and -1 for the loser; both agents get their
final reward.
"""

from zerogym.envs.hex import HexEnv, env, raw_env  # noqa: F401
