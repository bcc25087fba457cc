"""Othello against OpenSpiel's "othello" on many random games.

What OpenSpiel defines (checked below, not assumed): 8x8 only (no game parameters), 65 actions
with the same encoding as ours (r * 8 + c, row 0 = "1" printed at the top, a1 = 0; 64 = pass),
black ('x', player 0) moves first, the same start position (white d4 e5, black e4 d5), pass legal
only when no placement is, the game over as soon as neither side can place a disc, returns
+1 / -1 / 0 by disc count.  So every rule agrees and the whole game is compared move by move.
"""
import random

import numpy as np
import pytest

from zerogym._core.othello import OthelloState

pyspiel = pytest.importorskip("pyspiel")


@pytest.fixture(scope="module")
def game():
    return pyspiel.load_game("othello")


def spiel_board(state):
    """(8, 8) int8 from OpenSpiel's text: 0 empty, 1 black ('x'), 2 white ('o'); row "1" first."""
    rows = [line.split() for line in str(state).splitlines() if line[:1].isdigit()]
    assert [int(r[0]) for r in rows] == list(range(1, 9))
    return np.array([[{"-": 0, "x": 1, "o": 2}[ch] for ch in r[1:9]] for r in rows], dtype=np.int8)


def test_openspiel_game_definition(game):
    assert game.get_parameters() == {}          # fixed 8x8: no board size to set
    assert game.num_distinct_actions() == 65 and game.num_players() == 2
    t = game.get_type()
    assert t.short_name == "othello"
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    s = game.new_initial_state()
    ours = OthelloState(8)
    # same action names: OpenSpiel's action strings are ours
    for a in range(65):
        assert s.action_to_string(0, a) == ours.spec.action_name(a)
    assert s.current_player() == 0 and "Black (x) to play" in str(s)
    assert (spiel_board(s) == ours.board()).all()


def test_openspiel_other_sizes_undefined(game):
    with pytest.raises(Exception):
        pyspiel.load_game("othello", {"board_size": 6})


def play_pair(game, rng):
    """One random game in both; compare at every step. Returns the number of passes seen."""
    ours = OthelloState(8)
    theirs = game.new_initial_state()
    passes = 0
    while True:
        assert ours.is_terminal() == theirs.is_terminal()
        assert (ours.board() == spiel_board(theirs)).all()
        black, white = ours.counts()
        assert (black, white) == (int((spiel_board(theirs) == 1).sum()), int((spiel_board(theirs) == 2).sum()))
        if theirs.is_terminal():
            break
        assert ours.current_player == theirs.current_player()
        legal = sorted(theirs.legal_actions())
        assert list(ours.legal_actions()) == legal
        assert list(theirs.legal_actions_mask()) == ours.legal_mask().tolist()
        a = rng.choice(legal)
        passes += a == 64
        ours.step(a)
        theirs.apply_action(a)
    assert tuple(theirs.returns()) == ours.returns()
    assert ours.winner == {(1.0, -1.0): 0, (-1.0, 1.0): 1, (0.0, 0.0): -1}[tuple(theirs.returns())]
    assert ours.move_count == theirs.move_number()
    assert ours.legal_mask().sum() == 0
    return passes, ours


def test_random_games_agree(game):
    rng = random.Random(20240611)
    passes = 0
    results = set()
    end_before_full = 0
    for _ in range(300):
        p, ours = play_pair(game, rng)
        passes += p
        results.add(ours.winner)
        end_before_full += sum(ours.counts()) < 64
    # the sample covered forced passes, all three results and early ends
    assert passes > 0
    assert results == {0, 1, -1}
    assert end_before_full > 0


def test_forced_pass_agrees(game):
    # steer both into a position where the mover must pass (play random games until one arises)
    rng = random.Random(7)
    for _ in range(200):
        ours, theirs = OthelloState(8), game.new_initial_state()
        while not theirs.is_terminal():
            legal = theirs.legal_actions()
            if legal == [64]:
                assert list(ours.legal_actions()) == [64]
                empty = int(np.flatnonzero(ours.board().ravel() == 0)[0])   # a forced pass leaves empties
                assert ours.illegal_reason(empty) == "must pass: no placement is legal"
                ours.step(64)
                theirs.apply_action(64)
                assert ours.current_player == theirs.current_player()
                assert list(ours.legal_actions()) == sorted(theirs.legal_actions())
                return
            a = rng.choice(legal)
            ours.step(a)
            theirs.apply_action(a)
    pytest.fail("no forced pass in 200 random games")
