"""Self-play and training with search="gumbel" and with KataGo's switches (playout cap randomization,
forced playouts with policy target pruning): what is played, what is recorded as a target, what the
saved agent searches with, and that runs stay reproducible."""

import numpy as np
import pytest

import zerogym
from zerogym_agents import AlphaZeroAgent
from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.alphazero.selfplay import SelfPlay
from zerogym_agents.core.constants import AGENT
from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
from zerogym_agents.mcts.search import uniform_evaluator
from zerogym_agents.agents.saved import load_agent, load_card
from tiny_runs import alphazero_config

from .conftest import run_and_resume


def tiny(**over):
    return alphazero_config({"min_buffer": 32, "pool_fraction": 0.0}, **over)


class Spy:
    """Wraps a BatchedMCTS: records each run()'s arguments with the visit counts and improved/pruned
    policies right after it, and each select_actions() call with its result."""

    def __init__(self, mcts):
        self.mcts, self.runs, self.picks = mcts, [], []
        run, select = mcts.run, mcts.select_actions

        def spy_run(evaluator, *args, **kwargs):
            out = run(evaluator, *args, **kwargs)
            self.runs.append(
                {
                    "kwargs": kwargs,
                    "counts": mcts.visit_counts(),
                    "policies": out[0].copy(),
                    "pruned": mcts.pruned_policy(),
                }
            )
            return out

        def spy_select(*args):
            out = select(*args)
            self.picks.append((args, out.copy()))
            return out

        mcts.run, mcts.select_actions = spy_run, spy_select


def started(cfg):
    sp = SelfPlay(cfg)
    sp.rebuild(cfg.seed)
    return sp, Spy(sp.mcts)


# ---- config -------------------------------------------------------------------------------------
def test_config_defaults_and_refusals():
    cfg = AlphaZeroConfig()
    assert (cfg.search, cfg.gumbel_m, cfg.c_visit, cfg.c_scale) == ("puct", 16, 50.0, 1.0)
    assert (cfg.cheap_simulations, cfg.full_search_prob, cfg.forced_playouts) == (0, 0.25, 0.0)
    with pytest.raises(ValueError, match="AlphaZeroConfig.search must be one of 'puct', 'gumbel', got 'mcts'"):
        AlphaZeroConfig(search="mcts")
    with pytest.raises(ValueError, match=r"gumbel_m must be an integer in \[1, 32767\]"):
        AlphaZeroConfig(gumbel_m=0)
    with pytest.raises(ValueError, match=r"cheap_simulations \(100\) must be less than simulations \(100\)"):
        AlphaZeroConfig(cheap_simulations=100)
    with pytest.raises(ValueError, match="full_search_prob"):
        AlphaZeroConfig(full_search_prob=1.5)
    with pytest.raises(ValueError, match="forced_playouts is for search='puct'"):
        AlphaZeroConfig(search="gumbel", forced_playouts=2.0)
    assert AlphaZeroConfig.from_json(AlphaZeroConfig(search="gumbel", gumbel_m=4).to_json()).gumbel_m == 4


# ---- Gumbel self-play -------------------------------------------------------------------------------
def test_gumbel_self_play_plays_the_search_move_and_records_the_improved_policy():
    cfg = tiny(search="gumbel")
    sp, spy = started(cfg)
    before = [r.copy() for r in sp.roots]
    moves, _ = sp.step(uniform_evaluator)
    run = spy.runs[0]
    ((args, picked),) = spy.picks
    assert args == ()  # the search's own move, not a visit-count draw
    for i, root in enumerate(before):
        assert sp.roots[i].last_action == picked[i] and root.is_legal(int(picked[i]))
    for i, _planes, mask, policy, _mover, _ in moves:
        # uniform evaluator, value 0: every completed Q is the same, so pi' is the uniform prior,
        # while the sequential halving's visits are not uniform
        np.testing.assert_allclose(policy, mask / mask.sum(), rtol=1e-5)
        counts = run["counts"][i]
        assert counts.sum() == cfg.simulations and counts.max() > counts[counts > 0].min()
    assert len(moves) == cfg.concurrent_games


def test_gumbel_training_run_saves_an_agent_that_searches_the_same_way(tmp_path):
    tr = AlphaZeroTrainer(tiny(search="gumbel", gumbel_m=4, c_visit=20.0), tmp_path, log_dir=False)
    tr.run(progress=False)
    assert tr.train_steps > 0 and tr.positions > 0
    assert abs(tr.replay.policies[: tr.replay.size].sum(axis=1) - 1).max() < 1e-4
    agent = load_agent(tmp_path / AGENT, seed=0)
    assert agent.settings.search == "gumbel"
    assert (agent.settings.gumbel_m, agent.settings.c_visit) == (4, 20.0)
    assert load_card(tmp_path / AGENT)["search"] == "gumbel"
    env = zerogym.make("tictactoe")
    env.reset(seed=0)
    assert env.unwrapped.state.is_legal(agent.act(env))


def test_puct_runs_save_puct_agents_and_old_files_load_as_puct(tmp_path):
    tr = AlphaZeroTrainer(tiny(max_steps=8), tmp_path, log_dir=False)
    tr.run(progress=False)
    assert tr.agent_options() == {"simulations": 12}
    assert load_card(tmp_path / AGENT)["search"] == "puct"
    assert load_agent(tmp_path / AGENT).settings.search == "puct"
    assert load_agent("pretrained:tictactoe").settings.search == "puct"  # a file from before the switch


# ---- playout cap randomization ---------------------------------------------------------------------
def test_playout_cap_randomization_records_only_full_searches():
    cfg = tiny(concurrent_games=16, simulations=16, cheap_simulations=3, full_search_prob=0.25)
    sp, spy = started(cfg)
    recorded = full_total = 0
    for _ in range(30):
        moves, _ = sp.step(uniform_evaluator)
        run = spy.runs[-1]
        sims, explore = run["kwargs"]["simulations"], run["kwargs"]["explore"]
        assert set(sims[explore]) <= {16} and set(sims[~explore]) <= {3}
        assert {m[0] for m in moves} == set(np.flatnonzero(explore))  # recorded: exactly the full searches
        recorded += len(moves)
        full_total += explore.sum()
    assert 0.15 < recorded / (30 * 16) < 0.35  # about full_search_prob of the moves
    assert recorded == full_total


def test_cheap_searches_have_no_root_noise_and_spend_their_cap():
    cfg = tiny(concurrent_games=16, simulations=40, cheap_simulations=4, full_search_prob=0.5)
    sp, spy = started(cfg)
    sp.step(uniform_evaluator)
    explore = spy.runs[0]["kwargs"]["explore"]
    counts = spy.runs[0]["counts"]
    assert set(counts[explore].sum(axis=1)) == {39} and set(counts[~explore].sum(axis=1)) == {3}  # fresh roots
    assert explore.any() and (~explore).any()


def test_playout_cap_runs_resume_exactly(tmp_path):
    cfg = tiny(simulations=12, cheap_simulations=2, full_search_prob=0.5, max_steps=16, checkpoint_every=8)
    resumed = run_and_resume(cfg, tmp_path)
    assert resumed.positions < 16 * 8 * 0.8  # about half the moves are not recorded


# ---- forced playouts ------------------------------------------------------------------------------
def test_forced_playouts_record_the_pruned_policy():
    cfg = tiny(simulations=48, forced_playouts=2.0)
    sp, spy = started(cfg)
    assert sp.mcts.forced_playouts == 2.0
    for _ in range(3):
        moves, _ = sp.step(uniform_evaluator)
        run = spy.runs[-1]
        for i, _planes, _mask, policy, _mover, _ in moves:
            np.testing.assert_array_equal(policy, run["pruned"][i])
    assert SelfPlay(tiny()).mcts.forced_playouts == 0.0


# ---- the agent ------------------------------------------------------------------------------------
def test_agent_gumbel_search():
    env = zerogym.make("connect_four")
    env.reset(seed=0)
    for column in (0, 0, 1, 1, 2, 2):
        env.step(column)
    acts = set()
    for seed in range(4):
        agent = AlphaZeroAgent(uniform_evaluator, simulations=64, search="gumbel", seed=seed)
        acts.add(agent.act(env))
        assert agent.last_policy.sum() == pytest.approx(1.0, abs=1e-5)
    assert acts == {3}  # the win, whatever the seed: temperature 0 means no Gumbel noise
    state = zerogym.make_state("go", board_size=5)
    sampled = {
        AlphaZeroAgent(uniform_evaluator, simulations=4, search="gumbel", temperature=1.0, seed=s).search(state)[0]
        for s in range(8)
    }
    assert len(sampled) > 2
    with pytest.raises(ValueError, match="search must be one of"):
        AlphaZeroAgent(uniform_evaluator, search="gumble")
    with pytest.raises(ValueError, match="dirichlet noise is for search='puct'"):
        AlphaZeroAgent(uniform_evaluator, search="gumbel", dirichlet=True)


@pytest.mark.parametrize("flag", ["decisive_moves", "solver"])
def test_a_run_with_a_search_flag_searches_and_saves_an_agent_with_it(tmp_path, flag):
    tr = AlphaZeroTrainer(tiny(max_steps=8, **{flag: True}), tmp_path, log_dir=False)
    assert getattr(tr.selfplay.mcts, flag)
    tr.run(progress=False)
    assert tr.agent_options() == {"simulations": 12, flag: True}
    assert getattr(load_agent(tmp_path / AGENT).settings, flag) is True
