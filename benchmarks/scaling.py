"""Scaling of AlphaZero self-play over Ray workers, against plain processes, and a training run's costs.

    python benchmarks/scaling.py [--seconds 8] [--rounds 3] [--train-minutes 4]

1. Self-play throughput (games/s, positions/s) of the same task (selfplay_worker.play_task: steps of
   the batched search over G games) run in this process, by 1 and 2 Ray workers, and by 1 and 2
   plain processes (multiprocessing), measured interleaved, `rounds` times each; medians reported.
2. A training run with the ray backend (async, 2 workers) for `train_minutes`: learner steps/s,
   SGD samples per position, weight staleness p50/p95, the share of time spent publishing weights,
   object-store and process memory (driver + workers) sampled along the run.
3. A model of where the driver becomes the bottleneck as workers are added, fed with the measured
   constants.
4. PPO (MaskablePPO, `--workers 1` against `--backend local --workers 2`): learner moves per second
   over whole updates and over the rollouts alone, `ppo_rounds` short runs of each, interleaved.
   `--only ppo` measures this part alone and replaces the PPO section of scaling.md.

Writes benchmarks/results/scaling.md and scaling.png. Every process runs torch on one thread.
"""

import argparse
import multiprocessing as mp
import os
import sys
import tempfile
import time

import numpy as np
import psutil
import torch
from tqdm import tqdm

HERE = os.path.dirname(os.path.abspath(__file__))
CFG = dict(
    game="connect_four",
    concurrent_games=32,
    simulations=32,
    pool_fraction=0.25,
    net={"trunk": "resnet", "blocks": 2, "channels": 32, "value_loss": "bce"},
)
STEPS = 8  # search steps per task


def make_task(cfg, slot, index, version=1, carry=None):
    from zerogym_agents.alphazero.selfplay import tree_seed

    return {
        "slot": slot,
        "index": index,
        "seed": tree_seed(cfg.seed, slot, index),
        "steps": STEPS,
        "version": version,
        "opponent": None,
        "carry": carry,
    }


def local_engine(cfg):
    from zerogym_agents.alphazero.selfplay import SelfPlay
    from zerogym_agents.nets import PolicyValueNet, for_game, make_evaluator

    torch.manual_seed(0)
    net = PolicyValueNet(for_game(cfg.game, **cfg.net)).eval()
    opp = PolicyValueNet(for_game(cfg.game, **cfg.net)).eval()
    return SelfPlay(cfg), make_evaluator(net, threads=None), make_evaluator(opp, threads=None)


def count(result):
    return len(result["finished"]), len(result["games"])


def _process_worker(cfg_json, slot, seconds, queue):
    torch.set_num_threads(1)
    from zerogym_agents.alphazero.config import AlphaZeroConfig
    from zerogym_agents.scale.selfplay_worker import play_task

    cfg = AlphaZeroConfig.from_json(cfg_json)
    engine, ev, opp = local_engine(cfg)
    games = positions = k = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        g, p = count(play_task(engine, ev, opp, make_task(cfg, slot, k)))
        games, positions, k = games + g, positions + p, k + 1
    queue.put((games, positions, time.perf_counter() - t0))


def run_processes(cfg, n, seconds):
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_process_worker, args=(cfg.to_json(), s, seconds, queue)) for s in range(n)]
    for p in procs:
        p.start()
    out = [queue.get() for _ in procs]
    for p in procs:
        p.join()
    return sum(o[0] for o in out) / max(o[2] for o in out), sum(o[1] for o in out) / max(o[2] for o in out)


def run_in_process(cfg, seconds):
    from zerogym_agents.scale.selfplay_worker import play_task

    engine, ev, opp = local_engine(cfg)
    games = positions = k = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        g, p = count(play_task(engine, ev, opp, make_task(cfg, 0, k)))
        games, positions, k = games + g, positions + p, k + 1
    elapsed = time.perf_counter() - t0
    return games / elapsed, positions / elapsed


def run_ray(ray, actors, weights, cfg, seconds):
    """Each actor kept busy with 2 tasks in flight for `seconds`; returns (games/s, positions/s)."""
    games = positions = 0
    k = [0] * len(actors)
    inflight = {}
    t0 = time.perf_counter()
    for s, a in enumerate(actors):
        for _ in range(2):
            task = {**make_task(cfg, s, k[s]), "weights": [weights]}
            inflight[a.play.remote(task)] = s
            k[s] += 1
    while time.perf_counter() - t0 < seconds:
        ready, _ = ray.wait(list(inflight), num_returns=1)
        s = inflight.pop(ready[0])
        g, p = count(ray.get(ready[0]))
        games, positions = games + g, positions + p
        task = {**make_task(cfg, s, k[s]), "weights": [weights]}
        inflight[actors[s].play.remote(task)] = s
        k[s] += 1
    elapsed = time.perf_counter() - t0
    ray.get(list(inflight))  # drain (not counted)
    return games / elapsed, positions / elapsed


def throughput(cfg, seconds, rounds):
    import ray

    from zerogym_agents.nets import PolicyValueNet, for_game, net_payload
    from zerogym_agents.scale import runtime
    from zerogym_agents.scale.selfplay_worker import SelfPlayWorker

    torch.manual_seed(0)
    weights = ray.put(net_payload(PolicyValueNet(for_game(cfg.game, **cfg.net))))
    actor = runtime.actor_class(SelfPlayWorker, 1)
    results = {k: [] for k in ("in-process", "1 process", "2 processes", "ray 1 worker", "ray 2 workers")}
    bar = tqdm(total=rounds * len(results), desc="self-play throughput", unit="run")
    for _ in range(rounds):
        results["in-process"].append(run_in_process(cfg, seconds))
        bar.update()
        actors = [actor.remote(cfg.to_json(), 1, "cpu")]
        ray.get(actors[0].info.remote())
        results["ray 1 worker"].append(run_ray(ray, actors, weights, cfg, seconds))
        bar.update()
        for a in actors:
            ray.kill(a)
        results["1 process"].append(run_processes(cfg, 1, seconds))
        bar.update()
        results["2 processes"].append(run_processes(cfg, 2, seconds))
        bar.update()
        actors = [actor.remote(cfg.to_json(), 1, "cpu") for _ in range(2)]
        ray.get([a.info.remote() for a in actors])
        results["ray 2 workers"].append(run_ray(ray, actors, weights, cfg, seconds))
        bar.update()
        for a in actors:
            ray.kill(a)
    bar.close()
    return {
        k: (float(np.median([v[0] for v in vals])), float(np.median([v[1] for v in vals])), vals)
        for k, vals in results.items()
    }


def object_store_used(ray):
    total = ray.cluster_resources().get("object_store_memory", 0.0)
    free = ray.available_resources().get("object_store_memory", total)
    return total - free


def rss(pids):
    out = 0
    for pid in pids:
        try:
            out += psutil.Process(pid).memory_info().rss
        except psutil.Error:
            pass
    return out


def training_run(minutes):
    import ray

    from zerogym_agents.scale.alphazero import RayAlphaZeroTrainer

    cfg = {
        **CFG,
        "min_buffer": 1024,
        "batch_size": 128,
        "max_steps": 10**6,
        "checkpoint_every": 10**6,
        "log_every": 10,
        "buffer_size": 20000,
    }
    samples, history = [], []
    with tempfile.TemporaryDirectory() as d:
        tr = RayAlphaZeroTrainer(cfg, d, log_dir=False, ray_config={"workers": 2, "steps_per_task": STEPS})
        sgd_seconds = [0.0]
        base_train = tr.train_some

        def timed_train(steps=None):
            t = time.perf_counter()
            base_train(steps)
            sgd_seconds[0] += time.perf_counter() - t

        tr.train_some = timed_train
        t0 = time.perf_counter()
        bar = tqdm(total=int(minutes * 60), desc="training run (ray, 2 workers)", unit="s")
        pids = None
        while time.perf_counter() - t0 < minutes * 60:
            tr.run(progress=False, stop_at=tr.step + 10)
            if pids is None:
                pids = [os.getpid()] + [w["pid"] for w in tr.worker_info()]
            samples.append((time.perf_counter() - t0, object_store_used(ray), rss(pids)))
            bar.n = int(time.perf_counter() - t0)
            bar.refresh()
        bar.close()
        elapsed = time.perf_counter() - t0
        history = list(tr.history)
        stats = {
            "elapsed": elapsed,
            "tasks": tr.step,
            "positions": tr.positions,
            "games": tr.games,
            "train_steps": tr.train_steps,
            "sgd_seconds": sgd_seconds[0],
            "version": tr.version,
            "publish_seconds_total": None,
            "lost_tasks": tr.lost_tasks,
            "samples_per_position": tr.train_steps * cfg["batch_size"] / max(1, tr.positions),
        }
        tr.close()
    return stats, history, samples


def consume_cost(cfg):
    """Driver seconds to take in one task's result (replay add included), measured in this process."""
    from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
    from zerogym_agents.scale.selfplay_worker import play_task, task_moves

    engine, ev, opp = local_engine(cfg)
    results = [play_task(engine, ev, opp, make_task(cfg, 0, k)) for k in range(4)]
    with tempfile.TemporaryDirectory() as d:
        tr = AlphaZeroTrainer({**cfg.to_dict(), "min_buffer": 128, "batch_size": 128}, d, log_dir=False)
        from zerogym_agents.alphazero.selfplay import GameRecords

        rec = GameRecords(cfg.concurrent_games)
        t0 = time.perf_counter()
        for r in results:
            for moves, done in task_moves(r):
                rec.add(moves)
                for i, returns, *_ in done:
                    tr.add_game(rec.finish(i, returns))
        consume = (time.perf_counter() - t0) / len(results)
        positions = np.mean([len(r["games"]) for r in results])
        t0 = time.perf_counter()
        tr.train_some(10)
        sgd = (time.perf_counter() - t0) / max(1, tr.train_steps)
    return consume, sgd, positions


PPO_CFG = dict(algo="ppo", game="connect_four", seed=0, device="cpu")  # PGConfig defaults otherwise
PPO_HEADING = "## PPO: games in worker processes"


def ppo_run(workers, updates, out_dir):
    """PPO on PPO_CFG with `workers` env workers: one warm-up update, then `updates` timed ones.
    Returns (moves/s over the updates, moves/s while collecting rollouts, moves per update)."""
    from zerogym_agents.pg.ppo import PPOTrainer

    tr = PPOTrainer({**PPO_CFG, "max_steps": updates + 1}, out_dir, log_dir=False, workers=workers)
    try:
        rollout = [0.0]
        collect = tr.model.collect_rollouts

        def timed_collect(*a, **k):
            t = time.perf_counter()
            try:
                return collect(*a, **k)
            finally:
                rollout[0] += time.perf_counter() - t

        tr.model.collect_rollouts = timed_collect
        tr.train_step()  # warm-up: first forward passes, the workers' first games
        rollout[0], moves0 = 0.0, tr.learner_moves
        t0 = time.perf_counter()
        for _ in range(updates):
            tr.train_step()
        elapsed = time.perf_counter() - t0
        moves = tr.learner_moves - moves0
    finally:
        tr.close()
    return moves / elapsed, moves / rollout[0], moves // updates


def ppo_throughput(rounds, updates):
    """{workers: [(moves/s, rollout moves/s, moves per update) per round]}, 1 and 2 workers interleaved."""
    results = {1: [], 2: []}
    bar = tqdm(total=2 * rounds, desc="PPO throughput", unit="run")
    for _ in range(rounds):
        for workers in results:
            with tempfile.TemporaryDirectory() as d:
                results[workers].append(ppo_run(workers, updates, d))
            bar.update()
    bar.close()
    return results


def ppo_lines(results, rounds, updates, load):
    from zerogym_agents.pg.config import PGConfig

    cfg = PGConfig(**PPO_CFG)
    med = {w: [float(np.median([r[i] for r in runs])) for i in range(2)] for w, runs in results.items()}
    lines = [
        PPO_HEADING,
        "",
        f"Measured by `python benchmarks/scaling.py --only ppo --ppo-rounds {rounds} --ppo-updates {updates}`. "
        f"MaskablePPO on {cfg.game} with the PGConfig defaults ({cfg.num_envs} games, {cfg.ppo_n_steps} learner "
        f"moves per game per update = {results[1][0][2]} moves, {cfg.ppo_epochs} epochs of minibatches of "
        f"{cfg.ppo_batch_size}, a ResNet of {cfg.net['blocks']} blocks x {cfg.net['channels']} channels), torch "
        "on 1 thread per process: `--workers 1` (the games in the learner's process) against `--backend local "
        "--workers 2` (two worker processes, the learner in a third). Each run: one warm-up update, then "
        f"{updates} timed ones; {rounds} runs of each, interleaved; medians. Same 2 cores (load average "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the start, {load[3]:.1f} / {load[4]:.1f} / "
        f"{load[5]:.1f} at the end).",
        "",
        "| workers | learner moves/s (whole updates) | moves/s while collecting rollouts | runs (whole updates) |",
        "|---|---|---|---|",
    ]
    for w, runs in results.items():
        lines.append(f"| {w} | {med[w][0]:.0f} | {med[w][1]:.0f} | {', '.join(f'{r[0]:.0f}' for r in runs)} |")
    share = med[1][0] / med[1][1]  # the rollouts' share of an update's time in one process
    lines += [
        "",
        f"2 workers: {med[2][0] / med[1][0]:.2f}x the moves per second of one process over whole updates, "
        f"{med[2][1] / med[1][1]:.2f}x while collecting. In one process the rollouts take {100 * share:.0f}% "
        "of an update; the PPO epochs (and the learner's forward pass for its own moves) stay in the driver, "
        "serial with the workers' steps, so N workers give at most 1 / (1 - r + r / N) over whole updates "
        f"(r = {share:.2f}: {1 / (1 - share + share / 2):.2f}x for 2, {1 / (1 - share):.2f}x for many) unless "
        "the epochs get faster too (a GPU learner, fewer epochs, more games per update).",
        "",
    ]
    return lines


def replace_ppo_section(path, lines):
    """scaling.md with its PPO section (from PPO_HEADING to the next '## ' heading) replaced, or appended."""
    text = open(path).read().splitlines() if os.path.isfile(path) else []
    start = next((i for i, line in enumerate(text) if line == PPO_HEADING), len(text))
    end = next((i for i in range(start + 1, len(text)) if text[i].startswith("## ")), len(text))
    if start == len(text) and text and text[-1]:
        lines = [""] + lines  # appended: a blank line after the last section
    with open(path, "w") as f:
        f.write("\n".join(text[:start] + lines + text[end:]).rstrip("\n") + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=8.0, help="per throughput measurement")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--train-minutes", type=float, default=4.0)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--ppo-rounds", type=int, default=3)
    ap.add_argument("--ppo-updates", type=int, default=3, help="timed PPO updates per run")
    ap.add_argument("--only", choices=("ppo",), help="measure only this part (and replace its section)")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    load = os.getloadavg()
    ppo = ppo_throughput(args.ppo_rounds, args.ppo_updates)
    lines = ppo_lines(ppo, args.ppo_rounds, args.ppo_updates, load + os.getloadavg())
    os.makedirs(args.out, exist_ok=True)
    if args.only == "ppo":
        replace_ppo_section(os.path.join(args.out, "scaling.md"), lines)
        print("\n".join(lines))
        return
    import ray

    from zerogym_agents.alphazero.config import AlphaZeroConfig

    cfg = AlphaZeroConfig.from_dict(CFG)
    load_before = os.getloadavg()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    tp = throughput(cfg, args.seconds, args.rounds)
    stats, history, samples = training_run(args.train_minutes)
    consume, sgd, positions = consume_cost(cfg)
    load_after = os.getloadavg()
    ray.shutdown()
    os.makedirs(args.out, exist_ok=True)
    write(args, tp, stats, history, samples, consume, sgd, positions, load_before, load_after)
    replace_ppo_section(os.path.join(args.out, "scaling.md"), lines)


def write(args, tp, stats, history, samples, consume, sgd, positions, load_before, load_after):
    from matplotlib.figure import Figure

    rated = [h for h in history if h.get("staleness_p95") is not None]
    st50 = np.median([h["staleness_p50"] for h in rated]) if rated else float("nan")
    st95 = max(h["staleness_p95"] for h in rated) if rated else float("nan")
    pub = [h["publish_share"] for h in rated if h.get("publish_share") is not None]
    pub_share = float(np.mean(pub)) if pub else float("nan")
    t, store, mem = (np.array([s[i] for s in samples]) for i in range(3))
    warm = t >= t[-1] * 0.2 if len(t) else t
    growth = (mem[warm][-1] - mem[warm][0]) / mem[warm][0] if len(t) else float("nan")
    inproc, ray1 = tp["in-process"][1], tp["ray 1 worker"][1]
    p1, p2, ray2 = tp["1 process"][1], tp["2 processes"][1], tp["ray 2 workers"][1]
    worker_rate = ray1  # positions/s one worker produces
    per_task_driver = consume + sgd * 4.0 * positions / 128  # at samples_per_position = 4, batch 128
    driver_rate = positions / per_task_driver  # positions/s the driver can take in
    n_star = driver_rate / worker_rate
    lines = [
        "# Scaling self-play over Ray workers",
        "",
        f"Measured by `python benchmarks/scaling.py --seconds {args.seconds:g} --rounds {args.rounds} "
        f"--train-minutes {args.train_minutes:g}` on a **2-core CPU machine** "
        f"(load average {load_before[0]:.1f} / {load_before[1]:.1f} / {load_before[2]:.1f} at the start, "
        f"{load_after[0]:.1f} / {load_after[1]:.1f} / {load_after[2]:.1f} at the end). No multi-core or GPU machine "
        "was available: every figure here is from those 2 cores, so 2 workers is the most that can be measured, "
        "and the driver shares the cores with the workers.",
        "",
        f"Self-play: {CFG['game']}, G = {CFG['concurrent_games']} games per worker, {CFG['simulations']} simulations "
        f"per move, a ResNet of {CFG['net']['blocks']} blocks x {CFG['net']['channels']} channels, tasks of {STEPS} "
        "search steps, torch on 1 thread per process; games/s and positions/s are medians over the rounds, each "
        f"configuration measured {args.seconds:g} s per round, the configurations interleaved.",
        "",
        "## Throughput",
        "",
        "| configuration | games/s | positions/s | runs (positions/s) |",
        "|---|---|---|---|",
    ]
    for k, (g, p, vals) in tp.items():
        lines.append(f"| {k} | {g:.1f} | {p:.0f} | {', '.join(f'{v[1]:.0f}' for v in vals)} |")
    lines += [
        "",
        "| target | measured | met |",
        "|---|---|---|",
        f"| 1 Ray worker >= 0.9x in-process | {ray1 / inproc:.2f}x | {'yes' if ray1 >= 0.9 * inproc else 'no'} |",
        f"| 2 Ray workers >= 0.9x 2 plain processes | {ray2 / p2:.2f}x | {'yes' if ray2 >= 0.9 * p2 else 'no'} |",
        f"| p95 weight staleness <= 2 versions | {st95:.1f} | {'yes' if st95 <= 2 else 'no'} |",
        f"| publishing weights <= 5% of the driver's work time | {100 * pub_share:.1f}% | "
        f"{'yes' if pub_share <= 0.05 else 'no'} |",
        f"| process memory growth < 10% (after the first fifth of the run) | {100 * growth:.1f}% | "
        f"{'yes' if growth < 0.1 else 'no'} |",
        "",
        f"2 plain processes give {p2 / p1:.2f}x one process, 2 Ray workers {ray2 / ray1:.2f}x one worker (2x at "
        "best on 2 cores; the driver and the machine's other load share them).",
        "",
        f"## A training run (ray backend, async, 2 workers, {args.train_minutes:g} minutes)",
        "",
        (
            f"{args.train_minutes:g} minutes rather than 10, to keep the shared machine's load down. "
            if args.train_minutes < 10
            else ""
        )
        + f"{stats['tasks']} tasks, {stats['games']} games, {stats['positions']} positions, {stats['train_steps']} SGD "
        f"steps of 128 ({stats['train_steps'] / stats['elapsed']:.2f} learner steps/s; SGD took "
        f"{100 * stats['sgd_seconds'] / stats['elapsed']:.0f}% of the driver's wall time), {stats['version']} weight "
        f"versions, SGD samples per position {stats['samples_per_position']:.2f} (cap 4), weight staleness p50 "
        f"{st50:.1f} / p95 {st95:.1f} versions (worst log interval), publishing {100 * pub_share:.1f}% of the "
        f"driver's work time, {stats['lost_tasks']} lost tasks.",
        "",
        f"Memory: driver + worker processes {mem[0] / 2**20:.0f} MiB at the first sample, {mem[-1] / 2**20:.0f} MiB at "
        f"the end (growth after the first fifth, while the replay buffer fills: {100 * growth:.1f}%); object store "
        f"in use {store.max() / 2**20:.1f} MiB at most (bounded by 2 tasks in flight per worker).",
        "",
        "## Where the driver becomes the bottleneck (a model)",
        "",
        f"Measured constants: one worker produces w = {worker_rate:.0f} positions/s; the driver takes in one task "
        f"({positions:.0f} positions) in c = {1000 * consume:.1f} ms and an SGD step of 128 takes s = {1000 * sgd:.1f} "
        "ms (1 thread). At 4 SGD samples per position the driver spends c + s * 4 * positions / 128 = "
        f"{1000 * per_task_driver:.0f} ms per task, so it absorbs D = {driver_rate:.0f} positions/s. N workers "
        f"produce N * w, so the learner-driver saturates near N* = D / w = {n_star:.1f} workers of this size; "
        "beyond that, tasks wait in the object store (bounded by max_inflight) and staleness grows. Ways past N*: "
        "a GPU learner (s falls by one to two orders of magnitude), fewer samples per position, larger batches, "
        "or bigger tasks (c is per task). Weight publishing costs one ray.put per version, independent of N, "
        "and each worker fetches each version at most once.",
        "",
    ]
    with open(os.path.join(args.out, "scaling.md"), "w") as f:
        f.write("\n".join(lines))
    fig = Figure(figsize=(11, 4.2))
    ax1, ax2 = fig.subplots(1, 2)
    names = list(tp)
    ax1.bar(
        range(len(names)), [tp[k][1] for k in names], color=["0.5", "tab:blue", "tab:blue", "tab:orange", "tab:orange"]
    )
    ax1.set_xticks(range(len(names)), names, rotation=20, fontsize=8)
    ax1.set_ylabel("positions / s")
    ax1.set_title("self-play throughput (2-core CPU)")
    ax2.plot(t / 60, mem / 2**20, label="driver + workers RSS (MiB)")
    ax2.plot(t / 60, store / 2**20, label="object store in use (MiB)")
    ax2.set_xlabel("minutes")
    ax2.set_title("memory over the training run")
    ax2.legend(fontsize=8)
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "scaling.png"), dpi=90)
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
