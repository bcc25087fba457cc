"""AlphaZero trainer with overlap_sgd: SGD on a second thread beside self-play, with batches drawn one
step earlier, reproducible, resumable, and taken back with a step cut short."""

import time

import numpy as np
import pytest
import torch

from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
from zerogym_agents.training.interrupt import OutOfTime
from .conftest import run_and_resume
from tiny_runs import alphazero_config


def tiny(**over):
    return alphazero_config({"max_steps": 24, "min_buffer": 32}, **over)


def same_weights(a, b):
    return all(torch.equal(v, b.net.state_dict()[k]) for k, v in a.net.state_dict().items())


def steps_until_sgd(cfg, tmp_path):
    """The trainer after each train_step up to and including the first with SGD, and that step's index."""
    tr = AlphaZeroTrainer(cfg, tmp_path, log_dir=False)
    while tr.train_steps == 0:
        tr.train_step()
    return tr, tr.step


def test_overlapped_sgd_trains_on_the_batches_of_one_step_earlier(tmp_path):
    """Self-play is unchanged up to the first SGD, and the overlapped run's first SGD, a step later, is
    the serial run's exactly: same batches, same learning rate, same weights."""
    serial, k = steps_until_sgd(tiny(overlap_sgd=False), tmp_path / "serial")
    overlapped, k_overlapped = steps_until_sgd(tiny(overlap_sgd=True), tmp_path / "overlapped")
    assert k_overlapped == k + 1
    assert overlapped.train_steps == serial.train_steps
    assert same_weights(serial, overlapped)
    assert overlapped.actor is not overlapped.net and serial.actor is serial.net


def test_self_play_searches_with_the_weights_the_step_started_with(tmp_path):
    tr, _ = steps_until_sgd(tiny(overlap_sgd=True), tmp_path)
    learner = {k: v.clone() for k, v in tr.net.state_dict().items()}
    actor_before = {k: v.clone() for k, v in tr.actor.state_dict().items()}
    assert any(not torch.equal(actor_before[k], v) for k, v in learner.items())  # the actor lags one step
    tr.train_step()
    assert all(torch.equal(v, learner[k]) for k, v in tr.actor.state_dict().items())


def test_an_overlapped_run_is_reproducible_with_any_number_of_search_threads(tmp_path):
    runs = []
    for threads in (1, 2, 2):
        tr = AlphaZeroTrainer(tiny(overlap_sgd=True, threads=threads), tmp_path / f"{len(runs)}", log_dir=False)
        tr.run(progress=False)
        runs.append(tr)
    assert runs[0].train_steps > 0
    assert same_weights(runs[0], runs[1]) and same_weights(runs[1], runs[2])
    assert runs[0].games == runs[1].games == runs[2].games


@pytest.mark.parametrize("overlap_sgd", [True, False])
def test_an_overlapped_or_serial_run_resumes_exactly(tmp_path, overlap_sgd):
    resumed = run_and_resume(tiny(overlap_sgd=overlap_sgd), tmp_path, cut_at=12)
    assert resumed.train_steps > 0


def test_a_step_cut_short_by_the_time_limit_takes_back_its_sgd(tmp_path):
    tr, _ = steps_until_sgd(tiny(overlap_sgd=True), tmp_path)
    weights = {k: v.clone() for k, v in tr.net.state_dict().items()}
    momentum = [s["momentum_buffer"].clone() for s in tr.opt.state.values()]
    uses, rng = tr.replay.uses.copy(), tr.replay.rng.bit_generator.state
    counts, losses = tr.counters(), list(tr._losses)
    tr.until = time.perf_counter() - 1  # already past: the search stops at its first evaluator call
    with pytest.raises(OutOfTime):
        tr.train_step()
    tr.until = None
    assert all(torch.equal(v, weights[k]) for k, v in tr.net.state_dict().items())
    assert all(torch.equal(s["momentum_buffer"], m) for s, m in zip(tr.opt.state.values(), momentum))
    np.testing.assert_array_equal(tr.replay.uses, uses)
    assert tr.replay.rng.bit_generator.state == rng
    assert tr.counters() == counts and tr._losses == losses


def test_an_error_in_the_sgd_thread_reaches_the_caller_after_self_play(tmp_path, monkeypatch):
    tr, _ = steps_until_sgd(tiny(overlap_sgd=True), tmp_path)

    def broken(batches, lr):
        raise FloatingPointError("the loss is not finite")

    monkeypatch.setattr(tr, "_sgd", broken)
    step = tr.step
    with pytest.raises(FloatingPointError, match="not finite"):
        tr.train_step()
    assert tr.step == step + 1  # self-play finished its step before the error was raised


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_overlapped_sgd_on_cuda_matches_the_serial_first_step(tmp_path):
    serial, _ = steps_until_sgd(tiny(overlap_sgd=False, device="cuda"), tmp_path / "serial")
    overlapped, _ = steps_until_sgd(tiny(overlap_sgd=True, device="cuda"), tmp_path / "overlapped")
    for k, v in serial.net.state_dict().items():
        torch.testing.assert_close(v, overlapped.net.state_dict()[k])
