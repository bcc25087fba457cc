"""Evaluation against fixed reference agents (arena.play_match), and the pooled Elo of every game
a harness played (arena.fit_elo) from the match records it keeps."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from zerogym_agents.experiment.seeds import seed_int

if TYPE_CHECKING:
    from zerogym_agents.agents.base import Agent
    from zerogym_agents.arena.elo import EloTable
    from zerogym_agents.arena.match import MatchResult


def reference_agent(spec: str, game: str, kwargs: dict[str, Any] | None = None, seed: int | None = None) -> Agent:
    """The agent of an arena spec ("random", "greedy", "uct:200", "gnugo:1", a saved agent ...)."""
    from zerogym_agents.agents.specs import agent_from_spec

    return agent_from_spec(spec, game, kwargs or {}, seed=seed)


def play_reference(
    agent: Agent,
    spec: str,
    game: str,
    kwargs: dict[str, Any],
    games: int,
    seed: int,
    names: tuple[str, str],
    reference_seed: int | None = None,
    opening_moves: int = 0,
    progress: bool = False,
) -> MatchResult:
    """A MatchResult of `agent` (agent A) against the reference `spec`, built with reference_seed
    and closed afterwards (GNU Go runs in a process of its own)."""
    from zerogym_agents.arena.match import play_match

    opponent = reference_agent(spec, game, kwargs, seed=reference_seed)
    try:
        return play_match(
            agent,
            opponent,
            game,
            kwargs,
            games=games,
            seed=seed,
            names=names,
            progress=progress,
            opening_moves=opening_moves,
        )
    finally:
        if hasattr(opponent, "close"):
            opponent.close()


def strip_match(match: MatchResult) -> dict[str, Any]:
    """A MatchResult as a dict without its game records (the counts are what the Elo fit needs)."""
    d = match.to_dict()
    d.pop("records", None)
    return d


def seeded_match(make_agent: Callable[[int], Agent], spec: str, seed: int, **match: Any) -> MatchResult:
    """A MatchResult of make_agent(seed_int(seed, 1)) against the reference `spec` built with seed
    seed_int(seed, 2), the games seeded with seed_int(seed, 3): one seed fixes both players' own
    randomness too (sampled openings, the reference's choices), not only the games'. match: the rest of
    play_reference's arguments (game, kwargs, games, names, opening_moves, progress). Both agents are
    closed afterwards where they can be."""
    agent = make_agent(seed_int(seed, 1))
    try:
        return play_reference(agent, spec, seed=seed_int(seed, 3), reference_seed=seed_int(seed, 2), **match)
    finally:
        close = getattr(agent, "close", None)
        if close is not None:
            close()


def evaluate(
    make_agent: Callable[..., Agent],
    name: str,
    references: Sequence[str],
    game: str,
    kwargs: dict[str, Any],
    games: int,
    seed_words: Sequence[int],
    opening_moves: int = 0,
    seeded: bool = False,
    records: bool = False,
    progress: bool = False,
) -> list[dict[str, Any]]:
    """A fresh agent (called `name`) against every reference, `games` games each, colours alternated.
    The match against reference j is seeded with seed_int(*seed_words, j), and make_agent() plays it;
    seeded: that seed goes to seeded_match instead, which seeds the agent, make_agent(seed), and the
    reference too. Returns the matches as dicts, with the games' records when `records`."""
    out = []
    for j, ref in enumerate(references):
        seed = seed_int(*seed_words, j)
        plan: dict[str, Any] = dict(
            game=game, kwargs=kwargs, games=games, names=(name, ref), opening_moves=opening_moves
        )
        if seeded:
            match = seeded_match(make_agent, ref, seed, progress=progress, **plan)
        else:
            match = play_reference(make_agent(), ref, seed=seed, progress=progress, **plan)
        out.append(match.to_dict() if records else strip_match(match))
    return out


def play_references(
    references: Sequence[str],
    game: str,
    kwargs: dict[str, Any],
    games: int,
    seed: int,
    opening_moves: int = 0,
    done: Sequence[dict[str, Any]] = (),
    on_match: Callable[[list[dict[str, Any]]], Any] | None = None,
) -> list[dict[str, Any]]:
    """Every pair of references plays `games` games (pair p seeded with seed_int(seed, 9, p)): their
    ratings anchor the others'. done: the matches of a previous sitting, skipped; on_match(matches)
    after each new one (to save them). Returns the list of match dicts (no records)."""
    matches = list(done)
    pairs = [(a, b) for i, a in enumerate(references) for b in references[i + 1 :]]
    for p, (a, b) in enumerate(pairs[len(matches) :], start=len(matches)):
        first = reference_agent(a, game, kwargs)
        try:
            matches.append(
                strip_match(
                    play_reference(
                        first, b, game, kwargs, games, seed_int(seed, 9, p), (a, b), opening_moves=opening_moves
                    )
                )
            )
        finally:
            if hasattr(first, "close"):
                first.close()
        if on_match is not None:
            on_match(matches)
    return matches


def match_outcomes(m: dict[str, Any]) -> list[tuple[str, str, float]]:
    """[(a, b, score of a)] per game of a match dict, from its counts (records not needed)."""
    a, b = m["agent_a"], m["agent_b"]
    out: list[tuple[str, str, float]] = []
    for side in ("a_first", "b_first"):
        x = m[side]
        out += [(a, b, 1.0)] * x["wins"] + [(a, b, 0.5)] * x["draws"] + [(a, b, 0.0)] * x["losses"]
    return out


def pooled_elo(
    matches: Sequence[dict[str, Any]], anchor: str = "random", names: Sequence[str] | None = None
) -> EloTable | None:
    """The Elo fit (fit_elo, 95% intervals) over every game of `matches` (dicts), with `anchor` at 0
    when it played (else the mean at 0); None when there is no game. names: the agents, in order
    (default: as they first appear)."""
    from zerogym_agents.arena.elo import fit_elo

    outcomes = [o for m in matches for o in match_outcomes(m)]
    if not outcomes:
        return None
    seen = set(names) if names is not None else {x for a, b, _ in outcomes for x in (a, b)}
    return fit_elo(outcomes, names=names, anchor=anchor if anchor in seen else None)


def fmt_elo(elo: EloTable | None, name: str) -> str:
    """ "+123 [+80, +166]": a rating and its interval, or "-" when `name` is not rated."""
    if elo is None or name not in elo.names:
        return "-"
    r = elo.rating(name)
    lo, hi = elo.interval(name)
    return f"{r:+.0f} [{lo:+.0f}, {hi:+.0f}]"


def total(m: dict[str, Any]) -> dict[str, int]:
    """A match dict's wins, draws and losses over both colours (A's view)."""
    return {k: m["a_first"][k] + m["b_first"][k] for k in ("wins", "draws", "losses")}


def wdl(x: dict[str, int]) -> str:
    return f"{x['wins']}-{x['draws']}-{x['losses']}"
