"""REINFORCE with its rollouts on Ray actors (`zerogym train pg --backend ray`).

REINFORCE is on-policy: each update's num_envs games are played with the learner's current weights.
So every update is one lockstep round: the games are split over the workers (slot k plays its share
of the seats), each worker plays them through the vector path against the opponent the driver drew
from the pool, and the driver joins the episodes (in slot order) and takes the gradient step. Weights
go out with one ray.put per update, an opponent with one per draw, and a worker fetches only what
changed. A worker's random stream derives from (run seed, update, slot), so a run is a function of
its config and its number of workers, and resumes exactly. PPO's games on Ray actors: scale/ppo.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from zerogym_agents.training.run_folder import LogDir
from zerogym_agents.pg.base import PGTrainer, seed_for
from zerogym_agents.pg.reinforce import ReinforceTrainer
from zerogym_agents.pg.rollout import Episodes
from zerogym_agents.scale import runtime

if TYPE_CHECKING:
    from zerogym.vector import VectorEnv
    from zerogym_agents.agents.policy import PolicyAgent
    from zerogym_agents.pg.config import PGConfig, PGConfigLike
    from zerogym_agents.scale.config import RayConfig


def ray_pg_trainer(cfg: PGConfig, ray_config: RayConfig | dict[str, Any] | None) -> Callable[..., PGTrainer]:
    """make_trainer(cfg, out, resume=...) for `zerogym train pg --backend ray`: RayReinforceTrainer,
    or scale.ppo.RayPPOTrainer for algo "ppo"."""
    trainer: Callable[..., PGTrainer] = RayReinforceTrainer
    if cfg.algo == "ppo":
        from zerogym_agents.pg.worker_vec_env import check_workers
        from zerogym_agents.scale.config import RayConfig
        from zerogym_agents.scale.ppo import RayPPOTrainer as trainer

        rc = RayConfig.coerce(ray_config)
        check_workers(rc.workers, cfg.num_envs)  # refused before the run folder is made

    def make(config: PGConfigLike, out: str, resume: bool = False, log_dir: LogDir = None) -> PGTrainer:
        return trainer(config, out, resume=resume, log_dir=log_dir, ray_config=ray_config)

    return make


class RolloutWorker:
    """A rollout actor: the learner and the opponent as PolicyAgents over nets of its own."""

    def __init__(self, config_json: str, threads: int = 1) -> None:
        import torch

        from zerogym_agents.pg.config import PGConfig

        torch.set_num_threads(threads)
        self.cfg = PGConfig.from_json(config_json)
        self.venvs: dict[int, VectorEnv] = {}
        self.version: int | None = None
        self.opponent: str | None = None
        self.learner: PolicyAgent | None = None
        self.opp: PolicyAgent | None = None
        self.fetches = 0

    def _nets(self, task: Mapping[str, Any]) -> None:
        import ray
        import torch

        from zerogym_agents.agents.policy import PolicyAgent
        from zerogym_agents.pg.opponents import frozen_net

        if task["version"] != self.version:
            snap = ray.get(task["weights"][0])
            if self.learner is None:
                with torch.random.fork_rng(devices=[]):
                    self.learner = PolicyAgent(frozen_net(snap), greedy=False)
            else:
                self.learner.net.load_state_dict(snap["state_dict"])
            self.version = task["version"]
            self.fetches += 1
        if task["opponent"] != self.opponent:
            snap = ray.get(task["opponent_weights"][0])
            if self.opp is None:
                with torch.random.fork_rng(devices=[]):
                    self.opp = PolicyAgent(frozen_net(snap), greedy=self.cfg.opponent_greedy)
            else:
                self.opp.net.load_state_dict(snap["state_dict"])
            self.opponent = task["opponent"]

    def rollout(self, task: Mapping[str, Any]) -> Episodes:
        import zerogym.vector
        from zerogym_agents.pg.rollout import play_episodes

        self._nets(task)
        assert self.learner is not None and self.opp is not None  # made by _nets for the first task
        cfg, n = self.cfg, len(task["seats"])
        if n not in self.venvs:
            self.venvs[n] = zerogym.vector.make(cfg.game, n, copy=False, **cfg.game_kwargs)
        rng = np.random.default_rng(task["seed"])
        return play_episodes(
            self.venvs[n],
            self.learner.logits,
            self.opp.logits,
            task["seats"],
            rng,
            gamma=cfg.gamma,
            opponent_greedy=cfg.opponent_greedy,
        )


def join_episodes(parts: Sequence[Episodes]) -> Episodes:
    """One Episodes of the parts' games in order (game indices shifted)."""
    offsets = np.cumsum([0] + [len(p.results) for p in parts[:-1]])
    joined = {
        f: np.concatenate([getattr(p, f) for p in parts])
        for f in ("planes", "masks", "actions", "logp", "returns", "results", "lengths", "seats")
    }
    return Episodes(games=np.concatenate([p.games + o for p, o in zip(parts, offsets)]), **joined)


class RayReinforceTrainer(runtime.RayBackend, ReinforceTrainer):
    """ReinforceTrainer whose games are played by RayConfig.workers rollout actors (module docstring);
    built with the trainer's arguments and ray_config (runtime.RayBackend)."""

    def _prepare(self) -> dict[str, Any]:
        self.actors: list[Any] | None = None  # RolloutWorker actors' handles, once started
        self._opponent_ref: tuple[str | None, Any] = (None, None)
        self.lost_tasks = 0
        return {}

    def _check_workers(self) -> None:
        if self.ray_cfg.workers > self.cfg.num_envs:
            raise ValueError(
                f"RayConfig.workers ({self.ray_cfg.workers}) must be at most num_envs "
                f"({self.cfg.num_envs}): each worker plays a share of the games"
            )

    def run_name(self) -> str:
        return f"{super().run_name()} (ray, {self.ray_cfg.workers} workers)"

    def _actor(self) -> Any:
        rc = self.ray_cfg
        return self._actor_class.remote(self.cfg.to_json(), runtime.worker_threads(rc.cpus_per_worker))

    def play(self) -> Episodes:
        from zerogym_agents.pg.opponents import snapshot

        cfg, rc = self.cfg, self.ray_cfg
        if self.actors is None:
            runtime.start(rc.address)
            self._actor_class = runtime.actor_class(RolloutWorker, rc.cpus_per_worker)
            self.actors = [self._actor() for _ in range(rc.workers)]
        self.opponent.reset()  # draws the opponent as the local trainer does
        name = self.opponent.current
        assert name is not None  # reset() drew one
        if self._opponent_ref[0] != name:
            self._opponent_ref = (name, self.ray.put(self.pool.entries[name][0]))
        weights = self.ray.put(snapshot(self.net))
        seats = (np.arange(cfg.num_envs) + self.step) % 2
        tasks = [
            {
                "version": self.step,
                "weights": [weights],
                "opponent": name,
                "opponent_weights": [self._opponent_ref[1]],
                "seats": part,
                "seed": seed_for(cfg.seed, 4, self.step, k),
            }
            for k, part in enumerate(np.array_split(seats, rc.workers))
        ]
        refs = [actor.rollout.remote(task) for actor, task in zip(self.actors, tasks)]
        parts = []
        for k, task in enumerate(tasks):
            while True:
                try:
                    parts.append(self.ray.get(refs[k]))
                    break
                except self.ray.exceptions.RayActorError:  # a dead worker: a new one plays its share again
                    self.lost_tasks += 1
                    self.actors[k] = self._actor()
                    refs[k] = self.actors[k].rollout.remote(task)
        episodes = join_episodes(parts)
        for result in episodes.results:
            self.opponent.record((float(result) + 1.0) / 2.0)
        return episodes

    def close(self) -> None:
        for actor in self.actors or []:
            self.ray.kill(actor)
        self.actors = None
