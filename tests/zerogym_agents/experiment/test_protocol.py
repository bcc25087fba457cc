"""Every registered algorithm's trainer is a TrainingRun: it trains in slices, saves, resumes from its
checkpoint, counts, and gives its current agent."""

import json
import os

import pytest
import torch

import zerogym
from zerogym_agents.experiment import ALGORITHMS, CHECKPOINT, TrainingRun, algorithm
from zerogym_agents.pg.config import ALGOS as PG_ALGOS
from zerogym_agents.agents.saved import load_agent, save_agent


def build(tiny, name, folder, resume=False, **fields):
    fields = {**tiny[name], "game": "connect_four", "max_steps": 6, **fields}
    return algorithm(name).build({**algorithm(name).defaults, **fields}, folder, resume=resume, log_dir=False)


def weights(net):
    return {k: v.clone() for k, v in net.state_dict().items()}


COUNTERS = {
    "alphazero": {"search_steps", "self_play_games", "positions", "sgd_steps"},
    "reinforce": {"updates", "episodes", "learner_moves", "pool_elo"},
}


def agent_net(agent):
    return agent.evaluator.net if hasattr(agent, "evaluator") else agent.net


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_a_trainer_is_a_training_run(name, tmp_path, tiny):
    run = build(tiny, name, tmp_path)
    assert isinstance(run, TrainingRun)
    assert run.step == 0 and run.cfg.checkpoint_every == 2 and run.cfg.max_steps == 6
    counters = run.counters()
    assert set(counters) == COUNTERS.get(name, COUNTERS["reinforce"] if name in PG_ALGOS else set(counters))
    assert json.loads(json.dumps(counters)) == counters
    seconds = run.train_for(3, 0.0)
    assert run.step == 3 and seconds > 0 and run.last_cpu > 0
    assert run.counters() != counters
    assert os.path.isfile(tmp_path / CHECKPOINT)  # saved by itself at step 2
    run.save()  # and now at step 3
    before = run.agent(seed=0)
    frozen = weights(agent_net(before))
    run.train_for(3, seconds)
    assert run.step == 6
    assert all(torch.equal(v, agent_net(before).state_dict()[k]) for k, v in frozen.items()), "the agent is a copy"
    again = build(tiny, name, tmp_path, resume=True)  # the checkpoint at max_steps
    assert again.step == 6 and again.counters() == run.counters()
    assert all(torch.equal(v, again.net.state_dict()[k]) for k, v in run.net.state_dict().items())
    env = zerogym.make("connect_four")
    env.reset(seed=0)
    assert env.unwrapped.state.legal_mask()[run.agent(seed=0).act(env)] == 1
    path = str(tmp_path / "final.pt")  # saved and loaded as the harness does
    save_agent(path, run.net, run.agent_options(), {"game": "connect_four"}, kind=run.agent_kind)
    assert type(load_agent(path)) is type(run.agent())
    assert isinstance(run.history, list) and run.history
    assert run.net.config.to_dict() and run.net.num_parameters() > 0 and run.cfg.to_dict()["max_steps"] == 6


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_a_run_resumed_from_its_checkpoint_is_the_run_that_was_not_stopped(name, tmp_path, tiny):
    # bit for bit on the CPU; a GPU's default kernels need not be deterministic (docs/scale.md, Devices)
    whole = build(tiny, name, tmp_path / "whole", max_steps=4, device="cpu")
    whole.train_for(4)
    cut = build(tiny, name, tmp_path / "cut", max_steps=4, device="cpu")
    cut.train_for(2)  # a checkpoint step: the harness stops only there
    del cut
    cut = build(tiny, name, tmp_path / "cut", resume=True, max_steps=4, device="cpu")
    assert cut.step == 2
    cut.train_for(2)
    assert cut.counters() == whole.counters()
    assert all(torch.equal(v, whole.net.state_dict()[k]) for k, v in cut.net.state_dict().items())


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
    run.train_for(1, 10.0)  # the whole budget used: the last rate
    assert run.learning_rate() == pytest.approx(1e-4)
