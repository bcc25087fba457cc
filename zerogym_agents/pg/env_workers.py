"""PPO's games in worker processes: one PoolShard (a PoolVecEnv and a mirror of the pool) per worker.

- MirrorPool: an OpponentPool whose snapshots, Elos and learner Elo are set from the driver's pool
  before each step, and which notes the results it records (the driver replays them on its pool).
- PoolShard: what a worker holds (its share of the games as a PoolVecEnv against a MirrorPool, torch
  on `threads` threads); call(method, *args) runs reset / step / state_dict / load_state_dict.
- ProcessWorkers: PoolShards in worker processes (forkserver), spoken to over pipes, lockstep.
  scale/ppo.py has the same over Ray actors.
"""
import multiprocessing as mp
import weakref
from collections import OrderedDict

from zerogym_agents.training.pool import OpponentPool

PRELOAD = ["torch", "zerogym.vector", "zerogym_agents.pg.pool_vec_env", "zerogym_agents.pg.env_workers"]


class MirrorPool(OpponentPool):
    """A worker's copy of the driver's pool: mirror(sync) makes its entries and Elos the driver's
    (snapshots arrive once, in sync["new"]); its own generator draws the opponents; record() also
    appends (name, score) to `results`, for the driver."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.results = []

    def mirror(self, sync):
        """sync: {"names", "elos", "learner_elo", "new": {name: snapshot}} (WorkerPoolVecEnv._sync)."""
        have = {name: entry[0] for name, entry in self.entries.items()}
        have.update(sync["new"])
        missing = [name for name in sync["names"] if name not in have]
        if missing:
            raise ValueError(f"pool sync names snapshots {missing} that this worker was never sent")
        self.entries = OrderedDict((name, [have[name], float(elo)]) for name, elo in zip(sync["names"], sync["elos"]))
        self.learner_elo = float(sync["learner_elo"])

    def record(self, name, score):
        super().record(name, score)
        self.results.append((name, float(score)))


class PoolShard:
    """`num_games` games of the run in config `config_json` (a PGConfig's JSON) against a MirrorPool:
    draws seeded by pool_seed, the games' own stream by env_seed (reset(seed) replaces it)."""

    COMMANDS = ("reset", "step", "state_dict", "load_state_dict", "pool_entries")

    def __init__(self, config_json, num_games, pool_seed, env_seed, threads=1):
        import torch

        from zerogym_agents.pg.config import PGConfig
        from zerogym_agents.pg.pool_vec_env import PoolVecEnv
        torch.set_num_threads(threads)
        cfg = PGConfig.from_json(config_json)
        self.pool = MirrorPool(cfg.pool_size, mode=cfg.pool_mode, k_factor=cfg.pool_k_factor, seed=pool_seed)
        self.vec = PoolVecEnv(cfg.game, self.pool, num_games, cfg.game_kwargs, greedy=cfg.opponent_greedy,
                              seed=env_seed)

    def call(self, method, *args):
        if method not in self.COMMANDS:
            raise ValueError(f"PoolShard has no command {method!r}; commands: {', '.join(self.COMMANDS)}")
        return getattr(self, method)(*args)

    def _results(self):
        results, self.pool.results = self.pool.results, []
        return results

    def reset(self, sync, seed):
        """New games (seeded by `seed` when it is not None); returns (obs, masks, results)."""
        self.pool.mirror(sync)
        if seed is not None:
            self.vec.seed(seed)
        obs = self.vec.reset()
        return obs, self.vec.action_masks(), self._results()

    def step(self, sync, actions):
        """The learner's `actions` in every game, then the opponents' replies; returns (obs, rewards,
        dones, infos, masks, results) with results the (snapshot, score) pairs recorded, in order."""
        self.pool.mirror(sync)
        self.vec.step_async(actions)
        obs, rewards, dones, infos = self.vec.step_wait()
        return obs, rewards, dones, infos, self.vec.action_masks(), self._results()

    def state_dict(self, sync):
        """The games (with the weights of opponents the driver's pool, as of `sync`, has dropped) and
        the draws' generator. Mirroring here changes nothing the next step would not."""
        self.pool.mirror(sync)
        return {"games": self.vec.state_dict(), "pool_rng": self.pool.rng.bit_generator.state}

    def load_state_dict(self, sync, state):
        """Restore state_dict()'s output (with the driver's pool as of the checkpoint); returns
        (obs, masks) of the games in progress."""
        self.pool.mirror(sync)
        self.vec.load_state_dict(state["games"])
        self.pool.rng.bit_generator.state = state["pool_rng"]
        return self.vec._obs(), self.vec.action_masks()


    def pool_entries(self, sync=None):
        """(names, Elos, learner Elo, snapshots) of the mirror, after mirroring `sync` when given."""
        if sync is not None:
            self.pool.mirror(sync)
        entries = self.pool.entries
        return list(entries), [e[1] for e in entries.values()], self.pool.learner_elo, [e[0] for e in entries.values()]


def _serve(conn, shard_args):
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
            except Exception as err:            # reported to the driver, which raises it
                conn.send(("error", f"{type(err).__name__}: {err}"))
    except (EOFError, KeyboardInterrupt, BrokenPipeError):
        pass
    except Exception as err:                    # the shard could not be built
        conn.send(("error", f"{type(err).__name__}: {err}"))
    finally:
        conn.close()


def _stop(procs, conns):
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

    def __init__(self, shard_args):
        if "forkserver" in mp.get_all_start_methods():
            ctx = mp.get_context("forkserver")
            ctx.set_forkserver_preload(PRELOAD)     # imported once by the server, not by every worker
        else:
            ctx = mp.get_context("spawn")
        self.procs, self.conns = [], []
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

    def __len__(self):
        return len(self.procs)

    def send(self, k, method, *args):
        try:
            self.conns[k].send((method, args))
        except (OSError, BrokenPipeError):
            self._died(k)

    def recv(self, k):
        try:
            status, value = self.conns[k].recv()
        except (EOFError, OSError):
            self._died(k)
        if status == "error":
            raise RuntimeError(f"env worker {k}: {value}")
        return value

    def _died(self, k):
        self.procs[k].join(timeout=1)
        raise RuntimeError(f"env worker {k} (process {self.procs[k].pid}) stopped, exit code "
                           f"{self.procs[k].exitcode}; the run can resume from its last checkpoint")

    def close(self):
        self._finalizer()
