"""The board-size transfer experiment: from one small-board AlphaZero net to a bigger board, by
several methods under the same training budget, measured against fixed reference agents.

    settings = TransferSettings(source="runs/go5/agent.pt", big_size=9, minutes=60)
    result = run_transfer(settings, "runs/transfer-go-5-9", report="benchmarks/results/transfer_go.md")

It is a Comparison (comparison.py) with one AlphaZero run per method, each on the big board with
the same AlphaZeroConfig and budget:

- "scratch": a fresh net of the source's NetConfig;
- "finetune": the source net itself (config.init_from); its untrained strength on the big board
  is also measured on its own against Random (the zero-shot evaluation);
- "composite": ZetaGo's CompositeNet around the frozen source net (Painter & Johnston);
- "grown": the source net grown by `grow_blocks` residual blocks (Polygames, Cazenave et al. 2020), then
  fine-tuned;
- "curriculum": the source net trained on intermediate sizes, then on the big board: a run with one
  stage per board size, the budget split over them by `curriculum_split` (default: equal shares).

Budget: `minutes` of training wall-clock time per method (evaluation time is not counted), or
`steps` self-play search steps (deterministic runs, for tests). In minutes mode the trainer has
no step cap and its learning rate follows the cosine schedule over the share of the (stage's)
time budget used; in steps mode it follows the trainer's own schedule over the (stage's) steps.
Every stage gets at least its budget (BudgetLoop's end="reach"), so that its last evaluation
falls at its end.

Evaluation: at the start, every `eval_every_*` of the budget and at the end of every stage, the
net (AlphaZeroAgent, `simulations` per move, moves sampled in proportion to visits during the
first `opening_moves` moves of a game) plays `eval_games` games (colours alternated) against
every reference, on the big board; the last evaluation plays `final_games`. Every evaluation point
is one player in a pooled maximum-likelihood Elo fit (fit_elo; Random = 0).

Output folder: experiment.json (settings; a restart with other settings is refused),
zero_shot.json, references.json (optional games between the references), results.json, and per
method: progress.json (the run's record; written only when the trainer's checkpoint is at the
same step), the trainer's run folder(s) (run/, or the curriculum's stage1-7x7/ ...), TensorBoard
logs under tb/, final_agent.pt (+ .json model card) and the finished marker done.json. A restarted
experiment skips finished methods and resumes the others from their last checkpoint.

Parallel: run(parallel=N) trains N methods at a time, each in a child process on one torch thread
(the batched evaluator already uses one thread on a 2-core machine, so a 2-core machine trains two
methods in the time of one); every method still gets the same wall-clock budget on one core.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
from typing import TYPE_CHECKING, Any

import torch

from zerogym_agents.agents.base import Agent, game_state
from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.experiment.budget import Budget
from zerogym_agents.experiment.comparison import Comparison, Record, Stage
from zerogym_agents.experiment.evaluation import evaluate, pooled_elo, reference_agent, seeded_match
from zerogym_agents.experiment.processes import check_parallel
from zerogym_agents.experiment.records import read_json, write_json
from zerogym_agents.experiment.seeds import seed_int
from zerogym_agents.transfer.settings import GAME_FIELDS, METHODS, NO_STEP_CAP, TransferSettings

if TYPE_CHECKING:
    from zerogym_agents.arena.elo import EloTable
    from zerogym_agents.experiment.protocol import TrainingRun

__all__ = [
    "METHODS",
    "OpeningSampler",
    "TransferExperiment",
    "TransferSettings",
    "best_method",
    "final_elos",
    "run_transfer",
    "save_best_agent",
]

DONE, PROGRESS, FINAL_AGENT = "done.json", "progress.json", "final_agent.pt"
EXPERIMENT, ZERO_SHOT, REFERENCES, RESULTS = "experiment.json", "zero_shot.json", "references.json", "results.json"
ZERO_SHOT_NAME = "source (zero-shot)"


# ---- small helpers ---------------------------------------------------------------------------
def _json_schemas() -> dict[str, Any]:
    """{file name: schema} of the experiment's JSON records: what the code reads from them on a restart."""
    from zerogym_agents.core.file_checks import Any, Bool, DictOf, Fields, Int, ListOf, Maybe, Real, Str

    wdl = Fields({"wins": Int(0), "draws": Int(0), "losses": Int(0)})
    record = Fields({"winner": Any(), "a_moved_first": Bool()})
    match = Fields(
        {
            "agent_a": Str(),
            "agent_b": Str(),
            "game": Str(),
            "kwargs": DictOf(Str()),
            "seed": Any(),
            "a_first": wdl,
            "b_first": wdl,
            "total": wdl,
        },
        optional={"records": ListOf(record)},
    )
    stage = Fields(
        {
            "name": Str(),
            "board_size": Int(1),
            "budget": Real(0),
            "steps": Int(0),
            "seconds": Real(0),
            "games": Int(0),
            "positions": Int(0),
            "train_steps": Int(0),
            "done": Bool(),
        }
    )
    evaluation = Fields(
        {
            "name": Str(),
            "stage": Int(0),
            "board_size": Maybe(Int(1)),
            "step": Int(0),
            "total_steps": Int(0),
            "seconds": Real(0),
            "games": Int(0),
            "final": Bool(),
            "matches": ListOf(match),
        }
    )
    return {
        EXPERIMENT: Fields({"settings": DictOf(Str())}),
        ZERO_SHOT: Fields({"match": match, "score": Real(0, 1)}),
        REFERENCES: Fields({"matches": ListOf(match)}),
        PROGRESS: Fields({"next_eval": Real(0), "evals": ListOf(evaluation), "stages": ListOf(stage)}),
    }


def _torch_threads(methods: dict[str, Record]) -> int | None:
    """The torch threads the methods trained on, as their records hold them; None where they differ or
    a record does not say (runs from before it was recorded)."""
    seen = {st.get("torch_threads") for rec in methods.values() for st in rec["stages"] if st["steps"]}
    return seen.pop() if len(seen) == 1 else None


def file_sha256(path: str) -> str:
    """The SHA-256 of a file's bytes, as hex (read in blocks of 1 MiB)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class OpeningSampler(Agent):
    """An AlphaZeroAgent that samples in proportion to visits (temperature 1) while the game has
    fewer than `moves` moves, then plays the most visited move."""

    def __init__(self, agent: Any, moves: int) -> None:
        super().__init__()
        self.agent, self.moves, self.name = agent, moves, agent.name

    def seed(self, seed: int | None) -> None:
        self.agent.seed(seed)

    def reset(self) -> None:
        self.agent.reset()

    def act(self, env: Any) -> int:
        self.agent.temperature = 1.0 if game_state(env).move_count < self.moves else 0.0
        return self.agent.act(env)


def sampling_agent(net: Any, simulations: int, opening_moves: int, seed: int | None = None) -> OpeningSampler:
    """The evaluated player: `net` in an AlphaZeroAgent of `simulations` per move, seeded with
    `seed`, that samples its first `opening_moves` moves (OpeningSampler)."""
    from zerogym_agents.agents.search import AlphaZeroAgent

    return OpeningSampler(AlphaZeroAgent(net, simulations=simulations, seed=seed), opening_moves)


def composite_net(source: Any, big_size: int, small_size: int, options: dict[str, Any], seed: int) -> Any:
    """The composite method's first net: CompositeNet(source, ...) with its new weights drawn from `seed`."""
    from zerogym_agents.nets.composite import CompositeNet

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return CompositeNet(source, big_size, small_size=small_size, **options)


def grown_net(source: Any, blocks: int, seed: int) -> Any:
    """The grown method's first net: `source` grown to `blocks` residual blocks."""
    from zerogym_agents.transfer.grow import grow

    return grow(source, blocks=blocks, seed=seed)


def _quiet(line: str) -> None:
    """The log of an experiment without progress output."""


# ---- the experiment --------------------------------------------------------------------------
class TransferExperiment(Comparison):
    """The methods of `settings` as the runs of a Comparison in `out_dir` (resumable): run() trains
    and evaluates them, write_results() writes results.json and the report (run_transfer does both).

    The records keep the experiment's own format: per method progress.json (its stages' budgets and
    counters, every evaluation with its games' records) and done.json, zero_shot.json and
    references.json with their own seeds, experiment.json, results.json."""

    def __init__(
        self,
        settings: TransferSettings | dict[str, Any],
        out_dir: str | os.PathLike[str],
        report: str | None = None,
        progress: bool = True,
        command: str | None = None,
    ) -> None:
        from zerogym_agents.agents.saved import resolve
        from zerogym_agents.nets import PolicyValueNet
        from zerogym_agents.transfer.sources import read_source, board_size_of

        self.s = settings if isinstance(settings, TransferSettings) else TransferSettings.from_dict(settings)
        s = self.s
        out = os.fspath(out_dir)
        self.report = report if report is not None else os.path.join(out, "report.md")
        self.progress = progress
        self.source_path = os.path.abspath(resolve(s.source))
        net, agent, game, kwargs = read_source(self.source_path)
        if not isinstance(net, PolicyValueNet):
            raise ValueError(f"{s.source}: the source must hold a PolicyValueNet, not a {type(net).__name__}")
        if game is None:
            raise ValueError(f"{s.source}: a plain net file does not say its game; use a saved agent or checkpoint")
        self.source_net, self.source_card = net, (agent or {}).get("card")
        small = s.small_size
        if small is None:
            if kwargs is None:
                raise ValueError(f"{s.source} does not say which board size its net was trained on: give small_size")
            small = board_size_of(game, kwargs)
        if small >= s.big_size:
            raise ValueError(f"the source board ({small}) must be smaller than the big board ({s.big_size})")
        self.small_size = small
        # size-dependent kwargs (max_moves) of the source are dropped; the config's game_kwargs apply to every size
        self.base_kwargs = {k: v for k, v in (kwargs or {}).items() if k not in ("board_size", "max_moves")}
        self.base_kwargs.update({k: v for k, v in s.config.get("game_kwargs", {}).items() if k != "board_size"})
        self.big_kwargs = self.kwargs_for(s.big_size)
        # shared by every method; `net` is the scratch net (the others start from the source's weights)
        self.src_fields = {f: v for f, v in net.config.to_dict().items() if f not in GAME_FIELDS}
        self.config = AlphaZeroConfig.from_dict(
            {
                **s.config,
                "game": game,
                "game_kwargs": self.big_kwargs,
                "seed": s.seed,
                "net": self.src_fields,
                "max_steps": s.steps if s.step_mode else NO_STEP_CAP,
            }
        ).to_dict()
        net.config.check_game(game, self.big_kwargs)
        self.intermediate = self._curriculum_sizes() if "curriculum" in s.methods else ()
        self.shares = self._shares()
        self.split = tuple(x / sum(self.shares) for x in self.shares)
        if "composite" in s.methods:  # fail now on bad CompositeNet kwargs, not hours later
            try:
                self.initial_net("composite")
            except TypeError as err:
                raise ValueError(f"composite settings {s.composite}: {err}") from None
        budget = (
            Budget(steps=s.steps, eval_every=s.eval_every_steps)
            if s.step_mode
            else Budget(minutes=s.minutes, eval_every=s.eval_every_minutes)
        )
        super().__init__(
            out,
            game,
            budget,
            references=s.references,
            game_kwargs=self.big_kwargs,
            eval_games=s.eval_games,
            seed=s.seed,
            label="transfer",
            command=command,
            log=print if progress else _quiet,
            anchor="random" if "random" in s.references else s.references[0],
            end="reach",
        )
        self.resume_hint = "running the experiment again (zerogym transfer run ... --resume) resumes it"
        self.every = s.eval_every_steps if s.step_mode else 60.0 * s.eval_every_minutes
        self.sizes: dict[str, list[int]] = {}  # method -> the board size of each of its stages
        for method in s.methods:
            self.add_method(method)
        self.add_zero_shot(
            ZERO_SHOT_NAME,
            functools.partial(sampling_agent, self.source_net, s.simulations, s.opening_moves),
            references=("random",),
            games=s.zero_shot_games,
            rated=False,
            seeded=True,
        )
        self.parallel = 1  # methods trained at once (run's argument)
        self.progs: dict[str, Record] = {}  # method -> its record, those this process has seen
        self.ref_matches: list[dict[str, Any]] = []  # MatchResult dicts between references
        self.zero_shot_result: dict[str, Any] | None = None
        self._outputs: dict[str, tuple[Any, Any]] = {}  # method -> (its TensorBoard writer, its progress bar)

    # -- setup ------------------------------------------------------------------------------------
    def kwargs_for(self, size: int) -> dict[str, Any]:
        return {**self.base_kwargs, "board_size": size}

    def _curriculum_sizes(self) -> tuple[int, ...]:
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

    def _shares(self) -> tuple[float, ...]:
        """The curriculum stages' budget shares, as given (the big board last)."""
        n = len(self.intermediate) + 1
        split = self.s.curriculum_split or (1.0,) * n
        if "curriculum" in self.s.methods and len(split) != n:
            raise ValueError(
                f"curriculum_split needs {n} shares (stages {list(self.intermediate)} then "
                f"{self.s.big_size}), got {list(split)}"
            )
        return tuple(split)

    def add_method(self, method: str) -> None:
        """Add `method` as an AlphaZero run: scratch from the source's NetConfig, finetune and
        curriculum from the source file (init_from), composite and grown from a net made of the
        source net (initial_net); the curriculum has a stage per board size, the others one."""
        s, src = self.s, self.src_fields
        by_method: dict[str, dict[str, Any]] = {
            "scratch": {"net": src},
            "finetune": {"init_from": self.source_path},
            "curriculum": {"init_from": self.source_path},
            "composite": {},
            "grown": {"net": {**src, "blocks": self.grown_blocks()}},
        }
        fields = by_method[method]
        self.sizes[method] = [*self.intermediate, s.big_size] if method == "curriculum" else [s.big_size]
        stages = (
            [
                Stage(f"stage{i + 1}-{n}x{n}", share, {"game_kwargs": self.kwargs_for(n)})
                for i, (n, share) in enumerate(zip(self.sizes[method], self.shares))
            ]
            if method == "curriculum"
            else [Stage("run")]
        )
        net = functools.partial(self.initial_net, method) if method in ("composite", "grown") else None
        self.add(method, "alphazero", {**self.config, **fields}, stages=stages, net=net)

    def grown_blocks(self) -> int:
        return self.source_net.config.blocks + self.s.grow_blocks

    def initial_net(self, method: str) -> Any:
        """The net the composite or grown method starts from (the others' come from their config)."""
        s = self.s
        if method == "composite":
            return composite_net(self.source_net, s.big_size, self.small_size, dict(s.composite), seed_int(s.seed, 21))
        return grown_net(self.source_net, self.grown_blocks(), seed_int(s.seed, 22))

    def fingerprint(self, name: str | None = None) -> dict[str, Any]:
        """The experiment's settings as experiment.json holds them (the same for every method)."""
        d = self.s.to_dict()
        d.pop("methods")
        d["source"] = file_sha256(self.source_path)  # the same net, wherever the file lies
        return d

    def _check_folder(self) -> None:
        os.makedirs(self.folder, exist_ok=True)
        path = os.path.join(self.folder, EXPERIMENT)
        mine = self.fingerprint()
        saved = read_json(path, _json_schemas()[EXPERIMENT])
        if saved is not None:
            diff = sorted(k for k in set(saved["settings"]) | set(mine) if saved["settings"].get(k) != mine.get(k))
            if diff:
                raise ValueError(
                    f"{self.folder} holds an experiment with other settings ({', '.join(diff)}); "
                    f"use another output folder or the same settings"
                )
        write_json(path, {"settings": mine, "methods": list(self.s.methods)})

    # -- the records: progress.json and done.json per method ---------------------------------------
    def record(self, name: str) -> Record | None:
        return read_json(os.path.join(self.run_dir(name), PROGRESS), _json_schemas()[PROGRESS])

    def save_record(self, name: str, record: Record) -> None:
        write_json(os.path.join(self.run_dir(name), PROGRESS), record)

    def new_record(self, name: str, fingerprint: Any) -> Record:
        return {
            "method": name,
            "next_eval": 0,
            "evals": [],
            "done": False,
            "stages": [
                {
                    "name": st.name,
                    "board_size": n,
                    "budget": b,
                    "steps": 0,
                    "seconds": 0.0,
                    "games": 0,
                    "positions": 0,
                    "train_steps": 0,
                    "done": False,
                }
                for st, n, b in zip(self.runs[name].stages or [], self.sizes[name], self.stage_budgets(name))
            ],
        }

    def resume_record(self, name: str, record: Record) -> Record | None:
        """The record, unless its stages are not this method's (then the method starts afresh); the
        settings were checked against experiment.json."""
        if self.finished(name, record) or [st["name"] for st in record["stages"]] == [
            st.name for st in self.runs[name].stages or []
        ]:
            return record
        return None

    def finished(self, name: str, record: Record) -> bool:
        return os.path.isfile(os.path.join(self.run_dir(name), DONE))

    def open_record(self, name: str, record: Record) -> None:
        """The method's evaluation TensorBoard log and its progress bar, for this sitting."""
        from torch.utils.tensorboard import SummaryWriter
        from tqdm.auto import tqdm

        self.progs[name] = record
        writer = SummaryWriter(os.path.join(self.run_dir(name), "tb", "eval"))
        unit, scale = ("step", 1) if self.s.step_mode else ("min", 1 / 60)
        bar = tqdm(
            total=round(self.budget.total * scale, 2),
            desc=f"transfer {name}",
            unit=unit,
            disable=not self.progress,
            position=self.slot,
        )
        self._outputs[name] = (writer, bar)

    def train(self, name: str) -> Record:
        try:
            record = super().train(name)
        finally:
            writer, bar = self._outputs.pop(name, (None, None))
            if bar is not None:
                bar.close()
                writer.close()
        self.progs[name] = record
        return record

    def note_progress(
        self, name: str, record: Record, k: int, run: TrainingRun, checkpoint_seconds: float = 0.0
    ) -> None:
        c = run.counters()
        record["stages"][k].update(
            steps=run.step, games=c["self_play_games"], positions=c["positions"], train_steps=c["sgd_steps"]
        )

    def chunk(self, name: str, record: Record, k: int, run: TrainingRun, seconds: float) -> None:
        # the training time of the chunks the CPU time was measured over (seconds may hold estimates)
        st = record["stages"][k]
        st["cpu_wall_seconds"] = st.get("cpu_wall_seconds", 0.0) + seconds
        st["torch_threads"] = torch.get_num_threads()  # what the trainer set (make_evaluator's threads)
        _, bar = self._outputs[name]
        scale = 1 if self.s.step_mode else 1 / 60
        bar.n = round(sum(self.used(p) for p in record["stages"][: k + 1]) * scale, 2)
        bar.set_postfix(games=st["games"], board=f"{st['board_size']}x{st['board_size']}")

    def evaluated_to(self, name: str, record: Record, k: int) -> float | None:
        """The stage's budget used at its last evaluation: points that training passed before an
        evaluation are not evaluated on their own."""
        evs = [ev for ev in record["evals"] if ev["stage"] == k]
        if not evs:
            return None
        base = sum(self.used(p) for p in record["stages"][:k])
        return (evs[-1]["total_steps"] if self.s.step_mode else evs[-1]["seconds"]) - base

    # -- evaluation -------------------------------------------------------------------------------
    def point_label(self, record: Record, method: str, total_steps: int, seconds: float) -> str:
        """A unique player name for an evaluation point: method@STEPS or method@MINUTESmin."""
        taken = {ev["name"] for ev in record["evals"]}
        names = (
            [f"{method}@{total_steps}"]
            if self.s.step_mode
            else [f"{method}@{seconds / 60:.{d}f}min" for d in (1, 2, 3)]
        )
        k = 2
        while all(n in taken for n in names):
            names, k = [f"{names[0]}#{k}"], k + 1
        return next(n for n in names if n not in taken)

    def evaluation_point(self, name: str, run: TrainingRun, rec: Record, k: int, target: float) -> None:
        """The net against every reference on the big board (final_games at the run's end), seeded
        from (seed, 13, the method, the point's index); kept in the record with the games' records,
        and logged to TensorBoard with the Elo of the games this process has seen."""
        s, stage = self.s, self.current_stage(name, rec)
        stages = rec["stages"]
        final = stage == len(stages) - 1 and self.used(stages[stage]) >= stages[stage]["budget"]
        total_steps = sum(p["steps"] for p in stages)
        seconds = sum(p["seconds"] for p in stages)
        point, index = self.point_label(rec, name, total_steps, seconds), len(rec["evals"])
        games = s.final_games if final and s.final_games is not None else s.eval_games  # check_rules sets it
        matches = evaluate(
            functools.partial(sampling_agent, run.net, s.simulations, s.opening_moves),
            point,
            s.references,
            self.game,
            self.big_kwargs,
            games,
            (s.seed, 13, METHODS.index(name), index),
            seeded=True,
            records=True,
            progress=self.progress,
        )
        trained = stages[stage if run.step else stage - 1]["board_size"] if run.step or stage else None
        rec["evals"].append(
            {
                "name": point,
                "stage": stage,
                "board_size": trained,
                "step": run.step,
                "total_steps": total_steps,
                "seconds": seconds,
                "games": games,
                "final": final,
                "matches": matches,
            }
        )
        writer, _ = self._outputs[name]
        elo = self.fit()
        if elo is not None:
            writer.add_scalar("transfer/elo", elo.rating(point), total_steps)
            writer.add_scalar("transfer/elo_by_training_second", elo.rating(point), int(seconds))
        for m in matches:
            t = m["total"]
            games_played = t["wins"] + t["draws"] + t["losses"]
            writer.add_scalar(
                f"transfer/score_vs_{m['agent_b'].replace(':', '_')}",
                (t["wins"] + 0.5 * t["draws"]) / games_played,
                total_steps,
            )
        writer.flush()
        rec["next_eval"] = (math.floor((total_steps if s.step_mode else seconds) / self.every) + 1) * self.every
        self.save_record(name, rec)

    def fit(self) -> EloTable | None:
        """The pooled Elo of the games this process has seen (the references', the evaluations of
        the methods it ran or read), the anchor at 0; None before the first."""
        matches = list(self.ref_matches)
        for prog in self.progs.values():
            for ev in prog["evals"]:
                matches += ev["matches"]
        return pooled_elo(matches, anchor=self.anchor)

    def zero_shot(self, name: str = ZERO_SHOT_NAME) -> list[dict[str, Any]]:
        """The source net, untrained, against Random on the big board: played once (zero_shot.json,
        also zero_shot_result); returns its match."""
        path = os.path.join(self.folder, ZERO_SHOT)
        data = read_json(path, _json_schemas()[ZERO_SHOT])
        if data is None:
            s, zs = self.s, self.zero_shots[name]
            match = seeded_match(
                zs.make_agent,
                zs.references[0],
                seed_int(s.seed, 7),
                game=self.game,
                kwargs=self.big_kwargs,
                games=zs.games,
                names=(name, zs.references[0]),
                progress=self.progress,
            ).to_dict()
            t = match["total"]
            data = {
                "board_size": s.big_size,
                "games": zs.games,
                "simulations": s.simulations,
                "match": match,
                "score": (t["wins"] + 0.5 * t["draws"]) / zs.games,
            }
            write_json(path, data)
        self.zero_shot_result = data
        return [data["match"]]

    def play_references(self) -> dict[str, Any]:
        """Every pair of references plays reference_games games on the big board, once (references.json)."""
        path = os.path.join(self.folder, REFERENCES)
        data = read_json(path, _json_schemas()[REFERENCES])
        if data is None:
            s, refs, matches = self.s, self.s.references, []
            if s.reference_games:
                for i, a in enumerate(refs):
                    for j in range(i + 1, len(refs)):
                        matches.append(
                            seeded_match(
                                functools.partial(reference_agent, a, self.game, self.big_kwargs),
                                refs[j],
                                seed_int(s.seed, 11, i, j),
                                game=self.game,
                                kwargs=self.big_kwargs,
                                games=s.reference_games,
                                names=(a, refs[j]),
                                progress=self.progress,
                            ).to_dict()
                        )
            data = {"games": s.reference_games, "matches": matches}
            write_json(path, data)
        self.ref_matches = data["matches"]
        return data

    # -- the end of a method ----------------------------------------------------------------------
    def finish(self, name: str, run: TrainingRun, record: Record) -> None:
        from zerogym_agents.agents.saved import save_agent

        net, stages, last = run.net, record["stages"], record["evals"][-1]
        card = {
            "game": self.game,
            "kwargs": self.big_kwargs,
            "net": net.config.to_dict(),
            "parameters": net.num_parameters(),
            "training": {
                "method": name,
                "source": self.s.source,
                "source_board_size": self.small_size,
                "seconds": round(sum(p["seconds"] for p in stages), 1),
                "steps": sum(p["steps"] for p in stages),
                "self_play_games": sum(p["games"] for p in stages),
                "positions": sum(p["positions"] for p in stages),
                "train_steps": sum(p["train_steps"] for p in stages),
                "stages": [
                    {"board_size": p["board_size"], "steps": p["steps"], "seconds": round(p["seconds"], 1)}
                    for p in stages
                ],
                "config": self.config,
            },
            "results": {
                m["agent_b"]: {"first": m["a_first"], "second": m["b_first"], "total": m["total"]}
                for m in last["matches"]
            },
            "simulations_per_move": self.s.simulations,
            "opening_moves_sampled": self.s.opening_moves,
            "command": self.command,
        }
        save_agent(self.final_agent_path(name), net, {"simulations": self.s.simulations}, card)
        record["done"], record["net"] = True, net.describe()
        self.save_record(name, record)
        write_json(
            os.path.join(self.run_dir(name), DONE), {"method": name, "agent": FINAL_AGENT, "final": last["name"]}
        )
        self.log(f"[{self.label}/{name}] done: agent in {self.final_agent_path(name)}")

    # -- everything -------------------------------------------------------------------------------
    def results(self) -> dict[str, Any]:
        elo = self.elo()
        methods = {m: rec for m in self.s.methods if (rec := self.record(m)) is not None}
        return {
            "settings": self.s.to_dict(),
            "command": self.command,
            "game": self.game,
            "small_size": self.small_size,
            "big_kwargs": self.big_kwargs,
            "config": self.config,
            "source": {
                "path": self.source_path,
                "net": self.source_net.config.to_dict(),
                "describe": self.source_net.describe(),
                "card": self.source_card,
            },
            "budget": {
                "unit": self.budget.unit,
                "per_method": self.budget.total,
                "parallel": self.parallel,
                "torch_threads": _torch_threads(methods),
            },
            "curriculum": {"sizes": list(self.intermediate), "split": list(self.split)},
            "anchor": self.anchor,
            "zero_shot": self.zero_shot_result,
            "reference_matches": self.ref_matches,
            "methods": methods,
            "elo": elo.to_dict() if elo is not None else None,
        }

    def prepare(self) -> None:
        """Check the output folder, then play (once; saved) the zero-shot and reference matches."""
        self._check_folder()
        for name in self.zero_shots:
            self.zero_shot(name)
        self.play_references()

    def tasks(self) -> list[str]:
        """The methods' training: the zero-shot evaluation and the references are played by prepare(),
        in this process, first (so that every method's TensorBoard Elo has the references' games)."""
        return [f"train:{name}" for name in self.runs]

    def run(self, parallel: int = 1, final_games: int | None = None) -> EloTable | None:
        """Run (or resume) every method, `parallel` at a time, after prepare(); returns elo()."""
        check_parallel(parallel)
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot  # noqa: F401  (imported now, not inside the first method's timed training)

        self.parallel = parallel
        self.prepare()
        return super().run(parallel, final_games)

    def write_results(self) -> dict[str, Any]:
        """Write results.json, the report and its plot; returns the results dict, with "paths" (the
        report's and the plot's)."""
        from zerogym_agents.transfer.report import write_report

        data = self.results()
        write_json(os.path.join(self.folder, RESULTS), data)
        data["paths"] = write_report(data, self.report)
        return data


def final_elos(data: dict[str, Any]) -> dict[str, float]:
    """{method: pooled Elo of its final evaluation point} for the finished methods of a results dict."""
    agents = (data.get("elo") or {}).get("agents", {})
    return {
        m: agents[p["evals"][-1]["name"]]["elo"]
        for m, p in data["methods"].items()
        if p.get("done") and p["evals"] and p["evals"][-1]["name"] in agents
    }


def best_method(data: dict[str, Any]) -> tuple[str, float]:
    """(method, Elo) of the finished method whose final evaluation point has the highest pooled Elo."""
    finals = final_elos(data)
    if not finals:
        raise ValueError("no method of this transfer experiment has finished: there is no best agent yet")
    method = max(finals, key=lambda m: finals[m])
    return method, finals[method]


def save_best_agent(
    data: dict[str, Any], out_dir: str | os.PathLike[str], path: str | os.PathLike[str], command: str | None = None
) -> str:
    """Save the final agent of best_method(data) (from `out_dir`, the experiment's folder) to `path`,
    its model card extended with how it was chosen: the method, its Elo and every method's final Elo
    (Random = 0), and `command` when given. Returns the method."""
    from zerogym_agents.agents.saved import copy_agent

    method, elo = best_method(data)
    selection = {
        "rule": "the transfer experiment's method with the highest final Elo",
        "method": method,
        "elo": round(elo, 1),
        "anchor": data.get("anchor"),
        "final_elo": {m: round(e, 1) for m, e in final_elos(data).items()},
    }
    copy_agent(
        os.path.join(os.fspath(out_dir), method, FINAL_AGENT),
        path,
        lambda card: {**card, "selection": selection, **({"command": command} if command else {})},
    )
    return method


def run_transfer(
    settings: TransferSettings | dict[str, Any],
    out_dir: str | os.PathLike[str],
    report: str | None = None,
    progress: bool = True,
    command: str | None = None,
    parallel: int = 1,
) -> dict[str, Any]:
    """Run the transfer experiment `settings` (a TransferSettings or its dict) in `out_dir`,
    resuming what a previous run there left, `parallel` methods at a time; write the markdown report
    to `report` (default OUT/report.md) and its plot beside it (.png). Returns the results dict
    (also results.json)."""
    experiment = TransferExperiment(settings, out_dir, report=report, progress=progress, command=command)
    experiment.run(parallel=parallel)
    return experiment.write_results()
