"""Breakthrough AEC environment: env(rows=8, cols=8), raw_env(...).

Breakthrough (Dan Troyka, 2000). `player_0` (black) moves first and starts on the top two rows as
drawn (rows 1 and 2); `player_1` (white) starts on the bottom two rows. Each move takes one of the
mover's pieces one row forward (black down, white up): straight ahead to an empty cell, or
diagonally forward to a cell that is empty or holds an enemy piece, which is captured. There are
no straight captures. A player wins at once by reaching the far row (black the last row, white
row 1) or by capturing every enemy piece. With at least two columns the player to move always has
a move (the diagonal cells of its most advanced piece are empty, enemy or off one side only), so
there are no passes and no draws.

Keyword arguments:

- `rows`: 4..16 (default 8); each side starts on two full rows.
- `cols`: 2..16 (default 8).

Actions: `(r * cols + c) * 3 + d` moves the piece on row `r`, column `c` to column `c - 1`
(`d = 0`), `c` (`d = 1`) or `c + 1` (`d = 2`) of the next row toward the opponent (row 0 is row 1,
drawn at the top; column letters a, b, ... skip i). A move is typed from-to, `c2-c3`.

Rewards are 0 until the end, then +1 for the winner and -1 for the loser; both agents get their
final reward.
"""

from zerogym.envs.breakthrough import BreakthroughEnv, env, raw_env  # noqa: F401
