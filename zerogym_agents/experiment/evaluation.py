"""Evaluation against fixed reference agents (arena.play_match), and the pooled Elo of every game
a harness played (arena.fit_elo) from the match records it keeps."""
from zerogym_agents.experiment.seeds import seed_int


def reference_agent(spec, game, kwargs=None, seed=None):
    """The agent of an arena spec ("random", "greedy", "uct:200", "gnugo:1", a saved agent ...)."""
    from zerogym_agents.agents.specs import agent_from_spec
    return agent_from_spec(spec, game, kwargs or {}, seed=seed)


def play_reference(agent, spec, game, kwargs, games, seed, names, reference_seed=None, opening_moves=0,
                   progress=False):
    """A MatchResult of `agent` (agent A) against the reference `spec`, built with reference_seed
    and closed afterwards (GNU Go runs in a process of its own)."""
    from zerogym_agents.arena.match import play_match
    opponent = reference_agent(spec, game, kwargs, seed=reference_seed)
    try:
        return play_match(agent, opponent, game, kwargs, games=games, seed=seed, names=names, progress=progress,
                          opening_moves=opening_moves)
    finally:
        if hasattr(opponent, "close"):
            opponent.close()


def strip_match(match):
    """A MatchResult as a dict without its game records (the counts are what the Elo fit needs)."""
    d = match.to_dict()
    d.pop("records", None)
    return d


def evaluate(make_agent, name, references, game, kwargs, games, seed_words, opening_moves=0):
    """make_agent() (a fresh agent per match, called `name`) against every reference, `games` games
    each, colours alternated; the match against reference j is seeded with seed_int(*seed_words, j).
    Returns the matches as dicts without records."""
    return [strip_match(play_reference(make_agent(), ref, game, kwargs, games, seed_int(*seed_words, j),
                                       (name, ref), opening_moves=opening_moves))
            for j, ref in enumerate(references)]


def play_references(references, game, kwargs, games, seed, opening_moves=0, done=(), on_match=None):
    """Every pair of references plays `games` games (pair p seeded with seed_int(seed, 9, p)): their
    ratings anchor the others'. done: the matches of a previous sitting, skipped; on_match(matches)
    after each new one (to save them). Returns the list of match dicts (no records)."""
    matches = list(done)
    pairs = [(a, b) for i, a in enumerate(references) for b in references[i + 1:]]
    for p, (a, b) in enumerate(pairs[len(matches):], start=len(matches)):
        first = reference_agent(a, game, kwargs)
        try:
            matches.append(strip_match(play_reference(first, b, game, kwargs, games, seed_int(seed, 9, p), (a, b),
                                                      opening_moves=opening_moves)))
        finally:
            if hasattr(first, "close"):
                first.close()
        if on_match is not None:
            on_match(matches)
    return matches


def match_outcomes(m):
    """[(a, b, score of a)] per game of a match dict, from its counts (records not needed)."""
    a, b = m["agent_a"], m["agent_b"]
    out = []
    for side in ("a_first", "b_first"):
        x = m[side]
        out += [(a, b, 1.0)] * x["wins"] + [(a, b, 0.5)] * x["draws"] + [(a, b, 0.0)] * x["losses"]
    return out


def pooled_elo(matches, anchor="random", names=None):
    """The Elo fit (fit_elo, 95% intervals) over every game of `matches` (dicts), with `anchor` at 0
    when it played (else the mean at 0); None when there is no game. names: the agents, in order
    (default: as they first appear)."""
    from zerogym_agents.arena.elo import fit_elo
    outcomes = [o for m in matches for o in match_outcomes(m)]
    if not outcomes:
        return None
    seen = set(names) if names is not None else {x for a, b, _ in outcomes for x in (a, b)}
    return fit_elo(outcomes, names=names, anchor=anchor if anchor in seen else None)


def fmt_elo(elo, name):
    """"+123 [+80, +166]": a rating and its interval, or "-" when `name` is not rated."""
    if elo is None or name not in elo.names:
        return "-"
    r = elo.rating(name)
    lo, hi = elo.interval(name)
    return f"{r:+.0f} [{lo:+.0f}, {hi:+.0f}]"


def total(m):
    """A match dict's wins, draws and losses over both colours (A's view)."""
    return {k: m["a_first"][k] + m["b_first"][k] for k in ("wins", "draws", "losses")}


def wdl(x):
    return f"{x['wins']}-{x['draws']}-{x['losses']}"
