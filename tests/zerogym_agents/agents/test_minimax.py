"""MinimaxAgent: exact values against independent brute-force solvers, perfect play in practice."""

from functools import cache

import numpy as np
import pytest

import zerogym
from zerogym.registry import make_state
from zerogym_agents.arena import play_match
from zerogym_agents.agents.base import RandomAgent
from zerogym_agents.agents.greedy import GreedyAgent
from zerogym_agents.agents.minimax import MinimaxAgent

# ---- an independent Tic-tac-toe solver on tuples (no zerogym code) ----------------------------
TTT_LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def ttt_winner(b):
    for i, j, k in TTT_LINES:
        if b[i] and b[i] == b[j] == b[k]:
            return b[i]
    return 0


@cache
def ttt_value(b, me):
    """Value for `me` (1 or 2) to move on tuple board b (0 empty): +1 / 0 / -1."""
    if ttt_winner(b):
        return -1  # the previous mover completed a line
    if all(b):
        return 0
    return max(-ttt_value(b[:i] + (me,) + b[i + 1 :], 3 - me) for i in range(9) if not b[i])


def test_empty_tictactoe_is_a_draw_and_every_opening_draws():
    agent = MinimaxAgent(seed=0)
    st = make_state("tictactoe")
    assert ttt_value((0,) * 9, 1) == 0
    assert agent.value(st) == ttt_value((0,) * 9, 1)
    assert list(agent.action_values(st)) == [
        -ttt_value(tuple(1 if j == i else 0 for j in range(9)), 2) for i in range(9)
    ]


def test_every_reachable_tictactoe_position_matches_brute_force():
    agent = MinimaxAgent(seed=0)
    seen = set()

    def visit(st, b):
        if st.is_over() or b in seen:
            return
        seen.add(b)
        me = st.current_player + 1
        assert agent.value(st) == ttt_value(b, me), b
        vals = agent.action_values(st)
        for a in range(9):
            if b[a]:
                assert vals[a] == -2
                continue
            child_b = b[:a] + (me,) + b[a + 1 :]
            expect = 1 if ttt_winner(child_b) else (0 if all(child_b) else -ttt_value(child_b, 3 - me))
            assert vals[a] == expect, (b, a)
            visit(st.copy().step(a), child_b)

    visit(make_state("tictactoe"), (0,) * 9)
    assert len(seen) == 5478 - 958  # legal positions minus terminal ones (the well-known counts)


def test_hand_built_positions():
    agent = MinimaxAgent(seed=3)
    # X on a1 b1 (cells 0 1), O on a2 b2 (3 4): X to move wins at once on cell 2
    st = make_state("tictactoe")
    for a in (0, 3, 1, 4):
        st.step(a)
    assert agent.value(st) == 1
    vals = agent.action_values(st)
    assert vals[2] == 1  # completes the bottom row
    b = (1, 1, 0, 2, 2, 0, 0, 0, 0)
    for a in (5, 6, 7, 8):
        child = b[:a] + (1,) + b[a + 1 :]
        assert vals[a] == -ttt_value(child, 2)
    assert set(agent.best_actions(st)) == {a for a in range(9) if vals[a] == 1}
    # X 0, O 4, X 8: O must not play a corner (X forks), the edge cells draw
    st = make_state("tictactoe")
    for a in (0, 4, 8):
        st.step(a)
    vals = agent.action_values(st)
    b = (1, 0, 0, 0, 2, 0, 0, 0, 1)
    for a in (1, 2, 3, 5, 6, 7):
        assert vals[a] == -ttt_value(b[:a] + (2,) + b[a + 1 :], 1)
    assert vals[2] == -1 and vals[6] == -1 and vals[1] == 0 and vals[3] == 0


@pytest.mark.parametrize("opponent", [RandomAgent, GreedyAgent])
def test_never_loses_at_tictactoe(opponent):
    m = play_match(MinimaxAgent(), opponent(), "tictactoe", {}, games=100, seed=11)
    assert m.total.losses == 0
    assert m.a_first.games == m.b_first.games == 50
    assert m.total.wins > 0  # weak opponents do lose games to it


# ---- an independent Connect Four solver on tuples of columns -----------------------------------
def c4_wins(cols, rows, c, r, colour, connect):
    def at(cc, rr):
        return cols[cc][rr] if 0 <= cc < len(cols) and 0 <= rr < len(cols[cc]) else 0

    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        n = 1
        for s in (1, -1):
            k = 1
            while at(c + s * k * dc, r + s * k * dr) == colour:
                n += 1
                k += 1
        if n >= connect:
            return True
    return False


def c4_value(cols, me, rows, connect, memo):
    """Value for `me` to move; cols is a tuple of column tuples (bottom first)."""
    key = (cols, me)
    if key in memo:
        return memo[key]
    best = None
    for c in range(len(cols)):
        if len(cols[c]) == rows:
            continue
        new = cols[:c] + (cols[c] + (me,),) + cols[c + 1 :]
        if c4_wins(new, rows, c, len(cols[c]), me, connect):
            v = 1
        elif all(len(x) == rows for x in new):
            v = 0
        else:
            v = -c4_value(new, 3 - me, rows, connect, memo)
        best = v if best is None else max(best, v)
        if best == 1:
            break
    memo[key] = best
    return best


def test_connect_four_4x4_positions_match_brute_force():
    agent = MinimaxAgent(seed=0)
    memo = {}
    rng = np.random.default_rng(5)
    checked = 0
    while checked < 25:
        st = make_state("connect_four", rows=4, cols=4)
        cols = [() for _ in range(4)]
        for _ in range(int(rng.integers(3, 9))):
            if st.is_over():
                break
            a = int(rng.choice(st.legal_actions()))
            cols[a] = cols[a] + (st.current_player + 1,)
            st.step(a)
        if st.is_over():
            continue
        assert agent.value(st) == c4_value(tuple(cols), st.current_player + 1, 4, 4, memo)
        checked += 1


def test_connect_four_4x4_solves_from_the_start():
    agent = MinimaxAgent(seed=0)
    st = make_state("connect_four", rows=4, cols=4)
    v = agent.value(st)
    assert v in (-1, 0, 1)
    # consistency of the root with its children (each child value is exact too)
    vals = agent.action_values(st)
    assert v == vals.max()
    for a in range(4):
        assert vals[a] == -agent.value(st.copy().step(a))


def test_act_plays_a_best_action_and_is_seeded():
    env = zerogym.make("tictactoe")
    env.reset()
    env.step(4)  # X centre: O must take a corner (edges lose)
    st = env.unwrapped.state
    b = (0, 0, 0, 0, 1, 0, 0, 0, 0)
    good = {a for a in range(9) if a != 4 and -ttt_value(b[:a] + (2,) + b[a + 1 :], 1) == 0}
    picks = {MinimaxAgent(seed=s).act(env) for s in range(30)}
    assert picks <= good and set(MinimaxAgent().best_actions(st)) == good
    assert len(picks) > 1  # several drawing moves, chosen by the seed
    assert MinimaxAgent(seed=7).act(env) == MinimaxAgent(seed=7).act(env)


def test_bad_input():
    with pytest.raises(ValueError, match="supports"):
        MinimaxAgent().value(make_state("go", board_size=3))
    with pytest.raises(ValueError, match="tt_bits"):
        MinimaxAgent(tt_bits=2)
    with pytest.raises(ValueError, match="node_limit"):
        MinimaxAgent(node_limit=-1)
    st = make_state("tictactoe")
    for a in (0, 3, 1, 4, 2):
        st.step(a)
    with pytest.raises(ValueError, match="over"):
        MinimaxAgent().value(st)
    with pytest.raises(RuntimeError, match="node_limit"):
        MinimaxAgent(node_limit=100).value(make_state("connect_four", rows=5, cols=5))


# ---- the compiled Solver checks what Python hands it ------------------------------------------
def test_solver_refuses_missing_uninitialised_and_foreign_states():
    from zerogym_agents.solvers._minimax import Solver

    ttt = make_state("tictactoe")
    with pytest.raises(TypeError):
        Solver(None)
    bare = type(ttt).__new__(type(ttt))  # a State whose constructor never ran: no blob
    with pytest.raises(ValueError, match="uninitialised State"):
        Solver(bare)
    solver = Solver(ttt, 10)
    with pytest.raises(TypeError):
        solver.value(None)
    with pytest.raises(TypeError):
        solver.action_values(None)
    with pytest.raises(ValueError, match="uninitialised State"):
        solver.value(bare)
    for other in (
        make_state("connect_four", rows=4, cols=4),
        make_state("tictactoe", board_size=4),
        make_state("hex", board_size=3),
    ):
        with pytest.raises(ValueError, match="this solver is for GameSpec\\(tictactoe"):
            solver.value(other)
        with pytest.raises(ValueError, match="this solver is for GameSpec\\(tictactoe"):
            solver.action_values(other)
    assert solver.value(ttt) == 0


def test_solver_checks_table_size_and_move_order():
    from zerogym_agents.solvers._minimax import Solver

    ttt = make_state("tictactoe")
    for bits in (3, 31, -1):
        with pytest.raises(ValueError, match="tt_bits must be in 4..30"):
            Solver(ttt, bits)
    for bits in (10.0, True, None):
        with pytest.raises(TypeError, match="tt_bits must be an integer"):
            Solver(ttt, bits)
    for order in ([0] * 9, list(range(8)), list(range(10)), [[0, 1, 2], [3, 4, 5], [6, 7, 8]], list(range(1, 10))):
        with pytest.raises(ValueError, match="order must be a permutation of 0..8"):
            Solver(ttt, 10, order)
    for order in ([0.0, 1.2, 2, 3, 4, 5, 6, 7, 8], [True] * 9, ["0"] * 9):
        with pytest.raises(TypeError, match="order must be integers"):
            Solver(ttt, 10, order)
    assert Solver(ttt, 10, np.arange(9, dtype=np.uint8)[::-1]).value(ttt) == 0


def test_solver_left_unchanged_when_reinitialising_fails():
    from zerogym_agents.solvers._minimax import Solver

    ttt, c4 = make_state("tictactoe"), make_state("connect_four", rows=4, cols=4)
    solver = Solver(ttt, 10)
    for bad in (dict(order=[0] * 7), dict(tt_bits=99), dict(order=[0.5] * 7)):
        with pytest.raises((ValueError, TypeError)):
            solver.__init__(c4, **bad)
        assert solver.value(ttt) == 0  # still a working Tic-tac-toe solver
        with pytest.raises(ValueError, match="this solver is for"):
            solver.value(c4)
    solver.__init__(c4, 12)  # a good one switches the game
    assert solver.value(c4) == 0
    with pytest.raises(ValueError, match="this solver is for GameSpec\\(connect_four"):
        solver.value(ttt)


def test_solver_without_init_is_refused():
    from zerogym_agents.solvers._minimax import Solver

    solver = Solver.__new__(Solver)
    for call in (
        solver.clear,
        lambda: solver.value(make_state("tictactoe")),
        lambda: solver.action_values(make_state("tictactoe")),
    ):
        with pytest.raises(RuntimeError, match="not initialised"):
            call()


def test_solver_refuses_a_second_thread_while_searching():
    from races import race

    from zerogym_agents.solvers._minimax import Solver

    c4 = make_state("connect_four", rows=4, cols=5)
    solver = Solver(c4, 16)
    values = []
    refused = race(
        [lambda: values.append(solver.value(c4)), solver.clear],
        [lambda: values.append(int(solver.action_values(c4).max())), solver.clear, lambda: solver.__init__(c4, 16)],
    )
    assert all("another thread" in r for r in refused), set(refused)
    assert values and len(set(values)) == 1
