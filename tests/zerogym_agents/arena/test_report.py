"""Reports (markdown tables, plot, files) and the `zerogym arena` sub-command."""

import argparse
import json

import pytest

from zerogym_agents.arena import (
    RoundRobinResult,
    elo_markdown,
    fit_elo,
    match_markdown,
    pairwise_markdown,
    round_robin,
    write_report,
)
from zerogym_agents.cli.arena import add_arena_parser
from zerogym_agents.agents.base import RandomAgent
from zerogym_agents.agents.greedy import GreedyAgent
from zerogym_agents.agents.minimax import MinimaxAgent
from zerogym_agents.agents.specs import agent_from_spec, agent_names, parse_kwargs


@pytest.fixture(scope="module")
def tournament():
    agents = {"random": RandomAgent(), "greedy": GreedyAgent(), "minimax": MinimaxAgent()}
    rr = round_robin(agents, "tictactoe", {}, games_per_pair=10, seed=1, progress=False)
    return rr, fit_elo(rr.outcomes(), names=list(agents))


def table_rows(md):
    return [
        [c.strip() for c in line.strip("|").split("|")]
        for line in md.splitlines()
        if line.startswith("|") and not line.startswith("|-") and not line.startswith("|:") and "---" not in line
    ][1:]


def test_elo_table_is_sorted_and_complete(tournament):
    rr, elo = tournament
    rows = table_rows(elo_markdown(elo))
    assert [r[1] for r in rows] == [elo.names[i] for i in elo.order()]
    ratings = [float(r[2]) for r in rows]
    assert ratings == sorted(ratings, reverse=True)
    for r in rows:
        i = elo.names.index(r[1])
        assert float(r[3]) == pytest.approx(elo.halfwidth[i], abs=0.5)
        assert int(r[4]) == 20  # two opponents, ten games each
        assert r[5].startswith(f"{elo.score[i]:g} ")
    assert rows[-1][1] == "random"


def test_pairwise_table_has_first_player_splits(tournament):
    rr, _ = tournament
    rows = table_rows(pairwise_markdown(rr))
    assert len(rows) == 3
    for row, m in zip(rows, rr.matches):
        assert row[:2] == [m.agent_a, m.agent_b]
        a_first, b_first, total = ([int(x) for x in cell.split("-")] for cell in row[2:5])
        assert [x + y for x, y in zip(a_first, b_first)] == total
        assert sum(a_first) == m.a_first.games and sum(total) == 10
    md = match_markdown(rr.matches[0])
    rows = table_rows(md)
    assert [r[0] for r in rows] == [rr.matches[0].agent_a, rr.matches[0].agent_b, "total"]
    assert [int(x) for x in rows[2][1:]] == [int(a) + int(b) for a, b in zip(rows[0][1:], rows[1][1:])]
    assert md.splitlines()[2] == "| first to play | win | draw | loss | total |"  # W-D-L, as the pairs table
    t = rr.matches[0].total
    assert [int(x) for x in rows[2][1:]] == [t.wins, t.draws, t.losses, t.games]


def test_write_report(tmp_path, tournament):
    rr, elo = tournament
    paths = write_report(rr, elo, tmp_path / "out", command="zerogym arena ...")
    text = open(paths["report"]).read()
    assert "## Elo" in text and "## Pairs" in text and "zerogym arena ..." in text
    with open(paths["plot"], "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    data = json.load(open(paths["results"]))
    assert RoundRobinResult.from_dict(data["round_robin"]).to_dict() == rr.to_dict()
    assert set(data["elo"]["agents"]) == set(elo.names)
    assert sum(1 for _ in open(paths["games"])) == 30


def test_go_report_writes_sgf(tmp_path):
    rr = round_robin({"r": RandomAgent(), "g": GreedyAgent()}, "go", {"board_size": 5}, 2, seed=0, progress=False)
    write_report(rr, fit_elo(rr.outcomes()), tmp_path)
    files = sorted((tmp_path / "sgf").iterdir())
    assert len(files) == 2 and files[0].read_text().startswith("(;GM[1]FF[4]")


def arena_args(tmp_path, options):
    """`zerogym arena` with `options` (split at spaces) and --out tmp_path, parsed."""
    ap = argparse.ArgumentParser(prog="zerogym")
    add_arena_parser(ap.add_subparsers(dest="command"))
    return ap.parse_args(["arena", *options.split(), "--out", str(tmp_path)])


def test_cli_runs_a_round_robin(tmp_path, capsys):
    agents = "--agents random greedy minimax random --anchor random"
    args = arena_args(tmp_path, f"--game connect_four --kwargs rows=4 cols=4 {agents} --games 4 --seed 3 --no-progress")
    result, elo = args.func(args)
    assert elo.names == ["random", "greedy", "minimax", "random#2"] and elo.rating("random") == 0
    assert len(result.matches) == 6 and all(m.games == 4 for m in result.matches)
    assert result.kwargs == {"rows": 4, "cols": 4}
    assert (tmp_path / "report.md").exists() and "| rank | agent |" in capsys.readouterr().out
    assert "random opening" not in (tmp_path / "report.md").read_text()
    for m in result.matches:
        if "minimax" in (m.agent_a, m.agent_b):  # 4x4 Connect Four is never lost by the solver
            assert (m.total.wins if m.agent_b == "minimax" else m.total.losses) == 0


def test_cli_opening_moves(tmp_path):
    args = arena_args(tmp_path, "--game tictactoe --agents minimax greedy --games 6 --opening-moves 2 --no-progress")
    result, _ = args.func(args)
    assert all(r["opening"] == 2 for r in result.matches[0].records)
    assert "same 2 random opening moves, colours swapped" in (tmp_path / "report.md").read_text()
    data = json.load(open(tmp_path / "results.json"))
    assert data["round_robin"]["matches"][0]["opening_moves"] == 2
    args = arena_args(tmp_path, "--game tictactoe --agents minimax greedy --opening-moves -1")
    with pytest.raises(ValueError, match="opening_moves must be a non-negative int"):
        args.func(args)


def test_cli_errors_name_the_problem(tmp_path):
    args = arena_args(tmp_path, "--game go --agents random minimax")
    with pytest.raises(ValueError, match="minimax supports"):
        args.func(args)


def test_agent_specs_and_kwargs():
    assert isinstance(agent_from_spec("random"), RandomAgent)
    assert isinstance(agent_from_spec("greedy", "go", {"board_size": 9}), GreedyAgent)
    assert isinstance(agent_from_spec("minimax", "tictactoe", {}), MinimaxAgent)
    for bad, msg in (
        ("foo", "unknown agent spec"),
        ("uct:x", "number of simulations"),
        ("uct:0", ">= 1"),
        ("greedy:3", "no argument"),
        ("", "non-empty"),
    ):
        with pytest.raises(ValueError, match=msg):
            agent_from_spec(bad, "tictactoe", {})
    with pytest.raises(ValueError, match="minimax supports"):
        agent_from_spec("minimax", "go", {"board_size": 5})
    assert parse_kwargs(['{"board_size": 9, "komi": 6.5}']) == {"board_size": 9, "komi": 6.5}
    assert parse_kwargs(["board_size=9", "komi=6.5", "superko=simple", "max_moves=null"]) == {
        "board_size": 9,
        "komi": 6.5,
        "superko": "simple",
        "max_moves": None,
    }
    with pytest.raises(ValueError, match="key=value"):
        parse_kwargs(["board_size"])
    assert agent_names(["a", "b", "a", "a"]) == ["a", "b", "a#2", "a#3"]
