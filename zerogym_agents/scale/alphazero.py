"""RayAlphaZeroTrainer: AlphaZero with self-play on Ray actors; the driver owns the learner and the replay buffer.

Each of `workers` slots is one SelfPlayWorker actor playing G = concurrent_games games. The driver
submits tasks (selfplay_worker.py: steps_per_task search steps with one weights version), at most
max_inflight per worker, so the object store holds a bounded number of results; it consumes each
result (the learner's moves, the finished games into the replay buffer, pool results into the pool's
Elo), trains while the SGD samples stay within samples_per_position per new position (KataGo trains
on about 4), and publishes the weights with one ray.put per version when the next task needs them.

A step of this trainer is one consumed task (steps_per_task search steps of one worker's G games),
so max_steps, checkpoint_every and log_every count tasks. Tree seeds derive from (run seed, slot,
task index). The driver keeps each slot's games (the state after its last consumed task, and the
learner's moves of the games in progress), so a killed worker loses only its tasks in flight: the
driver starts a new actor for the slot and resubmits them from that state.

Modes (RayConfig.mode):
- "deterministic": lockstep rounds. Round r submits task r of every slot with the weights as they
  are at the round's start, consumes the results in slot order and trains after each. A checkpoint
  (at any step) holds the round's weights and opponent, so a resumed run resubmits the rest of the
  round exactly: it continues bit for bit as the run that was not stopped.
- "async" (default): workers never wait for the learner; results are consumed as they come and each
  slot is topped up with the newest weights. A resumed run loses no data (every slot continues its
  games from the state of its last consumed task; results in flight are played again), but it is
  not bit-reproducible: which weights a task used depends on timing.

Logged besides AlphaZeroTrainer's entries: weight staleness (versions between a task's weights and
the learner's when it is consumed) p50 / p95 / max, the share of work time spent publishing weights,
SGD samples per position, tasks lost to dead workers and the most tasks in flight.
"""

from __future__ import annotations

import collections
import time
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from zerogym_agents.training.run_folder import LogDir
from zerogym_agents.alphazero.selfplay import GameRecords, tree_seed
from zerogym_agents.alphazero.trainer import AlphaZeroTrainer, PendingMove, saved_move, restored_move
from zerogym_agents.core.checkpoint import CheckpointError
from zerogym_agents.core.file_checks import Config, DictOf, Fields, Int, ListOf, Maybe, Spec, StateBlob, Str, Tensor
from zerogym_agents.nets import net_payload
from zerogym_agents.nets.model import NetPayload
from zerogym_agents.scale import runtime
from zerogym_agents.scale.config import RayConfig
from zerogym_agents.scale.selfplay_worker import SelfPlayWorker, task_moves

if TYPE_CHECKING:
    from zerogym_agents.agents.policy import PolicyNet
    from zerogym_agents.alphazero.config import AlphaZeroConfig

Task = collections.namedtuple("Task", "index ref version opponent")


class Slot:
    """One worker slot: its actor, its games as of its last consumed task, the learner's moves of the
    games in progress, the next task index, and the tasks in flight (oldest first)."""

    def __init__(self, carry: dict[str, Any], num_games: int, root_value_weight: float) -> None:
        self.actor: Any = None  # a SelfPlayWorker actor's handle
        self.carry = carry
        self.records = GameRecords(num_games, root_value_weight)
        self.next_index = 0  # of the next task to submit
        self.consumed = 0  # tasks consumed: the carry is the state after task consumed - 1
        self.inflight: collections.deque[Task] = collections.deque()
        self.fresh = True  # the actor has not got this slot's games yet: send the carry


class RayAlphaZeroTrainer(AlphaZeroTrainer):
    """AlphaZeroTrainer with self-play on Ray workers (see the module docstring). ray_config: a
    RayConfig or its dict. Call close() to stop the workers (the run's Ray instance stays up)."""

    unit = "task"
    overlaps_sgd = False  # the learner trains while the workers play anyway
    # deterministic mode: the round's object store refs (version, weights, opponent name, its weights) once put
    _round_refs: tuple[int, Any, str | None, Any] | None

    def __init__(
        self,
        config: AlphaZeroConfig | dict[str, Any],
        out_dir: str,
        resume: bool = False,
        log_dir: LogDir = None,
        net: PolicyNet | None = None,
        ray_config: RayConfig | dict[str, Any] | None = None,
    ) -> None:
        rc = RayConfig.coerce(ray_config)
        self.ray_cfg = rc
        self.ray = runtime.require_ray()
        self.version = 0  # of the weights published last (0: none yet)
        self._published: tuple[int, Any] | None = None  # (version, ref) of the last ray.put
        self._published_at = 0  # tasks consumed then
        self._dirty = True  # the net changed since the last publication
        self._opponent_ref: Any = None
        # deterministic: (round, weights version, weights payload, opponent name, snapshot)
        self._round: tuple[int, int, dict[str, Any], str | None, Any] | None = None
        self.lost_tasks = 0
        self._reset_scale_stats()
        super().__init__(config, out_dir, resume=resume, log_dir=log_dir, net=net)
        if self.cfg.max_train_per_step == 0:
            raise ValueError(
                "max_train_per_step = 0 turns training off; the ray backend trains by "
                "RayConfig.samples_per_position instead: leave max_train_per_step > 0"
            )
        if not hasattr(self, "slots"):  # not restored from a checkpoint
            self.slots = [
                Slot(self.selfplay.carry(), self.cfg.concurrent_games, self.cfg.root_value_weight)
                for _ in range(rc.workers)
            ]
        self._started = False

    def _reset_scale_stats(self) -> None:
        self._staleness: list[int] = []
        self._publish_seconds, self._scale_seconds = 0.0, 0.0
        self._inflight_max = 0

    # ---- the pool opponent and the weights, published once per version ----------------------
    def _rebuild_trees(self) -> None:
        """At the start and at every checkpoint: draw the pool opponent for the next stretch."""
        if self.num_pool:
            self.opponent, self._opponent_snapshot = self.pool.sample()
            self._opponent_ref = None

    def _set_net(self, net: PolicyNet) -> None:
        super()._set_net(net)
        self._dirty = True

    def train_some(self, steps: int | None = None) -> None:
        before = self.train_steps
        super().train_some(steps)
        self._dirty |= self.train_steps != before

    def _weights(self) -> tuple[int, Any]:
        """(version, ref) of the current weights, put in the object store when they changed and
        publish_every tasks were consumed since the last version (workers by default)."""
        every = self.ray_cfg.publish_every or self.ray_cfg.workers
        consumed = sum(slot.consumed for slot in self.slots)
        if self._published is None or self._dirty and consumed - self._published_at >= every:
            self._published_at = consumed
            t0 = time.perf_counter()
            self.version += 1
            self._published = (self.version, self.ray.put(net_payload(self.net)))
            self._publish_seconds += time.perf_counter() - t0
            self._dirty = False
        return self._published

    def _opponent(self) -> tuple[str | None, Any]:
        if not self.num_pool:
            return None, None
        if self._opponent_ref is None:
            self._opponent_ref = self.ray.put(self._opponent_snapshot)
        return self.opponent, self._opponent_ref

    # ---- workers ------------------------------------------------------------------------------
    def _start(self) -> None:
        rc = self.ray_cfg
        runtime.start(rc.address)
        self._actor_class = runtime.actor_class(SelfPlayWorker, rc.cpus_per_worker, rc.gpus_per_worker)
        for s, _slot in enumerate(self.slots):
            self._new_actor(s)
        self._started = True
        if rc.mode == "deterministic":
            self._submit_round()
        else:
            for s in range(len(self.slots)):
                self._top_up(s)

    def _new_actor(self, s: int) -> None:
        rc = self.ray_cfg
        device = self.cfg.device if rc.gpus_per_worker > 0 else "cpu"
        slot = self.slots[s]
        slot.actor = self._actor_class.remote(self.cfg.to_json(), runtime.worker_threads(rc.cpus_per_worker), device)
        slot.fresh = True

    def _submit(
        self, s: int, index: int, version: int, weights_ref: Any, opponent: str | None, opponent_ref: Any
    ) -> None:
        slot = self.slots[s]
        task = {
            "slot": s,
            "index": index,
            "seed": tree_seed(self.cfg.seed, s, index),
            "steps": self.ray_cfg.steps_per_task,
            "version": version,
            "weights": [weights_ref],
            "opponent": opponent,
            "opponent_weights": [opponent_ref] if opponent_ref is not None else None,
            "carry": slot.carry if slot.fresh else None,
        }
        slot.fresh = False
        slot.inflight.append(Task(index, slot.actor.play.remote(task), version, opponent))
        self._inflight_max = max(self._inflight_max, sum(len(x.inflight) for x in self.slots))

    def _top_up(self, s: int) -> None:
        slot = self.slots[s]
        while len(slot.inflight) < self.ray_cfg.max_inflight:
            self._submit(s, slot.next_index, *self._weights(), *self._opponent())
            slot.next_index += 1

    def _submit_round(self) -> None:
        """Deterministic mode: task `round` of every slot with the weights of the round's start (kept,
        with the round's opponent, for checkpoints taken within the round)."""
        if self._round is None:
            self.version += 1
            payload = net_payload(self.net)
            payload["state_dict"] = {k: v.clone() for k, v in payload["state_dict"].items()}
            self._round = (
                self.slots[0].consumed,
                self.version,
                payload,
                self.opponent if self.num_pool else None,
                self._opponent_snapshot if self.num_pool else None,
            )
            self._round_refs = None
        r, version, payload, opponent, snapshot = self._round
        if self._round_refs is None:
            t0 = time.perf_counter()
            self._round_refs = (
                version,
                self.ray.put(payload),
                opponent,
                self.ray.put(snapshot) if snapshot is not None else None,
            )
            self._publish_seconds += time.perf_counter() - t0
        for s, slot in enumerate(self.slots):
            if slot.consumed == r and not slot.inflight:
                self._submit(s, r, *self._round_refs)
                slot.next_index = r + 1

    def _restart(self, s: int) -> None:
        """Slot s's actor died: a new one, and its tasks in flight resubmitted from the slot's games."""
        slot = self.slots[s]
        lost = list(slot.inflight)
        self.lost_tasks += len(lost)
        slot.inflight.clear()
        try:
            self.ray.kill(slot.actor)
        except Exception:  # already gone
            pass
        self._new_actor(s)
        if self.ray_cfg.mode == "deterministic":
            self._submit_round()
        else:
            slot.next_index = lost[0].index if lost else slot.next_index
            self._top_up(s)

    def _result(self, s: int) -> tuple[Any, dict[str, Any]]:
        """The oldest task of slot s, its actor restarted (and the task played again) as often as it dies."""
        slot = self.slots[s]
        while True:
            task = slot.inflight[0]
            try:
                result = self.ray.get(task.ref)
            except self.ray.exceptions.RayActorError:
                self._restart(s)
                continue
            slot.inflight.popleft()
            # copies: views of the object store would pin a whole task while one of its games is in progress
            result["finals"] = [None if f is None else (f[0].copy(), f[1]) for f in result["finals"]]
            return task, {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in result.items()}

    def _next_slot(self) -> int:
        """The slot whose oldest task is consumed next: in deterministic mode the next slot of the
        round in order; in async mode the first whose oldest task is done."""
        if self.ray_cfg.mode == "deterministic":
            assert self._round is not None  # submitted before any of its tasks is consumed
            r = self._round[0]
            return next(s for s, slot in enumerate(self.slots) if slot.consumed == r)
        heads = {slot.inflight[0].ref: s for s, slot in enumerate(self.slots) if slot.inflight}
        ready, _ = self.ray.wait(list(heads), num_returns=1)
        return heads[ready[0]]

    # ---- the run ------------------------------------------------------------------------------
    def run_name(self) -> str:
        return f"alphazero {self.cfg.game} (ray, {self.ray_cfg.workers} workers, {self.ray_cfg.mode})"

    def self_play_step(self) -> None:
        """Consume one task: its moves and finished games go to the replay buffer, pool results to
        the pool."""
        self._consume_task()

    def _consume_task(self) -> int:
        """self_play_step's work; returns the slot whose task it consumed."""
        if not self._started:
            self._start()
        s = self._next_slot()
        task, result = self._result(s)
        slot = self.slots[s]
        self._staleness.append(self.version - task.version)
        for moves, done in task_moves(result):
            slot.records.add(moves)
            for i, returns, score, final in done:
                self.add_game(slot.records.finish(i, returns, final))
                if score is not None and task.opponent in self.pool.entries:
                    self.pool.record(task.opponent, score)
                    self.pool_games += 1
        slot.carry = result["carry"]
        slot.consumed += 1
        self.step += 1
        return s

    def train_step(self) -> None:
        """One task consumed, then SGD while samples per new position stay within samples_per_position;
        then the slot is topped up (async) or, at the end of a round, the next round submitted."""
        t0 = time.perf_counter()
        s = self._consume_task()
        cfg = self.cfg
        allowed = int(self.ray_cfg.samples_per_position * self.positions // cfg.batch_size) - self.train_steps
        if allowed > 0:
            self.train_some(allowed)
        if self.ray_cfg.mode == "deterministic":
            assert self._round is not None
            if all(slot.consumed > self._round[0] for slot in self.slots):
                self._round = None
                self._submit_round()
        else:
            self._top_up(s)
        spent = time.perf_counter() - t0
        self._work_seconds += spent
        self._scale_seconds += spent

    def _log(self, checkpoint: bool = False) -> None:
        n = len(self.history)
        super()._log(checkpoint)
        if len(self.history) == n:
            return
        st = np.array(self._staleness or [0])
        entry = self.history[-1]
        entry.update(
            {
                "staleness_p50": float(np.percentile(st, 50)),
                "staleness_p95": float(np.percentile(st, 95)),
                "staleness_max": float(st.max()),
                "publish_share": self._publish_seconds / self._scale_seconds if self._scale_seconds else None,
                "samples_per_position": self.train_steps * self.cfg.batch_size / max(1, self.positions),
                "lost_tasks": float(self.lost_tasks),
                "inflight_max": float(self._inflight_max),
                "weights_version": float(self.version),
            }
        )
        if self.writer:
            for k in ("staleness_p50", "staleness_p95", "publish_share", "samples_per_position", "lost_tasks"):
                if entry[k] is not None:
                    self.writer.add_scalar(f"alphazero/{k}", entry[k], self.step)
        self._reset_scale_stats()

    def close(self) -> None:
        """Stop the workers (their tasks in flight are dropped; the last checkpoint has their games)."""
        for slot in getattr(self, "slots", []):
            if slot.actor is not None:
                self.ray.kill(slot.actor)
                slot.actor = None
            slot.inflight.clear()
        self._started = False

    def worker_info(self) -> list[dict[str, Any]]:
        """Each worker's SelfPlayWorker.info()."""
        return self.ray.get([slot.actor.info.remote() for slot in self.slots])

    # ---- checkpoints ----------------------------------------------------------------------------
    def _extra_state(self) -> dict[str, Any]:
        def carry(c: dict[str, Any]) -> dict[str, Any]:
            return {
                "roots": [torch.frombuffer(bytearray(bytes(b)), dtype=torch.uint8) for b in c["roots"]],
                "move_no": torch.from_numpy(np.array(c["move_no"], np.int64)),
                "learner_seat": torch.from_numpy(np.array(c["learner_seat"], np.int64)),
            }

        rnd = self._round
        return {
            "ray": {
                "config": self.ray_cfg.to_json(),
                "version": self.version,
                "lost_tasks": self.lost_tasks,
                "consumed": torch.tensor([s.consumed for s in self.slots], dtype=torch.int64),
                "carries": [carry(s.carry) for s in self.slots],
                "pending": [[[saved_move(*move) for move in g] for g in s.records.pending] for s in self.slots],
                "round_version": rnd[1] if rnd is not None else 0,
                "round_weights": rnd[2] if rnd is not None else None,
                "round_opponent": rnd[3] if rnd is not None else None,
                "round_opponent_weights": rnd[4] if rnd is not None else None,
            }
        }

    def _extra_schema(self) -> dict[str, Spec]:
        cfg, spec = self.cfg, self.template.spec
        h, w, c = spec.obs_shape
        G, N, P = cfg.concurrent_games, self.ray_cfg.workers, self.num_pool
        carry = Fields(
            {
                "roots": ListOf(StateBlob(self.template, playing=True), length=G),
                "move_no": Tensor(torch.int64, (G,), low=0),
                "learner_seat": Tensor(torch.int64, (P,), 0, 1),
            }
        )
        return {
            "ray": Fields(
                {
                    "config": Config(RayConfig),
                    "version": Int(0),
                    "lost_tasks": Int(0),
                    "consumed": Tensor(torch.int64, (N,), low=0),
                    "carries": ListOf(carry, length=N),
                    "pending": ListOf(ListOf(ListOf(PendingMove(c, h, w, spec.num_actions)), length=G), length=N),
                    "round_version": Int(0),
                    "round_weights": Maybe(NetPayload()),
                    "round_opponent": Maybe(Str()),
                    "round_opponent_weights": Maybe(DictOf(Str())),
                }
            )
        }

    def _load_extra(self, data: dict[str, Any]) -> None:
        saved = data["ray"]
        theirs = saved["config"]  # checked with the rest of the checkpoint
        for name in ("workers", "mode", "steps_per_task"):
            if getattr(theirs, name) != getattr(self.ray_cfg, name):
                raise CheckpointError(
                    f"a checkpoint of RayConfig.{name}={getattr(theirs, name)!r}, but this run has "
                    f"{name}={getattr(self.ray_cfg, name)!r}; resume with the same {name}"
                )
        G = self.cfg.concurrent_games
        self.slots = []
        for k, c in enumerate(saved["carries"]):
            slot = Slot(
                {
                    "roots": [bytes(b.numpy()) for b in c["roots"]],
                    "move_no": c["move_no"].numpy().copy(),
                    "learner_seat": c["learner_seat"].numpy().copy(),
                },
                G,
                self.cfg.root_value_weight,
            )
            slot.records.pending = [[restored_move(*move) for move in g] for g in saved["pending"][k]]
            slot.consumed = slot.next_index = int(saved["consumed"][k])
            self.slots.append(slot)
        self.version, self.lost_tasks = saved["version"], saved["lost_tasks"]
        if self.ray_cfg.mode == "deterministic" and saved["round_weights"] is not None:
            r = min(s.consumed for s in self.slots)
            self._round = (
                r,
                saved["round_version"],
                saved["round_weights"],
                saved["round_opponent"],
                saved["round_opponent_weights"],
            )
            self._round_refs = None
