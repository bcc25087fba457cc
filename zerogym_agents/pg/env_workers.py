"""PPO's games in worker processes: one PoolShard (a PoolVecEnv and a mirror of the pool) per worker.

- MirrorPool: an OpponentPool whose snapshots, Elos and learner Elo are set from the driver's pool
  before each step, and which notes the results it records (the driver replays them on its pool).
- PoolShard: what a worker holds (its share of the games as a PoolVecEnv against a MirrorPool, torch
  on `threads` threads); call(method, *args) runs reset / step / state_dict / load_state_dict.
- ProcessWorkers: PoolShards in worker processes (forkserver), spoken to over pipes, lockstep.
  scale/ppo.py has the same over Ray actors.
"""

from __future__ import annotations

import multiprocessing as mp
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any, NoReturn

import numpy as np

from zerogym_agents.training.pool import OpponentPool

PRELOAD = ["torch", "zerogym.vector", "zerogym_agents.pg.pool_vec_env", "zerogym_agents.pg.env_workers"]
Sync = dict[str, Any]  # the driver's pool as sent: {"names", "elos", "learner_elo", "new"}
Results = list[tuple[str, float]]  # (snapshot, learner's score) of each game recorded, in order


class MirrorPool(OpponentPool):
    """A worker's copy of the driver's pool: mirror(sync) makes its entries and Elos the driver's
    (snapshots arrive once, in sync["new"]); its own generator draws the opponents; record() also
    appends (name, score) to `results`, for the driver."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.results: Results = []

    def mirror(self, sync: Sync) -> None:
        """sync: {"names", "elos", "learner_elo", "new": {name: snapshot}} (WorkerPoolVecEnv._sync)."""
        have = {name: entry[0] for name, entry in self.entries.items()}
        have.update(sync["new"])
        missing = [name for name in sync["names"] if name not in have]
        if missing:
            raise ValueError(f"pool sync names snapshots {missing} that this worker was never sent")
        self.entries = OrderedDict((name, [have[name], float(elo)]) for name, elo in zip(sync["names"], sync["elos"]))
        self.learner_elo = float(sync["learner_elo"])

    def record(self, name: str, score: float) -> None:
        super().record(name, score)
        self.results.append((name, float(score)))


class PoolShard:
    """`num_games` games of the run in config `config_json` (a PGConfig's JSON) against a MirrorPool:
    draws seeded by pool_seed, the games' own stream by env_seed (reset(seed) replaces it)."""

    COMMANDS = ("reset", "step", "state_dict", "load_state_dict", "pool_entries")

    def __init__(
        self, config_json: str, num_games: int, pool_seed: int, env_seed: int | None, threads: int = 1
    ) -> None:
        import torch

        from zerogym_agents.pg.config import PGConfig
        from zerogym_agents.pg.pool_vec_env import PoolVecEnv

        torch.set_num_threads(threads)
        cfg = PGConfig.from_json(config_json)
        self.pool = MirrorPool(cfg.pool_size, mode=cfg.pool_mode, k_factor=cfg.pool_k_factor, seed=pool_seed)
        self.vec = PoolVecEnv(
            cfg.game, self.pool, num_games, cfg.game_kwargs, greedy=cfg.opponent_greedy, seed=env_seed
        )

    def call(self, method: str, *args: Any) -> Any:
        if method not in self.COMMANDS:
            raise ValueError(f"PoolShard has no command {method!r}; commands: {', '.join(self.COMMANDS)}")
        return getattr(self, method)(*args)

    def _results(self) -> Results:
        results, self.pool.results = self.pool.results, []
        return results

    def reset(self, sync: Sync, seed: int | None) -> tuple[np.ndarray, np.ndarray, Results]:
        """New games (seeded by `seed` when it is not None); returns (obs, masks, results)."""
        self.pool.mirror(sync)
        if seed is not None:
            self.vec.seed(seed)
        obs = self.vec.reset()
        return obs, self.vec.action_masks(), self._results()

    def step(
        self, sync: Sync, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]], np.ndarray, Results]:
        """The learner's `actions` in every game, then the opponents' replies; returns (obs, rewards,
        dones, infos, masks, results) with results the (snapshot, score) pairs recorded, in order."""
        self.pool.mirror(sync)
        self.vec.step_async(actions)
        obs, rewards, dones, infos = self.vec.step_wait()
        return obs, rewards, dones, infos, self.vec.action_masks(), self._results()

    def state_dict(self, sync: Sync) -> dict[str, Any]:
        """The games (with the weights of opponents the driver's pool, as of `sync`, has dropped) and
        the draws' generator. Mirroring here changes nothing the next step would not."""
        self.pool.mirror(sync)
        return {"games": self.vec.state_dict(), "pool_rng": self.pool.rng.bit_generator.state}

    def load_state_dict(self, sync: Sync, state: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        """Restore state_dict()'s output (with the driver's pool as of the checkpoint); returns
        (obs, masks) of the games in progress."""
        self.pool.mirror(sync)
        self.vec.load_state_dict(state["games"])
        self.pool.rng.bit_generator.state = state["pool_rng"]
        return self.vec._obs(), self.vec.action_masks()

    def pool_entries(self, sync: Sync | None = None) -> tuple[list[str], list[float], float, list[Any]]:
        """(names, Elos, learner Elo, snapshots) of the mirror, after mirroring `sync` when given."""
        if sync is not None:
            self.pool.mirror(sync)
        entries = self.pool.entries
        return list(entries), [e[1] for e in entries.values()], self.pool.learner_elo, [e[0] for e in entries.values()]


def _serve(conn: Connection, shard_args: Sequence[Any]) -> None:
    """A worker process: build the PoolShard, then answer (method, args) messages until None."""
    try:
        shard = PoolShard(*shard_args)
        conn.send(("ok", None))
        while True:
            message = conn.recv()
            if message is None:
                break
            try:
                conn.send(("ok", shard.call(message[0], *message[1])))
            except Exception as err:  # reported to the driver, which raises it
                conn.send(("error", f"{type(err).__name__}: {err}"))
    except (EOFError, KeyboardInterrupt, BrokenPipeError):
        pass
    except Exception as err:  # the shard could not be built
        conn.send(("error", f"{type(err).__name__}: {err}"))
    finally:
        conn.close()


def _stop(procs: list[BaseProcess], conns: list[Connection]) -> None:
    for conn in conns:
        try:
            conn.send(None)
        except (OSError, BrokenPipeError):
            pass
    for proc in procs:
        proc.join(timeout=5)
        if proc.is_alive():
            proc.terminate()
            proc.join()
    for conn in conns:
        conn.close()


class ProcessWorkers:
    """One worker process per entry of shard_args (PoolShard's arguments), started with forkserver
    (spawn where there is none; a script that starts them needs the `if __name__ == "__main__":`
    guard, as for any multiprocessing start method but fork): send(k, method, *args) then recv(k)
    for worker k's answer. A worker that fails raises RuntimeError here, naming it; close() (or
    garbage collection) stops them."""

    def __init__(self, shard_args: Sequence[Sequence[Any]]) -> None:
        ctx: BaseContext
        if "forkserver" in mp.get_all_start_methods():
            ctx = mp.get_context("forkserver")
            ctx.set_forkserver_preload(PRELOAD)  # imported once by the server, not by every worker
        else:
            ctx = mp.get_context("spawn")
        self.procs: list[BaseProcess] = []
        self.conns: list[Connection] = []
        for k, args in enumerate(shard_args):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_serve, args=(child, args), daemon=True, name=f"zerogym-env-worker-{k}")
            proc.start()
            child.close()
            self.procs.append(proc)
            self.conns.append(parent)
        self._finalizer = weakref.finalize(self, _stop, self.procs, self.conns)
        for k in range(len(self.procs)):
            self.recv(k)

    def __len__(self) -> int:
        return len(self.procs)

    def send(self, k: int, method: str, *args: Any) -> None:
        try:
            self.conns[k].send((method, args))
        except (OSError, BrokenPipeError):
            self._died(k)

    def recv(self, k: int) -> Any:
        try:
            status, value = self.conns[k].recv()
        except (EOFError, OSError):
            self._died(k)
        if status == "error":
            raise RuntimeError(f"env worker {k}: {value}")
        return value

    def _died(self, k: int) -> NoReturn:
        self.procs[k].join(timeout=1)
        raise RuntimeError(
            f"env worker {k} (process {self.procs[k].pid}) stopped, exit code "
            f"{self.procs[k].exitcode}; the run can resume from its last checkpoint"
        )

    def close(self) -> None:
        self._finalizer()
