"""Tic-tac-toe / Gomoku AEC environment: env(board_size=3, win_length=3), raw_env(...).

`player_0` (X) moves first, then `player_1` (O); each move puts a mark on an empty point of a
`board_size` x `board_size` board. A player with `win_length` or more marks in a row
(horizontally, vertically or diagonally) wins at once: longer rows (overlines) count, as in
free-style Gomoku. A full board without that is a draw. Tic-tac-toe is the default; Gomoku is
`board_size=15, win_length=5`.

Keyword arguments:

- `board_size`: 2..25 (default 3).
- `win_length`: 2..`board_size` (default 3).

Actions: `r * N + c` marks row `r`, column `c` (row 0 is row 1, drawn at the bottom; action 0 is
A1, column letters skip I).

Rewards are 0 until the end, then +1 for the winner and -1 for the loser, 0 for both after a draw;
both agents get their final reward.
"""

from zerogym.envs.tictactoe import TicTacToeEnv, env, raw_env  # noqa: F401
