"""Sign conventions of the searches, checked explicitly for both colours.

Values reported by the searches are from the view of the player to move at the root; evaluator
values are from the view of the player to move at the leaf.
"""

import numpy as np
import pytest

import zerogym
from zerogym_agents.mcts._uct import UCTCore
from zerogym_agents.mcts.search import BatchedMCTS, uniform_evaluator


def play(moves, game="tictactoe"):
    st = zerogym.make_state(game)
    for a in moves:
        st.step(a)
    return st


# Tic-tac-toe positions where the player to move wins at once: (moves, player to move)
WON = [
    ([0, 3, 1, 4], 0),  # X to move, wins at 2
    ([0, 3, 1, 4, 8], 1),
]  # O to move, wins at 5


def exact(st):
    """Negamax value for the player to move (brute force, tiny positions only)."""
    if st.is_over():
        return 0.0 if st.winner < 0 else (1.0 if st.winner == st.current_player else -1.0)
    return max(-exact(st.copy().step(int(a))) for a in st.legal_actions())


def puct_value(st, evaluator=uniform_evaluator, simulations=1500):
    m = BatchedMCTS(st, num_games=1, simulations=simulations, dirichlet_epsilon=0.0, seed=0)
    m.set_roots([st])
    return float(m.run(evaluator)[1][0])


def uct_value(st, simulations=3000):
    core = UCTCore(st.spec, simulations * st.num_actions + 1)
    return core.search(st, simulations, 1.4, 7, np.zeros(st.num_actions, np.int64))[1]


@pytest.mark.parametrize("moves,mover", WON)
def test_won_positions_value_near_plus_one(moves, mover):
    st = play(moves)
    assert st.current_player == mover and exact(st) == 1.0
    assert puct_value(st) > 0.8
    assert uct_value(st) > 0.8


def lost_positions():
    # found by brute force: a position after 3 to 5 random moves that is lost (value -1) for
    # its player to move, one with player 0 to move and one with player 1
    out = {0: None, 1: None}
    rng = np.random.default_rng(0)
    while None in out.values():
        st = zerogym.make_state("tictactoe")
        for _ in range(rng.integers(3, 6)):
            legal = st.legal_actions()
            st.step(int(legal[rng.integers(len(legal))]))
            if st.is_over():
                break
        if st.is_over() or out[st.current_player] is not None:
            continue
        if exact(st) == -1.0:
            out[st.current_player] = st
    return out


@pytest.mark.parametrize("mover", [0, 1])
def test_lost_positions_value_near_minus_one(mover):
    st = lost_positions()[mover]
    assert st.current_player == mover
    assert puct_value(st, simulations=3000) < -0.6
    assert uct_value(st, simulations=6000) < -0.5


def test_backup_signs_by_hand():
    # evaluator: every leaf is worth +0.5 to its player to move.  Simulation 1 evaluates the root:
    # +0.5 for the root player.  Simulation 2 evaluates one child: +0.5 for the opponent, i.e.
    # -0.5 for the root player.  Root value (0.5 - 0.5) / 2 = 0; the child (mover: root player)
    # holds one visit worth -0.5 to its mover.
    for moves in ([], [4]):
        st = play(moves)
        m = BatchedMCTS(st, num_games=1, simulations=2, dirichlet_epsilon=0.0, seed=0)
        m.set_roots([st])
        _, value = m.run(lambda p, k: (k.astype(np.float32), np.full(len(k), 0.5, np.float32)))
        assert value[0] == pytest.approx(0.0)
        a = int(np.argmax(m.visit_counts()[0]))
        n, w, mover, _ = m.node_stats(0, [a])
        assert (n, mover) == (1, st.current_player) and w == pytest.approx(-0.5)
        m.run(lambda p, k: (k.astype(np.float32), np.full(len(k), 0.5, np.float32)))
        # after 4 visits: 0.5 (root), then 3 children each -0.5 for the root player
        assert m.root_values()[0] == pytest.approx((0.5 - 1.5) / 4)


def first_player_favoured(planes, masks):
    """Value +1 for player 0 and -1 for player 1, from each leaf's mover's view: in Tic-tac-toe
    the mover is player 0 exactly when both have the same number of stones (planes 0 and 1)."""
    own = planes[:, 0].sum(axis=(1, 2))
    opp = planes[:, 1].sum(axis=(1, 2))
    return masks.astype(np.float32), np.where(own == opp, 1.0, -1.0).astype(np.float32)


@pytest.mark.parametrize("moves", [[], [4], [4, 0], [4, 0, 8]])
def test_evaluator_values_are_from_the_movers_view(moves):
    st = play(moves)
    value = puct_value(st, evaluator=first_player_favoured, simulations=200)
    # the evaluator says player 0 is winning everywhere, so the root value is about +1 when
    # player 0 moves and about -1 when player 1 moves (terminal leaves may differ, few here)
    expected = 1.0 if st.current_player == 0 else -1.0
    assert value == pytest.approx(expected, abs=0.2)
