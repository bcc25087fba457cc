"""Batched PUCT search: tactics, convergence to minimax, batching, noise, tree reuse, errors."""

import numpy as np
import pytest

import zerogym
import solved
from solved import negamax, play
from zerogym_agents.mcts.search import BatchedMCTS, uniform_evaluator


def action_values(st, memo):
    return {int(a): -negamax(st.copy().step(int(a)), memo) for a in st.legal_actions()}


def search(st, simulations=400, **kwargs):
    kwargs.setdefault("dirichlet_epsilon", 0.0)
    m = BatchedMCTS(st, num_games=1, simulations=simulations, seed=0, **kwargs)
    m.set_roots([st])
    policy, value = m.run(uniform_evaluator)
    return policy[0], value[0], m


# ---- tactics with a uniform evaluator (both colours) -------------------------------------
# (game, kwargs, moves, the only good move)
TACTICS = [
    ("tictactoe", {}, [0, 3, 1, 4], 2),  # X (player 0) completes the top row
    ("tictactoe", {}, [0, 3, 1, 4, 8], 5),  # O (player 1) completes the middle row
    ("tictactoe", {}, [0, 4, 1], 2),  # O must block the top row
    ("tictactoe", {}, [4, 0, 8, 6], 3),  # X must block the left column
    ("connect_four", {}, [0, 0, 1, 1, 2, 2], 3),  # player 0 completes the bottom row
    ("connect_four", {}, [6, 0, 6, 1, 5, 2, 5], 3),  # player 1 completes the bottom row
    ("connect_four", {}, [0, 6, 1, 6, 2], 3),  # player 1 must block the bottom row
    ("connect_four", {}, [3, 0, 3, 6, 3], 3),  # player 1 must block the column
]


@pytest.mark.parametrize("game,kwargs,moves,good", TACTICS)
@pytest.mark.parametrize("leaves", [1, 4])
def test_finds_wins_and_blocks(game, kwargs, moves, good, leaves):
    st = play(game, moves, **kwargs)
    policy, _, m = search(st, simulations=800, leaves_per_tree=leaves)
    assert int(np.argmax(policy)) == good
    assert policy[m.select_actions(0.0)[0]] == policy.max()


# ---- convergence to minimax ------------------------------------------------------------
def random_positions(game, kwargs, empties, count, seed):
    """Positions reached by seeded random play, still running, whose moves differ in minimax value."""
    return solved.random_positions(game, kwargs, empties, count, seed, lambda st, vals: len(set(vals.values())) > 1)


@pytest.mark.parametrize(
    "game,kwargs,empties",
    [("tictactoe", {}, 6), ("tictactoe", {}, 5), ("connect_four", {"rows": 4, "cols": 4, "connect": 3}, 4)],
)
def test_visits_converge_to_minimax(game, kwargs, empties):
    for st, vals in random_positions(game, kwargs, empties, 6, seed=empties):
        best_value = max(vals.values())
        policy, value, _ = search(st, simulations=3000)
        optimal = [a for a, v in vals.items() if v == best_value]
        assert int(np.argmax(policy)) in optimal, (st.legal_actions(), vals, policy)
        assert policy[optimal].sum() > 0.6
        assert abs(value - best_value) < 0.3, (vals, value)


def test_connect_four_small_board_from_start():
    # 4x4, three in a row: the exact values of the first moves (brute force) against the search
    st = zerogym.make_state("connect_four", rows=4, cols=4, connect=3)
    vals = action_values(st, {})
    policy, value, _ = search(st, simulations=6000)
    assert int(np.argmax(policy)) in [a for a, v in vals.items() if v == max(vals.values())]
    assert np.sign(value) == np.sign(max(vals.values()))


# ---- batching, seeds, noise --------------------------------------------------------------
def test_batched_equals_unbatched():
    states = [play("tictactoe", m) for m in ([], [4], [0, 4], [0, 4, 8])]
    seeds = [11, 22, 33, 44]
    kw = dict(simulations=200, leaves_per_tree=3, dirichlet_epsilon=0.25, dirichlet_alpha=0.5)
    batched = BatchedMCTS("tictactoe", num_games=4, seed=seeds, **kw)
    batched.set_roots(states)
    pb, vb = batched.run(uniform_evaluator)
    ab = batched.select_actions(1.0)
    for i, st in enumerate(states):
        single = BatchedMCTS("tictactoe", num_games=1, seed=[seeds[i]], **kw)
        single.set_roots([st])
        p1, v1 = single.run(uniform_evaluator)
        np.testing.assert_array_equal(pb[i], p1[0])
        assert vb[i] == v1[0]
        assert ab[i] == single.select_actions(1.0)[0]


def test_dirichlet_noise_reproducible_and_distributed():
    st = zerogym.make_state("go", board_size=5)
    n = len(st.legal_actions())

    def noisy_priors(seed, alpha=0.3):
        m = BatchedMCTS(st, num_games=1, simulations=1, dirichlet_epsilon=1.0, dirichlet_alpha=alpha, seed=seed)
        m.set_roots([st])
        m.run(uniform_evaluator)
        return m.root_priors()[0]

    a, b, c = noisy_priors(5), noisy_priors(5), noisy_priors(6)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert a.sum() == pytest.approx(1.0, abs=1e-5)
    # epsilon = 1: the priors are one Dirichlet(alpha) draw; compare moments with the formulas
    alpha = 0.3
    m = BatchedMCTS(st, num_games=400, simulations=1, dirichlet_epsilon=1.0, dirichlet_alpha=alpha, seed=1)
    m.set_roots([st] * 400)
    m.run(uniform_evaluator)
    x = m.root_priors()[:, :n].ravel()
    assert x.mean() == pytest.approx(1 / n, rel=0.05)
    var = (1 / n) * (1 - 1 / n) / (n * alpha + 1)
    assert x.var() == pytest.approx(var, rel=0.15)
    # epsilon = 0 leaves the evaluator's priors (uniform) as they are
    m = BatchedMCTS(st, num_games=1, simulations=1, dirichlet_epsilon=0.0, seed=1)
    m.set_roots([st])
    m.run(uniform_evaluator)
    np.testing.assert_allclose(m.root_priors()[0][:n], 1 / n, rtol=1e-6)


def test_temperature_choice():
    st = play("tictactoe", [])
    m = BatchedMCTS(st, num_games=1, simulations=300, dirichlet_epsilon=0.0, seed=3)
    m.set_roots([st])
    policy = m.run(uniform_evaluator)[0][0]
    top = np.flatnonzero(policy == policy.max())
    picks = [int(m.select_actions(0.0)[0]) for _ in range(50)]
    assert set(picks) <= set(top.tolist())
    draws = np.bincount([int(m.select_actions(1.0)[0]) for _ in range(4000)], minlength=9) / 4000
    np.testing.assert_allclose(draws, policy, atol=0.03)
    # a tiny temperature behaves like the argmax
    assert int(m.select_actions(0.01)[0]) in top


def test_tree_reuse_keeps_subtree():
    st = play("tictactoe", [4])
    m = BatchedMCTS(st, num_games=1, simulations=500, dirichlet_epsilon=0.0, seed=0)
    m.set_roots([st])
    m.run(uniform_evaluator)
    a = int(m.select_actions(0.0)[0])
    n_child, w_child, _, counts_child = m.node_stats(0, [a])
    grand = int(np.argmax(counts_child))
    deeper = m.node_stats(0, [a, grand])
    m.advance([a])
    n_root, w_root, _, counts_root = m.node_stats(0)
    assert (n_root, w_root) == (n_child, w_child)
    np.testing.assert_array_equal(counts_root, counts_child)
    assert m.node_stats(0, [grand])[0] == deeper[0]
    np.testing.assert_array_equal(m.node_stats(0, [grand])[3], deeper[3])
    assert m.root_state(0) == st.copy().step(a)
    m.run(uniform_evaluator)
    assert m.node_stats(0)[0] == n_child + 500
    # a move the tree never expanded starts a fresh tree
    m2 = BatchedMCTS(st, num_games=1, simulations=1, dirichlet_epsilon=0.0, seed=0)
    m2.set_roots([st])
    m2.run(uniform_evaluator)
    m2.advance([0])
    assert m2.node_stats(0)[0] == 0 and m2.tree_size(0) == 1


def test_terminal_leaves_skip_the_evaluator():
    st = play("tictactoe", [0, 1, 2, 4, 3, 5, 7, 6])  # one empty square left: 8
    rows = []

    def counting(planes, masks):
        rows.append(len(masks))
        return uniform_evaluator(planes, masks)

    m = BatchedMCTS(st, num_games=1, simulations=50, dirichlet_epsilon=0.0, seed=0)
    m.set_roots([st])
    policy, value = m.run(counting)
    assert rows == [1]  # only the root was evaluated
    assert policy[0, 8] == 1.0
    final = st.copy().step(8)
    expected = 0.0 if final.winner < 0 else (1.0 if final.winner == st.current_player else -1.0)
    # root value: its own evaluation (0) once, then 49 visits of the final position's result
    assert value[0] == pytest.approx(49 * expected / 50, abs=1e-6)


def test_finished_root_is_skipped():
    over = play("tictactoe", [0, 3, 1, 4, 2])
    calls = []
    m = BatchedMCTS("tictactoe", num_games=2, simulations=10, seed=0)
    m.set_roots([over, zerogym.make_state("tictactoe")])
    policy, value = m.run(lambda p, k: (calls.append(1), uniform_evaluator(p, k))[1])
    assert policy[0].sum() == 0 and value[0] == -1.0  # the player to move (O) has lost
    assert policy[1].sum() == pytest.approx(1.0)
    assert m.select_actions(0.0)[0] == -1


def test_full_tree_degrades_gracefully():
    st = zerogym.make_state("connect_four")
    m = BatchedMCTS(st, num_games=1, simulations=300, capacity=30, dirichlet_epsilon=0.0, seed=0)
    m.set_roots([st])
    policy, value = m.run(uniform_evaluator)
    assert m.tree_size(0) <= 30
    assert m.full_events > 0
    assert policy.sum() == pytest.approx(1.0) and m.node_stats(0)[0] == 300


def test_virtual_loss_spreads_leaves_over_children():
    st = zerogym.make_state("tictactoe")
    seen = []

    def ev(planes, masks):
        seen.append(planes.copy())
        return uniform_evaluator(planes, masks)

    m = BatchedMCTS(st, num_games=1, simulations=9, leaves_per_tree=8, dirichlet_epsilon=0.0, seed=0)
    m.set_roots([st])
    m.run(ev)
    assert [len(b) for b in seen] == [1, 8]  # the root alone, then 8 different first moves
    firsts = {tuple(np.flatnonzero(b[1].ravel())) for b in seen[1]}  # opponent stone per leaf
    assert len(firsts) == 8
    # without virtual loss the batch collides on one leaf, but the search still completes
    m = BatchedMCTS(st, num_games=1, simulations=60, leaves_per_tree=4, virtual_loss=0.0, dirichlet_epsilon=0.0, seed=0)
    m.set_roots([st])
    policy, value = m.run(uniform_evaluator)
    assert policy.sum() == pytest.approx(1.0) and np.isfinite(value).all() and m.node_stats(0)[0] == 60


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_games"):
        BatchedMCTS("tictactoe", num_games=0)
    with pytest.raises(ValueError, match="c_puct"):
        BatchedMCTS("tictactoe", c_puct=-1)
    with pytest.raises(ValueError, match="epsilon"):
        BatchedMCTS("tictactoe", dirichlet_epsilon=2)
    with pytest.raises(ValueError, match="dirichlet_alpha"):
        BatchedMCTS("tictactoe", dirichlet_alpha=0)
    with pytest.raises(ValueError, match="unknown game"):
        BatchedMCTS("chess")
    with pytest.raises(ValueError, match="seed sequence"):
        BatchedMCTS("tictactoe", num_games=2, seed=[1, 2, 3])
    m = BatchedMCTS("tictactoe", num_games=2, simulations=4, seed=0)
    with pytest.raises(RuntimeError, match="set_roots"):
        m.run(uniform_evaluator)
    with pytest.raises(ValueError, match="2 states"):
        m.set_roots([zerogym.make_state("tictactoe")])
    with pytest.raises(ValueError, match="State of"):
        m.set_roots([zerogym.make_state("connect_four")] * 2)
    m.set_roots([zerogym.make_state("tictactoe")] * 2)
    with pytest.raises(ValueError, match="priors of shape"):
        m.run(lambda p, k: (np.ones((len(k), 3)), np.zeros(len(k))))
    m.set_roots([zerogym.make_state("tictactoe")] * 2)
    with pytest.raises(ValueError, match="not logits"):
        m.run(lambda p, k: (-np.ones(k.shape), np.zeros(len(k))))
    m.set_roots([zerogym.make_state("tictactoe")] * 2)
    with pytest.raises(ValueError, match="non-finite"):
        m.run(lambda p, k: (np.ones(k.shape), np.full(len(k), np.nan)))
    m.set_roots([zerogym.make_state("tictactoe")] * 2)
    m.run(uniform_evaluator)
    with pytest.raises(zerogym.IllegalMoveError, match="game 1"):
        m.advance([0, 9])
    assert m.root_state(0) == zerogym.make_state("tictactoe")  # nothing changed


def test_no_pass_before_keeps_pass_out_of_the_early_search():
    seen = []

    def pass_lover(planes, masks):  # most of the prior on pass (action 25), records the masks
        seen.append(masks.copy())
        priors = np.where(masks != 0, 1e-3, 0.0).astype(np.float32)
        priors[:, 25] = np.where(masks[:, 25] != 0, 1.0, 0.0)
        return priors, np.zeros(len(masks), np.float32)

    def searched(moves, **kwargs):
        seen.clear()
        m = BatchedMCTS("go", simulations=200, dirichlet_epsilon=0.0, seed=0, board_size=5, **kwargs)
        m.set_roots([play("go", moves, board_size=5)])
        return m.run(pass_lover)[0][0], m

    policy, _ = searched([0, 1, 2])
    assert policy[25] > 0.5  # passes allowed: searched like any move
    policy, m = searched([0, 1, 2], no_pass_before=4)
    assert policy[25] == 0 and m.select_actions(1.0)[0] != 25 and m.no_pass_before == 4
    assert seen[0][0, 25] == 0 and seen[0][0].sum() == 22  # the root (move 3): every point but pass
    assert all((batch[:, 25] == 1).all() for batch in seen[1:])  # its children are at move 4: pass is back
    policy, _ = searched([0, 1, 2, 3], no_pass_before=4)
    assert policy[25] > 0.5
    with pytest.raises(ValueError, match="no_pass_before"):
        BatchedMCTS("go", board_size=5, no_pass_before=-1)
    assert BatchedMCTS("connect_four", no_pass_before=9)._core.pass_action == -1  # no pass in the game
