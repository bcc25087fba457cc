"""benchmarks/az_vs_pg.py at tiny scale: Connect Four, a 1x8 net, a few steps per algorithm (--steps mode),
references random and uct:10, 2 games per evaluation. The harness it runs on (training through the budget,
resuming, evaluation, round robin) is tested in tests/zerogym_agents/experiment."""

import hashlib
import json
import os
import re

import pytest
import torch

import zerogym

from benchmark_scripts import load_script as load_benchmark

ALGOS = ("alphazero", "reinforce", "reinforce_baseline", "ppo")


def load_script(name="az_vs_pg"):
    return load_benchmark(name)


TINY = [
    "--games",
    "connect_four",
    "--net",
    "blocks=1",
    "channels=8",
    "--steps",
    "2",
    "--evals",
    "1",
    "--references",
    "random",
    "uct:10",
    "--eval-games",
    "2",
    "--final-games",
    "2",
    "--simulations",
    "8",
    "--az-set",
    "concurrent_games=8",
    "simulations=8",
    "batch_size=16",
    "min_buffer=16",
    "max_train_per_step=1",
    "--pg-set",
    "num_envs=8",
    "ppo_n_steps=8",
    "ppo_batch_size=16",
    "ppo_epochs=1",
    "snapshot_every=8",
]


@pytest.fixture(autouse=True)
def one_torch_thread():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """One tiny comparison, shared by the tests below."""
    mod = load_script()
    root = tmp_path_factory.mktemp("az_vs_pg")
    args = TINY + ["--runs-dir", str(root / "runs"), "--results-dir", str(root / "results")]
    before = torch.get_num_threads()
    try:
        assert mod.main(args) == 0
    finally:
        torch.set_num_threads(before)
    results = root / "results"
    report = (results / "az_vs_pg.md").read_text()
    return {"mod": mod, "root": root, "args": args, "results": results, "report": report}


def agent_path(tiny, algo):
    return tiny["results"] / "az_vs_pg" / "connect_four" / algo / "agent.pt"


def round_robin_rows(report):
    """{(A, B): (wins, draws, losses) from A's view} from the round-robin table of the report."""
    rows = {}
    for m in re.finditer(
        r"^\| (\S+) \| (\S+) \| \d+-\d+-\d+ \| \d+-\d+-\d+ \| (\d+)-(\d+)-(\d+) \| [\d.]+% \| \d+ \|$", report, re.M
    ):
        rows[(m.group(1), m.group(2))] = tuple(int(x) for x in m.group(3, 4, 5))
    return rows


def test_every_final_agent_exists_loads_and_plays_a_legal_move(tiny):
    from zerogym_agents.agents.saved import load_agent, load_card

    for algo in ALGOS:
        path = agent_path(tiny, algo)
        assert path.is_file() and path.with_suffix(".json").is_file(), algo
        agent = load_agent(str(path), seed=0)
        env = zerogym.make("connect_four")
        env.reset(seed=0)
        env.step(3)  # a position other than the start
        action = agent.act(env)
        assert env.unwrapped.state.legal_mask()[action] == 1
        card = load_card(str(path))
        for field in ("game", "kwargs", "net", "budget", "results", "command"):
            assert field in card, (algo, field)
        assert card["game"] == "connect_four" and card["net"]["blocks"] == 1 and card["net"]["channels"] == 8
        assert "final_round_robin" in card["results"] and "final_evaluation" in card["results"]
        assert type(agent).__name__ == ("AlphaZeroAgent" if algo == "alphazero" else "PolicyAgent")


def test_report_names_every_algorithm_and_has_the_round_robin_table_and_the_plot(tiny):
    report = tiny["report"]
    for algo in ALGOS:
        assert f"| {algo} |" in report, algo
    assert "| A | B | A first (W-D-L) | B first (W-D-L) | total (W-D-L) | A score |" in report
    rows = round_robin_rows(report)
    names = list(ALGOS) + ["random", "uct:10"]
    assert len(rows) == len(names) * (len(names) - 1) // 2
    assert all(sum(v) == 2 for v in rows.values())
    assert "final net in PUCT(8)" in report and "greedy" in report
    assert "zerogym arena --game connect_four --agents" in report
    png = tiny["results"] / "az_vs_pg_connect_four.png"
    assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_every_match_starts_pairs_of_games_from_shared_random_openings(tiny):
    k = tiny["mod"].OPENING_MOVES["connect_four"]
    rr = json.loads((tiny["root"] / "runs" / "connect_four" / "round_robin.json").read_text())
    assert rr["fingerprint"]["opening_moves"] == k
    for m in rr["result"]["matches"]:
        assert m["opening_moves"] == k
        recs = m["records"]
        assert all(r["opening"] == k for r in recs)
        for first, second in zip(recs[::2], recs[1::2]):
            assert first["actions"][:k] == second["actions"][:k] and first["a_moved_first"] != second["a_moved_first"]
    refs = json.loads((tiny["root"] / "runs" / "connect_four" / "references.json").read_text())
    assert refs["fingerprint"]["opening_moves"] == k
    state = json.loads((tiny["root"] / "runs" / "connect_four" / "ppo" / "state.json").read_text())
    assert state["fingerprint"]["evaluation"]["opening_moves"]["connect_four"] == k
    assert "**Openings.**" in tiny["report"] and f"--opening-moves {k} " in tiny["report"]


def test_reading_states_met_or_missed_as_the_round_robin_numbers_say(tiny):
    report = tiny["report"]
    rows = round_robin_rows(report)
    lines = re.findall(
        r"^- (\w+) / (\w+) vs (\S+): (?:(\d+) of (\d+) games won \(([\d.]+)%\)|not measured), "
        r"target >= (\d+)%: \*\*(met|missed|not measured)\*\*"
        r"(?: \(best evaluation during training: (\d+) of (\d+) won, at (\S+)\))?$",
        report,
        re.M,
    )
    assert len(lines) == 12  # 2 games x 3 PG algorithms x 2 references
    verdicts = []
    for game, algo, ref, won, games, _pct, need, verdict, best, best_n, _best_at in lines:
        if game != "connect_four" or ref != "random":  # greedy is not a reference here; Go was not run
            assert verdict == "not measured" and not best
            verdicts.append(None)
            continue
        w, d, lo = rows[(algo, ref)] if (algo, ref) in rows else rows[(ref, algo)][::-1]
        assert (int(won), int(games)) == (w, w + d + lo)
        assert verdict == ("met" if w / (w + d + lo) >= int(need) / 100 else "missed")
        verdicts.append(verdict == "met")
        if verdict == "missed":  # the run's best evaluation point is named
            state = json.loads((tiny["root"] / "runs" / game / algo / "state.json").read_text())
            scores = [
                (m["total"]["wins"], sum(m["total"].values()), ev["name"].split("@")[-1])
                for ev in state["evals"]
                for m in ev["matches"]
                if m["agent_b"] == ref
            ]
            assert (int(best), int(best_n)) in {(x, n) for x, n, _ in scores}
            assert int(best) / int(best_n) == max(x / n for x, n, _ in scores)
        else:
            assert not best
    overall = re.search(r"^- Overall: .*\*\*(met|missed|not measured)\*\*", report, re.M).group(1)
    assert overall == ("missed" if False in verdicts else "not measured")


def test_best_during_training_names_the_best_evaluation_point(tiny):
    def ev(name, *matches):
        return {
            "name": name,
            "matches": [{"agent_b": ref, "total": dict(zip(("wins", "draws", "losses"), wdl))} for ref, wdl in matches],
        }

    prog = {
        "evals": [
            ev("ppo@0min", ("greedy", (1, 0, 19))),
            ev("ppo@5min", ("greedy", (12, 2, 6)), ("random", (20, 0, 0))),
            ev("ppo@10min", ("greedy", (9, 0, 11))),
        ]
    }
    best = load_script("az_vs_pg_report").best_during_training
    assert best(prog, "greedy") == " (best evaluation during training: 12 of 20 won, at 5min)"
    assert best(prog, "uct:200") == "" and best(None, "greedy") == ""


def test_a_restart_skips_finished_runs_and_touches_no_agent_file(tiny, capsys):
    def snapshot():
        out = {}
        for algo in ALGOS:
            p = agent_path(tiny, algo)
            out[algo] = (os.stat(p).st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
        rr = tiny["root"] / "runs" / "connect_four" / "round_robin.json"
        out["round_robin"] = os.stat(rr).st_mtime_ns
        return out

    before = snapshot()
    capsys.readouterr()
    assert tiny["mod"].main(tiny["args"]) == 0
    out = capsys.readouterr().out
    for algo in ALGOS:
        assert f"[connect_four/{algo}] finished earlier: skipped" in out
    assert "round robin]" not in out
    assert snapshot() == before
    report = (tiny["results"] / "az_vs_pg.md").read_text()
    assert round_robin_rows(report) == round_robin_rows(tiny["report"])


def test_report_only_rebuilds_the_same_tables_without_the_training_options(tiny):
    results = tiny["results"]
    assert (
        tiny["mod"].main(["--report-only", "--runs-dir", str(tiny["root"] / "runs"), "--results-dir", str(results)])
        == 0
    )
    report = (results / "az_vs_pg.md").read_text()
    assert round_robin_rows(report) == round_robin_rows(tiny["report"])
    assert (
        report.split("## connect_four")[1].split("## Configs")[0]
        == tiny["report"].split("## connect_four")[1].split("## Configs")[0]
    )


def test_the_saved_round_robin_is_what_the_arena_replays_from_the_saved_agents(tiny):
    from zerogym_agents.agents.specs import agent_from_spec
    from zerogym_agents.arena.match import round_robin

    saved = json.loads((tiny["root"] / "runs" / "connect_four" / "round_robin.json").read_text())["result"]
    names = saved["names"]
    specs = [str(agent_path(tiny, n)) if n in ALGOS else n for n in names]
    again = round_robin(
        {n: agent_from_spec(s, "connect_four") for n, s in zip(names, specs)},
        "connect_four",
        {},
        games_per_pair=2,
        seed=0,
        progress=False,
        opening_moves=tiny["mod"].OPENING_MOVES["connect_four"],
    )
    assert [[r["actions"] for r in m.records] for m in again.matches] == [
        [r["actions"] for r in m["records"]] for m in saved["matches"]
    ]


def test_other_settings_in_the_same_runs_dir_are_refused_with_what_differs(tiny):
    args = list(tiny["args"])
    args[args.index("--eval-games") + 1] = "3"
    with pytest.raises(
        SystemExit,
        match=r"was started with other settings \(evaluation.eval_games: saved 2, now 3\)\. "
        r"Resume with the same options, or use another --runs-dir",
    ):
        tiny["mod"].main(args)
    assert (
        json.loads((tiny["root"] / "runs" / "connect_four" / "references.json").read_text())["fingerprint"]["games"]
        == 2
    )


def test_every_run_decays_its_learning_rate_and_the_report_says_how(tiny):
    mod = tiny["mod"]
    for algo in ALGOS:
        config = json.loads((tiny["root"] / "runs" / "connect_four" / algo / "config.json").read_text())
        assert config["lr_final"] < config["lr"], algo
    pg = f"Adam {mod.PG_COMMON['lr']:g} to {mod.PG_COMMON['lr_final']:g}"
    assert f"reinforce, reinforce_baseline, ppo: {pg}" in tiny["report"]


def test_every_policy_gradient_run_has_its_games_discount_and_the_report_says_which(tiny):
    mod = tiny["mod"]
    gamma = mod.PG_PER_GAME["connect_four"].get("gamma", mod.PG_COMMON["gamma"])
    for algo in ALGOS[1:]:
        config = json.loads((tiny["root"] / "runs" / "connect_four" / algo / "config.json").read_text())
        assert config["gamma"] == gamma, algo
    assert f"connect_four {gamma:g} (reinforce, reinforce_baseline, ppo)" in tiny["report"]
