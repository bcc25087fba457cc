"""The contract every game keeps, tested on every game at a set of sizes (as PettingZoo tests each
of its environments with one parametrized test): PettingZoo's api_test and seed_test, spaces that
match the observations, both views of a position, illegal moves in both modes (env() ends the game
with -1 for the offender; illegal="raise" and raw_env raise IllegalMoveError and change nothing),
bad kwargs, the end of a game, rendering (ansi, rgb_array), the vector path against the AEC env,
and pickling.  The rules of each game are tested in its own file (test_go.py, ...).
"""

import copy
import functools
import pickle
import re
from dataclasses import dataclass

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import zerogym
import zerogym.vector
from zerogym import IllegalMoveError
from zerogym._core.breakthrough import BreakthroughState
from zerogym._core.connect_four import ConnectFourState
from zerogym._core.go import GoState
from zerogym._core.havannah import HavannahState
from zerogym._core.hex import HexState
from zerogym._core.othello import OthelloState
from zerogym._core.tictactoe import TicTacToeState
from zerogym.registry import game_module
from cases import case_id, padding_filled

LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # board column letters: I is skipped, as in Go


@dataclass(frozen=True)
class Game:
    state_class: type
    agents: tuple
    planes: int  # observation planes; plane 0 is the observer's, plane 1 the other's
    defaults: dict  # every kwarg, at its default
    sizes: tuple  # the kwargs every contract test runs at
    shape: object  # full kwargs -> board (H, W)
    num_actions: object  # full kwargs -> A
    columns: str  # text board column labels: "letters", "lowercase" or "numbers"
    row0_on_top: bool  # the text board prints row 0 first
    mover_rewards: frozenset  # rewards possible for the player whose move ends the game
    bad_kwargs: tuple = ()  # (kwargs, words the ValueError's message holds: one or a tuple)
    illegal: tuple = ()  # (kwargs, moves played first, illegal action, patterns its message matches)
    final_info: frozenset = frozenset()  # keys of both agents' info when a game ends
    hex: bool = False  # text board drawn as a rhombus, row numbers on the left only
    resolve: object = None  # full kwargs -> spec.kwargs, where a default is derived

    def full(self, kw):
        return {**self.defaults, **kw}

    def spec_kwargs(self, kw):
        full = self.full(kw)
        return self.resolve(full) if self.resolve else full


def square(kw):
    return kw["board_size"], kw["board_size"]


def points_and_one(kw):  # a move per point, and a pass (Go, Othello) or the swap (Hex)
    return kw["board_size"] ** 2 + 1


GAMES = {
    "go": Game(
        GoState,
        ("black_0", "white_0"),
        7,
        defaults=dict(board_size=19, komi=7.5, superko="positional", max_moves=None),
        sizes=(
            dict(board_size=2),
            dict(board_size=3, superko="simple", max_moves=12),
            dict(board_size=4, komi=0, max_moves=20),
            dict(board_size=5),
            dict(board_size=9),
            dict(board_size=19),
        ),
        shape=square,
        num_actions=points_and_one,
        columns="letters",
        row0_on_top=False,
        mover_rewards=frozenset({-1, 0, 1}),
        final_info=frozenset({"score", "black_area", "white_area"}),
        resolve=lambda kw: {**kw, "komi": float(kw["komi"]), "max_moves": kw["max_moves"] or 2 * kw["board_size"] ** 2},
        bad_kwargs=(
            *[({"board_size": v}, "2..25") for v in (1, 26, "9", True, 9.0)],
            *[({"komi": v}, "komi") for v in ("six", "7.5", True)],
            ({"komi": float("nan")}, "finite"),
            ({"komi": float("inf")}, "finite"),
            ({"superko": "situational"}, "'positional', 'simple'"),
            ({"max_moves": 0}, "max_moves"),
            ({"max_moves": 2.5}, "max_moves"),
        ),
        illegal=(
            (dict(board_size=5), [12], 12, ["C3", "white_0", "occupied"]),
            (dict(board_size=5), [5, 25, 1], 0, ["white_0.*suicide"]),
        ),
    ),  # A2, pass, B1: A1 is an eye
    "othello": Game(
        OthelloState,
        ("black_0", "white_0"),
        3,
        defaults=dict(board_size=8),
        sizes=(dict(board_size=4), dict(board_size=6), dict(board_size=8), dict(board_size=10), dict(board_size=16)),
        shape=square,
        num_actions=points_and_one,
        columns="lowercase",
        row0_on_top=True,
        mover_rewards=frozenset({-1, 0, 1}),
        final_info=frozenset({"discs"}),
        bad_kwargs=tuple(
            ({"board_size": v}, ("board_size", "even", "4..16"))
            for v in (3, 5, 7, 2, 0, 18, 17, -4, 2.0, "8", True, None)
        ),
        illegal=(
            (dict(), [], 0, ["a1", "black_0", "flips no disc"]),
            (dict(), [], 27, ["d4", "black_0", "occupied"]),
            (dict(), [], 64, ["pass", "black_0", "pass is only legal"]),
        ),
    ),
    "hex": Game(
        HexState,
        ("black_0", "white_0"),
        4,
        defaults=dict(board_size=11, swap=True),
        sizes=tuple(dict(board_size=n, swap=swap) for n in (2, 5, 11, 19) for swap in (True, False)),
        shape=square,
        num_actions=points_and_one,
        columns="letters",
        row0_on_top=True,
        hex=True,
        mover_rewards=frozenset({1}),  # no draws: the last stone wins
        bad_kwargs=(
            *[({"board_size": v}, "2..19") for v in (1, 20, 25, "5", 5.0, True)],
            *[({"swap": v}, ("swap", "True, False")) for v in ("no", "yes", None)],
        ),
        illegal=(
            (dict(board_size=5), [], 25, ["swap.*black_0|black_0.*swap"]),
            (dict(board_size=5), [12], 12, ["C3", "white_0", "occupied"]),
        ),
    ),
    "connect_four": Game(
        ConnectFourState,
        ("player_0", "player_1"),
        3,
        defaults=dict(rows=6, cols=7, connect=4),
        sizes=(
            dict(),
            dict(rows=5, cols=4, connect=3),
            dict(rows=3, cols=4, connect=3),
            dict(rows=2, cols=3, connect=3),
            dict(rows=9, cols=12, connect=5),
        ),
        shape=lambda kw: (kw["rows"], kw["cols"]),
        num_actions=lambda kw: kw["cols"],
        columns="numbers",
        row0_on_top=True,
        mover_rewards=frozenset({0, 1}),
        bad_kwargs=(
            *[({"rows": v}, "1..25") for v in (0, 26, 2.5)],
            *[({"cols": v}, "1..25") for v in (0, 26, 30, "7")],
            *[({"connect": v}, "2..7") for v in (1, 8, True)],
            (dict(rows=3, cols=2, connect=4), "2..3"),
            (dict(rows=1, cols=1, connect=2), "max(rows, cols)"),
        ),
        illegal=(
            (dict(rows=2, cols=3, connect=3), [0, 0], 0, ["column 1", "player_0", "full"]),
            (dict(rows=1, cols=3, connect=3), [1], 1, ["column 2", "player_1", "full"]),
        ),
    ),
    "tictactoe": Game(
        TicTacToeState,
        ("player_0", "player_1"),
        3,
        defaults=dict(board_size=3, win_length=3),
        sizes=(
            dict(),
            dict(board_size=5, win_length=4),
            dict(board_size=7, win_length=4),
            dict(board_size=15, win_length=5),
        ),
        shape=square,
        num_actions=lambda kw: kw["board_size"] ** 2,
        columns="letters",
        row0_on_top=False,
        mover_rewards=frozenset({0, 1}),
        bad_kwargs=(
            *[({"board_size": v}, ("board_size", "2..25")) for v in (0, 1, 26, 3.0, "3", True)],
            *[({"win_length": v}, ("win_length", "2..3")) for v in (4, 0)],
            ({"board_size": 15, "win_length": 16}, ("win_length", "2..15")),
        ),
        illegal=((dict(), [4], 4, ["B2", "player_1", "occupied"]),),
    ),
    "breakthrough": Game(
        BreakthroughState,
        ("player_0", "player_1"),
        5,
        defaults=dict(rows=8, cols=8),
        sizes=(dict(), dict(rows=4, cols=2), dict(rows=5, cols=5), dict(rows=6, cols=9), dict(rows=16, cols=16)),
        shape=lambda kw: (kw["rows"], kw["cols"]),
        num_actions=lambda kw: kw["rows"] * kw["cols"] * 3,
        columns="lowercase",
        row0_on_top=True,
        mover_rewards=frozenset({1}),  # no draws: the last move wins
        bad_kwargs=(
            *[({"rows": v}, ("rows", "4..16")) for v in (3, 17, "8", True, 8.0)],
            *[({"cols": v}, ("cols", "2..16")) for v in (1, 17, 2.5)],
        ),
        illegal=(
            (dict(rows=6, cols=6), [], 43, ["c3-c", "player_0", "no piece"]),  # c3 is empty
            (dict(rows=6, cols=6), [25, 79], 43, ["c3-c", "player_0", "capture only diagonally"]),
        ),
    ),
    "havannah": Game(
        HavannahState,
        ("player_0", "player_1"),
        3,
        defaults=dict(board_size=8, swap=False),
        sizes=tuple(dict(board_size=n, swap=swap) for n in (3, 5, 8, 13) for swap in (False, True)),
        shape=lambda kw: (2 * kw["board_size"] - 1,) * 2,
        num_actions=lambda kw: (2 * kw["board_size"] - 1) ** 2 + 1,
        columns="letters",
        row0_on_top=True,
        hex=True,
        mover_rewards=frozenset({0, 1}),
        bad_kwargs=(
            *[({"board_size": v}, "3..13") for v in (2, 14, "5", 5.0, True)],
            *[({"swap": v}, ("swap", "True, False")) for v in ("no", None)],
        ),
        illegal=(
            (dict(board_size=4), [], 0, ["A1", "player_0", "not on the hexagon"]),  # a corner of the grid
            (dict(board_size=4), [24], 24, ["D4", "player_1", "occupied"]),
            (dict(board_size=4), [24], 49, ["swap.*player_1|player_1.*swap"]),
        ),
    ),
}

CASES = [pytest.param(game, kw, id=case_id((game, kw))) for game, g in GAMES.items() for kw in g.sizes]
# the illegal moves tried: at every size one that random play comes to (moves None), and the table's examples
ILLEGAL = [
    pytest.param(game, kw, None, None, (), id=case_id((game, kw))) for game, g in GAMES.items() for kw in g.sizes
] + [
    pytest.param(game, kw, moves, action, words, id=f"{case_id((game, kw))}-{'-'.join(map(str, moves + [action]))}")
    for game, g in GAMES.items()
    for kw, moves, action, words in g.illegal
]


def env(game, kw, **options):
    return game_module(game).env(**kw, **options)


def raw_env(game, kw, **options):
    return game_module(game).raw_env(**kw, **options)


def legal_of(e):
    return np.flatnonzero(e.observe(e.agent_selection)["action_mask"])


# ---- PettingZoo's own tests ----------------------------------------------------------------------
@pytest.mark.parametrize("game,kw", CASES)
def test_api(game, kw):
    api_test(env(game, kw), num_cycles=300)
    api_test(raw_env(game, kw), num_cycles=300)


@pytest.mark.parametrize("game,kw", CASES)
def test_seed(game, kw):
    seed_test(functools.partial(game_module(game).env, **kw), num_cycles=300)


# ---- names, spaces, observations -----------------------------------------------------------------
@pytest.mark.parametrize("game,kw", CASES + [pytest.param(game, {}, id=f"{game}-defaults") for game in GAMES])
def test_names_kwargs_and_spaces(game, kw):
    g = GAMES[game]
    (h, w), a = g.shape(g.full(kw)), g.num_actions(g.full(kw))
    for e in (zerogym.make(game, **kw), env(game, kw), raw_env(game, kw)):
        e.reset()
        assert e.metadata["name"] == f"{game}_v0"
        assert e.possible_agents == list(g.agents) and e.agents == list(g.agents)
        assert e.agent_selection == g.agents[0]
        assert e.unwrapped.state.spec.kwargs == g.spec_kwargs(kw)
        assert str(e.unwrapped) == f"{game}_v0(" + ", ".join(f"{k}={v!r}" for k, v in g.spec_kwargs(kw).items()) + ")"
        assert type(e.unwrapped.state) is g.state_class is game_module(game).raw_env.state_class
        assert type(e.unwrapped) is type(zerogym.make_raw(f"{game}_v0", **kw))
        for agent in g.agents:
            assert e.action_space(agent).n == a
            space = e.observation_space(agent)
            assert space["observation"].shape == (h, w, g.planes) and space["observation"].dtype == np.int8
            assert space["action_mask"].shape == (a,) and space["action_mask"].dtype == np.int8


@pytest.mark.parametrize("game,kw", CASES)
def test_observations_fit_the_spaces_from_both_views(game, kw):
    """Through a random game: each observation lies in its space (shape and dtype exactly), the
    two views swap the own and opponent planes, only the mover has a mask, and it is the State's."""
    g = GAMES[game]
    e = env(game, kw)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    first, second = g.agents
    while True:
        state = e.unwrapped.state
        views = {agent: e.observe(agent) for agent in g.agents}
        for agent, obs in views.items():
            space = e.observation_space(agent)
            assert set(obs) == {"observation", "action_mask"}
            for key in obs:
                assert obs[key].shape == space[key].shape and obs[key].dtype == space[key].dtype
            assert space.contains(obs)
            if agent == e.agent_selection and not state.is_over():
                assert np.array_equal(obs["action_mask"], state.legal_mask()) and obs["action_mask"].any()
            else:
                assert not obs["action_mask"].any()
        mine, theirs = views[first]["observation"], views[second]["observation"]
        assert np.array_equal(mine[..., 0], theirs[..., 1]) and np.array_equal(mine[..., 1], theirs[..., 0])
        assert not (mine[..., 0] & mine[..., 1]).any()
        assert np.array_equal(state.board(), mine[..., 0] + 2 * mine[..., 1])
        assert np.array_equal(e.state(), mine)  # the global state: the first player's view
        if state.is_over():
            break
        e.step(int(rng.choice(legal_of(e))))


# ---- the end of a game ---------------------------------------------------------------------------
def leave(e):
    """step(None) for every done agent, as a PettingZoo loop does; what last() gave each."""
    seen = {}
    while e.agents:
        agent = e.agent_selection
        assert agent not in seen
        obs, reward, term, trunc, info = e.last()
        assert term or trunc
        seen[agent] = (reward, term, trunc, info)
        e.step(None)
    with pytest.raises(IllegalMoveError, match=r"reset\(\)"):
        e.step(0)
    return seen


@pytest.mark.parametrize("game,kw", CASES)
def test_a_game_ends_with_rewards_for_both_and_every_agent_leaves(game, kw):
    g = GAMES[game]
    e = env(game, kw)
    e.reset(seed=1)
    rng = np.random.default_rng(1)
    while not (any(e.terminations.values()) or any(e.truncations.values())):
        assert e.rewards == {a: 0 for a in g.agents} and e.infos == {a: {} for a in g.agents}
        mover = e.agent_selection
        e.step(int(rng.choice(legal_of(e))))
    state = e.unwrapped.state
    assert state.is_over()
    assert all(e.terminations.values()) == state.is_terminal() and all(e.truncations.values()) == state.is_truncated()
    assert e.terminations[g.agents[0]] != e.truncations[g.agents[0]]
    returns = state.returns()
    assert e.rewards == {a: returns[i] for i, a in enumerate(g.agents)} and sum(returns) == 0
    assert e.rewards[mover] in (g.mover_rewards if state.is_terminal() else {0})
    assert e.infos[g.agents[0]] == e.infos[g.agents[1]] and set(e.infos[g.agents[0]]) == g.final_info
    for agent in g.agents:
        assert not e.observe(agent)["action_mask"].any()
    seen = leave(e)
    assert {a: r for a, (r, *_) in seen.items()} == {a: returns[i] for i, a in enumerate(g.agents)}
    assert all((term, trunc) == (state.is_terminal(), state.is_truncated()) for _, term, trunc, _ in seen.values())


# ---- illegal moves -------------------------------------------------------------------------------
def illegal_position(e, game, kw, moves, action, rng):
    """Reset e and reach a position where the mover has an illegal action in range: the given
    moves, or random legal moves until one shows up. Returns that action."""
    if moves is not None:
        e.reset()
        for m in moves:
            e.step(m)
        return action
    for _ in range(50):
        e.reset()
        while not e.unwrapped.state.is_over():
            illegal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)
            if len(illegal):
                return int(rng.choice(illegal))
            e.step(int(rng.choice(legal_of(e))))
    pytest.fail("no illegal move in 50 random games")


def check_message(err, state, action, offender, reason, words):
    assert isinstance(err, IllegalMoveError) and isinstance(err, ValueError)
    assert err.action == action and err.player == offender and err.reason == reason
    text = str(err)
    assert state.spec.action_name(action) in text and offender in text and reason in text
    for pattern in words:
        assert re.search(pattern, text), (pattern, text)


@pytest.mark.parametrize("make", [raw_env, functools.partial(env, illegal="raise")], ids=["raw_env", "env-raise"])
@pytest.mark.parametrize("game,kw,moves,action,words", ILLEGAL)
def test_illegal_move_raises_and_changes_nothing(make, game, kw, moves, action, words):
    e = make(game, kw)
    a = illegal_position(e, game, kw, moves, action, np.random.default_rng(2))
    state, offender = e.unwrapped.state, e.agent_selection
    mask = e.observe(offender)["action_mask"]
    reason = state.illegal_reason(a)
    assert mask[a] == 0 and reason is not None and not state.is_legal(a)
    before, moves_made = state.to_bytes(), state.move_count
    with pytest.raises(IllegalMoveError) as err:
        e.step(a)
    check_message(err.value, state, a, offender, reason, words)
    for out in (state.num_actions, -1):
        with pytest.raises(IllegalMoveError, match="out of range"):
            e.step(out)
    assert state.to_bytes() == before and e.agent_selection == offender
    assert not any(e.terminations.values()) and not any(e.truncations.values())
    assert all(r == 0 for r in e.rewards.values())
    e.step(int(np.flatnonzero(mask)[0]))  # the game goes on
    assert state.move_count == moves_made + 1


@pytest.mark.parametrize("game,kw,moves,action,words", ILLEGAL)
def test_illegal_move_ends_the_game_with_minus_one_for_the_offender(game, kw, moves, action, words):
    e = env(game, kw)
    a = illegal_position(e, game, kw, moves, action, np.random.default_rng(3))
    state, offender = e.unwrapped.state, e.agent_selection
    (other,) = set(GAMES[game].agents) - {offender}
    reason = state.illegal_reason(a)
    before = state.to_bytes()
    for out in (state.num_actions, -1):  # out of range: a caller's bug, raised
        with pytest.raises(IllegalMoveError, match="out of range"):
            e.step(out)
    assert not any(e.terminations.values())
    e.step(a)
    assert state.to_bytes() == before
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e.rewards == {offender: -1, other: 0}
    assert e._cumulative_rewards == {offender: -1, other: 0}
    for agent in (offender, other):
        assert e.infos[agent]["illegal_move"] == f"{offender}: {reason}"
        assert not e.observe(agent)["action_mask"].any()  # as after a normal end: no legal move
    assert not e.last()[0]["action_mask"].any()
    seen = leave(e)
    assert {a: r for a, (r, *_) in seen.items()} == {offender: -1, other: 0}
    assert all(term and not trunc for _, term, trunc, _ in seen.values())
    e.reset()
    assert e.observe(e.agent_selection)["action_mask"].any()  # a new game has moves again


@pytest.mark.parametrize("game,kw,moves,action,words", ILLEGAL)
def test_illegal_move_in_the_vector_names_the_game_and_changes_none(game, kw, moves, action, words):
    n, target = 4, 2
    venv = zerogym.vector.make(game, n, **kw)
    obs, _ = venv.reset(seed=0)
    if moves is not None:
        for m in moves:  # played in the target game only
            actions = np.full(n, -1)
            actions[target] = m
            obs = venv.step(actions)[0]
        a = action
    else:
        for _ in range(100):  # until the target game, playing its first legal move, has an illegal one
            if not obs["action_mask"][target].all():  # (Connect Four: a full column)
                break
            actions = venv.sample_actions(obs["action_mask"])
            actions[target] = np.flatnonzero(obs["action_mask"][target])[0]
            obs = venv.step(actions)[0]
        assert not obs["action_mask"][target].all()
        a = int(np.flatnonzero(obs["action_mask"][target] == 0)[0])
    mask = obs["action_mask"]
    state = venv.get_state(target)
    offender, reason = state.spec.agents[state.current_player], state.illegal_reason(a)
    assert mask[target, a] == 0 and reason is not None
    before = [venv.get_state(i).to_bytes() for i in range(n)]
    actions = venv.sample_actions(mask)
    actions[target] = a
    with pytest.raises(IllegalMoveError, match=f"game {target}") as err:
        venv.step(actions)
    assert err.value.game_index == target
    check_message(err.value, state, a, offender, reason, words)
    assert [venv.get_state(i).to_bytes() for i in range(n)] == before
    for bad in (venv.num_actions, -2):  # -1 leaves a game as it is; other negatives are out of range
        actions[target] = bad
        with pytest.raises(IllegalMoveError, match=f"game {target}.*action {bad}"):
            venv.step(actions)
    assert [venv.get_state(i).to_bytes() for i in range(n)] == before


# ---- kwargs --------------------------------------------------------------------------------------
BAD_KWARGS = [
    pytest.param(
        game,
        kw,
        (words,) if isinstance(words, str) else words,
        id=f"{game}-" + "-".join(f"{k}={v!r}" for k, v in kw.items()),
    )
    for game, g in GAMES.items()
    for kw, words in g.bad_kwargs
]


@pytest.mark.parametrize("game,kw,words", BAD_KWARGS)
def test_bad_kwargs_say_what_is_allowed(game, kw, words):
    makers = (
        env,
        raw_env,
        lambda game, kw: zerogym.make(game, **kw),
        lambda game, kw: zerogym.make_state(game, **kw),
        lambda game, kw: GAMES[game].state_class(**kw),
    )
    for make in makers:
        with pytest.raises(ValueError) as err:
            make(game, kw)
        for word in (game, *words):
            assert word in str(err.value), (word, str(err.value))


@pytest.mark.parametrize("game", GAMES)
def test_bad_options_and_unknown_kwargs(game):
    for bad in ("ignore", "skip"):
        with pytest.raises(ValueError, match="'terminate', 'raise'"):
            env(game, {}, illegal=bad)
        with pytest.raises(ValueError, match="illegal"):
            zerogym.make(game, illegal=bad)
    for make in (env, raw_env, lambda game, kw, **options: zerogym.make(game, **kw, **options)):
        with pytest.raises(ValueError, match="'ansi'"):
            make(game, {}, render_mode="svg")
        with pytest.raises(TypeError, match=f"{game}: unknown keyword argument 'size'"):
            make(game, {"size": 5})
    with pytest.raises(TypeError):
        raw_env(game, {}, illegal="raise")  # the raw env always raises


# ---- rendering -----------------------------------------------------------------------------------
def column_labels(g, w):
    if g.columns == "numbers":
        return [str(c + 1) for c in range(w)]
    return list(LETTERS[:w].lower() if g.columns == "lowercase" else LETTERS[:w])


def check_text(text, g, e):
    """The text board: column labels over their cells, each row numbered (row 1 = board row 0, on
    top or at the bottom as the game has it), Hex rows shifted half a cell each, the last move in
    brackets, and who is to move."""
    state = e.unwrapped.state
    board = state.board()
    h, w = board.shape
    lines = text.split("\n")
    if hasattr(state, "on_board"):
        return check_hexagon_text(lines, state, e)
    assert len(lines) == 1 + h + (0 if g.hex else 1) + 1
    header = lines[0]
    labels = column_labels(g, w)
    assert header.split() == labels
    ends = [m.end() - 1 for m in re.finditer(r"\S+", header)]  # a cell sits under its label's last character
    gaps = set(np.diff(ends).tolist())  # evenly spaced, labels apart
    assert len(gaps) <= 1 and all(gap > max(map(len, labels)) for gap in gaps), header
    last = last_point(state.spec, state.last_action, board, 1 - state.current_player)
    on = state.on_board() if hasattr(state, "on_board") else np.ones((h, w), bool)  # Havannah: a hexagon
    for r in range(h):
        line = lines[1 + (r if g.row0_on_top else h - 1 - r)]
        assert re.match(rf" *{r + 1}[ \[]", line), line  # the mark may take the space after it
        if not g.hex:
            assert line.endswith(f" {r + 1}"), line
        shift = r if g.hex else 0
        for c in range(w):
            x = ends[c] + shift
            assert (line[x] if x < len(line) else " ") == (".XO"[board[r, c]] if on[r, c] else " "), (r, c, line)
            marked = line[x - 1 : x] == "[" and line[x + 1 : x + 2] == "]"
            assert marked == ((r, c) == last), (r, c, last, line)
    assert text.count("[") == text.count("]") == (last is not None)
    if not g.hex:
        assert lines[h + 1] == header
    status = "game over" if state.is_over() else f"{e.agent_selection} to move"
    assert lines[-1] == f"move {state.move_count}, {status}"


def check_hexagon_text(lines, state, e):
    """Havannah's text board: a line of column letters above and below the rows (each letter stands past an
    end of its column; zerogym/test_play.py follows them), row r numbered r + 1, its cells two characters
    apart and each row shifted half a cell right of the one above, so that cell (r, c) is at x0 + 2c + r for
    one x0; the last move in brackets, and who is to move."""
    board, on = state.board(), state.on_board()
    h, w = board.shape
    assert len(lines) == 1 + h + 1 + 1
    cells = [(r, c) for r in range(h) for c in range(w) if on[r, c]]

    def fits(x0):
        return all(0 <= x0 + 2 * c + r < len(lines[1 + r]) for r, c in cells) and all(
            lines[1 + r][x0 + 2 * c + r] == ".XO"[board[r, c]] for r, c in cells
        )

    x0 = next((x for x in range(len(lines[1])) if fits(x)), None)
    assert x0 is not None, "\n".join(lines)
    for r in range(h):
        assert re.match(rf" *{r + 1}[ \[]", lines[1 + r]), lines[1 + r]
    last = last_point(state.spec, state.last_action, board, 1 - state.current_player)
    for r, c in cells:
        line, x = lines[1 + r], x0 + 2 * c + r
        marked = line[x - 1 : x] == "[" and line[x + 1 : x + 2] == "]"
        assert marked == ((r, c) == last), (r, c, last, line)
    assert "\n".join(lines).count("[") == (last is not None)
    status = "game over" if state.is_over() else f"{e.agent_selection} to move"
    assert lines[-1] == f"move {state.move_count}, {status}"


def last_point(spec, action, board, mover=0):
    """(row, col) of the piece the last move placed (or moved, by `mover`), or None (start, pass)."""
    h, w = board.shape
    if action < 0 or action == spec.pass_action:
        return None
    if action == spec.swap_action:  # a swap leaves one stone, the swapped one
        return tuple(int(v) for v in np.argwhere(board)[0])
    if spec.action_kind == "columns":  # the top piece of the column
        return int(np.flatnonzero(board[:, action])[0]), action
    if spec.action_kind == "cell_moves":  # a step forward: down the rows for player 0
        cell, d = divmod(action, spec.actions_per_cell)
        (r, c), (dr, dc) = divmod(cell, w), spec.move_offsets[d]
        return r + dr * (1 - 2 * mover), c + dc
    return divmod(action, w)


@pytest.mark.parametrize("game,kw", CASES)
def test_render_ansi_through_a_game(game, kw):
    g = GAMES[game]
    e = env(game, kw, render_mode="ansi")
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    while True:
        check_text(e.render(), g, e)
        if e.unwrapped.state.is_over():
            break
        e.step(int(rng.choice(legal_of(e))))


@pytest.mark.parametrize("game,kw", CASES)
def test_render_rgb_array(game, kw):
    g = GAMES[game]
    h, w = g.shape(g.full(kw))
    e = env(game, kw, render_mode="rgb_array")
    e.reset()
    empty = e.render()
    assert isinstance(empty, np.ndarray) and empty.dtype == np.uint8
    assert empty.ndim == 3 and empty.shape[2] == 3 and empty.shape[0] > h and empty.shape[1] > w
    e.step(int(legal_of(e)[0]))
    img = e.render()
    assert img.shape == empty.shape and (img != empty).any()  # the stone shows
    plain = env(game, kw)
    plain.reset()
    with pytest.warns(UserWarning, match="render_mode"):
        assert plain.render() is None


# ---- the vector path against the AEC env ---------------------------------------------------------
@pytest.mark.parametrize("skip", [0.0, 0.4], ids=["all-step", "some-skip"])
@pytest.mark.parametrize("game,kw", CASES)
def test_vector_matches_the_aec_env(game, kw, skip):
    """Each game of a vector env follows a raw AEC env given the same moves, through the auto
    reset when it ends; a game given the action -1 (a share `skip` of them each step) stays as it was."""
    g = GAMES[game]
    n = 6
    venv = zerogym.vector.make(game, n, **kw)
    obs, infos = venv.reset(seed=0)
    envs = [raw_env(game, kw) for _ in range(n)]
    for e in envs:
        e.reset()
    rng = np.random.default_rng(1)
    finished, skipped, steps = np.zeros(n, int), 0, 0
    while steps < 300 or finished.min() == 0 or finished.sum() <= n:
        steps += 1
        assert steps <= 5000, finished
        for i, e in enumerate(envs):
            view = e.observe(e.agent_selection)
            assert np.array_equal(obs["observation"][i], view["observation"])
            assert np.array_equal(obs["action_mask"][i], view["action_mask"])
            assert infos["to_play"][i] == g.agents.index(e.agent_selection)
            assert venv.get_state(i) == e.unwrapped.state
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        left = rng.random(n) < skip
        actions[left] = -1
        obs, rewards, term, trunc, infos = venv.step(actions)
        for i, e in enumerate(envs):
            if left[i]:
                skipped += 1
                assert rewards[i] == 0 and not term[i] and not trunc[i] and not infos["_final_observation"][i]
                continue
            mover = e.agent_selection
            e.step(int(actions[i]))
            assert term[i] == e.terminations[mover] and trunc[i] == e.truncations[mover]
            assert rewards[i] == e.rewards[mover]
            assert infos["_final_observation"][i] == (term[i] or trunc[i])
            if term[i] or trunc[i]:
                assert rewards[i] in (g.mover_rewards if term[i] else {0})
                assert np.array_equal(infos["final_observation"][i], e.observe(e.agent_selection)["observation"])
                finished[i] += 1
                e.reset()
            else:
                assert rewards[i] == 0
    assert (skipped > 0) == (skip > 0)


# ---- the State behind the env: copies and reset -------------------------------------------------
def random_moves(state, count, seed):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        if state.is_over():
            break
        state.step(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("game,kw", CASES)
def test_reset_gives_canonical_bytes(game, kw):
    """Equal positions must be equal bytes (== is memcmp): reset() writes every byte, whatever the
    padding held and however far the game had gone."""
    cls = GAMES[game].state_class
    fresh = cls(**kw).to_bytes()
    assert cls(**kw).to_bytes() == fresh and cls(**kw) == cls(**kw)
    a, b = cls(**kw), cls(**kw)
    a.load_bytes(padding_filled(a, 0xFF))
    b.load_bytes(padding_filled(b, 0x00))
    assert a.to_bytes() != b.to_bytes() and a != b
    a.reset()
    b.reset()
    assert a.to_bytes() == b.to_bytes() == fresh and a == b
    random_moves(a, 10**6, seed=6)  # to the end
    assert a.is_over() and a.to_bytes() != fresh
    a.reset()
    assert a.to_bytes() == fresh
    for s in (a, b):
        random_moves(s, 2, seed=7)
    assert a == b == random_moves(cls(**kw), 2, seed=7)


@pytest.mark.parametrize("game,kw", CASES)
def test_copy_from_copies_every_byte(game, kw):
    cls = GAMES[game].state_class
    s = random_moves(cls(**kw), 3, seed=8)
    t = cls(**kw)
    t.copy_from(s)
    assert t == s and t.to_bytes() == s.to_bytes()
    moves = s.move_count
    s.reset()
    assert s == cls(**kw) and t != s and t.move_count == moves > 0
    other = next(
        k
        for k in GAMES[game].sizes
        if GAMES[game].shape(GAMES[game].full(k)) != GAMES[game].shape(GAMES[game].full(kw))
    )
    with pytest.raises(ValueError):
        cls(**other).copy_from(t)


@pytest.mark.parametrize("game,kw", CASES)
def test_the_state_behind_the_env_pickles_and_copies(game, kw):
    e = raw_env(game, kw)
    e.reset()
    rng = np.random.default_rng(5)
    for _ in range(3):
        if not e.unwrapped.state.is_over():
            e.step(int(rng.choice(legal_of(e))))
    state = e.unwrapped.state
    for twin in (pickle.loads(pickle.dumps(state)), state.copy(), copy.copy(state), copy.deepcopy(state)):
        assert type(twin) is type(state) and twin == state and twin.to_bytes() == state.to_bytes()
        if not state.is_over():
            twin.step(int(twin.legal_actions()[0]))
            assert twin != state and twin.move_count == state.move_count + 1
