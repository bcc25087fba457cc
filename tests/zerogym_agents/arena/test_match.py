"""Matches: colour alternation, first-player splits, seeding, round robins, records and SGF."""

import itertools
import re

import pytest

from zerogym_agents.arena import play_game, play_match, round_robin
from zerogym_agents.arena import from_sgf, load_records, replay, save_records, to_sgf
from zerogym_agents.arena.match import _seed_int, random_opening
from zerogym_agents.arena.report import distinct_games, pairwise_markdown
from zerogym_agents.agents.base import Agent, RandomAgent
from zerogym_agents.agents.greedy import GreedyAgent


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


@pytest.mark.parametrize(
    "game, kwargs, moves",
    [("connect_four", {}, 4), ("othello", {"board_size": 6}, 4), ("go", {"board_size": 5}, 3), ("tictactoe", {}, 4)],
)
def test_random_openings_are_legal_running_and_seeded(game, kwargs, moves):
    from zerogym.registry import make_state

    openings = [random_opening(game, kwargs, moves, seed) for seed in range(30)]
    for actions in openings:
        st = make_state(game, **kwargs)
        assert len(actions) == moves
        for a in actions:
            assert st.is_legal(a) and st.spec.action_name(a) != "pass"  # something else was always legal
            st.step(a)
        assert not st.is_over()
    assert len({tuple(o) for o in openings}) >= 20
    assert random_opening(game, kwargs, moves, 7) == openings[7]
    assert random_opening(game, kwargs, 0, 7) == []


def test_openings_give_deterministic_agents_different_games():
    plain = play_match(FirstLegal(), GreedyAgent(), "connect_four", {}, games=12, seed=3)
    assert distinct_games(plain) <= 4  # Greedy only varies on ties
    m = play_match(FirstLegal(), GreedyAgent(), "connect_four", {}, games=12, seed=3, opening_moves=4)
    assert distinct_games(m) >= 10 and m.opening_moves == 4
    for first, second in zip(m.records[::2], m.records[1::2]):
        # each pair: the same opening, colours swapped
        assert first["actions"][:4] == second["actions"][:4] and first["opening"] == second["opening"] == 4
        assert first["players"] == second["players"][::-1]
    assert len({tuple(r["actions"][:4]) for r in m.records}) == 6
    again = play_match(FirstLegal(), GreedyAgent(), "connect_four", {}, games=12, seed=3, opening_moves=4)
    assert again.to_dict() == m.to_dict() == type(m).from_dict(m.to_dict()).to_dict()
    rr = round_robin(
        {"a": FirstLegal(), "b": GreedyAgent()}, "connect_four", {}, 4, seed=1, progress=False, opening_moves=2
    )
    assert all(r["opening"] == 2 for r in rr.matches[0].records)
    assert pairwise_markdown(rr).splitlines()[0].endswith("| distinct games |")


def test_bad_openings_are_refused():
    with pytest.raises(ValueError, match="opening_moves must be a non-negative int"):
        play_match(RandomAgent(), RandomAgent(), "tictactoe", {}, games=2, opening_moves=-1)
    with pytest.raises(ValueError, match="opening moves must be a non-negative int"):
        random_opening("tictactoe", {}, "3")
    with pytest.raises(ValueError, match="no 9-move opening"):
        random_opening("tictactoe", {}, 9)  # the ninth move always ends the game
    with pytest.raises(ValueError, match=r"opening move 2 \(action 0\) cannot be played"):
        play_game((RandomAgent(), RandomAgent()), "tictactoe", {}, seed=0, opening=[0, 0])


def test_records_round_trip(tmp_path):
    m = play_match(RandomAgent(), RandomAgent(), "hex", {"board_size": 4}, games=3, seed=2)
    assert m.agent_a != m.agent_b  # equal names are made distinct
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
        ((key, value),) = prop.findall(node)
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
        assert n * n in back  # games end with passes
        score = rec["info"]["score"]
        assert root["RE"] == ("0" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):g}")


def test_sgf_corner_coordinates():
    # action 0 is A1 (bottom-left: SGF column a, bottom row s on 19x19); action 18 is T1 (sa)
    rec = {"actions": [0, 18, 19 * 19 - 1, 19 * 19], "winner": -1, "players": ["b", "w"]}
    _, moves = parse_sgf(to_sgf(rec, 19, 7.5))
    assert [v for _, v in moves] == ["as", "ss", "sa", ""]
    with pytest.raises(ValueError, match="action"):
        to_sgf({"actions": [400], "winner": -1}, 19, 7.5)


# ---- resigning -------------------------------------------------------------------------------
class ResignsAtMove(Agent):
    """Plays its lowest legal action, and resigns (returning pass) once the game has k moves."""

    name = "resigner"
    resigned = False

    def __init__(self, k):
        super().__init__()
        self.k = k

    def act(self, env):
        st = env.unwrapped.state
        self.resigned = st.move_count >= self.k
        return int(st.num_actions - 1) if self.resigned else int(st.legal_actions()[0])


def test_resigning_ends_the_game_and_loses():
    rec = play_game((RandomAgent(), ResignsAtMove(5)), "go", {"board_size": 5}, seed=1)
    assert rec["resigned"] == 1 and rec["winner"] == 0 and rec["returns"] == [1.0, -1.0]
    assert rec["moves"] == len(rec["actions"]) == 5  # the resigning pass is not played
    assert not replay(rec).is_over()
    assert "RE[B+R]" in to_sgf(rec, 5, 7.5)
    rec = play_game((ResignsAtMove(0), RandomAgent()), "go", {"board_size": 5}, seed=1)
    assert rec["resigned"] == 0 and rec["winner"] == 1 and rec["actions"] == [] and rec["returns"] == [-1.0, 1.0]
    back = from_sgf(to_sgf(rec, 5, 7.5))
    assert back["resigned"] == 0 and back["winner"] == 1
    m = play_match(ResignsAtMove(2), RandomAgent(), "go", {"board_size": 5}, games=4, seed=0)
    assert m.total.losses == 4
    rec = play_game((RandomAgent(), RandomAgent()), "go", {"board_size": 5}, seed=1)
    assert rec["resigned"] is None


# ---- SGF round trip --------------------------------------------------------------------------
@pytest.mark.parametrize("n, komi", [(5, 0.5), (9, 7.5), (13, 6.5), (19, 7.5)])
def test_sgf_round_trip_of_random_games(n, komi):
    m = play_match(RandomAgent(), GreedyAgent(), "go", {"board_size": n, "komi": komi}, games=2, seed=n)
    for rec in m.records:
        back = from_sgf(to_sgf(rec, n, komi))
        assert back["actions"] == rec["actions"] and back["moves"] == rec["moves"]
        assert back["kwargs"] == {"board_size": n, "komi": komi} and back["players"] == rec["players"]
        assert back["winner"] == rec["winner"] and back["truncated"] == rec["truncated"]
        if rec["winner"] != -1:
            assert back["returns"] == rec["returns"]
        if not rec["truncated"]:
            assert back["info"]["score"] == rec["info"]["score"]
        assert replay(back) == replay(rec)  # the same final state, superko history included


def test_sgf_escapes_and_passes():
    rec = {"actions": [0, 25, 24, 25, 25], "winner": 0, "players": ["a]b\\c", "d\\]e]"], "info": {"score": 3.5}}
    text = to_sgf(rec, 5, 0.5)
    back = from_sgf(text)
    assert back["players"] == rec["players"] and back["actions"] == rec["actions"]
    assert back["winner"] == 0 and back["info"]["score"] == 3.5 and back["kwargs"] == {"board_size": 5, "komi": 0.5}
    with pytest.raises(ValueError, match="str"):
        from_sgf(text.encode())


def test_sgf_reader_handles_what_other_programs_write():
    text = """(;FF[4]GM[1]SZ[9]KM[6.5]PB[Black\\
 player]PW[W\\]hite]RE[W+R]C[a comment with \\] and ; and ( inside]
      ;B[ee]C[first];W[tt]
      (;B[dd];W[]  ;B[aa])
      (;B[cc]))
      (;SZ[5])"""
    rec = from_sgf(text)
    assert rec["kwargs"] == {"board_size": 9, "komi": 6.5}
    assert rec["players"] == ["Black player", "W]hite"]  # soft line break removed, escape resolved
    assert rec["actions"] == [4 * 9 + 4, 81, 5 * 9 + 3, 81, 8 * 9 + 0]  # main line; tt and [] are passes
    assert rec["winner"] == 1 and rec["resigned"] == 0
    # FF[3] style lower case letters in property names; tt is a point on boards larger than 19
    rec = from_sgf("(;GaMe[1]SiZe[21]B[tt])")
    assert rec["kwargs"]["board_size"] == 21 and rec["actions"] == [(21 - 1 - 19) * 21 + 19]
    rec = from_sgf("\ufeff (;SZ[9]RE[B+12];B[ab])")
    assert rec["info"]["score"] == 12.0 and rec["kwargs"]["komi"] == 0.0 and rec["actions"] == [7 * 9 + 0]
    for result, winner, extra in (
        ("0", -1, {}),
        ("Draw", -1, {}),
        ("Void", -1, {"truncated": True}),
        ("?", None, {}),
        ("B+T", 0, {"info": {}}),
        ("W+F", 1, {}),
    ):
        rec = from_sgf(f"(;SZ[5]RE[{result}])")
        assert rec["winner"] == winner and all(rec[k] == v for k, v in extra.items()), result
    assert from_sgf("(;SZ[5]RE[W+F])")["illegal"] and "RE[W+F]" in to_sgf(from_sgf("(;SZ[5]RE[W+F])"), 5, 0)
    assert "RE[?]" in to_sgf(from_sgf("(;SZ[5])"), 5, 0)


@pytest.mark.parametrize(
    "text, match",
    [
        ("", "no game tree"),
        ("   ", "no game tree"),
        ("SZ[9]", "expected '\\('"),
        ("(;SZ[9]", "not closed"),
        ("(SZ[9])", "must start with a node"),
        ("(;SZ[9", "not closed with"),
        ("(;SZ[9]B)", "no value"),
        ("(;SZ[9](;B[aa]);W[bb])", "node after a variation"),
        ("(;SZ[9]ab[cd])", "no upper case"),
        ("(;SZ[9];B[aa]B[bb])", "twice"),
        ("(;SZ[9];B[aa]W[bb])", "both"),
        ("(;SZ[9];B[aa];B[bb])", "alternate"),
        ("(;SZ[9];W[aa])", "alternate"),
        ("(;SZ[9];B[zz])", "not a point"),
        ("(;SZ[9];B[a])", "not a point"),
        ("(;SZ[5];B[ff])", "not a point"),
        ("(;GM[2])", "not Go"),
        ("(;SZ[9:7])", "square"),
        ("(;SZ[x])", "square"),
        ("(;SZ[30])", "2..25"),
        ("(;SZ[1])", "2..25"),
        ("(;KM[much])", "komi"),
        ("(;KM[inf])", "komi"),
        ("(;RE[maybe])", "RE"),
        ("(;SZ[9]AB[aa])", "setup"),
        ("(;SZ[9];B[aa];AW[bb])", "setup"),
        ("(;SZ[9]HA[2])", "handicap"),
        ("(;SZ[9]) x", None),
        ("(;SZ[9]]", "unexpected"),
    ],
)
def test_malformed_sgf_is_a_clear_value_error(text, match):
    if match is None:  # text after the first game tree is not read
        assert from_sgf(text)["kwargs"]["board_size"] == 9
        return
    with pytest.raises(ValueError, match=match):
        from_sgf(text)


def test_replaying_an_sgf_checks_its_moves():
    with pytest.raises(ValueError, match="occupied"):
        replay(from_sgf("(;SZ[5];B[cc];W[cc])"))
