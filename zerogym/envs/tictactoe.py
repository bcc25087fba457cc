"""Tic-tac-toe and Gomoku: `board_size` x `board_size`, `win_length` or more in a row wins.

The env class and how people see the game (TicTacToeInfo: X and O marks on squares, row 1 at the
bottom, the winning line named at the end)."""

from __future__ import annotations

from zerogym._core.tictactoe import TicTacToeState
from zerogym.envs.base import BoardGameEnv, env_factories
from zerogym.envs.game_info import Example, LineGameInfo


class TicTacToeInfo(LineGameInfo[TicTacToeState]):
    name = "tictactoe"
    title = "Tic-tac-toe"
    player_words = ("X", "O")
    marks = True
    example = Example(
        {}, "B2 A1 C1 A3 A2 C3 C2", "print(env.render(), env.unwrapped.state.returns())  # (1.0, -1.0) if X won"
    )
    size_probe = {"win_length": 2}  # the smallest win_length, so that every board size is tried on its own

    def rules_line(self, state: TicTacToeState) -> str:
        kw = state.spec.kwargs
        return f"{kw['board_size']}x{kw['board_size']}; {kw['win_length']} in a row wins."


class TicTacToeEnv(BoardGameEnv):
    """Tic-tac-toe / Gomoku (board_size=3, win_length=3); action r * N + c."""

    state_class = TicTacToeState
    game_info = TicTacToeInfo()


env, raw_env = env_factories(TicTacToeEnv)
