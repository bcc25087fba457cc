"""An AlphaZero self-play task and the Ray actor that runs it.

A task is `steps` search steps of one worker slot's G games with one version of the weights:

    {"slot", "index", "seed", "steps", "version", "weights": [ref], "opponent": name or None,
     "opponent_weights": [ref] or None, "carry": the games' state to start from, or None}

The refs are wrapped in lists so that Ray hands them over unresolved: the worker fetches the weights
(one ray.put per version on the driver) only when the version differs from the one it holds, and
an opponent only when it changed. The search trees are reseeded from the task's seed, which the
driver derives from (run seed, slot, task index), so a task's games depend on its inputs only, not
on the machine that plays them: play_task gives the same bytes in the driver's process as in a worker.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from zerogym_agents.alphazero.selfplay import SelfPlay

if TYPE_CHECKING:
    import torch

Evaluator = Callable[..., Any]  # a net's evaluator for the batched search (nets.make_evaluator)


def play_task(
    engine: SelfPlay, evaluator: Evaluator, opp_evaluator: Evaluator, task: Mapping[str, Any]
) -> dict[str, Any]:
    """Run `task` on `engine` (a SelfPlay) and return its result: the learner's moves as arrays in
    the order they were played (games (M,), planes int8 (M, C, H, W), masks, policies, movers,
    root_values, and step_ends: rows played up to the end of each step), the games that ended as (step, game,
    returns, score), their finals (with auxiliary targets the final (ownership, score) of each,
    SelfPlay.finals; else None each) and the games' state at the end (carry). The evaluation caches
    start empty, so the result depends on the task alone, not on the tasks the worker ran before."""
    t0 = time.perf_counter()
    for ev in (evaluator, opp_evaluator):
        getattr(ev, "clear_cache", lambda: None)()
    if task["carry"] is not None:
        engine.load_carry(task["carry"])
    engine.rebuild(task["seed"])
    rows: list[tuple[Any, ...]] = []  # the learner's moves: (game, planes, mask, policy, mover, root value)
    finished: list[tuple[Any, ...]] = []  # (step, game, returns, score)
    finals: list[Any] = []
    step_ends: list[int] = []
    for t in range(task["steps"]):
        moves, done = engine.step(evaluator, opp_evaluator)
        rows.extend(moves)
        step_ends.append(len(rows))
        finished.extend((t, i, returns, score) for i, returns, score in done)
        finals.extend(engine.finals.get(i) for i, _, _ in done)
    h, w, c = engine.template.spec.obs_shape
    a = engine.template.spec.num_actions
    return {
        "slot": task["slot"],
        "index": task["index"],
        "version": task["version"],
        "opponent": task["opponent"],
        "games": np.array([r[0] for r in rows], np.int64),
        "planes": np.stack([r[1] for r in rows]).astype(np.int8) if rows else np.zeros((0, c, h, w), np.int8),
        "masks": np.stack([r[2] for r in rows]) if rows else np.zeros((0, a), np.int8),
        "policies": np.stack([r[3] for r in rows]) if rows else np.zeros((0, a), np.float32),
        "movers": np.array([r[4] for r in rows], np.int64),
        "root_values": np.array([r[5] for r in rows], np.float32),
        "step_ends": np.array(step_ends, np.int64),
        "finished": finished,
        "finals": finals,
        "carry": engine.carry(),
        "seconds": time.perf_counter() - t0,
    }


def task_moves(result: Mapping[str, Any]) -> Iterator[tuple[Iterable[tuple[Any, ...]], list[tuple[Any, ...]]]]:
    """The result's moves step by step: yields (moves of the step as (game, planes, mask, policy,
    mover, root value) tuples, the games that ended in it as (game, returns, score, final))."""
    start, k, fin, finals = 0, 0, result["finished"], result["finals"]
    for t, end in enumerate(result["step_ends"]):
        moves = zip(
            result["games"][start:end].tolist(),
            result["planes"][start:end],
            result["masks"][start:end],
            result["policies"][start:end],
            result["movers"][start:end].tolist(),
            result["root_values"][start:end].tolist(),
        )
        done = []
        while k < len(fin) and fin[k][0] == t:
            done.append(fin[k][1:] + (finals[k],))
            k += 1
        yield moves, done
        start = end


class SelfPlayWorker:
    """A self-play worker (made a Ray actor by runtime.actor_class): its own SelfPlay engine, nets and
    evaluators; torch and the search run on `threads` threads (unless the config sets the search's), the nets
    on `device`."""

    def __init__(self, config_json: str, threads: int = 1, device: str = "cpu") -> None:
        import torch

        from zerogym_agents.alphazero.config import AlphaZeroConfig
        from zerogym_agents.core.devices import resolve_device

        torch.set_num_threads(threads)
        self.cfg = AlphaZeroConfig.from_json(config_json)
        if self.cfg.threads is None:  # the search on the worker's own CPUs, not every core of the node
            self.cfg.threads = threads
        self.device = resolve_device(device)
        self.engine = SelfPlay(self.cfg)
        # the learner's and the opponent's nets and evaluators, made with the first weights
        self.net: torch.nn.Module | None = None
        self.opp_net: torch.nn.Module | None = None
        self.evaluator: Evaluator | None = None
        self.opp_evaluator: Evaluator | None = None
        self.version: int | None = None
        self.opponent: str | None = None
        self.tasks_run = self.fetches = 0

    def _load(self, payload: dict[str, Any]) -> None:
        import copy

        import torch

        from zerogym_agents.nets import make_evaluator, net_from_payload

        if self.net is None:
            with torch.random.fork_rng(devices=[]):
                self.net = net_from_payload(payload, source="the driver's weights", device=self.device)
            self.opp_net = copy.deepcopy(self.net)
            self.evaluator, self.opp_evaluator = (
                make_evaluator(net, threads=None, cache=self.cfg.eval_cache, precision=self.cfg.precision)
                for net in (self.net, self.opp_net)
            )
        else:
            self.net.load_state_dict(payload["state_dict"])

    def play(self, task: Mapping[str, Any]) -> dict[str, Any]:
        import ray

        if task["version"] != self.version:
            self._load(ray.get(task["weights"][0]))
            self.version = task["version"]
            self.fetches += 1
        # made by the first task's _load (a task always brings a weights version)
        assert self.opp_net is not None and self.evaluator is not None and self.opp_evaluator is not None
        if task["opponent"] is not None and task["opponent"] != self.opponent:
            self.opp_net.load_state_dict(ray.get(task["opponent_weights"][0]))
            self.opponent = task["opponent"]
        result = play_task(self.engine, self.evaluator, self.opp_evaluator, task)
        self.tasks_run += 1
        return result

    def info(self) -> dict[str, Any]:
        """What this worker has done, and where it runs."""
        import os

        import torch

        from zerogym_agents.scale.runtime import node_id

        return {
            "tasks_run": self.tasks_run,
            "fetches": self.fetches,
            "version": self.version,
            "pid": os.getpid(),
            "node": node_id(),
            "threads": torch.get_num_threads(),
        }
