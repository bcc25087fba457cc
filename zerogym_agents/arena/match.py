"""Games, matches with alternating colours, round robins, and game records (JSON lines, SGF)."""
import itertools
import json
import operator
from dataclasses import dataclass, field

import numpy as np

DRAW = -1


def _seed_int(*words):
    """A 63-bit int seed derived from `words` (a SeedSequence entropy list): game i of a match with
    seed s always gets the same seeds, whether or not the other games are played."""
    return int(np.random.SeedSequence(list(words)).generate_state(1, np.uint64)[0] >> np.uint64(1))


def _check_seed(seed):
    try:
        seed = operator.index(seed)
    except TypeError:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}") from None
    if seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed}")
    return seed


def _agent_name(agent):
    return getattr(agent, "name", None) or type(agent).__name__


def play_game(agents, game, kwargs=None, seed=0):
    """Play one game of `game` (a registry name) with kwargs between agents (first, second).

    The env is reset with `seed` and each agent is seeded from it (agent.seed(), then reset()).
    An illegal move ends the game and loses it (PettingZoo classic).  Returns a record dict:
    game, kwargs, seed, players (names, first mover first), actions, moves, winner (0 first player,
    1 second, -1 draw), returns (per player), truncated, illegal (None or why), info (final info:
    Go adds its score).
    """
    import zerogym
    first, second = agents
    seed = _check_seed(seed)
    kwargs = dict(kwargs or {})
    env = zerogym.make(game, **kwargs)
    env.reset(seed=seed)
    players = list(env.possible_agents)
    for i, agent in enumerate((first, second)):
        if hasattr(agent, "seed"):
            agent.seed(_seed_int(seed, 1 + i))
        if hasattr(agent, "reset"):
            agent.reset()
    order = {players[0]: first, players[1]: second}
    actions = []
    while True:
        _, _, term, trunc, _ = env.last(observe=False)
        if term or trunc:
            break
        action = order[env.agent_selection].act(env)
        actions.append(int(action))
        env.step(action)
    raw = env.unwrapped
    rewards = [float(raw.rewards[a]) for a in players]
    illegal = next((raw.infos[a]["illegal_move"] for a in players if "illegal_move" in raw.infos[a]), None)
    final = {} if illegal else {k: (float(v) if isinstance(v, (float, np.floating)) else v)
                                for k, v in raw.final_info().items()}
    state = raw.state
    winner = 0 if rewards[0] > rewards[1] else 1 if rewards[1] > rewards[0] else DRAW
    return {"game": game, "kwargs": kwargs, "seed": seed,
            "players": [_agent_name(first), _agent_name(second)],
            "actions": actions, "moves": len(actions), "winner": winner, "returns": rewards,
            "truncated": bool(state.is_truncated()), "illegal": illegal, "info": final}


@dataclass
class WDL:
    """Wins, draws and losses from one agent's point of view."""
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self):
        return self.wins + self.draws + self.losses

    @property
    def score(self):
        """Points: 1 a win, 1/2 a draw."""
        return self.wins + 0.5 * self.draws

    def add(self, outcome):
        """outcome: 1 win, 0.5 draw, 0 loss."""
        if outcome == 1:
            self.wins += 1
        elif outcome == 0:
            self.losses += 1
        else:
            self.draws += 1

    def __add__(self, other):
        return WDL(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)

    def flipped(self):
        """The same games from the other agent's point of view."""
        return WDL(self.losses, self.draws, self.wins)


@dataclass
class MatchResult:
    """A match between agents A and B: results from A's point of view, split by who moved first
    (as the tables of AlphaOthelloZero, paper 004), and every game's record."""
    agent_a: str
    agent_b: str
    game: str
    kwargs: dict
    seed: int
    a_first: WDL = field(default_factory=WDL)
    b_first: WDL = field(default_factory=WDL)
    records: list = field(default_factory=list)

    @property
    def total(self):
        return self.a_first + self.b_first

    @property
    def games(self):
        return self.total.games

    def outcomes(self):
        """[(name_a, name_b, score of A)] per game, for Elo."""
        return [(self.agent_a, self.agent_b, _score(rec["winner"], 0 if rec["a_moved_first"] else 1))
                for rec in self.records]

    def to_dict(self):
        wdl = lambda x: {"wins": x.wins, "draws": x.draws, "losses": x.losses}  # noqa: E731
        return {"agent_a": self.agent_a, "agent_b": self.agent_b, "game": self.game, "kwargs": self.kwargs,
                "seed": self.seed, "a_first": wdl(self.a_first), "b_first": wdl(self.b_first),
                "total": wdl(self.total), "records": self.records}

    @classmethod
    def from_dict(cls, d):
        return cls(d["agent_a"], d["agent_b"], d["game"], d["kwargs"], d["seed"], WDL(**d["a_first"]),
                   WDL(**d["b_first"]), list(d.get("records", [])))


def _score(winner, pos):
    """Score (1 / 0.5 / 0) of the player at position `pos` (0 first) given a record's winner."""
    if winner == DRAW:
        return 0.5
    return 1.0 if winner == pos else 0.0


def _check_games(games, what="games"):
    try:
        games = operator.index(games)
    except TypeError:
        raise ValueError(f"{what} must be a positive int, got {games!r}") from None
    if games < 1:
        raise ValueError(f"{what} must be a positive int, got {games}")
    return games


def play_match(agent_a, agent_b, game, kwargs=None, games=100, seed=0, names=None, progress=False):
    """Play `games` games between agent_a and agent_b, A moving first in even-numbered games
    (0, 2, ...) and B in odd ones.  Game i uses seed derived from (seed, i), so any game can be
    replayed alone.  names: (name_a, name_b), default the agents' names (made distinct if equal).
    progress: True for a tqdm bar (or a tqdm bar to advance by one per game).
    Returns a MatchResult (wins/draws/losses from A's view, split by who moved first)."""
    games = _check_games(games)
    seed = _check_seed(seed)
    name_a, name_b = names or (_agent_name(agent_a), _agent_name(agent_b))
    if name_a == name_b:
        name_a, name_b = f"{name_a}#1", f"{name_b}#2"
    result = MatchResult(name_a, name_b, game, dict(kwargs or {}), seed)
    outer = progress if hasattr(progress, "update") else None     # a round robin's bar
    bar = outer if outer is not None else _bar(games, f"{name_a} vs {name_b}", progress)
    for i in range(games):
        a_first = i % 2 == 0
        pair = (agent_a, agent_b) if a_first else (agent_b, agent_a)
        rec = play_game(pair, game, kwargs, _seed_int(seed, i))
        rec["players"] = [name_a, name_b] if a_first else [name_b, name_a]
        rec["index"] = i
        rec["a_moved_first"] = a_first
        s = _score(rec["winner"], 0 if a_first else 1)
        (result.a_first if a_first else result.b_first).add(s)
        result.records.append(rec)
        if bar is not None:
            bar.update(1)
            t = result.total
            bar.set_postfix_str(f"{name_a} vs {name_b}: {t.wins}-{t.draws}-{t.losses}")
    if bar is not None and outer is None:
        bar.close()
    return result


def _bar(total, desc, progress):
    if not progress:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, desc=desc, leave=False)


@dataclass
class RoundRobinResult:
    """Every pair's MatchResult of a round robin, in the order the pairs were played."""
    names: list
    game: str
    kwargs: dict
    seed: int
    matches: list

    def outcomes(self):
        """[(name_a, name_b, score of A)] for every game of every match."""
        return [o for m in self.matches for o in m.outcomes()]

    def to_dict(self):
        return {"names": self.names, "game": self.game, "kwargs": self.kwargs, "seed": self.seed,
                "matches": [m.to_dict() for m in self.matches]}

    @classmethod
    def from_dict(cls, d):
        return cls(d["names"], d["game"], d["kwargs"], d["seed"], [MatchResult.from_dict(m) for m in d["matches"]])


def round_robin(agents, game, kwargs=None, games_per_pair=20, seed=0, progress=True):
    """Every pair of `agents` (dict name -> agent) plays a match of games_per_pair games
    (colours alternated); pair k (in dict order) uses a match seed derived from (seed, k)."""
    if not isinstance(agents, dict) or len(agents) < 2:
        raise ValueError(f"agents must be a dict name -> agent with at least two entries, got {agents!r}")
    games_per_pair = _check_games(games_per_pair, "games_per_pair")
    seed = _check_seed(seed)
    names = list(agents)
    pairs = list(itertools.combinations(names, 2))
    bar = _bar(len(pairs) * games_per_pair, f"round robin {game}", progress)
    matches = []
    for k, (a, b) in enumerate(pairs):
        matches.append(play_match(agents[a], agents[b], game, kwargs, games_per_pair, _seed_int(seed, 1_000_003, k),
                                  names=(a, b), progress=bar if bar is not None else False))
    if bar is not None:
        bar.close()
    return RoundRobinResult(names, game, dict(kwargs or {}), seed, matches)


# ---- storing records ---------------------------------------------------------------------------
def save_records(path, records):
    """Write game records (dicts from play_game) as JSON lines."""
    with open(path, "w") as f:
        for rec in records:
            f.write(json.dumps(rec, sort_keys=True) + "\n")


def load_records(path):
    """Read the game records written by save_records."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def replay(record):
    """The final State of a record, replayed move by move (checks that it is consistent)."""
    from zerogym.registry import make_state
    st = make_state(record["game"], **record["kwargs"])
    for a in record["actions"]:
        st.step(a)
    return st


# ---- SGF ---------------------------------------------------------------------------------------
def _sgf_text(s):
    return str(s).replace("\\", "\\\\").replace("]", "\\]")


def to_sgf(record, board_size, komi):
    """An SGF (FF[4]) game of a Go record: SZ, KM, PB/PW, RE and the moves (pass as an empty move).

    Row 0 (rank 1) is the bottom line, so action r * N + c is SGF point column letter c, row letter
    N - 1 - r.  RE is B+score / W+score from the final info when known, "0" for a draw, "Void" for a
    game cut by the move limit, B+F / W+F when the loser played an illegal move."""
    n = int(board_size)
    if not 1 <= n <= 25:
        raise ValueError(f"board_size must be in 1..25 for SGF coordinates, got {board_size!r}")
    letters = "abcdefghijklmnopqrstuvwxyz"
    winner = record.get("winner", DRAW)
    if record.get("truncated"):
        result = "Void"
    elif winner == DRAW:
        result = "0"
    else:
        side = "B" if winner == 0 else "W"
        score = (record.get("info") or {}).get("score")
        if record.get("illegal"):
            result = f"{side}+F"
        elif score is not None:
            result = f"{side}+{abs(float(score)):g}"
        else:
            result = f"{side}+"
    black, white = record.get("players", ["black", "white"])
    head = (f"(;GM[1]FF[4]CA[UTF-8]AP[zerogym]RU[Tromp-Taylor]SZ[{n}]KM[{float(komi):g}]"
            f"PB[{_sgf_text(black)}]PW[{_sgf_text(white)}]RE[{result}]")
    moves = []
    for i, a in enumerate(record["actions"]):
        colour = "B" if i % 2 == 0 else "W"
        if not 0 <= a <= n * n:
            raise ValueError(f"action {a} is not a point or pass on a {n}x{n} board")
        if a == n * n:
            moves.append(f";{colour}[]")
        else:
            r, c = divmod(a, n)
            moves.append(f";{colour}[{letters[c]}{letters[n - 1 - r]}]")
    return head + "".join(moves) + ")\n"
