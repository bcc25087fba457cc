"""Decisive moves (BatchedMCTS(decisive_moves=True)): wins in one move are scored exactly."""

import numpy as np
import pytest

import zerogym
from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.alphazero.selfplay import SelfPlay
from zerogym_agents.mcts.search import BatchedMCTS, uniform_evaluator
from zerogym_agents.agents.search import AlphaZeroAgent

# the first player (to move at even stone counts) has d1, e1 and g1 and threatens f1 (column 5);
# the second player, to move, must block it
THREAT = [3, 0, 4, 2, 3, 3, 2, 3, 6]
BLOCK = 5


def connect_four(moves):
    st = zerogym.make_state("connect_four")
    for a in moves:
        st.step(a)
    return st


def wins_in_one(planes):
    """Whether the mover (plane 0; row 0 is the top) has a column that makes four in a row: an
    independent check on the planes that the search hands to its evaluator."""
    mine, theirs = planes[0] > 0, planes[1] > 0
    rows, cols = mine.shape
    for c in range(cols):
        empty = np.flatnonzero(~(mine[:, c] | theirs[:, c]))
        if not len(empty):
            continue
        board = mine.copy()
        board[empty[-1], c] = True
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            for r in range(rows):
                for k in range(cols):
                    cells = [(r + i * dr, k + i * dc) for i in range(4)]
                    if all(0 <= y < rows and 0 <= x < cols and board[y, x] for y, x in cells):
                        return True
    return False


def blind_evaluator(planes, masks):
    """Uniform priors and value 0, except that the threatening first player gives its winning column
    almost no prior: PUCT's first-play urgency then never tries it."""
    priors = masks.astype(np.float32)
    first_to_move = planes[:, :2].sum(axis=(1, 2, 3)) % 2 == 0
    priors[first_to_move, BLOCK] *= 1e-4
    return priors, np.zeros(len(masks), np.float32)


def test_without_decisive_moves_the_blind_search_misses_the_block():
    # the failure the option exists for: a reply that wins at once, with a tiny prior, goes unseen
    mcts = BatchedMCTS("connect_four", simulations=400, seed=0)
    mcts.set_roots([connect_four(THREAT)])
    policy, _ = mcts.run(blind_evaluator)
    assert policy[0, BLOCK] < 0.5


@pytest.mark.parametrize("search", ["puct", "gumbel"])
def test_decisive_moves_find_the_block(search):
    mcts = BatchedMCTS("connect_four", simulations=400, seed=0, search=search, decisive_moves=True)
    assert mcts.decisive_moves
    mcts.set_roots([connect_four(THREAT)])
    policy, _ = mcts.run(blind_evaluator)
    assert int(np.argmax(policy[0])) == BLOCK
    assert policy[0, BLOCK] > 0.9
    assert mcts.select_actions(temperature=0.0)[0] == BLOCK


@pytest.mark.parametrize("search", ["puct", "gumbel"])
def test_a_root_that_wins_at_once_puts_its_prior_on_the_wins(search):
    # the first player has b1, c1, d1: a1 (0) and e1 (4) both win
    st = connect_four([1, 6, 2, 6, 3, 5])
    agent = AlphaZeroAgent(uniform_evaluator, simulations=64, seed=0, search=search, decisive_moves=True)
    action, policy, value = agent.search(st)
    assert action in (0, 4)
    assert policy[[0, 4]].sum() > 0.99
    assert value > 0.5
    if search == "puct":
        assert value == pytest.approx(1.0)


def test_no_leaf_below_the_root_that_wins_at_once_reaches_the_evaluator():
    start = connect_four([3, 3, 2, 4, 4, 2, 5])  # open play with threats on both sides

    def seen(decisive):
        found = []

        def evaluator(planes, masks):
            found.extend(wins_in_one(p) for p in planes)
            return uniform_evaluator(planes, masks)

        mcts = BatchedMCTS("connect_four", simulations=300, seed=1, decisive_moves=decisive)
        mcts.set_roots([start])
        mcts.run(evaluator)
        return found

    assert any(seen(False)[1:])  # such leaves exist, and are evaluated without it
    with_it = seen(True)
    assert with_it[0] == wins_in_one(start.encode())  # the root is evaluated either way
    assert not any(with_it[1:])


def test_the_flag_is_checked_and_reaches_self_play():
    with pytest.raises(ValueError, match="decisive_moves must be true or false"):
        BatchedMCTS("connect_four", decisive_moves="yes")
    with pytest.raises(ValueError, match="decisive_moves must be true or false"):
        AlphaZeroAgent(uniform_evaluator, decisive_moves=1)
    with pytest.raises(ValueError, match="decisive_moves"):
        AlphaZeroConfig(game="connect_four", decisive_moves="true")
    cfg = AlphaZeroConfig(game="connect_four", decisive_moves=True, concurrent_games=2, pool_fraction=0.5)
    play = SelfPlay(cfg)
    assert play.mcts.decisive_moves and play.opp_mcts.decisive_moves
    assert not SelfPlay(AlphaZeroConfig(game="connect_four", concurrent_games=2)).mcts.decisive_moves


def test_a_saved_agent_keeps_the_option(tmp_path):
    from zerogym_agents.nets import PolicyValueNet, for_game
    from zerogym_agents.agents.saved import load_agent, save_agent

    net = PolicyValueNet(for_game("connect_four", trunk="resnet", blocks=1, channels=4))
    path = str(tmp_path / "agent.pt")
    save_agent(path, net, {"simulations": 8, "decisive_moves": True}, {"game": "connect_four", "kwargs": {}})
    agent = load_agent(path)
    assert agent.settings.decisive_moves is True
    assert agent.act(zerogym.make("connect_four")) in range(7)
    assert load_agent(path, decisive_moves=False).settings.decisive_moves is False
