"""What the policy-gradient trainers share: the pool, counters, logs, the run loop and checkpoints."""

from __future__ import annotations

import copy
import os
import time
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import torch

from zerogym_agents.training.run_folder import LogDir, tensorboard_writer
from zerogym_agents.core.checkpoint import CheckpointError, load_checkpoint, open_run_folder, save_checkpoint
from zerogym_agents.core.constants import AGENT, CHECKPOINT, CONFIG, PLOT
from zerogym_agents.core.devices import device_rng_state, resolve_device, set_device_rng_state
from zerogym_agents.core.file_checks import (
    Config,
    CudaRngState,
    Fields,
    History,
    Int,
    ListOf,
    Spec,
    StateDict,
    Str,
    TorchRngState,
    check,
)
from zerogym_agents.nets import net_from_payload, net_payload
from zerogym_agents.nets.model import FILE_FORMAT, NetPayload
from zerogym_agents.pg.config import PGConfig, PGConfigLike
from zerogym_agents.pg.opponents import snapshot
from zerogym_agents.training.pool import OpponentPool
from zerogym_agents.agents.saved import save_agent
from zerogym_agents.training.schedule import CosineSchedule
from zerogym_agents.training.plot import (
    draw_caption,
    elo_panel,
    lines_panel,
    marker_for,
    pool_elo_note,
    series,
    two_axes,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from torch.utils.tensorboard import SummaryWriter

    from zerogym_agents.agents.policy import PolicyAgent
    from zerogym_agents.nets import PolicyValueNet

CHECKPOINT_KIND = "pg"
# stats a trainer's iteration() returns, averaged over each logging interval
MEAN_KEYS = ("loss", "policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")

ModuleT = TypeVar("ModuleT", bound=torch.nn.Module)


def learning_mode(net: ModuleT, batch_stats: bool = False) -> ModuleT:
    """Put `net` in training mode; with batch_stats=False its BatchNorm layers stay in eval mode (they
    normalise with their running statistics and do not update them), so the trained policy is the
    one that played."""
    net.train()
    if not batch_stats:
        for m in net.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                m.eval()
    return net


def initial_net(cfg: PGConfig) -> PolicyValueNet:
    """The PolicyValueNet of cfg.init_from, checked against the game (any board size of it). Loaded
    on resume too, for its shape; the checkpoint then supplies the weights."""
    from zerogym_agents.nets import PolicyValueNet, load_net

    assert cfg.init_from is not None  # called for a run that starts from a net
    net = load_net(cfg.init_from, game=cfg.game, game_kwargs=cfg.game_kwargs)
    if not isinstance(net, PolicyValueNet):
        raise ValueError(
            f"PGConfig.init_from: {cfg.init_from} holds a {type(net).__name__}; the policy-gradient "
            f"trainers train PolicyValueNets only"
        )
    return net.with_value_activation(cfg.net.get("value_activation", net.config.value_activation))


def seed_for(*keys: int) -> int:
    """A 63-bit seed derived from config.seed and a purpose, so every random stream is independent."""
    return int(np.random.SeedSequence([int(k) for k in keys]).generate_state(2, np.uint64)[0] >> np.uint64(1))


class PGTrainer(CosineSchedule):
    """Base of ReinforceTrainer and PPOTrainer. Subclasses build `self.net` (the learner) in _build(),
    play and learn in iteration() (one policy update; it advances self.step, self.episodes and
    self.learner_moves and returns stats), and add their own state to checkpoints.

    The learning rate follows the cosine schedule from lr to lr_final over max_steps, or over a
    wall-clock budget (CosineSchedule.time_budget and train_for). The pool starts with a snapshot of
    the initial net ("episodes-0" or "steps-0"). Everything random is seeded from config.seed.
    Checkpoints (atomic, data only) fall every checkpoint_every steps and at the end; --resume
    continues from the last one.

    Logging: every log_every updates and at every checkpoint one entry joins `history` (and goes to
    TensorBoard under pg/): means of the update's losses since the last entry, results against the
    pool, the pool Elo, the learning rate and episodes and learner moves per second of training
    (time in iteration() only). Stats gathered between two entries carry over between run() calls,
    so a run cut into run(stop_at=...) calls logs the same numbers as one run; training.png is
    redrawn at every checkpoint.
    """

    algos: tuple[str, ...] = ()
    # a run resumes only with the same values of these
    resume_fields: tuple[str, ...] = ("algo", "game", "game_kwargs", "net")
    net: PolicyValueNet  # the learner, built by the subclass's _build()

    def __init__(self, config: PGConfigLike, out_dir: str, resume: bool = False, log_dir: LogDir = None) -> None:
        cfg = PGConfig.coerce(config)
        if cfg.algo not in self.algos:
            raise ValueError(f"{type(self).__name__} trains {', '.join(self.algos)}, not algo={cfg.algo!r}")
        self.cfg = cfg
        self.out = open_run_folder(out_dir, resume, CHECKPOINT)
        torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(cfg.seed)
        self.device = resolve_device(cfg.device)  # a bad or missing device is refused before any work
        self.net_config = cfg.net_config()
        init: PolicyValueNet | None = None
        if cfg.init_from:
            init = initial_net(cfg)
            self.net_config = init.config
        self.pool = OpponentPool(
            cfg.pool_size, mode=cfg.pool_mode, k_factor=cfg.pool_k_factor, seed=seed_for(cfg.seed, 1)
        )
        self.step = self.episodes = self.learner_moves = 0
        self.history: list[dict[str, Any]] = []
        self._interval = self._new_interval()
        self._build()
        if init is not None:
            self.net.load_state_dict(init.state_dict())
        self.net.to(self.device)
        self.pool.add(snapshot(self.net), name=f"{cfg.snapshot_unit}-0")
        if resume:
            self._load(os.path.join(self.out, CHECKPOINT))
        with open(os.path.join(self.out, CONFIG), "w") as f:
            f.write(cfg.to_json())
        self.writer: SummaryWriter | None = tensorboard_writer(log_dir, self.out)

    # ---- for subclasses -------------------------------------------------------------------------
    def _build(self) -> None:
        raise NotImplementedError

    def iteration(self) -> dict[str, Any]:
        """One policy update; returns {"wins", "draws", "losses", and any of MEAN_KEYS}."""
        raise NotImplementedError

    def _algo_state(self) -> dict[str, Any]:
        return {}

    def _algo_schema(self) -> dict[str, Spec]:
        """{key: spec} of the subclass's checkpoint entries (zerogym_agents.core.checkpoint schema pieces),
        checked with the rest before anything is restored."""
        return {}

    def _algo_rule(self, data: dict[str, Any]) -> str | tuple[str, str] | None:
        """None, or what the checked checkpoint `data` breaks across entries: a message or (key, message)."""
        return None

    def _load_algo_state(self, data: dict[str, Any]) -> None:
        pass

    # ---- the run protocol of zerogym_agents.experiment ------------------------------------------
    agent_kind = "policy"  # save_agent's kind of the agent this run trains

    def agent_options(self) -> dict[str, Any]:
        """The options the trained agent plays with (those of agent.pt): its net's greedy move."""
        return {"greedy": True}

    def agent(self, seed: int | None = None, **options: Any) -> PolicyAgent:
        """The current net as a PolicyAgent (a copy: further training leaves it as it is); options
        override agent_options()."""
        from zerogym_agents.agents.policy import PolicyAgent

        return PolicyAgent(copy.deepcopy(self.net).eval(), seed=seed, **{**self.agent_options(), **options})

    def counters(self) -> dict[str, float]:
        """How far the run is: updates, games, learner moves, and the learner's Elo in its pool."""
        return {
            "updates": self.step,
            "episodes": self.episodes,
            "learner_moves": self.learner_moves,
            "pool_elo": float(self.pool.learner_elo),
        }

    # ---- the run --------------------------------------------------------------------------------
    unit = "update"

    def run_name(self) -> str:
        return f"{self.cfg.algo} {self.cfg.game}"

    def train_step(self) -> None:
        """One update (iteration()), its time and stats kept for the log interval."""
        t0 = time.perf_counter()
        stats = self.iteration()
        self._interval["seconds"] += time.perf_counter() - t0
        self._accumulate(stats)

    def postfix(self, h: dict[str, Any]) -> dict[str, Any]:
        return dict(
            episodes=self.episodes,
            win=f"{h['win_rate']:.2f}",
            elo=f"{h['elo']:.0f}",
            loss="-" if h.get("loss") is None else f"{h['loss']:.3f}",
        )

    def _new_interval(self) -> dict[str, Any]:
        return {
            "seconds": 0.0,
            "episodes": self.episodes,
            "moves": self.learner_moves,
            "wins": 0,
            "draws": 0,
            "losses": 0,
            "sums": {},
            "updates": 0,
        }

    def _accumulate(self, stats: dict[str, Any]) -> None:
        it = self._interval
        it["updates"] += 1
        for k in ("wins", "draws", "losses"):
            it[k] += int(stats.get(k, 0))
        for k in MEAN_KEYS:
            if stats.get(k) is not None:
                s = it["sums"].setdefault(k, [0.0, 0])
                s[0] += float(stats[k])
                s[1] += 1

    def _log(self) -> None:
        """Close the logging interval: one history entry and TensorBoard scalars."""
        it = self._interval
        if not it["updates"]:
            return
        elapsed = max(it["seconds"], 1e-9)
        games = it["wins"] + it["draws"] + it["losses"]
        entry = {
            "step": self.step,
            "episodes": self.episodes,
            "learner_moves": self.learner_moves,
            **{k: (v[0] / v[1]) for k, v in it["sums"].items()},
            "win_rate": it["wins"] / games if games else float("nan"),
            "draw_rate": it["draws"] / games if games else float("nan"),
            "elo": self.pool.learner_elo,
            "pool_size": len(self.pool),
            "lr": self.learning_rate(),
            "episodes_per_s": (self.episodes - it["episodes"]) / elapsed,
            "moves_per_s": (self.learner_moves - it["moves"]) / elapsed,
        }
        for k in MEAN_KEYS:
            entry.setdefault(k, None)
        self.history.append(entry)
        if self.writer:
            for k, v in entry.items():
                if k != "step" and v is not None and np.isfinite(v):
                    self.writer.add_scalar(f"pg/{k}", v, self.step)
        self._interval = self._new_interval()

    # ---- checkpoints ----------------------------------------------------------------------------
    def save(self) -> None:
        """Write checkpoint.pt (atomically: weights, optimizer, pool, RNG states, counters, history)
        and agent.pt (the learner as a PolicyAgent)."""
        self._log()
        cfg = self.cfg
        save_checkpoint(
            os.path.join(self.out, CHECKPOINT),
            CHECKPOINT_KIND,
            {
                "config": cfg.to_json(),
                "algo": cfg.algo,
                "net": net_payload(self.net),
                "counters": {"step": self.step, "episodes": self.episodes, "learner_moves": self.learner_moves},
                "history": [{k: (None if v is None else float(v)) for k, v in h.items()} for h in self.history],
                "pool": self.pool.state_dict(),
                "pool_snapshots": [e[0] for e in self.pool.entries.values()],
                "torch_rng": torch.get_rng_state(),
                "cuda_rng": device_rng_state(self.device),
                **self._algo_state(),
            },
        )
        save_agent(
            os.path.join(self.out, AGENT),
            self.net,
            self.agent_options(),
            {
                "game": cfg.game,
                "kwargs": cfg.game_kwargs,
                "net": self.net.config.to_dict(),
                "parameters": self.net.num_parameters(),
                "training": {
                    "algo": cfg.algo,
                    "steps": self.step,
                    "episodes": self.episodes,
                    "learner_moves": self.learner_moves,
                    "pool_elo": self.pool.learner_elo,
                    "config": cfg.to_dict(),
                },
            },
            kind=self.agent_kind,
        )
        if self.writer:
            self.writer.flush()
        if self.history:
            plot_history(self.history, os.path.join(self.out, PLOT), title=f"{cfg.algo} {cfg.game}")

    def _checkpoint_schema(self) -> tuple[Spec, Spec]:
        """What a checkpoint of this run must hold: the shared entries, the subclass's (_algo_schema),
        the learner's net and every pool snapshot with the learner's shapes."""
        learner = StateDict(self.net.state_dict(), label="the learner's network")
        net = Fields({"state_dict": learner})

        def rule(d):
            if len(d["pool_snapshots"]) != len(d["pool"]["names"]):
                return "pool_snapshots", (
                    f"holds {len(d['pool_snapshots'])} nets for {len(d['pool']['names'])} pool names"
                )
            return self._algo_rule(d)

        return Fields(
            {
                "algo": Str((self.cfg.algo,)),
                "net": NetPayload((FILE_FORMAT,)),
                "counters": Fields({"step": Int(0), "episodes": Int(0), "learner_moves": Int(0)}),
                "history": History(),
                "pool": OpponentPool.state_schema(),
                "pool_snapshots": ListOf(NetPayload((FILE_FORMAT,))),
                "torch_rng": TorchRngState(),
                **self._algo_schema(),
            },
            optional={"cuda_rng": CudaRngState()},
            rule=rule,
        ), Fields({"net": net, "pool_snapshots": ListOf(net)})

    def _load(self, path: str) -> None:
        """Restore the run from the checkpoint at `path`, every part checked first: a malformed file
        raises CheckpointError naming it and what is wrong, before anything is restored."""
        data = load_checkpoint(path, kind=CHECKPOINT_KIND)
        saved = check(data, Fields({"config": Config(PGConfig)}), path)["config"]
        mine, theirs = self.cfg, saved
        for name in self.resume_fields:
            if getattr(mine, name) != getattr(theirs, name):
                raise CheckpointError(
                    f"{path}: a checkpoint of {name}={getattr(theirs, name)!r}, but this run has "
                    f"{name}={getattr(mine, name)!r}; resume with the same {name}"
                )
        for schema in self._checkpoint_schema():
            data = check(data, schema, path)
        self.net.load_state_dict(net_from_payload(data["net"], source=path).state_dict())
        c = data["counters"]
        self.step, self.episodes, self.learner_moves = c["step"], c["episodes"], c["learner_moves"]
        self.history = [dict(h) for h in data["history"]]
        self.pool.load_state_dict(data["pool"], data["pool_snapshots"])
        self._load_algo_state(data)
        torch.set_rng_state(data["torch_rng"])
        set_device_rng_state(self.device, data.get("cuda_rng"))
        self._interval = self._new_interval()


def plot_history(history: list[dict[str, Any]], path: str, title: str = "") -> Figure:
    """The history as a PNG, with a caption under the panels that says what each one shows: losses
    and entropy, results against the pool, training throughput and the pool Elo, against updates.
    Returns the matplotlib Figure."""
    from matplotlib.figure import Figure  # not pyplot: leaves the caller's backend alone

    steps = [h["step"] for h in history]
    fig = Figure(figsize=(11, 8.2))
    (ax_loss, ax_results), (ax_speed, ax_elo) = fig.subplots(2, 2)
    curves = [(key, key) for key in ("loss", "policy_loss", "value_loss", "entropy")]
    lines_panel(ax_loss, history, curves, "losses and entropy (mean per log interval)")
    for key, label in (("win_rate", "win"), ("draw_rate", "draw")):
        values = series(history, key)
        ax_results.plot(steps, values, label=label, marker=marker_for(values))
    ax_results.axhline(0.5, color="0.6", lw=0.8, ls=":")
    ax_results.set_ylim(0, 1)
    ax_results.set_title("results against the pool")
    ax_results.legend(fontsize=8)
    two_axes(
        ax_speed,
        history,
        ("episodes_per_s", "episodes / s"),
        ("moves_per_s", "learner moves / s"),
        "training throughput",
    )
    elo_panel(ax_elo, steps, series(history, "elo"), "learner Elo against its own snapshot pool")
    for ax in (ax_loss, ax_results, ax_speed, ax_elo):
        ax.set_xlabel("update")
        ax.grid(alpha=0.3)
    draw_caption(
        fig,
        [
            "Losses: means over the updates of each log interval of the loss that is minimised, its policy-gradient "
            "part, the value loss (reinforce-baseline and ppo, which train a value head) and the policy's entropy, "
            "whose fall shows the policy turning deterministic.",
            "Results: the share of the learner's games won and drawn against opponents drawn from its pool of past "
            "snapshots; it stays near one half when the learner only keeps pace with its past selves.",
            "Throughput: episodes (solid) and learner moves (dashed) per second of playing and learning.",
            "Pool Elo: " + pool_elo_note("snapshots") + ".",
        ],
        title,
    )
    fig.savefig(path, dpi=90)
    return fig
