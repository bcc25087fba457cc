"""zerogym.play: whole games of a person against an agent, scripted through the input/output functions."""

import re

import numpy as np
import pytest

import zerogym
from zerogym.coords import format_action, parse_action
from play_agents import RandomAgent, ScriptAgent
from zerogym.play import PlayResult, Session, board_text, move_help, play, score_lines

GAMES = [
    ("go", dict(board_size=5)),
    ("othello", dict(board_size=6)),
    ("hex", dict(board_size=4)),
    ("connect_four", dict(rows=4, cols=5, connect=3)),
    ("tictactoe", dict()),
]


class Talk:
    """input_fn / print_fn pair: answers come from a function of no arguments (or a list); output is kept."""

    def __init__(self, answers):
        self.answers = answers if callable(answers) else iter(answers).__next__
        self.out, self.prompts = [], []

    def input(self, prompt):
        self.prompts.append(prompt)
        try:
            return self.answers()
        except StopIteration:
            raise EOFError from None

    def print(self, text=""):
        self.out.extend(str(text).splitlines())

    @property
    def text(self):
        return "\n".join(self.out)


def session(game, kw, answers, agent=None, human="first", seed=0):
    talk = Talk(answers)
    s = Session(game, agent if agent is not None else RandomAgent(seed), kw, human, seed, talk.input, talk.print)
    return s, talk


@pytest.mark.parametrize("human", ["first", "second"])
@pytest.mark.parametrize("game,kw", GAMES)
def test_scripted_game_to_the_end_with_bad_input_reasked(game, kw, human):
    # on every turn the person first types nonsense, then an illegal move (when there is one), then a legal move
    rng = np.random.default_rng(1)
    queue, expected = [], []
    s = None

    def answer():
        if not queue:
            st = s.state
            illegal = [a for a in range(st.num_actions) if not st.is_legal(a)]
            queue.append("zz9")
            expected.append(move_help(st))
            if illegal:
                a = int(rng.choice(illegal))
                queue.append(format_action(st.spec, a))
                expected.append(f"is not allowed: {st.illegal_reason(a)}")
            queue.append(format_action(st.spec, int(rng.choice(st.legal_actions()))))
        return queue.pop(0)

    s, talk = session(game, kw, answer, human=human)
    result = s.run()
    st = s.state
    assert st.is_over() and isinstance(result, PlayResult) and not queue
    # each bad answer got its reason and the question again
    mine = [a for p, a in s.history if p == result.human]
    assert len(talk.prompts) == len(mine) + len(expected)
    text = talk.text
    for words in expected:
        assert words in text
    # the moves replay to the final position, and the outcome matches it
    replayed = zerogym.make_state(game, **kw)
    for a in result.actions:
        replayed.step(a)
    assert replayed == st == result.state
    if st.is_truncated() or st.winner < 0:
        assert result.outcome in ("draw", "no result")
    else:
        assert result.outcome == ("win" if st.winner == result.human else "loss")
    # the agent's moves were printed in the coordinates a person types
    agent_moves = [a for p, a in s.history if p != result.human]
    printed = [m for m in (re.match(r"random (plays (?:column )?(\S+)\.|passes\.|swaps)", ln) for ln in talk.out) if m]
    assert len(printed) == len(agent_moves)
    for m, a in zip(printed, agent_moves):
        assert (parse_action(st.spec, m.group(2)) if m.group(2) else st.num_actions - 1) == a


@pytest.mark.parametrize("game,kw", GAMES)
def test_printed_labels_are_what_the_player_types(game, kw):
    # put one first-player piece on each cell in turn and read its coordinates off the text board
    spec = zerogym.make_state(game, **kw).spec
    h, w, _ = spec.obs_shape
    cells = range(w) if game == "connect_four" else range(h * w)
    for a in cells:
        st = zerogym.make_state(game, **kw)
        if not st.is_legal(a):
            continue  # Othello: only the opening moves
        st.step(a)
        lines = board_text(st).splitlines()
        header = lines[0]
        for i, line in enumerate(lines[1 : 1 + h]):
            if "[X]" not in line:  # the last move is bracketed
                continue
            pos = line.index("[X]") + 1
            row_label = re.match(r"\s*(\d+)", line).group(1) if game != "connect_four" else ""
            shift = i if game == "hex" else 0  # Hex rows lean one place per row
            col_label = header[pos - shift]
            typed = col_label if game == "connect_four" else f"{col_label}{row_label}"
            assert parse_action(spec, typed) == a, (game, a, typed)
            assert typed == format_action(spec, a)  # as errors and move lines write it
            break
        else:
            raise AssertionError(f"the move {a} is not marked on the board")


def test_connect_four_board_has_no_row_numbers():
    st = zerogym.make_state("connect_four")
    st.step(3)
    lines = board_text(st).splitlines()
    assert lines[0].split() == [str(c) for c in range(1, 8)]
    assert all(set(ln.replace("[", " ").replace("]", " ").split()) <= {".", "X", "O"} for ln in lines[1:7])
    assert "[X]" in lines[6]  # the last move, on the bottom row


@pytest.mark.parametrize(
    "game,kw,theirs",
    [
        ("go", dict(board_size=5), [0, 24, 4, 20]),
        ("hex", dict(board_size=5), [0, 24, 4, 20]),
        ("othello", dict(board_size=6), None),
    ],
)
@pytest.mark.parametrize("human", ["first", "second"])
def test_undo_restores_the_position_exactly(game, kw, theirs, human):
    # person: a move, (snapshot) another move, undo, (compare), quit
    seen = {}
    s = None
    script = iter(["first", "second", "undo", "compare"])

    def answer():
        step = next(script)
        st = s.state
        if step == "first":
            legal = st.legal_actions()
            return format_action(st.spec, int(legal[len(legal) // 2]))  # away from the agent's corners
        if step == "second":
            seen["state"], seen["history"] = st.copy(), list(s.history)
            legal = st.legal_actions()
            return format_action(st.spec, int(legal[len(legal) // 2]))
        if step == "undo":
            seen["moved"] = st.copy()
            return "undo"
        seen["after"] = st.copy()
        raise StopIteration

    agent = ScriptAgent(theirs) if theirs else RandomAgent(0)
    s, talk = session(game, kw, answer, agent=agent, human=human)
    result = s.run()
    assert seen["moved"] != seen["state"]
    assert seen["after"] == seen["state"] and seen["after"].hash == seen["state"].hash
    assert [a for _, a in seen["history"]] == result.actions
    assert "Took back" in talk.text


def test_undo_when_the_person_moves_second_and_has_not_moved():
    s, talk = session("tictactoe", {}, ["undo", "quit"], human="second")
    result = s.run()
    assert "Nothing to undo" in talk.text
    assert result.outcome == "quit" and len(result.actions) == 1  # only the agent's first move


def test_hint_prints_a_legal_move_and_changes_nothing():
    seen = {}
    s = None

    def answer():
        if "hint" not in seen:
            seen["hint"] = s.state.copy()
            return "hint"
        raise StopIteration

    for game, kw in GAMES:
        seen.clear()
        s, talk = session(game, kw, answer, agent=RandomAgent(3))
        s.run()
        hints = [ln.rsplit(" ", 1)[1] for ln in talk.out if ln.startswith("hint:")]
        assert len(hints) == 1
        assert s.state == seen["hint"]  # nothing was played
        assert s.state.is_legal(parse_action(s.spec, hints[0].removeprefix("column ")))


def test_resign_ends_the_game():
    s, talk = session("go", dict(board_size=5), ["C3", "resign", "D4"])
    result = s.run()
    assert result.outcome == "resigned" and result.winner == 1
    assert len(talk.prompts) == 2  # nothing asked after resigning
    assert not result.state.is_over() and len(result.actions) == 2


def test_end_of_input_quits():
    result = play("tictactoe", RandomAgent(0), input_fn=Talk([]).input, print_fn=lambda *a: None)
    assert result.outcome == "quit" and result.actions == []


def test_help_lists_the_commands():
    s, talk = session("go", dict(board_size=5), ["help", "quit"])
    s.run()
    text = talk.text
    for word in ("undo", "hint", "resign", "quit", "pass"):
        assert text.count(word) >= 2  # in the greeting and again after help


GO_GAMES = [
    # (board_size, komi, human moves, agent moves): both pass at the end
    (5, 7.5, ["C3", "C2", "D3", "pass"], [6, 16, 20]),
    (5, 0.5, ["A1", "B2", "pass"], [24, 23]),
    (4, 2.0, ["B2", "C2", "B3", "C3", "pass"], [0, 15, 3, 12]),
    (3, 7.5, ["pass", "pass"], [4]),
]


@pytest.mark.parametrize("n,komi,mine,theirs", GO_GAMES)
def test_go_score_explanation_adds_up(n, komi, mine, theirs):
    s, talk = session("go", dict(board_size=n, komi=komi), mine, agent=ScriptAgent(theirs))
    result = s.run()
    st = s.state
    assert st.is_terminal() and st.passes == 2
    text = talk.text
    b = re.search(r"black: (\d+) stones \+ (\d+) territory = (\d+)", text)
    w = re.search(r"white: (\d+) stones \+ (\d+) territory \+ ([\d.]+) komi = ([\d.]+)", text)
    assert b and w
    bs, bt, btotal = (int(v) for v in b.groups())
    ws, wt, wk, wtotal = int(w.group(1)), int(w.group(2)), float(w.group(3)), float(w.group(4))
    board = st.board()
    assert (bs, ws) == ((board == 1).sum(), (board == 2).sum())
    assert (bs + bt, ws + wt) == st.area() == (btotal, wtotal - wk)
    assert wk == komi
    assert btotal - wtotal == pytest.approx(st.score())
    if st.score() != 0:
        m = re.search(r"(Black|White) wins by ([\d.]+)\.", text)
        assert m and float(m.group(2)) == pytest.approx(abs(st.score()))
        assert (m.group(1) == "Black") == (st.score() > 0)
        assert result.outcome == ("win" if st.score() > 0 else "loss")


def test_go_truncated_game_has_no_result():
    s, talk = session("go", dict(board_size=3, max_moves=4), ["A1", "C3"], agent=ScriptAgent([4, 1]))
    result = s.run()
    assert s.state.is_truncated() and result.outcome == "no result"
    assert "max_moves=4" in talk.text


def test_othello_pass_only_when_forced_and_final_disc_count():
    s, talk = session("othello", dict(board_size=6), ["pass", "quit"])
    s.run()
    assert s.state.illegal_reason(s.spec.num_actions - 1) in talk.text
    # a finished game explains the disc count
    st = zerogym.make_state("othello", board_size=4)
    b = np.zeros((4, 4), np.int8)
    b[0, 0], b[0, 1], b[3, 3] = 1, 2, 2
    st.set_position(b, 0)
    st.step(2)  # black c1 flips b1; then nobody can place (see tests/zerogym/envs)
    line = " ".join(score_lines(st))
    black, white = st.counts()
    assert f"black {black}, white {white}" in line and f"black wins by {black - white}" in line


def test_othello_forced_pass_is_announced_and_accepted():
    # white on a1, black on b1, black to move: black cannot place, white then takes c1 and the game ends
    s, talk = session("othello", dict(board_size=4), ["A1", "pass"], agent=ScriptAgent([]))
    board = np.zeros((4, 4), np.int8)
    board[0, 0], board[0, 1] = 2, 1
    s.state.set_position(board, 0)
    result = s.run()
    text = talk.text
    assert "You have no legal placement: type pass." in text
    assert "a1 is not allowed: that square is occupied" in text
    assert result.actions == [16, 2] and s.state.is_terminal()
    assert result.outcome == "loss" and "black 0, white 3" in text


def test_hex_swap_and_its_refusal():
    s, talk = session("hex", dict(board_size=5), ["swap", "quit"], agent=ScriptAgent([1 * 5 + 3]), human="second")
    s.run()
    board = s.state.board()
    assert board[3, 1] == 2 and board.sum() > 0  # D2 (row 1, col 3) became white on (3, 1): B4
    s, talk = session("hex", dict(board_size=5, swap=False), ["swap", "quit"], agent=ScriptAgent([8]), human="second")
    s.run()
    assert s.state.illegal_reason(25) in talk.text and s.state.move_count == 1


def test_the_winner_of_a_line_game_is_explained():
    # X: A1 B2 C3 wins; the agent plays A2, A3
    s, talk = session("tictactoe", {}, ["A1", "B2", "C3"], agent=ScriptAgent([3, 6]))
    result = s.run()
    assert result.outcome == "win"
    assert "X made 3 in a row: A1 B2 C3." in talk.text
    s, talk = session("connect_four", {}, ["1", "1", "1", "1"], agent=ScriptAgent([1, 2, 3]))
    result = s.run()
    assert result.outcome == "win" and "made 4 in a row (column 1)" in talk.text


def test_a_draw_is_said_so():
    # X: A3 C3 B1 A2 C1, O: B3 B2 A1 C2 fills the board without a line
    s, talk = session("tictactoe", {}, ["A3", "C3", "B1", "A2", "C1"], agent=ScriptAgent([7, 4, 0, 5]))
    result = s.run()
    assert s.state.is_terminal() and s.state.winner == -1
    assert result.outcome == "draw" and "nobody made a line" in talk.text


def test_an_agent_must_be_an_object_that_acts():
    with pytest.raises(
        ValueError,
        match="agent must have an act.env. method, got 'uct:400' .agent specs such as "
        "'uct:400' are read by zerogym_agents.cli.play.session",
    ):
        Session("go", "uct:400", dict(board_size=5))
    with pytest.raises(ValueError, match="first' or 'second"):
        Session("go", RandomAgent(0), dict(board_size=5), human="both")


def test_an_empty_line_asks_again_without_complaint():
    s, talk = session("connect_four", {}, ["", "   ", "quit"])
    assert s.run().outcome == "quit"
    assert len(talk.prompts) == 3 and "is not a column" not in talk.text and "''" not in talk.text


def test_the_board_footer_names_the_players_as_the_prompt_does():
    s, talk = session("connect_four", {}, ["quit"])
    s.run()
    assert "move 0, X to move" in talk.text and "player_0" not in talk.text
    assert talk.prompts == ["X to move> "]
    s, talk = session("go", {"board_size": 5}, ["quit"])
    s.run()
    assert "move 0, black (X) to move" in talk.text and "black_0" not in talk.text


def test_the_swap_is_offered_only_while_it_is_legal():
    # the help at white's first move offers the swap; at its second move no longer
    s, talk = session(
        "hex", {"board_size": 5}, ["help", "A1", "help", "Z9", "quit"], agent=ScriptAgent([12, 6]), human="second"
    )
    s.run()
    helps = [line for line in talk.out if line.startswith("Type a move:")]
    assert len(helps) == 3 and helps[1].endswith("like D3, or swap.") and helps[2].endswith("like D3.")
    assert talk.out[-2].endswith("type a column letter A..E then a row number 1..5, like D3")


def test_breakthrough_moves_are_named_from_cell_to_cell():
    """The agent's move, a refused move and the undo line name both cells, as the person types them."""
    kw = {"rows": 5, "cols": 5}
    white_up = (3 * 5 + 3) * 3 + 1  # white's piece on d4 (row index 3) one row up, to d3
    s, talk = session("breakthrough", kw, ["b2-b3", "b3-b4", "undo"], agent=ScriptAgent([white_up]))
    s.run()
    assert "plays d4-d3." in talk.text
    assert "b3-b4 is not allowed" in talk.text  # white's piece stands on b4: no straight capture
    assert "Took back b2-b3, d4-d3." in talk.text


@pytest.mark.parametrize("n", [4, 8])
def test_havannah_column_letters_stand_at_both_ends_of_each_column(n):
    # a person finds a cell's name by following its column (down to the right, one character a row) up to
    # the letter just past its top end and down to the letter just past its bottom end, and its row number on
    # the left; the hexagon holds the cells with n-1 <= r+c <= 3n-3 of the d x d grid
    spec = zerogym.make_state("havannah", board_size=n).spec
    d = 2 * n - 1
    corners = [(0, n - 1), (0, d - 1), (n - 1, 0), (n - 1, d - 1), (d - 1, 0), (d - 1, n - 1)]
    inside = [(n - 1, n - 1), (1, n), (n, 2), (d - 2, 1), (n - 2, d - 2), (2, n - 2)]
    for r, c in corners + inside:
        a = r * d + c
        st = zerogym.make_state("havannah", board_size=n)
        st.step(a)
        lines = board_text(st).splitlines()
        (i,) = [i for i, line in enumerate(lines) if "[X]" in line]
        x = lines[i].index("[X]") + 1
        first, last = max(0, n - 1 - c), min(d - 1, 3 * n - 3 - c)  # the column's rows
        up = [lines[i - k][x - k] for k in range(1, r - first + 2)]
        down = [lines[i + k][x + k] for k in range(1, last - r + 2)]
        assert set(up[:-1] + down[:-1]) <= {"."}, (r, c, lines)  # the column's other cells, all empty
        row = re.match(r"\s*(\d+)", lines[i]).group(1)
        typed = f"{up[-1]}{row}"
        assert up[-1] == down[-1], (r, c, lines)
        assert parse_action(spec, typed) == a, (r, c, typed)
        assert format_action(spec, a) == typed
