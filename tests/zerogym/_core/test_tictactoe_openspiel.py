"""Differential tests: zerogym Tic-tac-toe / Gomoku against OpenSpiel's "tic_tac_toe" and "mnk".

OpenSpiel's tic_tac_toe is the 3x3 game with action r * 3 + c and 'x' (player 0) first.  Its mnk
game has m columns, n rows and k in a row: the action is r * m + c and str(state) prints row r on
line r -- for the square boards zerogym supports (m = n = board_size) that is exactly our r * N + c
and our board() row order.  Checked by experiment: mnk counts a line longer than k as a win (as
our contract does: "win_length or more"), and a full board without a line is a draw.  So every
square size both accept is compared without restriction.
"""
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from zerogym._core.tictactoe import TicTacToeState  # noqa: E402


def spiel_board(state, n):
    lines = str(state).strip("\n").split("\n")
    assert len(lines) == n and all(len(line) == n for line in lines)
    return np.array([[".xo".index(ch) for ch in line] for line in lines], dtype=np.int8)


def compare(ours, theirs, n):
    assert ours.is_terminal() == theirs.is_terminal()
    if theirs.is_terminal():
        assert list(ours.returns()) == list(theirs.returns())
        assert len(ours.legal_actions()) == 0
    else:
        assert ours.current_player == theirs.current_player()
        assert list(ours.legal_actions()) == list(theirs.legal_actions())
        assert ours.returns() == (0.0, 0.0)
    assert (ours.board() == spiel_board(theirs, n)).all()


def run_games(game, n, k, games, seed):
    rng = random.Random(seed)
    outcomes = []
    for _ in range(games):
        ours, theirs = TicTacToeState(n, k), game.new_initial_state()
        compare(ours, theirs, n)
        while not theirs.is_terminal():
            a = rng.choice(theirs.legal_actions())
            ours.step(a)
            theirs.apply_action(a)
            compare(ours, theirs, n)
        assert ours.is_over()
        outcomes.append(ours.winner)
    return outcomes


def test_tic_tac_toe_matches_openspiel():
    outcomes = run_games(pyspiel.load_game("tic_tac_toe"), 3, 3, 300, seed=1)
    assert {-1, 0, 1} <= set(outcomes)      # wins for both sides and draws were all compared


def test_tic_tac_toe_equals_mnk_3_3_3():
    # sanity of the mapping: OpenSpiel's own two 3x3 games agree with each other via our game
    outcomes = run_games(pyspiel.load_game("mnk", {"m": 3, "n": 3, "k": 3}), 3, 3, 100, seed=2)
    assert {0, 1} <= set(outcomes)


@pytest.mark.parametrize("n, k, games", [(15, 5, 60), (5, 4, 200), (4, 3, 100), (6, 4, 60), (7, 5, 40),
                                         (2, 2, 30), (4, 4, 60), (9, 3, 40)])
def test_mnk_matches_openspiel(n, k, games):
    game = pyspiel.load_game("mnk", {"m": n, "n": n, "k": k})
    outcomes = run_games(game, n, k, games, seed=n * 100 + k)
    assert set(outcomes) & {0, 1}
    if (n, k) in ((4, 4), (5, 4)):
        assert -1 in outcomes        # draws on boards where random play fills the board
