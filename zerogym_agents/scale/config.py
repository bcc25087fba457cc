"""RayConfig: how a training run is spread over Ray workers (saved beside the run's checkpoint)."""

from __future__ import annotations

from dataclasses import dataclass

from zerogym_agents.core.config_io import Integer, JsonConfig, Maybe, Number, OneOf, Text, setting

# the modes and what each gives
MODES = {
    "async": "workers never wait for the learner (resumes with no data lost, not bit for bit)",
    "deterministic": "lockstep rounds, resumes bit for bit",
}


@dataclass
class RayConfig(JsonConfig):
    """The ray backend's settings; the training itself is the AlphaZeroConfig's or PGConfig's."""

    workers: int = setting(2, Integer(1), "self-play (or rollout) actors, one worker slot each")
    address: str | None = setting(
        None,
        Maybe(Text("a Ray address", empty=False)),
        "None: a local Ray instance on this machine; 'auto': the cluster of `ray start --head`",
    )
    mode: str = setting("async", OneOf(MODES), "; ".join(f"{mode}: {gives}" for mode, gives in MODES.items()))
    steps_per_task: int = setting(8, Integer(1), "AlphaZero: search steps of the worker's G games per task")
    max_inflight: int = setting(2, Integer(1, 2), "tasks queued or running per worker, at most")
    publish_every: int | None = setting(
        None,
        Maybe(Integer(1)),
        "async: tasks consumed between two weight versions (None: one per worker, so a "
        "task's weights are about max_inflight versions old when it is consumed)",
    )
    samples_per_position: float = setting(
        4.0, Number(above=0), "AlphaZero: SGD samples per new self-play position, at most (KataGo ~4)"
    )
    cpus_per_worker: float = setting(1.0, Number(above=0), "CPUs each worker declares (and torch threads)")
    gpus_per_worker: float = setting(0.0, Number(0), "GPUs (or a share of one) each worker declares")
