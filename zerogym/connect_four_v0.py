"""Connect Four AEC environment: env(rows=6, cols=7, connect=4), raw_env(...).

`player_0` moves first, then `player_1`; each move drops a piece into a column of an upright
`rows` x `cols` board, where it falls to the lowest empty cell. A full column cannot be played.
A player with `connect` or more pieces in a row (horizontally, vertically or diagonally) wins at
once; a full board without that is a draw.

Keyword arguments:

- `rows`: 1..25 (default 6).
- `cols`: 1..25 (default 7); `rows` and `cols` cannot both be 1.
- `connect`: 2..max(`rows`, `cols`) (default 4).

Actions: the column, 0..`cols`-1 from the left (named 1..`cols`). In observations and pictures
row 0 is the top row.

Rewards are 0 until the end, then +1 for the winner and -1 for the loser, 0 for both after a draw;
both agents get their final reward.
"""

from zerogym.envs.connect_four import ConnectFourEnv, env, raw_env  # noqa: F401
