"""AlphaZero training: batched self-play, replay, SGD, checkpoints that resume exactly."""

from __future__ import annotations

import contextlib
import copy
import os
import threading
import time
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt
import torch

import zerogym
from zerogym_agents.training.run_folder import LogDir, tensorboard_writer
from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.alphazero.replay import ReplayBuffer
from zerogym_agents.alphazero.selfplay import GameRecords, SelfPlay, tree_seed
from zerogym_agents.core.checkpoint import CheckpointError, load_checkpoint, open_run_folder, save_checkpoint
from zerogym_agents.core.constants import AGENT, CHECKPOINT, CONFIG, PLOT
from zerogym_agents.core.devices import device_rng_state, resolve_device, set_device_rng_state
from zerogym_agents.core.file_checks import (
    Config,
    CudaRngState,
    DictOf,
    Fields,
    History,
    Int,
    ListOf,
    Maybe,
    Optimizer,
    Real,
    RngState,
    Spec,
    StateBlob,
    StateDict,
    Str,
    Tensor,
    TorchRngState,
    check,
)
from zerogym_agents.nets import PolicyValueNet, for_game, load_net, loss, make_evaluator, net_from_payload, net_payload
from zerogym_agents.nets.model import NetPayload
from zerogym_agents.training.pool import OpponentPool
from zerogym_agents.agents.saved import save_agent
from zerogym_agents.training.interrupt import OutOfTime
from zerogym_agents.training.schedule import CosineSchedule
from zerogym_agents.training.plot import draw_caption, elo_panel, lines_panel, pool_elo_note, series, two_axes

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from zerogym._core.state import State
    from zerogym_agents.agents.policy import PolicyNet
    from zerogym_agents.agents.search import AlphaZeroAgent
    from zerogym_agents.core.file_checks import Context

# config fields that shape a checkpoint's contents: a run resumes only with the same values
RESUME_FIELDS = ("game", "game_kwargs", "concurrent_games", "pool_fraction", "buffer_size")


# counters()' name of each of the checkpoint's counters
COUNTER_NAMES = {
    "step": "search_steps",
    "games": "self_play_games",
    "positions": "positions",
    "train_steps": "sgd_steps",
}


def _blob(state: State) -> torch.Tensor:
    return torch.frombuffer(bytearray(state.to_bytes()), dtype=torch.uint8)


def _frozen(net: PolicyNet) -> dict[str, torch.Tensor]:
    """A snapshot of the net's weights (on the CPU) that later training cannot change."""
    return {k: v.detach().to("cpu", copy=True) for k, v in net.state_dict().items()}


class AlphaZeroTrainer(CosineSchedule):
    """Self-play of `concurrent_games` games through the compiled batched search, a replay buffer
    with symmetry augmentation and a reuse cap, and SGD on policy cross-entropy + value loss + L2.

    Everything advances in search steps (one search of every game, then a move in each), so that a
    run is a function of its config: checkpoints fall every `checkpoint_every` steps, and at each
    one the search trees are rebuilt from their roots and their random streams reseeded, in the
    run that continues and in one resumed from that checkpoint alike, so resuming gives exactly the
    run that was not interrupted.

    Tournament pool (Polygames, Cazenave et al. 2020): the last round(pool_fraction * G) games are
    played by the learner against a past checkpoint (the learner's colour alternates game by game in
    each of these slots), through a second search over the same positions.  Every checkpoint joins the
    pool (the last pool_size are kept, each with an Elo updated from these games) and, at each
    checkpoint, the opponent for the next stretch is drawn with probability
    ∝ exp(-(Elo_learner - Elo_i) / 400).  Only the learner's moves of these games are trained on.

    Logging: every `log_every` search steps, and at every checkpoint, one entry joins `history` (and
    its numbers go to TensorBoard under alphazero/): the mean losses of the SGD steps since the last
    entry, the learning rate, games and positions finished per second of training work (search and
    SGD, not checkpoints or whatever the caller does between run() calls), the replay buffer's fill
    and the counters. The pool Elo is recorded at checkpoints only (entries with checkpoint = 1).
    The points fall on the same steps however the run is cut into run() calls or resumed, and
    training.png is redrawn from them at every checkpoint.
    """

    def __init__(
        self,
        config: AlphaZeroConfig | dict[str, Any],
        out_dir: str | os.PathLike[str],
        resume: bool = False,
        log_dir: LogDir = None,
        net: PolicyNet | None = None,
    ) -> None:
        self.cfg = AlphaZeroConfig.coerce(config)
        cfg = self.cfg
        self.out = open_run_folder(out_dir, resume, CHECKPOINT)
        torch.manual_seed(cfg.seed)
        self.device = resolve_device(cfg.device)  # a bad or missing device is refused before any work
        self.template = zerogym.make_state(cfg.game, **cfg.game_kwargs)
        spec = self.template.spec
        h, w, c = spec.obs_shape
        if net is None and cfg.init_from and not resume:
            net = load_net(cfg.init_from, game=cfg.game, game_kwargs=cfg.game_kwargs)
            if "value_activation" in cfg.net and hasattr(net, "with_value_activation"):
                net = cast(PolicyValueNet, net).with_value_activation(cfg.net["value_activation"])  # has it: hasattr
        if net is None:
            net = PolicyValueNet(for_game(cfg.game, game_kwargs=cfg.game_kwargs, **cfg.net))
        if cfg.aux_targets:
            net = _with_aux_heads(net, cfg)
        self.overlap = cfg.overlap_sgd and self.overlaps_sgd
        self._set_net(net)
        self.selfplay = SelfPlay(cfg)
        self.replay = ReplayBuffer(
            cfg.buffer_size,
            (c, h, w),
            spec.num_actions,
            cfg.max_reuse,
            symmetries=spec.symmetries,
            seed=cfg.seed + 1,
            aux=cfg.aux_targets,
        )
        self.rng = np.random.default_rng(cfg.seed + 2)
        self.step = self.games = self.positions = self.train_steps = 0
        self.history: list[dict[str, Any]] = []  # one flat dict of numbers per log point (see _log)
        # the learner's moves of the games in progress
        self.records = GameRecords(cfg.concurrent_games, cfg.root_value_weight)
        self._losses: list[tuple[float, ...]] = []  # (total, policy, value) of each SGD step since the last log point
        self._work_seconds = 0.0  # time in self-play and SGD since the last log point
        self._since = (self.games, self.positions)
        self.num_pool = self.selfplay.num_pool  # games G - num_pool .. G - 1 face the pool
        self.pool = OpponentPool(cfg.pool_size, mode="elo", seed=cfg.seed + 3)
        self.pool_games = 0
        if self.num_pool:
            self.pool.add(_frozen(self.net), name="step-0")
        self._rebuild_trees()
        if resume:
            self._load(os.path.join(self.out, CHECKPOINT))
        with open(os.path.join(self.out, CONFIG), "w") as f:
            f.write(self.cfg.to_json())
        self.writer = tensorboard_writer(log_dir, self.out)

    overlaps_sgd = True  # whether train_step runs SGD beside self-play when overlap_sgd is set

    # ---- the run protocol of zerogym_agents.experiment -----------------------------------------
    agent_kind = "alphazero"  # save_agent's kind of the agent this run trains

    def agent_options(self) -> dict[str, Any]:
        """The options the trained agent plays with (those of agent.pt); a Gumbel run's agent
        searches as it was trained (an agent file without "search" plays PUCT), decisive moves and the
        solver included."""
        cfg = self.cfg
        options: dict[str, Any] = {"simulations": cfg.simulations}
        options.update({name: True for name in ("decisive_moves", "solver") if getattr(cfg, name)})
        if cfg.search == "gumbel":
            options.update(search="gumbel", gumbel_m=cfg.gumbel_m, c_visit=cfg.c_visit, c_scale=cfg.c_scale)
        return options

    def agent(self, seed: int | None = None, **options: Any) -> AlphaZeroAgent:
        """The current net as an AlphaZeroAgent (a copy: further training leaves it as it is);
        options override agent_options(), e.g. simulations=200."""
        from zerogym_agents.agents.search import AlphaZeroAgent

        return AlphaZeroAgent(copy.deepcopy(self.net).eval(), seed=seed, **{**self.agent_options(), **options})

    def counters(self) -> dict[str, int]:
        """How far the run is: search steps, self-play games, positions, SGD steps."""
        return {COUNTER_NAMES[k]: v for k, v in self._counts().items()}

    def _counts(self) -> dict[str, int]:
        """The counters as the history and the checkpoint name them."""
        return {"step": self.step, "games": self.games, "positions": self.positions, "train_steps": self.train_steps}

    def _set_net(self, net: PolicyNet) -> None:
        """Train `net`: a fresh optimizer, its evaluator, and a separate copy for pool opponents."""
        cfg = self.cfg
        self.net = net.to(self.device).eval()
        self.opt = torch.optim.SGD(net.parameters(), lr=cfg.lr, momentum=cfg.momentum, weight_decay=cfg.weight_decay)
        # with overlap_sgd, self-play searches with a copy of the weights while SGD changes the net
        self.actor = copy.deepcopy(self.net) if self.overlap else self.net
        self.evaluator = make_evaluator(self.actor, cache=cfg.eval_cache, precision=cfg.precision)
        self.opp_net = copy.deepcopy(net).eval()
        self.opp_evaluator = make_evaluator(self.opp_net, cache=cfg.eval_cache, precision=cfg.precision)

    # ---- self-play ----------------------------------------------------------------------------
    # the games and searches live in self.selfplay (alphazero.selfplay.SelfPlay); these read through to it
    mcts = property(lambda self: self.selfplay.mcts)
    opp_mcts = property(lambda self: self.selfplay.opp_mcts)
    roots = property(lambda self: self.selfplay.roots)
    move_no = property(lambda self: self.selfplay.move_no)
    learner_seat = property(lambda self: self.selfplay.learner_seat)
    pending = property(lambda self: self.records.pending)

    def _rebuild_trees(self) -> None:
        if self.num_pool:
            self.opponent, snapshot = self.pool.sample()
            self.opp_net.load_state_dict(snapshot)
        self.selfplay.rebuild(tree_seed(self.cfg.seed, self.step))

    def self_play_step(self) -> None:
        """One search of every game, then one move in each; finished games go to the replay buffer.
        The evaluation caches start empty, so a step's result does not depend on where a run resumed.
        Past the run's wall-clock limit the search stops at its next batch and the step takes itself
        back (OutOfTime; the trees are rebuilt when the run saves)."""
        self.evaluator.clear_cache()
        self.opp_evaluator.clear_cache()
        games = self.selfplay.carry() if self.cfg.random_opening_moves and self.until is not None else None
        try:
            moves, finished = self.selfplay.step(self.on_time(self.evaluator), self.on_time(self.opp_evaluator))
        except OutOfTime:
            if games is not None:  # the openings played before the search
                self.selfplay.load_carry(games)
            raise
        self.records.add(moves)
        for i, returns, score in finished:
            self.add_game(self.records.finish(i, returns, self.selfplay.finals.get(i)))
            if score is not None:
                self.pool.record(self.opponent, score)
                self.pool_games += 1
        self.step += 1

    def add_game(self, game: tuple[np.ndarray, ...] | None) -> None:
        """Count a finished game and put its moves (GameRecords.finish's arrays, or None) in the replay buffer."""
        self.games += 1
        if game is not None:
            self.replay.add(*game)
            self.positions += len(game[3])

    # ---- training -----------------------------------------------------------------------------
    def train_some(self, steps: int | None = None) -> None:
        """Up to `steps` (default max_train_per_step) SGD steps on replay batches (none before
        min_buffer positions)."""
        self._sgd(self._draw_batches(steps), self.learning_rate())

    def _draw_batches(self, steps: int | None = None) -> list[dict[str, np.ndarray]]:
        """The replay batches of up to `steps` (default max_train_per_step) SGD steps; none before
        min_buffer positions, fewer when the reuse cap leaves too few positions."""
        cfg = self.cfg
        batches: list[dict[str, np.ndarray]] = []
        if len(self.replay) < cfg.min_buffer:
            return batches
        for _ in range(cfg.max_train_per_step if steps is None else steps):
            batch = self.replay.sample(cfg.batch_size)
            if batch is None:
                break
            batches.append(batch)
        return batches

    def _sgd(self, batches: list[dict[str, np.ndarray]], lr: float) -> None:
        """One SGD step on each batch at learning rate `lr`."""
        if not batches:
            return
        cfg = self.cfg
        for group in self.opt.param_groups:
            group["lr"] = lr
        self.net.train()
        for batch in batches:
            parts: dict[str, torch.Tensor] = {}
            aux: dict[str, Any] = {}
            if cfg.aux_targets:
                aux = {
                    "ownership": torch.from_numpy(batch["ownership"]),
                    "score": torch.from_numpy(batch["scores"]),
                    "ownership_weight": cfg.ownership_weight,
                    "score_weight": cfg.score_weight,
                    "parts": parts,
                }
            total, pol, val = loss(
                self.net,
                torch.from_numpy(batch["planes"]),
                torch.from_numpy(batch["policies"]),
                torch.from_numpy(batch["values"]),
                torch.from_numpy(batch["masks"]),
                precision="bfloat16" if cfg.precision == "bfloat16" else "float32",
                **aux,
            )
            self.opt.zero_grad()
            total.backward()
            if cfg.grad_clip > 0:
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), cfg.grad_clip)
            self.opt.step()
            self.train_steps += 1
            self._losses.append(
                (total.item(), pol.item(), val.item()) + tuple(parts[k].item() for k in self._aux_keys())
            )
        self.net.eval()

    # ---- the run ------------------------------------------------------------------------------
    unit = "step"

    def run_name(self) -> str:
        return f"alphazero {self.cfg.game}"

    def train_step(self) -> None:
        """One search step of every self-play game, then up to max_train_per_step SGD steps (with
        overlap_sgd, at the same time: see _overlapped_step)."""
        t0 = time.perf_counter()
        if self.overlap:
            self._overlapped_step()
        else:
            self.self_play_step()
            self.train_some()
        self._work_seconds += time.perf_counter() - t0

    def _overlapped_step(self) -> None:
        """SGD on a second thread while self-play searches: the batches are drawn before the step's
        games join the replay buffer, and self-play evaluates with a copy of the weights the step
        starts with, so the step's result depends on nothing but the run's state. Both threads spend
        their time in compiled code or torch, which release the GIL. On CUDA the SGD runs on its own
        stream. A step cut short by the time limit takes back its SGD too."""
        undo = self._undo_point() if self.until is not None else None
        batches = self._draw_batches()
        if not batches:
            self.self_play_step()
            return
        lr = self.learning_rate()
        self.actor.load_state_dict(self.net.state_dict())  # in place: the evaluator's graphs stay valid
        stream = torch.cuda.Stream(self.device) if self.device.type == "cuda" else None
        if stream is not None:  # the SGD starts after the copy above
            stream.wait_stream(torch.cuda.current_stream(self.device))
        failed: list[BaseException] = []

        def learn() -> None:
            try:
                with torch.cuda.stream(stream) if stream is not None else contextlib.nullcontext():
                    self._sgd(batches, lr)
                if stream is not None:
                    stream.synchronize()
            except BaseException as e:  # handed to the caller's thread below
                failed.append(e)

        learner = threading.Thread(target=learn, name="zerogym-sgd", daemon=True)
        learner.start()
        try:
            self.self_play_step()
        except OutOfTime:
            learner.join()
            if undo is not None:
                self._take_back(undo)
            raise
        finally:
            learner.join()
        if failed:
            raise failed[0]

    def _undo_point(self) -> tuple[Any, ...]:
        """What _sgd and _draw_batches change, to be put back by _take_back."""
        replay = self.replay
        return (
            copy.deepcopy(self.net.state_dict()),
            copy.deepcopy(self.opt.state_dict()),
            replay.rng.bit_generator.state,
            replay.uses.copy(),
            self.train_steps,
            len(self._losses),
        )

    def _take_back(self, undo: tuple[Any, ...]) -> None:
        weights, opt, rng, uses, train_steps, losses = undo
        self.net.load_state_dict(weights)
        self.opt.load_state_dict(opt)
        self.replay.rng.bit_generator.state = rng
        self.replay.uses[:] = uses
        self.train_steps = train_steps
        del self._losses[losses:]

    @staticmethod
    def postfix(entry: dict[str, Any]) -> dict[str, Any]:
        return postfix(entry)

    def _log(self, checkpoint: bool = False) -> None:
        """Close the log interval: append a history entry and write its numbers to TensorBoard. At a
        step that already has an entry (a second save, say) nothing is added; a checkpoint then only
        marks that entry and records the pool Elo in it."""
        last = self.history[-1] if self.history else None
        if (last is not None and last["step"] == self.step) or (last is None and self.step == 0):
            if checkpoint and last is not None and not last.get("checkpoint"):
                last["checkpoint"] = 1.0
                last["elo"] = self.pool.learner_elo if self.num_pool else None
                if self.writer and last["elo"] is not None:
                    self.writer.add_scalar("alphazero/elo", last["elo"], self.step)
            return
        mean = (
            [float(x) for x in np.mean(self._losses, axis=0)] if self._losses else [None] * (3 + len(self._aux_keys()))
        )
        seconds = self._work_seconds
        games0, positions0 = self._since
        entry = {
            **self._counts(),
            "loss": mean[0],
            "policy_loss": mean[1],
            "value_loss": mean[2],
            "lr": self.learning_rate(),
            "games_per_s": (self.games - games0) / seconds if seconds > 0 else None,
            "positions_per_s": (self.positions - positions0) / seconds if seconds > 0 else None,
            "buffer_positions": len(self.replay),
            "buffer_fill": len(self.replay) / self.replay.capacity,
            "elo": self.pool.learner_elo if self.num_pool and checkpoint else None,
            "checkpoint": 1.0 if checkpoint else 0.0,
            **dict(zip(self._aux_keys(), mean[3:])),
        }
        self.history.append(entry)
        self._losses, self._work_seconds, self._since = [], 0.0, (self.games, self.positions)
        if self.writer:
            for k, v in entry.items():
                if k not in ("step", "checkpoint") and v is not None:
                    self.writer.add_scalar(f"alphazero/{k}", v, self.step)

    def _aux_keys(self) -> tuple[str, ...]:
        """The auxiliary losses this run computes (history keys)."""
        return tuple(
            k
            for k, w in (("ownership_loss", self.cfg.ownership_weight), ("score_loss", self.cfg.score_weight))
            if w > 0
        )

    # ---- checkpoints --------------------------------------------------------------------------
    def save(self) -> None:
        """Log an entry, add the net to the pool, write the checkpoint (atomically), redraw
        training.png and rebuild the search trees (see the class docstring)."""
        self._log(checkpoint=True)
        if self.num_pool and f"step-{self.step}" not in self.pool.entries:
            self.pool.add(_frozen(self.net), name=f"step-{self.step}")
        pending = [[saved_move(*move) for move in g] for g in self.records.pending]
        sp = self.selfplay
        save_checkpoint(
            os.path.join(self.out, CHECKPOINT),
            "alphazero",
            {
                "config": self.cfg.to_json(),
                "net": net_payload(self.net),
                "optimizer": self.opt.state_dict(),
                "replay": self.replay.state_dict(),
                "rng": self.rng.bit_generator.state,
                "torch_rng": torch.get_rng_state(),
                "cuda_rng": device_rng_state(self.device),
                "counters": self._counts(),
                "history": [{k: (float(v) if v is not None else None) for k, v in h.items()} for h in self.history],
                "roots": [_blob(r) for r in sp.roots],
                "move_no": torch.from_numpy(sp.move_no.copy()),
                "pending": pending,
                "pool": self.pool.state_dict(),
                "pool_snapshots": [e[0] for e in self.pool.entries.values()],
                "pool_games": self.pool_games,
                "learner_seat": torch.from_numpy(sp.learner_seat.copy()) if self.num_pool else None,
                **self._extra_state(),
            },
        )
        save_agent(
            os.path.join(self.out, AGENT),
            self.net,
            self.agent_options(),
            {
                "game": self.cfg.game,
                "kwargs": self.cfg.game_kwargs,
                "net": self.net.config.to_dict(),
                "parameters": self.net.num_parameters(),
                "search": self.cfg.search,
                "training": {
                    "steps": self.step,
                    "self_play_games": self.games,
                    "positions": self.positions,
                    "train_steps": self.train_steps,
                    "config": self.cfg.to_dict(),
                },
            },
        )
        if self.writer:
            self.writer.flush()
        if self.history:
            plot_history(self.history, os.path.join(self.out, PLOT), title=f"AlphaZero, {self.cfg.game}")
        self._rebuild_trees()

    # what a trainer built on this one (zerogym_agents.scale) adds to checkpoints
    def _extra_state(self) -> dict[str, Any]:
        return {}

    def _extra_schema(self) -> dict[str, Any]:
        return {}

    def _load_extra(self, data: dict[str, Any]) -> None:
        pass

    def _checkpoint_schema(self) -> Fields:
        """What an AlphaZero checkpoint of this run must hold (checked before anything is restored);
        the optimizer and the pool snapshots are checked against the checkpoint's net afterwards."""
        cfg, spec = self.cfg, self.template.spec
        h, w, c = spec.obs_shape
        G, A, P = cfg.concurrent_games, spec.num_actions, self.num_pool
        step = Fields({"step": Int(0), "games": Int(0), "positions": Int(0), "train_steps": Int(0)})
        return Fields(
            {
                "config": Config(AlphaZeroConfig),
                "net": NetPayload(),
                "optimizer": Fields({}),
                "replay": self.replay.state_schema(),
                "rng": RngState(),
                "torch_rng": TorchRngState(),
                "counters": step,
                "history": History(),
                "roots": ListOf(StateBlob(self.template, playing=True), length=G),
                "move_no": Tensor(torch.int64, (G,), low=0),
                "pending": ListOf(ListOf(PendingMove(c, h, w, A)), length=G),
                "pool": OpponentPool.state_schema(),
                "pool_snapshots": ListOf(DictOf(Str())),
                "pool_games": Int(0),
                "learner_seat": Tensor(torch.int64, (P,), 0, 1) if P else Maybe(Tensor()),
                **self._extra_schema(),
            },
            optional={"cuda_rng": CudaRngState()},
            rule=lambda d: (
                ("pool_snapshots", f"holds {len(d['pool_snapshots'])} nets for {len(d['pool']['names'])} pool names")
                if len(d["pool_snapshots"]) != len(d["pool"]["names"])
                else None
            ),
        )

    def _load(self, path: str) -> None:
        """Restore the run from the checkpoint at `path`, every part of it checked first (a malformed
        file raises CheckpointError naming it and what is wrong, and changes nothing)."""
        data = load_checkpoint(path, kind="alphazero")
        if "pool" not in data:
            raise CheckpointError(
                f"{path}: an AlphaZero checkpoint without a tournament pool, written by an older "
                "version of zerogym_agents; this version cannot resume it"
            )
        saved = check(data, Fields({"config": Config(AlphaZeroConfig)}), path)["config"]
        if (saved.game, saved.game_kwargs) != (self.cfg.game, self.cfg.game_kwargs):
            raise CheckpointError(
                f"{path}: a checkpoint of {saved.game} {saved.game_kwargs}, not {self.cfg.game} {self.cfg.game_kwargs}"
            )
        if saved.aux_targets != self.cfg.aux_targets:
            raise CheckpointError(
                f"{path}: a checkpoint {'with' if saved.aux_targets else 'without'} auxiliary "
                f"targets (ownership_weight, score_weight), but this run has them "
                f"{'on' if self.cfg.aux_targets else 'off'}; its replay buffer cannot change"
            )
        for name in RESUME_FIELDS:
            if getattr(saved, name) != getattr(self.cfg, name):
                raise CheckpointError(
                    f"{path}: a checkpoint of {name}={getattr(saved, name)!r}, but this run has "
                    f"{name}={getattr(self.cfg, name)!r}; resume with the same {name}"
                )
        data = check(data, self._checkpoint_schema(), path)
        net = net_from_payload(data["net"], source=path)
        opt = torch.optim.SGD(net.parameters(), lr=self.cfg.lr)
        data = check(
            data, Fields({"optimizer": Optimizer(opt), "pool_snapshots": ListOf(StateDict(net.state_dict()))}), path
        )
        # everything checked: restore
        self._set_net(net)
        self.opt.load_state_dict(data["optimizer"])
        self.replay.load_state_dict(data["replay"])
        self.rng.bit_generator.state = data["rng"]
        torch.set_rng_state(data["torch_rng"])
        set_device_rng_state(self.device, data.get("cuda_rng"))
        c = data["counters"]
        self.step, self.games = c["step"], c["games"]
        self.positions, self.train_steps = c["positions"], c["train_steps"]
        self.history = list(data["history"])
        sp = self.selfplay
        sp.load_carry(
            {
                "roots": [blob.numpy() for blob in data["roots"]],
                "move_no": data["move_no"].numpy(),
                "learner_seat": data["learner_seat"].numpy() if self.num_pool else sp.learner_seat,
            }
        )
        self.records.pending = [[restored_move(*move) for move in g] for g in data["pending"]]
        self.pool.load_state_dict(data["pool"], data["pool_snapshots"])
        self.pool_games = data["pool_games"]
        self._load_extra(data)
        self._losses, self._work_seconds, self._since = [], 0.0, (self.games, self.positions)
        self._rebuild_trees()


def _with_aux_heads(net: PolicyNet, cfg: AlphaZeroConfig) -> PolicyNet:
    """`net` with the auxiliary heads cfg's weights ask for (PolicyValueNet.with_aux_heads)."""
    if not hasattr(net, "with_aux_heads"):
        raise ValueError(
            f"AlphaZeroConfig.ownership_weight / score_weight need a PolicyValueNet, which can grow "
            f"the auxiliary heads; this run's net is a {type(net).__name__}"
        )
    return cast(PolicyValueNet, net).with_aux_heads(ownership=cfg.ownership_weight > 0, score=cfg.score_weight > 0)


def saved_move(
    planes: npt.ArrayLike, mask: npt.ArrayLike, policy: npt.ArrayLike, mover: int, value: float | None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, int, float | None]:
    """A move of a game in progress (GameRecords.pending) as a checkpoint holds it."""
    return (
        torch.from_numpy(np.asarray(planes, np.float32)),
        torch.from_numpy(np.asarray(mask)),
        torch.from_numpy(np.asarray(policy)),
        int(mover),
        value,
    )


def restored_move(
    planes: torch.Tensor, mask: torch.Tensor, policy: torch.Tensor, mover: int, value: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, float | None]:
    """saved_move's inverse (planes as int8, as self-play records them)."""
    return planes.numpy().astype(np.int8), mask.numpy(), policy.numpy(), mover, value


class PendingMove(Spec):
    """One move of a game in progress, as a checkpoint holds it: (planes, legal mask, search
    policy, the mover, the root value from the mover's view). A checkpoint of an older version
    has no root value: the move is read with None there."""

    what = "a (planes, mask, policy, mover, root value) tuple"

    def __init__(self, c: int, h: int, w: int, num_actions: int) -> None:
        self.items = (
            Tensor(torch.float32, (c, h, w), 0, 1),
            Tensor(torch.int8, (num_actions,), 0, 1),
            Tensor(torch.float32, (num_actions,), 0, 1),
            Int(0, 1),
            Maybe(Real(-1, 1)),
        )

    def check(self, value: Any, ctx: Context, where: str) -> tuple[Any, ...]:
        if not isinstance(value, (list, tuple)) or len(value) not in (4, 5):
            self.refuse(value, ctx, where)
        value = tuple(value) + (None,) * (5 - len(value))
        return tuple(spec.check(v, ctx, f"{where}[{i}]") for i, (spec, v) in enumerate(zip(self.items, value)))


def postfix(entry: dict[str, Any]) -> dict[str, Any]:
    """The progress bar's postfix for a history entry."""
    out = {
        "games": int(entry["games"]),
        "train_steps": int(entry["train_steps"]),
        "loss": "-" if entry.get("loss") is None else f"{entry['loss']:.3f}",
    }
    if entry.get("buffer_fill") is not None:
        out["buffer"] = f"{100 * entry['buffer_fill']:.0f}%"
    if entry.get("games_per_s") is not None:
        out["games/s"] = f"{entry['games_per_s']:.1f}"
    return out


ELO_TITLE = "learner Elo against its own checkpoint pool"


def plot_history(history: list[dict[str, Any]], path: str | os.PathLike[str], title: str = "") -> Figure:
    """The history as a PNG, with a caption under the panels that says what each one shows: losses,
    self-play throughput, replay-buffer fill with the learning rate, and the pool Elo at the
    checkpoints. Entries of older checkpoints (one per checkpoint, without buffer_fill) are drawn
    as well. Returns the matplotlib Figure."""
    from matplotlib.figure import Figure  # not pyplot: leaves the caller's backend alone

    rated = [h for h in history if h.get("elo") is not None]
    fig = Figure(figsize=(11, 8.4))
    (ax_loss, ax_speed), (ax_buffer, ax_elo) = fig.subplots(2, 2, sharex=True)
    losses = ("loss", "policy_loss", "value_loss")
    labels = ("total", "policy (cross-entropy)", "value", "ownership", "score")
    curves = zip((*losses, "ownership_loss", "score_loss"), labels)
    lines_panel(ax_loss, history, curves, "training losses (mean per log interval)", always=losses)
    ax_loss.set_ylim(bottom=0)

    two_axes(
        ax_speed, history, ("positions_per_s", "positions / s"), ("games_per_s", "games / s"), "self-play throughput"
    )
    two_axes(
        ax_buffer,
        history,
        ("buffer_fill", "positions held / capacity"),
        ("lr", "learning rate"),
        "replay buffer fill and learning rate",
        solid_colour="tab:green",
        dashed_colour="tab:gray",
        solid_top=1.02,
    )

    if rated:
        elo_panel(ax_elo, [h["step"] for h in rated], series(rated, "elo"), ELO_TITLE)
    else:
        ax_elo.text(
            0.5,
            0.5,
            "no pool Elo: this run has no tournament pool\n(pool_fraction = 0) or no checkpoint yet",
            ha="center",
            va="center",
            fontsize=9,
            color="0.4",
            transform=ax_elo.transAxes,
        )
        ax_elo.set_yticks([])
        ax_elo.set_title(ELO_TITLE)
    for ax in (ax_loss, ax_speed, ax_buffer, ax_elo):
        ax.grid(alpha=0.3)
    for ax in (ax_buffer, ax_elo):
        ax.set_xlabel("search step")

    caption = [
        "Losses: mean over the SGD steps of each log interval of the policy cross-entropy against the search's "
        "visit counts (it levels off well above 0, as those targets are spread out), the value loss against the "
        "game results, and their sum; there are none before the buffer holds min_buffer positions.",
        "Throughput: positions added to the replay buffer (solid) and self-play games finished (dashed) per "
        "second of search and SGD time; games end in waves at first, as they all start together.",
        "Buffer: the replay buffer's fill (positions held / buffer_size) and the learning rate of the cosine "
        "schedule (dashed).",
        "Pool Elo, at each checkpoint: "
        + pool_elo_note("checkpoints", "zerogym arena, or the demo's round robin")
        + ".",
    ]
    draw_caption(fig, caption, title)
    fig.savefig(path, dpi=90)
    return fig


def train(
    config: AlphaZeroConfig | dict[str, Any],
    out_dir: str | os.PathLike[str],
    resume: bool = False,
    progress: bool = True,
) -> AlphaZeroTrainer:
    """Run AlphaZero training as configured; returns the trainer (its net is the result)."""
    trainer = AlphaZeroTrainer(config, out_dir, resume=resume)
    trainer.run(progress=progress)
    return trainer
