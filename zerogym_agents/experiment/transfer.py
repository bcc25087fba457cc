"""The board-size transfer experiment: from one small-board AlphaZero net to a bigger board, by
several methods under the same training budget, measured against fixed reference agents.

    settings = TransferSettings(source="runs/go5/agent.pt", big_size=9, minutes=60)
    result = run_transfer(settings, "runs/transfer-go-5-9", report="benchmarks/results/transfer_go.md")

Methods (each trains AlphaZero on the big board with the same AlphaZeroConfig and budget):

- "scratch": a fresh net of the source's NetConfig;
- "finetune": the source net itself (config.init_from); its untrained strength on the big board
  is also measured on its own against Random (the zero-shot figure);
- "composite": ZetaGo's CompositeNet around the frozen source net (Painter & Johnston);
- "grown": the source net grown by `grow_blocks` residual blocks (Polygames, Cazenave et al. 2020), then
  fine-tuned;
- "curriculum": the source net trained on intermediate sizes, then on the big board; the budget
  is split over the stages by `curriculum_split` (default: equal shares).

Budget: `minutes` of training wall-clock time per method (evaluation time is not counted), or
`steps` self-play search steps (deterministic runs, for tests). In minutes mode the trainer has
no step cap and its learning rate follows the cosine schedule over the share of the (stage's)
time budget used; in steps mode it follows the trainer's own schedule over the (stage's) steps.

Evaluation: at the start, every `eval_every_*` of the budget and at the end of every stage, the
net (AlphaZeroAgent, `simulations` per move, moves sampled in proportion to visits during the
first `opening_moves` moves of a game) plays `eval_games` games (colours alternated) against
every reference, on the big board; the last evaluation plays `final_games`. Every evaluation point
is one player in a pooled maximum-likelihood Elo fit (fit_elo; Random = 0).

Output folder: experiment.json (settings; a restart with other settings is refused),
zero_shot.json, references.json (optional games between the references), results.json, and per
method: progress.json (written only when the trainer's checkpoint is at the same step), the
trainer's run folder(s), TensorBoard logs under tb/, final_agent.pt (+ .json model card) and the
finished marker done.json. A restarted experiment skips finished methods and resumes the others
from their last checkpoint.

Parallel: run(parallel=N) trains N methods at a time, each in a child process on one torch thread
(the batched evaluator already uses one thread on a 2-core machine, so a 2-core machine trains two
methods in the time of one); every method still gets the same wall-clock budget on one core.
"""
import hashlib
import math
import os
from dataclasses import dataclass

import torch

from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
from zerogym_agents.core.constants import CHECKPOINT
from zerogym_agents.agents.base import Agent, game_state
from zerogym_agents.experiment.budget import BudgetLoop
from zerogym_agents.experiment.evaluation import play_reference, pooled_elo
from zerogym_agents.experiment.processes import run_children, start_function
from zerogym_agents.experiment.records import read_json, write_json
from zerogym_agents.experiment.seeds import seed_int
from zerogym_agents.transfer.settings import GAME_FIELDS, METHODS, NO_STEP_CAP, TransferSettings

DONE, PROGRESS, FINAL_AGENT = "done.json", "progress.json", "final_agent.pt"


# ---- small helpers ---------------------------------------------------------------------------
def _json_schemas():
    """{file name: schema} of the experiment's JSON records: what the code reads from them on a restart."""
    from zerogym_agents.core.file_checks import Any, Bool, DictOf, Fields, Int, ListOf, Maybe, Real, Str
    wdl = Fields({"wins": Int(0), "draws": Int(0), "losses": Int(0)})
    record = Fields({"winner": Any(), "a_moved_first": Bool()})
    match = Fields({"agent_a": Str(), "agent_b": Str(), "game": Str(), "kwargs": DictOf(Str()), "seed": Any(),
                    "a_first": wdl, "b_first": wdl, "total": wdl}, optional={"records": ListOf(record)})
    stage = Fields({"name": Str(), "board_size": Int(1), "budget": Real(0), "steps": Int(0), "seconds": Real(0),
                    "games": Int(0), "positions": Int(0), "train_steps": Int(0), "done": Bool()})
    evaluation = Fields({"name": Str(), "stage": Int(0), "board_size": Maybe(Int(1)), "step": Int(0),
                         "total_steps": Int(0), "seconds": Real(0), "games": Int(0), "final": Bool(),
                         "matches": ListOf(match)})
    return {"experiment.json": Fields({"settings": DictOf(Str())}),
            "zero_shot.json": Fields({"match": match, "score": Real(0, 1)}),
            "references.json": Fields({"matches": ListOf(match)}),
            PROGRESS: Fields({"next_eval": Real(0), "evals": ListOf(evaluation), "stages": ListOf(stage)})}


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class OpeningSampler(Agent):
    """An AlphaZeroAgent that samples in proportion to visits (temperature 1) while the game has
    fewer than `moves` moves, then plays the most visited move."""

    def __init__(self, agent, moves):
        super().__init__()
        self.agent, self.moves, self.name = agent, moves, agent.name

    def seed(self, seed):
        self.agent.seed(seed)

    def reset(self):
        self.agent.reset()

    def act(self, env):
        self.agent.temperature = 1.0 if game_state(env).move_count < self.moves else 0.0
        return self.agent.act(env)


@dataclass
class Stage:
    """One training run of a method: `size` x `size` boards for `budget` (steps or seconds)."""
    name: str
    size: int
    budget: float


# ---- the experiment --------------------------------------------------------------------------
class TransferExperiment:
    """Runs the methods of `settings` in `out_dir` (resumable); run() returns the results dict."""

    def __init__(self, settings, out_dir, report=None, progress=True, command=None):
        from zerogym_agents.agents.saved import resolve
        from zerogym_agents.transfer.sources import read_source, square_board_size
        from zerogym_agents.nets import PolicyValueNet
        self.s = settings if isinstance(settings, TransferSettings) else TransferSettings.from_dict(settings)
        s = self.s
        self.out = os.fspath(out_dir)
        self.report = report if report is not None else os.path.join(self.out, "report.md")
        self.progress, self.command = progress, command
        self.source_path = os.path.abspath(resolve(s.source))
        net, agent, game, kwargs = read_source(self.source_path)
        if not isinstance(net, PolicyValueNet):
            raise ValueError(f"{s.source}: the source must hold a PolicyValueNet, not a {type(net).__name__}")
        if game is None:
            raise ValueError(f"{s.source}: a plain net file does not say its game; use a saved agent or checkpoint")
        self.source_net, self.source_card, self.game = net, (agent or {}).get("card"), game
        small = s.small_size
        if small is None:
            if kwargs is None:
                raise ValueError(f"{s.source} does not say which board size its net was trained on: give small_size")
            small = square_board_size(game, kwargs)
        if small >= s.big_size:
            raise ValueError(f"the source board ({small}) must be smaller than the big board ({s.big_size})")
        self.small_size = small
        # size-dependent kwargs (max_moves) of the source are dropped; the config's game_kwargs apply to every size
        self.base_kwargs = {k: v for k, v in (kwargs or {}).items() if k not in ("board_size", "max_moves")}
        self.base_kwargs.update({k: v for k, v in s.config.get("game_kwargs", {}).items() if k != "board_size"})
        self.big_kwargs = self.kwargs_for(s.big_size)
        # shared by every method; `net` is the scratch net (the others start from the source's weights)
        src_fields = {f: v for f, v in net.config.to_dict().items() if f not in GAME_FIELDS}
        self.config = AlphaZeroConfig.from_dict({
            **s.config, "game": game, "game_kwargs": self.big_kwargs, "seed": s.seed, "net": src_fields,
            "max_steps": s.steps if s.step_mode else NO_STEP_CAP}).to_dict()
        net.config.check_game(game, self.big_kwargs)
        self.intermediate = self._curriculum_sizes() if "curriculum" in s.methods else ()
        self.split = self._split()
        self.every = s.eval_every_steps if s.step_mode else 60.0 * s.eval_every_minutes
        self.budget = s.steps if s.step_mode else 60.0 * s.minutes
        self.anchor = "random" if "random" in s.references else s.references[0]
        if "composite" in s.methods:        # fail now on bad CompositeNet kwargs, not hours later
            try:
                self.initial("composite")
            except TypeError as err:
                raise ValueError(f"composite settings {s.composite}: {err}") from None
        self.parallel = 1           # methods trained at once (run's argument)
        self.position = 0           # the progress bar's line (child processes of run(parallel=N))
        self.progs = {}             # method -> its progress dict (evaluations included)
        self.ref_matches = []       # MatchResult dicts between references
        self.zero_shot = None

    # -- setup ------------------------------------------------------------------------------------
    def kwargs_for(self, size):
        return {**self.base_kwargs, "board_size": size}

    def _curriculum_sizes(self):
        lo, hi = self.small_size, self.s.big_size
        if self.s.curriculum is not None:
            sizes = self.s.curriculum
            if not sizes or list(sizes) != sorted(set(sizes)) or sizes[0] <= lo or sizes[-1] >= hi:
                raise ValueError(f"curriculum sizes must increase strictly between {lo} and {hi}, got {list(sizes)}")
            return tuple(sizes)
        sizes = tuple(n for n in range(lo + 1, hi) if n % 2 == hi % 2) or tuple(range(lo + 1, hi))
        if not sizes:
            raise ValueError(f"no board size lies between {lo} and {hi}: the curriculum method needs one")
        return sizes

    def _split(self):
        n = len(self.intermediate) + 1
        split = self.s.curriculum_split or (1.0,) * n
        if "curriculum" in self.s.methods and len(split) != n:
            raise ValueError(f"curriculum_split needs {n} shares (stages {list(self.intermediate)} then "
                             f"{self.s.big_size}), got {list(split)}")
        total = sum(split)
        return tuple(x / total for x in split)

    def stages(self, method):
        if method != "curriculum":
            return [Stage("run", self.s.big_size, self.budget)]
        sizes = (*self.intermediate, self.s.big_size)
        if self.s.step_mode:
            budgets = [int(self.budget * x) for x in self.split[:-1]]
            budgets.append(self.budget - sum(budgets))
            if min(budgets) < 1:
                raise ValueError(f"{self.budget} steps cannot be split over {len(sizes)} curriculum stages "
                                 f"{list(self.split)}")
        else:
            budgets = [self.budget * x for x in self.split]
        return [Stage(f"stage{i + 1}-{n}x{n}", n, b) for i, (n, b) in enumerate(zip(sizes, budgets))]

    def fingerprint(self):
        d = self.s.to_dict()
        d.pop("methods")
        d["source"] = file_sha256(self.source_path)       # the same net, wherever the file lies
        return d

    def _check_folder(self):
        os.makedirs(self.out, exist_ok=True)
        path = os.path.join(self.out, "experiment.json")
        mine = self.fingerprint()
        saved = read_json(path, _json_schemas()["experiment.json"])
        if saved is not None:
            diff = sorted(k for k in set(saved["settings"]) | set(mine)
                          if saved["settings"].get(k) != mine.get(k))
            if diff:
                raise ValueError(f"{self.out} holds an experiment with other settings ({', '.join(diff)}); "
                                 f"use another output folder or the same settings")
        write_json(path, {"settings": mine, "methods": list(self.s.methods)})

    # -- evaluation ----------------------------------------------------------------------------
    def _match(self, agent, ref, games, seed, names):
        return play_reference(agent, ref, self.game, self.big_kwargs, games, seed_int(seed, 3), names,
                              reference_seed=seed_int(seed, 2), progress=self.progress).to_dict()

    def az_agent(self, net, seed):
        from zerogym_agents.agents.search import AlphaZeroAgent
        return OpeningSampler(AlphaZeroAgent(net, simulations=self.s.simulations, seed=seed), self.s.opening_moves)

    def evaluate(self, net, name, games, words):
        """The net against every reference on the big board: a list of MatchResult dicts."""
        out = []
        for r, ref in enumerate(self.s.references):
            seed = seed_int(self.s.seed, *words, r)
            out.append(self._match(self.az_agent(net, seed_int(seed, 1)), ref, games, seed, (name, ref)))
        return out

    def run_zero_shot(self):
        path = os.path.join(self.out, "zero_shot.json")
        self.zero_shot = read_json(path, _json_schemas()["zero_shot.json"])
        if self.zero_shot is None:
            seed = seed_int(self.s.seed, 7)
            match = self._match(self.az_agent(self.source_net, seed_int(seed, 1)), "random", self.s.zero_shot_games,
                                seed, ("source (zero-shot)", "random"))
            t = match["total"]
            self.zero_shot = {"board_size": self.s.big_size, "games": self.s.zero_shot_games,
                              "simulations": self.s.simulations, "match": match,
                              "score": (t["wins"] + 0.5 * t["draws"]) / self.s.zero_shot_games}
            write_json(path, self.zero_shot)

    def run_references(self):
        path = os.path.join(self.out, "references.json")
        saved = read_json(path, _json_schemas()["references.json"])
        if saved is not None:
            self.ref_matches = saved["matches"]
            return
        from zerogym_agents.agents.specs import agent_from_spec
        matches, refs = [], self.s.references
        if self.s.reference_games:
            for i, a in enumerate(refs):
                for j in range(i + 1, len(refs)):
                    seed = seed_int(self.s.seed, 11, i, j)
                    first = agent_from_spec(a, self.game, self.big_kwargs, seed=seed_int(seed, 1))
                    try:
                        matches.append(self._match(first, refs[j], self.s.reference_games, seed, (a, refs[j])))
                    finally:
                        if hasattr(first, "close"):
                            first.close()
        self.ref_matches = matches
        write_json(path, {"games": self.s.reference_games, "matches": matches})

    def fit(self):
        """The pooled Elo of every game so far (None before the first), the anchor at 0."""
        matches = list(self.ref_matches)
        for prog in self.progs.values():
            for ev in prog["evals"]:
                matches += ev["matches"]
        return pooled_elo(matches, anchor=self.anchor)

    # -- one method -------------------------------------------------------------------------------
    def initial(self, method, k=0, mdir=None):
        """(AlphaZeroConfig fields to set, net to start from or None) of a method's stage k."""
        from zerogym_agents.nets.composite import CompositeNet
        from zerogym_agents.transfer.grow import grow
        src_fields = {f: v for f, v in self.source_net.config.to_dict().items() if f not in GAME_FIELDS}
        if method == "scratch":
            return {"net": src_fields}, None
        if method == "finetune" or (method == "curriculum" and k == 0):
            return {"init_from": self.source_path}, None
        if method == "curriculum":
            previous = self.stages(method)[k - 1].name
            return {"init_from": os.path.abspath(os.path.join(mdir, previous, CHECKPOINT))}, None
        if method == "composite":
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(seed_int(self.s.seed, 21))
                return {}, CompositeNet(self.source_net, self.s.big_size, small_size=self.small_size,
                                        **self.s.composite)
        net = grow(self.source_net, blocks=self.source_net.config.blocks + self.s.grow_blocks,
                   seed=seed_int(self.s.seed, 22))
        return {"net": {**src_fields, "blocks": net.config.blocks}}, net

    def _trainer(self, method, k, stage, mdir):
        fields, net = self.initial(method, k, mdir)
        cfg = dict(self.config, game_kwargs=self.kwargs_for(stage.size),
                   max_steps=int(stage.budget) if self.s.step_mode else NO_STEP_CAP, **fields)
        run_dir = os.path.join(mdir, stage.name)
        resume = os.path.isfile(os.path.join(run_dir, CHECKPOINT))
        trainer = AlphaZeroTrainer(AlphaZeroConfig.from_dict(cfg), run_dir, resume=resume, net=net,
                                   log_dir=os.path.join(mdir, "tb", stage.name))
        if not self.s.step_mode:
            trainer.time_budget = stage.budget
        return trainer

    def _new_progress(self, method):
        return {"method": method, "next_eval": 0, "evals": [], "done": False,
                "stages": [{"name": st.name, "board_size": st.size, "budget": st.budget, "steps": 0, "seconds": 0.0,
                            "games": 0, "positions": 0, "train_steps": 0, "done": False}
                           for st in self.stages(method)]}

    def _name(self, method, total_steps, seconds):
        """A unique player name for an evaluation point: method@STEPS or method@MINUTESmin."""
        taken = {ev["name"] for p in self.progs.values() for ev in p["evals"]}
        names = [f"{method}@{total_steps}"] if self.s.step_mode else \
            [f"{method}@{seconds / 60:.{d}f}min" for d in (1, 2, 3)]
        k = 2
        while all(n in taken for n in names):
            names, k = [f"{names[0]}#{k}"], k + 1
        return next(n for n in names if n not in taken)

    def run_method(self, method):
        """Train and evaluate one method (resuming or skipping it as its folder says); returns its progress."""
        mdir = os.path.join(self.out, method)
        os.makedirs(mdir, exist_ok=True)
        prog = read_json(os.path.join(mdir, PROGRESS), _json_schemas()[PROGRESS])
        if prog is not None and os.path.isfile(os.path.join(mdir, DONE)):
            self.progs[method] = prog
            return prog
        stages = self.stages(method)
        if prog is None or [st["name"] for st in prog["stages"]] != [st.name for st in stages]:
            prog = self._new_progress(method)
        self.progs[method] = prog
        from torch.utils.tensorboard import SummaryWriter
        writer = SummaryWriter(os.path.join(mdir, "tb", "eval"))
        unit = "step" if self.s.step_mode else "min"
        scale = 1 if self.s.step_mode else 1 / 60
        from tqdm.auto import tqdm
        bar = tqdm(total=round(self.budget * scale, 2), desc=f"transfer {method}", unit=unit, disable=not self.progress,
                   position=self.position)
        net = None
        try:
            for k, stage in enumerate(stages):
                if prog["stages"][k]["done"]:
                    continue
                net = self._run_stage(method, k, stage, prog, mdir, writer, bar, scale)
        finally:
            bar.close()
            writer.close()
        if net is None:
            from zerogym_agents.nets import load_net
            net = load_net(os.path.join(mdir, stages[-1].name, CHECKPOINT))
        self._finish(method, prog, net, mdir)
        return prog

    def _used(self, sp):
        return sp["steps"] if self.s.step_mode else sp["seconds"]

    def _run_stage(self, method, k, stage, prog, mdir, writer, bar, scale):
        sp = prog["stages"][k]
        trainer = self._trainer(method, k, stage, mdir)
        prog_path = os.path.join(mdir, PROGRESS)
        base = sum(self._used(p) for p in prog["stages"][:k])

        def record():
            sp.update(steps=trainer.step, games=trainer.games, positions=trainer.positions,
                      train_steps=trainer.train_steps)
            write_json(prog_path, prog)

        def chunk(seconds):
            # the training time of the chunks the CPU time was measured over (seconds may hold estimates)
            sp["cpu_wall_seconds"] = sp.get("cpu_wall_seconds", 0.0) + seconds
            bar.n = round((base + self._used(sp)) * scale, 2)
            bar.set_postfix(games=trainer.games, board=f"{stage.size}x{stage.size}")

        # every stage gets at least its budget ("reach"), so that the last evaluation falls at its end
        loop = BudgetLoop(trainer, sp, "steps" if self.s.step_mode else "seconds", end="reach",
                          on_checkpoint=record, on_chunk=chunk)
        loop.reconcile(f"{mdir}: {stage.name}")
        last = len(self.stages(method)) - 1
        bar.n = round((base + self._used(sp)) * scale, 2)
        bar.refresh()
        while True:
            used = self._used(sp)
            total = base + used
            here = prog["evals"] and (prog["evals"][-1]["stage"], prog["evals"][-1]["step"]) == (k, trainer.step)
            finished = used >= stage.budget
            if not here and (total >= prog["next_eval"] or finished):
                self._evaluate(method, k, trainer, prog, writer, final=finished and k == last)
                prog["next_eval"] = (math.floor(total / self.every) + 1) * self.every
                write_json(prog_path, prog)
            if finished:
                break
            loop.train_to(min(prog["next_eval"] - base, stage.budget))
            loop.save()
            record()
        sp["done"] = True
        record()
        if trainer.writer:
            trainer.writer.close()
        return trainer.net

    def _evaluate(self, method, k, trainer, prog, writer, final):
        total_steps = sum(p["steps"] for p in prog["stages"])
        seconds = sum(p["seconds"] for p in prog["stages"])
        name = self._name(method, total_steps, seconds)
        index = len(prog["evals"])
        games = self.s.final_games if final else self.s.eval_games
        matches = self.evaluate(trainer.net, name, games, (13, METHODS.index(method), index))
        trained = prog["stages"][k if trainer.step else k - 1]["board_size"] if trainer.step or k else None
        prog["evals"].append({"name": name, "stage": k, "board_size": trained,
                              "step": trainer.step, "total_steps": total_steps, "seconds": seconds,
                              "games": games, "final": final, "matches": matches})
        elo = self.fit()
        if elo is not None:
            writer.add_scalar("transfer/elo", elo.rating(name), total_steps)
            writer.add_scalar("transfer/elo_by_training_second", elo.rating(name), int(seconds))
        for m in matches:
            t = m["total"]
            games_played = t["wins"] + t["draws"] + t["losses"]
            writer.add_scalar(f"transfer/score_vs_{m['agent_b'].replace(':', '_')}",
                              (t["wins"] + 0.5 * t["draws"]) / games_played, total_steps)
        writer.flush()

    def _finish(self, method, prog, net, mdir):
        from zerogym_agents.agents.saved import save_agent
        last = prog["evals"][-1]
        card = {"game": self.game, "kwargs": self.big_kwargs, "net": net.config.to_dict(),
                "parameters": net.num_parameters(),
                "training": {"method": method, "source": self.s.source, "source_board_size": self.small_size,
                             "seconds": round(sum(p["seconds"] for p in prog["stages"]), 1),
                             "steps": sum(p["steps"] for p in prog["stages"]),
                             "self_play_games": sum(p["games"] for p in prog["stages"]),
                             "positions": sum(p["positions"] for p in prog["stages"]),
                             "train_steps": sum(p["train_steps"] for p in prog["stages"]),
                             "stages": [{"board_size": p["board_size"], "steps": p["steps"],
                                         "seconds": round(p["seconds"], 1)} for p in prog["stages"]],
                             "config": self.config},
                "results": {m["agent_b"]: {"first": m["a_first"], "second": m["b_first"], "total": m["total"]}
                            for m in last["matches"]},
                "simulations_per_move": self.s.simulations, "opening_moves_sampled": self.s.opening_moves,
                "command": self.command}
        save_agent(os.path.join(mdir, FINAL_AGENT), net, {"simulations": self.s.simulations}, card)
        prog["done"], prog["net"] = True, net.describe()
        write_json(os.path.join(mdir, PROGRESS), prog)
        write_json(os.path.join(mdir, DONE), {"method": method, "agent": FINAL_AGENT, "final": last["name"]})

    # -- everything -------------------------------------------------------------------------------
    def results(self):
        elo = self.fit()
        return {"settings": self.s.to_dict(), "command": self.command, "game": self.game,
                "small_size": self.small_size, "big_kwargs": self.big_kwargs, "config": self.config,
                "source": {"path": self.source_path, "net": self.source_net.config.to_dict(),
                           "describe": self.source_net.describe(), "card": self.source_card},
                "budget": {"unit": "steps" if self.s.step_mode else "seconds", "per_method": self.budget,
                           "parallel": self.parallel, "torch_threads": torch.get_num_threads()
                           if self.parallel == 1 else 1},
                "curriculum": {"sizes": list(self.intermediate), "split": list(self.split)},
                "anchor": self.anchor, "zero_shot": self.zero_shot, "reference_matches": self.ref_matches,
                "methods": {m: self.progs[m] for m in self.s.methods if m in self.progs},
                "elo": elo.to_dict() if elo is not None else None}

    def prepare(self):
        """Check the output folder, then play (once; saved) the zero-shot and reference matches."""
        self._check_folder()
        self.run_zero_shot()
        self.run_references()

    def run(self, parallel=1):
        """Run (or resume) every method, `parallel` at a time, then write results.json, the report
        and its plot."""
        if isinstance(parallel, bool) or not isinstance(parallel, int) or parallel < 1:
            raise ValueError(f"parallel must be a positive integer, got {parallel!r}")
        import matplotlib
        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot  # noqa: F401  (imported now, not inside the first method's timed training)
        from zerogym_agents.transfer.report import write_report
        self.parallel = parallel
        self.prepare()
        if parallel > 1:
            self._train_in_children(parallel)
        for method in self.s.methods:       # finished ones are only read back
            self.run_method(method)
        data = self.results()
        write_json(os.path.join(self.out, "results.json"), data)
        data["paths"] = write_report(data, self.report)
        return data

    def _train_in_children(self, parallel):
        todo = [m for m in self.s.methods if not os.path.isfile(os.path.join(self.out, m, DONE))]
        failed = run_children(todo, lambda method, line: start_function(
            _train_method, self.s.to_dict(), self.out, method, self.command, self.progress, line,
            name=f"transfer-{method}"), parallel)
        if failed:
            raise RuntimeError(f"transfer: training failed for {', '.join(f'{m} (exit {c})' for m, c in failed)}; "
                               "its error is printed above, and running the experiment again (zerogym transfer "
                               "run ... --resume) resumes it")


def _train_method(settings, out_dir, method, command, progress, position):
    """A child process of TransferExperiment.run(parallel=N): one method on one torch thread."""
    torch.set_num_threads(1)
    exp = TransferExperiment(settings, out_dir, progress=progress, command=command)
    exp.position = position
    exp.prepare()
    exp.run_method(method)


def final_elos(data):
    """{method: pooled Elo of its final evaluation point} for the finished methods of a results dict."""
    agents = (data.get("elo") or {}).get("agents", {})
    return {m: agents[p["evals"][-1]["name"]]["elo"] for m, p in data["methods"].items()
            if p.get("done") and p["evals"] and p["evals"][-1]["name"] in agents}


def best_method(data):
    """(method, Elo) of the finished method whose final evaluation point has the highest pooled Elo."""
    finals = final_elos(data)
    if not finals:
        raise ValueError("no method of this transfer experiment has finished: there is no best agent yet")
    method = max(finals, key=finals.get)
    return method, finals[method]


def save_best_agent(data, out_dir, path, command=None):
    """Save the final agent of best_method(data) (from `out_dir`, the experiment's folder) to `path`,
    its model card extended with how it was chosen: the method, its Elo and every method's final Elo
    (Random = 0), and `command` when given. Returns the method."""
    from zerogym_agents.agents.saved import copy_agent
    method, elo = best_method(data)
    selection = {"rule": "the transfer experiment's method with the highest final Elo", "method": method,
                 "elo": round(elo, 1), "anchor": data.get("anchor"),
                 "final_elo": {m: round(e, 1) for m, e in final_elos(data).items()}}
    copy_agent(os.path.join(os.fspath(out_dir), method, FINAL_AGENT), path,
               lambda card: {**card, "selection": selection, **({"command": command} if command else {})})
    return method


def run_transfer(settings, out_dir, report=None, progress=True, command=None, parallel=1):
    """Run the transfer experiment `settings` (a TransferSettings or its dict) in `out_dir`,
    resuming what a previous run there left, `parallel` methods at a time; write the markdown report
    to `report` (default OUT/report.md) and its plot beside it (.png). Returns the results dict
    (also results.json)."""
    return TransferExperiment(settings, out_dir, report=report, progress=progress,
                              command=command).run(parallel=parallel)
