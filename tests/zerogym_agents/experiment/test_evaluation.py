"""Evaluation against references and the pooled Elo, on Tic-tac-toe with the built-in agents."""

from collections import Counter

import pytest

from zerogym_agents.arena.elo import fit_elo
from zerogym_agents.arena.match import MatchResult, play_match
from zerogym_agents.agents.base import RandomAgent
from zerogym_agents.experiment import evaluation
from zerogym_agents.experiment.evaluation import (
    evaluate,
    fmt_elo,
    match_outcomes,
    play_references,
    pooled_elo,
    reference_agent,
    strip_match,
    total,
    wdl,
)
from zerogym_agents.experiment.seeds import seed_int


def test_an_agent_meets_every_reference_with_its_own_seed_and_a_fresh_copy():
    made = []

    def make_agent():
        made.append(RandomAgent())
        return made[-1]

    matches = evaluate(make_agent, "mine@0", ["random", "greedy"], "tictactoe", {}, 4, (0, 7, 3), opening_moves=1)
    assert [(m["agent_a"], m["agent_b"]) for m in matches] == [("mine@0", "random"), ("mine@0", "greedy")]
    assert [m["seed"] for m in matches] == [seed_int(0, 7, 3, 0), seed_int(0, 7, 3, 1)]
    assert len(made) == 2 and made[0] is not made[1]
    for m in matches:
        assert "records" not in m and m["opening_moves"] == 1
        assert sum(m["a_first"].values()) == sum(m["b_first"].values()) == 2  # colours alternated
    again = play_match(
        RandomAgent(),
        reference_agent("greedy", "tictactoe"),
        "tictactoe",
        {},
        games=4,
        seed=seed_int(0, 7, 3, 1),
        names=("mine@0", "greedy"),
        opening_moves=1,
    )
    assert strip_match(again) == matches[1]


def test_the_reference_is_closed_after_its_match(monkeypatch):
    closed = []

    class Closing(RandomAgent):
        def close(self):
            closed.append(self)

    monkeypatch.setattr(evaluation, "reference_agent", lambda spec, game, kwargs=None, seed=None: Closing())
    evaluate(RandomAgent, "me", ["a", "b"], "tictactoe", {}, 2, (1,))
    assert len(closed) == 2


def test_every_pair_of_references_plays_once_and_a_restart_plays_only_the_rest():
    refs = ["random", "greedy", "minimax"]
    saved = []
    matches = play_references(refs, "tictactoe", {}, 2, seed=5, on_match=lambda ms: saved.append(len(ms)))
    assert [(m["agent_a"], m["agent_b"]) for m in matches] == [
        ("random", "greedy"),
        ("random", "minimax"),
        ("greedy", "minimax"),
    ]
    assert [m["seed"] for m in matches] == [seed_int(5, 9, p) for p in range(3)] and saved == [1, 2, 3]
    rest = play_references(refs, "tictactoe", {}, 2, seed=5, done=matches[:1])
    assert rest == matches


def test_outcomes_from_the_counts_are_those_of_the_records_and_the_fit_is_fit_elo():
    ms = [
        play_match(
            reference_agent(a, "tictactoe"),
            reference_agent(b, "tictactoe"),
            "tictactoe",
            {},
            games=6,
            seed=s,
            names=(a, b),
            opening_moves=2,
        )
        for s, (a, b) in enumerate([("random", "greedy"), ("greedy", "minimax"), ("random", "minimax")])
    ]
    for m in ms:
        assert Counter(match_outcomes(strip_match(m))) == Counter(m.outcomes())
    elo = pooled_elo([strip_match(m) for m in ms])
    direct = fit_elo([o for m in ms for o in m.outcomes()], anchor="random")
    assert elo.names == direct.names and elo.anchor == "random" and elo.rating("random") == 0
    assert elo.ratings.tolist() == pytest.approx(direct.ratings.tolist(), abs=1e-9)
    only = pooled_elo([strip_match(ms[1])])  # no Random among them: the mean is 0
    assert only.anchor is None and only.rating("greedy") == pytest.approx(-only.rating("minimax"))
    ordered = pooled_elo([strip_match(ms[0])], names=["greedy", "random"])
    assert ordered.names == ["greedy", "random"]
    assert pooled_elo([]) is None
    d = MatchResult.from_dict(strip_match(ms[0]))
    assert wdl(total(strip_match(ms[0]))) == f"{d.total.wins}-{d.total.draws}-{d.total.losses}"


def test_a_rating_prints_with_its_interval_or_a_dash():
    elo = fit_elo([("a", "b", 1.0), ("a", "b", 0.0), ("a", "b", 1.0)], anchor="b")
    lo, hi = elo.interval("a")
    assert fmt_elo(elo, "a") == f"{elo.rating('a'):+.0f} [{lo:+.0f}, {hi:+.0f}]"
    assert fmt_elo(elo, "c") == "-" and fmt_elo(None, "a") == "-"
