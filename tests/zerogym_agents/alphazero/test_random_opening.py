"""random_opening_moves: self-play games that start from uniformly random legal moves, neither searched
nor recorded, drawn from the run's seed."""

import numpy as np
import pytest

import zerogym
from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.alphazero.selfplay import SelfPlay
from zerogym_agents.mcts.search import uniform_evaluator
from tiny_runs import alphazero_config

from .conftest import run_and_resume


# 96 games of Connect Four at once, each from 2 random moves
OPENINGS = dict(game="connect_four", concurrent_games=96, simulations=4, random_opening_moves=2)


def config(**over):
    return alphazero_config(OPENINGS, {"min_buffer": 32, "pool_fraction": 0.0}, **over)


def started(cfg):
    sp = SelfPlay(cfg)
    sp.rebuild(cfg.seed)
    return sp


def stones(planes):
    """Stones on a Connect Four board from its encoding (planes 0 and 1: the two players' discs)."""
    return int(planes[:2].sum())


def test_refused_below_zero_and_off_by_default():
    assert AlphaZeroConfig().random_opening_moves == 0
    with pytest.raises(ValueError, match="random_opening_moves must be an integer >= 0"):
        AlphaZeroConfig(random_opening_moves=-1)


def test_off_every_game_starts_from_the_empty_board():
    sp = started(config(random_opening_moves=0))
    moves, _ = sp.step(uniform_evaluator)
    assert len(moves) == 96 and {stones(m[1]) for m in moves} == {0}


def test_first_searched_position_has_0_to_k_random_stones_and_the_trees_start_there():
    sp = started(config())
    starts = []
    search = sp.mcts.run

    def spy(evaluator, *args, **kwargs):  # the trees' roots when the search runs
        starts.extend(sp.mcts.root_state(i).to_bytes() for i in range(96))
        return search(evaluator, *args, **kwargs)

    sp.mcts.run = spy
    moves, _ = sp.step(uniform_evaluator)
    counts = np.bincount([stones(m[1]) for m in moves], minlength=4)
    assert counts[3] == 0 and counts[:3].min() >= 16  # 0, 1 or 2 moves, each about a third of 96
    empty = zerogym.make_state("connect_four")
    for i, (blob, (_, planes, mask, *_)) in enumerate(zip(starts, moves)):
        state = empty.copy()
        state.load_bytes(blob)
        assert np.array_equal(state.encode(), planes) and np.array_equal(state.legal_mask(), mask), i
    sp.mcts.run = search
    later, _ = sp.step(uniform_evaluator)  # only a game's first search gets the opening
    assert [stones(m[1]) for m in later] == [stones(m[1]) + 1 for m in moves]


def test_an_opening_never_ends_the_game_and_is_not_recorded():
    # tic-tac-toe ends by its 9th move: openings of up to 20 random moves must stop short of the end
    sp = started(config(game="tictactoe", concurrent_games=64, random_opening_moves=20))
    search, over = sp.mcts.run, []

    def spy(evaluator, *args, **kwargs):
        over.extend(sp.mcts.root_state(i).is_over() for i in range(64))
        return search(evaluator, *args, **kwargs)

    sp.mcts.run = spy
    records, starts = {i: [] for i in range(64)}, []
    for _ in range(12):
        moves, finished = sp.step(uniform_evaluator)
        for i, planes, *_ in moves:
            records[i].append(stones(planes))
        for i, _, _ in finished:
            # the first recorded position is the opened one; then one per searched move, none before
            assert records[i] == list(range(records[i][0], records[i][0] + len(records[i]))), records[i]
            starts.append(records[i][0])
            records[i] = []
    assert not any(over) and len(over) == 12 * 64
    assert len(starts) > 64 and max(starts) >= 5 and min(starts) == 0 and max(starts) <= 8


def test_pool_games_search_the_opened_position_in_both_trees():
    cfg = config(concurrent_games=16, pool_fraction=0.5)
    sp = started(cfg)
    sp.step(uniform_evaluator, uniform_evaluator)
    for j, i in enumerate(range(8, 16)):
        assert sp.opp_mcts.root_state(j).to_bytes() == sp.mcts.root_state(i).to_bytes()


def test_openings_follow_the_seed_and_runs_resume_exactly(tmp_path):
    def firsts(seed):
        moves, _ = started(config(seed=seed)).step(uniform_evaluator)
        return [m[1].tobytes() for m in moves]

    assert firsts(3) == firsts(3) and firsts(3) != firsts(4)
    cfg = config(game="tictactoe", concurrent_games=8, simulations=8, random_opening_moves=3)
    run_and_resume(cfg, tmp_path)
