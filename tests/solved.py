"""Exact play for small positions, shared by the search tests (importable: tests/ is on pytest's
pythonpath): negamax values and an evaluator that knows them."""

import numpy as np

import zerogym


def play(game, moves, **kwargs):
    """A State of `game` after `moves`."""
    st = zerogym.make_state(game, **kwargs)
    for a in moves:
        st.step(a)
    return st


def negamax(st, memo):
    """Exact value of `st` for the player to move (+1 win, 0 draw, -1 loss), memoised on the blob."""
    key = st.to_bytes()
    if key not in memo:
        if st.is_over():
            memo[key] = 0.0 if st.winner < 0 else (1.0 if st.winner == st.current_player else -1.0)
        else:
            memo[key] = max(-negamax(st.copy().step(int(a)), memo) for a in st.legal_actions())
    return memo[key]


def exact_evaluator(root, solved_policy=False):
    """(evaluator, memo): an evaluator that knows the exact value of every position reachable from
    `root` (looked up by its planes, which show the position from the mover's side), and the memo of
    negamax values it filled.  Priors: uniform over the legal moves, or with solved_policy
    proportional to exp(exact value of the move)."""
    memo, table, stack = {}, {}, [root]
    while stack:
        st = stack.pop()
        key = st.encode().tobytes()
        if key in table:
            continue
        prior = np.zeros(st.num_actions, np.float32)
        if not st.is_over():
            children = [(int(a), st.copy().step(int(a))) for a in st.legal_actions()]
            for a, child in children:
                prior[a] = np.exp(-negamax(child, memo)) if solved_policy else 1.0
            stack.extend(child for _, child in children)
        table[key] = (prior, negamax(st, memo))

    def evaluate(planes, masks):
        rows = [table[p.tobytes()] for p in planes]
        return np.stack([r[0] for r in rows]), np.array([r[1] for r in rows], np.float32)

    return evaluate, memo


def random_positions(game, kwargs, empties, count, seed, accept):
    """`count` positions reached by seeded random play down to `empties` empty cells, still running,
    for which accept(state, {move: exact value}) holds; as (state, values) pairs."""
    rng = np.random.default_rng(seed)
    memo, out = {}, []
    for _ in range(4000):
        if len(out) == count:
            break
        st = zerogym.make_state(game, **kwargs)
        while not st.is_over() and int((st.board() == 0).sum()) > empties:
            legal = st.legal_actions()
            st.step(int(legal[rng.integers(len(legal))]))
        if st.is_over():
            continue
        vals = {int(a): -negamax(st.copy().step(int(a)), memo) for a in st.legal_actions()}
        if accept(st, vals):
            out.append((st, vals))
    assert len(out) == count, f"only {len(out)} of {count} positions with {empties} empty cells found"
    return out
