"""Go AEC environment: env(board_size=19, komi=7.5, superko="positional", max_moves=None), raw_env(...).

Black (`black_0`) moves first, then White (`white_0`); each move places a stone of one's colour
on an empty point of the `board_size` x `board_size` grid, or passes. A chain is a set of stones
of one colour connected along the lines; its liberties are the empty points next to it. After a
stone is placed, every opponent chain left without liberties is captured (removed). A move that
leaves its own chain without liberties while capturing nothing (suicide) is illegal. Passing is
always legal.

Ko: with `superko="positional"` no move may recreate a board position (the stones only, whoever is
to move) that occurred earlier in the game, the empty start included. With `superko="simple"`
only the immediate recapture of a single-stone ko is illegal.

The game ends after two consecutive passes and is scored by area (Tromp-Taylor counting): each
side counts its stones plus the empty regions that touch only its stones; dead stones are not
removed, so play them out. The score is black - white - `komi`: Black wins if it is above 0,
White if it is below 0, and 0 (possible with an integer komi) is a draw. Once `max_moves` moves
(passes included) are played without that end, the game stops by truncation, with no winner.

Keyword arguments:

- `board_size`: 2..25 (default 19).
- `komi`: any finite number (default 7.5), added to White's area.
- `superko`: `"positional"` (default) or `"simple"`.
- `max_moves`: 1..100000, or None (default) for 2 * `board_size` * `board_size`.

Actions: `r * N + c` places a stone on row `r`, column `c` (row 0 is rank 1, GTP names: action 0
is A1, column letters skip I); `N * N` is pass.

Rewards are 0 until the end, then +1 for the winner and -1 for the loser, 0 for both after a draw
or a truncation; both agents get their final reward, and their final info holds `score`,
`black_area` and `white_area`.
"""

from zerogym.envs.go import GoEnv, env, raw_env  # noqa: F401
