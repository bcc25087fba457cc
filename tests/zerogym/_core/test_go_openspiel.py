"""Go against OpenSpiel's "go" (pyspiel) on many random games, move by move.

What OpenSpiel implements (read from its source and checked here by experiment):
- actions r * N + c with row 0 = rank 1 ("a1" is action 0), N * N = pass, black moves first:
  the same encoding as ours, so actions map one to one;
- board sizes 2..19 (ours go to 25); max_game_length defaults to 2 * N * N, like our max_moves;
- suicide is illegal; simple ko: the point of a single stone just captured by a lone stone played
  into an enemy eye is illegal for the next move only (what our superko="simple" does);
- its legal moves do NOT check positional superko: a stone move that recreates an earlier board
  ends the game at once as a draw.  Ours, with superko="positional", makes such a move illegal
  instead.  So the legal sets are compared against superko="simple", and a positional twin is
  checked against OpenSpiel's superko ending: the moves it forbids are exactly those that end
  OpenSpiel's game by superko;
- Tromp-Taylor area score plus komi for white; returns +1/-1, 0 for a draw; at max_game_length
  the game is TERMINAL with the score decided as usual, where ours is TRUNCATED with rewards 0.
  Returns are therefore compared only for games that ended by two passes.
"""
import numpy as np
import pyspiel
import pytest

from zerogym._core.go import GoState

SUPERKO = "that move repeats an earlier position (positional superko)"


def spiel_board(state, n):
    """(N, N) int8 board parsed from OpenSpiel's text: 0 empty, 1 black (X), 2 white (O)."""
    b = np.zeros((n, n), np.int8)
    rows = 0
    for line in state.observation_string(0).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit():
            r = int(parts[0]) - 1
            for c, ch in enumerate(parts[1]):
                b[r, c] = {"+": 0, "X": 1, "O": 2}[ch]
            rows += 1
    assert rows == n
    return b


def ended_by_superko(spiel_state, game):
    """True if OpenSpiel's game ended because the last stone move repeated a board."""
    hist = spiel_state.history()
    n2 = game.num_distinct_actions() - 1
    two_passes = len(hist) >= 2 and hist[-1] == n2 and hist[-2] == n2
    return spiel_state.is_terminal() and not two_passes and len(hist) < game.max_game_length()


def play_one(n, komi, rng, stone_bias):
    game = pyspiel.load_game("go", {"board_size": n, "komi": komi})
    assert game.max_game_length() == 2 * n * n
    sp = game.new_initial_state()
    simple = GoState(n, komi=komi, superko="simple")
    pos = GoState(n, komi=komi, superko="positional")
    assert simple.spec.kwargs["max_moves"] == game.max_game_length()
    pos_alive = True                      # the positional twin still follows the same moves
    history = []
    stats = {"superko_moves": 0}
    while not sp.is_terminal():
        legal = sorted(sp.legal_actions())
        assert simple.legal_actions().tolist() == legal
        assert sp.current_player() == simple.current_player
        assert not simple.is_over()
        assert np.array_equal(spiel_board(sp, n), simple.board())
        if pos_alive:
            assert np.array_equal(pos.board(), simple.board()) and pos.current_player == simple.current_player
            pos_legal = set(pos.legal_actions().tolist())
            assert pos_legal <= set(legal)
            # moves positional superko forbids = moves that end OpenSpiel's game by superko
            for a in sorted(set(legal) - pos_legal):
                assert pos.illegal_reason(a) == SUPERKO
                child = sp.child(a)
                assert child.is_terminal() and child.returns() == [0.0, 0.0]
                # (a superko move that is also the last allowed move cannot be told apart)
                assert ended_by_superko(child, game) or len(child.history()) == game.max_game_length()
                stats["superko_moves"] += 1
            for a in rng.choice(sorted(pos_legal), size=min(3, len(pos_legal)), replace=False):
                child = sp.child(int(a))
                assert not ended_by_superko(child, game)
        stones = legal[:-1]
        if stones and rng.random() < stone_bias:
            a = int(rng.choice(stones))
        else:
            a = int(rng.choice(legal))
        sp.apply_action(a)
        simple.step(a)
        history.append(a)
        if pos_alive:
            if pos.is_legal(a):
                pos.step(a)
                assert pos.hash == simple.hash
            else:
                pos_alive = False
    if ended_by_superko(sp, game):
        stats["end"] = "superko"
        assert not simple.is_over() or simple.move_count == simple.spec.kwargs["max_moves"]
        assert not pos_alive
    elif simple.is_truncated():
        stats["end"] = "length"
        assert len(sp.history()) == game.max_game_length()
        assert simple.returns() == (0.0, 0.0) and simple.winner == -1
    else:
        stats["end"] = "passes"
        assert simple.is_terminal()
        assert tuple(sp.returns()) == simple.returns()
        assert np.array_equal(spiel_board(sp, n), simple.board())
        if pos_alive:
            assert pos.is_terminal() and pos.returns() == simple.returns()
        # the exact score: with komi = our area difference OpenSpiel must call it a draw
        black, white = simple.area()
        if n <= 9:
            replay = pyspiel.load_game("go", {"board_size": n, "komi": float(black - white)}).new_initial_state()
            for a in history:
                replay.apply_action(a)
            assert replay.is_terminal() and replay.returns() == [0.0, 0.0]
    return stats


@pytest.mark.parametrize("n, games", [(2, 600), (3, 600), (4, 400), (5, 300), (7, 80), (9, 30), (13, 6), (19, 3)])
def test_random_games_agree_with_openspiel(n, games):
    rng = np.random.default_rng(1000 + n)
    ends = {"passes": 0, "length": 0, "superko": 0}
    superko_moves = 0
    for g in range(games):
        komi = (0.0, 0.5, 7.5, 2.0)[g % 4]
        stats = play_one(n, komi, rng, stone_bias=(0.0, 0.9, 0.97)[g % 3])
        ends[stats["end"]] += 1
        superko_moves += stats["superko_moves"]
    # the comparison covered games that ended by passes (returns compared) at every size
    assert ends["passes"] > 0
    if n <= 4:
        assert superko_moves > 0 and ends["superko"] > 0


def test_double_ko_cycle_ends_openspiel_by_superko():
    # the double-ko cycle of tests/zerogym/_core/test_go.py: the last move recreates the start board
    n = 7
    names = ["B3", "C3", "A2", "B2", "B1", "D2", "C7", "C1", "B6", "B7", "D6", "A6", "C5", "B5",
             "C2", "C6", "pass", "B2", "B6"]

    def action(name):
        if name == "pass":
            return n * n
        return (int(name[1:]) - 1) * n + "ABCDEFGHJ".index(name[0])

    sp = pyspiel.load_game("go", {"board_size": n, "komi": 7.5}).new_initial_state()
    simple, pos = GoState(n, superko="simple"), GoState(n)
    for name in names[:-1]:
        for s in (sp, simple, pos):
            s.apply_action(action(name)) if s is sp else s.step(action(name))
    last = action(names[-1])
    assert last in sp.legal_actions() and simple.is_legal(last)
    assert pos.illegal_reason(last) == SUPERKO
    sp.apply_action(last)
    assert sp.is_terminal() and sp.returns() == [0.0, 0.0]
    simple.step(last)
    assert not simple.is_over()
