"""TrainingRun: what the harness needs of a trainer. AlphaZeroTrainer and every policy-gradient
trainer (ReinforceTrainer, PPOTrainer) implement it; a new algorithm does too, and registers a
builder in algorithms.py (see docs/architecture.md, "Adding a training algorithm").

A run lives in one folder. Built with resume=False it starts afresh there; with resume=True it
continues exactly from the checkpoint it saved there (core.constants.CHECKPOINT), so that the harness can stop and
restart it anywhere: the budget loop only ever stops a run at a step whose checkpoint is written, or
writes one (save) first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from zerogym_agents.agents.base import Agent


@runtime_checkable
class TrainingRun(Protocol):
    """A trainer as the experiment harness drives it.

    - cfg: its config; the harness reads cfg.checkpoint_every (the trainer saves its checkpoint by
      itself every so many steps) and cfg.max_steps (it stops there).
    - step: steps done (one step: the trainer's unit of work, e.g. an AlphaZero search step of every
      self-play game, or a policy-gradient update); it saved its checkpoint at every multiple of
      cfg.checkpoint_every and at cfg.max_steps.
    - time_budget: None, or the training seconds of the run's whole budget, set by the harness in
      minutes mode (the learning-rate schedule then runs over the share of it used).
    - train_for(steps, time_used): train `steps` more steps (fewer at max_steps) with `time_used`
      seconds of the budget already spent; returns the wall-clock seconds taken and leaves the CPU
      seconds of the process in last_cpu (zerogym_agents.training.schedule.CosineSchedule provides both).
    - save(): write the checkpoint (atomically) at the current step.
    - net: the network being trained; history: a list of flat dicts of numbers (its training log).
    - counters(): a JSON-able dict of how far it is (steps, games, ...), for records and reports.
    - agent(seed=None, **options): the current net as a playing Agent, a copy that further
      training leaves as it is; agent_options() the options it plays with by default, and
      agent_kind the zerogym_agents.agents.saved kind ("alphazero" or "policy") to save it as.
    """

    cfg: Any
    step: int
    net: Any
    history: list[dict[str, Any]]
    time_budget: float | None
    last_cpu: float
    agent_kind: str

    def train_for(self, steps: int, time_used: float = 0.0) -> float: ...

    def save(self) -> None: ...

    def counters(self) -> dict[str, Any]: ...

    def agent(self, seed: int | None = None, **options: Any) -> Agent: ...

    def agent_options(self) -> dict[str, Any]: ...
