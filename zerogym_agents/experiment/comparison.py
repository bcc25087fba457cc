"""Comparison: training runs of several algorithms on one game under one budget, each evaluated
against the same fixed references at the budget's evaluation points, with a pooled Elo over every
game played. Resumable: kill it and run it again with the same settings, and finished runs are
skipped while unfinished ones resume from their last checkpoint.

A run may start from a given net (add(net=...)) and may have stages (add(stages=[Stage(...)])):
parts of its budget trained one after the other, each with its own config fields (another board
size, say) and each from the net the one before it ended with; it is evaluated on the comparison's
game throughout. An agent that is evaluated once as it is, before any training, is a zero-shot
evaluation (add_zero_shot).

Folder layout (`folder`):

    <name>/state.json     a run's record: the settings it started with (a restart with others is
                          refused), the budget used, every evaluation point with its matches, done
    <name>/...            the trainer's own files: checkpoint.pt, config.json, agent.pt, tb/ (a run
                          with stages: <name>/<stage>/ each, TensorBoard logs in <name>/tb/<stage>/)
    <name>/final_agent.pt the final agent (+ .json model card), saved when the run is done
    references.json       the references against each other (anchors their ratings)
    zero_shot.json        the zero-shot evaluations
    round_robin.json      the final agents and the references, every pair (round_robin())
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from zerogym_agents.core.constants import CHECKPOINT
from zerogym_agents.experiment.algorithms import algorithm
from zerogym_agents.experiment.budget import NO_STEP_CAP, Budget, BudgetLoop, ResumeError
from zerogym_agents.experiment.evaluation import evaluate, play_references, pooled_elo, reference_agent, total, wdl
from zerogym_agents.experiment.processes import check_parallel
from zerogym_agents.experiment.records import LOCK, check_same_settings, folder_lock, read_json, write_json

if TYPE_CHECKING:
    from zerogym_agents.agents.base import Agent
    from zerogym_agents.arena.elo import EloTable
    from zerogym_agents.experiment.protocol import TrainingRun

STATE, REFERENCES, ZERO_SHOT, ROUND_ROBIN = "state.json", "references.json", "zero_shot.json", "round_robin.json"
FINAL_AGENT = "final_agent.pt"
Record = dict[str, Any]


@dataclass(frozen=True)
class Stage:
    """One stage of a run: `share` of the run's budget (relative to the other stages' shares: 1 and
    1 halve it), trained in the folder NAME/<name> with `config` over the run's config fields (such
    as another board size in game_kwargs). A stage after the first starts from the checkpoint the
    stage before it ended with (its config's init_from)."""

    name: str
    share: float = 1.0
    config: dict[str, Any] = field(default_factory=dict)


@dataclass
class RunSpec:
    """One run of a comparison: its algorithm, every field of its config, and the options its agent
    plays with when evaluated (over the trainer's agent_options()); its stages (None: one, the
    whole budget in the run's folder) and `net`, a function that makes the net it starts from
    (None: the one its config gives)."""

    algorithm: str
    config: dict[str, Any]
    play: dict[str, Any]
    stages: list[Stage] | None = None
    net: Callable[[], Any] | None = None


@dataclass
class ZeroShot:
    """An agent evaluated once as it is (add_zero_shot): make_agent(), or make_agent(seed) when
    `seeded`, against `references`, `games` games each; `rated`: whether its games join elo()."""

    make_agent: Callable[..., Agent]
    references: list[str]
    games: int
    rated: bool = True
    seeded: bool = False


class Comparison:
    """Runs on `game` (with `game_kwargs`) under `budget` (a Budget), each evaluated at every
    evaluation point against every reference (arena specs), eval_games games each, colours
    alternated, every pair of games from the same random opening of `opening_moves` moves.
    add() the runs, then run(); elo() rates everything played so far, with `anchor` at 0 when it
    played. end: how a run's budget ends in minutes mode (BudgetLoop: "nearest", or "reach" for at
    least the budget, so that a run's last point falls at its end).

    label names the comparison in log lines (default: the game); command is recorded with the runs
    and the final agents' cards; log prints progress. Subclasses adapt the records and files through
    the methods below (budget_settings, evaluation_settings, fingerprint, new_record, record,
    save_record, resume_record, finished, open_record, note_progress, chunk, evaluated_to,
    evaluation_point, after_training, finish, card, final_agent_path, run_matches, tasks).
    """

    def __init__(
        self,
        folder: str | os.PathLike[str],
        game: str,
        budget: Budget,
        references: Sequence[str] = ("random",),
        game_kwargs: dict[str, Any] | None = None,
        eval_games: int = 20,
        seed: int = 0,
        opening_moves: int = 0,
        label: str | None = None,
        command: str | None = None,
        log: Callable[[str], Any] = print,
        anchor: str = "random",
        end: str = "nearest",
    ) -> None:
        if not isinstance(budget, Budget):
            raise TypeError(f"budget must be a Budget, got {budget!r}")
        if len(set(references)) != len(references) or not references:
            raise ValueError(f"references must be distinct arena specs, at least one, got {list(references)}")
        if end not in ("nearest", "reach"):
            raise ValueError(f"end must be 'nearest' or 'reach', got {end!r}")
        self.folder, self.game, self.budget = os.fspath(folder), game, budget
        self.game_kwargs = dict(game_kwargs or {})
        self.references, self.eval_games, self.seed = list(references), eval_games, seed
        self.opening_moves, self.command, self.log = opening_moves, command, log
        self.label = label or game
        self.anchor, self.end = anchor, end
        self.runs: dict[str, RunSpec] = {}
        self.zero_shots: dict[str, ZeroShot] = {}
        self.slot = 0  # this process's line among parallel children (for progress bars)
        self.resume_hint = "running it again resumes it"

    # ---- the runs ---------------------------------------------------------------------------------
    def _check_name(self, name: str) -> None:
        if name in self.runs or name in self.zero_shots or name in self.references or "@" in name or os.sep in name:
            raise ValueError(f"run name {name!r}: taken, a reference's, or with '@' or '{os.sep}' in it")

    def add(
        self,
        name: str,
        algorithm_name: str,
        config: dict[str, Any] | None = None,
        stages: Sequence[Stage] | None = None,
        net: Callable[[], Any] | None = None,
        **play: Any,
    ) -> Comparison:
        """Add the run `name` of a registered algorithm ("alphazero", "reinforce", "reinforce-baseline",
        "ppo", ...). config: its config fields; the game, its kwargs, the seed, max_steps (from the
        budget) and the algorithm's defaults are set unless config sets them. stages: Stage()s that
        split the budget (each stage's config over the run's; the last one must train the
        comparison's game, which every stage is evaluated on). net: a function that makes the net
        the run starts from (an algorithm whose build takes one: alphazero); it must pickle for
        run(parallel=N) (a module-level function or a functools.partial of one). play: options of
        the evaluated agent over the trainer's (e.g. simulations=50). Returns self."""
        self._check_name(name)
        algo = algorithm(algorithm_name)
        fields = {
            **algo.defaults,
            "game": self.game,
            "game_kwargs": dict(self.game_kwargs),
            "seed": self.seed,
            "max_steps": self.budget.max_steps(),
            **(config or {}),
        }
        last = {**fields, **(stages[-1].config if stages else {})}
        if (last["game"], last["game_kwargs"]) != (self.game, self.game_kwargs):
            raise ValueError(
                f"run {name!r}: its config trains {last['game']} {last['game_kwargs']}, but the "
                f"comparison plays {self.game} {self.game_kwargs}"
            )
        if net is not None and not algo.takes_net:
            raise ValueError(
                f"run {name!r}: {algorithm_name} cannot start from a given net (set init_from in its config)"
            )
        if stages is not None:
            well_formed = bool(stages) and all(
                isinstance(st, Stage) and st.share > 0 and st.name not in ("", "tb") and os.sep not in st.name
                for st in stages
            )
            if not well_formed or len({st.name for st in stages}) != len(stages):
                raise ValueError(
                    f"run {name!r}: stages must be Stage()s with distinct names (not 'tb', without "
                    f"'{os.sep}') and shares > 0, got {list(stages)}"
                )
            if any({**fields, **st.config}["game"] != self.game for st in stages):
                raise ValueError(f"run {name!r}: every stage must train {self.game}")
        self.runs[name] = RunSpec(algorithm_name, fields, dict(play), list(stages) if stages is not None else None, net)
        try:
            self.stage_budgets(name)
        except ValueError:
            del self.runs[name]
            raise
        return self

    def add_zero_shot(
        self,
        name: str,
        make_agent: Callable[..., Agent],
        references: Sequence[str] | None = None,
        games: int | None = None,
        rated: bool = True,
        seeded: bool = False,
    ) -> Comparison:
        """Evaluate make_agent() once as it is, before any training (a net trained on another board
        size, say): against `references` (default: the comparison's), `games` games each (default
        eval_games), in the task "zero-shot:NAME" of run() (zero_shot()). seeded: make_agent(seed)
        and the references are seeded too (evaluation.seeded_match). rated: its games join elo(),
        the agent rated as `name`. make_agent must pickle for run(parallel=N). Returns self."""
        self._check_name(name)
        self.zero_shots[name] = ZeroShot(
            make_agent, list(references or self.references), games or self.eval_games, rated, seeded
        )
        return self

    def run_dir(self, name: str) -> str:
        return os.path.join(self.folder, name)

    def stage_dir(self, name: str, k: int) -> str:
        """The trainer's folder of stage k of run `name` (a run without stages: the run's folder)."""
        stages = self.runs[name].stages
        return os.path.join(self.run_dir(name), stages[k].name) if stages else self.run_dir(name)

    def log_dir(self, name: str, k: int) -> str:
        """The TensorBoard folder of stage k's trainer."""
        stages = self.runs[name].stages
        return os.path.join(self.run_dir(name), "tb", *([stages[k].name] if stages else []))

    def stage_budgets(self, name: str) -> list[float]:
        """The budget of each stage of run `name`, in the budget's unit: its share of the whole (in
        steps, whole steps: the last stage gets what the others leave; ValueError when a stage would
        get none)."""
        stages, whole = self.runs[name].stages, self.budget.total
        if not stages:
            return [whole]
        shares = [st.share for st in stages]
        shares = [x / sum(shares) for x in shares]
        if self.budget.unit == "seconds":
            return [whole * x for x in shares]
        budgets: list[float] = [int(whole * x) for x in shares[:-1]]
        budgets.append(whole - sum(budgets))
        if min(budgets) < 1:
            raise ValueError(f"{whole} steps cannot be split over {len(stages)} stages {shares}")
        return budgets

    def stage_config(self, name: str, k: int) -> dict[str, Any]:
        """The config fields of stage k of run `name`: the run's, the stage's over them, max_steps
        (the stage's budget in steps) and init_from (the stage before it's checkpoint)."""
        spec = self.runs[name]
        if not spec.stages:
            return spec.config
        budget = self.stage_budgets(name)[k]
        fields = {
            **spec.config,
            **spec.stages[k].config,
            "max_steps": int(budget) if self.budget.unit == "steps" else NO_STEP_CAP,
        }
        if k > 0:
            fields["init_from"] = os.path.abspath(os.path.join(self.stage_dir(name, k - 1), CHECKPOINT))
        return fields

    def final_agent_path(self, name: str) -> str:
        return os.path.join(self.run_dir(name), FINAL_AGENT)

    def record(self, name: str) -> Record | None:
        """The saved record (state.json) of run `name`, None before it started."""
        return read_json(os.path.join(self.run_dir(name), STATE))

    def save_record(self, name: str, record: Record) -> None:
        write_json(os.path.join(self.run_dir(name), STATE), record)

    def records(self) -> dict[str, Record]:
        """{name: record} of the runs with at least one evaluation point, in the order added."""
        out = {}
        for name in self.runs:
            rec = self.record(name)
            if rec is not None and rec["evals"]:
                out[name] = rec
        return out

    def make_run(self, name: str, resume: bool, stage: int = 0) -> TrainingRun:
        """The trainer of run `name` (of its stage `stage`) in its folder, a TrainingRun; in minutes
        mode its learning rate follows the cosine schedule over the share of its time budget used."""
        spec = self.runs[name]
        net = spec.net() if spec.net is not None and stage == 0 and not resume else None
        run = algorithm(spec.algorithm).build(
            self.stage_config(name, stage),
            self.stage_dir(name, stage),
            resume=resume,
            log_dir=self.log_dir(name, stage),
            **({"net": net} if net is not None else {}),
        )
        if self.budget.unit == "seconds":
            run.time_budget = self.stage_budgets(name)[stage]
        return run

    def budget_settings(self) -> dict[str, Any]:
        return {**self.budget.to_dict(), **({"end": self.end} if self.end != "nearest" else {})}

    def evaluation_settings(self) -> dict[str, Any]:
        """How the runs are evaluated: the constructor's evaluation arguments and the budget's eval_at_start."""
        arguments = {k: getattr(self, k) for k in ("references", "eval_games", "seed", "opening_moves")}
        return {**arguments, "eval_at_start": self.budget.eval_at_start}

    def fingerprint(self, name: str) -> dict[str, Any]:
        """What a run's folder must have been started with to be resumed."""
        spec = self.runs[name]
        fp: dict[str, Any] = {
            "algorithm": spec.algorithm,
            "config": spec.config,
            "play": spec.play,
            "budget": self.budget_settings(),
            "evaluation": self.evaluation_settings(),
        }
        if spec.stages:
            fp["stages"] = [{"name": st.name, "share": st.share, "config": st.config} for st in spec.stages]
        if spec.net is not None:
            fp["net"] = _callable_name(spec.net)
        return fp

    def new_record(self, name: str, fingerprint: Any) -> Record:
        rec = {
            "fingerprint": fingerprint,
            "steps": 0,
            "seconds": 0.0,
            "cpu_seconds": 0.0,
            "checkpoint_seconds": 0.0,
            "estimated_seconds": 0.0,
            "evals": [],
            "done": False,
            "commands": [],
            "counters": {},
            "history": [],
        }
        stages = self.runs[name].stages
        if stages:
            rec["stages"] = [
                {
                    "name": st.name,
                    "budget": b,
                    "steps": 0,
                    "seconds": 0.0,
                    "cpu_seconds": 0.0,
                    "estimated_seconds": 0.0,
                    "counters": {},
                    "done": False,
                }
                for st, b in zip(stages, self.stage_budgets(name))
            ]
        return rec

    def stage_record(self, name: str, record: Record, k: int) -> Record:
        """The part of a run's record that counts stage k's budget (BudgetLoop's record): the
        record itself for a run without stages, else `record["stages"][k]`."""
        return record["stages"][k] if self.runs[name].stages else record

    def used(self, counts: Record) -> float:
        """The budget used in a (stage's) record, in the budget's unit."""
        return counts["steps"] if self.budget.unit == "steps" else counts["seconds"]

    def current_stage(self, name: str, record: Record) -> int:
        """The stage run `name` is at: the first one not done (0 for a run without stages)."""
        stages = record.get("stages") if self.runs[name].stages else None
        if not stages:
            return 0
        return next((k for k, st in enumerate(stages) if not st["done"]), len(stages) - 1)

    def stage_targets(self, name: str, record: Record, k: int) -> list[float]:
        """The evaluation points of stage k, as the stage's budget used: the budget's targets that
        fall in it (counted from the budget the stages before it used) and its end. A run without
        stages: budget.targets()."""
        if not self.runs[name].stages:
            return self.budget.targets()
        end = self.stage_budgets(name)[k]
        base = sum(self.used(self.stage_record(name, record, i)) for i in range(k))
        return [t - base for t in self.budget.targets() if (t > base or (k == 0 and t == base)) and t - base < end] + [
            end
        ]

    def resume_record(self, name: str, record: Record) -> Record | None:
        """The saved record of run `name` to go on with: SettingsChanged unless it was started with
        the same settings (its fingerprint). A subclass may return None to start the run afresh."""
        check_same_settings(record["fingerprint"], self.fingerprint(name), self.run_dir(name))
        return record

    def finished(self, name: str, record: Record) -> bool:
        """Whether the run of this record is finished (its final agent saved)."""
        return bool(record.get("done"))

    def open_record(self, name: str, record: Record) -> None:
        """Called as a sitting takes the run up (locked), before training: notes the command."""
        if self.command and self.command not in record["commands"]:
            record["commands"].append(self.command)

    def note_progress(
        self, name: str, record: Record, k: int, run: TrainingRun, checkpoint_seconds: float = 0.0
    ) -> None:
        """Note in the record how far stage k's run is (at its checkpoints and before each evaluation
        point); checkpoint_seconds: the time a checkpoint written by the harness took."""
        counts = self.stage_record(name, record, k)
        counts["steps"], counts["counters"] = run.step, run.counters()
        record["checkpoint_seconds"] += checkpoint_seconds
        if counts is not record:  # a run with stages: the totals over them
            for key in ("steps", "seconds", "cpu_seconds", "estimated_seconds"):
                record[key] = sum(st.get(key, 0) for st in record["stages"])
            sums: dict[str, Any] = {}
            for st in record["stages"]:
                for c, v in st["counters"].items():
                    sums[c] = sums.get(c, 0) + v if isinstance(v, (int, float)) else v
            record["counters"] = sums

    def chunk(self, name: str, record: Record, k: int, run: TrainingRun, seconds: float) -> None:
        """Called after every chunk of training of stage k (`seconds` long)."""

    def evaluated_to(self, name: str, record: Record, k: int) -> float | None:
        """How far stage k's evaluation points are done, as the stage's budget used: a point at or
        below it is not evaluated again (None: none yet). Here: the last point's target."""
        evs = [ev for ev in record["evals"] if ev.get("stage", 0) == k]
        return evs[-1]["target"] if evs else None

    def point_name(self, name: str, used: float) -> str:
        """The player name of run `name` at the evaluation point where it had used `used` of its
        budget: name@LABEL."""
        return f"{name}@{self.budget.label(used)}"

    def evaluate(self, make_agent: Callable[[], Agent], name: str, words: Sequence[int]) -> list[dict[str, Any]]:
        """make_agent() against every reference; the matches (no records), seeded from (seed, *words)."""
        return evaluate(
            make_agent,
            name,
            self.references,
            self.game,
            self.game_kwargs,
            self.eval_games,
            (self.seed, *words),
            opening_moves=self.opening_moves,
        )

    def resumable(self, name: str) -> Record | None:
        """The record run `name` goes on with (resume_record of the saved one), None to start it."""
        rec = self.record(name)
        return self.resume_record(name, rec) if rec is not None else None

    def train(self, name: str) -> Record:
        """Train and evaluate run `name` (stage by stage) through the budget, resuming or skipping it
        as its folder says; returns its record. SettingsChanged when the folder was started with
        other settings, ResumeError when a checkpoint does not fit the record, FolderInUse when
        another process is at it."""
        rec = self.resumable(name)
        if rec is not None and self.finished(name, rec):
            self.log(f"[{self.label}/{name}] finished earlier: skipped")
            return rec
        stages = self.runs[name].stages
        with folder_lock(self.run_dir(name)):
            rec = rec if rec is not None else self.new_record(name, self.fingerprint(name))
            self.open_record(name, rec)
            run = None
            for k in range(len(stages or [None])):
                if stages and self.stage_record(name, rec, k)["done"]:
                    continue
                run = self.train_stage(name, rec, k)
            if run is None:  # every stage was done: the final agent is what is left
                run = self.make_run(name, resume=True, stage=len(stages or [None]) - 1)
            self.after_training(name, run, rec)
            self.finish(name, run, rec)
            return rec

    def train_stage(self, name: str, rec: Record, k: int) -> TrainingRun:
        """Train stage k of run `name` through its budget, evaluating it at its points (locked by
        train()); returns its run, its TensorBoard writer closed."""
        folder = self.stage_dir(name, k)
        counts = self.stage_record(name, rec, k)
        resume = os.path.isfile(os.path.join(folder, CHECKPOINT))
        if counts["steps"] > 0 and not resume:
            raise ResumeError(
                f"{folder}: {STATE} records {counts['steps']} steps but there is no checkpoint; "
                f"remove the folder to start this run again"
            )
        run = self.make_run(name, resume=resume, stage=k)

        def checkpointed() -> None:
            self.note_progress(name, rec, k, run)
            self.save_record(name, rec)

        loop = BudgetLoop(
            run,
            counts,
            self.budget.unit,
            end=self.end,
            on_checkpoint=checkpointed,
            on_chunk=lambda seconds: self.chunk(name, rec, k, run, seconds),
        )
        loop.reconcile(folder)
        checkpointed()
        for i, target in enumerate(self.stage_targets(name, rec, k)):
            done = self.evaluated_to(name, rec, k)
            if done is not None and target <= done:
                continue
            loop.train_to(target)
            self.note_progress(name, rec, k, run, loop.save())
            self.save_record(name, rec)
            self.evaluation_point(name, run, rec, i, target)
        if self.runs[name].stages:
            counts["done"] = True
            checkpointed()
        writer = getattr(run, "writer", None)
        if writer is not None:
            writer.close()
        return run

    def evaluation_point(self, name: str, run: TrainingRun, rec: Record, k: int, target: float) -> None:
        """Evaluate the run's current agent at point k of its (current stage's) targets, where it has
        used `target` of the (stage's) budget; keep the matches in its record and save it."""
        staged = bool(self.runs[name].stages)
        stage = self.current_stage(name, rec)
        base = sum(self.used(self.stage_record(name, rec, i)) for i in range(stage)) if staged else 0
        point, index = self.point_name(name, base + target), len(rec["evals"])
        t0 = time.perf_counter()
        matches = self.evaluate(lambda: run.agent(**self.runs[name].play), point, (7, index))
        ev = {
            "index": index,
            "name": point,
            "target": target,
            "step": run.step,
            "seconds": rec["seconds"],
            "eval_seconds": time.perf_counter() - t0,
            "counters": rec["counters"],
            "matches": matches,
            **({"stage": stage} if staged else {}),
        }
        rec["evals"].append(ev)
        self.save_record(name, rec)
        self.log(
            f"[{self.label}/{name}] {point}: {rec['seconds'] / 60:.1f} min of training, step {run.step}; "
            + ", ".join(f"{m['agent_b']} {wdl(total(m))}" for m in matches)
            + f" (evaluation {ev['eval_seconds']:.0f} s)"
        )

    def after_training(self, name: str, run: TrainingRun, record: Record) -> None:
        """Called once the budget is spent, before the final agent is saved (extra measurements)."""

    def finish(self, name: str, run: TrainingRun, record: Record) -> None:
        """Save the final agent and mark the run done (its record keeps the trainer's history: the
        last stage's, for a run with stages)."""
        record["history"] = [
            {f: v for f, v in h.items() if v is None or isinstance(v, (int, float))} for h in run.history
        ]
        self.save_final_agent(name, run, record)
        record["done"] = True
        self.save_record(name, record)
        self.log(f"[{self.label}/{name}] done: agent in {self.final_agent_path(name)}")

    def final_results(self, record: Record) -> dict[str, Any]:
        """The card's results: the last evaluation point's matches, by reference and first mover."""
        return {"final_evaluation": by_reference(record["evals"][-1]["matches"])} if record["evals"] else {}

    def card(self, name: str, run: TrainingRun, record: Record) -> dict[str, Any]:
        """The final agent's model card."""
        return {
            "game": self.game,
            "kwargs": self.game_kwargs,
            "net": run.net.config.to_dict(),
            "parameters": run.net.num_parameters(),
            "algorithm": name,
            "budget": {
                **self.budget_settings(),
                "training_seconds": round(record["seconds"], 1),
                "training_cpu_seconds": round(record.get("cpu_seconds", 0.0), 1),
                "checkpoint_seconds": round(record["checkpoint_seconds"], 1),
                "evaluation_seconds": round(sum(e["eval_seconds"] for e in record["evals"]), 1),
                **record["counters"],
            },
            "training_config": run.cfg.to_dict(),
            "evaluation": self.evaluation_settings(),
            "results": self.final_results(record),
            "command": record["commands"][-1] if record["commands"] else self.command,
        }

    def save_final_agent(self, name: str, run: TrainingRun, record: Record) -> None:
        from zerogym_agents.agents.saved import save_agent

        os.makedirs(os.path.dirname(os.path.abspath(self.final_agent_path(name))), exist_ok=True)
        save_agent(
            self.final_agent_path(name),
            run.net,
            {**run.agent_options(), **self.runs[name].play},
            self.card(name, run, record),
            kind=run.agent_kind,
        )

    # ---- zero-shot evaluations, the references; the round robin ------------------------------------
    def zero_shot(self, name: str) -> list[dict[str, Any]]:
        """The zero-shot evaluation `name` against its references: played once and saved
        (zero_shot.json), again when its settings change; returns its matches (no records)."""
        zs, path = self.zero_shots[name], os.path.join(self.folder, ZERO_SHOT)
        fp = {
            "references": zs.references,
            "games": zs.games,
            "seed": self.seed,
            "opening_moves": self.opening_moves,
            "seeded": zs.seeded,
        }
        data = read_json(path) or {}
        if name in data and data[name]["fingerprint"] == fp:
            return data[name]["matches"]
        with folder_lock(self.folder, LOCK + "-zero-shot"):
            t0 = time.perf_counter()
            matches = evaluate(
                zs.make_agent,
                name,
                zs.references,
                self.game,
                self.game_kwargs,
                zs.games,
                (self.seed, 5, list(self.zero_shots).index(name)),
                opening_moves=self.opening_moves,
                seeded=zs.seeded,
            )
            data = read_json(path) or {}
            data[name] = {"fingerprint": fp, "matches": matches, "seconds": time.perf_counter() - t0}
            write_json(path, data)
        self.log(f"[{self.label}/{name}] zero-shot: " + ", ".join(f"{m['agent_b']} {wdl(total(m))}" for m in matches))
        return matches

    def play_references(self) -> dict[str, Any]:
        """Every pair of references plays eval_games games, once (saved; played again when the
        references change)."""
        path = os.path.join(self.folder, REFERENCES)
        fp = {
            "references": self.references,
            "games": self.eval_games,
            "seed": self.seed,
            "opening_moves": self.opening_moves,
        }
        data = read_json(path)
        if data is not None and data["fingerprint"] != fp:
            data = None
        data = data or {"fingerprint": fp, "matches": []}
        if len(data["matches"]) >= len(self.references) * (len(self.references) - 1) // 2:
            return data

        def saved(matches: list[dict[str, Any]]) -> None:
            data["matches"] = matches
            write_json(path, data)
            m = matches[-1]
            self.log(f"[{self.label}/references] {m['agent_a']} vs {m['agent_b']}: {wdl(total(m))}")

        with folder_lock(self.folder, LOCK + "-references"):
            play_references(
                self.references,
                self.game,
                self.game_kwargs,
                self.eval_games,
                self.seed,
                self.opening_moves,
                done=data["matches"],
                on_match=saved,
            )
        return data

    def round_robin(self, games_per_pair: int, required: Sequence[str] | None = None) -> dict[str, Any] | None:
        """The final agents of every finished run and the references, every pair games_per_pair
        games (arena.round_robin); played once the runs in `required` (default: all) are finished,
        and again when the set of finished runs grows. Each final agent's card gets its results.
        Returns the saved dict (None before it was played)."""
        from zerogym_agents.arena.match import round_robin
        from zerogym_agents.agents.saved import copy_agent, load_agent

        records = {n: self.record(n) for n in self.runs}
        done = [n for n, r in records.items() if r is not None and self.finished(n, r)]
        path = os.path.join(self.folder, ROUND_ROBIN)
        if not done or any(n not in done for n in (self.runs if required is None else required)):
            return read_json(path)
        names = done + self.references
        fp = {
            "names": names,
            "games_per_pair": games_per_pair,
            "seed": self.seed,
            "opening_moves": self.opening_moves,
            "runs": {n: [rec["steps"], round(rec["seconds"], 3)] for n in done if (rec := records[n]) is not None},
        }
        old = read_json(path)
        if old is not None and old["fingerprint"] == fp:
            return old
        with folder_lock(self.folder, LOCK + "-round-robin"):
            agents: dict[str, Agent] = {n: load_agent(self.final_agent_path(n)) for n in done}
            agents.update({r: reference_agent(r, self.game, self.game_kwargs) for r in self.references})
            t0 = time.perf_counter()
            self.log(f"[{self.label}/round robin] {len(names)} agents, {games_per_pair} games per pair ...")
            result = round_robin(
                {n: agents[n] for n in names},
                self.game,
                self.game_kwargs,
                games_per_pair=games_per_pair,
                seed=self.seed,
                progress=False,
                opening_moves=self.opening_moves,
            )
            data = {
                "fingerprint": fp,
                "seconds": time.perf_counter() - t0,
                "result": result.to_dict(),
                "command": self.command,
            }
            for n in done:  # the round robin's results go into each final agent's card
                rr = {
                    (m.agent_b if m.agent_a == n else m.agent_a): (
                        {"agent_first": vars(m.a_first), "agent_second": vars(m.b_first)}
                        if m.agent_a == n
                        else {"agent_first": vars(m.b_first.flipped()), "agent_second": vars(m.a_first.flipped())}
                    )
                    for m in result.matches
                    if n in (m.agent_a, m.agent_b)
                }
                p = self.final_agent_path(n)
                copy_agent(
                    p, p, lambda card, rr=rr: {**card, "results": {**card.get("results", {}), "final_round_robin": rr}}
                )
            for agent in agents.values():
                close = getattr(agent, "close", None)
                if close is not None:
                    close()
            write_json(path, data)
            self.log(f"[{self.label}/round robin] done in {data['seconds']:.0f} s")
        return data

    # ---- ratings ------------------------------------------------------------------------------------
    def run_matches(self, record: Record) -> list[dict[str, Any]]:
        """The matches of a run's record that join the pooled Elo: its evaluation points'."""
        return [m for ev in record["evals"] for m in ev["matches"]]

    def saved(self) -> dict[str, Any]:
        """Everything on disk: {"runs": records(), "references": ..., "zero_shot": ..., "round_robin":
        ...} (None where not played)."""
        return {
            "runs": self.records(),
            "references": read_json(os.path.join(self.folder, REFERENCES)),
            "zero_shot": read_json(os.path.join(self.folder, ZERO_SHOT)),
            "round_robin": read_json(os.path.join(self.folder, ROUND_ROBIN)),
        }

    def elo(self, saved: dict[str, Any] | None = None) -> EloTable | None:
        """The pooled Elo (fit_elo; the anchor = 0 when it is a player, else the mean) over every
        game saved: the references among themselves, every evaluation point (each its own player,
        NAME@LABEL), the rated zero-shot evaluations, the round robin (the final agents under their
        run names). None before any game."""
        saved = saved or self.saved()
        matches = list((saved["references"] or {}).get("matches", []))
        for rec in saved["runs"].values():
            matches += self.run_matches(rec)
        for name, zs in self.zero_shots.items():
            if zs.rated:
                matches += ((saved.get("zero_shot") or {}).get(name) or {}).get("matches", [])
        if saved["round_robin"]:
            matches += saved["round_robin"]["result"]["matches"]
        return pooled_elo(matches, anchor=self.anchor)

    # ---- everything ---------------------------------------------------------------------------------
    def tasks(self) -> list[str]:
        """The tasks of run(), in order: "zero-shot:NAME" for each zero-shot evaluation, "train:NAME"
        for each run, "references"."""
        return [f"zero-shot:{n}" for n in self.zero_shots] + [f"train:{n}" for n in self.runs] + ["references"]

    def do_task(self, task: str) -> Any:
        """One task of run(): "train:NAME", "zero-shot:NAME" or "references"."""
        kind, _, name = task.partition(":")
        if kind == "train" and name in self.runs:
            return self.train(name)
        if kind == "zero-shot" and name in self.zero_shots:
            return self.zero_shot(name)
        if task == "references":
            return self.play_references()
        raise ValueError(f"unknown task {task!r}")

    def run(self, parallel: int = 1, final_games: int | None = None) -> EloTable | None:
        """Do every task (parallel > 1: that many at a time, each in a child process on one torch
        thread, the runs finished earlier skipped here; the comparison is pickled for them, so its
        log must pickle: print does, a lambda does not), then with final_games the round robin of
        the final agents. Returns elo()."""
        from zerogym_agents.experiment.processes import run_children, start_function

        check_parallel(parallel)
        tasks = self.tasks()
        if parallel == 1:
            for task in tasks:
                self.do_task(task)
        else:
            todo = []
            for task in tasks:
                if self._finished_earlier(task):
                    self.do_task(task)  # only its log line
                else:
                    todo.append(task)
            failed = run_children(
                todo, lambda task, slot: start_function(_child_task, self, task, slot, name=task), parallel
            )
            if failed:
                raise RuntimeError(
                    f"{self.label}: "
                    + ", ".join(
                        f"training failed for {t.partition(':')[2]} (exit {c})"
                        if t.startswith("train:")
                        else f"{t} failed (exit {c})"
                        for t, c in failed
                    )
                    + f"; its error is printed above, and {self.resume_hint}"
                )
        if final_games:
            self.round_robin(final_games)
        return self.elo()

    def _finished_earlier(self, task: str) -> bool:
        """Whether `task` trains a run that its record says is finished (a record that cannot be read,
        or that was started with other settings, is left to the task itself to report)."""
        kind, _, name = task.partition(":")
        if kind != "train" or name not in self.runs:
            return False
        try:
            rec = self.resumable(name)
        except (ValueError, OSError):  # CheckpointError and SettingsChanged are ValueErrors
            return False
        return rec is not None and self.finished(name, rec)


def by_reference(matches: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """{reference: {"agent_first": W-D-L, "agent_second": W-D-L}} of matches against references."""
    return {m["agent_b"]: {"agent_first": m["a_first"], "agent_second": m["b_first"]} for m in matches}


def _callable_name(f: Callable[..., Any]) -> str:
    """A function's module-qualified name (a functools.partial: its function's)."""
    f = getattr(f, "func", f)
    return f"{getattr(f, '__module__', '')}.{getattr(f, '__qualname__', type(f).__name__)}"


def _child_task(comparison: Comparison, task: str, slot: int = 0) -> None:
    """A child process of Comparison.run(parallel=N): one task on one torch thread."""
    import torch

    torch.set_num_threads(1)
    comparison.slot = slot
    comparison.do_task(task)
