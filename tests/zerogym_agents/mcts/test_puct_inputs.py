"""PUCTCore and BatchedMCTS refuse every input that the compiled search would use unchecked.

The nogil loops index node arrays, state blobs and numpy buffers without bounds checks, so each
method callable from Python must check tree indices, counts, buffer shapes, the game of a State,
actions and the search constants first; these tests give each a bad value and expect a clean
TypeError, ValueError, IndexError or RuntimeError naming what was wrong.
"""

import numpy as np
import pytest

import zerogym
from zerogym._core.spec import GameSpec
from zerogym_agents.mcts._puct import PUCTCore
from zerogym_agents.mcts.search import BatchedMCTS, uniform_evaluator

G = 3
BAD_INDICES = [-1, G, 2**31, 10**30]


def ttt(moves=()):
    st = zerogym.make_state("tictactoe")
    for a in moves:
        st.step(a)
    return st


def core(num_games=G, leaves=1, capacity=200, state=None):
    state = state if state is not None else ttt()
    return PUCTCore(state.spec, num_games, leaves, capacity)


def rooted(num_games=G, state=None, **kwargs):
    state = state if state is not None else ttt()
    c = core(num_games, state=state, **kwargs)
    for i in range(num_games):
        c.set_root(i, state)
    return c


def searched(num_games=G, simulations=20, state=None):
    c = rooted(num_games, state=state)
    c.dirichlet_epsilon = 0.0
    c.begin(simulations)
    while not c.finished():
        n = c.collect()
        c.backup(c.masks[:n].astype(np.float32), np.zeros(n, np.float32))
    return c


def stats_buffers(g=G, a=9):
    """counts, policy, value and priors buffers for root_stats."""
    return (
        np.zeros((g, a), np.int32),
        np.zeros((g, a), np.float32),
        np.zeros(g, np.float32),
        np.zeros((g, a), np.float32),
    )


# ---- construction ---------------------------------------------------------------------------
def test_constructor_refuses_a_missing_or_bare_spec():
    with pytest.raises(TypeError):
        PUCTCore(None, 1, 1, 10)
    with pytest.raises(ValueError, match="make_spec"):
        PUCTCore(GameSpec(), 1, 1, 10)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(num_games=0), "num_games must be in 1..2147483647, got 0"),
        (dict(num_games=-5), "num_games must be in 1..2147483647, got -5"),
        (dict(num_games=2**31), "num_games"),
        (dict(leaves=0), "leaves_per_tree must be in 1..1024, got 0"),
        (dict(leaves=1025), "leaves_per_tree must be in 1..1024"),
        (dict(capacity=0), "capacity must be in 1..2147483647, got 0"),
        (dict(capacity=-1), "capacity"),
        (dict(capacity=2**31), "capacity"),
        (dict(num_games=2**22, leaves=1024), "num_games \\* leaves_per_tree must be at most"),
    ],
)
def test_constructor_counts_out_of_range(kwargs, match):
    with pytest.raises(ValueError, match=match):
        core(**kwargs)


@pytest.mark.parametrize("kwargs", [dict(num_games=1.0), dict(num_games=True), dict(leaves="2"), dict(capacity=None)])
def test_constructor_counts_of_the_wrong_type(kwargs):
    with pytest.raises(TypeError, match="must be an integer"):
        core(**kwargs)


def test_constructor_memory_error_says_how_many_bytes():
    with pytest.raises(MemoryError, match=r"need \d+ bytes, more than can be addressed"):
        core(num_games=2**30, capacity=2**31 - 1)
    with pytest.raises(MemoryError, match=r"1048576 tictactoe search trees of 2147483647 nodes .* need \d+ bytes"):
        core(num_games=2**20, capacity=2**31 - 1)  # ~6e16 bytes: more than the address space


# ---- tree indices ---------------------------------------------------------------------------
@pytest.mark.parametrize("i", BAD_INDICES)
def test_tree_index_out_of_range(i):
    c = rooted()
    st = ttt()
    for call in (
        lambda: c.seed_tree(i, 1),
        lambda: c.set_root(i, st),
        lambda: c.get_root(i, st),
        lambda: c.root_over(i),
        lambda: c.tree_size(i),
        lambda: c.node_stats(i, []),
    ):
        with pytest.raises(IndexError, match=f"tree index {i} out of range 0..{G - 1}"):
            call()


@pytest.mark.parametrize("i", [1.0, True, "0", None])
def test_tree_index_of_the_wrong_type(i):
    c = rooted()
    with pytest.raises(TypeError, match="tree index must be an integer"):
        c.tree_size(i)
    with pytest.raises(TypeError, match="tree index must be an integer"):
        c.set_root(i, ttt())


def test_trees_without_a_root_are_refused():
    c = core(num_games=2)
    c.set_root(0, ttt())
    out = ttt()
    with pytest.raises(RuntimeError, match="tree 1 has no root"):
        c.get_root(1, out)
    with pytest.raises(RuntimeError, match="tree 1 has no root"):
        c.root_over(1)
    with pytest.raises(RuntimeError, match="tree 1 has no root"):
        c.node_stats(1, [])
    with pytest.raises(RuntimeError, match="tree 1 has no root"):
        c.root_stats(*stats_buffers(2))
    with pytest.raises(RuntimeError, match="tree 1 has no root"):
        c.choose(0.0, np.zeros(2, np.int64))
    with pytest.raises(RuntimeError, match="tree 1 has no root"):
        c.check_moves(np.zeros(2, np.int64))
    with pytest.raises(RuntimeError, match="tree 1 has no root"):
        c.advance(np.zeros(2, np.int64))
    with pytest.raises(RuntimeError, match="tree 1 has no root"):
        c.begin(1)
    assert c.tree_size(1) == 0 and c.tree_size(0) == 1


# ---- States of another game -----------------------------------------------------------------
@pytest.mark.parametrize("other", [("connect_four", {}), ("go", {"board_size": 5}), ("tictactoe", {"board_size": 4})])
def test_states_of_another_game_or_kwargs_are_refused(other):
    name, kwargs = other
    st = zerogym.make_state(name, **kwargs)
    c = rooted()
    with pytest.raises(ValueError, match="does not fit a search of GameSpec\\(tictactoe"):
        c.set_root(0, st)
    with pytest.raises(ValueError, match="does not fit a search of GameSpec\\(tictactoe"):
        c.get_root(0, st)
    assert st == zerogym.make_state(name, **kwargs)  # not written
    big = rooted(state=st)
    with pytest.raises(ValueError, match="does not fit"):
        big.set_root(0, ttt())
    with pytest.raises(ValueError, match="does not fit"):
        big.get_root(0, ttt())


def test_missing_and_uninitialised_states_are_refused():
    c = rooted()
    with pytest.raises(TypeError):
        c.set_root(0, None)
    with pytest.raises(TypeError):
        c.get_root(0, None)
    bare = type(ttt()).__new__(type(ttt()))  # a State whose constructor never ran: no blob
    with pytest.raises(ValueError, match="uninitialised State"):
        c.set_root(0, bare)
    with pytest.raises(ValueError, match="uninitialised State"):
        c.get_root(0, bare)


def test_a_state_of_the_same_game_and_kwargs_from_another_spec_is_accepted():
    c = rooted()
    st = ttt([4])
    c.set_root(1, st)  # a different GameSpec object, same game and kwargs
    out = ttt()
    c.get_root(1, out)
    assert out == st


# ---- buffers --------------------------------------------------------------------------------
def test_root_stats_checks_every_buffer():
    c = searched()
    good = stats_buffers()
    c.root_stats(*good)
    for k, name in enumerate(("counts", "policy", "value", "priors")):
        dtype, rest = good[k].dtype, good[k].shape[1:]
        for bad in (np.zeros((1,) * good[k].ndim, dtype), np.zeros((G + 1,) + rest, dtype)):
            bufs = list(good)
            bufs[k] = bad
            with pytest.raises(ValueError, match=f"{name} must have shape"):
                c.root_stats(*bufs)
        if good[k].ndim == 2:
            bufs = list(good)
            bufs[k] = np.zeros((G, 8), good[k].dtype)
            with pytest.raises(ValueError, match=f"{name} must have shape \\({G}, 9\\), got \\({G}, 8\\)"):
                c.root_stats(*bufs)
        bufs = list(good)
        bufs[k] = None
        with pytest.raises(TypeError):
            c.root_stats(*bufs)
        bufs = list(good)
        bufs[k] = good[k].astype(np.float64)
        with pytest.raises(ValueError):  # wrong dtype: the buffer is refused
            c.root_stats(*bufs)


def test_choose_checks_its_buffer_and_temperature():
    c = searched()
    with pytest.raises(ValueError, match=f"out must have shape \\({G},\\), got \\(1,\\)"):
        c.choose(0.0, np.zeros(1, np.int64))
    with pytest.raises(TypeError):
        c.choose(0.0, None)
    for t in (float("nan"), float("inf"), -1.0):
        with pytest.raises(ValueError, match="temperature must be a finite number >= 0"):
            c.choose(t, np.zeros(G, np.int64))
    out = np.full(G, -7, np.int64)
    c.choose(0.5, out)
    assert all(ttt().is_legal(int(a)) for a in out)


def test_backup_checks_its_arrays():
    c = rooted()
    c.begin(2)
    n = c.collect()
    assert n == G
    with pytest.raises(TypeError):
        c.backup(None, np.zeros(n, np.float32))
    with pytest.raises(TypeError):
        c.backup(np.ones((n, 9), np.float32), None)
    for priors, values in (
        (np.ones((n + 1, 9), np.float32), np.zeros(n, np.float32)),
        (np.ones((n, 8), np.float32), np.zeros(n, np.float32)),
        (np.ones((n, 9), np.float32), np.zeros(n - 1, np.float32)),
    ):
        with pytest.raises(ValueError, match=f"expected priors \\({n}, 9\\) and values \\({n},\\)"):
            c.backup(priors, values)
    bad = np.ones((n, 9), np.float32)
    bad[1, 4] = np.inf
    assert c.backup(bad, np.zeros(n, np.float32)) == 1  # refused, leaves still queued
    assert c.backup(np.ones((n, 9), np.float32), np.array([0, -np.inf, 0], np.float32)) == 1
    assert c.backup(np.ones((n, 9), np.float32), np.zeros(n, np.float32)) == -1


def test_resized_planes_or_masks_are_refused():
    for name in ("planes", "masks"):
        c = rooted()
        c.begin(2)
        getattr(c, name).resize((0,), refcheck=False)  # in place: the buffer is reallocated
        with pytest.raises(RuntimeError, match=f"PUCTCore.{name} must stay"):
            c.collect()


def test_an_evaluator_writing_into_the_masks_cannot_add_illegal_children():
    # the masks handed to the evaluator are a view it may overwrite; expansion uses its own copy
    st = ttt([0, 4])  # cells 0 and 4 are taken

    def vandal(planes, masks):
        masks[:] = 1
        priors = np.zeros(masks.shape, np.float32)
        priors[:, 0] = priors[:, 4] = 1.0  # all the weight on occupied cells
        return priors + 1e-3, np.zeros(len(masks), np.float32)

    m = BatchedMCTS(st, num_games=1, simulations=200, dirichlet_epsilon=0.0, seed=0)
    m.set_roots([st])
    m.run(vandal)
    counts = m.visit_counts()[0]
    assert counts[0] == 0 and counts[4] == 0 and counts.sum() > 0
    assert m.node_stats(0, [0]) is None
    for t in (0.0, 1.0):
        assert st.is_legal(int(m.select_actions(t)[0]))

    c4 = zerogym.make_state("connect_four")
    for _ in range(6):
        c4.step(3)  # column 3 is full
    m = BatchedMCTS(c4, num_games=1, simulations=300, leaves_per_tree=4, dirichlet_epsilon=0.0, seed=0)
    m.set_roots([c4])

    def full_column_lover(planes, masks):
        masks[:] = 1
        priors = np.full(masks.shape, 1e-3, np.float32)
        priors[:, 3] = 1.0
        return priors, np.zeros(len(masks), np.float32)

    m.run(full_column_lover)
    assert m.visit_counts()[0, 3] == 0


# ---- actions --------------------------------------------------------------------------------
def test_check_moves_and_advance_check_the_actions():
    c = searched()
    before = [c.tree_size(i) for i in range(G)]
    for bad in (np.zeros(1, np.int64), np.zeros(G + 1, np.int64)):
        with pytest.raises(ValueError, match=f"actions must have shape \\({G},\\)"):
            c.check_moves(bad)
        with pytest.raises(ValueError, match=f"actions must have shape \\({G},\\)"):
            c.advance(bad)
    with pytest.raises(TypeError):
        c.advance(None)
    for a, reason in ((9, "out of range"), (-1, "out of range"), (2**40, "out of range")):
        actions = np.array([4, a, 4], np.int64)
        assert c.check_moves(actions)[0] == 1
        with pytest.raises(zerogym.IllegalMoveError, match=f"game 1: illegal move {a}: .*{reason}") as err:
            c.advance(actions)
        assert err.value.game_index == 1 and err.value.action == a
    assert [c.tree_size(i) for i in range(G)] == before
    c.advance(np.array([4, 4, 4], np.int64))
    with pytest.raises(zerogym.IllegalMoveError, match="game 2: illegal move 4"):
        c.advance(np.array([0, 0, 4], np.int64))  # taken since the last advance
    out = ttt()
    c.get_root(2, out)
    assert out == ttt([4])


def test_advance_refuses_a_finished_root():
    over = ttt([0, 3, 1, 4, 2])
    c = rooted(1, state=over)
    assert c.root_over(0)
    with pytest.raises(zerogym.IllegalMoveError, match="game 0: illegal move 5"):
        c.advance(np.array([5], np.int64))


def test_node_stats_checks_the_path():
    c = searched()
    assert c.node_stats(0, [])[0] > 0
    assert c.node_stats(0, np.array([4]))[0] >= 0 or c.node_stats(0, [4]) is None
    for path, match in (
        ([9], "path\\[0\\] must be in 0..8, got 9"),
        ([4, -1], "path\\[1\\] must be in 0..8, got -1"),
        ([2**70], "path\\[0\\]"),
    ):
        with pytest.raises(ValueError, match=match):
            c.node_stats(0, path)
    for path in ([1.0], [True], ["4"], "4"):
        with pytest.raises(TypeError, match="path\\[0\\] must be an integer"):
            c.node_stats(0, path)
    with pytest.raises(TypeError):
        c.node_stats(0, 4)  # not a sequence
    c2 = rooted(1)
    assert c2.node_stats(0, [4]) is None  # a legal path the tree does not hold


# ---- counts and search constants ------------------------------------------------------------
@pytest.mark.parametrize("n", [0, -1, 2**31])
def test_begin_simulations_out_of_range(n):
    c = rooted()
    with pytest.raises(ValueError, match="simulations must be in 1..2147483647"):
        c.begin(n)


def test_begin_simulations_of_the_wrong_type():
    with pytest.raises(TypeError, match="simulations must be an integer"):
        rooted().begin(2.0)


@pytest.mark.parametrize(
    "name,bad",
    [
        ("c_puct", [-1.0, float("nan"), float("inf")]),
        ("fpu_reduction", [float("nan"), float("-inf")]),
        ("virtual_loss", [-0.5, float("nan")]),
        ("dirichlet_alpha", [0.0, -1.0, float("nan"), float("inf")]),
        ("dirichlet_epsilon", [-0.1, 1.5, float("nan")]),
    ],
)
def test_search_constants_are_checked(name, bad):
    c = rooted()
    before = getattr(c, name)
    for v in bad:
        with pytest.raises(ValueError, match=f"{name} must be a finite number"):
            setattr(c, name, v)
    for v in (None, "1", True):
        with pytest.raises(TypeError, match=f"{name} must be a real number"):
            setattr(c, name, v)
    assert getattr(c, name) == before


def test_pass_action_is_checked():
    c = rooted()
    for v in (9, -2, 10**8):
        with pytest.raises(ValueError, match="pass_action must be in -1..8"):
            c.pass_action = v
    assert c.pass_action == -1
    c.pass_action = 8
    c.no_pass_before = 100
    c.begin(5)
    assert c.collect() == G


def test_any_int_seeds_a_tree():
    c = rooted()
    c.seed_tree(0, -1)
    c.seed_tree(1, 2**64 - 1)
    c.seed_tree(2, 2**200)
    with pytest.raises(TypeError, match="seed must be an integer"):
        c.seed_tree(0, 1.5)


def test_noise_with_tiny_or_huge_alpha_stays_finite():
    # gamma draws that underflow to 0 or sum to inf fall back to uniform noise, never NaN priors
    for alpha in (1e-300, 1e300):
        c = rooted(1)
        c.dirichlet_epsilon, c.dirichlet_alpha = 1.0, alpha
        c.begin(30)
        while not c.finished():
            n = c.collect()
            c.backup(c.masks[:n].astype(np.float32), np.zeros(n, np.float32))
        counts, policy, value, priors = stats_buffers(1)
        c.root_stats(counts, policy, value, priors)
        assert np.isfinite(priors).all() and counts.sum() == 29  # the first visit expanded the root
        out = np.zeros(1, np.int64)
        for t in (0.0, 1.0):
            c.choose(t, out)
            assert 0 <= out[0] < 9


def test_huge_finite_values_do_not_break_selection():
    # values are only required to be finite: sums overflowing to inf make NaN scores, and the
    # selection must still pick a child that exists
    st = ttt()
    m = BatchedMCTS(st, num_games=1, simulations=200, dirichlet_epsilon=0.0, seed=0)
    m.set_roots([st])
    m.run(lambda planes, masks: (masks.astype(np.float32), np.full(len(masks), 3e38, np.float32)))
    assert m.visit_counts().sum() == 199
    for t in (0.0, 1.0):
        assert st.is_legal(int(m.select_actions(t)[0]))


# ---- the Python wrapper ---------------------------------------------------------------------
def test_wrapper_bounds():
    with pytest.raises(ValueError, match="simulations must be in 1..2147483647"):
        BatchedMCTS("tictactoe", simulations=2**31)
    with pytest.raises(ValueError, match="num_games must be in 1..2147483647"):
        BatchedMCTS("tictactoe", num_games=2**31)
    with pytest.raises(ValueError, match="num_games \\* leaves_per_tree"):
        BatchedMCTS("tictactoe", num_games=2**22, leaves_per_tree=1024, capacity=10)


def test_wrapper_advance_refuses_non_integer_actions():
    m = BatchedMCTS("tictactoe", num_games=2, simulations=10, seed=0)
    m.set_roots([ttt(), ttt()])
    m.run(uniform_evaluator)
    for bad in ([0.0, 1.0], np.array([0.5, 1.0]), [True, 1], np.array([True, False]), ["0", "1"], [None, 1]):
        with pytest.raises(zerogym.ActionTypeError, match="actions must be integers"):
            m.advance(bad)
    for bad, game in (([0, 2**64], 1), (np.array([0, 2**64 - 1], np.uint64), 1), ([-(2**70), 0], 0)):
        with pytest.raises(zerogym.IllegalMoveError, match=f"game {game}: illegal move .*out of range"):
            m.advance(bad)
    with pytest.raises(ValueError, match="advance needs 2 actions"):
        m.advance([])
    assert m.root_state(0) == ttt() and m.root_state(1) == ttt()
    m.advance(np.array([4, 0], np.uint8))
    assert m.root_state(0) == ttt([4]) and m.root_state(1) == ttt([0])


def test_wrapper_node_stats_refuses_non_integer_paths():
    m = BatchedMCTS("tictactoe", simulations=10, seed=0)
    m.set_roots([ttt()])
    m.run(uniform_evaluator)
    with pytest.raises(TypeError, match="path\\[0\\] must be an integer"):
        m.node_stats(0, [4.7])
    with pytest.raises(ValueError, match="path\\[0\\] must be in 0..8"):
        m.node_stats(0, [9])
    assert m.node_stats(0, [np.int64(4)]) is not None


# ---- threads --------------------------------------------------------------------------------
def test_calls_from_another_thread_during_a_nogil_section_are_refused():
    # collect / backup / root_stats / choose / advance release the GIL; another thread calling in
    # meanwhile gets a RuntimeError instead of changing the trees under them
    from races import race

    go = zerogym.make_state("go", board_size=9)
    c = PUCTCore(go.spec, 32, 8, 4000)
    for i in range(32):
        c.set_root(i, go)

    def search():
        try:
            c.begin(300)
            while not c.finished():
                n = c.collect()
                c.backup(np.ones((n, 82), np.float32), np.zeros(n, np.float32))
        except RuntimeError:  # the main thread was inside a call
            c.abort()  # (refused too, at times)
            raise

    out, buffers = zerogym.make_state("go", board_size=9), stats_buffers(32, 82)
    calls = [
        lambda: c.set_root(3, go),
        lambda: c.get_root(5, out),
        lambda: c.advance(np.full(32, 40, np.int64)),
        lambda: c.choose(1.0, np.zeros(32, np.int64)),
        lambda: c.node_stats(2, [40]),
        lambda: c.root_stats(*buffers),
        lambda: c.check_moves(np.full(32, 40, np.int64)),
    ]
    refused = race([search], calls, ignore=zerogym.IllegalMoveError)  # 40 already played at some root
    assert all("another thread" in r or "waiting for their evaluation" in r for r in refused), set(refused)
    assert out.is_over() or out.legal_actions().size > 0  # a whole, valid position was copied out
