"""GnuGoAgent, gnugo_final and GTP both ways against the real GNU Go.

Tests taking the `gnugo` fixture need the gnugo program: they are skipped when it is absent, unless
the CI environment variable is set (CI installs gnugo, so there a missing gnugo fails).  The others
use a small fake GTP engine and always run.
"""

import gc
import os
import stat
import sys
import textwrap

import numpy as np
import pytest

import zerogym
from zerogym_agents.cli import main as cli
from zerogym_agents.arena import from_sgf, play_game, play_match, replay
from zerogym_agents.agents.specs import agent_from_spec
from zerogym_agents.agents.base import RandomAgent
from zerogym_agents.agents.gnugo import GnuGoAgent, GnuGoNotFoundError, find_gnugo, gnugo_final
from zerogym_agents.agents.gtp_client import GTPClient, parse_vertex, vertex


# ---- a fake GNU Go: answers genmove as FAKE_GTP_MODE says, logs every command ---------------------
FAKE = textwrap.dedent("""\
    import os, sys
    mode = os.environ.get("FAKE_GTP_MODE", "pass")
    log = open(os.environ["FAKE_GTP_LOG"], "a")
    played = []
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        log.write(line)
        log.flush()
        cmd, args = words[0], words[1:]
        answer = ""
        if cmd == "play":
            played.append(args[1])
        elif cmd == "undo":
            played.pop()
        elif cmd == "clear_board" or cmd == "boardsize":
            played.clear()
        elif cmd == "genmove":
            answer = {"pass": "PASS", "resign": "resign"}.get(mode) or (played[-1] if played else "PASS")
            if answer != "resign":
                played.append(answer)
        elif cmd == "restricted_genmove":
            answer = args[-1]                      # the last allowed vertex
        sys.stdout.write(f"= {answer}\\n\\n")
        sys.stdout.flush()
        if cmd == "quit":
            break
    """)


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """Path of the fake engine; its log is tmp_path / 'log'."""
    path = tmp_path / "fake-gnugo"
    path.write_text(f"#!{sys.executable}\n" + FAKE)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("FAKE_GTP_LOG", str(tmp_path / "log"))
    return str(path)


def logged(fake, command=None):
    with open(os.path.join(os.path.dirname(fake), "log")) as f:
        lines = [line.split() for line in f if line.strip()]
    return [w for w in lines if command is None or w[0] == command]


def go_env(n=9, **kw):
    env = zerogym.make("go", board_size=n, **kw)
    env.reset()
    return env


# ---- finding the program ---------------------------------------------------------------------------
def test_missing_gnugo_says_how_to_install(monkeypatch, tmp_path):
    import zerogym_agents.agents.gnugo as mod

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("GNUGO", raising=False)
    monkeypatch.setattr(mod, "FALLBACK_PATHS", (str(tmp_path / "none"),))
    with pytest.raises(GnuGoNotFoundError, match="apt-get install gnugo") as err:
        GnuGoAgent(level=1)
    assert isinstance(err.value, RuntimeError) and "GNUGO" in str(err.value)
    monkeypatch.setenv("GNUGO", str(tmp_path / "nowhere" / "gnugo"))
    with pytest.raises(GnuGoNotFoundError, match="GNUGO="):
        find_gnugo()


def test_gnugo_env_variable_overrides_the_path(fake, monkeypatch):
    monkeypatch.setenv("GNUGO", fake)
    assert find_gnugo() == fake
    assert GnuGoAgent(level=1).binary == fake


def test_arguments_and_games_are_checked(fake):
    for bad in ({"level": -1}, {"level": 21}, {"level": 1.5}, {"level": True}, {"komi": float("inf")}, {"komi": "7"}):
        with pytest.raises(ValueError):
            GnuGoAgent(binary=fake, **bad)
    agent = GnuGoAgent(level=1, binary=fake)
    with pytest.raises(ValueError, match="Go only"):
        env = zerogym.make("tictactoe")
        env.reset()
        agent.act(env)
    with pytest.raises(ValueError, match="up to 19x19"):
        agent.act(go_env(21))
    with pytest.raises(ValueError, match="Go only"):
        agent_from_spec("gnugo:1", "othello")
    with pytest.raises(ValueError, match="level"):
        agent_from_spec("gnugo:strong", "go")
    assert agent._proc is None  # refused before starting anything


# ---- syncing, resigning, falling back: with the fake engine -----------------------------------------
def test_only_new_moves_are_sent_to_a_persistent_process(fake):
    agent = GnuGoAgent(level=1, binary=fake, seed=3)  # the fake always passes
    rec = play_game((RandomAgent(), agent), "go", {"board_size": 9}, seed=5)
    acts = rec["actions"]
    assert acts[1::2] == [81] * len(acts[1::2])
    assert len(logged(fake, "clear_board")) == 1 and len(logged(fake, "boardsize")) == 1
    # each opponent move that GNU Go had to answer was sent once, in order
    sent = [a for i, a in enumerate(acts) if i % 2 == 0 and i + 1 < len(acts)]
    plays = [parse_vertex(w[2], 9) for w in logged(fake, "play")]
    assert plays == sent and len([w for w in logged(fake, "genmove") if w[1] == "white"]) == len(acts[1::2])
    assert "--chinese-rules" in agent._proc.argv and "--positional-superko" in agent._proc.argv
    # a new game on the same process: cleared once, the old game is not replayed
    acts = play_game((agent, RandomAgent()), "go", {"board_size": 9}, seed=6)["actions"]
    sent = [a for i, a in enumerate(acts) if i % 2 == 1 and i + 1 < len(acts)]
    assert len(logged(fake, "clear_board")) == 2
    assert [parse_vertex(w[2], 9) for w in logged(fake, "play")[len(plays) :]] == sent
    assert logged(fake, "set_random_seed")  # play_game reseeds the running program


def test_a_move_taken_back_is_undone(fake):
    agent = GnuGoAgent(level=1, binary=fake)
    env = go_env(5)
    assert agent.act(env) == 25  # known history from the empty board: [pass]
    env.step(25)
    env.step(12)
    assert agent.act(env) == 25  # follows: play white C3; history [pass, C3, pass]
    other = go_env(5)
    other.step(25)
    other.step(13)  # white played D3 instead
    agent.act(other)
    commands = logged(fake)[-4:]
    assert commands == [["undo"], ["undo"], ["play", "white", "D3"], ["genmove", "black"]]
    assert len(logged(fake, "clear_board")) == 1


def test_an_unknown_position_is_set_up_stone_by_stone(fake):
    agent = GnuGoAgent(level=1, binary=fake)
    env = go_env(5)
    for a in (12, 6, 18):
        env.step(a)
    agent.act(env)  # the fake passes: board = the 3 moves + pass
    n_play = len(logged(fake, "play"))
    # an unrelated position of 2 moves (stones only known): rebuilt, not replayed from a history
    env2 = go_env(5)
    env2.step(0)
    env2.step(24)
    agent.act(env2)
    plays = logged(fake, "play")[n_play:]
    assert len(logged(fake, "clear_board")) == 2
    assert sorted(w[2] for w in plays) == ["A1", "E5"]


def test_resignation_returns_a_legal_pass(fake, monkeypatch):
    monkeypatch.setenv("FAKE_GTP_MODE", "resign")
    agent = GnuGoAgent(level=1, binary=fake)
    env = go_env(9)
    env.step(40)
    action = agent.act(env)
    assert agent.resigned and action == 81 and env.unwrapped.state.is_legal(action)
    agent.reset()
    assert not agent.resigned
    rec = play_game((RandomAgent(), agent), "go", {"board_size": 9}, seed=1)
    assert rec["resigned"] == 1 and rec["winner"] == 0 and rec["returns"] == [1.0, -1.0] and rec["moves"] == 1


def test_an_illegal_proposal_falls_back_to_a_legal_point(fake, monkeypatch):
    monkeypatch.setenv("FAKE_GTP_MODE", "occupied")  # genmove answers the last played point
    agent = GnuGoAgent(level=1, binary=fake)
    env = go_env(5)
    env.step(12)
    st = env.unwrapped.state
    action = agent.act(env)
    points = [a for a in st.legal_actions() if a != 25]
    assert action == max(points) and st.is_legal(action)  # the fake's restricted_genmove: the last one listed
    commands = [w[0] for w in logged(fake)]
    assert commands[-4:] == ["genmove", "undo", "restricted_genmove", "play"]
    assert logged(fake, "play")[-1] == ["play", "white", vertex(action, 5)]


def test_close_context_manager_and_del(fake):
    with GnuGoAgent(level=1, binary=fake) as agent:
        agent.act(go_env(5))
        proc = agent._proc.proc
        assert proc.poll() is None
    assert proc.poll() is not None and agent._proc is None
    agent.close()  # twice is fine
    agent.act(go_env(5))  # and a later act starts again
    proc = agent._proc.proc
    del agent
    gc.collect()
    assert proc.wait(timeout=10) is not None


# ---- the real GNU Go --------------------------------------------------------------------------------
def test_gnugo_beats_random_in_the_arena(gnugo):
    with GnuGoAgent(level=1, seed=0) as gg:
        m = play_match(gg, RandomAgent(), "go", {"board_size": 9}, games=10, seed=0)
    assert m.total.wins >= 9
    assert all(r["illegal"] is None for r in m.records)
    for rec in m.records:  # Tromp-Taylor result of the replayed game
        st = replay(rec)
        if rec["resigned"] is None and not rec["truncated"]:
            assert st.is_terminal() and np.sign(st.score()) == (1 if rec["winner"] == 0 else -1)


def test_same_seed_same_games(gnugo):
    def game(agent, seed):
        return play_game((agent, RandomAgent()), "go", {"board_size": 7}, seed=seed)["actions"]

    reused = GnuGoAgent(level=1)
    first = game(reused, 1)
    proc = reused._proc
    assert game(reused, 2) == game(GnuGoAgent(level=1), 2)  # fresh or reused process alike
    assert game(reused, 1) == first and reused._proc is proc


def test_gnugo_resigns_a_hopeless_game(gnugo):
    # black owns three full lines of a 19x19 board, white only passed and is to move; no komi
    env = go_env(19, komi=0.0)
    for i, a in enumerate([r * 19 + c for r in (3, 9, 15) for c in range(19)]):
        if i:
            env.step(19 * 19)
        env.step(a)
    agent = GnuGoAgent(level=1)
    action = agent.act(env)
    assert agent.resigned and action == 19 * 19 and env.unwrapped.state.is_legal(action)


def test_final_score_agrees_with_tromp_taylor_on_played_out_games(gnugo):
    a, b = GnuGoAgent(level=1), GnuGoAgent(level=1)
    compared = 0
    for n, komi in ((7, 6.5), (9, 7.5)):
        for seed in range(2):
            rec = play_game((a, b), "go", {"board_size": n, "komi": komi}, seed=seed)
            st = replay(rec)
            if not st.is_terminal():
                continue  # resigned: nothing to count
            g = gnugo_final(rec["actions"], n, komi)
            if g["dead"] or g["seki"]:
                continue  # GNU Go would remove or share what Tromp-Taylor counts
            assert g["score"] == st.score() == rec["info"]["score"]
            assert (g["black_area"], g["white_area"]) == st.area()
            compared += 1
    assert compared >= 2


def test_gnugo_final_sees_dead_stones_tromp_taylor_counts(gnugo):
    # a lone white stone in black's 5x5 area: GNU Go calls it dead, Tromp-Taylor counts it
    moves = [12, 0, 6, 25, 8, 25, 16, 25, 18, 25]
    st = replay({"game": "go", "kwargs": {"board_size": 5, "komi": 0.5}, "actions": moves})
    g = gnugo_final(moves, 5, 0.5)
    assert g["dead"] == [0]
    assert st.area()[1] == 1 and g["white_area"] == 0 and g["score"] > st.score()
    with pytest.raises(ValueError, match="illegal for GNU Go"):
        gnugo_final([12, 12], 5, 0.5)


def play_out(black, white, n=9, komi=7.5, limit=400):
    """A referee between two GTP clients: moves until two passes or a resignation."""
    for e in (black, white):
        e.send(f"boardsize {n}")
        e.send(f"komi {komi}")
        e.send("clear_board")
    moves = []
    for i in range(limit):
        mover, other, colour = (black, white, "b") if i % 2 == 0 else (white, black, "w")
        move = mover.send(f"genmove {colour}").lower()
        if move == "resign":
            return moves, colour
        other.send(f"play {colour} {move}")
        moves.append(move)
        if moves[-2:] == ["pass", "pass"]:
            return moves, None
    raise AssertionError(f"no end after {limit} moves")


@pytest.mark.parametrize("spec, ours_black", [("random", True), ("uct:30", False)])
def test_gnugo_plays_our_gtp_engine(gnugo, spec, ours_black):
    ours_argv = [sys.executable, "-m", "zerogym_agents.cli.main", "gtp", "--agent", spec, "--seed", "2"]
    gg_argv = [
        gnugo,
        "--mode",
        "gtp",
        "--level",
        "1",
        "--chinese-rules",
        "--positional-superko",
        "--capture-all-dead",
        "--seed",
        "5",
    ]
    with GTPClient(ours_argv, timeout=120) as ours, GTPClient(gg_argv, timeout=120) as gg:
        moves, resigned = play_out(*((ours, gg) if ours_black else (gg, ours)))
        assert resigned is None
        stones = lambda c: set(gg.send(f"list_stones {c}").split())  # noqa: E731
        assert set(ours.send("final_status_list alive").split()) == stones("black") | stones("white")
        score = ours.send("final_score")
        assert score.startswith("W+" if ours_black else "B+")  # GNU Go won, counted our way
        # replaying the moves in zerogym gives the engine's score
        st = replay(
            {
                "game": "go",
                "kwargs": {"board_size": 9, "komi": 7.5, "max_moves": 4 * 81},
                "actions": [parse_vertex(m, 9) for m in moves],
            }
        )
        assert st.is_terminal() and score == ("B+" if st.score() > 0 else "W+") + f"{abs(st.score()):g}"


def test_arena_command_with_gnugo_writes_sgf_that_reads_back(gnugo, tmp_path):
    out = tmp_path / "arena"
    arena = "arena --game go --kwargs board_size=7 --agents random gnugo:1 --games 2 --no-progress"
    cli.main([*arena.split(), "--out", str(out)])
    files = sorted((out / "sgf").iterdir())
    assert len(files) == 2
    from zerogym_agents.arena import load_records

    records = load_records(out / "games.jsonl")
    for path, rec in zip(files, records):
        back = from_sgf(path.read_text())
        assert back["actions"] == rec["actions"] and back["players"] == rec["players"]
        assert back["winner"] == rec["winner"] and "gnugo:1" in back["players"]
        assert replay(back) == replay(rec)
