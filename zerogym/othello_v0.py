"""Othello AEC environment: env(board_size=8), raw_env(...).

Black (`black_0`) moves first, then White (`white_0`), on a `board_size` x `board_size` board
(N x N). White starts on (N/2-1, N/2-1) and (N/2, N/2), Black on (N/2-1, N/2) and (N/2, N/2-1):
on 8x8, White on D4 and E5, Black on E4 and D5. A disc must be placed so that it brackets at
least one straight line (in any of the 8 directions) of opponent discs between itself and another
disc of the mover; every bracketed line, in every direction, flips to the mover's colour. A
player with no such placement must pass, and may pass only then. The game ends as soon as
neither side can place a disc (a full board included): more discs wins, equal counts draw.

Keyword arguments:

- `board_size`: even, 4..16 (default 8).

Actions: `r * N + c` places a disc on row `r`, column `c` (row 0 is row 1, drawn at the top;
action 0 is a1: column letters are written in lower case and skip i); `N * N` is pass.

Rewards are 0 until the end, then +1 for the winner and -1 for the loser, 0 for both after a draw;
both agents get their final reward, and their final info holds `discs`, the disc count of each
agent.
"""

from zerogym.envs.othello import OthelloEnv, env, raw_env  # noqa: F401
