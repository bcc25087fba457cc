"""Comparison: training runs of several algorithms on one game under one budget, each evaluated
against the same fixed references at the budget's evaluation points, with a pooled Elo over every
game played. Resumable: kill it and run it again with the same settings, and finished runs are
skipped while unfinished ones resume from their last checkpoint.

Folder layout (`folder`):

    <name>/state.json     a run's record: the settings it started with (a restart with others is
                          refused), the budget used, every evaluation point with its matches, done
    <name>/...            the trainer's own files: checkpoint.pt, config.json, agent.pt, tb/
    <name>/final_agent.pt the final agent (+ .json model card), saved when the run is done
    references.json       the references against each other (anchors their ratings)
    round_robin.json      the final agents and the references, every pair (round_robin())
"""
import os
import time
from dataclasses import dataclass

from zerogym_agents.experiment.algorithms import algorithm
from zerogym_agents.experiment.budget import Budget, BudgetLoop, ResumeError
from zerogym_agents.experiment.evaluation import evaluate, play_references, pooled_elo, reference_agent, total, wdl
from zerogym_agents.core.constants import CHECKPOINT
from zerogym_agents.experiment.records import LOCK, check_same_settings, folder_lock, read_json, write_json

STATE, REFERENCES, ROUND_ROBIN, FINAL_AGENT = "state.json", "references.json", "round_robin.json", "final_agent.pt"


@dataclass
class RunSpec:
    """One run of a comparison: its algorithm, every field of its config, and the options its agent
    plays with when evaluated (over the trainer's agent_options())."""
    algorithm: str
    config: dict
    play: dict


class Comparison:
    """Runs on `game` (with `game_kwargs`) under `budget` (a Budget), each evaluated at every
    evaluation point against every reference (arena specs), eval_games games each, colours
    alternated, every pair of games from the same random opening of `opening_moves` moves.
    add() the runs, then run(); elo() rates everything played so far.

    label names the comparison in log lines (default: the game); command is recorded with the runs
    and the final agents' cards; log prints progress. Subclasses adapt the records and files through
    the methods below (budget_settings, evaluation_settings, fingerprint, new_record, open_record,
    after_training, card, final_agent_path, run_matches).
    """

    def __init__(self, folder, game, budget, references=("random",), game_kwargs=None, eval_games=20, seed=0,
                 opening_moves=0, label=None, command=None, log=print):
        if not isinstance(budget, Budget):
            raise TypeError(f"budget must be a Budget, got {budget!r}")
        if len(set(references)) != len(references) or not references:
            raise ValueError(f"references must be distinct arena specs, at least one, got {list(references)}")
        self.folder, self.game, self.budget = os.fspath(folder), game, budget
        self.game_kwargs = dict(game_kwargs or {})
        self.references, self.eval_games, self.seed = list(references), eval_games, seed
        self.opening_moves, self.command, self.log = opening_moves, command, log
        self.label = label or game
        self.runs = {}

    # ---- the runs ---------------------------------------------------------------------------------
    def add(self, name, algorithm_name, config=None, **play):
        """Add the run `name` of a registered algorithm ("alphazero", "reinforce", "reinforce-baseline",
        "ppo", ...). config: its config fields; the game, its kwargs, the seed, max_steps (from the
        budget) and the algorithm's defaults are set unless config sets them. play: options of the
        evaluated agent over the trainer's (e.g. simulations=50). Returns self."""
        if name in self.runs or name in self.references or "@" in name or os.sep in name:
            raise ValueError(f"run name {name!r}: taken, a reference's, or with '@' or '{os.sep}' in it")
        algo = algorithm(algorithm_name)
        fields = {**algo.defaults, "game": self.game, "game_kwargs": dict(self.game_kwargs), "seed": self.seed,
                  "max_steps": self.budget.max_steps(), **(config or {})}
        if (fields["game"], fields["game_kwargs"]) != (self.game, self.game_kwargs):
            raise ValueError(f"run {name!r}: its config trains {fields['game']} {fields['game_kwargs']}, but the "
                             f"comparison plays {self.game} {self.game_kwargs}")
        self.runs[name] = RunSpec(algorithm_name, fields, dict(play))
        return self

    def run_dir(self, name):
        return os.path.join(self.folder, name)

    def final_agent_path(self, name):
        return os.path.join(self.run_dir(name), FINAL_AGENT)

    def record(self, name):
        """The saved record (state.json) of run `name`, None before it started."""
        return read_json(os.path.join(self.run_dir(name), STATE))

    def save_record(self, name, record):
        write_json(os.path.join(self.run_dir(name), STATE), record)

    def records(self):
        """{name: record} of the runs with at least one evaluation point, in the order added."""
        out = {}
        for name in self.runs:
            rec = self.record(name)
            if rec is not None and rec["evals"]:
                out[name] = rec
        return out

    def make_run(self, name, resume):
        """The trainer of run `name` (a TrainingRun) in its folder; in minutes mode its learning rate
        follows the cosine schedule over the share of the time budget used."""
        spec, folder = self.runs[name], self.run_dir(name)
        run = algorithm(spec.algorithm).build(spec.config, folder, resume=resume, log_dir=os.path.join(folder, "tb"))
        if self.budget.unit == "seconds":
            run.time_budget = self.budget.total
        return run

    def budget_settings(self):
        return self.budget.to_dict()

    def evaluation_settings(self):
        return {"references": self.references, "eval_games": self.eval_games, "seed": self.seed,
                "opening_moves": self.opening_moves, "eval_at_start": self.budget.eval_at_start}

    def fingerprint(self, name):
        """What a run's folder must have been started with to be resumed."""
        spec = self.runs[name]
        return {"algorithm": spec.algorithm, "config": spec.config, "play": spec.play,
                "budget": self.budget_settings(), "evaluation": self.evaluation_settings()}

    def new_record(self, name, fingerprint):
        return {"fingerprint": fingerprint, "steps": 0, "seconds": 0.0, "cpu_seconds": 0.0,
                "checkpoint_seconds": 0.0, "estimated_seconds": 0.0, "evals": [], "done": False, "commands": [],
                "counters": {}, "history": []}

    def open_record(self, name, record):
        """Called as a sitting takes the run up (locked), before training: notes the command."""
        if self.command and self.command not in record["commands"]:
            record["commands"].append(self.command)

    def point_name(self, name, k):
        """The player name of run `name` at evaluation point k: name@LABEL."""
        return f"{name}@{self.budget.label(self.budget.targets()[k])}"

    def evaluate(self, make_agent, name, words):
        """make_agent() against every reference; the matches (no records), seeded from (seed, *words)."""
        return evaluate(make_agent, name, self.references, self.game, self.game_kwargs, self.eval_games,
                        (self.seed, *words), opening_moves=self.opening_moves)

    def train(self, name):
        """Train and evaluate run `name` through the budget, resuming or skipping it as its folder
        says; returns its record. SettingsChanged when the folder was started with other settings,
        ResumeError when its checkpoint does not fit its record, FolderInUse when another process
        is at it."""
        folder = self.run_dir(name)
        fp = self.fingerprint(name)
        rec = self.record(name)
        if rec is not None:
            check_same_settings(rec["fingerprint"], fp, folder)
            if rec.get("done"):
                self.log(f"[{self.label}/{name}] finished earlier: skipped")
                return rec
        with folder_lock(folder):
            rec = rec if rec is not None else self.new_record(name, fp)
            self.open_record(name, rec)
            if rec["steps"] > 0 and not os.path.isfile(os.path.join(folder, CHECKPOINT)):
                raise ResumeError(f"{folder}: {STATE} records {rec['steps']} steps but there is no checkpoint; "
                                  f"remove the folder to start this run again")
            run = self.make_run(name, resume=rec["steps"] > 0)

            def save_record():
                rec["steps"], rec["counters"] = run.step, run.counters()
                self.save_record(name, rec)

            loop = BudgetLoop(run, rec, self.budget.unit, on_checkpoint=save_record)
            loop.reconcile(folder)
            self.save_record(name, rec)
            for k, target in enumerate(self.budget.targets()):
                if k < len(rec["evals"]):
                    continue
                loop.train_to(target)
                rec["checkpoint_seconds"] += loop.save()
                save_record()
                self.evaluation_point(name, run, rec, k, target)
            self.after_training(name, run, rec)
            rec["history"] = [{f: v for f, v in h.items() if v is None or isinstance(v, (int, float))}
                              for h in run.history]
            self.save_final_agent(name, run, rec)
            rec["done"] = True
            self.save_record(name, rec)
            self.log(f"[{self.label}/{name}] done: agent in {self.final_agent_path(name)}")
            return rec

    def evaluation_point(self, name, run, rec, k, target):
        """Evaluate the run's current agent at point k, keep the matches in its record and save it."""
        point = self.point_name(name, k)
        t0 = time.perf_counter()
        matches = self.evaluate(lambda: run.agent(**self.runs[name].play), point, (7, k))
        ev = {"index": k, "name": point, "target": target, "step": run.step, "seconds": rec["seconds"],
              "eval_seconds": time.perf_counter() - t0, "counters": run.counters(), "matches": matches}
        rec["evals"].append(ev)
        self.save_record(name, rec)
        self.log(f"[{self.label}/{name}] {point}: {rec['seconds'] / 60:.1f} min of training, step {run.step}; "
                 + ", ".join(f"{m['agent_b']} {wdl(total(m))}" for m in matches)
                 + f" (evaluation {ev['eval_seconds']:.0f} s)")

    def after_training(self, name, run, record):
        """Called once the budget is spent, before the final agent is saved (extra measurements)."""

    def final_results(self, record):
        """The card's results: the last evaluation point's matches, by reference and first mover."""
        return {"final_evaluation": by_reference(record["evals"][-1]["matches"])} if record["evals"] else {}

    def card(self, name, run, record):
        """The final agent's model card."""
        return {"game": self.game, "kwargs": self.game_kwargs, "net": run.net.config.to_dict(),
                "parameters": run.net.num_parameters(), "algorithm": name,
                "budget": {**self.budget_settings(), "training_seconds": round(record["seconds"], 1),
                           "training_cpu_seconds": round(record.get("cpu_seconds", 0.0), 1),
                           "checkpoint_seconds": round(record["checkpoint_seconds"], 1),
                           "evaluation_seconds": round(sum(e["eval_seconds"] for e in record["evals"]), 1),
                           **run.counters()},
                "training_config": run.cfg.to_dict(), "evaluation": self.evaluation_settings(),
                "results": self.final_results(record),
                "command": record["commands"][-1] if record["commands"] else self.command}

    def save_final_agent(self, name, run, record):
        from zerogym_agents.agents.saved import save_agent
        os.makedirs(os.path.dirname(os.path.abspath(self.final_agent_path(name))), exist_ok=True)
        save_agent(self.final_agent_path(name), run.net, {**run.agent_options(), **self.runs[name].play},
                   self.card(name, run, record), kind=run.agent_kind)

    # ---- the references; the round robin ----------------------------------------------------------
    def play_references(self):
        """Every pair of references plays eval_games games, once (saved; played again when the
        references change)."""
        path = os.path.join(self.folder, REFERENCES)
        fp = {"references": self.references, "games": self.eval_games, "seed": self.seed,
              "opening_moves": self.opening_moves}
        data = read_json(path)
        if data is not None and data["fingerprint"] != fp:
            data = None
        data = data or {"fingerprint": fp, "matches": []}
        if len(data["matches"]) >= len(self.references) * (len(self.references) - 1) // 2:
            return data

        def saved(matches):
            data["matches"] = matches
            write_json(path, data)
            m = matches[-1]
            self.log(f"[{self.label}/references] {m['agent_a']} vs {m['agent_b']}: {wdl(total(m))}")

        with folder_lock(self.folder, LOCK + "-references"):
            play_references(self.references, self.game, self.game_kwargs, self.eval_games, self.seed,
                            self.opening_moves, done=data["matches"], on_match=saved)
        return data

    def round_robin(self, games_per_pair, required=None):
        """The final agents of every finished run and the references, every pair games_per_pair
        games (arena.round_robin); played once the runs in `required` (default: all) are finished,
        and again when the set of finished runs grows. Each final agent's card gets its results.
        Returns the saved dict (None before it was played)."""
        from zerogym_agents.arena.match import round_robin
        from zerogym_agents.agents.saved import copy_agent, load_agent
        records = {n: self.record(n) for n in self.runs}
        done = [n for n, r in records.items() if (r or {}).get("done")]
        path = os.path.join(self.folder, ROUND_ROBIN)
        if not done or any(n not in done for n in (self.runs if required is None else required)):
            return read_json(path)
        names = done + self.references
        fp = {"names": names, "games_per_pair": games_per_pair, "seed": self.seed,
              "opening_moves": self.opening_moves,
              "runs": {n: [records[n]["steps"], round(records[n]["seconds"], 3)] for n in done}}
        old = read_json(path)
        if old is not None and old["fingerprint"] == fp:
            return old
        with folder_lock(self.folder, LOCK + "-round-robin"):
            agents = {n: load_agent(self.final_agent_path(n)) for n in done}
            agents.update({r: reference_agent(r, self.game, self.game_kwargs) for r in self.references})
            t0 = time.perf_counter()
            self.log(f"[{self.label}/round robin] {len(names)} agents, {games_per_pair} games per pair ...")
            result = round_robin({n: agents[n] for n in names}, self.game, self.game_kwargs,
                                 games_per_pair=games_per_pair, seed=self.seed, progress=False,
                                 opening_moves=self.opening_moves)
            data = {"fingerprint": fp, "seconds": time.perf_counter() - t0, "result": result.to_dict(),
                    "command": self.command}
            for n in done:                      # the round robin's results go into each final agent's card
                rr = {(m.agent_b if m.agent_a == n else m.agent_a): (
                      {"agent_first": vars(m.a_first), "agent_second": vars(m.b_first)} if m.agent_a == n else
                      {"agent_first": vars(m.b_first.flipped()), "agent_second": vars(m.a_first.flipped())})
                      for m in result.matches if n in (m.agent_a, m.agent_b)}
                p = self.final_agent_path(n)
                copy_agent(p, p, lambda card, rr=rr: {**card, "results": {**card.get("results", {}),
                                                                           "final_round_robin": rr}})
            for agent in agents.values():
                if hasattr(agent, "close"):
                    agent.close()
            write_json(path, data)
            self.log(f"[{self.label}/round robin] done in {data['seconds']:.0f} s")
        return data

    # ---- ratings ------------------------------------------------------------------------------------
    def run_matches(self, record):
        """The matches of a run's record that join the pooled Elo: its evaluation points'."""
        return [m for ev in record["evals"] for m in ev["matches"]]

    def saved(self):
        """Everything on disk: {"runs": records(), "references": ..., "round_robin": ...} (None where
        not played)."""
        return {"runs": self.records(), "references": read_json(os.path.join(self.folder, REFERENCES)),
                "round_robin": read_json(os.path.join(self.folder, ROUND_ROBIN))}

    def elo(self, saved=None):
        """The pooled Elo (fit_elo; Random = 0 when it is a reference, else the mean) over every game
        saved: the references among themselves, every evaluation point (each its own player,
        NAME@LABEL), the round robin (the final agents under their run names). None before any game."""
        saved = saved or self.saved()
        matches = list((saved["references"] or {}).get("matches", []))
        for rec in saved["runs"].values():
            matches += self.run_matches(rec)
        if saved["round_robin"]:
            matches += saved["round_robin"]["result"]["matches"]
        return pooled_elo(matches)

    # ---- everything ---------------------------------------------------------------------------------
    def do_task(self, task):
        """One task of run(): "train:NAME" or "references"."""
        kind, _, name = task.partition(":")
        if kind == "train" and name in self.runs:
            return self.train(name)
        if task == "references":
            return self.play_references()
        raise ValueError(f"unknown task {task!r}")

    def run(self, parallel=1, final_games=None):
        """Train every run (parallel > 1: that many at a time, each in a child process on one torch
        thread; the comparison is pickled for them, so its log must pickle: print does, a lambda does
        not), play the references, then with final_games the round robin of the final agents.
        Returns elo()."""
        from zerogym_agents.experiment.processes import run_children, start_function
        tasks = [f"train:{name}" for name in self.runs] + ["references"]
        if parallel == 1:
            for task in tasks:
                self.do_task(task)
        else:
            failed = run_children(tasks, lambda task, slot: start_function(_child_task, self, task, name=task),
                                  parallel)
            if failed:
                raise RuntimeError("comparison: " + ", ".join(f"{t} failed (exit {c})" for t, c in failed)
                                   + "; its error is printed above, and running it again resumes it")
        if final_games:
            self.round_robin(final_games)
        return self.elo()


def by_reference(matches):
    """{reference: {"agent_first": W-D-L, "agent_second": W-D-L}} of matches against references."""
    return {m["agent_b"]: {"agent_first": m["a_first"], "agent_second": m["b_first"]} for m in matches}


def _child_task(comparison, task):
    """A child process of Comparison.run(parallel=N): one task on one torch thread."""
    import torch
    torch.set_num_threads(1)
    comparison.do_task(task)
