"""GreedyAgent: wins now, blocks immediate losses, captures, takes corners; beats Random."""

import numpy as np
import pytest

import zerogym
from zerogym_agents.arena import play_match
from zerogym_agents.agents.base import RandomAgent
from zerogym_agents.agents.greedy import GreedyAgent


def env_after(game, moves, **kwargs):
    env = zerogym.make(game, illegal="raise", **kwargs)
    env.reset()
    for a in moves:
        env.step(a)
    return env


def othello_6x6(board):
    """(env, state) of 6x6 Othello set to `board` (1 black, 2 white), black to move."""
    env = env_after("othello", (), board_size=6)
    env.unwrapped.state.set_position(board, to_play=0)
    return env, env.unwrapped.state


def immediate_wins(st):
    """Moves that win at once for the player to move (by trying each)."""
    me = st.current_player
    return {int(a) for a in st.legal_actions() if st.copy().step(int(a)).winner == me}


def opponent_wins_next(st, a):
    """True if after the mover plays `a` the opponent has an immediate win."""
    child = st.copy().step(int(a))
    return not child.is_over() and bool(immediate_wins(child))


def picks(env, seeds=range(12)):
    return {GreedyAgent(seed=s).act(env) for s in seeds}


# the games of the positions below, in their order
GAMES = [("tictactoe", {}), ("tictactoe", {"board_size": 5, "win_length": 4}), ("connect_four", {})]
GAMES += [("connect_four", {}), ("hex", {"board_size": 3, "swap": False})]
# moves after which the player to move wins at once. Tic-tac-toe: X 0, O 3, X 1, O 4 -> X wins on 2 (and
# would block 5 otherwise); Connect Four: columns 0 1 0 1 0 1 -> the first player completes column 0
WINNING = [(0, 3, 1, 4), (0, 12, 1, 13, 2, 14), (0, 1, 0, 1, 0, 1), (1, 0, 2, 0, 3, 5), (1, 0, 4, 3)]
# moves after which the player to move has no win and must stop one. Tic-tac-toe: X 0, O 4, X 8, O 1 -> O
# threatens 7 and X has no win: X must play 7; Connect Four: 1 0 1 0 2 0 -> the second player threatens column 0
THREATENED = [(0, 4, 8, 1), (0, 12, 24, 13, 20, 14), (1, 0, 1, 0, 2, 0), (6, 0, 6, 1, 5, 2), (2, 3, 6, 4)]


@pytest.mark.parametrize("game, moves, kwargs", [(g, m, kw) for (g, kw), m in zip(GAMES, WINNING)])
def test_takes_an_immediate_win(game, moves, kwargs):
    env = env_after(game, moves, **kwargs)
    wins = immediate_wins(env.unwrapped.state)
    assert wins
    assert picks(env) <= wins


@pytest.mark.parametrize("game, moves, kwargs", [(g, m, kw) for (g, kw), m in zip(GAMES, THREATENED)])
def test_blocks_an_immediate_loss(game, moves, kwargs):
    env = env_after(game, moves, **kwargs)
    st = env.unwrapped.state
    assert not immediate_wins(st)
    safe = {int(a) for a in st.legal_actions() if not opponent_wins_next(st, a)}
    assert 0 < len(safe) < len(st.legal_actions())  # the position has a threat to answer
    assert picks(env) <= safe


def test_prefers_a_longer_own_line_then_the_centre():
    # Gomoku 7x7 (win 5): X on (3,2),(3,3), O far away; extending the row beats any other move
    n = 7
    env = env_after("tictactoe", (3 * n + 2, 0, 3 * n + 3, 6), board_size=n, win_length=5)
    assert picks(env) <= {3 * n + 1, 3 * n + 4}
    # empty 3x3: every move makes a line of one, the centre is nearest
    assert picks(env_after("tictactoe", ())) == {4}


def test_captures_in_go():
    # 5x5: black (1,2) (3,2) (2,1) around white (2,2); white's other stones sit on corners
    n = 5
    moves = (1 * n + 2, 2 * n + 2, 3 * n + 2, 0, 2 * n + 1, 4)
    env = env_after("go", moves, board_size=n)
    st = env.unwrapped.state
    assert st.liberties(2, 2) == 1
    assert picks(env) == {2 * n + 3}
    after = st.copy().step(2 * n + 3)
    assert after.board()[2, 2] == 0


def test_saves_a_chain_in_atari_in_go():
    # black (2,2) loses liberties to white (1,2) (2,1) (3,2); black's only escape is (2,3)
    n = 5
    moves = (2 * n + 2, 1 * n + 2, 0, 2 * n + 1, 4, 3 * n + 2)
    env = env_after("go", moves, board_size=n)
    st = env.unwrapped.state
    assert st.current_player == 0 and st.liberties(2, 2) == 1
    assert picks(env) == {2 * n + 3}
    assert st.copy().step(2 * n + 3).liberties(2, 2) >= 2


def test_never_fills_an_own_eye_nor_plays_self_atari_in_go():
    # black (0,1) (1,0) make an eye at the corner (0,0); white far away
    n = 5
    env = env_after("go", (1, 4 * n + 4, n, 4 * n + 3), board_size=n)
    st = env.unwrapped.state
    chosen = picks(env, range(60))
    assert 0 not in chosen and n * n not in chosen
    for a in chosen:  # nothing chosen leaves its own stone with one liberty
        r, c = divmod(a, n)
        assert st.copy().step(a).liberties(r, c) >= 2


def test_passes_when_only_own_eyes_remain():
    # 2x2 board: black on (0,0) and (1,1) leaves two one-point eyes; white passes in between
    env = env_after("go", (0, 4, 3, 4), board_size=2)
    st = env.unwrapped.state
    assert st.current_player == 0
    assert set(st.legal_actions()) >= {1, 2, 4}
    assert picks(env) == {4}


def test_takes_a_corner_in_othello():
    board = np.zeros((6, 6), np.int8)
    board[0, 1:4] = 2  # white run on the top edge, black at its end: (0, 0) flips three
    board[0, 4] = 1
    board[2, 2:5] = 2  # a longer white run elsewhere: (2, 1) flips three plus more discs count
    board[2, 5] = 1
    board[3, 1:5] = 2
    board[3, 5] = 1
    env, st = othello_6x6(board)
    legal = set(int(a) for a in st.legal_actions())
    assert 0 in legal
    discs = {a: st.copy().step(a).counts()[0] for a in legal}
    assert max(discs.values()) > discs[0]  # another move flips more, the corner still wins
    assert picks(env) == {0}


def test_avoids_x_squares_in_othello():
    board = np.zeros((6, 6), np.int8)
    board[2, 2] = board[3, 3] = board[4, 4] = 2  # (1, 1), next to the empty corner, flips three
    board[5, 5] = 1
    board[2, 3] = 2  # (2, 1) flips two
    board[2, 4] = 1
    env, st = othello_6x6(board)
    legal = {int(a) for a in st.legal_actions()}
    discs = {a: st.copy().step(a).counts()[0] for a in legal}
    x_square = 1 * 6 + 1
    assert x_square in legal and discs[x_square] == max(discs.values()) and len(legal) > 1
    chosen = picks(env)
    assert x_square not in chosen
    others = {a: d for a, d in discs.items() if a != x_square}
    assert chosen <= {a for a, d in others.items() if d == max(others.values())}


def test_greedy_beats_random_at_connect_four():
    m = play_match(GreedyAgent(), RandomAgent(), "connect_four", {}, games=200, seed=2024)
    score = m.total.score / m.games
    assert score > 0.85
    assert m.a_first.games == m.b_first.games == 100


def test_other_games_are_legal_and_seeded():
    for game, kwargs in (("othello", {"board_size": 6}), ("hex", {"board_size": 5}), ("go", {"board_size": 5})):
        a = play_match(GreedyAgent(), RandomAgent(), game, kwargs, games=4, seed=3)
        b = play_match(GreedyAgent(), RandomAgent(), game, kwargs, games=4, seed=3)
        assert [r["actions"] for r in a.records] == [r["actions"] for r in b.records]
        assert all(r["illegal"] is None for r in a.records)
