"""Budget (evaluation points, labels) and BudgetLoop (chunks, checkpoints, the end of a budget, resume),
driven through a fake run whose clock is exact."""

import math

import pytest

from zerogym_agents.experiment.budget import NO_STEP_CAP, Budget, BudgetLoop, ResumeError


class FakeRun:
    """A TrainingRun whose steps take `sps` seconds each, exactly; it saves every checkpoint_every steps
    and at max_steps, as the trainers do."""

    class cfg:
        checkpoint_every = 4
        max_steps = 10**9

    def __init__(self, sps=0.1, step=0, stall=False):
        self.sps, self.step, self.stall = sps, step, stall
        self.chunks, self.saves, self.last_cpu = [], [], 0.0

    def train_for(self, steps, time_used=0.0):
        steps = min(steps, self.cfg.max_steps - self.step)
        self.chunks.append((self.step, steps, time_used))
        if not self.stall:
            self.step += steps
        if self.step % self.cfg.checkpoint_every == 0 or self.step == self.cfg.max_steps:
            self.saves.append(self.step)
        self.last_cpu = 0.5 * steps * self.sps
        return steps * self.sps

    def save(self):
        self.saves.append(self.step)


def record():
    return {"steps": 0, "seconds": 0.0}


@pytest.mark.parametrize(
    "budget,targets,labels",
    [
        (Budget(steps=6, eval_every=2), [0, 2, 4, 6], ["0", "2", "4", "6"]),
        (Budget(steps=5, eval_every=2, eval_at_start=False), [2, 4, 5], ["2", "4", "5"]),
        (Budget(steps=3), [0, 3], ["0", "3"]),
        (
            Budget(minutes=30, eval_every=5),
            [0] + [300.0 * k for k in range(1, 7)],
            ["0min", "5min", "10min", "15min", "20min", "25min", "30min"],
        ),
        (Budget(minutes=0.1, eval_every=0.05), [0, 3.0, 6.0], ["0min", "0.05min", "0.1min"]),
        (Budget(minutes=7, eval_every=3, eval_at_start=False), [180.0, 360.0, 420.0], ["3min", "6min", "7min"]),
    ],
)
def test_evaluation_points_and_their_labels(budget, targets, labels):
    assert budget.targets() == targets
    assert [budget.label(t) for t in targets] == labels
    assert budget.total == targets[-1]


def test_a_budget_is_minutes_or_steps_and_caps_the_trainer_only_in_steps():
    assert Budget(steps=40).max_steps() == 40 and Budget(steps=40).unit == "steps"
    assert Budget(minutes=2).max_steps() == NO_STEP_CAP and Budget(minutes=2).unit == "seconds"
    assert Budget(minutes=2).to_dict() == {"minutes": 2, "steps": None, "eval_every": None, "eval_at_start": True}
    for bad in (
        dict(),
        dict(minutes=1, steps=1),
        dict(minutes=0),
        dict(steps=0),
        dict(steps=1.5),
        dict(steps=True),
        dict(minutes=1, eval_every=0),
    ):
        with pytest.raises(ValueError, match="Budget"):
            Budget(**bad)


def test_steps_are_spent_exactly_in_chunks_that_end_at_checkpoints():
    run, rec, saved = FakeRun(), record(), []
    loop = BudgetLoop(run, rec, "steps", on_checkpoint=lambda: saved.append(dict(rec)))
    loop.train_to(6)
    assert run.step == 6 == rec["steps"] and [(s, n) for s, n, _ in run.chunks] == [(0, 4), (4, 2)]
    assert [r["steps"] for r in saved] == [4]  # the record is saved with the trainer's checkpoint
    loop.save()  # step 6 is no checkpoint step: one is written
    assert run.saves == [4, 6] and loop.saved_at == 6
    assert loop.save() == 0.0 and run.saves == [4, 6]  # but only once
    loop.train_to(6)
    assert len(run.chunks) == 2  # nothing left to do
    assert math.isclose(rec["seconds"], 0.6) and math.isclose(rec["cpu_seconds"], 0.3)
    assert [t for _, _, t in run.chunks] == [0.0, pytest.approx(0.4)]  # the budget used so far, for the schedule


@pytest.mark.parametrize("end,steps", [("nearest", 10), ("reach", 11)])
def test_seconds_end_at_the_nearest_step_or_after_the_target(end, steps):
    run, rec = FakeRun(sps=0.1), record()
    run.cfg = type("cfg", (), {"checkpoint_every": 1000, "max_steps": 10**9})
    loop = BudgetLoop(run, rec, "seconds", end=end)
    loop.train_to(1.04)
    assert run.step == steps
    assert rec["seconds"] == pytest.approx(steps * 0.1)
    chunks = [n for _, n, _ in run.chunks]
    assert chunks[0] == 1 and max(chunks) > 1 and chunks[-1] == 1  # one step to time, halves, then step by step


def test_seconds_are_trained_in_chunks_of_at_most_chunk_seconds():
    run, rec = FakeRun(sps=0.01), record()
    run.cfg = type("cfg", (), {"checkpoint_every": 10**6, "max_steps": 10**9})
    BudgetLoop(run, rec, "seconds", chunk_seconds=0.5).train_to(4.0)
    assert max(n for _, n, _ in run.chunks) * 0.01 <= 0.5 + 1e-9
    assert rec["seconds"] == pytest.approx(4.0)


def test_on_chunk_gets_every_chunks_seconds():
    run, rec, seen = FakeRun(), record(), []
    BudgetLoop(run, rec, "steps", on_chunk=seen.append).train_to(6)
    assert seen == [pytest.approx(0.4), pytest.approx(0.2)]


def test_a_checkpoint_behind_the_record_is_refused():
    with pytest.raises(
        ResumeError,
        match=r"runs/x: the checkpoint \(step 4\) is behind the progress record "
        r"\(step 8\)",
    ):
        BudgetLoop(FakeRun(step=4), {"steps": 8, "seconds": 1.0}, "steps").reconcile("runs/x")


def test_steps_saved_after_the_last_record_get_an_estimated_time():
    rec = {"steps": 4, "seconds": 2.0, "estimated_seconds": 0.0}
    loop = BudgetLoop(FakeRun(step=8), rec, "seconds")
    loop.reconcile("x")
    assert rec["steps"] == 8 and rec["seconds"] == pytest.approx(4.0) and rec["estimated_seconds"] == pytest.approx(2.0)
    assert loop.saved_at == 8 and loop.save() == 0.0  # the checkpoint is at this step already


def test_without_a_time_per_step_yet_the_first_chunk_times_them():
    rec, run = {"steps": 0, "seconds": 0.0}, FakeRun(sps=0.25, step=4)
    loop = BudgetLoop(run, rec, "steps")
    loop.reconcile("x")
    loop.train_to(6)
    assert rec["seconds"] == pytest.approx(6 * 0.25) and rec["estimated_seconds"] == pytest.approx(1.0)


def test_a_trainer_that_makes_no_progress_stops_the_loop():
    with pytest.raises(RuntimeError, match="no progress"):
        BudgetLoop(FakeRun(stall=True), record(), "steps").train_to(2)


def test_bad_units_are_refused():
    with pytest.raises(ValueError, match="unit"):
        BudgetLoop(FakeRun(), record(), "minutes")
    with pytest.raises(ValueError, match="end"):
        BudgetLoop(FakeRun(), record(), "steps", end="soon")
