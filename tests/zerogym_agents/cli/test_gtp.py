"""The GTP front end: protocol, errors that change nothing, the `zerogym gtp` command, GTPClient."""

import io
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from zerogym_agents.agents.base import Agent, RandomAgent
from zerogym_agents.cli.gtp import COMMANDS, GTPEngine
from zerogym_agents.agents.gtp_client import GTPClient, GTPError, parse_score, parse_vertex, score_text, vertex


def engine(size=9, komi=7.5, agent=None, **kw):
    return GTPEngine(agent or RandomAgent(0), board_size=size, komi=komi, **kw)


def ok(e, line):
    out = e.handle(line)
    assert out.startswith("=") and out.endswith("\n\n"), (line, out)
    return out[1:].strip()


def snapshot(e):
    return e.board_size, e.komi, e.moves, e.state.board().tolist(), e.state.current_player


class Fixed(Agent):
    """Plays the given actions in turn."""

    name = "fixed"

    def __init__(self, actions):
        super().__init__()
        self.actions = list(actions)

    def act(self, env):
        return self.actions.pop(0)


class Resigner(Agent):
    name = "resigner"
    resigned = False

    def act(self, env):
        self.resigned = True
        return int(env.unwrapped.state.num_actions - 1)


class Broken(Agent):
    name = "broken"

    def act(self, env):
        raise RuntimeError("no idea\n\nat all")


# ---- protocol ----------------------------------------------------------------------------------
def test_administrative_commands_and_ids():
    e = engine()
    assert e.handle("protocol_version") == "= 2\n\n"
    assert e.handle("12 name") == "=12 zerogym\n\n"
    assert "random" in ok(e, "version")
    listed = ok(e, "list_commands").split("\n")
    required = "protocol_version name version known_command list_commands quit boardsize clear_board komi play genmove"
    assert {*required.split(), "undo", "showboard", "final_score"} <= set(listed)  # GTP 2's, and GoGui's
    assert all(e.handle(f"known_command {command}") == "= true\n\n" for command in listed)
    assert e.handle("3 known_command genmove") == "=3 true\n\n"
    assert e.handle("known_command fly") == "= false\n\n"
    assert e.handle("7 fly") == "?7 unknown command\n\n"


def test_gtp_line_preprocessing():
    e = engine()
    assert e.handle("") == "" and e.handle("   \t ") == "" and e.handle("# just a comment") == ""
    assert e.handle("\tname # trailing comment") == "= zerogym\n\n"
    assert e.handle("na\x01me\r") == "= zerogym\n\n"  # control characters are dropped
    assert e.handle("5").startswith("?5 ")


def test_vertices_skip_i_and_rank_one_is_row_zero():
    assert parse_vertex("A1", 9) == 0 and parse_vertex("j1", 9) == 8 and parse_vertex("A2", 9) == 9
    assert parse_vertex("J9", 9) == 80 and parse_vertex("PaSs", 9) == 81
    assert vertex(8, 9) == "J1" and vertex(9, 9) == "A2" and vertex(81, 9) == "pass"
    for bad in ("I1", "K1", "A10", "A0", "resign", "11", ""):
        with pytest.raises(ValueError):
            parse_vertex(bad, 9)
    assert all(parse_vertex(vertex(a, 19), 19) == a for a in range(19 * 19 + 1))


def test_score_text():
    assert score_text(3.5) == "B+3.5" and score_text(-0.5) == "W+0.5" and score_text(0) == "0"
    assert parse_score("W+12.5") == -12.5 and parse_score("b+2") == 2.0 and parse_score("0") == 0.0
    with pytest.raises(ValueError):
        parse_score("B+R")


# ---- playing -------------------------------------------------------------------------------------
def test_play_genmove_undo_showboard():
    e = engine(9)
    ok(e, "play b D4")
    assert e.state.board()[3, 3] == 1 and e.moves == [3 * 9 + 3]
    reply = ok(e, "genmove white")
    a = parse_vertex(reply, 9)
    assert e.moves == [30, a] and e.state.current_player == 0
    if a != 81:
        r, c = divmod(a, 9)
        assert e.state.board()[r, c] == 2
    board = ok(e, "showboard")
    assert "A B C D E F G H J" in board and "I" not in board.split("\n")[0]
    ok(e, "undo")
    ok(e, "undo")
    assert e.moves == [] and not e.state.board().any()
    before = snapshot(e)
    assert e.handle("undo").startswith("?")
    assert snapshot(e) == before


def test_errors_leave_the_engine_unchanged():
    e = engine(5)
    ok(e, "play b C3")
    before = snapshot(e)
    bad = [
        "play b A1",  # black is not to move
        "genmove b",
        "play w C3",  # occupied
        "play w Z9",
        "play w I3",
        "play w F1",
        "play w A6",
        "play x A1",
        "play w",
        "play w A1 B2",
        "boardsize 1",
        "boardsize 26",
        "boardsize nine",
        "boardsize",
        "komi lots",
        "komi nan",
        "komi inf",
        "komi",
        "genmove",
        "known_command",
        "final_status_list maybe",
        "play w resign",
    ]
    for line in bad:
        out = e.handle(line)
        assert out.startswith("? ") and out.endswith("\n\n") and "\n\n" not in out[:-2], (line, out)
        assert snapshot(e) == before, line


def test_suicide_and_ko_are_refused():
    e = engine(5)
    for line in ("play b B1", "play w E5", "play b A2", "play w E4", "play b pass"):
        ok(e, line)
    before = snapshot(e)
    out = e.handle("play w A1")  # A1's neighbours are black: suicide
    assert out.startswith("? illegal move") and "suicide" in out
    assert snapshot(e) == before
    e = engine(5)
    for line in (
        "play b C1",
        "play w D1",
        "play b B2",
        "play w E2",
        "play b C3",
        "play w D3",
        "play b D2",
        "play w C2",
    ):  # white C2 captures the black stone on D2
        ok(e, line)
    assert e.state.board()[1, 3] == 0 and e.state.board()[1, 2] == 2
    before = snapshot(e)
    out = e.handle("play b D2")  # immediate recapture: ko
    assert out.startswith("? illegal move") and "ko" in out
    assert snapshot(e) == before


def test_komi_boardsize_clear_board_and_final_score():
    e = engine(5, komi=7.5)
    ok(e, "play b C3")
    assert ok(e, "final_score") == "B+17.5"  # one black stone owns all 25 points
    ok(e, "komi 30")
    assert ok(e, "final_score") == "W+5" and e.moves == [12]
    ok(e, "boardsize 7")
    assert e.board_size == 7 and e.moves == [] and e.komi == 30
    assert ok(e, "final_score") == "W+30"  # empty board: nobody's area
    ok(e, "play b D4")
    ok(e, "clear_board")
    assert e.moves == [] and e.board_size == 7


def test_final_status_list():
    e = engine(5)
    ok(e, "play b A1")
    ok(e, "play w E5")
    assert sorted(ok(e, "final_status_list alive").split()) == ["A1", "E5"]
    assert ok(e, "final_status_list dead") == "" and ok(e, "final_status_list seki") == ""


def test_game_over_after_two_passes():
    e = engine(5)
    ok(e, "play b pass")
    ok(e, "play w pass")
    assert e.state.is_over()
    before = snapshot(e)
    assert e.handle("play b A1").startswith("? illegal move: the game is over")
    assert ok(e, "genmove b") == "pass"
    assert snapshot(e) == before


def test_resigning_and_failing_agents():
    e = engine(5, agent=Resigner())
    assert ok(e, "genmove b") == "resign" and e.moves == []
    e = engine(5, agent=Broken())
    out = e.handle("genmove b")
    assert out.startswith("? internal error") and out.count("\n\n") == 1 and e.moves == []
    e = engine(5, agent=Fixed([12, 12]))
    ok(e, "genmove b")
    out = e.handle("genmove w")  # the agent picks an occupied point
    assert out.startswith("? the agent chose an illegal move") and e.moves == [12]


def test_serve_stops_at_quit():
    e = engine(5, agent=Fixed([0]))
    out = io.StringIO()
    e.serve(io.StringIO("1 name\n\n# comment\n2 genmove b\n3 quit\n4 name\n"), out)
    assert out.getvalue() == "=1 zerogym\n\n=2 A1\n\n=3 \n\n"
    assert e.done


def test_engine_arguments_are_checked():
    for bad in ({"board_size": 1}, {"board_size": 26}, {"board_size": 9.0}, {"komi": float("nan")}, {"komi": "7"}):
        with pytest.raises(ValueError):
            GTPEngine(RandomAgent(), **bad)


# ---- random input never crashes or changes anything ----------------------------------------------
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=40))
def test_garbage_lines_are_errors_and_change_nothing(line):
    words = line.replace("#", " # ").split("#")[0].split()
    assume(not any(w.lower() in COMMANDS for w in words[:2]))
    e = engine(5, agent=Fixed([]))
    ok(e, "play b C3")
    before = snapshot(e)
    out = e.handle(line)
    assert out == "" or (out.startswith("?") and out.endswith("\n\n"))
    assert snapshot(e) == before


ARG = st.one_of(
    st.text(max_size=6),
    st.sampled_from(
        [
            "b",
            "w",
            "black",
            "white",
            "A1",
            "C3",
            "E5",
            "J1",
            "pass",
            "0",
            "5",
            "19",
            "-1",
            "7.5",
            "1e400",
            "alive",
            "dead",
        ]
    ),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(COMMANDS).filter(lambda c: c != "quit"), st.lists(ARG, max_size=3))
def test_commands_with_random_arguments_answer_and_errors_change_nothing(command, args):
    assume(all(a.split() == [a] and "#" not in a for a in args))
    e = engine(5, agent=RandomAgent(1))
    ok(e, "play b C3")
    before = snapshot(e)
    out = e.handle(" ".join([command, *args]))
    assert out[:1] in "=?" and out.endswith("\n\n") and "\n\n" not in out[:-2]
    if out.startswith("?"):
        assert snapshot(e) == before
    st_ = e.state
    assert len(e.moves) == st_.move_count  # the engine's record and its game agree


# ---- the command line and the client ---------------------------------------------------------------
def test_zerogym_gtp_command_over_pipes():
    argv = [
        sys.executable,
        "-m",
        "zerogym_agents.cli.main",
        "gtp",
        "--agent",
        "random",
        "--board-size",
        "5",
        "--seed",
        "1",
    ]
    with GTPClient(argv, timeout=120) as gtp:
        assert gtp.send("protocol_version") == "2"
        gtp.send("play b C3")
        move = gtp.send("genmove w")
        assert parse_vertex(move, 5) != 12
        with pytest.raises(GTPError, match="illegal move"):
            gtp.send("play b C3")
        assert gtp.send("final_score")[:2] in ("B+", "W+") or gtp.send("final_score") == "0"
        proc = gtp.proc
    assert proc.poll() == 0  # quit ended it cleanly


def test_zerogym_gtp_rejects_a_bad_agent_spec():
    out = subprocess.run(
        [sys.executable, "-m", "zerogym_agents.cli.main", "gtp", "--agent", "nonsense"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode != 0 and "nonsense" in out.stderr and out.stdout == ""


def test_zerogym_gtp_refuses_an_agent_of_another_game(capsys):
    from zerogym_agents.cli import main as cli

    with pytest.raises(SystemExit, match="plays tictactoe, not Go"):
        cli.main(["gtp", "--agent", "pretrained:tictactoe"])
    with pytest.raises(SystemExit, match="no pretrained agent"):
        cli.main(["gtp", "--agent", "pretrained:chess"])


def test_client_reports_a_dead_engine_and_a_slow_one(tmp_path):
    script = tmp_path / "engine.py"
    script.write_text(
        "import sys, time\nline = sys.stdin.readline()\nif 'slow' in line:\n    time.sleep(30)\nsys.exit(3)\n"
    )
    with GTPClient([sys.executable, str(script)], timeout=60) as gtp:
        with pytest.raises(GTPError, match="exited"):
            gtp.send("name")
    gtp = GTPClient([sys.executable, str(script)], timeout=0.5)
    with pytest.raises(GTPError, match="no answer"):
        gtp.send("slow")
    assert gtp.proc is None  # killed after the timeout
    with pytest.raises(GTPError, match="not running"):
        gtp.send("name")
    with pytest.raises(GTPError, match="cannot start"):
        GTPClient([os.path.join(str(tmp_path), "missing-engine")])


# ---- bytes that are not GTP text ---------------------------------------------------------------------
BIG = 5 * 1024 * 1024


def _answers(stdout):
    """The answers of a GTP session's stdout, in order (each without its closing blank line)."""
    assert stdout.endswith(b"\n\n"), stdout[-200:]
    return stdout[:-2].split(b"\n\n")


@pytest.mark.parametrize(
    "env_update",
    [{"PYTHONIOENCODING": "utf-8:strict"}, {"LC_ALL": "C"}, {"LC_ALL": "C", "PYTHONIOENCODING": "utf-8:strict"}],
    ids=["utf8-strict", "C-locale", "C-locale-utf8-strict"],
)
def test_engine_answers_bad_bytes_and_stays_up(env_update):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONUTF8", "LC_ALL", "LANG")}
    env.update(env_update)
    lines = [
        b"1 name\n",
        b"\xff\xfe genmove b\n",  # not UTF-8, no id
        b"2 \xff\xfe genmove b\n",  # not UTF-8, with an id
        b"3 play b \xc3\n",  # a truncated UTF-8 sequence
        b"4 na\x00me\n",  # a NUL byte
        b"\x00\x00\n",
        b"5 genmove " + b"b" * BIG + b"\n",  # megabytes long
        b"x" * BIG + b"\n",
        b"\r\n",
        b"\r\r\n",
        b"\n",  # blank lines (CR only): no answer
        b"6 name\r\n",  # CRLF line ends
        b"7 boardsize 9\r\n",
        b"8 play b \xe2\x82\xac\n",  # valid UTF-8, not a vertex
        b"9 genmove b\n",
        b"10 name # a comment \xff\n",  # comments are dropped before decoding
        b"11 quit\n",
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "zerogym_agents.cli.main", "gtp", "--agent", "random", "--seed", "1"],
        input=b"".join(lines),
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    answers = _answers(proc.stdout)
    assert len(answers) == 14, answers
    assert answers[0] == b"=1 zerogym"
    assert answers[1].startswith(b"? ") and b"UTF-8" in answers[1]
    assert answers[2].startswith(b"?2 ") and b"UTF-8" in answers[2]
    assert answers[3].startswith(b"?3 ") and b"UTF-8" in answers[3]
    assert answers[4].startswith(b"?4 ") and b"NUL" in answers[4]
    assert answers[5].startswith(b"? ") and b"NUL" in answers[5]
    assert answers[6] == b"?5 line too long"
    assert answers[7] == b"? line too long"
    assert answers[8] == b"=6 zerogym"
    assert answers[9] == b"=7 "
    assert answers[10].startswith(b"?8 syntax error")
    move = answers[11]
    assert move.startswith(b"=9 ") and 0 <= parse_vertex(move[3:].decode("ascii"), 9) <= 81
    assert answers[12] == b"=10 zerogym" and answers[13] == b"=11 "
    assert len(proc.stdout) < 4096  # no answer echoes the long lines


class _Chunked(io.RawIOBase):
    """A byte stream of `total` bytes of one long line, then a name command; it records the sizes
    readline is asked for and refuses an unbounded one."""

    def __init__(self, total):
        self.left, self.tail, self.sizes = total, b"\n1 name\n", []

    def readable(self):
        return True

    def readline(self, size=-1):
        self.sizes.append(size)
        assert size is not None and 0 < size <= 1 << 20, f"unbounded readline({size})"
        if self.left:
            n = min(size, self.left)
            self.left -= n
            return b"y" * n
        out, self.tail = self.tail[:size], self.tail[size:]
        if b"\n" in out:  # one line at most, like a real readline
            out, self.tail = out[: out.index(b"\n") + 1], out[out.index(b"\n") + 1 :] + self.tail
        return out


def test_serve_reads_bytes_with_a_bounded_line_length():
    e = engine(5)
    stream = _Chunked(64 * 1024 * 1024)  # a 64 MB line is never held in memory
    out = io.BytesIO()
    e.serve(stream, out)
    assert out.getvalue() == b"? line too long\n\n=1 zerogym\n\n"
    assert max(stream.sizes) <= 1 << 20


def test_handle_takes_bytes():
    e = engine(5)
    assert e.handle(b"1 name") == "=1 zerogym\n\n"
    assert e.handle(b"2 name\r\n") == "=2 zerogym\n\n"
    assert e.handle(b"\r") == "" and e.handle(b"# \xff") == ""
    assert e.handle(b"3 \xffname").startswith("?3 ")
    assert e.handle("4 \udcffname").startswith("?4 ")  # surrogate-escaped bytes (C locale)
    assert e.handle(b"5 na\x00me").startswith("?5 ")
    assert e.handle("6 " + "z" * BIG) == "?6 line too long\n\n"
    before = snapshot(e)
    for bad in (b"play b \xff", b"\x00play b C3", b"play b C3" + b" " * BIG):
        assert e.handle(bad).startswith("? ")
        assert snapshot(e) == before


def test_serve_answers_text_streams_with_text_and_byte_streams_with_bytes():
    e = engine(5, agent=Fixed([0]))
    out = io.BytesIO()
    e.serve(io.BytesIO(b"1 name\n\xff\n2 genmove b\r\n3 quit\n4 name\n"), out)
    assert out.getvalue() == b"=1 zerogym\n\n? invalid input: not UTF-8 text\n\n=2 A1\n\n=3 \n\n"


def test_only_space_and_tab_separate_words():
    """GTP's white space is the space and the tab: other Unicode spaces are text, not separators."""
    e = engine(5)
    assert e.handle("\u2003".encode()) == "? unknown command\n\n"
    assert e.handle("7\u2003name".encode()) == "? unknown command\n\n"
    assert e.handle(b"8 \t name ") == "=8 zerogym\n\n"


def test_zerogym_gtp_resign_below():
    # every root value is below 1: the agent resigns at its first move
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "zerogym_agents.cli.main",
            "gtp",
            "--agent",
            "pretrained:go_9x9",
            "--resign-below",
            "1",
            "--resign-moves",
            "1",
            "--seed",
            "0",
        ],
        input=b"1 genmove b\n2 quit\n",
        capture_output=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    assert _answers(proc.stdout) == [b"=1 resign", b"=2 "]
    from zerogym_agents.cli import main as cli

    with pytest.raises(SystemExit, match="needs a saved AlphaZero agent"):
        cli.main(["gtp", "--agent", "random", "--resign-below", "-0.9"])
    with pytest.raises(SystemExit, match="resign_below must be"):
        cli.main(["gtp", "--agent", "pretrained:go_9x9", "--resign-below", "2"])
