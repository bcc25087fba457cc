"""Comparison end to end at tiny scale: Connect Four, 1x8 nets, a few steps per run (a step budget makes the
runs deterministic), references random and uct:10, 2 games per evaluation."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from zerogym_agents.experiment import Budget, Comparison, FolderInUse, ResumeError, SettingsChanged, seed_int
from zerogym_agents.experiment.budget import NO_STEP_CAP
from zerogym_agents.agents.saved import load_agent, load_card

REFS = ("random", "uct:10")
RUNS = ("alphazero", "reinforce", "ppo")


def comparison(folder, tiny, runs=RUNS, budget=None, log=None, **kw):
    c = Comparison(
        folder,
        "connect_four",
        budget or Budget(steps=4, eval_every=2),
        references=REFS,
        eval_games=2,
        opening_moves=4,
        command="pytest",
        log=log if log is not None else (lambda line: None),
        **kw,
    )
    for name in runs:
        c.add(name, name, tiny[name], **({"simulations": 4} if name == "alphazero" else {}))
    return c


def state(c, name):
    with open(os.path.join(c.run_dir(name), "state.json")) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def done(tmp_path_factory, tiny):
    """Three runs, the references and the round robin; returns (comparison, its log, the Elo)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        lines = []
        c = comparison(tmp_path_factory.mktemp("comparison"), tiny, log=lines.append)
        elo = c.run(final_games=2)
    finally:
        torch.set_num_threads(before)
    return c, lines, elo


def test_every_run_is_evaluated_at_every_point_against_every_reference(done):
    c, _, _ = done
    seen_seeds = set()
    for name in RUNS:
        rec = state(c, name)
        assert rec["done"] and rec["steps"] == 4 and rec["commands"] == ["pytest"]
        assert rec["fingerprint"] == json.loads(json.dumps(c.fingerprint(name)))
        assert [(ev["index"], ev["name"], ev["target"], ev["step"]) for ev in rec["evals"]] == [
            (0, f"{name}@0", 0, 0),
            (1, f"{name}@2", 2, 2),
            (2, f"{name}@4", 4, 4),
        ]
        for k, ev in enumerate(rec["evals"]):
            assert [(m["agent_a"], m["agent_b"]) for m in ev["matches"]] == [(ev["name"], r) for r in REFS]
            assert [m["seed"] for m in ev["matches"]] == [seed_int(0, 7, k, j) for j in range(2)]
            assert all(m["opening_moves"] == 4 and sum(m["total"].values()) == 2 for m in ev["matches"])
            seen_seeds |= {m["seed"] for m in ev["matches"]}
        assert rec["counters"] == rec["evals"][-1]["counters"] and rec["history"]
        assert rec["seconds"] > 0 and rec["cpu_seconds"] > 0 and rec["estimated_seconds"] == 0
    with open(os.path.join(c.run_dir("ppo"), "config.json")) as f:
        config = json.load(f)
    assert config["max_steps"] == 4 and config["game"] == "connect_four" and config["algo"] == "ppo"


def test_final_agents_play_as_evaluated_and_their_cards_hold_the_results(done):
    c, _, _ = done
    for name in RUNS:
        agent = load_agent(c.final_agent_path(name))
        assert type(agent).__name__ == ("AlphaZeroAgent" if name == "alphazero" else "PolicyAgent")
        card = load_card(c.final_agent_path(name))
        assert card["algorithm"] == name and card["command"] == "pytest" and card["budget"]["steps"] == 4
        assert set(card["results"]["final_evaluation"]) == set(REFS)
        assert set(card["results"]["final_round_robin"]) == set(RUNS + REFS) - {name}
    assert load_agent(c.final_agent_path("alphazero")).simulations == 4  # the play options, not training's 8


def test_references_round_robin_and_one_pooled_elo_over_everything(done):
    c, _, elo = done
    saved = c.saved()
    assert [(m["agent_a"], m["agent_b"]) for m in saved["references"]["matches"]] == [REFS]
    rr = saved["round_robin"]
    assert rr["fingerprint"]["names"] == list(RUNS + REFS) and rr["fingerprint"]["games_per_pair"] == 2
    assert len(rr["result"]["matches"]) == 10
    points = {f"{n}@{s}" for n in RUNS for s in (0, 2, 4)}
    assert points | set(RUNS) | set(REFS) == set(elo.names)
    assert elo.anchor == "random" and elo.rating("random") == 0
    games = dict(zip(elo.names, elo.games))
    assert games["alphazero@4"] == 4 and games["alphazero"] == 2 * 4  # 2 per reference; 2 per pair
    assert c.elo().ratings.tolist() == elo.ratings.tolist()


def test_a_restart_skips_what_is_done_and_touches_no_file(done):
    c, _, elo = done
    files = [os.path.join(c.run_dir(n), f) for n in RUNS for f in ("state.json", "checkpoint.pt", "final_agent.pt")]
    files += [os.path.join(c.folder, f) for f in ("references.json", "round_robin.json")]
    before = {f: os.stat(f).st_mtime_ns for f in files}
    lines = []
    c.log = lines.append
    try:
        assert c.run(final_games=2).ratings.tolist() == elo.ratings.tolist()
    finally:
        c.log = lambda line: None
    assert lines == [f"[connect_four/{n}] finished earlier: skipped" for n in RUNS]
    assert {f: os.stat(f).st_mtime_ns for f in files} == before


def test_other_settings_in_a_run_folder_are_refused(done, tiny):
    c, _, _ = done
    other = Comparison(
        c.folder,
        "connect_four",
        Budget(steps=4, eval_every=2),
        references=REFS,
        eval_games=3,
        opening_moves=4,
        log=lambda line: None,
    ).add("reinforce", "reinforce", tiny["reinforce"])
    with pytest.raises(SettingsChanged) as err:
        other.train("reinforce")
    assert "evaluation.eval_games: saved 2, now 3" in err.value.diffs
    assert str(err.value).startswith(f"{c.run_dir('reinforce')} was started with other settings")


def test_an_interrupted_run_resumes_from_its_checkpoint(tmp_path, tiny, monkeypatch):
    c = comparison(tmp_path, tiny, runs=("reinforce",))
    real = Comparison.evaluate
    calls = []

    def evaluate_then_die(self, make_agent, name, words):
        calls.append(name)
        if len(calls) == 3:  # the evaluation after 4 steps: killed
            raise KeyboardInterrupt
        return real(self, make_agent, name, words)

    monkeypatch.setattr(Comparison, "evaluate", evaluate_then_die)
    with pytest.raises(KeyboardInterrupt):
        c.run()
    rec = state(c, "reinforce")
    assert rec["steps"] == 4 and len(rec["evals"]) == 2 and not rec["done"]
    assert not os.path.exists(os.path.join(c.run_dir("reinforce"), ".lock"))
    ckpt = os.path.join(c.run_dir("reinforce"), "checkpoint.pt")
    saved_at = os.stat(ckpt).st_mtime_ns
    monkeypatch.setattr(Comparison, "evaluate", real)
    c.run()
    rec = state(c, "reinforce")
    assert rec["done"] and rec["steps"] == 4, "resumed at step 4, not trained again"
    assert [e["step"] for e in rec["evals"]] == [0, 2, 4]
    assert os.stat(ckpt).st_mtime_ns == saved_at
    assert calls == ["reinforce@0", "reinforce@2", "reinforce@4"]
    assert np.isfinite(rec["seconds"])
    # the same run as one that was never interrupted
    whole = comparison(tmp_path / "whole", tiny, runs=("reinforce",))
    whole.run()
    a, b = load_agent(c.final_agent_path("reinforce")).net, load_agent(whole.final_agent_path("reinforce")).net
    assert all(torch.equal(v, b.state_dict()[k]) for k, v in a.state_dict().items())
    assert [ev["matches"] for ev in rec["evals"]] == [ev["matches"] for ev in state(whole, "reinforce")["evals"]]


def test_a_record_without_its_checkpoint_or_a_folder_in_use_is_refused(tmp_path, tiny):
    c = comparison(tmp_path, tiny, runs=("reinforce",))
    os.makedirs(c.run_dir("reinforce"))
    rec = c.new_record("reinforce", c.fingerprint("reinforce"))
    rec["steps"] = 2
    with open(os.path.join(c.run_dir("reinforce"), "state.json"), "w") as f:
        json.dump(rec, f)
    with pytest.raises(ResumeError, match="records 2 steps but there is no checkpoint"):
        c.train("reinforce")
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with open(os.path.join(c.run_dir("reinforce"), ".lock"), "w") as f:
            f.write(str(holder.pid))
        with pytest.raises(FolderInUse, match=f"in use by process {holder.pid}"):
            c.train("reinforce")
    finally:
        holder.kill()
        holder.wait()


def test_a_time_budget(tmp_path, tiny):
    c = comparison(tmp_path, tiny, runs=("reinforce",), budget=Budget(minutes=0.02, eval_every=0.01))
    c.runs["reinforce"].config.update(lr=1e-3, lr_final=1e-4)
    c.run()
    rec = state(c, "reinforce")
    # the clock ended the run (it has no step cap): the exact rule, on a fake clock, is in test_budget.py;
    # the upper bound only catches a run that ignores its budget, so a busy machine passes it
    assert rec["steps"] > 1 and 0.2 < rec["seconds"] < 1.2 + 60
    assert rec["evals"][-1]["seconds"] == rec["seconds"]
    assert [ev["seconds"] for ev in rec["evals"]] == sorted(ev["seconds"] for ev in rec["evals"])
    assert [ev["name"] for ev in rec["evals"]] == ["reinforce@0min", "reinforce@0.01min", "reinforce@0.02min"]
    assert [ev["target"] for ev in rec["evals"]] == [0, 0.6, 1.2]
    with open(os.path.join(c.run_dir("reinforce"), "config.json")) as f:
        config = json.load(f)
    assert config["max_steps"] == NO_STEP_CAP
    assert c.make_run("reinforce", resume=True).time_budget == 1.2  # the learning rate's schedule runs over it
    assert all(1e-4 <= h["lr"] < 1e-3 for h in rec["history"])


def test_runs_in_parallel_child_processes_give_the_runs_made_in_one(tmp_path, tiny, done):
    c = comparison(tmp_path, tiny, runs=("alphazero", "reinforce"), log=print)
    elo = c.run(parallel=2)
    one, _, _ = done
    for name in ("alphazero", "reinforce"):
        assert [ev["matches"] for ev in state(c, name)["evals"]] == [ev["matches"] for ev in state(one, name)["evals"]]
    assert {"alphazero@4", "reinforce@4", "random", "uct:10"} <= set(elo.names)
    assert not os.path.exists(os.path.join(c.folder, "round_robin.json"))


def test_the_round_robin_waits_for_the_required_runs_and_grows_with_them(tmp_path, tiny):
    c = comparison(tmp_path, tiny, runs=("reinforce", "ppo"))
    c.train("reinforce")
    assert c.round_robin(2) is None  # ppo is not done
    first = c.round_robin(2, required=["reinforce"])
    assert first["fingerprint"]["names"] == ["reinforce", *REFS]
    c.train("ppo")
    assert c.round_robin(2)["fingerprint"]["names"] == ["reinforce", "ppo", *REFS]


def test_runs_are_checked_as_they_are_added(tmp_path, tiny):
    c = comparison(tmp_path, tiny, runs=("reinforce",))
    with pytest.raises(ValueError, match="taken"):
        c.add("reinforce", "ppo")
    with pytest.raises(ValueError, match="a reference's"):
        c.add("random", "ppo")
    with pytest.raises(ValueError, match="unknown training algorithm 'dqn'"):
        c.add("q", "dqn")
    with pytest.raises(ValueError, match="its config trains othello"):
        c.add("other", "ppo", {"game": "othello"})
    with pytest.raises(TypeError, match="Budget"):
        Comparison(tmp_path, "connect_four", {"minutes": 2})
    c.add("defaults", "ppo")
    assert c.runs["defaults"].config == {
        "algo": "ppo",
        "game": "connect_four",
        "game_kwargs": {},
        "seed": 0,
        "max_steps": 4,
    }


# ---- runs with stages, runs from a given net, zero-shot evaluations ---------------------------------
GO_NET = {"trunk": "resnet", "blocks": 1, "channels": 8, "policy_hidden": 8, "value_hidden": 8, "value_loss": "bce"}
GO_TINY = {
    "net": GO_NET,
    "concurrent_games": 4,
    "simulations": 4,
    "batch_size": 16,
    "min_buffer": 16,
    "max_train_per_step": 1,
    "checkpoint_every": 2,
}


def go_net():
    from zerogym_agents.nets import PolicyValueNet, for_game

    return PolicyValueNet(for_game("go", game_kwargs={"board_size": 4}, **GO_NET))


def go_comparison(folder, budget=None, **kw):
    return Comparison(
        folder,
        "go",
        budget or Budget(steps=4, eval_every=2),
        references=["random"],
        game_kwargs={"board_size": 4},
        eval_games=2,
        **{"log": lambda line: None, **kw},
    )


def test_a_run_with_stages_trains_each_from_the_last_and_is_evaluated_on_the_game_throughout(tmp_path):
    from zerogym_agents.experiment import Stage

    c = go_comparison(tmp_path, budget=Budget(steps=5, eval_every=2), end="reach")
    c.add(
        "curriculum",
        "alphazero",
        GO_TINY,
        stages=[Stage("small", 1, {"game_kwargs": {"board_size": 3}}), Stage("big", 1)],
        simulations=2,
    )
    assert c.stage_budgets("curriculum") == [2, 3]
    rec = c.train("curriculum")
    assert (
        rec["done"]
        and rec["steps"] == 5
        and [(st["name"], st["steps"], st["done"]) for st in rec["stages"]] == [("small", 2, True), ("big", 3, True)]
    )
    # the budget's points (0, 2, 4, 5) and the end of every stage; names and seeds count over the whole run
    assert [(ev["stage"], ev["target"], ev["step"], ev["name"]) for ev in rec["evals"]] == [
        (0, 0, 0, "curriculum@0"),
        (0, 2, 2, "curriculum@2"),
        (1, 2, 2, "curriculum@4"),
        (1, 3, 3, "curriculum@5"),
    ]
    assert [m["seed"] for ev in rec["evals"] for m in ev["matches"]] == [seed_int(0, 7, i, 0) for i in range(4)]
    assert all(m["kwargs"] == {"board_size": 4} for ev in rec["evals"] for m in ev["matches"])
    configs = []
    for stage in ("small", "big"):
        with open(tmp_path / "curriculum" / stage / "config.json") as f:
            configs.append(json.load(f))
    assert [(cfg["game_kwargs"], cfg["max_steps"], cfg["init_from"]) for cfg in configs] == [
        ({"board_size": 3}, 2, None),
        ({"board_size": 4}, 3, str(tmp_path / "curriculum" / "small" / "checkpoint.pt")),
    ]
    assert (tmp_path / "curriculum" / "tb" / "small").is_dir() and (tmp_path / "curriculum" / "tb" / "big").is_dir()
    assert rec["counters"]["search_steps"] == 5 and load_card(c.final_agent_path("curriculum"))["budget"]["steps"] == 5
    assert load_agent(c.final_agent_path("curriculum")).simulations == 2
    assert c.fingerprint("curriculum")["stages"][0] == {
        "name": "small",
        "share": 1,
        "config": {"game_kwargs": {"board_size": 3}},
    }


def test_stage_targets_fall_where_the_stages_before_ended():
    from zerogym_agents.experiment import Stage

    c = go_comparison("unused", budget=Budget(steps=10, eval_every=4))
    c.add("two", "alphazero", GO_TINY, stages=[Stage("a"), Stage("b")])
    c.add("one", "alphazero", GO_TINY)
    rec = c.new_record("two", c.fingerprint("two"))
    assert c.stage_targets("two", rec, 0) == [0, 4, 5]
    rec["stages"][0]["steps"] = 5
    assert c.stage_targets("two", rec, 1) == [3, 5]  # the budget's points 8 and 10
    assert c.stage_targets("one", c.new_record("one", None), 0) == [0, 4, 8, 10]
    minutes = go_comparison("unused", budget=Budget(minutes=1, eval_every=0.25))
    minutes.add("two", "alphazero", GO_TINY, stages=[Stage("a", 1), Stage("b", 3)])
    rec = minutes.new_record("two", None)
    assert minutes.stage_budgets("two") == [15.0, 45.0] and minutes.stage_targets("two", rec, 0) == [0, 15.0]
    rec["stages"][0]["seconds"] = 15.5  # a stage may end a little after its budget
    assert minutes.stage_targets("two", rec, 1) == [14.5, 29.5, 44.5, 45.0]


def test_a_run_starts_from_a_given_net(tmp_path):
    import functools

    c = go_comparison(tmp_path, log=print)  # pickles, for the child
    from zerogym_agents.transfer.grow import grow

    grown = functools.partial(grow, go_net(), blocks=3, seed=1)  # a net no config field describes
    c.add("grown", "alphazero", {**GO_TINY, "net": {**GO_NET, "blocks": 3}}, net=grown)
    c.run(parallel=2)  # the net's maker pickles for the child
    assert load_card(c.final_agent_path("grown"))["net"]["blocks"] == 3
    assert c.fingerprint("grown")["net"] == "zerogym_agents.transfer.grow.grow"
    with pytest.raises(ValueError, match="cannot start from a given net"):
        c.add("pg", "ppo", {"net": GO_NET}, net=grown)


def test_a_zero_shot_evaluation_is_played_once_and_rated(tmp_path):
    import functools
    from zerogym_agents.experiment import reference_agent

    c = go_comparison(tmp_path)
    c.add_zero_shot("greedy", functools.partial(reference_agent, "greedy", "go", {"board_size": 4}), games=4)
    c.add_zero_shot(
        "seeded", functools.partial(reference_agent, "random", "go", {"board_size": 4}), seeded=True, rated=False
    )
    assert c.tasks() == ["zero-shot:greedy", "zero-shot:seeded", "references"]
    elo = c.run()
    saved = json.loads((tmp_path / "zero_shot.json").read_text())
    (match,) = saved["greedy"]["matches"]
    assert (match["agent_a"], match["agent_b"], match["seed"], sum(match["total"].values())) == (
        "greedy",
        "random",
        seed_int(0, 5, 0, 0),
        4,
    )
    assert saved["seeded"]["matches"][0]["seed"] == seed_int(seed_int(0, 5, 1, 0), 3)
    assert set(elo.names) == {"greedy", "random"}  # the unrated one is not a player
    before = (tmp_path / "zero_shot.json").stat().st_mtime_ns
    assert c.zero_shot("greedy") == saved["greedy"]["matches"]
    assert (tmp_path / "zero_shot.json").stat().st_mtime_ns == before
    with pytest.raises(ValueError, match="taken"):
        c.add("greedy", "alphazero", GO_TINY)


def test_stages_are_checked_as_they_are_added(tmp_path):
    from zerogym_agents.experiment import Stage

    c = go_comparison(tmp_path, budget=Budget(steps=2))
    for stages in ([], [Stage("a"), Stage("a")], [Stage("tb")], [Stage("a", 0)]):
        with pytest.raises(ValueError, match="stages must be Stage"):
            c.add("x", "alphazero", GO_TINY, stages=stages)
    with pytest.raises(ValueError, match="2 steps cannot be split over 3 stages"):
        c.add("x", "alphazero", GO_TINY, stages=[Stage("a"), Stage("b"), Stage("c")])
    with pytest.raises(ValueError, match="its config trains go {'board_size': 3}"):
        c.add("x", "alphazero", GO_TINY, stages=[Stage("a"), Stage("b", 1, {"game_kwargs": {"board_size": 3}})])
    with pytest.raises(ValueError, match="every stage must train go"):
        c.add("x", "alphazero", GO_TINY, stages=[Stage("a", 1, {"game": "hex"}), Stage("b")])
    assert "x" not in c.runs
