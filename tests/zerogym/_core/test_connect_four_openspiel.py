"""Differential tests: zerogym Connect Four against OpenSpiel's "connect_four".

OpenSpiel's game takes rows, columns and x_in_row; its action is the column, player 0 ('x') moves
first, pieces fall to the lowest empty cell, and its text board (str(state)) prints the top row
first -- the same layout as our board() (row 0 on top).  Checked by experiment: OpenSpiel also counts
a line longer than x_in_row as a win (as our contract says), and a full board without a line is a
draw (returns 0, 0).  So every size both accept is compared without restriction.
"""
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from zerogym._core.connect_four import ConnectFourState  # noqa: E402

SHAPES = [(6, 7, 4), (5, 4, 3), (4, 5, 4), (3, 3, 3), (1, 6, 3), (6, 1, 3), (7, 9, 5), (2, 3, 2),
          (8, 8, 4), (5, 5, 5), (4, 4, 2), (6, 7, 3), (6, 7, 7), (3, 10, 4), (10, 3, 4)]


def spiel_board(state, rows, cols):
    lines = str(state).strip("\n").split("\n")
    assert len(lines) == rows and all(len(line) == cols for line in lines)
    return np.array([[".xo".index(ch) for ch in line] for line in lines], dtype=np.int8)


def compare(ours, theirs, rows, cols):
    assert ours.is_terminal() == theirs.is_terminal()
    if theirs.is_terminal():
        assert list(ours.returns()) == list(theirs.returns())
        assert list(ours.legal_actions()) == []
    else:
        assert ours.current_player == theirs.current_player()
        assert list(ours.legal_actions()) == list(theirs.legal_actions())
        assert ours.returns() == (0.0, 0.0)
    assert (ours.board() == spiel_board(theirs, rows, cols)).all()


@pytest.mark.parametrize("rows, cols, k", SHAPES)
def test_random_games_match_openspiel(rows, cols, k):
    game = pyspiel.load_game("connect_four", {"rows": rows, "columns": cols, "x_in_row": k})
    rng = random.Random(rows * 1000 + cols * 10 + k)
    outcomes = set()
    for _ in range(40):
        ours = ConnectFourState(rows=rows, cols=cols, connect=k)
        theirs = game.new_initial_state()
        compare(ours, theirs, rows, cols)
        while not theirs.is_terminal():
            a = rng.choice(theirs.legal_actions())
            ours.step(a)
            theirs.apply_action(a)
            compare(ours, theirs, rows, cols)
        assert ours.is_over()
        outcomes.add(ours.winner)
    if cols == 1:     # one column fills with alternating pieces: always a draw
        assert outcomes == {-1}
    else:             # the random games reached real endings, wins among them
        assert outcomes & {0, 1}


def test_drawn_games_are_compared():
    # small boards where random play often fills the board: make sure draws occur and agree
    game = pyspiel.load_game("connect_four", {"rows": 2, "columns": 3, "x_in_row": 3})
    rng = random.Random(7)
    draws = 0
    for _ in range(50):
        ours, theirs = ConnectFourState(rows=2, cols=3, connect=3), game.new_initial_state()
        while not theirs.is_terminal():
            a = rng.choice(theirs.legal_actions())
            ours.step(a)
            theirs.apply_action(a)
            compare(ours, theirs, 2, 3)
        draws += ours.winner == -1
    assert draws > 0
