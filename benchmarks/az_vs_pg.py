"""AlphaZero against policy gradient (REINFORCE, REINFORCE with a value baseline, PPO) on equal compute.

For each game (Connect Four 6x7, Othello 6x6, Go 5x5) and each algorithm, train from scratch for the same
wall-clock training budget (evaluation time is not counted; it is measured separately), from the same
seed. Every --eval-every-minutes of training (and before training starts) the current agent plays
--eval-games games (colours alternated) against each fixed reference (Random, Greedy, UCT(200),
UCT(1000) by default). Every match, here and in the final round robin, starts each pair of games from
the same random opening (--opening-moves, colours swapped): the agents play deterministically, and
without it two of them would replay the same two games over and over. AlphaZero plays with its PUCT search (--simulations per move); the policy-gradient
agents play their net's greedy move (PolicyAgent, no search), and their final nets are also measured
inside the same PUCT search, to separate the training method from search at play time. Ratings are
maximum-likelihood Elo (fit_elo, Random = 0) over all the games of a game; a final round robin puts the
final agents against each other and the references.

    python benchmarks/az_vs_pg.py                                  # the full comparison, 30 min per run
    python benchmarks/az_vs_pg.py --minutes 30 --parallel 2        # two trainings at once (2 cores)
    python benchmarks/az_vs_pg.py --games connect_four --algos alphazero ppo
    python benchmarks/az_vs_pg.py --report-only                    # rebuild the report from saved state

Resumable: every run keeps its folder under runs/az_vs_pg/<game>/<algo>/ (trainer checkpoint, state.json
with the training time used and the evaluations done). Kill the script and start it again with the same
settings: finished runs are skipped, unfinished ones resume from their last checkpoint.

Writes benchmarks/results/az_vs_pg.md, az_vs_pg_<game>.png and the final agents (weights + JSON card)
under benchmarks/results/az_vs_pg/<game>/<algo>/agent.pt, loadable with load_agent and `zerogym arena`.
"""
import argparse
import contextlib
import copy
import importlib.util
import json
import math
import os
import shlex
import signal
import subprocess
import sys
import time

import numpy as np

from zerogym_agents.experiment import die_with_parent, read_json, seed_int, write_json

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

GAMES = {                                 # key -> (registry name, kwargs, AlphaZero preset of az_strength.py)
    "connect_four": ("connect_four", {}, "connect_four"),
    "othello_6x6": ("othello", {"board_size": 6}, "othello_6x6"),
    "go_5x5": ("go", {"board_size": 5}, "go_5x5"),
}
ALGOS = ("alphazero", "reinforce", "reinforce_baseline", "ppo")
PG_ALGO = {"reinforce": "reinforce", "reinforce_baseline": "reinforce-baseline", "ppo": "ppo"}
DEFAULT_REFERENCES = ("random", "greedy", "uct:200", "uct:1000")
# Random moves that open each pair of games (arena.match.random_opening), per game: enough for hundreds of
# different openings (Connect Four 7^4, Othello 6x6 ~ 4 * 3 * 5 * 7, Go 5x5 25 * 24), few enough to
# leave the game to the agents. --opening-moves sets one number for every game.
OPENING_MOVES = {"connect_four": 4, "othello_6x6": 4, "go_5x5": 2}
TARGETS = {"connect_four": (("random", 0.95), ("greedy", 0.70)), "go_5x5": (("random", 0.95), ("greedy", 0.70))}
NO_STEP_CAP = 10 ** 9          # max_steps in minutes mode: time, not steps, ends a run
STATE, REFS, ROUND_ROBIN, LOCK = "state.json", "references.json", "round_robin.json", ".lock"
TORCH_THREADS = 1              # every trainer and every evaluation runs on one torch thread

# Policy-gradient settings per game (PGConfig fields), for a 2-core CPU. The net is the AlphaZero
# preset's (same trunk, blocks and channels), so both sides have the same number of parameters.
# Pool: uniform over the last 10 snapshots, one every 500 learner games (ZetaGo: Painter & Johnston). The learning
# rate decays tenfold on a cosine over the time budget, as AlphaZero's does (az_strength.py presets).
# Entropy bonus 0.05 for every algorithm. With SB3's usual 0.01 the policies turn nearly deterministic
# within minutes on Connect Four and learn to beat their own past selves rather than to play well: PPO
# ended a 30-minute run at entropy 0.23 nats, winning 76% against its pool but 25% against Greedy; with
# 0.05 a 10-minute PPO run beat Greedy in 111 of 200 games (91 with BatchNorm on batch statistics).
PG_COMMON = dict(num_envs=64, optimizer="adam", lr=1e-3, lr_final=1e-4, weight_decay=1e-4, grad_clip=1.0,
                 entropy_coef=0.05, value_coef=0.5, gamma=1.0, augment="random", minibatch_size=2048,
                 ppo_n_steps=64, ppo_batch_size=256, ppo_epochs=4, clip_range=0.2, gae_lambda=0.95,
                 pool_mode="uniform", pool_size=10, snapshot_every=500, snapshot_unit="episodes",
                 checkpoint_every=50, log_every=10)
# Connect Four: returns discounted by 0.9 per learner move, so that a win now is worth more than a win
# later and a loss later less than a loss now. With gamma 1 the nets took immediate wins and blocked
# immediate threats unreliably and lost to Greedy: 12-minute runs from the same seed, 200 games against
# Greedy from random openings: REINFORCE 82 won (gamma 1) against 164 (0.9); with 0.9, REINFORCE with a
# baseline won 165 and PPO 147 (111 in a 10-minute run with gamma 1). Measured on Connect Four only.
PG_PER_GAME = {"connect_four": {"gamma": 0.9}, "othello_6x6": {}, "go_5x5": {}}
CHUNK_SECONDS = 5.0            # minutes mode: train in chunks of about this long between clock checks
AZ_CHECKPOINT_EVERY = 200      # minutes mode: the trainer's own checkpoints (and pool snapshots for Go)


# ---- small helpers ---------------------------------------------------------------------------------
def load_presets():
    """PRESETS of benchmarks/az_strength.py (the AlphaZero configs reused here)."""
    spec = importlib.util.spec_from_file_location("_az_strength_presets", os.path.join(HERE, "az_strength.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PRESETS


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def folder_lock(folder, name=LOCK):
    """One process at a time per task: a lock file holding the pid (a dead holder's lock is taken over)."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    try:
        with open(path) as f:
            pid = int(f.read().strip() or 0)
    except (OSError, ValueError):
        pid = 0
    if pid and pid != os.getpid() and _pid_alive(pid):
        raise RuntimeError(f"{folder} is in use by process {pid} (another az_vs_pg.py?); stop it first")
    with open(path, "w") as f:
        f.write(str(os.getpid()))
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


def parse_set(items, what):
    from zerogym_agents.specs import parse_kwargs
    try:
        return parse_kwargs(items or [])
    except ValueError as err:
        raise SystemExit(f"az_vs_pg: {what}: {err}")


def match_outcomes(m):
    """[(a, b, score of a)] per game of a stored match dict (records not needed)."""
    a, b = m["agent_a"], m["agent_b"]
    out = []
    for side in ("a_first", "b_first"):
        x = m[side]
        out += [(a, b, 1.0)] * x["wins"] + [(a, b, 0.5)] * x["draws"] + [(a, b, 0.0)] * x["losses"]
    return out


def strip_match(match):
    d = match.to_dict()
    d.pop("records", None)
    return d


def wdl(x):
    return f"{x['wins']}-{x['draws']}-{x['losses']}"


def total(m):
    return {k: m["a_first"][k] + m["b_first"][k] for k in ("wins", "draws", "losses")}


def relpath(path):
    p = os.path.relpath(os.path.abspath(path), os.getcwd())
    return path if p.startswith("..") else p


# ---- settings ---------------------------------------------------------------------------------------
def make_targets(budget, eval_at_start):
    """The training used (seconds, or steps in steps mode) at each evaluation point."""
    if budget["mode"] == "steps":
        targets = [budget["steps_per_eval"] * (k + 1) for k in range(budget["evals"])]
    else:
        minutes, every = budget["minutes"], budget["eval_every_minutes"]
        n = max(1, math.ceil(minutes / every - 1e-9))
        targets = [60.0 * min(minutes, every * (k + 1)) for k in range(n)]
    return ([0] if eval_at_start else []) + targets


def label(budget, target):
    return f"{target}" if budget["mode"] == "steps" else f"{target / 60:g}min"


class Options:
    """The parsed command line, plus what follows from it (configs per game and algorithm)."""

    def __init__(self, args, argv):
        self.args = args
        self.argv = list(argv)
        self.games = args.games
        self.algos = args.algos
        self.references = list(args.references)
        self.step_mode = args.steps is not None
        self.net = parse_set(args.net, "--net")
        self.az_set = parse_set(args.az_set, "--az-set")
        self.pg_set = parse_set(args.pg_set, "--pg-set")
        self.runs_dir = args.runs_dir
        self.results_dir = args.results_dir
        self._presets = None
        self.evals = None
        if self.step_mode:
            self.evals = args.evals if args.evals is not None else max(1, round(args.minutes / args.eval_every_minutes))
        self.targets = make_targets(self.budget(), args.eval_at_start)

    @property
    def presets(self):
        if self._presets is None:
            self._presets = load_presets()
        return self._presets

    def budget(self):
        a = self.args
        if self.step_mode:
            return {"mode": "steps", "steps_per_eval": a.steps, "evals": self.evals,
                    "total_steps": a.steps * self.evals}
        return {"mode": "minutes", "minutes": a.minutes, "eval_every_minutes": a.eval_every_minutes}

    def evaluation(self):
        a = self.args
        return {"references": self.references, "eval_games": a.eval_games, "simulations": a.simulations,
                "eval_at_start": a.eval_at_start, "seed": a.seed,
                "opening_moves": {key: self.opening_moves(key) for key in GAMES}}

    def opening_moves(self, key):
        """Random opening moves shared by each pair of games of every match of game `key`."""
        n = self.args.opening_moves
        return OPENING_MOVES[key] if n is None else n

    def net_fields(self, key):
        return {**self.presets[GAMES[key][2]]["config"]["net"], **self.net}

    def az_config(self, key):
        game, kwargs, preset = GAMES[key]
        fields = {k: v for k, v in self.presets[preset]["config"].items()}
        fields.update(game=game, game_kwargs=dict(kwargs), seed=self.args.seed, net=self.net_fields(key))
        if self.step_mode:
            fields.update(max_steps=self.targets[-1], checkpoint_every=self.args.steps)
        else:
            fields.update(max_steps=NO_STEP_CAP, checkpoint_every=AZ_CHECKPOINT_EVERY)
        fields.update(self.az_set)
        return fields

    def pg_config(self, key, algo):
        game, kwargs, _ = GAMES[key]
        fields = {**PG_COMMON, **PG_PER_GAME.get(key, {})}
        fields.update(algo=PG_ALGO[algo], game=game, game_kwargs=dict(kwargs), seed=self.args.seed,
                      net=self.net_fields(key), torch_threads=TORCH_THREADS)
        if self.step_mode:
            fields.update(max_steps=self.targets[-1], checkpoint_every=self.args.steps)
        else:
            fields.update(max_steps=NO_STEP_CAP)
        fields.update(self.pg_set)
        return fields

    def config(self, key, algo):
        return self.az_config(key) if algo == "alphazero" else self.pg_config(key, algo)

    def fingerprint(self, key, algo):
        return {"game": key, "algo": algo, "config": self.config(key, algo), "budget": self.budget(),
                "evaluation": self.evaluation()}

    def run_dir(self, key, algo):
        return os.path.join(self.runs_dir, key, algo)

    def game_dir(self, key):
        return os.path.join(self.runs_dir, key)

    def agent_path(self, key, algo):
        return os.path.join(self.results_dir, "az_vs_pg", key, algo, "agent.pt")

    def command(self):
        return os.environ.get("AZ_VS_PG_COMMAND") or \
            "python benchmarks/az_vs_pg.py " + " ".join(shlex.quote(a) for a in self.argv)

    def label(self, k):
        """A short name of evaluation point k: minutes (or steps) of training."""
        return label(self.budget(), self.targets[k])


def check_fingerprint(saved, mine, where):
    if saved == mine:
        return
    diffs = []

    def walk(a, b, path):
        if isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b)):
                walk(a.get(k), b.get(k), f"{path}.{k}" if path else k)
        elif a != b:
            diffs.append(f"{path}: saved {a!r}, now {b!r}")
    walk(saved, mine, "")
    raise SystemExit(f"az_vs_pg: {where} was started with other settings ({'; '.join(diffs[:6])}). "
                     "Resume with the same options, or use another --runs-dir.")


# ---- trainers behind one interface -------------------------------------------------------------------
class _Run:
    """What both kinds of run share: the trainer's step and net."""

    @property
    def step(self):
        return self.trainer.step

    @property
    def net(self):
        return self.trainer.net


class AlphaZeroRun(_Run):
    """AlphaZero (in minutes mode the learning rate follows the cosine schedule over the
    share of the time budget used)."""

    def __init__(self, o, key, folder, resume):
        from zerogym_agents.alphazero.config import AlphaZeroConfig
        from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
        cfg = AlphaZeroConfig.from_dict(o.az_config(key))
        self.trainer = AlphaZeroTrainer(cfg, folder, resume=resume, log_dir=os.path.join(folder, "tb"))
        if not o.step_mode:
            self.trainer.time_budget = 60.0 * o.args.minutes
        self.cfg, self.sims = cfg, o.args.simulations

    def train(self, n, time_used):
        return self.trainer.train_for(n, time_used)

    def save(self):
        self.trainer.save()

    def counters(self):
        t = self.trainer
        return {"search_steps": t.step, "self_play_games": t.games, "positions": t.positions,
                "sgd_steps": t.train_steps}

    def agent(self, seed=None, net=None):
        from zerogym_agents.search_agents import AlphaZeroAgent
        return AlphaZeroAgent(copy.deepcopy(net or self.net).eval(), simulations=self.sims, seed=seed)

    def options_kind(self):
        return {"simulations": self.sims}, "alphazero"


class PGRun(_Run):
    """REINFORCE, REINFORCE with baseline or PPO (make_trainer; in minutes mode the learning rate follows
    the cosine schedule over the share of the time budget used, as AlphaZero's)."""

    def __init__(self, o, key, algo, folder, resume):
        from zerogym_agents.pg.config import PGConfig
        from zerogym_agents.pg.trainers import make_trainer
        cfg = PGConfig.from_dict(o.pg_config(key, algo))
        self.trainer = make_trainer(cfg, folder, resume=resume, log_dir=os.path.join(folder, "tb"))
        if not o.step_mode:
            self.trainer.time_budget = 60.0 * o.args.minutes
        self.cfg, self.sims = cfg, o.args.simulations

    def train(self, n, time_used):
        return self.trainer.train_for(n, time_used)

    def save(self):
        self.trainer.save()

    def counters(self):
        t = self.trainer
        return {"updates": t.step, "episodes": t.episodes, "learner_moves": t.learner_moves,
                "pool_elo": float(t.pool.learner_elo)}

    def agent(self, seed=None, net=None):
        from zerogym_agents.pg.agent import PolicyAgent
        return PolicyAgent(copy.deepcopy(net or self.net).eval(), greedy=True, seed=seed)

    def puct_agent(self, seed=None):
        from zerogym_agents.search_agents import AlphaZeroAgent
        return AlphaZeroAgent(copy.deepcopy(self.net).eval(), simulations=self.sims, seed=seed)

    def options_kind(self):
        return {"greedy": True}, "policy"


def make_run(o, key, algo, folder, resume):
    return AlphaZeroRun(o, key, folder, resume) if algo == "alphazero" else PGRun(o, key, algo, folder, resume)


# ---- evaluation ------------------------------------------------------------------------------------
def reference_agent(spec, key, seed=None):
    from zerogym_agents.specs import agent_from_spec
    game, kwargs, _ = GAMES[key]
    return agent_from_spec(spec, game, kwargs, seed=seed)


def evaluate(o, key, make_agent, name, words):
    """make_agent() against every reference, eval_games games each; stored match dicts (no records)."""
    from zerogym_agents.arena.match import play_match
    game, kwargs, _ = GAMES[key]
    matches = []
    for j, ref in enumerate(o.references):
        m = play_match(make_agent(), reference_agent(ref, key), game, kwargs, games=o.args.eval_games,
                       seed=seed_int(o.args.seed, *words, j), names=(name, ref), opening_moves=o.opening_moves(key))
        matches.append(strip_match(m))
    return matches


def point_name(o, algo, k):
    return f"{algo}@{o.label(k)}"


def puct_name(o, algo):
    return f"{algo}+puct{o.args.simulations}"


def run_one(o, key, algo, log=print):
    """Train and evaluate one (game, algorithm) run, resuming or skipping it as its folder says."""
    from zerogym_agents.alphazero.trainer import CHECKPOINT
    folder = o.run_dir(key, algo)
    path = os.path.join(folder, STATE)
    fp = o.fingerprint(key, algo)
    prog = read_json(path)
    if prog is not None:
        check_fingerprint(prog["fingerprint"], fp, folder)
        if prog.get("done"):
            log(f"[{key}/{algo}] finished earlier: skipped")
            return prog
    with folder_lock(folder):
        if prog is None:
            prog = {"game": key, "algo": algo, "fingerprint": fp, "steps": 0, "seconds": 0.0, "cpu_seconds": 0.0,
                    "checkpoint_seconds": 0.0, "estimated_seconds": 0.0, "evals": [], "puct": None, "done": False,
                    "commands": [], "counters": {}, "history": []}
        if o.command() not in prog["commands"]:
            prog["commands"].append(o.command())
        prog["parallel"] = sorted(set(prog.get("parallel", [])) | {o.args.parallel})
        ckpt = os.path.join(folder, CHECKPOINT)
        if prog["steps"] > 0 and not os.path.isfile(ckpt):
            raise SystemExit(f"az_vs_pg: {folder}: state.json records {prog['steps']} steps but there is no "
                             f"checkpoint; remove the folder to start this run again")
        run = make_run(o, key, algo, folder, resume=prog["steps"] > 0)
        if run.step < prog["steps"]:
            raise SystemExit(f"az_vs_pg: {folder}: the checkpoint (step {run.step}) is behind state.json "
                             f"(step {prog['steps']}); remove the folder to start this run again")
        if run.step > prog["steps"]:          # saved after the last record (killed in between): time estimated
            extra = (run.step - prog["steps"]) * (prog["seconds"] / prog["steps"] if prog["steps"] else 0.0)
            prog["seconds"] += extra
            prog["estimated_seconds"] += extra
            prog["steps"] = run.step
        every, cap = run.cfg.checkpoint_every, run.cfg.max_steps
        saved_at = run.step if run.step > 0 else None
        used = (lambda: prog["steps"]) if o.step_mode else (lambda: prog["seconds"])

        def record():
            prog["steps"] = run.step
            prog["counters"] = run.counters()
            write_json(path, prog)

        sps = None
        write_json(path, prog)
        for k, target in enumerate(o.targets):
            if k < len(prog["evals"]):
                continue
            # minutes mode: stop when the next step would likely overshoot the target by more than the
            # current shortfall, so each run ends within half a step of the budget (steps mode: exactly)
            while used() < target and (o.step_mode or sps is None or target - used() > 0.5 * sps):
                left = target - used()
                if o.step_mode:
                    n = int(left)
                else:       # approach the boundary in halves, chunks of at most ~5 s, then step by step
                    n = 1 if sps is None or left <= 2 * sps else max(1, int(min(0.5 * left, CHUNK_SECONDS) / sps))
                n = max(1, min(n, every - run.step % every))
                before, c0 = run.step, time.process_time()
                dt = run.train(n, prog["seconds"])
                prog["cpu_seconds"] += time.process_time() - c0
                if run.step == before:
                    raise RuntimeError(f"{folder}: the trainer made no progress (step {run.step}, max_steps {cap})")
                sps = dt / (run.step - before)
                prog["seconds"] += dt
                prog["steps"] = run.step
                if run.step % every == 0 or run.step == cap:
                    saved_at = run.step
                    record()
            if run.step > 0 and saved_at != run.step:
                t0 = time.perf_counter()
                run.save()
                prog["checkpoint_seconds"] += time.perf_counter() - t0
                saved_at = run.step
            record()
            name = point_name(o, algo, k)
            t0 = time.perf_counter()
            matches = evaluate(o, key, lambda: run.agent(), name, (7, k))
            ev = {"index": k, "name": name, "target": target, "step": run.step, "seconds": prog["seconds"],
                  "eval_seconds": time.perf_counter() - t0, "counters": run.counters(), "matches": matches}
            prog["evals"].append(ev)
            write_json(path, prog)
            log(f"[{key}/{algo}] {name}: {prog['seconds'] / 60:.1f} min of training, step {run.step}; "
                + ", ".join(f"{m['agent_b']} {wdl(total(m))}" for m in matches)
                + f" (evaluation {ev['eval_seconds']:.0f} s)")
        if algo != "alphazero" and prog["puct"] is None:
            t0 = time.perf_counter()
            matches = evaluate(o, key, lambda: run.puct_agent(), puct_name(o, algo), (7, len(o.targets) - 1))
            prog["puct"] = {"name": puct_name(o, algo), "eval_seconds": time.perf_counter() - t0, "matches": matches}
            write_json(path, prog)
            log(f"[{key}/{algo}] final net in PUCT({o.args.simulations}): "
                + ", ".join(f"{m['agent_b']} {wdl(total(m))}" for m in matches))
        history = getattr(run.trainer, "history", None) or []
        prog["history"] = [{f: v for f, v in h.items() if v is None or isinstance(v, (int, float))} for h in history]
        save_final_agent(o, key, algo, run, prog)
        prog["done"] = True
        write_json(path, prog)
        log(f"[{key}/{algo}] done: agent in {o.agent_path(key, algo)}")
        return prog


def final_results(prog):
    last = prog["evals"][-1] if prog["evals"] else None
    out = {}
    if last:
        out["final_evaluation"] = {m["agent_b"]: {"agent_first": m["a_first"], "agent_second": m["b_first"]}
                                   for m in last["matches"]}
    if prog.get("puct"):
        out["final_net_in_puct_search"] = {m["agent_b"]: {"agent_first": m["a_first"], "agent_second": m["b_first"]}
                                           for m in prog["puct"]["matches"]}
    return out


def save_final_agent(o, key, algo, run, prog):
    from zerogym_agents.saved import save_agent
    game, kwargs, _ = GAMES[key]
    options, kind = run.options_kind()
    card = {"game": game, "kwargs": kwargs, "net": run.net.config.to_dict(), "parameters": run.net.num_parameters(),
            "algorithm": algo,
            "play": (f"PUCT search, {o.args.simulations} simulations per move" if algo == "alphazero"
                     else "the policy net's greedy (argmax) move, no search"),
            "budget": {**o.budget(), "training_seconds": round(prog["seconds"], 1),
                       "training_cpu_seconds": round(prog.get("cpu_seconds", 0.0), 1),
                       "checkpoint_seconds": round(prog["checkpoint_seconds"], 1),
                       "evaluation_seconds": round(sum(e["eval_seconds"] for e in prog["evals"]), 1),
                       "torch_threads": TORCH_THREADS, **run.counters()},
            "training_config": run.cfg.to_dict(), "evaluation": o.evaluation(),
            "results": final_results(prog), "command": prog["commands"][-1] if prog["commands"] else o.command()}
    save_agent(o.agent_path(key, algo), run.net, options, card, kind=kind)


# ---- the references among themselves; the final round robin -----------------------------------------
def run_references(o, key, log=print):
    """Every pair of references plays eval_games games once (anchors their ratings)."""
    from zerogym_agents.arena.match import play_match
    game, kwargs, _ = GAMES[key]
    folder = o.game_dir(key)
    path = os.path.join(folder, REFS)
    fp = {"references": o.references, "games": o.args.eval_games, "seed": o.args.seed,
          "opening_moves": o.opening_moves(key)}
    data = read_json(path)
    if data is not None and data["fingerprint"] != fp:
        data = None                            # other references: play them again
    data = data or {"fingerprint": fp, "matches": []}
    pairs = [(a, b) for i, a in enumerate(o.references) for b in o.references[i + 1:]]
    if len(data["matches"]) >= len(pairs):
        return data
    with folder_lock(folder, LOCK + "-references"):
        for p, (a, b) in enumerate(pairs):
            if p < len(data["matches"]):
                continue
            m = play_match(reference_agent(a, key), reference_agent(b, key), game, kwargs,
                           games=o.args.eval_games, seed=seed_int(o.args.seed, 9, p), names=(a, b),
                           opening_moves=o.opening_moves(key))
            data["matches"].append(strip_match(m))
            write_json(path, data)
            log(f"[{key}/references] {a} vs {b}: {wdl(total(data['matches'][-1]))}")
    return data


def round_robin_names(o, key, algos):
    return list(algos) + list(o.references)


def run_round_robin(o, key, log=print):
    """The final agents of the finished runs and the references, every pair --final-games games."""
    from zerogym_agents.arena.match import round_robin
    from zerogym_agents.saved import copy_agent, load_agent
    game, kwargs, _ = GAMES[key]
    # every finished run of the game takes part (also those of earlier sittings with other --algos); it is
    # played once the runs selected now are finished, and again when the set of finished runs grows
    done = [a for a in ALGOS if (read_json(os.path.join(o.run_dir(key, a), STATE)) or {}).get("done")]
    folder = o.game_dir(key)
    path = os.path.join(folder, ROUND_ROBIN)
    if not done or any(a not in done for a in o.algos):
        return read_json(path)
    names = round_robin_names(o, key, done)
    progs = {a: read_json(os.path.join(o.run_dir(key, a), STATE)) for a in done}
    fp = {"names": names, "games_per_pair": o.args.final_games, "seed": o.args.seed,
          "opening_moves": o.opening_moves(key), "runs": {a: [p["steps"], round(p["seconds"], 3)] for a, p in progs.items()}}
    old = read_json(path)
    if old is not None and old["fingerprint"] == fp:
        return old
    with folder_lock(folder, LOCK + "-round-robin"):
        agents = {a: load_agent(o.agent_path(key, a)) for a in done}
        agents.update({r: reference_agent(r, key) for r in o.references})
        t0 = time.perf_counter()
        log(f"[{key}/round robin] {len(names)} agents, {o.args.final_games} games per pair ...")
        result = round_robin({n: agents[n] for n in names}, game, kwargs, games_per_pair=o.args.final_games,
                             seed=o.args.seed, progress=False, opening_moves=o.opening_moves(key))
        data = {"fingerprint": fp, "seconds": time.perf_counter() - t0, "result": result.to_dict(),
                "command": o.command()}
        for a in done:                          # the round robin's results go into each final agent's card
            rr = {(m.agent_b if m.agent_a == a else m.agent_a): (
                  {"agent_first": vars(m.a_first), "agent_second": vars(m.b_first)} if m.agent_a == a else
                  {"agent_first": vars(m.b_first.flipped()), "agent_second": vars(m.a_first.flipped())})
                  for m in result.matches if a in (m.agent_a, m.agent_b)}
            p = o.agent_path(key, a)
            copy_agent(p, p, lambda card, rr=rr: {**card, "results": {**card.get("results", {}),
                                                                       "final_round_robin": rr}})
        write_json(path, data)
        log(f"[{key}/round robin] done in {data['seconds']:.0f} s")
    return data


# ---- the report ------------------------------------------------------------------------------------
def game_data(o, key):
    """Everything saved for one game: runs (by algo), references, round robin, and the joint Elo fit."""
    from zerogym_agents.arena.elo import fit_elo
    runs = {}
    for algo in ALGOS:
        prog = read_json(os.path.join(o.run_dir(key, algo), STATE))
        if prog is not None and prog["evals"]:
            runs[algo] = prog
    refs = read_json(os.path.join(o.game_dir(key), REFS))
    rr = read_json(os.path.join(o.game_dir(key), ROUND_ROBIN))
    outcomes = []
    if refs:
        for m in refs["matches"]:
            outcomes += match_outcomes(m)
    for prog in runs.values():
        for ev in prog["evals"]:
            for m in ev["matches"]:
                outcomes += match_outcomes(m)
        if prog.get("puct"):
            for m in prog["puct"]["matches"]:
                outcomes += match_outcomes(m)
    rr_elo = None
    if rr:
        rr_matches = rr["result"]["matches"]
        rr_out = [o_ for m in rr_matches for o_ in match_outcomes(m)]
        outcomes += rr_out
        names = rr["result"]["names"]
        rr_elo = fit_elo(rr_out, names=names, anchor="random" if "random" in names else None)
    elo = None
    if outcomes:
        seen = {x for a, b, _ in outcomes for x in (a, b)}
        anchor = "random" if "random" in seen else None
        elo = fit_elo(outcomes, anchor=anchor)
    return {"key": key, "runs": runs, "refs": refs, "rr": rr, "elo": elo, "rr_elo": rr_elo}


def fmt_elo(elo, name):
    if elo is None or name not in elo.names:
        return "-"
    r = elo.rating(name)
    lo, hi = elo.interval(name)
    return f"{r:+.0f} [{lo:+.0f}, {hi:+.0f}]"


def plot_game(o, g, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    elo = g["elo"]
    fig, ax = plt.subplots(figsize=(9.5, 4.5))
    colours = {"alphazero": "C0", "reinforce": "C1", "reinforce_baseline": "C2", "ppo": "C3"}
    for algo, prog in g["runs"].items():
        pts = [(ev["seconds"] / 60, elo.rating(ev["name"]), *elo.interval(ev["name"])) for ev in prog["evals"]]
        x, y, lo, hi = np.array(pts).T
        label = algo + (f" (PUCT {o.args.simulations})" if algo == "alphazero" else " (greedy policy)")
        ax.plot(x, y, marker="o", color=colours[algo], label=label)
        ax.fill_between(x, lo, hi, color=colours[algo], alpha=0.15)
        if prog.get("puct") and prog["puct"]["name"] in elo.names:
            n = prog["puct"]["name"]
            r, (l_, h_) = elo.rating(n), elo.interval(n)
            ax.errorbar([x[-1]], [r], yerr=[[r - l_], [h_ - r]], fmt="s", mfc="none", color=colours[algo],
                        capsize=3, label=f"{algo} final net in PUCT {o.args.simulations}")
    for ref in o.references:
        if ref in elo.names:
            ax.axhline(elo.rating(ref), color="grey", lw=0.7, ls="--")
            ax.text(0.0, elo.rating(ref), f" {ref}", va="bottom", fontsize=7, color="grey",
                    transform=ax.get_yaxis_transform())
    ax.set_xlabel("training wall time (minutes; evaluation excluded)")
    ax.set_ylabel("Elo (random = 0, 95% interval)")
    ax.set_title(f"{g['key']}: AlphaZero vs policy gradient"
                 + (" (steps mode: not equal compute)" if o.step_mode else " at equal training time"))
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def final_name(g, algo):
    """The rating name of an algorithm's final agent: its round-robin name, else its last evaluation point."""
    if g["rr"] and algo in g["rr"]["result"]["names"]:
        return algo
    prog = g["runs"].get(algo)
    return prog["evals"][-1]["name"] if prog and prog.get("done") else None


def rr_match(g, a, b):
    """(W-D-L of a against b, games) from the round robin, or None."""
    if not g["rr"]:
        return None
    for m in g["rr"]["result"]["matches"]:
        t = total(m)
        if (m["agent_a"], m["agent_b"]) == (a, b):
            return t
        if (m["agent_a"], m["agent_b"]) == (b, a):
            return {"wins": t["losses"], "draws": t["draws"], "losses": t["wins"]}
    return None


def overlap(elo, a, b):
    la, ha = elo.interval(a)
    lb, hb = elo.interval(b)
    return not (la > hb or lb > ha)


def reading(o, data):
    """The written reading, generated from the numbers only."""
    lines = []
    if o.step_mode:
        lines += ["*This is a `--steps` run (a fixed number of training steps per evaluation, for tests): the "
                  "algorithms did not get equal compute, so nothing below is a statement about equal compute.*", ""]
    # 1. strongest
    lines += [("**Strongest (steps mode)**" if o.step_mode else "**Strongest at equal training time**")
              + " (final agents, Elo over all games of the game):", ""]
    if not data:
        lines.append("- No run has been evaluated yet.")
    firsts = {}
    for key, g in data.items():
        finals = [(a, final_name(g, a)) for a in ALGOS if final_name(g, a)]
        if not finals:
            lines.append(f"- {key}: no finished run yet.")
            continue
        if len(finals) == 1:
            a, n = finals[0]
            lines.append(f"- {key}: only {a} has finished ({fmt_elo(g['elo'], n)}); no comparison yet.")
            continue
        elo = g["elo"]
        ranked = sorted(finals, key=lambda x: -elo.rating(x[1]))
        (a1, n1), (a2, n2) = ranked[0], ranked[1]
        firsts[key] = a1
        clear = not overlap(elo, n1, n2)
        order = ", ".join(f"{a} {fmt_elo(elo, n)}" for a, n in ranked)
        h2h = rr_match(g, a1, a2)
        h2h_text = f"; head to head in the round robin {a1} scored {wdl(h2h)} against {a2}" if h2h else ""
        verdict = (f"{a1} is strongest, ahead of {a2} beyond the 95% intervals" if clear else
                   f"{a1} has the highest rating, but its 95% interval overlaps {a2}'s, so the first place is "
                   f"not established")
        lines.append(f"- {key}: {verdict}{h2h_text}. Ranking: {order}.")
    if firsts:
        tops = sorted(set(firsts.values()))
        if len(tops) == 1 and len(firsts) == len(GAMES):
            lines.append(f"- {tops[0]} has the highest final rating on every game.")
        else:
            lines.append("- Highest final rating: " + ", ".join(f"{k}: {a}" for k, a in firsts.items()) + ".")
    lines.append("")
    # 2. ZetaGo hypothesis
    lines += ["**Does the value baseline help?** ZetaGo (Painter & Johnston, 'Mastering the game of Go from "
              "scratch') left the value baseline out of REINFORCE and names it as likely crucial for stable, fast "
              "convergence; hypothesis: reinforce_baseline beats reinforce on every game. Final agents:", ""]
    above, compared, significant = [], [], []
    if not data:
        lines.append("- Not measured yet.")
    for key, g in data.items():
        nb, nr = final_name(g, "reinforce_baseline"), final_name(g, "reinforce")
        if not (nb and nr):
            lines.append(f"- {key}: not both finished; not measured.")
            continue
        elo = g["elo"]
        diff = elo.rating(nb) - elo.rating(nr)
        compared.append(key)
        h2h = rr_match(g, "reinforce_baseline", "reinforce")
        sig = not overlap(elo, nb, nr)
        if diff > 0:
            above.append(key)
            if sig:
                significant.append(key)
        lines.append(f"- {key}: reinforce_baseline {fmt_elo(elo, nb)} vs reinforce {fmt_elo(elo, nr)}: "
                     f"{'higher' if diff > 0 else 'not higher'} by {diff:+.0f} Elo, "
                     f"{'intervals separate' if sig else 'intervals overlap'}"
                     + (f"; head to head {wdl(h2h)} (baseline's W-D-L)" if h2h else "") + ".")
    if compared:
        if len(above) == len(compared) == len(GAMES):
            s = ("reinforce_baseline is rated above reinforce on every game"
                 + (" and the difference is beyond the 95% intervals on every game: supported."
                    if len(significant) == len(compared) else
                    f", but the intervals overlap on {len(compared) - len(significant)} of {len(compared)} games, "
                    "so the evidence is not conclusive there."))
        elif len(above) == len(compared):
            s = ("reinforce_baseline is rated above reinforce on "
                 + ("the one game" if len(compared) == 1 else f"all {len(compared)} games")
                 + f" measured so far (of {len(GAMES)}); not yet shown for every game.")
        else:
            s = (f"reinforce_baseline is rated above reinforce on {len(above)} of {len(compared)} games measured "
                 f"({', '.join(above) or 'none'}): not on every game.")
        lines.append(f"- Verdict: {s}")
    lines.append("")
    # 3. targets
    lines += ["**Targets for the policy-gradient agents** on Connect Four and Go 5x5: win at least 95% of the "
              "games against Random and at least 70% against Greedy (final round robin; wins / games, a draw "
              "is not a win):", ""]
    verdicts = []
    for key, targets in TARGETS.items():
        g = data.get(key)
        for algo in ("reinforce", "reinforce_baseline", "ppo"):
            for ref, need in targets:
                t = rr_match(g, algo, ref) if g else None
                if t is None:
                    lines.append(f"- {key} / {algo} vs {ref}: not measured, target >= {need:.0%}: **not measured**")
                    verdicts.append(None)
                    continue
                n = t["wins"] + t["draws"] + t["losses"]
                rate = t["wins"] / n
                ok = rate >= need - 1e-12
                verdicts.append(ok)
                lines.append(f"- {key} / {algo} vs {ref}: {t['wins']} of {n} games won ({100 * rate:.1f}%), "
                             f"target >= {need:.0%}: **{'met' if ok else 'missed'}**"
                             + ("" if ok else best_during_training(g["runs"].get(algo), ref)))
    if all(v is True for v in verdicts):
        lines.append("- Overall: every policy-gradient variant meets both targets on both games: **met**.")
    elif any(v is False for v in verdicts):
        lines.append(f"- Overall: **missed** ({sum(v is False for v in verdicts)} of {len(verdicts)} targets "
                     f"missed{', some not measured' if any(v is None for v in verdicts) else ''}).")
    else:
        lines.append(f"- Overall: **not measured** yet ({sum(v is None for v in verdicts)} of {len(verdicts)} "
                     "targets without games).")
    lines.append("")
    # 4. search at play time
    rows = []
    for key, g in data.items():
        for algo in ("reinforce", "reinforce_baseline", "ppo"):
            prog = g["runs"].get(algo)
            if prog and prog.get("puct") and final_name(g, algo) and prog["puct"]["name"] in g["elo"].names:
                greedy, puct = final_name(g, algo), prog["puct"]["name"]
                d = g["elo"].rating(puct) - g["elo"].rating(greedy)
                rows.append(f"{key} {algo}: {d:+.0f} Elo ({fmt_elo(g['elo'], greedy)} greedy, "
                            f"{fmt_elo(g['elo'], puct)} in PUCT)")
    if rows:
        lines += [f"**Search at play time**: the same policy-gradient nets inside PUCT({o.args.simulations}) "
                  "instead of their greedy move: " + "; ".join(rows) + ". Plain REINFORCE trains no value head, "
                  "so its search runs on an untrained value.", ""]
    return lines


def best_during_training(prog, ref):
    """'; best during training: ...' for a missed target, from the run's evaluation points."""
    best = None
    for ev in (prog or {}).get("evals", []):
        for m in ev["matches"]:
            if m["agent_b"] == ref:
                t = m["total"]
                n = t["wins"] + t["draws"] + t["losses"]
                if n and (best is None or t["wins"] / n > best[0]):
                    best = (t["wins"] / n, t["wins"], n, ev["name"])
    if best is None:
        return ""
    return f" (best evaluation during training: {best[1]} of {best[2]} won, at {best[3].split('@')[-1]})"


def learning_rate_sentence(o, data):
    """Each algorithm's learning rate, start to end of its cosine schedule, as its run's config says."""
    rates = {}
    for key, g in data.items():
        for algo, run in g["runs"].items():
            cfg = run["fingerprint"]["config"]
            optimizer = "Adam" if cfg.get("optimizer") == "adam" else "SGD"
            rates.setdefault(f"{optimizer} {cfg['lr']:g} to {cfg.get('lr_final', cfg['lr']):g}", []).append(algo)
    return "; ".join(f"{', '.join(dict.fromkeys(algos))}: {rate}" for rate, algos in rates.items())


def discount_sentence(o, data):
    """The policy-gradient runs' discount per learner move, per game, as their configs say."""
    parts = []
    for key, g in data.items():
        gammas = {}
        for algo, run in g["runs"].items():
            if algo != "alphazero":
                gammas.setdefault(f"{run['fingerprint']['config']['gamma']:g}", []).append(algo)
        parts += [f"{key} {gamma} ({', '.join(algos)})" for gamma, algos in gammas.items()]
    return "; ".join(parts)


def parameter_sentence(o, data):
    parts = []
    for key, g in data.items():
        counts = {}
        for algo in g["runs"]:
            card = read_json(os.path.splitext(o.agent_path(key, algo))[0] + ".json")
            if card and "parameters" in card:
                counts[algo] = card["parameters"]
        if not counts:
            continue
        if len(set(counts.values())) == 1:
            parts.append(f"{key} {next(iter(counts.values()))} for each of {', '.join(counts)}")
        else:
            parts.append(f"{key} " + ", ".join(f"{a} {n}" for a, n in counts.items()))
    return "; ".join(parts) or "no finished run yet"


def budget_table(o, g):
    lines = ["| algorithm | plays with | parameters | training min | training CPU min | checkpoints s | "
             "evaluation min | parallel | training progress |", "|---|---|---:|---:|---:|---:|---:|---|---|"]
    for algo, prog in g["runs"].items():
        c = prog.get("counters", {})
        params = "-"
        card_path = os.path.splitext(o.agent_path(g["key"], algo))[0] + ".json"
        card = read_json(card_path)
        if card:
            params = str(card.get("parameters", "-"))
        ev_min = (sum(e["eval_seconds"] for e in prog["evals"])
                  + (prog["puct"]["eval_seconds"] if prog.get("puct") else 0)) / 60
        if algo == "alphazero":
            play = f"PUCT, {o.args.simulations} simulations"
            progress = (f"{c.get('search_steps', prog['steps'])} search steps, {c.get('self_play_games', '-')} "
                        f"self-play games, {c.get('sgd_steps', '-')} SGD steps")
        else:
            play = "greedy policy (no search)"
            progress = (f"{c.get('updates', prog['steps'])} updates, {c.get('episodes', '-')} games, "
                        f"{c.get('learner_moves', '-')} learner moves")
        est = f" (of which {prog['estimated_seconds'] / 60:.1f} estimated)" if prog.get("estimated_seconds") else ""
        status = "" if prog.get("done") else " (unfinished)"
        lines.append(f"| {algo}{status} | {play} | {params} | {prog['seconds'] / 60:.1f}{est} | "
                     f"{prog.get('cpu_seconds', 0) / 60:.1f} | {prog['checkpoint_seconds']:.0f} | {ev_min:.1f} | "
                     f"{', '.join(map(str, prog.get('parallel', []))) or '-'} | {progress} |")
    return lines


def curve_table(o, g):
    algos = list(g["runs"])
    elo = g["elo"]
    head = "training " + ("steps" if o.step_mode else "minutes")
    lines = [f"| {head} | " + " | ".join(algos) + " |", "|---|" + "---:|" * len(algos)]
    for k in range(len(o.targets)):
        cells = []
        for a in algos:
            evs = [e for e in g["runs"][a]["evals"] if e["index"] == k]
            cells.append(fmt_elo(elo, evs[0]["name"]) if evs else "-")
        label = str(o.targets[k]) if o.step_mode else f"{o.targets[k] / 60:g}"
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    cells = []
    for a in algos:
        prog = g["runs"][a]
        if a == "alphazero":
            cells.append("(searches already)")
        else:
            cells.append(fmt_elo(elo, prog["puct"]["name"]) if prog.get("puct") else "-")
    lines.append(f"| final net in PUCT({o.args.simulations}) | " + " | ".join(cells) + " |")
    lines.append("| training minutes used | " + " | ".join(f"{g['runs'][a]['seconds'] / 60:.1f}" for a in algos)
                 + " |")
    return lines


def elo_table(o, g):
    elo, rr_elo = g["elo"], g["rr_elo"]
    names = list(g["rr"]["result"]["names"]) if g["rr"] else []
    for algo in ALGOS:
        prog = g["runs"].get(algo)
        if prog and prog.get("puct"):
            names.append(prog["puct"]["name"])
    names = [n for n in names if n in elo.names]
    names.sort(key=lambda n: -elo.rating(n))
    lines = ["| agent | Elo, all games [95%] | games | Elo, round robin only [95%] |", "|---|---:|---:|---:|"]
    for n in names:
        i = elo.names.index(n)
        lines.append(f"| {n} | {fmt_elo(elo, n)} | {int(elo.games[i])} | {fmt_elo(rr_elo, n)} |")
    return lines


def openings_sentence(o, data):
    """How the games of every match begin (random openings per game, or none)."""
    n = {key: o.opening_moves(key) for key in data}
    if not any(n.values()):
        return ("Every game starts from the initial position. The agents play deterministically, so two of "
                "them may replay the same games: see the *distinct games* column of the round robin.")
    return ("**Openings.** In every match (evaluations, references, round robin) games 2j and 2j+1 start "
            "from the same random opening, colours swapped (arena `--opening-moves`; " +
            ", ".join(f"{key} {k} moves" for key, k in n.items()) +
            "): the agents play deterministically, and without it two of them would replay the same two "
            "games over and over. The *distinct games* column of the round robin counts the different games.")


def arena_command(o, key, g):
    game, kwargs, _ = GAMES[key]
    names = g["rr"]["result"]["names"]
    specs = [relpath(o.agent_path(key, n)) if n in ALGOS else n for n in names]
    kw = (" --kwargs " + " ".join(f"{k}={v}" for k, v in kwargs.items())) if kwargs else ""
    fp = g["rr"]["fingerprint"]
    openings = f" --opening-moves {fp['opening_moves']}" if fp.get("opening_moves") else ""
    return (f"zerogym arena --game {game}{kw} --agents {' '.join(specs)} --games {fp['games_per_pair']}{openings} "
            f"--seed {fp['seed']}{' --anchor random' if 'random' in names else ''} "
            f"--out runs/az_vs_pg_recheck/{key}")


class ReportView:
    """The settings as the saved runs record them (so --report-only needs no other options); everything
    else (folders, command) from the command line."""

    def __init__(self, o, data):
        self._o = o
        fp = next((p["fingerprint"] for g in data.values() for p in g["runs"].values()), None)
        budget = fp["budget"] if fp else o.budget()
        ev = fp["evaluation"] if fp else o.evaluation()
        self.step_mode = budget["mode"] == "steps"
        self.references = list(ev["references"])
        self.targets = make_targets(budget, ev["eval_at_start"])
        self.args = argparse.Namespace(**vars(o.args))
        self.args.eval_games, self.args.simulations = ev["eval_games"], ev["simulations"]
        self.args.eval_at_start, self.args.seed = ev["eval_at_start"], ev["seed"]
        self.saved_openings = ev.get("opening_moves", {})       # runs made before openings: none
        if self.step_mode:
            self.args.steps = budget["steps_per_eval"]
        else:
            self.args.minutes, self.args.eval_every_minutes = budget["minutes"], budget["eval_every_minutes"]
        self.args.final_games = next((g["rr"]["fingerprint"]["games_per_pair"] for g in data.values() if g["rr"]),
                                     o.args.final_games)

    def opening_moves(self, key):
        return self.saved_openings.get(key, 0)

    def __getattr__(self, name):
        return getattr(self._o, name)


def write_report(o):
    """benchmarks/results/az_vs_pg.md and one plot per game, from the saved state only."""
    from zerogym_agents.arena.match import RoundRobinResult
    from zerogym_agents.arena.report import pairwise_markdown
    os.makedirs(o.results_dir, exist_ok=True)
    data = {key: game_data(o, key) for key in GAMES}
    data = {k: g for k, g in data.items() if g["runs"]}
    o = ReportView(o, data)
    a = o.args
    lines = ["# AlphaZero vs policy gradient at equal compute", "",
             "Each algorithm trains from scratch, from the same seed, for the same wall-clock training budget "
             + (f"({a.minutes:g} minutes per run, one torch thread each; evaluation and checkpoint time are not "
                f"counted but measured separately)" if not o.step_mode else
                f"(here: {a.steps} training steps per evaluation, a test-sized run)")
             + ". Every "
             + (f"{a.eval_every_minutes:g} minutes of training" if not o.step_mode else f"{a.steps} steps")
             + (" and before training" if a.eval_at_start else "")
             + f", the current agent plays {a.eval_games} games (colours alternated) against each of "
             + ", ".join(f"`{r}`" for r in o.references) + ".", "",
             openings_sentence(o, data), "",
             f"- **How they play.** AlphaZero plays with its PUCT search at **{a.simulations} simulations per "
             "move**. The policy-gradient agents (REINFORCE as in ZetaGo, REINFORCE with a learned value "
             "baseline, MaskablePPO; all against a pool of their past selves) play **their net's greedy move, "
             f"with no search**. So that the training method can be told apart from search at play time, the "
             f"final policy-gradient nets are also measured inside the same PUCT search ({a.simulations} "
             "simulations; row *final net in PUCT* and agents `<algo>+puct"
             f"{a.simulations}`).",
             "- **Elo.** Maximum-likelihood Bradley-Terry (fit_elo) over every game of a game: the references "
             "among themselves, every evaluation point, the PUCT measurements and the final round robin; "
             "Random = 0, 95% intervals. Each evaluation point is its own player.",
             f"- **Final round robin.** The final agents and the references, {a.final_games} games per pair, "
             "colours alternated (round_robin).",
             "- **Nets.** Every algorithm trains the same network: the AlphaZero preset's of "
             "benchmarks/az_strength.py (trunk, blocks, channels; `--net` overrides it for all). Parameters: "
             + parameter_sentence(o, data) + ".",
             "- **Learning rate.** Each run's falls on a cosine from its first to its last value over the "
             "training budget: " + learning_rate_sentence(o, data) + ".",
             "- **Discount.** A policy-gradient return is the game's result discounted by gamma per later "
             "learner move (AlphaZero's value targets are undiscounted): " + discount_sentence(o, data) + ".",
             "- **Compute.** Each training process uses one torch thread. The budget is wall-clock time; the "
             "*training CPU min* column shows the CPU time each training process actually got, so that other "
             "load on the machine during a run can be seen. Runs made with `--parallel 2` trained two at a time "
             "on the two cores (column *parallel*).",
             ""]
    lines += ["## Reading", "", *reading(o, data)]
    for key, g in data.items():
        game, kwargs, _ = GAMES[key]
        lines += [f"## {key}", ""]
        lines += ["Budget and what was trained:", "", *budget_table(o, g), ""]
        lines += [f"Elo over training (random = 0, [95% interval]); AlphaZero with PUCT({a.simulations}), "
                  "policy-gradient agents greedy, no search:", "", *curve_table(o, g), ""]
        png = f"az_vs_pg_{key}.png"
        plot_game(o, g, os.path.join(o.results_dir, png))
        lines += [f"![{key}]({png})", ""]
        if g["rr"]:
            result = RoundRobinResult.from_dict(g["rr"]["result"])
            lines += [f"Final round robin ({g['rr']['fingerprint']['games_per_pair']} games per pair; W-D-L from "
                      "A's view, split by who moved first):", "", pairwise_markdown(result).rstrip(), ""]
            lines += ["Elo table (final agents, the PG nets in PUCT search, references):", "", *elo_table(o, g), ""]
            lines += ["Re-check the round robin from the saved agents, without training (same seeds: same games):",
                      "", "```", arena_command(o, key, g), "```", ""]
        else:
            lines += ["Final round robin: not played yet (it waits for every selected run of this game).", ""]
    lines += ["## Configs", "", "As each run recorded them (AlphaZeroConfig for alphazero, PGConfig for the others).",
              ""]
    for key, g in data.items():
        for algo, prog in g["runs"].items():
            lines += [f"<details><summary>{key} / {algo}</summary>", "", "```json",
                      json.dumps(prog["fingerprint"]["config"], indent=1, sort_keys=True), "```", "", "</details>", ""]
    commands = []
    for g in data.values():
        for prog in g["runs"].values():
            for c in prog.get("commands", []):
                if c not in commands:
                    commands.append(c)
    lines += ["## Commands", "", "The runs were made by:", "", "```", *commands, "```", "",
              "This report was written by:", "", "```", o.command(), "```", ""]
    path = os.path.join(o.results_dir, "az_vs_pg.md")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


# ---- scheduling --------------------------------------------------------------------------------------
def do_task(o, task, log=print):
    kind, key, *rest = task.split(":")
    if key not in GAMES:
        raise SystemExit(f"az_vs_pg: unknown game in task {task!r}")
    import torch
    torch.set_num_threads(TORCH_THREADS)
    if kind == "run":
        return run_one(o, key, rest[0], log)
    if kind == "refs":
        return run_references(o, key, log)
    if kind == "rr":
        return run_round_robin(o, key, log)
    raise SystemExit(f"az_vs_pg: unknown task {task!r}")


def schedule(o):
    """Runs first, then the references, then each game's round robin once its runs are finished; with
    --parallel 2, two tasks at a time in child processes (each on one torch thread)."""
    runs = [f"run:{k}:{a}" for k in o.games for a in ALGOS if a in o.algos]
    refs = [f"refs:{k}" for k in o.games]
    if o.args.parallel == 1:
        for task in runs + refs + [f"rr:{k}" for k in o.games]:
            do_task(o, task)
        return 0
    queue, running, failed, finished = runs + refs, {}, [], set()
    waiting = {f"rr:{k}": {t for t in runs + refs if t.split(":")[1] == k} for k in o.games}
    env = dict(os.environ, AZ_VS_PG_COMMAND=o.command())
    base = [sys.executable, os.path.abspath(__file__), *o.argv]
    try:
        while queue or running or waiting:
            for rr, needs in list(waiting.items()):
                if needs & set(failed):
                    del waiting[rr]
                elif needs <= finished:
                    queue.append(rr)
                    del waiting[rr]
            while queue and len(running) < o.args.parallel:
                task = queue.pop(0)
                running[task] = subprocess.Popen(base + ["--worker", task], env=env, preexec_fn=die_with_parent)
            if not running and not queue and waiting:
                break
            time.sleep(0.5)
            for task, proc in list(running.items()):
                if proc.poll() is not None:
                    del running[task]
                    finished.add(task)
                    if proc.returncode != 0:
                        failed.append(task)
                        print(f"az_vs_pg: task {task} failed (exit {proc.returncode})", flush=True)
    finally:
        for proc in running.values():
            proc.terminate()
    return 1 if failed else 0


def build_parser():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES))
    ap.add_argument("--algos", nargs="+", choices=list(ALGOS), default=list(ALGOS))
    ap.add_argument("--minutes", type=float, default=30.0, help="training wall time per run (default 30)")
    ap.add_argument("--eval-every-minutes", type=float, default=5.0, help="evaluate every this many training minutes (default 5)")
    ap.add_argument("--steps", type=int, default=None,
                    help="steps mode: train this many steps (AlphaZero search steps, PG updates) per evaluation "
                         "instead of minutes (for tests: not an equal-compute comparison)")
    ap.add_argument("--evals", type=int, default=None,
                    help="steps mode: evaluations after training (default: minutes / eval-every-minutes)")
    ap.add_argument("--no-eval-at-start", dest="eval_at_start", action="store_false",
                    help="skip the evaluation of the untrained agents")
    ap.add_argument("--eval-games", type=int, default=20, help="games against each reference per evaluation (default 20)")
    ap.add_argument("--final-games", type=int, default=100,
                    help="games per pair in the final round robin (default 100: a 70%% win rate is then known to "
                         "about +-9 points, 95%% interval)")
    ap.add_argument("--references", nargs="+", default=list(DEFAULT_REFERENCES), metavar="SPEC",
                    help="fixed reference agents (arena specs: random, greedy, uct:N, ...)")
    ap.add_argument("--opening-moves", type=int, default=None, metavar="K",
                    help="random moves opening each pair of games, colours swapped, in every match (default per "
                         "game: " + ", ".join(f"{k} {v}" for k, v in OPENING_MOVES.items()) + ")")
    ap.add_argument("--simulations", type=int, default=200,
                    help="PUCT simulations per move when AlphaZero (and the PG nets' search row) play")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--parallel", type=int, choices=(1, 2), default=1,
                    help="trainings at once (2: child processes, one torch thread each, for a 2-core machine)")
    ap.add_argument("--report-only", action="store_true", help="rebuild the report from the saved state")
    ap.add_argument("--net", nargs="*", default=[], metavar="KEY=VALUE",
                    help="net fields for every algorithm, over the preset's (e.g. blocks=1 channels=8)")
    ap.add_argument("--az-set", nargs="*", default=[], metavar="KEY=VALUE", help="AlphaZeroConfig overrides")
    ap.add_argument("--pg-set", nargs="*", default=[], metavar="KEY=VALUE", help="PGConfig overrides")
    ap.add_argument("--runs-dir", default=os.path.join(ROOT, "runs", "az_vs_pg"),
                    help="per-run folders (checkpoints, state.json); default runs/az_vs_pg in the repository")
    ap.add_argument("--results-dir", default=os.path.join(HERE, "results"),
                    help="report, plots and final agents; default benchmarks/results")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    return ap


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    for name in ("minutes", "eval_every_minutes"):
        if not getattr(args, name) > 0:
            raise SystemExit(f"az_vs_pg: --{name.replace('_', '-')} must be > 0")
    for name in ("eval_games", "final_games", "simulations"):
        if getattr(args, name) < 1:
            raise SystemExit(f"az_vs_pg: --{name.replace('_', '-')} must be >= 1")
    if args.opening_moves is not None and args.opening_moves < 0:
        raise SystemExit("az_vs_pg: --opening-moves must be >= 0")
    if args.steps is not None and args.steps < 1 or args.evals is not None and args.evals < 1:
        raise SystemExit("az_vs_pg: --steps and --evals must be >= 1")
    o = Options(args, argv)
    for ref in o.references:                   # bad specs fail now, not hours later
        for key in o.games:
            reference_agent(ref, key)
    if args.worker:
        do_task(o, args.worker)
        return 0
    code = 0
    if not args.report_only:
        code = schedule(o)
    path = write_report(o)
    print(f"wrote {path}")
    return code


if __name__ == "__main__":
    # `kill PID`: exit through the finally blocks (children stopped, lock files removed); files are written atomically
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    sys.exit(main())
