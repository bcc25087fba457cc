"""GoState.ownership(): the Tromp-Taylor owner of every point, checked against hand counts."""

import numpy as np
import pytest

import zerogym


def position(rows, komi=7.5):
    """A 5x5 state with the stones of `rows` (top line = row 0; X black, O white, . empty),
    placed by alternating moves (a pass where one colour has no stone left to place)."""
    s = zerogym.make_state("go", board_size=len(rows), komi=komi)
    black = [r * len(rows) + c for r, line in enumerate(rows) for c, ch in enumerate(line) if ch == "X"]
    white = [r * len(rows) + c for r, line in enumerate(rows) for c, ch in enumerate(line) if ch == "O"]
    passes = s.num_actions - 1
    while black or white:
        s.step(black.pop(0) if black else passes)
        s.step(white.pop(0) if white else passes)
    return s


def grid(text):
    return np.array([[{"+": 1, "-": -1, "0": 0}[ch] for ch in line] for line in text], np.int8)


def test_walls_split_the_board_and_the_gap_between_them_is_dame():
    s = position([".X.O.", ".X.O.", ".X.O.", ".X.O.", ".X.O."])
    # column 0 black territory, column 2 touches both colours (neither), column 4 white territory
    assert np.array_equal(s.ownership(), grid(["++0--"] * 5))


def test_stones_and_regions_of_one_colour_are_owned_and_regions_touching_both_are_not():
    rows = ["..X..", "XXX..", "...OO", "OOOO.", "....O"]
    s = position(rows)
    want = grid(
        [
            "+++00",  # (0,3),(0,4),(1,3),(1,4) reach X at (0,2),(1,2) and O at (2,3),(2,4)
            "+++00",
            "000--",  # (2,0)..(2,2) reach X above and O below
            "-----",
            "-----",
        ]
    )
    assert np.array_equal(s.ownership(), want)
    black, white = s.area()
    assert (black, white) == (int((want == 1).sum()), int((want == -1).sum()))
    assert s.score() == pytest.approx(black - white - 7.5)


def test_ownership_of_an_empty_board_is_nobodys_and_of_a_lone_stone_is_everything():
    s = zerogym.make_state("go", board_size=4)
    assert np.array_equal(s.ownership(), np.zeros((4, 4), np.int8))
    s.step(5)
    assert np.array_equal(s.ownership(), np.ones((4, 4), np.int8))


@pytest.mark.parametrize("size", [2, 7, 9])
def test_ownership_sums_to_the_area_counts_on_random_positions(size):
    rng = np.random.default_rng(size)
    s = zerogym.make_state("go", board_size=size)
    for _ in range(3 * size * size):
        if s.is_over():
            break
        legal = s.legal_actions()
        s.step(int(rng.choice(legal[:-1] if len(legal) > 1 else legal)))
    own = s.ownership()
    assert own.dtype == np.int8 and own.shape == (size, size)
    board = s.board()
    assert np.all(own[board == 1] == 1) and np.all(own[board == 2] == -1)
    assert s.area() == (int((own == 1).sum()), int((own == -1).sum()))
