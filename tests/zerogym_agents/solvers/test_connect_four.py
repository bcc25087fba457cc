"""ConnectFourSolver: values from the rules and the literature, against independent searches, and
consistent with the values of the children."""

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zerogym
from zerogym.registry import make_state
from zerogym_agents.solvers._minimax import Solver as GenericSolver
from zerogym_agents.agents.base import RandomAgent
from zerogym_agents.agents.minimax import MinimaxAgent, centre_order
from zerogym_agents.agents.solver import SolverAgent
from zerogym_agents.solvers import ConnectFourSolver
from zerogym_agents.solvers.connect_four import ILLEGAL, SCORE_MAX, SCORE_MIN, bitboards, state_from_moves


@pytest.fixture(scope="module")
def solver():
    return ConnectFourSolver(tt_bits=20)


def random_position(rng, stones):
    """A running position after `stones` uniformly random moves (redrawn until none ended the game)."""
    while True:
        state = state_from_moves([])
        for _ in range(stones):
            state.step(int(rng.choice(state.legal_actions())))
            if state.is_over():
                break
        else:
            return state


# ---- values that follow from the rules and the scoring definition -----------------------------
# A win is worth 22 - k, k the winner's stones with the winning one.  The positions come from seeded
# random games (columns 1..7 as digits); what makes each one a test is checked from its board.


def test_an_immediate_win_is_found_and_scored():
    solver = ConnectFourSolver(tt_bits=16)
    state = state_from_moves("67315317716316")  # 14 stones: the first player to move holds c1, e1, f1
    assert list(state.board()[5]) == [2, 0, 1, 0, 1, 1, 2] and state.current_player == 0
    assert solver.value(state) == 1
    assert solver.score(state) == 22 - 8 and solver.move_scores(state)[3] == 22 - 8
    assert list(solver.best_moves(state)) == [3]


def test_a_forced_block_is_the_only_move_that_does_not_lose_at_once():
    solver = ConnectFourSolver(tt_bits=16)
    state = state_from_moves("771664377532724")  # 15 stones: the first player threatens column 5
    assert state.current_player == 1 and state.copy().step(0).step(4).winner == 0
    scores = solver.move_scores(state)
    assert all(scores[c] == -(22 - 9) for c in (0, 1, 2, 3, 5, 6))  # the first player's 9th stone wins
    assert scores[4] > -(22 - 9) and list(solver.best_moves(state)) == [4]
    assert list(solver.action_values(state)) == list(np.sign(scores))  # blocking only delays the loss


def test_two_threats_lose_whatever_is_played():
    solver = ConnectFourSolver(tt_bits=16)
    state = state_from_moves("3112477536346144256")  # 19 stones: the first player threatens columns 3 and 5
    for block in (2, 4):
        other = 4 if block == 2 else 2
        assert state.copy().step(block).step(other).winner == 0
    assert solver.value(state) == -1 and solver.score(state) == -(22 - 11)
    assert list(solver.move_scores(state)) == [-(22 - 11)] * 7
    assert list(solver.action_values(state)) == [-1] * 7


def test_full_columns_are_marked_and_never_best():
    solver = ConnectFourSolver(tt_bits=16)
    state = state_from_moves("366162231664446244")  # column 6 is full
    assert state.heights()[5] == 6
    scores = solver.move_scores(state)
    assert scores[5] == ILLEGAL and solver.action_values(state)[5] == -2
    assert 5 not in solver.best_moves(state) and 5 not in solver.best_moves(state, weak=True)


# ---- values from the literature -----------------------------------------------------------------
# J. Tromp, "Connect-4 opening database" (UCI Machine Learning Repository, 1995): every 8-ply position
# without a win and without a forced next move, with its value for the first player (x, to move).
# Cells a1..a6, b1..b6, ..., g6 (row 1 at the bottom).  Six rows the solver settles quickly.
TROMP_1995 = """
b,b,b,b,b,b,x,b,b,b,b,b,o,b,b,b,b,b,x,o,x,o,x,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,draw
b,b,b,b,b,b,b,b,b,b,b,b,o,o,b,b,b,b,x,o,x,o,x,x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,loss
x,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,o,o,x,b,b,b,o,x,x,b,b,b,win
x,b,b,b,b,b,b,b,b,b,b,b,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,o,x,x,o,x,o,draw
x,x,o,x,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,o,x,o,o,b,b,win
x,b,b,b,b,b,o,x,b,b,b,b,o,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,x,o,o,x,b,b,win
""".split()


def tromp_state(line):
    """The position of a database row, reached by some legal order of its stones."""
    cells = line.split(",")[:42]
    left = {(i // 6, i % 6): ch for i, ch in enumerate(cells) if ch != "b"}

    def order(heights, left, mover):
        if not left:
            return []
        for c in range(7):
            if left.get((c, heights[c])) == mover:
                rest = {k: v for k, v in left.items() if k != (c, heights[c])}
                tail = order(heights[:c] + [heights[c] + 1] + heights[c + 1 :], rest, "o" if mover == "x" else "x")
                if tail is not None:
                    return [c] + tail
        return None

    return state_from_moves(order([0] * 7, left, "x"))


@pytest.mark.parametrize("line", TROMP_1995)
def test_8_ply_values_of_the_opening_database(line, solver):
    state = tromp_state(line)
    assert state.move_count == 8 and state.current_player == 0
    assert solver.value(state) == {"win": 1, "draw": 0, "loss": -1}[line.split(",")[-1]]


@pytest.mark.skipif(not os.environ.get("ZEROGYM_SLOW_TESTS"), reason="solves the empty board: set ZEROGYM_SLOW_TESTS=1")
def test_the_first_player_wins_and_only_by_the_centre_column():
    # Allis, "A Knowledge-based Approach of Connect-Four" (1988) and Allen (1988): the first player
    # wins by playing the centre column; the two columns beside it draw, the other four lose.
    values = ConnectFourSolver(tt_bits=24).action_values(state_from_moves(""))
    assert list(values) == [-1, -1, 0, 1, 0, -1, -1]


# ---- against independent searches ----------------------------------------------------------------


def test_near_the_end_it_agrees_with_the_generic_alpha_beta_solver(solver):
    rng = np.random.default_rng(0)
    state0 = make_state("connect_four")
    generic = GenericSolver(state0, 20, centre_order(state0.spec))
    for _ in range(25):
        state = random_position(rng, int(rng.integers(28, 38)))
        assert solver.value(state) == generic.value(state)
        assert list(solver.action_values(state)) == list(generic.action_values(state))


def test_near_the_end_it_agrees_with_openspiel_alpha_beta(solver):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms.minimax import alpha_beta_search

    game = pyspiel.load_game("connect_four")
    rng = np.random.default_rng(1)
    for _ in range(12):
        moves = []
        while True:
            state = state_from_moves([])
            moves = []
            for _ in range(34):
                moves.append(int(rng.choice(state.legal_actions())))
                state.step(moves[-1])
                if state.is_over():
                    break
            if not state.is_over():
                break
        theirs = game.new_initial_state()
        for a in moves:
            theirs.apply_action(a)
        value, _ = alpha_beta_search(game, theirs, maximum_depth=50, maximizing_player_id=theirs.current_player())
        assert solver.value(state) == round(value)


def test_the_sign_of_the_score_is_the_value_and_scores_stay_in_range(solver):
    rng = np.random.default_rng(2)
    for stones in (12, 16, 20, 26, 32):
        state = random_position(rng, stones)
        score = solver.score(state)
        assert SCORE_MIN <= score <= SCORE_MAX
        assert np.sign(score) == solver.value(state)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), stones=st.integers(16, 40))
def test_a_score_is_the_best_of_the_negated_scores_of_the_children(seed, stones):
    solver = ConnectFourSolver(tt_bits=16)
    state = random_position(np.random.default_rng(seed), stones)
    scores = solver.move_scores(state)
    assert solver.score(state) == scores.max()
    for c in state.legal_actions():
        child = state.copy().step(int(c))
        if child.is_over():
            # a win with the mover's k-th stone is worth 22 - k; a full board is a draw
            k = (child.move_count + 1) // 2
            assert scores[c] == (22 - k if child.winner == state.current_player else 0)
        else:
            assert scores[c] == -solver.score(child)


# ---- inputs ----------------------------------------------------------------------------------


def test_bitboards_put_the_movers_stones_apart():
    cur, mask, n = bitboards(state_from_moves("4412"))  # first player: d1, a1; second: d2, b1
    assert n == 4 and mask == (1 << 21) | (1 << 22) | (1 << 0) | (1 << 7)
    assert cur == (1 << 21) | (1 << 0)


@pytest.mark.parametrize("kwargs", [{"rows": 5}, {"cols": 8}, {"connect": 5}])
def test_other_sizes_are_refused_with_what_is_supported(kwargs, solver):
    with pytest.raises(ValueError, match="rows=6, cols=7, connect=4 only"):
        solver.value(make_state("connect_four", **kwargs))


def test_other_games_finished_games_and_bad_settings_are_refused(solver):
    with pytest.raises(ValueError, match="only; got tictactoe"):
        solver.score(make_state("tictactoe"))
    with pytest.raises(ValueError, match="game is over"):
        solver.value(state_from_moves("1212121"))
    with pytest.raises(ValueError, match="column digits 1..7"):
        state_from_moves("408")
    with pytest.raises(ValueError, match="tt_bits must be an int in 10..30"):
        ConnectFourSolver(tt_bits=40)
    with pytest.raises(RuntimeError, match="node_limit=10"):
        ConnectFourSolver(tt_bits=16, node_limit=10).value(state_from_moves("4444"))


# ---- as a player -----------------------------------------------------------------------------


def test_the_agent_keeps_a_won_position_won_against_random_play():
    rng, solver = np.random.default_rng(4), ConnectFourSolver(tt_bits=18)
    for seed in range(3):
        while True:  # a position of 12 stones the mover wins
            moves = [int(a) for a in rng.integers(0, 7, 12)]
            try:
                start = state_from_moves(moves)
            except ValueError:
                continue
            if not start.is_over() and solver.value(start) == 1:
                break
        env = zerogym.make("connect_four")
        env.reset(seed=seed)
        for a in moves:
            env.step(a)
        winner = start.current_player
        agent, opponent = SolverAgent(seed=seed, tt_bits=18), RandomAgent(seed=seed)
        while not env.unwrapped.state.is_over():
            env.step((agent if env.unwrapped.state.current_player == winner else opponent).act(env))
        assert env.unwrapped.state.winner == winner


def test_minimax_agent_uses_the_solver_on_the_standard_board():
    state = random_position(np.random.default_rng(3), 16)
    agent = MinimaxAgent(seed=0)
    assert agent.value(state) == ConnectFourSolver(tt_bits=18).value(state)
    assert list(agent.action_values(state)) == list(ConnectFourSolver(tt_bits=18).action_values(state))
    assert agent.value(make_state("connect_four", rows=4, cols=4)) == 0  # small boards: the generic search


def test_the_arena_spec_builds_the_agent_and_refuses_other_boards():
    from zerogym_agents.agents.specs import agent_from_spec

    agent = agent_from_spec("solver", "connect_four", {}, seed=0)
    assert isinstance(agent, SolverAgent) and agent.weak
    for game, kwargs in (("connect_four", {"rows": 5}), ("tictactoe", {})):
        with pytest.raises(ValueError, match="rows=6, cols=7, connect=4 only"):
            agent_from_spec("solver", game, kwargs)
    with pytest.raises(ValueError, match="solver takes no argument"):
        agent_from_spec("solver:3")
