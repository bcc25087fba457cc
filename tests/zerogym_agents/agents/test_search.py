"""UCTAgent and AlphaZeroAgent through zerogym AEC envs."""

import numpy as np
import pytest

import zerogym
from zerogym_agents.agents.base import RandomAgent
from zerogym_agents.mcts.search import uniform_evaluator
from zerogym_agents.agents.search import AlphaZeroAgent, UCTAgent


def env_after(game, moves, **kwargs):
    env = zerogym.make(game, **kwargs)
    env.reset(seed=0)
    for a in moves:
        env.step(a)
    return env


def play_game(env, agents):
    """Play one game; agents indexed by player number. Returns (player 0 reward, moves)."""
    env.reset(seed=0)
    for a in agents:
        a.reset()
    moves = []
    for _name in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = agents[env.unwrapped.state.current_player].act(env)
        moves.append(a)
        env.step(a)
    return env.unwrapped.state.returns()[0], moves


@pytest.mark.parametrize(
    "make_agent", [lambda: UCTAgent(2000, seed=0), lambda: AlphaZeroAgent(uniform_evaluator, simulations=600, seed=0)]
)
@pytest.mark.parametrize(
    "game,moves,good",
    [
        ("tictactoe", [0, 3, 1, 4], 2),
        ("tictactoe", [0, 4, 1], 2),
        ("connect_four", [0, 6, 1, 6, 2], 3),
        ("connect_four", [6, 0, 6, 1, 5, 2, 5], 3),
    ],
)
def test_agents_win_and_block(make_agent, game, moves, good):
    assert make_agent().act(env_after(game, moves)) == good


def test_agents_never_lose_to_random_at_tictactoe():
    rand = RandomAgent(seed=1)
    for agent in (UCTAgent(1000, seed=0), AlphaZeroAgent(uniform_evaluator, simulations=400, seed=0)):
        for first in (0, 1):
            for _ in range(3):
                players = [agent, rand] if first == 0 else [rand, agent]
                r0, _ = play_game(zerogym.make("tictactoe"), players)
                assert (r0 if first == 0 else -r0) >= 0


def test_seeded_agents_repeat_their_games():
    def game(seed):
        a = AlphaZeroAgent(uniform_evaluator, simulations=50, temperature=1.0, dirichlet=True, seed=seed)
        b = UCTAgent(100, seed=seed + 1)
        return play_game(zerogym.make("connect_four"), [a, b])[1]

    assert game(3) == game(3)
    assert game(3) != game(4)


@pytest.mark.parametrize("search", ["puct", "gumbel"])
def test_a_reseeded_alphazero_agent_plays_as_a_new_one(search):
    # an agent that searched before and is reseeded searches as a new agent given that seed: the
    # arena's games replay alone
    options = dict(simulations=40, temperature=1.0, search=search, dirichlet=search == "puct")
    used = AlphaZeroAgent(uniform_evaluator, seed=1, **options)
    play_game(zerogym.make("connect_four"), [used, UCTAgent(20, seed=0)])
    used.seed(7)
    new = AlphaZeroAgent(uniform_evaluator, seed=None, **options)
    new.seed(7)
    games = [play_game(zerogym.make("connect_four"), [agent, UCTAgent(20, seed=0)])[1] for agent in (used, new)]
    assert games[0] == games[1]


def test_alphazero_reuses_its_tree():
    agent = AlphaZeroAgent(uniform_evaluator, simulations=300, seed=0, leaves_per_tree=1)
    env = env_after("tictactoe", [])
    a = agent.act(env)
    kept = agent._mcts.node_stats(0, [a, 4 if a != 4 else 0])
    env.step(a)
    env.step(4 if a != 4 else 0)
    agent.act(env)
    # the root now holds the visits it had as a grandchild plus this search's 300
    assert agent._mcts.node_stats(0)[0] == (kept[0] if kept else 0) + 300
    # an unrelated position starts afresh
    fresh = env_after("tictactoe", [8])
    agent.act(fresh)
    assert agent._mcts.node_stats(0)[0] == 300
    no_reuse = AlphaZeroAgent(uniform_evaluator, simulations=300, seed=0, reuse_tree=False)
    no_reuse.act(env_after("tictactoe", []))
    env2 = env_after("tictactoe", [no_reuse._last_action, 4 if no_reuse._last_action != 4 else 0])
    no_reuse.act(env2)
    assert no_reuse._mcts.node_stats(0)[0] == 300


def test_alphazero_reports_policy_and_value():
    agent = AlphaZeroAgent(uniform_evaluator, simulations=400, seed=0)
    a = agent.act(env_after("tictactoe", [0, 3, 1, 4]))
    assert a == 2 and agent.last_policy.sum() == pytest.approx(1.0) and agent.last_value > 0.8


def test_alphazero_accepts_a_torch_net():
    pytest.importorskip("torch")
    from zerogym_agents.nets import PolicyValueNet, for_game
    from zerogym_agents.nets.evaluate import Evaluator

    net = PolicyValueNet(for_game("tictactoe", blocks=1, channels=8))
    agent = AlphaZeroAgent(net, simulations=50, seed=0)
    assert isinstance(agent.evaluator, Evaluator)
    env = env_after("tictactoe", [0, 3, 1, 4])
    a = agent.act(env)
    assert env.unwrapped.state.is_legal(a)
    assert agent.last_policy.sum() == pytest.approx(1.0) and -1.0 <= agent.last_value <= 1.0


def test_bad_arguments():
    with pytest.raises(ValueError, match="simulations"):
        UCTAgent(0)
    with pytest.raises(ValueError, match="c must"):
        UCTAgent(10, c=-1)
    with pytest.raises(ValueError, match="evaluator callable"):
        AlphaZeroAgent("not a net")
    with pytest.raises(ValueError, match="temperature"):
        AlphaZeroAgent(uniform_evaluator, temperature=-1)
    over = env_after("tictactoe", [0, 3, 1, 4, 2])
    with pytest.raises(ValueError, match="game is over"):
        UCTAgent(10).act(over)
    with pytest.raises(ValueError, match="game is over"):
        AlphaZeroAgent(uniform_evaluator).act(over)


def black_is_lost(planes, masks):
    """Uniform priors; every position lost for black (Go's plane 5 is 1 for black's view), won for white."""
    values = np.where(planes[:, 5, 0, 0] > 0.5, -0.95, 0.95).astype(np.float32)
    return masks.astype(np.float32), values


@pytest.mark.parametrize("search", ["puct", "gumbel"])
def test_alphazero_resigns_after_resign_moves_low_values_in_a_row(search):
    env = zerogym.make("go", board_size=5)
    env.reset(seed=0)
    black = AlphaZeroAgent(black_is_lost, simulations=32, seed=0, search=search, resign_below=-0.9, resign_moves=2)
    white = AlphaZeroAgent(black_is_lost, simulations=32, seed=0, search=search, resign_below=-0.9)
    seen = []
    for _ in range(3):
        env.step(black.act(env))
        seen.append(black.resigned)
        assert black.last_value < -0.9
        env.step(white.act(env))
        assert not white.resigned and white.last_value > 0.9
    assert seen == [False, True, True]
    black.reset()  # a new game counts afresh
    assert not black.resigned
    env.reset(seed=0)
    black.act(env)
    assert not black.resigned
    env.reset(seed=0)  # a position not following from its last move: counts afresh too
    black.act(env)
    assert not black.resigned


def test_alphazero_without_resign_below_never_resigns():
    agent = AlphaZeroAgent(black_is_lost, simulations=16, seed=0)
    env = zerogym.make("go", board_size=5)
    env.reset(seed=0)
    for _ in range(4):
        env.step(agent.act(env))
        assert agent.last_value < -0.9 and not agent.resigned
        env.step(agent.act(env))


def test_a_resigning_alphazero_agent_loses_the_arena_game():
    from zerogym_agents.arena.match import play_match

    black = AlphaZeroAgent(black_is_lost, simulations=16, seed=0, resign_below=-0.9, resign_moves=3)
    result = play_match(black, RandomAgent(0), "go", {"board_size": 5}, games=2, seed=0)
    first = result.records[0]  # black: the AlphaZero agent
    assert first["resigned"] == 0 and first["winner"] == 1 and len(first["actions"]) == 4
    assert result.records[1]["resigned"] is None  # as white it is winning: plays the game out


def test_resign_arguments():
    with pytest.raises(ValueError, match="resign_below must be a finite number >= -1.0 and <= 1.0"):
        AlphaZeroAgent(uniform_evaluator, resign_below=-2)
    with pytest.raises(ValueError, match="resign_moves"):
        AlphaZeroAgent(uniform_evaluator, resign_moves=0)


def test_alphazero_moves_between_games():
    agent = AlphaZeroAgent(uniform_evaluator, simulations=20, seed=0, resign_below=-0.5)
    for game, moves in (("tictactoe", [4]), ("connect_four", [3, 3]), ("tictactoe", [4, 0])):
        env = env_after(game, moves)
        a = agent.act(env)
        assert env.unwrapped.state.is_legal(a) and not agent.resigned
