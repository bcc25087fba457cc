"""Every registered algorithm's trainer is a TrainingRun: it trains in slices, saves, resumes from its
checkpoint, counts, and gives its current agent."""
import os

import pytest
import torch

import zerogym
from zerogym_agents.experiment import ALGORITHMS, CHECKPOINT, TrainingRun, algorithm
from zerogym_agents.saved import load_agent


def build(tiny, name, folder, resume=False, **fields):
    fields = {**tiny[name], "game": "connect_four", "max_steps": 6, **fields}
    return algorithm(name).build({**algorithm(name).defaults, **fields}, folder, resume=resume, log_dir=False)


def weights(net):
    return {k: v.clone() for k, v in net.state_dict().items()}


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_a_trainer_is_a_training_run(name, tmp_path, tiny):
    run = build(tiny, name, tmp_path)
    assert isinstance(run, TrainingRun)
    assert run.step == 0 and run.cfg.checkpoint_every == 2 and run.cfg.max_steps == 6
    counters = run.counters()
    assert set(counters) == ({"search_steps", "self_play_games", "positions", "sgd_steps"} if name == "alphazero"
                             else {"updates", "episodes", "learner_moves", "pool_elo"})
    seconds = run.train_for(3, 0.0)
    assert run.step == 3 and seconds > 0 and run.last_cpu > 0
    assert list(run.counters().values())[0] == 3
    assert os.path.isfile(tmp_path / CHECKPOINT)               # saved by itself at step 2
    run.save()                                                  # and now at step 3
    before = run.agent(seed=0)
    frozen = weights(before.evaluator.net if name == "alphazero" else before.net)
    run.train_for(3, seconds)
    assert run.step == 6
    after = before.evaluator.net if name == "alphazero" else before.net
    assert all(torch.equal(v, after.state_dict()[k]) for k, v in frozen.items()), "the agent is a copy"
    again = build(tiny, name, tmp_path, resume=True)                  # the checkpoint at max_steps
    assert again.step == 6 and again.counters() == run.counters()
    assert all(torch.equal(v, again.net.state_dict()[k]) for k, v in run.net.state_dict().items())
    env = zerogym.make("connect_four")
    env.reset(seed=0)
    assert env.unwrapped.state.legal_mask()[run.agent(seed=0).act(env)] == 1
    assert type(load_agent(str(tmp_path / "agent.pt"))) is type(run.agent())      # agent_kind, agent_options
    assert isinstance(run.history, list) and run.history


def test_agent_options_are_overridden_per_call(tmp_path, tiny):
    az = build(tiny, "alphazero", tmp_path / "az")
    assert az.agent_kind == "alphazero" and az.agent_options() == {"simulations": 8}
    assert az.agent().simulations == 8 and az.agent(simulations=3).simulations == 3
    pg = build(tiny, "ppo", tmp_path / "pg")
    assert pg.agent_kind == "policy" and pg.agent_options() == {"greedy": True}
    assert pg.agent().greedy and not pg.agent(greedy=False).greedy


def test_time_budget_drives_the_learning_rate(tmp_path, tiny):
    run = build(tiny, "reinforce", tmp_path, lr=1e-3, lr_final=1e-4)
    run.time_budget = 10.0
    run.train_for(1, 10.0)                                      # the whole budget used: the last rate
    assert run.learning_rate() == pytest.approx(1e-4)
