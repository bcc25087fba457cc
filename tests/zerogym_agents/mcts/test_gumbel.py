"""Gumbel root search (search="gumbel"): budget of the sequential halving, best moves with an exact
evaluator and few simulations, signs for both players, the improved policy, non-root selection,
batching, tree reuse, seeds and argument checks."""

import math

import numpy as np
import pytest

import zerogym
from solved import exact_evaluator as oracle, negamax, play, random_positions
from zerogym_agents.mcts.search import BatchedMCTS, uniform_evaluator


def gumbel(st, simulations, num_games=1, **kwargs):
    kwargs.setdefault("seed", 0)
    m = BatchedMCTS(st, num_games=num_games, simulations=simulations, search="gumbel", **kwargs)
    m.set_roots([st] * num_games)
    return m


def halving_visits(m, n):
    """Visit counts (largest first) that sequential halving with m candidates gives out of n
    simulations, as the paper describes it: phase after phase every remaining candidate gets
    max(1, n // (ceil(log2 m) * candidates)) visits, then the better half stays (never fewer than 2),
    until the n simulations are spent."""
    if m == 1:
        return [n]
    visits, left, alive = [0] * m, n, m
    per_phase = math.ceil(math.log2(m))
    while left:
        for _ in range(max(1, n // (per_phase * alive))):
            for a in range(alive):
                if left:
                    visits[a] += 1
                    left -= 1
        alive = max(2, alive // 2)
    return visits


# ---- the budget ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "n,m",
    [(1, 16), (2, 16), (4, 4), (7, 16), (8, 16), (16, 16), (20, 2), (33, 4), (50, 16), (64, 3), (100, 1), (200, 16)],
)
@pytest.mark.parametrize("leaves", [1, 4])
def test_sequential_halving_spends_exactly_the_budget(n, m, leaves):
    st = zerogym.make_state("go", board_size=5)  # 26 legal moves: m candidates out of them
    mc = gumbel(st, n, gumbel_m=m, leaves_per_tree=leaves)
    mc.run(uniform_evaluator)
    counts = mc.visit_counts()[0]
    assert counts.sum() == n
    assert mc.node_stats(0)[0] == n + 1  # the root's own evaluation comes on top
    expected = halving_visits(min(m, 26), n)
    assert sorted(counts[counts > 0].tolist(), reverse=True) == [v for v in expected if v]


@pytest.mark.parametrize("n", [5, 12, 40])
def test_budget_holds_on_a_reused_tree_and_with_terminal_children(n):
    st = play("tictactoe", [0, 3, 1, 4])  # child 2 ends the game at once
    mc = gumbel(st, n)
    mc.run(uniform_evaluator)
    assert mc.visit_counts()[0].sum() == n
    mc.advance([5])  # a move that does not end the game
    before = mc.visit_counts()[0].sum()
    mc.run(uniform_evaluator)
    assert mc.visit_counts()[0].sum() - before == n


def test_halving_visits_matches_the_paper_example():
    # the paper's figure: m = 16 candidates, n = 200 simulations, 4 phases of 16, 8, 4 and 2 actions
    v = halving_visits(16, 200)
    assert sum(v) == 200 and v[8:] == [3] * 8 and v[4:8] == [9] * 4 and v[2:4] == [21] * 2 and v[:2] == [49] * 2


# ---- strength with an exact evaluator ------------------------------------------------------------
def unique_best_positions(game, kwargs, empties, count, seed, mover):
    """(position, its best move, {move: exact value}) with `mover` to move and one best move."""

    def accept(st, vals):
        return st.current_player == mover and list(vals.values()).count(max(vals.values())) == 1

    return [
        (st, max(vals, key=vals.get), vals) for st, vals in random_positions(game, kwargs, empties, count, seed, accept)
    ]


# (game, kwargs, empty cells, player to move, simulations): never fewer simulations than moves, so
# that the best move is always a candidate
EXACT = [
    ("tictactoe", {}, 3, 0, 4),
    ("tictactoe", {}, 4, 1, 4),
    ("tictactoe", {}, 5, 0, 8),
    ("tictactoe", {}, 6, 1, 8),
    ("tictactoe", {}, 7, 0, 16),
    ("tictactoe", {}, 8, 1, 16),
    ("connect_four", {"rows": 4, "cols": 5}, 10, 0, 8),
    ("connect_four", {"rows": 4, "cols": 5}, 9, 1, 8),
    ("connect_four", {"rows": 4, "cols": 5}, 8, 0, 16),
]


@pytest.mark.parametrize("game,kwargs,empties,mover,n", EXACT)
def test_exact_evaluator_finds_the_best_move_with_few_simulations(game, kwargs, empties, mover, n):
    for k, (st, best, vals) in enumerate(unique_best_positions(game, kwargs, empties, 4, 7 + n, mover)):
        assert len(vals) <= n
        evaluate, _ = oracle(st, solved_policy=True)
        for seed in range(3):
            mc = gumbel(st, n, seed=seed + 10 * k)
            policy = mc.run(evaluate)[0][0]
            assert mc.select_actions()[0] == best
            assert int(np.argmax(policy)) == best


# ---- signs ----------------------------------------------------------------------------------
# (moves, player to move, the winning move): tic-tac-toe with X and with O to move
WINS = [([0, 3, 1, 4], 0, 2), ([0, 3, 1, 4, 8], 1, 5)]
# (moves, player to move, the only move that does not lose)
BLOCKS = [
    ("tictactoe", [4, 0, 8, 1], 0, 2),
    ("tictactoe", [0, 4, 1], 1, 2),
    ("connect_four", [0, 6, 1, 6, 2], 1, 3),
    ("connect_four", [3, 0, 3, 6, 3], 1, 3),
]


@pytest.mark.parametrize("moves,mover,win", WINS)
@pytest.mark.parametrize("n", [4, 16])
def test_winning_move_for_either_player_with_a_uniform_evaluator(moves, mover, win, n):
    st = play("tictactoe", moves)
    assert st.current_player == mover
    mc = gumbel(st, n, gumbel_scale=0.0, gumbel_m=16)
    policy, value = mc.run(uniform_evaluator)
    assert mc.select_actions()[0] == win
    assert value[0] > 0
    assert int(np.argmax(policy[0])) == win


@pytest.mark.parametrize("game,moves,mover,block", BLOCKS)
def test_only_move_for_either_player_with_a_uniform_evaluator(game, moves, mover, block):
    st = play(game, moves)
    assert st.current_player == mover
    n = 64 if game == "tictactoe" else 128  # enough visits per move in the first phase to try the winning reply
    for seed in range(3):
        mc = gumbel(st, n, seed=seed)
        policy = mc.run(uniform_evaluator)[0][0]
        assert mc.select_actions()[0] == block and int(np.argmax(policy)) == block


@pytest.mark.parametrize("mover", [0, 1])
def test_lost_position_has_a_negative_value_for_its_player(mover):
    memo = {}
    rng = np.random.default_rng(mover)
    while True:
        st = zerogym.make_state("tictactoe")
        for _ in range(rng.integers(3, 6)):
            if not st.is_over():
                legal = st.legal_actions()
                st.step(int(legal[rng.integers(len(legal))]))
        if not st.is_over() and st.current_player == mover and negamax(st, memo) == -1.0:
            break
    evaluate, _ = oracle(st)
    policy, value = gumbel(st, 16).run(evaluate)
    assert value[0] < 0
    assert policy[0].sum() == pytest.approx(1.0, abs=1e-5)


# ---- the improved policy ---------------------------------------------------------------------
@pytest.mark.parametrize("moves", [[0, 3, 1, 4], [0, 4, 8], [4, 0, 8, 6, 2]])
def test_improved_policy_favours_better_moves(moves):
    st = play("tictactoe", moves)
    evaluate, memo = oracle(st)
    mc = gumbel(st, 32)
    policy = mc.run(evaluate)[0][0]
    counts = mc.visit_counts()[0]
    legal = [int(a) for a in st.legal_actions()]
    q = {a: -negamax(st.copy().step(a), memo) for a in legal}
    prior = 1.0 / len(legal)
    assert policy[[a for a in range(9) if a not in legal]].sum() == 0
    assert sum(policy[a] * q[a] for a in legal) > sum(prior * q[a] for a in legal)  # a policy improvement
    best = max(q.values())
    assert sum(policy[a] for a in legal if q[a] == best) > prior * sum(q[a] == best for a in legal)
    visited = [a for a in legal if counts[a]]
    for a in visited:  # uniform priors: among visited moves, pi' follows Q
        for b in visited:
            if q[a] > q[b]:
                assert policy[a] > policy[b]


def test_improved_policy_keeps_the_prior_where_nothing_is_known():
    # value 0 everywhere: the completed Q-values are all equal, so pi' is the prior
    st = zerogym.make_state("connect_four")
    weights = np.array([1, 2, 3, 4, 3, 2, 1], np.float32)

    def evaluate(planes, masks):
        return masks * weights, np.zeros(len(masks), np.float32)

    policy = gumbel(st, 16).run(evaluate)[0][0]
    np.testing.assert_allclose(policy, weights / weights.sum(), rtol=1e-5)


# ---- below the root ---------------------------------------------------------------------------
def test_non_root_visits_follow_the_improved_policy():
    # uniform priors and values: pi' is uniform below the root, and the deterministic selection
    # spreads the visits of a node evenly over its children
    st = zerogym.make_state("connect_four")
    mc = gumbel(st, 200, gumbel_m=2)
    mc.run(uniform_evaluator)
    top = int(np.argmax(mc.visit_counts()[0]))
    visits, _, _, children = mc.node_stats(0, [top])
    assert visits >= 90
    assert children.max() - children.min() <= 1


def test_non_root_selection_prefers_the_better_reply():
    # one reply wins for the player to move below the root: it gets most of that node's visits
    st = play("tictactoe", [0, 4, 1])  # O to move must block at 2
    evaluate, memo = oracle(st)
    mc = gumbel(st, 64, gumbel_m=2)
    mc.run(evaluate)
    for a in st.legal_actions():
        node = mc.node_stats(0, [int(a)])
        after = st.copy().step(int(a))
        if node is None or node[0] < 8 or after.is_over():
            continue
        counts = node[3]
        replies = {int(b): -negamax(after.copy().step(int(b)), memo) for b in after.legal_actions()}
        good = max(replies.values())
        assert sum(counts[b] for b in replies if replies[b] == good) >= 0.5 * counts.sum()


# ---- batching, seeds, reuse -------------------------------------------------------------------
def test_batched_trees_equal_one_tree_searches():
    states = [play("connect_four", m) for m in ([], [3], [3, 3], [0, 6, 1])]
    seeds = [11, 12, 13, 14]
    mc = BatchedMCTS("connect_four", num_games=4, simulations=24, search="gumbel", seed=seeds)
    mc.set_roots(states)
    policies, values = mc.run(uniform_evaluator)
    actions = mc.select_actions()
    for i, st in enumerate(states):
        one = gumbel(st, 24, seed=[seeds[i]])
        p, v = one.run(uniform_evaluator)
        np.testing.assert_array_equal(p[0], policies[i])
        assert v[0] == values[i] and one.select_actions()[0] == actions[i]


def test_seeded_and_random_where_it_should_be():
    st = zerogym.make_state("go", board_size=5)
    picks = []
    for seed in (1, 1, 2, 3, 4, 5):
        mc = gumbel(st, 4, seed=seed)
        mc.run(uniform_evaluator)
        picks.append((tuple(np.flatnonzero(mc.visit_counts()[0])), int(mc.select_actions()[0])))
    assert picks[0] == picks[1]
    assert len(set(picks)) > 2  # 4 of 26 moves: the Gumbel draw decides which
    quiet = []
    for seed in (1, 2):
        mc = gumbel(st, 4, seed=seed, gumbel_scale=0.0)
        mc.run(uniform_evaluator)
        quiet.append(tuple(np.flatnonzero(mc.visit_counts()[0])))
    assert quiet[0] == quiet[1]


def test_batches_of_leaves_keep_the_search_result_sensible():
    st = play("connect_four", [0, 0, 1, 1, 2, 2])  # player 0 wins at 3
    for leaves in (1, 3, 8):
        mc = gumbel(st, 16, leaves_per_tree=leaves)
        mc.run(uniform_evaluator)
        assert mc.select_actions()[0] == 3 and mc.visit_counts()[0].sum() == 16


def test_no_dirichlet_noise_in_the_gumbel_search():
    st = zerogym.make_state("connect_four")
    mc = gumbel(st, 8, dirichlet_epsilon=0.5)
    mc.run(uniform_evaluator)
    np.testing.assert_allclose(mc.root_priors()[0], np.full(7, 1 / 7), rtol=1e-6)


def test_puct_ignores_the_gumbel_settings():
    st = play("connect_four", [3, 3])
    out = []
    for kwargs in ({}, {"search": "puct", "gumbel_m": 3, "c_visit": 5.0, "c_scale": 0.1, "gumbel_scale": 0.0}):
        mc = BatchedMCTS(st, simulations=64, seed=5, **kwargs)
        mc.set_roots([st])
        p, v = mc.run(uniform_evaluator)
        out.append((p.tobytes(), v.tobytes(), mc.select_actions(1.0).tobytes()))
    assert out[0] == out[1]


# ---- arguments --------------------------------------------------------------------------------
def test_bad_arguments():
    st = zerogym.make_state("tictactoe")
    with pytest.raises(ValueError, match="search must be one of 'puct', 'gumbel'"):
        BatchedMCTS(st, search="alphazero")
    for name, bad in (("gumbel_m", 0), ("c_visit", -1.0), ("c_scale", float("nan")), ("gumbel_scale", -0.5)):
        with pytest.raises(ValueError, match=name):
            BatchedMCTS(st, search="gumbel", **{name: bad})
    with pytest.raises(ValueError, match="forced_playouts is for search='puct'"):
        BatchedMCTS(st, search="gumbel", forced_playouts=2.0)
    mc = gumbel(st, 4)
    mc.run(uniform_evaluator)
    with pytest.raises(ValueError, match="temperature must be 0"):
        mc.select_actions(1.0)
