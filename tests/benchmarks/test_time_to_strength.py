"""benchmarks/time_to_strength.py --quick at tiny scale: every method of every game trains, is evaluated and
appears in the report's table; the machine's load is recorded. The harness it runs on is tested in
tests/zerogym_agents/experiment."""

import json
import os

import pytest
import torch

from benchmark_scripts import load_script as load_benchmark


def load_script():
    return load_benchmark("time_to_strength")


def quick_args(root, *options, references="random", target="random"):
    """The command line of a --quick sitting of seconds that writes under `root`, with `options` added."""
    timing = "--quick --minutes 0.02 --eval-every 0.02 --eval-games 2".split()
    places = ["--out", str(root / "runs"), "--results", str(root / "results")]
    return [*timing, *options, "--references", *references.split(), "--target", target, *places]


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    mod = load_script()
    root = tmp_path_factory.mktemp("tts")
    before = torch.get_num_threads()
    args = quick_args(root, references="random uct:10", target="uct:10")
    try:
        assert mod.main(args) == 0
    finally:
        torch.set_num_threads(before)
    return mod, root


def table_rows(text, heading):
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return {
        line.split("|")[1].strip(): line
        for line in section.splitlines()
        if line.startswith("| ") and not line.startswith("| method")
    }


def test_the_table_has_every_method_of_every_game(quick):
    mod, root = quick
    text = (root / "results" / "time_to_strength_quick.md").read_text()
    c4, go = table_rows(text, "connect_four"), table_rows(text, "go_9x9")
    assert set(c4) == set(mod.METHODS) - set(mod.AUX_METHODS)
    assert set(go) == set(mod.METHODS)
    for row in list(c4.values()) + list(go.values()):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[1] == "1" and len(cells) == 2 + len(mod.LEVELS) + 3  # + final score, Elo, load
    for game in ("connect_four", "go_9x9"):
        assert (root / "results" / f"time_to_strength_quick_{game}.png").stat().st_size > 0
        assert any((root / "runs" / game / "tb_summary").iterdir())


def test_runs_record_the_load_and_train_the_method_asked_for(quick):
    _, root = quick
    rec = json.loads((root / "runs" / "go_9x9" / "gumbel+pcr+aux-s0" / "state.json").read_text())
    assert rec["done"] and len(rec["evals"]) == 2 and all(len(ev["load"]) == 3 for ev in rec["evals"])
    assert rec["sittings"][0]["cpus"] == os.cpu_count()
    config = json.loads((root / "runs" / "go_9x9" / "gumbel+pcr+aux-s0" / "config.json").read_text())
    assert config["search"] == "gumbel" and config["ownership_weight"] > 0 and config["cheap_simulations"] > 0
    assert config["init_from"] == "pretrained:go_5x5" and config["game_kwargs"] == {"board_size": 9}
    puct = json.loads((root / "runs" / "connect_four" / "puct-s0" / "config.json").read_text())
    assert puct["search"] == "puct" and puct["cheap_simulations"] == 0


def test_time_to_a_level_is_the_first_point_reaching_it(quick):
    mod, _ = quick
    points = [(0.0, 0.2), (30.0, 0.85), (60.0, 0.5), (90.0, 1.0)]
    assert [mod.time_to(points, lv) for lv in mod.LEVELS] == [30.0, 30.0, 90.0]
    assert mod.time_to(points[:3], 0.95) is None


def test_parallel_runs_train_in_child_processes_and_resume(tmp_path):
    mod = load_script()
    args = quick_args(tmp_path, "--games", "connect_four", "--methods", "puct", "gumbel", "--parallel", "2")
    assert mod.main(args) == 0
    states = {
        m: json.loads((tmp_path / "runs" / "connect_four" / f"{m}-s0" / "state.json").read_text())
        for m in ("puct", "gumbel")
    }
    assert all(rec["done"] and len(rec["evals"]) == 2 for rec in states.values())
    pids = {rec["sittings"][0]["pid"] for rec in states.values()}
    assert len(pids) == 2 and os.getpid() not in pids
    rows = table_rows((tmp_path / "results" / "time_to_strength_quick.md").read_text(), "connect_four")
    assert set(rows) == {"puct", "gumbel"}
    assert mod.main(args) == 0  # finished runs are skipped: the records are unchanged
    assert all(
        json.loads((tmp_path / "runs" / "connect_four" / f"{m}-s0" / "state.json").read_text()) == rec
        for m, rec in states.items()
    )


def test_a_sitting_rewrites_its_games_sections_and_keeps_the_others(tmp_path):
    mod = load_script()
    results = tmp_path / "results"
    results.mkdir()
    report = results / "time_to_strength_quick.md"
    report.write_text(
        "# Time to strength\n\nold intro\n\n## connect_four\n\nstale table\n\n"
        "## go_9x9\n\nGo table kept\n\n## Reading the runs\n\nnotes kept\n"
    )
    args = quick_args(tmp_path, "--games", "connect_four", "--methods", "puct")
    assert mod.main(args) == 0
    text = report.read_text()
    assert "stale table" not in text and "old intro" not in text
    assert [line for line in text.splitlines() if line.startswith("## ")] == [
        "## connect_four",
        "## go_9x9",
        "## Reading the runs",
    ]
    c4 = text.split("## connect_four\n", 1)[1].split("\n## ", 1)[0]
    assert "--games connect_four" in c4 and "| puct |" in c4
    assert "Go table kept" in text and "notes kept" in text
