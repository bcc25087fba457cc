"""The board-size transfer experiment end to end, at tiny scale: Go 3x3 -> 5x5, a 1x8 net, a few
search steps per method (the step budget makes the runs deterministic)."""

import argparse
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

import pytest
import torch

import zerogym
from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
from zerogym_agents.mcts import uniform_evaluator
from zerogym_agents.nets import PolicyValueNet, for_game, load_net
from zerogym_agents.agents.saved import load_agent, load_card, save_agent
from zerogym_agents.agents.search import AlphaZeroAgent
from zerogym_agents.cli.transfer import add_transfer_parser
from zerogym_agents.experiment.transfer import (
    METHODS,
    OpeningSampler,
    TransferExperiment,
    best_method,
    run_transfer,
    save_best_agent,
)
from zerogym_agents.transfer.settings import TransferSettings
from tiny_runs import NET

STEPS, EVERY = 4, 2
TINY = {
    "concurrent_games": 4,
    "simulations": 4,
    "batch_size": 16,
    "min_buffer": 16,
    "max_train_per_step": 2,
    "checkpoint_every": 2,
    "game_kwargs": {"max_moves": 20},
}


def parse(*argv):
    ap = argparse.ArgumentParser(prog="zerogym")
    add_transfer_parser(ap.add_subparsers(dest="command", required=True))
    return ap.parse_args(["transfer", *map(str, argv)])


def run_args(source, out, *options, references="random"):
    """`zerogym transfer run` parsed: a few tiny steps from `source` to 5x5 writing in `out`, then `options`."""
    steps = (
        f"--big-size 5 --steps {STEPS} --eval-every-steps {EVERY} --eval-games 2 --zero-shot-games 2 --simulations 4"
    )
    tiny = ["--config", json.dumps(TINY), "--out", out, "--no-progress"]
    return parse("run", "--source", source, *steps.split(), "--references", *references.split(), *tiny, *options)


def settings(source, **over):
    kw = dict(
        source=str(source),
        big_size=5,
        steps=STEPS,
        eval_every_steps=EVERY,
        eval_games=2,
        zero_shot_games=2,
        references=("random", "uct:20"),
        simulations=4,
        config=dict(TINY),
        seed=0,
    )
    return TransferSettings(**{**kw, **over})


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A 3x3 Go agent (untrained 1x8 net) with a model card that names its board."""
    path = tmp_path_factory.mktemp("source") / "go3.pt"
    torch.manual_seed(0)
    heads = dict(policy_hidden=8, value_hidden=8, value_loss="bce")
    net = PolicyValueNet(for_game("go", game_kwargs={"board_size": 3}, **NET, **heads)).eval()
    save_agent(path, net, {"simulations": 4}, {"game": "go", "kwargs": {"board_size": 3}})
    return path


@pytest.fixture(scope="module")
def experiment(source, tmp_path_factory):
    """Every method, through the command line; returns (args, out folder, results)."""
    out = tmp_path_factory.mktemp("transfer") / "exp"
    args = run_args(source, out, "--report", out / "report" / "transfer.md", references="random uct:20")
    return args, out, args.func(args)


def test_every_method_leaves_an_agent_that_plays_the_big_board(experiment):
    _, out, data = experiment
    assert list(data["methods"]) == list(METHODS)
    for method in METHODS:
        path = str(out / method / "final_agent.pt")
        agent = load_agent(path)
        card = load_card(path)
        assert card["kwargs"]["board_size"] == 5 and card["training"]["method"] == method
        assert set(card["results"]) == {"random", "uct:20"}
        env = zerogym.make("go", board_size=5)
        env.reset(seed=1)
        env.step(12)  # a stone in the centre: not the empty board
        action = agent.act(env)
        assert env.unwrapped.state.is_legal(action)
    kinds = {m: type(load_agent(str(out / m / "final_agent.pt")).evaluator.net).__name__ for m in METHODS}
    assert kinds["composite"] == "CompositeNet" and kinds["scratch"] == "PolicyValueNet"
    blocks = {m: load_card(str(out / m / "final_agent.pt"))["net"].get("blocks") for m in ("scratch", "grown")}
    assert blocks == {"scratch": 1, "grown": 3}


def test_same_budget_for_every_method(experiment):
    _, out, data = experiment
    for method, prog in data["methods"].items():
        assert prog["done"]
        assert sum(st["steps"] for st in prog["stages"]) == STEPS, method
        assert [ev["total_steps"] for ev in prog["evals"]] == [0, 2, 4], method
        assert prog["evals"][-1]["final"] and not prog["evals"][0]["final"]
    stages = data["methods"]["curriculum"]["stages"]
    assert [(st["board_size"], st["steps"]) for st in stages] == [(4, 2), (5, 2)]
    checkpoint = torch.load(out / "curriculum" / "stage2-5x5" / "checkpoint.pt", weights_only=True)
    assert checkpoint["counters"]["step"] == 2


def test_evaluations_are_on_the_big_board_with_alternating_colours(experiment):
    _, out, data = experiment
    for prog in data["methods"].values():
        for ev in prog["evals"]:
            assert [m["agent_b"] for m in ev["matches"]] == ["random", "uct:20"]
            for m in ev["matches"]:
                assert m["kwargs"]["board_size"] == 5
                assert [r["a_moved_first"] for r in m["records"]] == [True, False]
    names = set(data["elo"]["agents"])
    assert {"random", "uct:20", "scratch@0", "grown@4", "curriculum@2"} <= names
    assert data["elo"]["agents"]["random"]["elo"] == 0


def test_the_experiment_keeps_its_files_and_record_format(experiment):
    """The layout and record format of the experiment's folder, and the seeds of its matches: what a
    finished or interrupted experiment of an earlier version holds, and what the report reads."""
    from zerogym_agents.experiment.seeds import seed_int

    _, out, data = experiment
    files = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and "tfevents" not in p.name}
    per_run = {"agent.json", "agent.pt", "checkpoint.pt", "config.json", "training.png"}
    folders = {m: ["stage1-4x4", "stage2-5x5"] if m == "curriculum" else ["run"] for m in METHODS}
    assert files == {
        "experiment.json",
        "zero_shot.json",
        "references.json",
        "results.json",
        "report/transfer.md",
        "report/transfer.png",
    } | {f"{m}/{f}" for m in METHODS for f in ("done.json", "final_agent.json", "final_agent.pt", "progress.json")} | {
        f"{m}/{d}/{f}" for m in METHODS for d in folders[m] for f in per_run
    }
    logs = {str(p.parent.relative_to(out)) for p in out.rglob("*tfevents*")}
    assert logs == {f"{m}/tb/{d}" for m in METHODS for d in ["eval", *folders[m]]}
    assert json.loads((out / "experiment.json").read_text())["methods"] == list(METHODS)
    assert json.loads((out / "references.json").read_text()) == {"games": 0, "matches": []}
    zs = json.loads((out / "zero_shot.json").read_text())
    assert sorted(zs) == ["board_size", "games", "match", "score", "simulations"]
    assert zs["match"]["seed"] == seed_int(seed_int(0, 7), 3)
    assert sorted(data) == [
        "anchor",
        "big_kwargs",
        "budget",
        "command",
        "config",
        "curriculum",
        "elo",
        "game",
        "methods",
        "paths",
        "reference_matches",
        "settings",
        "small_size",
        "source",
        "zero_shot",
    ]
    assert data["budget"] == {"unit": "steps", "per_method": STEPS, "parallel": 1, "torch_threads": 1}
    assert data["curriculum"] == {"sizes": [4], "split": [0.5, 0.5]} and data["anchor"] == "random"
    for i, method in enumerate(METHODS):
        prog = json.loads((out / method / "progress.json").read_text())
        assert prog == data["methods"][method]
        assert sorted(prog) == ["done", "evals", "method", "net", "next_eval", "stages"]
        assert (prog["method"], prog["next_eval"], prog["done"]) == (method, STEPS + EVERY, True)
        assert [sorted(st) for st in prog["stages"]] == [
            [
                "board_size",
                "budget",
                "cpu_seconds",
                "cpu_wall_seconds",
                "done",
                "games",
                "name",
                "positions",
                "seconds",
                "steps",
                "torch_threads",
                "train_steps",
            ]
        ] * len(folders[method])
        assert [(st["name"], st["board_size"], st["budget"]) for st in prog["stages"]] == (
            [("stage1-4x4", 4, 2), ("stage2-5x5", 5, 2)] if method == "curriculum" else [("run", 5, STEPS)]
        )
        evals = [{k: v for k, v in ev.items() if k not in ("matches", "seconds")} for ev in prog["evals"]]
        assert evals == [
            {
                "name": f"{method}@{n}",
                "stage": int(method == "curriculum" and n > 2),
                "board_size": None if n == 0 else 4 if method == "curriculum" and n == 2 else 5,
                "step": n if method != "curriculum" or n == 0 else 2,
                "total_steps": n,
                "games": 2,
                "final": n == STEPS,
            }
            for n in (0, 2, 4)
        ]
        assert [[m["seed"] for m in ev["matches"]] for ev in prog["evals"]] == [
            [seed_int(seed_int(0, 13, i, k, r), 3) for r in range(2)] for k in range(3)
        ]
        assert json.loads((out / method / "done.json").read_text()) == {
            "method": method,
            "agent": "final_agent.pt",
            "final": f"{method}@{STEPS}",
        }
        card = load_card(str(out / method / "final_agent.pt"))
        assert sorted(card["training"]) == [
            "config",
            "method",
            "positions",
            "seconds",
            "self_play_games",
            "source",
            "source_board_size",
            "stages",
            "steps",
            "train_steps",
        ]
        assert card["training"]["config"] == data["config"] and card["simulations_per_move"] == 4
        assert load_agent(str(out / method / "final_agent.pt")).simulations == 4


def test_zero_shot_runs_the_source_on_the_big_board(experiment):
    _, out, data = experiment
    zs = json.loads((out / "zero_shot.json").read_text())
    assert zs["board_size"] == 5 and zs["games"] == 2 and zs == data["zero_shot"]
    match = zs["match"]
    assert (match["agent_a"], match["agent_b"]) == ("source (zero-shot)", "random")
    for rec in match["records"]:
        assert rec["kwargs"]["board_size"] == 5
        assert max(rec["actions"]) > 9  # points beyond the 3x3 board's action range were played
    assert 0.0 <= zs["score"] <= 1.0


def test_report_and_plot(experiment):
    args, out, data = experiment
    report = out / "report" / "transfer.md"
    text = report.read_text()
    assert data["paths"] == {"report": str(report), "plot": str(out / "report" / "transfer.png")}
    assert (out / "report" / "transfer.png").stat().st_size > 1000
    final = text.split("## Final results")[1].split("## Elo over training")[0]
    for method in METHODS:
        assert f"| {method} |" in final
    reading = text.split("## Reading")[1].split("## Config")[0]
    assert "TODO" not in text and "Zero-shot" in reading and "90%" in reading
    hits = re.findall(r"reached the scratch run's final Elo \(\S+\) (?:at the start|after (\d+) search steps)", reading)
    fast = any(not steps or int(steps) <= STEPS / 2 for steps in hits)
    assert ("at most half its compute: met (" if fast else "at most half its compute: **missed**.") in reading
    assert "zerogym transfer run --source" in text and "--steps 4" in text
    assert "3x3 -> 4x4 -> 5x5" in text
    assert (out / "results.json").is_file() and (out / "scratch" / "tb" / "eval").is_dir()


def test_a_restart_skips_finished_methods(experiment):
    args, out, data = experiment
    files = [out / m / f for m in METHODS for f in ("final_agent.pt", "progress.json")]
    files.append(out / "grown" / "run" / "checkpoint.pt")
    before = {f: f.stat().st_mtime_ns for f in files}
    with pytest.raises(ValueError, match="already holds a run: add --resume to continue it, or --force"):
        args.func(args)  # the same --out again needs --resume (or --force)
    args.resume = True
    try:
        again = args.func(args)
    finally:
        args.resume = False
    assert {f: f.stat().st_mtime_ns for f in files} == before
    assert again["elo"] == data["elo"]


def test_the_report_names_the_torch_threads_the_methods_trained_on(experiment, tmp_path):
    args, out, data = experiment
    trained = data["budget"]["torch_threads"]
    copy = tmp_path / "exp"
    shutil.copytree(out, copy)

    def budget_line():
        from zerogym_agents.cli.transfer_run import command_line, settings_from_args

        words = shlex.split(command_line(settings_from_args(args), str(copy), str(copy / "r.md")))[2:]
        again = parse(*words, "--resume", "--no-progress")
        again.func(again)
        return next(line for line in (copy / "r.md").read_text().splitlines() if line.startswith("- Budget:"))

    before = torch.get_num_threads()
    torch.set_num_threads(trained + 1)  # the report of a resumed experiment, written with other settings
    try:
        assert f"one method at a time, each on {trained} torch thread" in budget_line()
        progress = copy / "scratch" / "progress.json"
        record = json.loads(progress.read_text())
        for stage in record["stages"]:
            del stage["torch_threads"]  # a run from before the records held them
        progress.write_text(json.dumps(record))
        assert "one method at a time. " in budget_line() and "torch thread" not in budget_line()
    finally:
        torch.set_num_threads(before)


def test_an_interrupted_method_resumes_from_its_checkpoint(experiment, source, tmp_path, monkeypatch):
    _, first_out, _ = experiment
    out = tmp_path / "cut"
    evaluate = TransferExperiment.evaluation_point
    calls = []

    def killed_at_step_2(self, method, run, record, *rest):
        if run.step == 2:
            raise KeyboardInterrupt  # killed while evaluating, after the step-2 checkpoint
        return evaluate(self, method, run, record, *rest)

    monkeypatch.setattr(TransferExperiment, "evaluation_point", killed_at_step_2)
    with pytest.raises(KeyboardInterrupt):
        run_transfer(settings(source, methods=("finetune",)), out, progress=False)
    assert not (out / "finetune" / "done.json").exists()
    monkeypatch.setattr(TransferExperiment, "evaluation_point", evaluate)
    train_for = AlphaZeroTrainer.train_for
    monkeypatch.setattr(
        AlphaZeroTrainer, "train_for", lambda self, n, *a: calls.append(self.step) or train_for(self, n, *a)
    )
    data = run_transfer(settings(source, methods=("finetune",)), out, progress=False)
    assert calls and calls[0] == 2  # resumed at step 2, not restarted
    assert [ev["total_steps"] for ev in data["methods"]["finetune"]["evals"]] == [0, 2, 4]
    # the same run as the uninterrupted one of the module's experiment
    a = load_agent(str(out / "finetune" / "final_agent.pt")).evaluator.net.state_dict()
    b = load_agent(str(first_out / "finetune" / "final_agent.pt")).evaluator.net.state_dict()
    assert all(torch.equal(v, b[k]) for k, v in a.items())


def test_a_time_budget(source, tmp_path):
    data = run_transfer(
        settings(source, methods=("finetune",), steps=None, minutes=0.02, eval_every_minutes=0.01),
        tmp_path,
        progress=False,
    )
    prog = data["methods"]["finetune"]
    (stage,) = prog["stages"]
    assert stage["seconds"] >= 1.2 and stage["steps"] >= 1
    assert prog["evals"][0]["seconds"] == 0 and prog["evals"][-1]["seconds"] == stage["seconds"]
    assert all(ev["name"].endswith("min") for ev in prog["evals"])
    # the CPU the training process got, over the same chunks of training
    assert 0 < stage["cpu_seconds"] and stage["cpu_wall_seconds"] <= stage["seconds"] + 1e-9
    share = re.search(r"^\| finetune \|[^|]*\|[^|]*\|[^|]*\| (\d+)% \|", (tmp_path / "report.md").read_text(), re.M)
    assert share and int(share.group(1)) == round(100 * stage["cpu_seconds"] / stage["cpu_wall_seconds"])
    config = json.loads((tmp_path / "finetune" / "run" / "config.json").read_text())
    assert config["max_steps"] == 10**9 and config["init_from"].endswith("go3.pt")


def test_the_evaluated_agent_samples_only_its_opening():
    agent = OpeningSampler(AlphaZeroAgent(uniform_evaluator, simulations=8, seed=0), moves=2)
    env = zerogym.make("go", board_size=5)
    env.reset(seed=0)
    seen = []
    for _ in range(4):
        env.step(agent.act(env))
        seen.append(agent.agent.temperature)
    assert seen == [1.0, 1.0, 0.0, 0.0]
    firsts = set()
    for seed in range(8):  # sampled openings differ from game to game
        env.reset(seed=seed)
        agent.seed(seed)
        agent.reset()
        firsts.add(agent.act(env))
    assert len(firsts) > 1


def test_other_settings_in_the_same_folder_are_refused(experiment, source):
    _, out, _ = experiment
    with pytest.raises(ValueError, match="eval_games"):
        run_transfer(settings(source, eval_games=3), out, progress=False)


def test_settings_are_checked(source, tmp_path):
    with pytest.raises(ValueError, match=r"simulations must be an integer in \[1, 400\], got 401"):
        settings(source, simulations=401)
    with pytest.raises(ValueError, match="methods"):
        settings(source, methods=("scratch", "magic"))
    with pytest.raises(ValueError, match="max_steps"):
        settings(source, config={"max_steps": 10})
    with pytest.raises(ValueError, match="smaller than the big board"):
        TransferExperiment(settings(source, big_size=3), tmp_path)
    with pytest.raises(ValueError, match="curriculum_split needs 2 shares"):
        TransferExperiment(settings(source, curriculum_split=(1, 2, 3)), tmp_path)
    with pytest.raises(ValueError, match="composite settings"):
        TransferExperiment(settings(source, composite={"bogus": 1}), tmp_path)
    assert TransferSettings(source="x.pt", big_size=9, steps=100).eval_every_steps == 25
    with pytest.raises(SystemExit):
        parse("run", "--source", "x.pt", "--big-size", 9, "--steps", 5, "--minutes", 3)
    args = parse("run", "--source", "x.pt", "--big-size", 9)
    assert (args.minutes, args.references, args.simulations) == (
        60.0,
        ["random", "uct:1000", "gnugo:1", "gnugo:10"],
        200,
    )


def test_gnu_go_as_a_reference(gnugo, source, tmp_path):
    data = run_transfer(
        settings(source, methods=("finetune",), steps=1, eval_every_steps=1, references=("random", "gnugo:1")),
        tmp_path,
        progress=False,
    )
    matches = data["methods"]["finetune"]["evals"][-1]["matches"]
    assert matches[1]["agent_b"] == "gnugo:1" and len(matches[1]["records"]) == 2
    assert "gnugo:1" in data["elo"]["agents"]
    text = (tmp_path / "report.md").read_text()
    assert "vs gnugo:1 (W-D-L)" in text
    t = matches[1]["total"]
    verdict = "met" if t["wins"] >= 1 else "**missed**"
    assert f"GNU Go level 1, colours alternated: {t['wins']} of 2 won, {verdict}." in text


def test_methods_trained_in_parallel_child_processes(source, tmp_path):
    args = run_args(source, tmp_path, "--methods", "scratch", "finetune", "--parallel", 2)
    data = args.func(args)
    for method in ("scratch", "finetune"):
        prog = data["methods"][method]
        assert prog["done"] and sum(st["steps"] for st in prog["stages"]) == STEPS
        assert [ev["total_steps"] for ev in prog["evals"]] == [0, EVERY, STEPS]
        assert load_card(str(tmp_path / method / "final_agent.pt"))["command"].endswith("--parallel 2")
    assert data["budget"]["parallel"] == 2 and data["budget"]["torch_threads"] == 1
    assert "2 methods trained at once, each on 1 torch thread" in (tmp_path / "report.md").read_text()


def test_a_failed_child_is_reported_and_the_others_finish(source, tmp_path):
    (tmp_path / "scratch").mkdir()
    (tmp_path / "scratch" / "progress.json").write_text("{not json")
    with pytest.raises(RuntimeError, match=r"training failed for scratch \(exit 1\)"):
        run_transfer(settings(source, methods=("scratch", "finetune")), tmp_path, progress=False, parallel=2)
    assert (tmp_path / "finetune" / "done.json").is_file() and not (tmp_path / "scratch" / "done.json").exists()


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_parallel_must_be_a_positive_integer(source, tmp_path, bad):
    with pytest.raises(ValueError, match="parallel must be a positive integer"):
        run_transfer(settings(source, methods=("finetune",)), tmp_path, progress=False, parallel=bad)


def test_children_die_with_a_killed_parent(source, tmp_path):
    code = (
        "import sys; from zerogym_agents.experiment.transfer import run_transfer; "
        "from zerogym_agents.transfer.settings import TransferSettings; "
        "run_transfer(TransferSettings(**"
        f"{settings(source, methods=('scratch', 'finetune'), steps=10**6).to_dict()!r}), "
        f"{str(tmp_path)!r}, progress=False, parallel=2)"
    )
    parent = subprocess.Popen([sys.executable, "-c", code])
    children = []
    try:
        deadline = time.time() + 300
        while len(children) < 2 and time.time() < deadline:
            time.sleep(1)
            children = [
                int(p)
                for p in subprocess.run(
                    ["pgrep", "-P", str(parent.pid), "-f", "spawn_main"], capture_output=True, text=True
                ).stdout.split()
            ]
        assert len(children) == 2
        parent.kill()  # SIGKILL: no finally block runs in the parent
        parent.wait()
        deadline = time.time() + 30
        while any(os.path.exists(f"/proc/{c}") and "zombie" not in _state(c) for c in children):
            assert time.time() < deadline, f"a child kept running after its parent was killed: {children}"
            time.sleep(0.5)
    finally:
        parent.kill()
        for c in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(c, signal.SIGKILL)


def _state(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return f.read().lower()
    except OSError:
        return "zombie"


def test_the_best_final_agent_is_saved_with_how_it_was_chosen(experiment, tmp_path):
    _, out, data = experiment
    method, elo = best_method(data)
    agents = data["elo"]["agents"]
    finals = {m: agents[p["evals"][-1]["name"]]["elo"] for m, p in data["methods"].items()}
    assert elo == max(finals.values()) == finals[method]
    path = tmp_path / "best.pt"
    assert save_best_agent(data, out, path, command="python benchmarks/transfer_go.py --save-pretrained x") == method
    card = load_card(str(path))
    assert card["selection"]["method"] == method == card["training"]["method"]
    assert card["selection"]["final_elo"] == {m: round(e, 1) for m, e in finals.items()}
    assert card["command"].endswith("--save-pretrained x")
    best, original = load_net(path).state_dict(), load_net(out / method / "final_agent.pt").state_dict()
    assert all(torch.equal(v, original[k]) for k, v in best.items())
    with pytest.raises(ValueError, match="no method .* has finished"):
        best_method({"elo": data["elo"], "methods": {m: {**p, "done": False} for m, p in data["methods"].items()}})


def test_save_best_from_the_command_line(experiment, tmp_path, capsys):
    args, out, data = experiment
    best = tmp_path / "best.pt"
    again = parse(*_resumed(args, "--save-best", best))
    again.func(again)
    card = load_card(str(best))
    assert card["selection"]["method"] == best_method(data)[0] and f"saved the {card['selection']['method']}" in (
        capsys.readouterr().out
    )
    assert card["command"].startswith("zerogym transfer run") and card["command"].endswith(f"--save-best {best}")
    bad = parse(*_resumed(args, "--save-best", "pretrained:../x"))
    with pytest.raises(ValueError, match="NAME may hold letters, digits and _ only"):
        bad.func(bad)


def _resumed(args, *extra):
    """The command line of the experiment fixture's `args` with --resume and `extra`."""
    from zerogym_agents.cli.transfer_run import command_line, settings_from_args

    words = shlex.split(command_line(settings_from_args(args), str(args.out), args.report))[2:]
    return [*words, "--resume", "--no-progress", *map(str, extra)]


def _without(key):
    return lambda d: {k: v for k, v in d.items() if k != key}


def _first_stage(**change):
    return lambda d: {**d, "stages": [{**d["stages"][0], **change}] + d["stages"][1:]}


@pytest.mark.parametrize(
    "name,change,words",
    [
        ("experiment.json", lambda d: [d], "experiment.json: the file must be a dict, got a list of 1"),
        ("experiment.json", _without("settings"), "experiment.json: the file lacks 'settings'"),
        ("zero_shot.json", "{not json", "zero_shot.json: not readable JSON"),
        ("zero_shot.json", lambda d: {**d, "score": "high"}, "zero_shot.json: score must be a finite number in [0, 1]"),
        ("references.json", lambda d: {"matches": [{"agent_a": "x"}]}, "references.json: matches[0] lacks 'agent_b'"),
        ("finetune/progress.json", _without("stages"), "progress.json: the file lacks 'stages'"),
        ("finetune/progress.json", _first_stage(steps="two"), "progress.json: stages[0].steps must be an integer >= 0"),
        ("finetune/progress.json", lambda d: {**d, "evals": [{"name": "x"}]}, "progress.json: evals[0] lacks 'stage'"),
    ],
)
def test_a_malformed_record_of_an_experiment_is_refused_by_name(experiment, source, tmp_path, name, change, words):
    import shutil
    from zerogym_agents.core.checkpoint import CheckpointError

    _, first_out, _ = experiment
    out = tmp_path / "exp"
    shutil.copytree(first_out, out, ignore=shutil.ignore_patterns("tb", "*.png"))
    path = out / name
    if callable(change):
        path.write_text(json.dumps(change(json.loads(path.read_text()))))
    else:
        path.write_text(change)
    with pytest.raises(CheckpointError) as err:
        run_transfer(settings(source, methods=("finetune",)), out, progress=False)
    assert str(err.value).startswith(str(path)) and words in str(err.value), str(err.value)
