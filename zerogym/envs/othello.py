"""Othello: an even `board_size` x `board_size` board (4..16); black moves first.

The env class and how people see the game (OthelloInfo: green board, lower-case column letters,
row 1 at the top, the discs counted at the end)."""

from __future__ import annotations

from typing import Any

from zerogym._core.othello import OthelloState
from zerogym.envs.base import BoardGameEnv, env_factories
from zerogym.envs.game_info import Example, GameInfo


class OthelloInfo(GameInfo[OthelloState]):
    name = "othello"
    title = "Othello"
    row0_at_bottom = False
    column_labels = "lowercase"
    board_colours = ((20, 75, 40), (30, 120, 60), (10, 40, 20), (220, 235, 220))
    example = Example(
        {"board_size": 8},
        "f5 d6 c3 d3 c4 f4 c5 b3 c2 e6 c6 b4",
        'print(env.render(), info["discs"])  # the final board and the disc counts',
    )

    def rules_line(self, state: OthelloState) -> str:
        n = state.spec.kwargs["board_size"]
        return f"{n}x{n}; most discs wins. Pass only when you cannot place."

    def score_lines(self, state: OthelloState) -> list[str]:
        black, white = state.counts()
        leader = "black" if black > white else "white"
        verdict = "a draw" if black == white else f"{leader} wins by {abs(black - white)}"
        return [f"Neither side can place a disc. Discs: black {black}, white {white}: {verdict}."]

    def result_detail(self, state: OthelloState) -> str:
        return " {}-{}".format(*sorted(state.counts(), reverse=True))


class OthelloEnv(BoardGameEnv):
    """Othello (board_size=8, even, 4..16); action r * N + c, N * N = pass (legal only when no placement is)."""

    state_class = OthelloState
    game_info = OthelloInfo()
    state: OthelloState

    def final_info(self) -> dict[str, Any]:
        black, white = self.state.counts()
        return {"discs": {"black_0": black, "white_0": white}}


env, raw_env = env_factories(OthelloEnv)
