"""AlphaZero against policy gradient (REINFORCE, REINFORCE with a value baseline, PPO) on equal compute.

For each game (Connect Four 6x7, Othello 6x6, Go 5x5) and each algorithm, train from scratch for the same
wall-clock training budget (evaluation time is not counted; it is measured separately), from the same
seed. Every --eval-every-minutes of training (and before training starts) the current agent plays
--eval-games games (colours alternated) against each fixed reference (Random, Greedy, UCT(200),
UCT(1000) by default). Every match, here and in the final round robin, starts each pair of games from
the same random opening (--opening-moves, colours swapped): the agents play deterministically, and
without it two of them would replay the same two games over and over. AlphaZero plays with its PUCT
search (--simulations per move); the policy-gradient agents play their net's greedy move (PolicyAgent, no
search), and their final nets are also measured inside the same PUCT search, to separate the training
method from search at play time. Ratings are maximum-likelihood Elo (fit_elo, Random = 0) over all the
games of a game; a final round robin puts the final agents against each other and the references.

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
import copy
import os
import shlex
import signal
import sys
import time

from zerogym_agents.experiment import (
    Budget,
    Comparison,
    FolderInUse,
    ResumeError,
    SettingsChanged,
    reference_agent,
    run_children,
    start_command,
)
from zerogym_agents.experiment.comparison import by_reference
from zerogym_agents.experiment.evaluation import total, wdl

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

GAMES = {  # key -> (registry name, kwargs, AlphaZero preset of az_strength.py)
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
TORCH_THREADS = 1  # every trainer and every evaluation runs on one torch thread

# Policy-gradient settings per game (PGConfig fields), for a 2-core CPU. The net is the AlphaZero
# preset's (same trunk, blocks and channels), so both sides have the same number of parameters.
# Pool: uniform over the last 10 snapshots, one every 500 learner games (ZetaGo: Painter & Johnston). The learning
# rate decays tenfold on a cosine over the time budget, as AlphaZero's does (az_strength.py presets).
# Entropy bonus 0.05 for every algorithm. With SB3's usual 0.01 the policies turn nearly deterministic
# within minutes on Connect Four and learn to beat their own past selves rather than to play well: PPO
# ended a 30-minute run at entropy 0.23 nats, winning 76% against its pool but 25% against Greedy; with
# 0.05 a 10-minute PPO run beat Greedy in 111 of 200 games (91 with BatchNorm on batch statistics).
PG_OPTIMISER = dict(optimizer="adam", lr=1e-3, lr_final=1e-4, weight_decay=1e-4, grad_clip=1.0, minibatch_size=2048)
PG_PPO = dict(ppo_n_steps=64, ppo_batch_size=256, ppo_epochs=4, clip_range=0.2, gae_lambda=0.95)
PG_POOL = dict(pool_mode="uniform", pool_size=10, snapshot_every=500, snapshot_unit="episodes")
PG_RUN = dict(
    num_envs=64, augment="random", gamma=1.0, entropy_coef=0.05, value_coef=0.5, checkpoint_every=50, log_every=10
)
PG_COMMON = {**PG_RUN, **PG_OPTIMISER, **PG_PPO, **PG_POOL}
# Connect Four: returns discounted by 0.9 per learner move, so that a win now is worth more than a win
# later and a loss later less than a loss now. With gamma 1 the nets took immediate wins and blocked
# immediate threats unreliably and lost to Greedy: 12-minute runs from the same seed, 200 games against
# Greedy from random openings: REINFORCE 82 won (gamma 1) against 164 (0.9); with 0.9, REINFORCE with a
# baseline won 165 and PPO 147 (111 in a 10-minute run with gamma 1). Measured on Connect Four only.
PG_PER_GAME = {"connect_four": {"gamma": 0.9}, "othello_6x6": {}, "go_5x5": {}}
AZ_CHECKPOINT_EVERY = 200  # minutes mode: the trainer's own checkpoints (and pool snapshots for Go)


def parse_set(items, what):
    from zerogym_agents.agents.specs import parse_kwargs

    try:
        return parse_kwargs(items or [])
    except ValueError as err:
        raise SystemExit(f"az_vs_pg: {what}: {err}") from None


# ---- settings ---------------------------------------------------------------------------------------
class Options:
    """The parsed command line, plus what follows from it (configs per game and algorithm)."""

    all_games, all_algos = GAMES, ALGOS

    def __init__(self, args, argv):
        self.args, self.argv = args, list(argv)
        self.games, self.algos, self.references = args.games, args.algos, list(args.references)
        self.step_mode = args.steps is not None
        self.net = parse_set(args.net, "--net")
        self.az_set = parse_set(args.az_set, "--az-set")
        self.pg_set = parse_set(args.pg_set, "--pg-set")
        self.runs_dir, self.results_dir = args.runs_dir, args.results_dir
        self._presets, self._runs = None, {}
        self.evals = None
        if self.step_mode:
            self.evals = args.evals if args.evals is not None else max(1, round(args.minutes / args.eval_every_minutes))
        self.run_budget = self.budget_of(self.budget(), args.eval_at_start)

    @property
    def presets(self):
        if self._presets is None:
            from zerogym_agents.alphazero.recipes import PRESETS

            self._presets = PRESETS
        return self._presets

    def budget(self):
        """The budget as the runs record it."""
        a = self.args
        if self.step_mode:
            return {
                "mode": "steps",
                "steps_per_eval": a.steps,
                "evals": self.evals,
                "total_steps": a.steps * self.evals,
            }
        return {"mode": "minutes", "minutes": a.minutes, "eval_every_minutes": a.eval_every_minutes}

    @staticmethod
    def budget_of(budget, eval_at_start):
        """The harness's Budget of a budget() dict."""
        if budget["mode"] == "steps":
            return Budget(steps=budget["total_steps"], eval_every=budget["steps_per_eval"], eval_at_start=eval_at_start)
        return Budget(minutes=budget["minutes"], eval_every=budget["eval_every_minutes"], eval_at_start=eval_at_start)

    def evaluation(self):
        a = self.args
        return {
            "references": self.references,
            "eval_games": a.eval_games,
            "simulations": a.simulations,
            "eval_at_start": a.eval_at_start,
            "seed": a.seed,
            "opening_moves": {key: self.opening_moves(key) for key in GAMES},
        }

    def opening_moves(self, key):
        """Random opening moves shared by each pair of games of every match of game `key`."""
        n = self.args.opening_moves
        return OPENING_MOVES[key] if n is None else n

    def net_fields(self, key):
        return {**self.presets[GAMES[key][2]]["config"]["net"], **self.net}

    def config(self, key, algo):
        """AlphaZeroConfig fields for alphazero, PGConfig fields for the others."""
        game, kwargs, preset = GAMES[key]
        common = {
            "game": game,
            "game_kwargs": dict(kwargs),
            "seed": self.args.seed,
            "net": self.net_fields(key),
            "max_steps": self.run_budget.max_steps(),
        }
        steps = {"checkpoint_every": self.args.steps} if self.step_mode else {}
        if algo == "alphazero":
            return {
                **self.presets[preset]["config"],
                **common,
                "checkpoint_every": AZ_CHECKPOINT_EVERY,
                **steps,
                **self.az_set,
            }
        return {
            **PG_COMMON,
            **PG_PER_GAME.get(key, {}),
            "algo": PG_ALGO[algo],
            **common,
            "torch_threads": TORCH_THREADS,
            **steps,
            **self.pg_set,
        }

    def game_dir(self, key):
        return os.path.join(self.runs_dir, key)

    def agent_path(self, key, algo):
        return os.path.join(self.results_dir, "az_vs_pg", key, algo, "agent.pt")

    def command(self):
        return os.environ.get("AZ_VS_PG_COMMAND") or "python benchmarks/az_vs_pg.py " + " ".join(
            shlex.quote(a) for a in self.argv
        )

    def comparison(self, key):
        """The runs of game `key` (GameRuns)."""
        if key not in self._runs:
            self._runs[key] = GameRuns(self, key)
        return self._runs[key]


class GameRuns(Comparison):
    """One game: the four runs, the references and the round robin under --runs-dir/<game>/, the final
    agents under --results-dir/az_vs_pg/<game>/<algo>/. The policy-gradient nets, once trained, are also
    measured inside the same PUCT search as AlphaZero (the record's "puct")."""

    def __init__(self, o, key):
        game, kwargs, _ = GAMES[key]
        a = o.args
        super().__init__(
            o.game_dir(key),
            game,
            o.run_budget,
            o.references,
            game_kwargs=kwargs,
            eval_games=a.eval_games,
            seed=a.seed,
            opening_moves=o.opening_moves(key),
            label=key,
            command=o.command(),
        )
        self.o, self.key, self.sims = o, key, a.simulations
        for algo in ALGOS:
            self.add(
                algo,
                PG_ALGO.get(algo, algo),
                o.config(key, algo),
                **({"simulations": self.sims} if algo == "alphazero" else {}),
            )

    def budget_settings(self):
        return self.o.budget()

    def evaluation_settings(self):
        return self.o.evaluation()

    def fingerprint(self, name):
        return {
            "game": self.key,
            "algo": name,
            "config": self.runs[name].config,
            "budget": self.o.budget(),
            "evaluation": self.o.evaluation(),
        }

    def new_record(self, name, fingerprint):
        return {**super().new_record(name, fingerprint), "game": self.key, "algo": name, "puct": None}

    def open_record(self, name, record):
        super().open_record(name, record)
        record["parallel"] = sorted(set(record.get("parallel", [])) | {self.o.args.parallel})

    def final_agent_path(self, name):
        return self.o.agent_path(self.key, name)

    def after_training(self, name, run, record):
        """The final policy-gradient net in PUCT search, against the references (the last point's seeds)."""
        if name == "alphazero" or record["puct"] is not None:
            return
        from zerogym_agents.agents.search import AlphaZeroAgent

        puct, t0 = f"{name}+puct{self.sims}", time.perf_counter()
        matches = self.evaluate(
            lambda: AlphaZeroAgent(copy.deepcopy(run.net).eval(), simulations=self.sims),
            puct,
            (7, len(self.budget.targets()) - 1),
        )
        record["puct"] = {"name": puct, "eval_seconds": time.perf_counter() - t0, "matches": matches}
        self.save_record(name, record)
        self.log(
            f"[{self.key}/{name}] final net in PUCT({self.sims}): "
            + ", ".join(f"{m['agent_b']} {wdl(total(m))}" for m in matches)
        )

    def run_matches(self, record):
        return super().run_matches(record) + (record["puct"]["matches"] if record.get("puct") else [])

    def card(self, name, run, record):
        card = super().card(name, run, record)
        card["budget"]["torch_threads"] = TORCH_THREADS
        card["play"] = (
            f"PUCT search, {self.sims} simulations per move"
            if name == "alphazero"
            else "the policy net's greedy (argmax) move, no search"
        )
        if record.get("puct"):
            card["results"]["final_net_in_puct_search"] = by_reference(record["puct"]["matches"])
        return card


# ---- scheduling --------------------------------------------------------------------------------------
def do_task(o, task):
    kind, key, *rest = task.split(":")
    if key not in GAMES:
        raise SystemExit(f"az_vs_pg: unknown game in task {task!r}")
    import torch

    torch.set_num_threads(TORCH_THREADS)
    runs = o.comparison(key)
    try:
        if kind == "run":
            return runs.train(rest[0])
        if kind == "refs":
            return runs.play_references()
        if kind == "rr":
            return runs.round_robin(o.args.final_games, required=o.algos)
    except SettingsChanged as err:
        raise SystemExit(f"az_vs_pg: {err}. Resume with the same options, or use another --runs-dir.") from None
    except (ResumeError, FolderInUse) as err:
        raise SystemExit(f"az_vs_pg: {err}") from None
    raise SystemExit(f"az_vs_pg: unknown task {task!r}")


def schedule(o):
    """Runs first, then the references, then each game's round robin once its runs are finished; with
    --parallel 2, two tasks at a time in child processes (each on one torch thread)."""
    runs = [f"run:{k}:{a}" for k in o.games for a in ALGOS if a in o.algos]
    refs = [f"refs:{k}" for k in o.games]
    round_robins = {f"rr:{k}": {t for t in runs + refs if t.split(":")[1] == k} for k in o.games}
    if o.args.parallel == 1:
        for task in runs + refs + list(round_robins):
            do_task(o, task)
        return 0
    env = dict(os.environ, AZ_VS_PG_COMMAND=o.command())
    argv = [sys.executable, os.path.abspath(__file__), *o.argv, "--worker"]
    failed = run_children(
        runs + refs,
        lambda task, slot: start_command(argv + [task], env=env),
        o.args.parallel,
        needs=round_robins,
        on_failure=lambda task, code: print(f"az_vs_pg: task {task} failed (exit {code})", flush=True),
    )
    return 1 if failed else 0


def build_parser():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES))
    ap.add_argument("--algos", nargs="+", choices=list(ALGOS), default=list(ALGOS))
    ap.add_argument("--minutes", type=float, default=30.0, help="training wall time per run (default 30)")
    ap.add_argument(
        "--eval-every-minutes", type=float, default=5.0, help="evaluate every this many training minutes (default 5)"
    )
    ap.add_argument(
        "--steps",
        type=int,
        default=None,
        help="steps mode: train this many steps (AlphaZero search steps, PG updates) per evaluation "
        "instead of minutes (for tests: not an equal-compute comparison)",
    )
    ap.add_argument(
        "--evals",
        type=int,
        default=None,
        help="steps mode: evaluations after training (default: minutes / eval-every-minutes)",
    )
    ap.add_argument(
        "--no-eval-at-start",
        dest="eval_at_start",
        action="store_false",
        help="skip the evaluation of the untrained agents",
    )
    ap.add_argument(
        "--eval-games", type=int, default=20, help="games against each reference per evaluation (default 20)"
    )
    ap.add_argument(
        "--final-games",
        type=int,
        default=100,
        help="games per pair in the final round robin (default 100: a 70%% win rate is then known to "
        "about +-9 points, 95%% interval)",
    )
    ap.add_argument(
        "--references",
        nargs="+",
        default=list(DEFAULT_REFERENCES),
        metavar="SPEC",
        help="fixed reference agents (arena specs: random, greedy, uct:N, ...)",
    )
    ap.add_argument(
        "--opening-moves",
        type=int,
        default=None,
        metavar="K",
        help="random moves opening each pair of games, colours swapped, in every match (default per "
        "game: " + ", ".join(f"{k} {v}" for k, v in OPENING_MOVES.items()) + ")",
    )
    ap.add_argument(
        "--simulations",
        type=int,
        default=200,
        help="PUCT simulations per move when AlphaZero (and the PG nets' search row) play",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--parallel",
        type=int,
        choices=(1, 2),
        default=1,
        help="trainings at once (2: child processes, one torch thread each, for a 2-core machine)",
    )
    ap.add_argument("--report-only", action="store_true", help="rebuild the report from the saved state")
    ap.add_argument(
        "--net",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="net fields for every algorithm, over the preset's (e.g. blocks=1 channels=8)",
    )
    ap.add_argument("--az-set", nargs="*", default=[], metavar="KEY=VALUE", help="AlphaZeroConfig overrides")
    ap.add_argument("--pg-set", nargs="*", default=[], metavar="KEY=VALUE", help="PGConfig overrides")
    ap.add_argument(
        "--runs-dir",
        default=os.path.join(ROOT, "runs", "az_vs_pg"),
        help="per-run folders (checkpoints, state.json); default runs/az_vs_pg in the repository",
    )
    ap.add_argument(
        "--results-dir",
        default=os.path.join(HERE, "results"),
        help="report, plots and final agents; default benchmarks/results",
    )
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
    for ref in o.references:  # bad specs fail now, not hours later
        for key in o.games:
            reference_agent(ref, GAMES[key][0], GAMES[key][1])
    if args.worker:
        do_task(o, args.worker)
        return 0
    code = 0
    if not args.report_only:
        code = schedule(o)
    import az_vs_pg_report  # beside this script: its folder is on sys.path when it runs

    path = az_vs_pg_report.write_report(o)
    print(f"wrote {path}")
    return code


if __name__ == "__main__":
    # `kill PID`: exit through the finally blocks (children stopped, lock files removed); files are written atomically
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    sys.exit(main())
