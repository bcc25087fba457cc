"""The agents on Havannah at sides 4 and 5: UCT takes a win in one and stops the opponent's (so does
greedy; PUCT with a uniform prior takes it), and UCT and greedy beat random play; a tiny AlphaZero
run trains on side 4 and its size-independent net plays legal games at sides 4 and 5; the greedy
heuristic takes and stops wins and beats random play."""

import pytest

import zerogym
from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
from zerogym_agents.agents.base import RandomAgent
from zerogym_agents.agents.greedy import GreedyAgent
from zerogym_agents.mcts.search import uniform_evaluator
from zerogym_agents.agents.search import AlphaZeroAgent, UCTAgent
from tiny_runs import alphazero_config

RING = [(2, 3), (2, 4), (3, 4), (4, 3), (4, 2), (3, 2)]  # the six around (3, 3), the centre of side 4


def cell(n, r, c):
    return r * (2 * n - 1) + c


def env_after(n, moves, **kw):
    env = zerogym.make("havannah", board_size=n, **kw)
    env.reset(seed=0)
    for a in moves:
        env.step(a)
    return env


def threat(n, mover_first):
    """Black has five of the six around the centre; white's lone stones lie apart.  mover_first:
    black to move (it can close the ring), else white (it must stop it on the sixth cell)."""
    d = 2 * n - 1
    white = [cell(n, d - 1, 0), cell(n, 0, d - 1), cell(n, d - 1, n - 1), cell(n, n - 1, d - 1), cell(n, 0, n - 1)]
    moves = []
    for b, w in zip(RING[:5], white):
        moves += [cell(n, *b), w]
    if not mover_first:
        moves.append(cell(n, d - 2, 1))  # black plays elsewhere: white to move
    return moves, cell(n, *RING[5])


def play(env, agents):
    env.reset(seed=0)
    for a in agents:
        a.reset()
    for _ in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(agents[env.unwrapped.state.current_player].act(env))
    return env.unwrapped.state


AGENTS = {
    "uct": lambda: UCTAgent(6000, seed=0),
    "greedy": lambda: GreedyAgent(seed=0),
    "alphazero-uniform": lambda: AlphaZeroAgent(uniform_evaluator, simulations=400, seed=0),
}


@pytest.mark.parametrize("n", [4, 5])
@pytest.mark.parametrize("name", AGENTS)
def test_agents_close_a_ring_in_one(n, name):
    moves, sixth = threat(n, mover_first=True)
    assert AGENTS[name]().act(env_after(n, moves)) == sixth


@pytest.mark.parametrize("n", [4, 5])
@pytest.mark.parametrize("name", ["uct", "greedy"])  # a uniform prior would need far more simulations
def test_agents_stop_a_ring_in_one(n, name):
    moves, sixth = threat(n, mover_first=False)
    env = env_after(n, moves)
    assert env.unwrapped.state.winning_cells(0)[sixth] == 1
    assert AGENTS[name]().act(env) == sixth


@pytest.mark.parametrize("n", [4, 5])
def test_uct_and_greedy_beat_random_play(n):
    env = zerogym.make("havannah", board_size=n)
    for agent in (UCTAgent(300, seed=1), GreedyAgent(seed=1)):
        for first in (0, 1):
            agents = [agent, RandomAgent(seed=2)] if first == 0 else [RandomAgent(seed=2), agent]
            st = play(env, agents)
            assert st.is_terminal() and st.winner == first


def test_tiny_alphazero_run_trains_and_plays_sides_4_and_5(tmp_path):
    game = dict(game="havannah", game_kwargs={"board_size": 4, "swap": True}, concurrent_games=4, simulations=8)
    cfg = alphazero_config(game, max_steps=60, checkpoint_every=30, min_buffer=32, seed=5)
    tr = AlphaZeroTrainer(cfg, tmp_path, log_dir=False)
    tr.run(progress=False)
    assert tr.games > 0 and tr.train_steps > 0
    for n in (4, 5):  # the net has no size in its weights: side 5 zero-shot
        agent = tr.agent(seed=0, simulations=16)
        st = play(zerogym.make("havannah", board_size=n, swap=True), [agent, agent])
        assert st.is_terminal() and st.move_count >= 2 * n - 1
        assert (st.winner == -1) == (st.winning_shapes() == ()) == bool((st.board()[st.on_board()] != 0).all())
