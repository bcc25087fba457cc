"""The threaded search: every result is the same whatever the number of threads (each tree has its own
random stream, and the leaves reach the evaluator in tree order)."""

import numpy as np
import pytest

import zerogym
from cases import GAME_CASES, case_id
from zerogym_agents.mcts import BatchedMCTS


def hashed_evaluator(planes, masks):
    """A deterministic evaluator that differs from position to position (so that the searches are uneven)."""
    flat = planes.reshape(len(planes), -1)
    weights = np.cos(np.arange(flat.shape[1], dtype=np.float64))
    key = flat.astype(np.float64) @ weights
    a = np.arange(masks.shape[1])
    priors = masks * (1.5 + np.sin(key[:, None] * 0.37 + a[None, :] * 1.3)).astype(np.float32)
    return priors, np.tanh(np.sin(key * 0.11)).astype(np.float32)


def play(threads, game, moves, evaluator=hashed_evaluator, G=13, kwargs=None, **settings):
    """Self-play of G games for `moves` moves; everything the search handed out, in order."""
    kwargs = kwargs or {}
    m = BatchedMCTS(game, num_games=G, simulations=12, seed=5, threads=threads, **settings, **kwargs)
    roots = [zerogym.make_state(game, **kwargs) for _ in range(G)]
    m.set_roots(roots)
    seen, batches = [], []

    def recording(planes, masks):
        batches.append((planes.copy(), masks.copy()))
        return evaluator(planes, masks)

    for _ in range(moves):
        policy, value = m.run(recording)
        actions = m.select_actions(0.0 if m.search == "gumbel" else 1.0)
        seen.append((policy, value, m.visit_counts(), m.root_priors(), actions.copy(), m.pruned_policy()))
        m.advance(actions)
        for i in [i for i, a in enumerate(actions.tolist()) if roots[i].step(a).is_over()]:  # start again
            roots[i].reset()
            m.set_root(i, roots[i])
    return seen, batches, m.full_events


SEARCHES = [
    dict(search="puct", dirichlet_epsilon=0.25, leaves_per_tree=4),
    dict(search="puct", dirichlet_epsilon=0.25, forced_playouts=2.0, leaves_per_tree=1),
    dict(search="gumbel", leaves_per_tree=3),
    dict(search="puct", decisive_moves=True, leaves_per_tree=2),
    dict(search="puct", decisive_moves=True, solver=True, leaves_per_tree=2),
    dict(search="gumbel", solver=True, leaves_per_tree=2),
    dict(search="puct", leaves_per_tree=8, capacity=40),  # trees that fill up
]


@pytest.mark.parametrize("settings", SEARCHES, ids=lambda s: "-".join(f"{k}={v}" for k, v in s.items()))
@pytest.mark.parametrize("game,kwargs", [("connect_four", {}), ("go", {"board_size": 5}), ("hex", {"board_size": 4})])
def test_the_results_are_the_same_for_any_number_of_threads(game, kwargs, settings):
    one = play(1, game, 9, kwargs=kwargs, **settings)
    for threads in (2, 5, 64):
        many = play(threads, game, 9, kwargs=kwargs, **settings)
        assert len(many[1]) == len(one[1])
        for (p1, m1), (p2, m2) in zip(one[1], many[1]):  # the same leaves, in the same order
            assert np.array_equal(p1, p2) and np.array_equal(m1, m2)
        for a, b in zip(one[0], many[0]):
            for x, y in zip(a, b):
                assert np.array_equal(x, y)
        assert many[2] == one[2]
    if "capacity" in settings:
        assert one[2] > 0  # the full trees were met


@pytest.mark.parametrize("case", list(dict(reversed(GAME_CASES)).items()), ids=case_id)
def test_every_game_searches_the_same_on_threads_and_in_a_pipeline(case):
    """Each game's moves and observations are made by several threads at once here (its first size in
    GAME_CASES), and in groups while the evaluator runs on its worker thread."""
    game, kwargs = case
    one = play(1, game, 4, G=6, kwargs=kwargs, leaves_per_tree=2)
    many = play(4, game, 4, G=6, kwargs=kwargs, leaves_per_tree=2, pipeline=3)
    assert sum(len(m) for _, m in many[1]) == sum(len(m) for _, m in one[1]) > 0
    for a, b in zip(one[0], many[0]):
        for x, y in zip(a, b):
            assert np.array_equal(x, y)


def test_the_leaves_come_tree_by_tree():
    m = BatchedMCTS(
        "tictactoe", num_games=6, simulations=3, seed=0, threads=3, leaves_per_tree=3, dirichlet_epsilon=0.0
    )
    roots = [zerogym.make_state("tictactoe") for _ in range(6)]
    for i in (1, 4):  # these trees' roots are over: they queue no leaf
        for a in (0, 3, 1, 4, 2):
            roots[i].step(a)
    m.set_roots(roots)
    m._core.begin(4)  # the root, then 3 more
    planes, masks = m.collect()
    assert len(masks) == 4  # a root leaf for each running tree, nothing else yet
    stones = planes[:, :2]  # Tic-tac-toe's planes: the mover's stones, the other's, to-play
    assert np.array_equal(stones, np.zeros_like(stones))  # four empty boards
    m.backup(masks.astype(np.float32), np.zeros(4, np.float32))
    planes, masks = m.collect()
    assert len(masks) == 4 * 3  # then 3 leaves each, tree after tree
    for t in range(4):
        stones = planes[3 * t : 3 * t + 3, :2].sum(axis=(1, 2, 3))
        assert np.array_equal(stones, [1, 1, 1])  # one stone: a child of the root


def test_threads_is_a_setting_of_the_search():
    assert BatchedMCTS("tictactoe", num_games=4, threads=None).threads is None
    m = BatchedMCTS("tictactoe", num_games=4, threads=16)
    assert m.threads == 16 and m.threads_used == 4  # at most one thread per tree
    assert m.settings.threads == 16
    with pytest.raises(ValueError, match="threads"):
        BatchedMCTS("tictactoe", threads=0)


@pytest.mark.parametrize("search", ["puct", "gumbel"])
def test_a_pipelined_search_gives_the_same_results(search):
    settings = dict(search=search, leaves_per_tree=2, dirichlet_epsilon=0.25 if search == "puct" else 0.0)
    one = play(2, "connect_four", 8, **settings)
    for pipeline in (2, 5, 13, 64):  # 64 groups for 13 trees: one tree each
        many = play(2, "connect_four", 8, pipeline=pipeline, **settings)
        for a, b in zip(one[0], many[0]):
            for x, y in zip(a, b):
                assert np.array_equal(x, y)
        assert sum(len(m) for _, m in many[1]) == sum(len(m) for _, m in one[1])  # the same leaves in all
        assert len(many[1]) > len(one[1])  # in smaller batches


def test_the_pipeline_evaluates_on_a_worker_thread_and_survives_its_errors():
    import threading

    callers = set()

    def evaluator(planes, masks):
        callers.add(threading.get_ident())
        if evaluator.fail:
            raise RuntimeError("net failed")
        return hashed_evaluator(planes, masks)

    evaluator.fail = True
    m = BatchedMCTS("connect_four", num_games=6, simulations=10, seed=1, pipeline=3, leaves_per_tree=2)
    m.set_roots([zerogym.make_state("connect_four") for _ in range(6)])
    with pytest.raises(RuntimeError, match="net failed"):
        m.run(evaluator)
    assert threading.get_ident() not in callers
    evaluator.fail = False
    policy, _ = m.run(evaluator)  # the trees stay usable
    assert np.allclose(policy.sum(axis=1), 1.0)
    ref = BatchedMCTS("connect_four", num_games=6, simulations=10, seed=1, leaves_per_tree=2)
    ref.set_roots([zerogym.make_state("connect_four") for _ in range(6)])
    assert np.array_equal(ref.run(hashed_evaluator)[0], policy)  # as if the failed call never happened


def test_groups_of_trees_have_rows_of_their_own():
    m = BatchedMCTS("tictactoe", num_games=4, simulations=4, seed=0, leaves_per_tree=2, dirichlet_epsilon=0.0)
    m.set_roots([zerogym.make_state("tictactoe") for _ in range(4)])
    core = m._core
    core.begin(4)
    assert core.collect(0, 2) == 2 and core.collect(2, 4) == 2  # each root, in its group's rows
    with pytest.raises(RuntimeError, match="waiting for their evaluation"):
        core.collect(1, 3)
    with pytest.raises(ValueError, match=r"expected priors \(2, 9\)"):
        core.backup(np.ones((4, 9), np.float32), np.zeros(4, np.float32), 2, 4)
    assert core.backup(np.ones((2, 9), np.float32), np.zeros(2, np.float32), 2, 4) == -1
    assert core.pending_leaves == 2
    assert core.collect(2, 4) == 4  # two leaves per tree now, at rows 4.. (trees 2, 3)
    assert np.array_equal(core.masks[4:8].sum(axis=1), [8, 8, 8, 8])  # one stone down: 8 moves left
    with pytest.raises(ValueError, match="hi"):
        core.collect(2, 2)
