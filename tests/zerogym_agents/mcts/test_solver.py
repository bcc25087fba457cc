"""MCTS-Solver (BatchedMCTS(solver=True)): proven wins, draws and losses, checked against exact
game values computed here (Tic-tac-toe by negamax) and by the Connect Four solver."""

import functools

import numpy as np
import pytest

import zerogym
from zerogym_agents.agents.search import AlphaZeroAgent
from zerogym_agents.mcts.search import BatchedMCTS, uniform_evaluator
from zerogym_agents.solvers import ConnectFourSolver

SEARCHES = ["puct", "gumbel"]


@functools.cache
def tictactoe_value(moves: tuple[int, ...]) -> int:
    """The exact value for the player to move after `moves` (1 win, 0 draw, -1 loss), by negamax."""
    st = state("tictactoe", moves)
    if st.is_over():
        return 0 if st.winner < 0 else (1 if st.winner == st.current_player else -1)
    return max(-tictactoe_value(moves + (a,)) for a in st.legal_actions())


def state(game, moves):
    st = zerogym.make_state(game)
    for a in moves:
        st.step(int(a))
    return st


def random_positions(game, count, stones, seed):
    """`count` move lists of random play, each `stones` long and not over."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        st, moves = zerogym.make_state(game), []
        while len(moves) < stones and not st.is_over():
            moves.append(int(rng.choice(st.legal_actions())))
            st.step(moves[-1])
        if not st.is_over():
            out.append(moves)
    return out


def search(game, moves, simulations, **settings):
    mcts = BatchedMCTS(game, simulations=simulations, seed=0, solver=True, **settings)
    mcts.set_roots([state(game, moves)])
    _, values = mcts.run(uniform_evaluator)
    return mcts, float(values[0])


@pytest.mark.parametrize("search_kind", SEARCHES)
@pytest.mark.parametrize("stones", [2, 4, 6])
def test_tictactoe_proofs_are_the_game_values(search_kind, stones):
    proofs = []
    for moves in random_positions("tictactoe", 12, stones, seed=stones):
        mcts, value = search("tictactoe", moves, 3000, search=search_kind)
        exact = tictactoe_value(tuple(moves))
        proof = mcts.root_proof(0)
        if proof is not None:
            proofs.append(proof)
            assert proof == exact
            assert value == exact  # the root value of a proven root is exact
        action = int(mcts.select_actions(0.0)[0])
        if proof is not None or stones >= 4:
            assert -tictactoe_value(tuple(moves) + (action,)) == exact  # the move keeps the value
    assert len(proofs) >= 6  # most of these small trees are solved outright
    if stones == 6:
        assert {0, 1} <= set(proofs)  # draws and wins (a lost root: test_a_lost_root_is_proven_lost)


@pytest.mark.parametrize("search_kind", SEARCHES)
def test_connect_four_proofs_agree_with_the_solver(search_kind):
    solver = ConnectFourSolver(tt_bits=18)
    proven = 0
    for moves in random_positions("connect_four", 16, 30, seed=3):
        st = state("connect_four", moves)
        mcts, _ = search("connect_four", moves, 1500, search=search_kind, decisive_moves=True)
        proof = mcts.root_proof(0)
        if proof is not None:
            proven += 1
            assert proof == solver.value(st)
            action = int(mcts.select_actions(0.0)[0])
            after = st.copy().step(action)
            kept = -solver.value(after) if not after.is_over() else (1 if after.winner >= 0 else 0)
            assert kept == proof  # a proven root plays a move that keeps its value
    assert proven >= 4


def test_a_proven_win_is_played_even_against_the_visits():
    # the first player has b1, c1, d1: a1 and e1 win at once. An evaluator that puts nearly all the
    # prior on g1 keeps most visits there; the proof still picks a win
    st = state("connect_four", [1, 6, 2, 6, 3, 5])

    def stubborn(planes, masks):
        priors = masks.astype(np.float32) * 1e-3
        priors[:, 6] = masks[:, 6]
        return priors, np.zeros(len(masks), np.float32)

    for solver in (False, True):
        mcts = BatchedMCTS("connect_four", simulations=40, seed=0, solver=solver, fpu_reduction=1.0)
        mcts.set_roots([st])
        mcts.run(stubborn)
        action = int(mcts.select_actions(0.0)[0])
        if solver:
            assert mcts.root_proof(0) == 1 and action in (0, 4)
        else:
            assert mcts.root_proof(0) is None and action == 6  # the failure the solver removes


@pytest.mark.parametrize("decisive", [False, True])
def test_a_lost_root_is_proven_lost(decisive):
    # the second player has b1, c1, d1 with a1 and e1 empty; the first player, to move, cannot win
    # at once and can block only one of them
    moves = [6, 1, 6, 2, 5, 3]
    assert ConnectFourSolver(tt_bits=18).value(state("connect_four", moves)) == -1
    mcts, value = search("connect_four", moves, 3000, decisive_moves=decisive)
    assert mcts.root_proof(0) == -1 and value == -1.0


def test_without_the_solver_nothing_is_proven_and_a_search_without_proofs_is_unchanged():
    # on an empty 9x9 Go board no search of 64 simulations reaches the end of the game: nothing is
    # proven, and the solver must then leave every visit and move as it was
    runs = []
    for solver in (False, True):
        mcts = BatchedMCTS("go", num_games=4, simulations=64, seed=1, solver=solver, board_size=9)
        mcts.set_roots([zerogym.make_state("go", board_size=9) for _ in range(4)])
        policy, value = mcts.run(uniform_evaluator)
        runs.append((policy, value, mcts.select_actions(1.0)))
        assert all(mcts.root_proof(i) is None for i in range(4))
    for a, b in zip(*runs):
        assert np.array_equal(a, b)


def test_the_solver_is_a_fixed_setting_of_the_search_and_the_agent():
    assert BatchedMCTS("tictactoe").solver is False
    assert BatchedMCTS("tictactoe", solver=True).settings.solver is True
    with pytest.raises(ValueError, match="solver"):
        BatchedMCTS("tictactoe", solver="yes")
    agent = AlphaZeroAgent(uniform_evaluator, simulations=2000, solver=True, seed=0)
    assert agent.settings.solver is True
    action, _, value = agent.search(state("tictactoe", [0, 4, 8]))
    assert value == tictactoe_value((0, 4, 8)) == 0
    assert -tictactoe_value((0, 4, 8, action)) == 0


@pytest.mark.parametrize("decisive", [False, True])
@pytest.mark.parametrize("search_kind", SEARCHES)
def test_games_played_through_proven_trees_keep_their_values_and_policies(search_kind, decisive):
    # games with tree reuse: roots proven earlier (expanded or not: a decisive leaf is proven
    # without being expanded) still hand out visit distributions, and every move from a proven root
    # keeps its value
    proven = 0
    for moves in random_positions("tictactoe", 6, 3, seed=9):
        mcts = BatchedMCTS(
            "tictactoe", simulations=40, seed=2, solver=True, search=search_kind, decisive_moves=decisive
        )
        mcts.set_roots([state("tictactoe", moves)])
        while not state("tictactoe", moves).is_over():
            policy, _ = mcts.run(uniform_evaluator)
            action = int(mcts.select_actions(0.0)[0])
            assert abs(policy[0].sum() - 1) < 1e-5
            proof = mcts.root_proof(0)
            if proof is not None:
                proven += 1
                assert proof == tictactoe_value(tuple(moves))
                assert -tictactoe_value(tuple(moves) + (action,)) == proof
            moves.append(action)
            if not state("tictactoe", moves).is_over():
                mcts.advance([action])
    assert proven >= 12
