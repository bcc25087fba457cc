"""zerogym.clicks: games played by clicks on their picture, for every game, without a browser."""

import numpy as np
import pytest

import zerogym
from cases import GAME_CASES, case_id
from play_agents import RandomAgent, ScriptAgent
from zerogym import render
from zerogym._core.breakthrough import MOVE_OFFSETS
from zerogym.clicks import ClickPlay
from zerogym.play import Game, score_lines


def click_play(game, kw, agent=None, human="first", cell=30):
    return ClickPlay(Game(game, agent or RandomAgent(0), kw, human, seed=0), cell=cell)


def centre(cp, rc):
    return render.cell_geometry(cp.game.state, cell=cp.cell).centres[rc]


def click_cell(cp, rc):
    cp.click(*centre(cp, rc))


def breakthrough_cells(state, action, player):
    """(from, to) of a Breakthrough action, by the rules: player 0 moves to higher rows."""
    cols = state.board().shape[1]
    cell, d = divmod(action, 3)
    r, c = divmod(cell, cols)
    dr, dc = MOVE_OFFSETS[d]
    return (r, c), (r + dr * (1 - 2 * player), c + dc)


def clicks_for(cp, action):
    """Play `action` as a person does: a button, a click on its cell (any cell of its column), or the
    piece then where it goes."""
    g = cp.game
    spec, w = g.spec, g.state.board().shape[1]
    if action == spec.pass_action:
        cp.press("pass")
    elif action == spec.swap_action:
        cp.press("swap")
    elif spec.action_kind == "columns":
        click_cell(cp, (int(np.random.default_rng(action).integers(g.state.board().shape[0])), action))
    elif spec.action_kind == "cells":
        click_cell(cp, divmod(action, w))
    else:
        source, target = breakthrough_cells(g.state, action, g.me)
        click_cell(cp, source)
        assert cp.selected == source
        click_cell(cp, target)


@pytest.mark.parametrize("human", ["first", "second"])
@pytest.mark.parametrize("case", GAME_CASES, ids=case_id)
def test_every_legal_move_is_played_by_clicks(case, human):
    game, kw = case
    cp = click_play(game, kw, human=human)
    rng = np.random.default_rng(5)
    for _ in range(12):
        g = cp.game
        if g.over:
            break
        assert not g.agent_to_move
        action = int(rng.choice(g.state.legal_actions()))
        mine = len([1 for p, _ in g.history if p == g.me])
        clicks_for(cp, action)
        assert [a for p, a in g.history if p == g.me][mine:] == [action], cp.message
        assert cp.selected is None and cp.message.startswith("You play ")
    assert cp.moves() == [zerogym.coords.format_action(cp.game.env, a, p) for p, a in cp.game.history]


@pytest.mark.parametrize("case", GAME_CASES, ids=case_id)
def test_a_click_off_the_board_or_on_an_illegal_cell_leaves_the_game_as_it_was(case):
    game, kw = case
    cp = click_play(game, kw)
    cp.press("new")
    first = int(cp.game.state.legal_actions()[0])
    clicks_for(cp, first)
    before, history = cp.game.state.copy(), list(cp.game.history)
    cp.click(0.5, 0.5)  # the picture's corner: margin
    assert cp.message == "That is not on the board: click a cell."
    h, w = cp.game.state.board().shape
    occupied = [tuple(int(v) for v in rc) for rc in np.argwhere(cp.game.state.board() != 0)]
    if cp.game.spec.action_kind == "cells":
        click_cell(cp, occupied[0])
        assert " is not allowed: " in cp.message
    elif cp.game.spec.action_kind == "columns":
        mine = (h + 1) // 2  # the person's discs in column 1; the agent fills it, then plays column 2
        cp = click_play(game, kw, agent=ScriptAgent([0 if 2 * i + 2 <= h else 1 for i in range(mine)]))
        for _ in range(mine):
            click_cell(cp, (0, 0))
        before, history = cp.game.state.copy(), list(cp.game.history)
        assert (cp.game.state.board()[:, 0] != 0).all()
        click_cell(cp, (h - 1, 0))
        assert cp.message.startswith("column 1 is not allowed: ")
    else:  # a piece first: an empty cell, or the opponent's piece, is refused
        empty = tuple(int(v) for v in np.argwhere(cp.game.state.board() == 0)[0])
        click_cell(cp, empty)
        assert "Click one of your pieces" in cp.message and cp.selected is None
        theirs = tuple(int(v) for v in np.argwhere(cp.game.state.board() == 2 - cp.game.me)[0])
        click_cell(cp, theirs)
        assert "Click one of your pieces" in cp.message
    assert cp.game.state == before and cp.game.history == history


def test_breakthrough_picks_a_piece_up_shows_where_it_may_go_and_refuses_elsewhere():
    cp = click_play("breakthrough", dict(rows=6, cols=6))
    click_cell(cp, (1, 0))  # the edge piece on a2: it may go to a3 or b3
    assert cp.selected == (1, 0) and "a2 picked up" in cp.status()
    img = cp.picture()
    for rc in [(1, 0), (2, 0), (2, 1)]:
        y, x = centre(cp, rc)
        assert tuple(img[int(y), int(x)]) == render.HIGHLIGHT
    click_cell(cp, (3, 0))  # two rows ahead
    assert cp.message == "The piece on a2 cannot go to a4; it may go to a3, b3."
    assert cp.game.history == [] and cp.selected == (1, 0)
    click_cell(cp, (0, 0))  # a piece behind it, with no move: refused, the selection kept
    assert cp.message == "The piece on a1 has no move." and cp.selected == (1, 0)
    click_cell(cp, (1, 0))  # the piece again: put back
    assert cp.selected is None
    click_cell(cp, (1, 3))
    click_cell(cp, (2, 2))
    assert [a for p, a in cp.game.history if p == 0] == [(1 * 6 + 3) * 3 + 0]


def test_connect_four_takes_any_cell_of_a_column():
    cp = click_play("connect_four", {}, agent=ScriptAgent([6, 6]))
    click_cell(cp, (0, 2))  # the top hole of column 3: the disc drops to the bottom
    click_cell(cp, (5, 2))
    assert [a for p, a in cp.game.history] == [2, 6, 2, 6]
    assert cp.game.state.board()[5, 2] == cp.game.state.board()[4, 2] == 1


def test_the_swap_button_is_there_only_while_the_swap_is_legal():
    cp = click_play("hex", dict(board_size=5), agent=ScriptAgent([12, 0]), human="second")
    assert cp.buttons()["swap"] is True and cp.game.history == [(0, 12)]
    cp.press("swap")  # then black moves again: A1
    assert [a for _, a in cp.game.history] == [12, 25, 0] and cp.message.startswith("You play swap.\n")
    assert "swap" not in cp.buttons()
    cp = click_play("hex", dict(board_size=5), agent=ScriptAgent([3]))
    assert "swap" not in cp.buttons()  # black's first move: nothing to swap
    cp.press("swap")
    assert " is not allowed: " in cp.message and cp.game.history == []
    assert "swap" not in click_play("hex", dict(board_size=5, swap=False)).buttons()


def test_othello_offers_pass_only_when_it_is_forced():
    # black to move with no placement: a 4x4 position where black has one disc hemmed in by white's
    cp = click_play("othello", dict(board_size=4))
    assert cp.buttons()["pass"] is False
    cp.press("pass")
    assert " is not allowed: " in cp.message
    g = cp.game
    rng = np.random.default_rng(0)
    for seed in range(200):  # random games until the person must pass
        cp = click_play("othello", dict(board_size=4), agent=RandomAgent(seed))
        g = cp.game
        while not g.over and not g.must_pass:
            clicks_for(cp, int(rng.choice(g.state.legal_actions())))
        if g.must_pass:
            break
    assert g.must_pass and cp.buttons()["pass"] is True
    assert cp.status() == "You have no legal placement: press Pass."
    moves = len(g.history)
    cp.press("pass")
    assert g.history[moves] == (g.me, g.spec.pass_action)


def test_go_pass_button_and_the_explained_result():
    cp = click_play("go", dict(board_size=5), agent=ScriptAgent([24]))
    click_cell(cp, (2, 2))  # C3
    assert cp.message == "You play C3.\nscript plays E5." and cp.buttons()["pass"]
    cp.game.agent.actions = [25]
    cp.press("pass")
    assert cp.game.over and cp.message == "You play pass.\nscript passes."
    assert cp.result() == "\n".join(
        [*score_lines(cp.game.state), "You win!" if cp.game.state.winner == 0 else "script wins."]
    )
    assert cp.status().startswith("Game over: ")
    click_cell(cp, (0, 0))
    assert cp.message == "The game is over: press New game to play another."
    assert cp.buttons() == {"pass": False, "undo": True, "hint": False, "new": True}


def test_tictactoe_win_is_explained_and_undo_and_hint_work():
    # X (the person) takes the bottom row; the agent answers A2, B2
    cp = click_play("tictactoe", {}, agent=ScriptAgent([3, 4]))
    assert cp.buttons()["undo"] is False
    cp.press("undo")
    assert cp.message == "Nothing to undo: you have not moved yet."
    click_cell(cp, (0, 0))
    click_cell(cp, (0, 1))
    cp.press("undo")  # takes back B1 and the agent's B2
    assert cp.message == "Took back B1, B2." and [a for _, a in cp.game.history] == [0, 3]
    cp.game.agent.actions = [2, 4]  # asked for a hint: C1; then answers B2
    cp.press("hint")
    assert cp.message == "hint: the agent would play C1" and [a for _, a in cp.game.history] == [0, 3]
    click_cell(cp, (0, 1))
    click_cell(cp, (0, 2))
    assert cp.game.outcome == "win"
    assert cp.result() == "X made 3 in a row: A1 B1 C1.\nYou win!"
    cp.press("new")
    assert cp.game.history == [] and cp.result() == "" and cp.message.startswith("Tic-tac-toe: 3x3")


def test_a_new_game_on_the_second_side_lets_the_agent_open():
    cp = click_play("tictactoe", {}, agent=ScriptAgent([4, 0]))
    cp.new_game("second")
    assert cp.game.me == 1 and cp.game.history == [(0, 4)] and cp.message.endswith("script plays B2.")
    click_cell(cp, (2, 2))
    cp.press("undo")  # the person's move and the answer; the agent's opening stays
    assert [a for _, a in cp.game.history] == [4]


def test_bad_arguments_are_refused_with_what_is_allowed():
    with pytest.raises(ValueError, match="pixels per board cell, 12..200"):
        click_play("go", dict(board_size=5), cell=5)
    cp = click_play("go", dict(board_size=5))
    with pytest.raises(ValueError, match="the buttons are pass, swap, undo, hint, new"):
        cp.press("resign")
    with pytest.raises(ValueError, match="finite"):
        cp.click(float("nan"), 1.0)
