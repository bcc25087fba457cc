"""Matches: colour alternation, first-player splits, seeding, round robins, records and SGF."""
import itertools
import re

import pytest

from zerogym_agents.arena import (load_records, play_game, play_match, replay, round_robin, save_records, to_sgf)
from zerogym_agents.arena.match import _seed_int
from zerogym_agents.base import Agent, RandomAgent
from zerogym_agents.greedy import GreedyAgent


class FirstLegal(Agent):
    """Deterministic: the lowest legal action."""
    name = "first_legal"

    def act(self, env):
        return int(env.unwrapped.state.legal_actions()[0])


class Illegal(Agent):
    """Plays an occupied cell after its first move."""
    name = "illegal"

    def act(self, env):
        st = env.unwrapped.state
        return int(st.last_action) if st.move_count else int(st.legal_actions()[0])


def test_splits_add_up_and_colours_alternate():
    m = play_match(RandomAgent(), GreedyAgent(), "tictactoe", {}, games=21, seed=4)
    assert m.a_first.games == 11 and m.b_first.games == 10
    assert m.total.games == 21 == len(m.records)
    for i, rec in enumerate(m.records):
        assert rec["a_moved_first"] == (i % 2 == 0)
        assert rec["players"] == (["random", "greedy"] if i % 2 == 0 else ["greedy", "random"])
    # the split recounted from the records, from A's point of view
    for first, wdl in ((True, m.a_first), (False, m.b_first)):
        recs = [r for r in m.records if r["a_moved_first"] == first]
        a_pos = 0 if first else 1
        assert wdl.wins == sum(r["winner"] == a_pos for r in recs)
        assert wdl.losses == sum(r["winner"] == 1 - a_pos for r in recs)
        assert wdl.draws == sum(r["winner"] == -1 for r in recs)
    assert m.total.score == sum(s for _, _, s in m.outcomes())


def test_records_replay_to_their_result():
    m = play_match(GreedyAgent(), RandomAgent(), "connect_four", {"rows": 5, "cols": 6}, games=10, seed=1)
    for rec in m.records:
        st = replay(rec)
        assert st.is_over()
        assert st.winner == rec["winner"] and rec["moves"] == len(rec["actions"]) == st.move_count


def test_reproducible_from_the_seed():
    a = play_match(RandomAgent(), GreedyAgent(), "othello", {"board_size": 6}, games=6, seed=9)
    b = play_match(RandomAgent(), GreedyAgent(), "othello", {"board_size": 6}, games=6, seed=9)
    c = play_match(RandomAgent(), GreedyAgent(), "othello", {"board_size": 6}, games=6, seed=10)
    assert [r["actions"] for r in a.records] == [r["actions"] for r in b.records]
    assert [r["actions"] for r in a.records] != [r["actions"] for r in c.records]
    # any single game replays alone from its seed, whatever the agents did before
    rec = a.records[3]
    again = play_game((GreedyAgent(), RandomAgent()), "othello", {"board_size": 6}, _seed_int(9, 3))
    assert again["actions"] == rec["actions"] and rec["seed"] == _seed_int(9, 3)


def test_an_illegal_move_loses():
    rec = play_game((FirstLegal(), Illegal()), "tictactoe", {}, seed=0)
    assert rec["winner"] == 0 and rec["illegal"] and rec["returns"] == [0.0, -1.0]
    rec = play_game((Illegal(), FirstLegal()), "tictactoe", {}, seed=0)
    assert rec["winner"] == 1 and rec["illegal"]


def test_round_robin_plays_every_pair():
    agents = {"r1": RandomAgent(), "g": GreedyAgent(), "r2": RandomAgent(), "fl": FirstLegal()}
    rr = round_robin(agents, "tictactoe", {}, games_per_pair=4, seed=5, progress=False)
    assert [(m.agent_a, m.agent_b) for m in rr.matches] == list(itertools.combinations(agents, 2))
    assert all(m.games == 4 for m in rr.matches)
    assert len(rr.outcomes()) == 6 * 4
    rr2 = round_robin(agents, "tictactoe", {}, games_per_pair=4, seed=5, progress=False)
    assert rr2.to_dict() == rr.to_dict()
    assert type(rr).from_dict(rr.to_dict()).to_dict() == rr.to_dict()


def test_bad_input():
    with pytest.raises(ValueError, match="games"):
        play_match(RandomAgent(), RandomAgent(), "tictactoe", {}, games=0)
    with pytest.raises(ValueError, match="seed"):
        play_match(RandomAgent(), RandomAgent(), "tictactoe", {}, games=2, seed=-1)
    with pytest.raises(ValueError, match="at least two"):
        round_robin({"a": RandomAgent()}, "tictactoe")
    with pytest.raises(ValueError, match="unknown game"):
        play_game((RandomAgent(), RandomAgent()), "chess")


def test_records_round_trip(tmp_path):
    m = play_match(RandomAgent(), RandomAgent(), "hex", {"board_size": 4}, games=3, seed=2)
    assert m.agent_a != m.agent_b                     # equal names are made distinct
    path = tmp_path / "games.jsonl"
    save_records(path, m.records)
    assert load_records(path) == m.records


# ---- SGF -------------------------------------------------------------------------------------
def parse_sgf(text):
    """A tiny SGF reader for one main line: (root properties, [(colour, 'xy' or '')])."""
    text = text.strip()
    assert text.startswith("(;") and text.endswith(")")
    nodes = text[2:-1].split(";")
    prop = re.compile(r"([A-Z]+)\[((?:[^\]\\]|\\.)*)\]")
    root = dict(prop.findall(nodes[0]))
    moves = []
    for node in nodes[1:]:
        (key, value), = prop.findall(node)
        moves.append((key, value))
    return root, moves


def test_sgf_parses_back_to_the_same_moves():
    n = 5
    m = play_match(GreedyAgent(), RandomAgent(), "go", {"board_size": n, "komi": 2.5}, games=2, seed=3)
    for rec in m.records:
        root, moves = parse_sgf(to_sgf(rec, n, 2.5))
        assert root["SZ"] == "5" and float(root["KM"]) == 2.5 and root["GM"] == "1"
        assert [root["PB"], root["PW"]] == rec["players"]
        assert [c for c, _ in moves] == ["B" if i % 2 == 0 else "W" for i in range(len(rec["actions"]))]
        back = []
        for _, v in moves:
            if v == "":
                back.append(n * n)
            else:
                col, row_from_top = ord(v[0]) - ord("a"), ord(v[1]) - ord("a")
                back.append((n - 1 - row_from_top) * n + col)
        assert back == rec["actions"]
        assert n * n in back                          # games end with passes
        score = rec["info"]["score"]
        assert root["RE"] == ("0" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):g}")


def test_sgf_corner_coordinates():
    # action 0 is A1 (bottom-left: SGF column a, bottom row s on 19x19); action 18 is T1 (sa)
    rec = {"actions": [0, 18, 19 * 19 - 1, 19 * 19], "winner": -1, "players": ["b", "w"]}
    _, moves = parse_sgf(to_sgf(rec, 19, 7.5))
    assert [v for _, v in moves] == ["as", "ss", "sa", ""]
    with pytest.raises(ValueError, match="action"):
        to_sgf({"actions": [400], "winner": -1}, 19, 7.5)
