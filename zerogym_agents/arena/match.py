"""Games, matches with alternating colours, round robins, and game records (JSON lines, SGF)."""

from __future__ import annotations

import itertools
import json
import math
import operator
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

if TYPE_CHECKING:
    from zerogym._core.state import State
    from zerogym_agents.agents.base import Player

Record = dict[str, Any]  # a game record: see play_game
Outcome = tuple[str, str, float]  # (name_a, name_b, score of A), for Elo

DRAW = -1


def _seed_int(*words: int) -> int:
    """A 63-bit int seed derived from `words` (a SeedSequence entropy list): game i of a match with
    seed s always gets the same seeds, whether or not the other games are played."""
    return int(np.random.SeedSequence(list(words)).generate_state(1, np.uint64)[0] >> np.uint64(1))


def _int_from(value: Any, low: int, what: str) -> int:
    """`value` as an int >= low (0 or 1), else ValueError naming `what`."""
    kind = "non-negative" if low == 0 else "positive"
    try:
        value = operator.index(value)
    except TypeError:
        raise ValueError(f"{what} must be a {kind} int, got {value!r}") from None
    if value < low:
        raise ValueError(f"{what} must be a {kind} int, got {value}")
    return value


def _nonneg_int(value: Any, what: str = "seed") -> int:
    return _int_from(value, 0, what)


def _agent_name(agent: Player) -> str:
    return getattr(agent, "name", None) or type(agent).__name__


def random_opening(game: str, kwargs: dict[str, Any] | None = None, moves: int = 0, seed: int = 0) -> list[int]:
    """`moves` uniformly random legal actions from the start of `game` (a registry name) with kwargs,
    drawn from `seed`: passes only when nothing else is legal, and never a game that is over by then
    (such a draw is replaced by the next one).  For play_game(opening=...)."""
    from zerogym.registry import make_state

    moves = _nonneg_int(moves, "opening moves")
    rng = np.random.default_rng(_nonneg_int(seed))
    for _ in range(1000):
        st = make_state(game, **dict(kwargs or {}))
        actions: list[int] = []
        while len(actions) < moves and not st.is_over():
            legal = [int(a) for a in st.legal_actions()]
            choices = [a for a in legal if a != st.spec.pass_action] or legal
            actions.append(choices[rng.integers(len(choices))])
            st.step(actions[-1])
        if not st.is_over():
            return actions
    raise ValueError(
        f"{game} {dict(kwargs or {})}: no {moves}-move opening leaves the game running "
        f"(1000 draws); ask for fewer opening moves"
    )


def play_game(
    agents: Sequence[Player],
    game: str,
    kwargs: dict[str, Any] | None = None,
    seed: int = 0,
    opening: Sequence[int] = (),
) -> Record:
    """Play one game of `game` (a registry name) with kwargs between agents (first, second).

    The env is reset with `seed` and each agent is seeded from it (agent.seed(), then reset()).
    `opening`: actions played first, for both sides, before the agents choose (random_opening);
    an illegal one, or one after the game ended, raises ValueError.
    An illegal move ends the game and loses it (PettingZoo classic); so does resigning: an agent
    whose act() leaves a true `.resigned` attribute (GnuGoAgent) resigns, and its action is not
    played.  Returns a record dict: game, kwargs, seed, players (names, first mover first),
    actions, moves, winner (0 first player, 1 second, -1 draw), returns (per player), truncated,
    illegal (None or why), resigned (None or the position, 0 / 1, of who resigned), info (final
    info: Go adds its score), opening (how many of the actions were the opening's).
    """
    import zerogym

    first, second = agents
    seed = _nonneg_int(seed)
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
    actions: list[int] = []
    for a in opening:
        st = env.unwrapped.state
        if st.is_over() or not st.is_legal(int(a)):
            why = "the game is over" if st.is_over() else st.illegal_reason(int(a))
            raise ValueError(f"opening move {len(actions) + 1} (action {a!r}) cannot be played: {why}")
        actions.append(int(a))
        env.step(int(a))
    resigned = None
    while True:
        _, _, term, trunc, _ = env.last(observe=False)
        if term or trunc:
            break
        mover = order[env.agent_selection]
        action = mover.act(env)
        if getattr(mover, "resigned", False):
            resigned = players.index(env.agent_selection)
            break
        actions.append(int(action))
        env.step(action)
    raw = env.unwrapped
    rewards = [float(raw.rewards[a]) for a in players]
    illegal = next((raw.infos[a]["illegal_move"] for a in players if "illegal_move" in raw.infos[a]), None)
    final = (
        {}
        if illegal or resigned is not None
        else {k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in raw.final_info().items()}
    )
    if resigned is not None:
        rewards = [1.0, 1.0]
        rewards[resigned] = -1.0
    state = raw.state
    winner = 0 if rewards[0] > rewards[1] else 1 if rewards[1] > rewards[0] else DRAW
    return {
        "game": game,
        "kwargs": kwargs,
        "seed": seed,
        "players": [_agent_name(first), _agent_name(second)],
        "actions": actions,
        "moves": len(actions),
        "winner": winner,
        "returns": rewards,
        "truncated": bool(state.is_truncated()),
        "illegal": illegal,
        "resigned": resigned,
        "info": final,
        "opening": len(opening),
    }


@dataclass
class WDL:
    """Wins, draws and losses from one agent's point of view."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Points: 1 a win, 1/2 a draw."""
        return self.wins + 0.5 * self.draws

    def add(self, outcome: float) -> None:
        """outcome: 1 win, 0.5 draw, 0 loss."""
        if outcome == 1:
            self.wins += 1
        elif outcome == 0:
            self.losses += 1
        else:
            self.draws += 1

    def __add__(self, other: WDL) -> WDL:
        return WDL(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)

    def flipped(self) -> WDL:
        """The same games from the other agent's point of view."""
        return WDL(self.losses, self.draws, self.wins)


@dataclass
class MatchResult:
    """A match between agents A and B: results from A's point of view, split by who moved first
    (as the tables of Cherif Haouat et al., "AlphaOthelloZero"), and every game's record."""

    agent_a: str
    agent_b: str
    game: str
    kwargs: dict[str, Any]
    seed: int
    a_first: WDL = field(default_factory=WDL)
    b_first: WDL = field(default_factory=WDL)
    records: list[Record] = field(default_factory=list)
    opening_moves: int = 0  # random opening moves shared by each pair of games (play_match)

    @property
    def total(self) -> WDL:
        return self.a_first + self.b_first

    @property
    def games(self) -> int:
        return self.total.games

    def outcomes(self) -> list[Outcome]:
        """[(name_a, name_b, score of A)] per game, for Elo."""
        return [
            (self.agent_a, self.agent_b, _score(rec["winner"], 0 if rec["a_moved_first"] else 1))
            for rec in self.records
        ]

    def to_dict(self) -> dict[str, Any]:
        wdl = lambda x: {"wins": x.wins, "draws": x.draws, "losses": x.losses}  # noqa: E731
        return {
            "agent_a": self.agent_a,
            "agent_b": self.agent_b,
            "game": self.game,
            "kwargs": self.kwargs,
            "seed": self.seed,
            "a_first": wdl(self.a_first),
            "b_first": wdl(self.b_first),
            "total": wdl(self.total),
            "opening_moves": self.opening_moves,
            "records": self.records,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MatchResult:
        return cls(
            d["agent_a"],
            d["agent_b"],
            d["game"],
            d["kwargs"],
            d["seed"],
            WDL(**d["a_first"]),
            WDL(**d["b_first"]),
            list(d.get("records", [])),
            d.get("opening_moves", 0),
        )


def _score(winner: int, pos: int) -> float:
    """Score (1 / 0.5 / 0) of the player at position `pos` (0 first) given a record's winner."""
    if winner == DRAW:
        return 0.5
    return 1.0 if winner == pos else 0.0


def _check_games(games: Any, what: str = "games") -> int:
    return _int_from(games, 1, what)


def play_match(
    agent_a: Player,
    agent_b: Player,
    game: str,
    kwargs: dict[str, Any] | None = None,
    games: int = 100,
    seed: int = 0,
    names: tuple[str, str] | None = None,
    progress: Any = False,
    opening_moves: int = 0,
) -> MatchResult:
    """Play `games` games between agent_a and agent_b, A moving first in even-numbered games
    (0, 2, ...) and B in odd ones.  Game i uses seed derived from (seed, i), so any game can be
    replayed alone.  names: (name_a, name_b), default the agents' names (made distinct if equal).
    progress: True for a tqdm bar (or a tqdm bar to advance by one per game).
    opening_moves: games 2j and 2j + 1 both start from the same random_opening of that many moves
    (drawn from (seed, j)), with colours swapped: agents that play deterministically then still meet
    in different games, and neither side gains from the openings.
    Returns a MatchResult (wins/draws/losses from A's view, split by who moved first)."""
    games = _check_games(games)
    seed = _nonneg_int(seed)
    opening_moves = _nonneg_int(opening_moves, "opening_moves")
    name_a, name_b = names or (_agent_name(agent_a), _agent_name(agent_b))
    if name_a == name_b:
        name_a, name_b = f"{name_a}#1", f"{name_b}#2"
    result = MatchResult(name_a, name_b, game, dict(kwargs or {}), seed, opening_moves=opening_moves)
    outer = progress if hasattr(progress, "update") else None  # a round robin's bar
    bar = outer if outer is not None else _bar(games, f"{name_a} vs {name_b}", progress)
    opening: Sequence[int] = ()
    for i in range(games):
        a_first = i % 2 == 0
        pair = (agent_a, agent_b) if a_first else (agent_b, agent_a)
        if opening_moves and a_first:
            opening = random_opening(game, kwargs, opening_moves, _seed_int(seed, 7_919, i // 2))
        rec = play_game(pair, game, kwargs, _seed_int(seed, i), opening)
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


def _bar(total: int, desc: str, progress: Any) -> Any:
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, leave=False)


@dataclass
class RoundRobinResult:
    """Every pair's MatchResult of a round robin, in the order the pairs were played."""

    names: list[str]
    game: str
    kwargs: dict[str, Any]
    seed: int
    matches: list[MatchResult]

    def outcomes(self) -> list[Outcome]:
        """[(name_a, name_b, score of A)] for every game of every match."""
        return [o for m in self.matches for o in m.outcomes()]

    def to_dict(self) -> dict[str, Any]:
        """The fields as JSON-able data (each match by its own to_dict)."""
        return {**vars(self), "matches": [m.to_dict() for m in self.matches]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RoundRobinResult:
        return cls(d["names"], d["game"], d["kwargs"], d["seed"], [MatchResult.from_dict(m) for m in d["matches"]])


def round_robin(
    agents: Mapping[str, Player],
    game: str,
    kwargs: dict[str, Any] | None = None,
    games_per_pair: int = 20,
    seed: int = 0,
    progress: bool = True,
    opening_moves: int = 0,
) -> RoundRobinResult:
    """Every pair of `agents` (dict name -> agent) plays a match of games_per_pair games
    (colours alternated, play_match's opening_moves); pair k (in dict order) uses a match seed
    derived from (seed, k)."""
    if not isinstance(agents, dict) or len(agents) < 2:
        raise ValueError(f"agents must be a dict name -> agent with at least two entries, got {agents!r}")
    games_per_pair = _check_games(games_per_pair, "games_per_pair")
    seed = _nonneg_int(seed)
    names = list(agents)
    pairs = list(itertools.combinations(names, 2))
    bar = _bar(len(pairs) * games_per_pair, f"round robin {game}", progress)
    matches = []
    for k, (a, b) in enumerate(pairs):
        matches.append(
            play_match(
                agents[a],
                agents[b],
                game,
                kwargs,
                games_per_pair,
                _seed_int(seed, 1_000_003, k),
                names=(a, b),
                progress=bar if bar is not None else False,
                opening_moves=opening_moves,
            )
        )
    if bar is not None:
        bar.close()
    return RoundRobinResult(names, game, dict(kwargs or {}), seed, matches)


# ---- storing records ---------------------------------------------------------------------------
def save_records(path: str | os.PathLike[str], records: Iterable[Record]) -> None:
    """Write game records (dicts from play_game) as JSON lines."""
    with open(path, "w") as f:
        for rec in records:
            f.write(json.dumps(rec, sort_keys=True) + "\n")


def load_records(path: str | os.PathLike[str]) -> list[Record]:
    """Read the game records written by save_records."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def replay(record: Record) -> State:
    """The final State of a record, replayed move by move (checks that it is consistent)."""
    from zerogym.registry import make_state

    st = make_state(record["game"], **record["kwargs"])
    for a in record["actions"]:
        st.step(a)
    return st


# ---- SGF ---------------------------------------------------------------------------------------
def _sgf_text(s: object) -> str:
    return str(s).replace("\\", "\\\\").replace("]", "\\]")


def to_sgf(record: Record, board_size: int, komi: float) -> str:
    """An SGF (FF[4]) game of a Go record: SZ, KM, PB/PW, RE and the moves (pass as an empty move).

    Row 0 (rank 1) is the bottom line, so action r * N + c is SGF point column letter c, row letter
    N - 1 - r.  RE is B+score / W+score from the final info when known, "0" for a draw, "Void" for a
    game cut by the move limit, B+F / W+F when the loser played an illegal move, B+R / W+R when it
    resigned, "?" when the record has no winner (None).  from_sgf reads it back."""
    n = int(board_size)
    if not 1 <= n <= 25:
        raise ValueError(f"board_size must be in 1..25 for SGF coordinates, got {board_size!r}")
    letters = "abcdefghijklmnopqrstuvwxyz"
    winner = record.get("winner", DRAW)
    if record.get("truncated"):
        result = "Void"
    elif winner is None:
        result = "?"
    elif winner == DRAW:
        result = "0"
    else:
        side = "B" if winner == 0 else "W"
        score = (record.get("info") or {}).get("score")
        if record.get("resigned") is not None:
            result = f"{side}+R"
        elif record.get("illegal"):
            result = f"{side}+F"
        elif score is not None:
            result = f"{side}+{abs(float(score)):g}"
        else:
            result = f"{side}+"
    black, white = record.get("players", ["black", "white"])
    head = (
        f"(;GM[1]FF[4]CA[UTF-8]AP[zerogym]RU[Tromp-Taylor]SZ[{n}]KM[{float(komi):g}]"
        f"PB[{_sgf_text(black)}]PW[{_sgf_text(white)}]RE[{result}]"
    )
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


def _sgf_main_line(text: str) -> list[dict[str, list[str]]]:
    """The nodes of the main line (first variation everywhere) of the first game tree of an SGF
    collection, each a dict ident -> list of values (escapes resolved); ValueError if malformed."""

    def fail(why: str, at: int) -> NoReturn:
        line = text.count("\n", 0, at) + 1
        raise ValueError(f"malformed SGF: {why} (line {line}, character {at})")

    i, end = 0, len(text)
    stack: list[list[bool]] = []  # per open game tree: [on the main line, has a child tree]
    main: list[dict[str, list[str]]] = []
    node: dict[str, list[str]] | None = None
    while True:
        while i < end and text[i].isspace():
            i += 1
        if i >= end:
            fail("unexpected end (a game tree is not closed with ')')" if stack else "no game tree '('", i)
        ch = text[i]
        if not stack and ch != "(":
            fail(f"expected '(' to open a game tree, found {ch!r}", i)
        if ch == "(":
            on_main = not stack or (stack[-1][0] and not stack[-1][1])
            if stack:
                stack[-1][1] = True
            stack.append([on_main, False])
            node = None
            i += 1
            while i < end and text[i].isspace():
                i += 1
            if i >= end or text[i] != ";":
                fail("a game tree must start with a node ';'", i)
        elif ch == ")":
            stack.pop()
            node = None
            i += 1
            if not stack:
                break
        elif ch == ";":
            if stack[-1][1]:
                fail("a node after a variation", i)
            node = {}
            if stack[-1][0]:
                main.append(node)
            i += 1
        elif ch.isascii() and ch.isalpha():
            if node is None:
                fail("a property outside a node", i)
            j = i
            while j < end and text[j].isascii() and text[j].isalpha():
                j += 1
            ident = "".join(c for c in text[i:j] if c.isupper())  # FF[3] allowed lower case letters
            if not ident:
                fail(f"property name {text[i:j]!r} has no upper case letter", i)
            values, i = [], j
            while True:
                while i < end and text[i].isspace():
                    i += 1
                if i >= end or text[i] != "[":
                    break
                value, i = [], i + 1
                while i < end and text[i] != "]":
                    if text[i] == "\\":
                        i += 1
                        if i < end and text[i] in "\r\n":  # soft line break: removed
                            i += 2 if text[i : i + 2] in ("\r\n", "\n\r") else 1
                            continue
                    if i < end:
                        value.append(text[i])
                        i += 1
                if i >= end:
                    fail(f"value of {ident} is not closed with ']'", j)
                values.append("".join(value))
                i += 1
            if not values:
                fail(f"property {ident} has no value", j)
            if ident in node:
                fail(f"property {ident} twice in one node", j)
            node[ident] = values
        else:
            fail(f"unexpected {ch!r}", i)
    if not main:
        fail("no node", i)
    return main


def _sgf_point(value: str, n: int, where: str) -> int:
    """Action of an SGF move value on an N x N board ('' or 'tt' on boards up to 19 = pass)."""
    if value == "" or (value == "tt" and n <= 19):
        return n * n
    letters = "abcdefghijklmnopqrstuvwxyz"
    if len(value) != 2 or value[0] not in letters[:n] or value[1] not in letters[:n]:
        raise ValueError(f"malformed SGF: {where}: {value!r} is not a point of a {n}x{n} board (or pass)")
    return (n - 1 - letters.index(value[1])) * n + letters.index(value[0])


def from_sgf(text: str) -> Record:
    """The game record (as play_game's, game "go") of an SGF Go game: SZ, KM, PB, PW, RE and the
    main line's B / W moves (pass as [] or, up to 19x19, [tt]).

    kwargs are {"board_size": SZ (default 19), "komi": KM (default 0)}; RE gives winner (None
    when absent or "?"), returns, resigned (B+R / W+R), illegal (B+F / W+F: a forfeit), truncated
    (Void) and info["score"] (B+3.5 -> 3.5, W+2 -> -2.0).  Moves must alternate, black first,
    from the empty board: setup stones (AB, AW, AE) or handicap raise ValueError, as does
    malformed SGF.  replay(from_sgf(text)) replays the game (and checks its moves are legal)."""
    if not isinstance(text, str):
        raise ValueError(f"from_sgf needs the SGF text as a str, got {type(text).__name__}")
    nodes = _sgf_main_line(text[1:] if text.startswith("\ufeff") else text)
    root = nodes[0]
    one = lambda key, default=None: root.get(key, [default])[0]  # noqa: E731
    if one("GM", "1").strip() != "1":
        raise ValueError(f"SGF game type GM[{one('GM')}] is not Go (GM[1])")
    size = one("SZ", "19").strip()
    cols, _, rows = size.partition(":")
    if not cols.isdigit() or rows and rows != cols:
        raise ValueError(f"SGF board size SZ[{size}] is not a square board")
    n = int(cols)
    if not 2 <= n <= 25:
        raise ValueError(f"SGF board size SZ[{size}]: zerogym plays Go on 2..25")
    try:
        komi = float(one("KM", "0"))
    except ValueError:
        raise ValueError(f"SGF komi KM[{one('KM')}] is not a number") from None
    if not math.isfinite(komi):
        raise ValueError(f"SGF komi KM[{one('KM')}] is not a finite number")
    if one("HA", "0").strip() not in ("", "0"):
        raise ValueError(f"SGF handicap HA[{one('HA')}] is not supported (zerogym records start from the empty board)")
    actions: list[int] = []
    for k, node in enumerate(nodes):
        setup = [key for key in ("AB", "AW", "AE") if key in node]
        if setup:
            raise ValueError(
                f"SGF setup stones ({', '.join(setup)} in node {k}) are not supported: "
                f"a zerogym record starts from the empty board"
            )
        moves = [key for key in ("B", "W") if key in node]
        if len(moves) > 1:
            raise ValueError(f"malformed SGF: node {k} holds both a black and a white move")
        if moves:
            colour = moves[0]
            expected = "B" if len(actions) % 2 == 0 else "W"
            if colour != expected:
                raise ValueError(
                    f"SGF move {len(actions) + 1} is {colour} but {expected} is to play: zerogym "
                    f"records alternate, black first (write passes explicitly)"
                )
            actions.append(_sgf_point(node[colour][0].strip(), n, f"move {len(actions) + 1}"))
    rec: Record = {
        "game": "go",
        "kwargs": {"board_size": n, "komi": komi},
        "seed": None,
        "players": [one("PB", "black"), one("PW", "white")],
        "actions": actions,
        "moves": len(actions),
        "winner": None,
        "returns": [0.0, 0.0],
        "truncated": False,
        "illegal": None,
        "resigned": None,
        "info": {},
    }
    result = one("RE", "?").strip()
    upper = result.upper()
    if upper in ("0", "DRAW", "JIGO"):
        rec["winner"] = DRAW
    elif upper == "VOID":
        rec["winner"], rec["truncated"] = DRAW, True
    elif upper[:2] in ("B+", "W+"):
        winner = 0 if upper[0] == "B" else 1
        rec["winner"] = winner
        rec["returns"] = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
        how = upper[2:]
        if how in ("R", "RESIGN"):
            rec["resigned"] = 1 - winner
        elif how in ("F", "FORFEIT"):
            rec["illegal"] = f"{('black', 'white')[1 - winner]}: forfeit (SGF RE[{result}])"
        elif how:
            try:
                score = float(how)
            except ValueError:
                score = None  # B+T (time) and the like: a winner, no score
            if score is not None and math.isfinite(score):
                rec["info"]["score"] = score if winner == 0 else -score
    elif upper not in ("?", ""):
        raise ValueError(f"SGF result RE[{result}] is not B+..., W+..., 0, Draw, Void or ?")
    return rec
