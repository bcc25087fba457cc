"""WorkerPoolVecEnv: PoolVecEnv's games split over worker processes (or Ray actors), one SB3 VecEnv.

The driver's OpponentPool stays the run's pool (SnapshotCallback adds to it, checkpoints save it);
each worker holds a PoolShard (env_workers.py): its share of the games and a MirrorPool. Every
reset and step sends each worker the pool as it is then (names, Elos, the learner's Elo, and the
snapshots it does not have yet, once), so a snapshot added after a step is drawable from the next
one, as in PoolVecEnv. Workers draw opponents from their own generators and update their mirror's
Elo as their games end within a step; the driver then replays every worker's results on its pool in
worker order. Steps are lockstep, so a seeded run depends on its config and number of workers only,
never on which worker answers first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from zerogym_agents.core.file_checks import Any as AnyValue
from zerogym_agents.core.file_checks import Context, Fields, Int, ListOf, RngState, Spec
from zerogym_agents.pg.base import seed_for
from zerogym_agents.pg.pool_vec_env import PoolVecEnv, games_schema

if TYPE_CHECKING:
    import torch

    from zerogym_agents.pg.config import PGConfig
    from zerogym_agents.pg.env_workers import Results, Sync
    from zerogym_agents.training.pool import OpponentPool

POOL_SEED, GAMES_SEED = 5, 6  # seed_for(run seed, purpose, worker) purposes


class EnvWorkers(Protocol):
    """What WorkerPoolVecEnv speaks to: env_workers.ProcessWorkers, or scale.ppo.RayWorkers."""

    def send(self, k: int, method: str, *args: Any) -> None: ...

    def recv(self, k: int) -> Any: ...

    def close(self) -> None: ...


def check_workers(workers: int, num_envs: int) -> int:
    """`workers` as an int, or ValueError saying what is allowed."""
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1 (the processes that play PPO's games), got {workers!r}")
    if workers > num_envs:
        raise ValueError(
            f"workers ({workers}) must be at most num_envs ({num_envs}): each worker plays a share of "
            f"the games (raise num_envs, e.g. --set num_envs={workers * 8})"
        )
    return int(workers)


class WorkerPoolVecEnv(VecEnv):
    """cfg.num_envs games of PGConfig `cfg` against `pool`, split over `workers` (np.array_split
    shares, in order: worker k plays games bounds[k]:bounds[k+1]). start(shard_args) starts the
    workers (default env_workers.ProcessWorkers; each runs torch on one thread). Worker k's draws are
    seeded by seed_for(cfg.seed, 5, k); reset() seeds its games with seed_for(s, 6, k), s being the
    seed SB3 passed to seed() (else cfg.seed). wins, draws, losses count all workers' games."""

    observation_space: spaces.Box  # the learner's planes (H, W, C)

    def __init__(
        self,
        cfg: PGConfig,
        pool: OpponentPool,
        workers: int,
        start: Callable[[list[tuple[Any, ...]]], EnvWorkers] | None = None,
        threads: int = 1,
    ) -> None:
        import zerogym.vector
        from zerogym_agents.pg.env_workers import ProcessWorkers

        n = cfg.num_envs
        self.workers = check_workers(workers, n)
        probe = zerogym.vector.make(cfg.game, 1, **dict(cfg.game_kwargs))
        self.spec, self.template = probe.spec, probe.template
        h, w, c = probe.spec.obs_shape
        self.sizes = [len(part) for part in np.array_split(np.arange(n), self.workers)]
        self.bounds = np.cumsum([0] + self.sizes)
        self.pool, self.seed_base = pool, cfg.seed
        self.wins = self.draws = self.losses = 0
        self._sent: set[str] = set()  # pool snapshots the workers hold
        self._masks = np.ones((n, probe.num_actions), bool)
        super().__init__(n, spaces.Box(0, 1, (h, w, c), np.int8), spaces.Discrete(probe.num_actions))
        args = [
            (cfg.to_json(), size, seed_for(cfg.seed, POOL_SEED, k), seed_for(cfg.seed, GAMES_SEED, k), threads)
            for k, size in enumerate(self.sizes)
        ]
        self.remote: EnvWorkers = (start or ProcessWorkers)(args)

    # ---- the pool, sent along ---------------------------------------------------------------
    def _sync(self) -> Sync:
        names = list(self.pool.entries)
        new = {name: self.pool.entries[name][0] for name in names if name not in self._sent}
        self._sent = set(names)
        return {
            "names": names,
            "elos": [e[1] for e in self.pool.entries.values()],
            "learner_elo": self.pool.learner_elo,
            "new": new,
        }

    def _ask(self, method: str, per_worker: Sequence[Sequence[Any]]) -> list[Any]:
        """Send `method` with per_worker[k]'s arguments to every worker, then collect the answers in order."""
        for k, args in enumerate(per_worker):
            self.remote.send(k, method, *args)
        return [self.remote.recv(k) for k in range(self.workers)]

    def _record(self, results: Results) -> None:
        for name, score in results:
            if name in self.pool.entries:
                self.pool.record(name, score)

    # ---- the games ----------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        base = self._seeds[0] if self._seeds[0] is not None else self.seed_base
        sync = self._sync()
        answers = self._ask(
            "reset", [(sync, None if base is None else seed_for(base, GAMES_SEED, k)) for k in range(self.workers)]
        )
        self._reset_seeds()
        for _, _, results in answers:
            self._record(results)
        self._masks = np.concatenate([a[1] for a in answers])
        return np.concatenate([a[0] for a in answers])

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        sync = self._sync()
        for k in range(self.workers):
            self.remote.send(k, "step", sync, actions[self.bounds[k] : self.bounds[k + 1]].copy())

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        answers = [self.remote.recv(k) for k in range(self.workers)]
        infos: list[dict[str, Any]] = []
        for _, _, _, worker_infos, _, results in answers:
            self._record(results)
            infos.extend(worker_infos)
        for info in infos:
            if "result" in info:
                self.wins += info["result"] > 0
                self.losses += info["result"] < 0
                self.draws += info["result"] == 0
        self._masks = np.concatenate([a[4] for a in answers])
        obs, rewards, dones = (np.concatenate([a[i] for a in answers]) for i in range(3))
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """bool (num_envs, A): the learner's legal moves in each game."""
        return self._masks.copy()

    # ---- checkpoints --------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """{"env_workers": workers, "shards": each worker's PoolShard.state_dict()}."""
        sync = self._sync()
        return {"env_workers": self.workers, "shards": self._ask("state_dict", [(sync,)] * self.workers)}

    def state_schema(self, net_state: Mapping[str, torch.Tensor]) -> Spec:
        """A zerogym_agents.core.file_checks spec of state_dict()'s output for this env's shares of the games."""
        return _Shards(
            Int(1),
            [
                Fields({"games": games_schema(self.template, size, net_state), "pool_rng": RngState()})
                for size in self.sizes
            ],
        )

    def load_state_dict(self, data: Mapping[str, Any]) -> None:
        """Restore state_dict()'s output (checked with state_schema) after the driver's pool was restored."""
        self._sent = set()
        sync = self._sync()
        answers = self._ask("load_state_dict", [(sync, shard) for shard in data["shards"]])
        self._masks = np.concatenate([a[1] for a in answers])
        self.wins, self.draws, self.losses = (
            sum(int(s["games"]["results"][i]) for s in data["shards"]) for i in range(3)
        )

    def worker_pools(self) -> list[tuple[list[str], list[float], float, list[Any]]]:
        """Each worker's pool mirror, brought up to date first: (names, Elos, learner Elo, snapshots)."""
        sync = self._sync()
        return self._ask("pool_entries", [(sync,)] * self.workers)

    def close(self) -> None:
        self.remote.close()

    # the rest of the VecEnv interface, as PoolVecEnv answers it
    get_attr, set_attr, env_is_wrapped, _indices = (
        PoolVecEnv.get_attr,
        PoolVecEnv.set_attr,
        PoolVecEnv.env_is_wrapped,
        PoolVecEnv._indices,
    )
    env_method = PoolVecEnv.env_method


class _Shards(Spec):
    """Spec of WorkerPoolVecEnv.state_dict(): the worker count, then each shard by its own schema."""

    what = "a dict"

    def __init__(self, count: Spec, shard_specs: list[Spec]) -> None:
        self.count, self.shard_specs = count, shard_specs

    def check(self, value: Any, ctx: Context, where: str) -> Any:
        self.count.check(value.get("env_workers"), ctx, f"{where}.env_workers")
        shards = ListOf(AnyValue(), length=len(self.shard_specs)).check(value.get("shards"), ctx, f"{where}.shards")
        return {
            **value,
            "shards": [
                spec.check(s, ctx, f"{where}.shards[{k}]") for k, (spec, s) in enumerate(zip(self.shard_specs, shards))
            ],
        }
