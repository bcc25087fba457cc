"""PPO with its games on Ray actors (`zerogym train pg --algo ppo --backend ray --workers N`).

The same split as `--backend local --workers N` (pg/worker_vec_env.py): each actor is a PoolShard
(its share of the num_envs games and a mirror of the driver's pool) and MaskablePPO steps them in
lockstep from the driver, so a run gives the same numbers on Ray actors as on local processes with
the same worker count, and resumes bit for bit. Of RayConfig, PPO uses workers, address and
cpus_per_worker (the actors' torch threads); the other fields are the AlphaZero backend's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from zerogym_agents.pg.ppo import PPOTrainer
from zerogym_agents.scale import runtime

if TYPE_CHECKING:
    from zerogym_agents.scale.config import RayConfig


class RayWorkers:
    """PoolShards as Ray actors (one per entry of shard_args), with env_workers.ProcessWorkers'
    send / recv / close."""

    def __init__(self, shard_args: Sequence[Sequence[Any]], ray_config: RayConfig) -> None:
        from zerogym_agents.pg.env_workers import PoolShard

        self.ray = runtime.start(ray_config.address)
        actor = runtime.actor_class(PoolShard, ray_config.cpus_per_worker)
        threads = runtime.worker_threads(ray_config.cpus_per_worker)
        self.actors = [actor.remote(*args[:-1], threads) for args in shard_args]
        self.refs: list[Any] = [None] * len(self.actors)

    def __len__(self) -> int:
        return len(self.actors)

    def send(self, k: int, method: str, *args: Any) -> None:
        self.refs[k] = self.actors[k].call.remote(method, *args)

    def recv(self, k: int) -> Any:
        ref, self.refs[k] = self.refs[k], None
        try:
            return self.ray.get(ref)
        except self.ray.exceptions.RayActorError as err:
            raise RuntimeError(
                f"env worker {k} (a Ray actor) died: {err}; the run can resume from its last checkpoint"
            ) from None

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)
        self.actors = []


class RayPPOTrainer(runtime.RayBackend, PPOTrainer):
    """PPOTrainer whose games are played by RayConfig.workers actors (see the module docstring); built
    with the trainer's arguments and ray_config (runtime.RayBackend)."""

    def _prepare(self) -> dict[str, Any]:
        return {"workers": self.ray_cfg.workers}

    def _in_process(self) -> bool:
        return False

    def _start_workers(self, shard_args: list[tuple[Any, ...]]) -> RayWorkers:
        return RayWorkers(shard_args, self.ray_cfg)

    def run_name(self) -> str:
        return f"{self.cfg.algo} {self.cfg.game} (ray, {self.workers} workers)"
