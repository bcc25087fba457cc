"""PPO with its games on Ray actors (`zerogym train pg --algo ppo --backend ray --workers N`).

The same split as `--backend local --workers N` (pg/worker_vec_env.py): each actor is a PoolShard
(its share of the num_envs games and a mirror of the driver's pool) and MaskablePPO steps them in
lockstep from the driver, so a run gives the same numbers on Ray actors as on local processes with
the same worker count, and resumes bit for bit. Of RayConfig, PPO uses workers, address and
cpus_per_worker (the actors' torch threads); the other fields are the AlphaZero backend's.
"""
from zerogym_agents.pg.ppo import PPOTrainer
from zerogym_agents.scale import runtime


class RayWorkers:
    """PoolShards as Ray actors (one per entry of shard_args), with env_workers.ProcessWorkers'
    send / recv / close."""

    def __init__(self, shard_args, ray_config):
        from zerogym_agents.pg.env_workers import PoolShard
        self.ray = runtime.start(ray_config.address)
        actor = runtime.actor_class(PoolShard, ray_config.cpus_per_worker)
        threads = runtime.worker_threads(ray_config.cpus_per_worker)
        self.actors = [actor.remote(*args[:-1], threads) for args in shard_args]
        self.refs = [None] * len(self.actors)

    def __len__(self):
        return len(self.actors)

    def send(self, k, method, *args):
        self.refs[k] = self.actors[k].call.remote(method, *args)

    def recv(self, k):
        ref, self.refs[k] = self.refs[k], None
        try:
            return self.ray.get(ref)
        except self.ray.exceptions.RayActorError as err:
            raise RuntimeError(f"env worker {k} (a Ray actor) died: {err}; the run can resume from its last "
                               f"checkpoint") from None

    def close(self):
        for actor in self.actors:
            self.ray.kill(actor)
        self.actors = []


class RayPPOTrainer(PPOTrainer):
    """PPOTrainer whose games are played by RayConfig.workers actors (see the module docstring)."""

    def __init__(self, config, out_dir, resume=False, log_dir=None, ray_config=None):
        from zerogym_agents.scale.config import RayConfig
        self.ray_cfg = ray_config if isinstance(ray_config, RayConfig) else RayConfig.from_dict(ray_config or {})
        runtime.require_ray()
        super().__init__(config, out_dir, resume=resume, log_dir=log_dir, workers=self.ray_cfg.workers)

    def _in_process(self):
        return False

    def _start_workers(self, shard_args):
        return RayWorkers(shard_args, self.ray_cfg)

    def run_name(self):
        return f"{self.cfg.algo} {self.cfg.game} (ray, {self.workers} workers)"
