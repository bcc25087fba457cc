"""PPO through Stable-Baselines3: sb3-contrib's MaskablePPO against the pool (PoolVecEnv).

- PolicyValueNetPolicy: a MaskableActorCriticPolicy whose actor and critic are one
  zerogym_agents.nets.PolicyValueNet (policy logits, tanh value), the AlphaZero nets; a trained
  PPO agent is saved as a PolicyAgent (kind "policy"). Its predict() refuses to run without
  action_masks, so no prediction can pick an illegal move (sb3-contrib#212).
- SnapshotCallback: any SB3 algorithm pushes frozen snapshots of its policy into an OpponentPool
  every K learner moves or episodes; make_selfplay_env (opponents.py, any SB3 algorithm) or
  PoolVecEnv (pool_vec_env.py, the compiled vector path) plays them as the opponent.
- PPOTrainer: the `zerogym train pg --algo ppo` run (same config, logs and checkpoints as REINFORCE).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.distributions import MaskableDistribution, MaybeMasks
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.policies import BasePolicy
from stable_baselines3.common.type_aliases import Schedule

from zerogym_agents.training.run_folder import LogDir
from zerogym_agents.agents.base import Agent, game_state
from zerogym_agents.core.file_checks import Context, Spec
from zerogym_agents.nets import NetConfig, PolicyValueNet
from zerogym_agents.nets.model import layout_fields
from zerogym_agents.agents.policy import select_actions
from zerogym_agents.pg.base import PGTrainer, learning_mode, seed_for
from zerogym_agents.pg.opponents import SnapshotSchedule, snapshot

if TYPE_CHECKING:
    from zerogym_agents.pg.config import PGConfigLike
    from zerogym_agents.pg.pool_vec_env import PoolVecEnv
    from zerogym_agents.pg.worker_vec_env import EnvWorkers, WorkerPoolVecEnv
    from zerogym_agents.training.pool import OpponentPool

MASKS_NEEDED = (
    "PolicyValueNetPolicy.predict needs action_masks= (e.g. env.action_masks(), or "
    "sb3_contrib.common.maskable.utils.get_action_masks(vec_env)): without them it could pick an "
    "illegal move (sb3-contrib#212)"
)


def net_config_for_spaces(
    observation_space: spaces.Space, action_space: spaces.Space, net: NetConfig | Mapping[str, Any] | None = None
) -> NetConfig:
    """A NetConfig for a board observation Box (H, W, C) and Discrete actions, with `net` overrides
    (trunk, blocks, channels, ...; a dict or a NetConfig)."""
    if isinstance(net, NetConfig):
        return net
    if not isinstance(observation_space, spaces.Box) or len(observation_space.shape) != 3:
        raise ValueError(f"PolicyValueNetPolicy needs board observations, a Box (H, W, C); got {observation_space}")
    if not isinstance(action_space, spaces.Discrete):
        raise ValueError(f"PolicyValueNetPolicy needs Discrete actions, got {action_space}")
    h, w, c = observation_space.shape
    fit = {"in_planes": c, **layout_fields(h, w, int(action_space.n))}
    net = dict(net or {})
    clash = {k: net[k] for k in fit if k in net and net[k] != fit[k]}
    if clash:
        raise ValueError(f"net fields {clash} do not fit these spaces, which need {fit}")
    return NetConfig.from_dict({**net, **fit})


class PolicyValueNetPolicy(MaskableActorCriticPolicy):
    """MaskableActorCriticPolicy over one PolicyValueNet (self.net): the actor is its policy logits,
    the critic its value tanh(z) in [-1, 1], from the player to move's view (the learner's).

    policy_kwargs: net (NetConfig fields or a NetConfig; the game's fields come from the spaces),
    batchnorm_batch_stats (default False: BatchNorm keeps its running statistics while learning too,
    so the probability ratios of the first epoch are exactly 1), optimizer_class, optimizer_kwargs.
    Observations are SingleAgentEnv's int8 planes (H, W, C).
    """

    net: PolicyValueNet  # built by _build()

    def __init__(
        self,
        observation_space: spaces.Space,
        action_space: spaces.Space,
        lr_schedule: Schedule,
        net: NetConfig | Mapping[str, Any] | None = None,
        batchnorm_batch_stats: bool = False,
        **kwargs: Any,
    ) -> None:
        self.net_config = net_config_for_spaces(observation_space, action_space, net)
        self.batchnorm_batch_stats = bool(batchnorm_batch_stats)
        kwargs.setdefault("net_arch", [])
        kwargs["ortho_init"] = False  # the net has its own initialisation
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build(self, lr_schedule: Schedule) -> None:
        self.net = PolicyValueNet(self.net_config)
        # as SB3's own policies build theirs: optimizer_class is a subclass that takes lr
        self.optimizer = self.optimizer_class(
            self.parameters(),
            lr=lr_schedule(1),  # type: ignore[call-arg]
            **self.optimizer_kwargs,
        )

    def set_training_mode(self, mode: bool) -> None:
        if mode:
            learning_mode(self, self.batchnorm_batch_stats)
        else:
            self.eval()
        self.training = mode

    # the observations are board planes, one tensor, never a dict of them: the methods below take a Tensor
    # where SB3's PyTorchObs also allows a dict
    @staticmethod
    def _planes(obs: torch.Tensor) -> torch.Tensor:
        return obs.float().permute(0, 3, 1, 2).contiguous()

    def _distribution(self, logits: torch.Tensor, action_masks: MaybeMasks) -> MaskableDistribution:
        dist = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            dist.apply_masking(action_masks)
        return dist

    def forward(
        self, obs: torch.Tensor, deterministic: bool = False, action_masks: np.ndarray | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        logits, value = self.net(self._planes(obs))
        dist = self._distribution(logits, action_masks)
        actions = dist.get_actions(deterministic=deterministic)
        return actions, value[:, None], dist.log_prob(actions)

    def evaluate_actions(
        self, obs: torch.Tensor, actions: torch.Tensor, action_masks: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        logits, value = self.net(self._planes(obs))
        dist = self._distribution(logits, action_masks)
        return value[:, None], dist.log_prob(actions), dist.entropy()

    def get_distribution(
        self,
        obs: torch.Tensor,  # type: ignore[override]  # planes, never a dict
        action_masks: np.ndarray | None = None,
    ) -> MaskableDistribution:
        return self._distribution(self.net(self._planes(obs))[0], action_masks)

    def predict_values(self, obs: torch.Tensor) -> torch.Tensor:  # type: ignore[override]  # planes, never a dict
        return self.net(self._planes(obs))[1][:, None]

    def _predict(  # type: ignore[override]
        self, observation: torch.Tensor, deterministic: bool = False, action_masks: np.ndarray | None = None
    ) -> torch.Tensor:
        if action_masks is None:
            raise ValueError(MASKS_NEEDED)
        return self.get_distribution(observation, action_masks).get_actions(deterministic=deterministic)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["net"] = self.net_config.to_dict()
        data["batchnorm_batch_stats"] = self.batchnorm_batch_stats
        return data


class SB3PolicyAgent(Agent):
    """A frozen copy of any SB3 policy as a player: it reads the mover's observation and plays the
    argmax (greedy) or a sample of the policy's action logits (actor-critic policies) or Q-values
    (DQN-style q_net), over the legal actions only."""

    name = "sb3-policy"

    def __init__(self, policy: BasePolicy, greedy: bool = False, seed: int | None = None) -> None:
        super().__init__(seed)
        # built anew from its constructor arguments and weights, as SB3 saves and loads policies: a
        # deepcopy also copies what the last forward pass left behind (after learn(), the action
        # distribution's tensors are part of the autograd graph, which torch will not deepcopy)
        self.policy = type(policy)(**policy._get_constructor_parameters()).to(policy.device)
        self.policy.load_state_dict(policy.state_dict())
        self.policy.set_training_mode(False)
        self.policy.requires_grad_(False)
        self.greedy = bool(greedy)

    def act(self, env: Any) -> int:
        state = game_state(env)
        obs, _ = self.policy.obs_to_tensor(state.observation())
        policy: Any = self.policy  # read by what it has: an actor-critic's distribution or a q_net
        with torch.no_grad():
            if hasattr(policy, "get_distribution"):
                logits = policy.get_distribution(obs).distribution.logits
            elif hasattr(policy, "q_net"):
                logits = policy.q_net(obs)
            else:
                raise ValueError(f"SB3PolicyAgent cannot read action scores from a {type(policy).__name__}")
        return int(select_actions(logits.cpu().numpy(), state.legal_mask()[None], self.rng, self.greedy)[0])


def policy_snapshot(policy: BasePolicy, greedy: bool = False) -> dict[str, Any] | SB3PolicyAgent:
    """What a pool stores for an SB3 policy: snapshot(net) for a PolicyValueNetPolicy (cloned weights),
    else a frozen SB3PolicyAgent copy."""
    net = getattr(policy, "net", None)
    if isinstance(net, PolicyValueNet):
        return snapshot(net)
    return SB3PolicyAgent(policy, greedy=greedy)


class SnapshotCallback(BaseCallback):
    """Adds a frozen snapshot of model.policy to `pool` every `every` learner moves (unit="steps",
    counted over all envs as SB3's num_timesteps) or finished learner episodes (unit="episodes").
    Add a first snapshot yourself before learn(): the env draws an opponent when it resets."""

    def __init__(
        self, pool: OpponentPool, every: int, unit: str = "steps", greedy: bool = False, verbose: int = 0
    ) -> None:
        super().__init__(verbose)
        self.pool = pool
        self.schedule = SnapshotSchedule(every, unit)
        self.greedy = greedy
        self.episodes = 0

    def _on_step(self) -> bool:
        if self.schedule.unit == "episodes":
            self.episodes += int(np.sum(self.locals.get("dones", 0)))
            count = self.episodes
        else:
            count = self.num_timesteps
        if self.schedule.due(count):
            self.pool.add(policy_snapshot(self.model.policy, self.greedy), name=f"{self.schedule.unit}-{count}")
        return True


def _rng_tensor_state(state: tuple[str, np.ndarray, int, int, float]) -> dict[str, Any]:
    """numpy's legacy global RNG state as checkpoint data (the key array as a tensor)."""
    name, keys, pos, has_gauss, cached = state
    return {
        "name": name,
        "keys": torch.from_numpy(keys.astype(np.int64)),
        "pos": int(pos),
        "has_gauss": int(has_gauss),
        "cached": float(cached),
    }


def _rng_from_tensor_state(d: Mapping[str, Any]) -> tuple[str, np.ndarray, int, int, float]:
    return (d["name"], d["keys"].numpy().astype(np.uint32), d["pos"], d["has_gauss"], d["cached"])


def _workers_text(workers: int | None) -> str:
    return "one process (no env workers)" if workers is None else f"{workers} env worker(s)"


def _workers_option(workers: int | None) -> str:
    return "without --workers (or with --backend local --workers 1)" if workers is None else f"--workers {workers}"


class _PoolGames(Spec):
    """A checkpoint's games in progress: a PoolVecEnv's state (workers None, one process) or a
    WorkerPoolVecEnv's (workers: their number), with clear refusals of the other kind and of the
    list that checkpoints held before PPO played through PoolVecEnv."""

    def __init__(self, schema: Spec, workers: int | None = None) -> None:
        self.schema, self.workers, self.what = schema, workers, "the games of a PoolVecEnv"

    def check(self, value: Any, ctx: Context, where: str) -> Any:
        if isinstance(value, (list, tuple)):
            ctx.fail(
                where,
                "holds one game per SingleAgentEnv, from before PPO played through PoolVecEnv: start "
                "a new run (or use the version that wrote it)",
            )
        if isinstance(value, dict):
            saved = value.get("env_workers")
            if saved != self.workers:
                ctx.fail(
                    where,
                    f"holds the games of {_workers_text(saved)}, but this run plays them in "
                    f"{_workers_text(self.workers)}: resume {_workers_option(saved)}",
                )
        return self.schema.check(value, ctx, where)


def _game_states(games: Mapping[str, Any]) -> list[Any]:
    """The PoolVecEnv states in a checkpoint's "games" (one, or one per env worker)."""
    return [shard["games"] for shard in games["shards"]] if "shards" in games else [games]


class PPOTrainer(PGTrainer):
    """MaskablePPO (algo "ppo") with PolicyValueNetPolicy on a PoolVecEnv of num_envs games (the
    compiled vector path; the same games as num_envs make_selfplay_env copies in a DummyVecEnv, about
    three times faster): each game draws a pool opponent, colours alternate per game, and the results
    feed the pool's Elo. One step = one MaskablePPO iteration (ppo_n_steps moves per game, then
    ppo_epochs epochs). Pool snapshots come from a SnapshotCallback.

    workers > 1: the games are split over that many worker processes (worker_vec_env.WorkerPoolVecEnv,
    each with a mirror of the pool), while this process runs the learner; call close() to stop them.
    Such a run is reproducible from its config and worker count, and resumes bit for bit with the
    same count; it is not the run one process plays (other random streams). scale/ppo.py runs the
    workers as Ray actors.

    Checkpoints hold the weights, the optimizer, SB3's counters, the pool, the games in progress with
    their opponents and the random states that SB3 uses (torch's for actions, numpy's global one for
    minibatches), so --resume continues the run.
    """

    algos = ("ppo",)

    vec: PoolVecEnv | WorkerPoolVecEnv  # the games, built by _build()

    def __init__(
        self, config: PGConfigLike, out_dir: str, resume: bool = False, log_dir: LogDir = None, workers: int = 1
    ) -> None:
        self.workers = workers
        try:
            super().__init__(config, out_dir, resume=resume, log_dir=log_dir)
        except BaseException:
            if hasattr(self, "vec"):  # a checkpoint refused after the workers started: stop them
                self.close()
            raise

    def _in_process(self) -> bool:
        """True when the games run in this process (a PoolVecEnv), not in env workers."""
        return self.workers == 1

    def _start_workers(self, shard_args: list[tuple[Any, ...]]) -> EnvWorkers:
        """The workers of a WorkerPoolVecEnv: processes on this machine."""
        from zerogym_agents.pg.env_workers import ProcessWorkers

        return ProcessWorkers(shard_args)

    def _make_env(self) -> PoolVecEnv | WorkerPoolVecEnv:
        from zerogym_agents.pg.pool_vec_env import PoolVecEnv
        from zerogym_agents.pg.worker_vec_env import WorkerPoolVecEnv, check_workers

        cfg = self.cfg
        self.workers = check_workers(self.workers, cfg.num_envs)
        if self._in_process():
            return PoolVecEnv(
                cfg.game,
                self.pool,
                cfg.num_envs,
                cfg.game_kwargs,
                greedy=cfg.opponent_greedy,
                seed=seed_for(cfg.seed, 3),
            )
        return WorkerPoolVecEnv(cfg, self.pool, self.workers, start=self._start_workers)

    def run_name(self) -> str:
        if self._in_process():
            return super().run_name()
        return f"{super().run_name()} ({self.workers} env processes)"

    def close(self) -> None:
        """Stop the env workers (nothing to do when the games run in this process)."""
        if not self._in_process():
            self.vec.close()

    def _build(self) -> None:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.logger import Logger

        cfg = self.cfg
        self.vec = vec = self._make_env()
        opt_class: type[torch.optim.Optimizer]
        opt_kwargs: dict[str, Any]
        if cfg.optimizer == "adam":
            opt_class, opt_kwargs = torch.optim.Adam, {"eps": 1e-5, "weight_decay": cfg.weight_decay}
        else:
            opt_class, opt_kwargs = torch.optim.SGD, {"momentum": cfg.momentum, "weight_decay": cfg.weight_decay}
        # PGConfig's names for MaskablePPO's settings
        rollout = dict(n_steps=cfg.ppo_n_steps, batch_size=cfg.ppo_batch_size, n_epochs=cfg.ppo_epochs)
        returns = dict(gamma=cfg.gamma, gae_lambda=cfg.gae_lambda)
        loss = dict(clip_range=cfg.clip_range, ent_coef=cfg.entropy_coef, vf_coef=cfg.value_coef)
        max_grad_norm = cfg.grad_clip if cfg.grad_clip > 0 else float("inf")
        self.model = MaskablePPO(
            PolicyValueNetPolicy,
            vec,
            learning_rate=cfg.lr,
            **rollout,
            **returns,
            **loss,
            max_grad_norm=max_grad_norm,
            policy_kwargs={
                "net": self.net_config,
                "batchnorm_batch_stats": cfg.batch_stats(),
                "optimizer_class": opt_class,
                "optimizer_kwargs": opt_kwargs,
            },
            seed=cfg.seed,
            device=self.device,
            verbose=0,
        )
        self.model.set_logger(Logger(None, []))
        self.model.lr_schedule = lambda _progress_remaining: self.learning_rate()  # the trainer's schedule
        self.net = cast(PolicyValueNetPolicy, self.model.policy).net  # the policy class given above
        self.callback = SnapshotCallback(self.pool, cfg.snapshot_every, cfg.snapshot_unit, greedy=cfg.opponent_greedy)

    def iteration(self) -> dict[str, Any]:
        cfg = self.cfg
        before = self._results()
        # log_interval=None: no logging (sb3-contrib checks for None, its annotation says int)
        self.model.learn(
            cfg.ppo_n_steps * cfg.num_envs,
            callback=self.callback,
            reset_num_timesteps=False,
            log_interval=None,  # type: ignore[arg-type]
            progress_bar=False,
        )
        after = self._results()
        self.step += 1
        self.learner_moves = int(self.model.num_timesteps)
        self.episodes = sum(after)
        logged = self.model.logger.name_to_value
        stats: dict[str, float] = {
            "wins": after[0] - before[0],
            "draws": after[1] - before[1],
            "losses": after[2] - before[2],
        }
        for mine, theirs in (
            ("loss", "train/loss"),
            ("policy_loss", "train/policy_gradient_loss"),
            ("value_loss", "train/value_loss"),
            ("approx_kl", "train/approx_kl"),
            ("clip_fraction", "train/clip_fraction"),
        ):
            if theirs in logged:
                stats[mine] = float(logged[theirs])
        if "train/entropy_loss" in logged:
            stats["entropy"] = -float(logged["train/entropy_loss"])
        return stats

    def _results(self) -> tuple[int, int, int]:
        return self.vec.wins, self.vec.draws, self.vec.losses

    # ---- checkpoints --------------------------------------------------------------------------------
    def _algo_state(self) -> dict[str, Any]:
        m = self.model
        return {
            "optimizer": m.policy.optimizer.state_dict(),
            "num_timesteps": int(m.num_timesteps),
            "n_updates": int(m._n_updates),
            "snapshot_mark": self.callback.schedule.mark,
            "snapshot_episodes": self.callback.episodes,
            # numpy's stubs give get_state() the dict of legacy=False; by default it returns the tuple
            "np_global_rng": _rng_tensor_state(np.random.get_state()),  # type: ignore[arg-type]
            "last_obs": None if m._last_obs is None else torch.from_numpy(np.asarray(m._last_obs).copy()),
            "last_episode_starts": None
            if m._last_episode_starts is None
            else torch.from_numpy(np.asarray(m._last_episode_starts, dtype=bool).copy()),
            "games": self.vec.state_dict(),
        }

    resume_fields = PGTrainer.resume_fields + ("num_envs",)

    def _algo_schema(self) -> dict[str, Spec]:
        from zerogym_agents.core.file_checks import Fields, Int, Maybe, Optimizer, Real, Str, Tensor

        n = self.cfg.num_envs
        h, w, c = self.vec.observation_space.shape
        np_rng = Fields(
            {
                "name": Str(("MT19937",)),
                "keys": Tensor("int", (624,), 0, 2**32 - 1),
                "pos": Int(0, 624),
                "has_gauss": Int(0, 1),
                "cached": Real(),
            }
        )
        return {
            "optimizer": Optimizer(self.model.policy.optimizer),
            "num_timesteps": Int(0),
            "n_updates": Int(0),
            "snapshot_mark": Int(0),
            "snapshot_episodes": Int(0),
            "np_global_rng": np_rng,
            "last_obs": Maybe(Tensor("int", (n, h, w, c), 0, 1)),
            "last_episode_starts": Maybe(Tensor(torch.bool, (n,))),
            "games": _PoolGames(
                self.vec.state_schema(self.net.state_dict()), None if self._in_process() else self.workers
            ),
        }

    def _algo_rule(self, data: dict[str, Any]) -> str | tuple[str, str] | None:
        for games in _game_states(data["games"]):
            lost = sorted(set(games["opponents"]) - set(data["pool"]["names"]) - set(games["dropped"]))
            if lost:
                return "games", f"plays snapshots {lost}, which neither the pool nor the saved games hold"
        if (data["last_obs"] is None) != (data["last_episode_starts"] is None):
            return "last_obs", "and last_episode_starts must both be None or both be tensors"
        return None

    def _load_algo_state(self, data: dict[str, Any]) -> None:
        m = self.model
        m.policy.optimizer.load_state_dict(data["optimizer"])
        m.num_timesteps, m._n_updates = data["num_timesteps"], data["n_updates"]
        self.callback.schedule.mark = data["snapshot_mark"]
        self.callback.episodes = data["snapshot_episodes"]
        np.random.set_state(_rng_from_tensor_state(data["np_global_rng"]))
        self.vec.load_state_dict(data["games"])
        if data["last_obs"] is not None:
            m._last_obs = data["last_obs"].numpy().copy()
            m._last_episode_starts = data["last_episode_starts"].numpy().copy()
