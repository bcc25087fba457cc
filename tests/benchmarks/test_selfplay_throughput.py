"""benchmarks/selfplay_throughput.py: one row per device, G, cache size and precision; the cache answers repeats."""

import re

import pytest
import torch

from benchmark_scripts import load_script


def script_in(tmp_path, monkeypatch):
    """The script, writing under tmp_path."""
    script = load_script("selfplay_throughput")
    monkeypatch.setattr(script, "HERE", str(tmp_path))
    return script


def run(tmp_path, monkeypatch, options, label=None):
    """The evaluator mode on tic-tac-toe with `options` (and --label `label`), writing under tmp_path; the text of
    its results/selfplay_throughput[_<label>].md."""
    labelled, name = (["--label", label], f"selfplay_throughput_{label}") if label else ([], "selfplay_throughput")
    script_in(tmp_path, monkeypatch).main(["evaluator", "--game", "tictactoe", *options.split(), *labelled])
    return (tmp_path / "results" / f"{name}.md").read_text()


def test_rows_for_each_cache_size(tmp_path, monkeypatch):
    text = run(tmp_path, monkeypatch, "--simulations 16 --seconds 0.3 --games 4 --cache 0 1000", label="t")
    rows = re.findall(r"^\| cpu \| 4 \| (\w+) \| auto \| [\d.]+ \| \d+ \| ([\d.]+)% \|", text, re.M)
    assert rows[0] == ("off", "0.0")
    assert rows[1][0] == "1000" and float(rows[1][1]) > 0  # tic-tac-toe trees are full of transpositions


def test_a_saved_agents_net(tmp_path, monkeypatch):
    text = run(tmp_path, monkeypatch, "--net pretrained:tictactoe --seconds 0.2 --games 2 --cache 64")
    assert "the net of `pretrained:tictactoe`" in text


def test_rows_for_each_precision(tmp_path, monkeypatch):
    text = run(tmp_path, monkeypatch, "--seconds 0.2 --games 2 --cache 0 --precision float32 bfloat16", label="p")
    assert re.findall(r"^\| cpu \| 2 \| off \| (\w+) \|", text, re.M) == ["float32", "bfloat16"]
    assert "native bf16" in text
    for row in re.findall(r"^\| cpu \| 2 \|.*$", text, re.M):  # the time per batch and per move
        evaluator_ms, search_ms, move_ms = map(float, row.strip("| ").split(" | ")[-3:])
        assert evaluator_ms > 0 and search_ms > 0 and move_ms >= 0


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA GPU")
def test_a_missing_gpu_is_refused_before_measuring(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="'cuda' asked for"):
        run(tmp_path, monkeypatch, "--seconds 0.2 --games 2 --cache 0 --device cpu cuda")
    assert not (tmp_path / "results").exists()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_rows_for_each_device(tmp_path, monkeypatch):
    text = run(tmp_path, monkeypatch, "--seconds 0.2 --games 2 --cache 0 --device cpu cuda", label="d")
    assert re.findall(r"^\| (\w+) \| 2 \| off \|", text, re.M) == ["cpu", "cuda"]
    assert ", GPU " in text


def test_the_search_against_its_threads(tmp_path, monkeypatch):
    script = script_in(tmp_path, monkeypatch)
    script.main("threads --game connect_four --games 8 --threads 1 2 --seconds 0.3 --simulations 8 --label t".split())
    text = (tmp_path / "results" / "search_threads_t.md").read_text()
    rows = re.findall(r"^\| Connect Four \| 8 \| (\d) \| (\d+) \| ([\d.]+)x \|", text, re.M)
    assert [r[0] for r in rows] == ["1", "2"] and float(rows[0][2]) == 1.0 and int(rows[1][1]) > 0
    assert (tmp_path / "results" / "search_threads_t.png").stat().st_size > 0


def test_versus_pgx_has_a_row_per_game_and_size_and_a_column_per_setting(tmp_path, monkeypatch):
    script = script_in(tmp_path, monkeypatch)
    anchors = iter([10.0, 30.0, 20.0, 40.0, 80.0, 60.0])  # the anchor, stubbed: three rounds for each G
    monkeypatch.setattr(script, "pgx_rate", lambda game, G, sims, seconds, dtype: next(anchors))
    options = "--game connect_four --games 2 4 --seconds 0.3 --simulations 4 --pipeline 1 2 --repeats 3"
    script.main(["versus", *options.split()])
    text = (tmp_path / "results" / "selfplay_versus_pgx.md").read_text()
    columns = ["one thread", "all cores", "all cores, pipeline 2", "all cores, evaluation cache"]
    assert " | ".join(f"zerogym, {c}" for c in columns) in text and "median of 3 rounds" in text
    assert "CUDA graphs" not in text  # that column is for a GPU run
    mine = r" \| ".join([r"([\d.]+)"] * 4)
    row = rf"^\| Connect Four \| (\d) \| ([\d.]+) \| {mine} \| (\d+)% \| ([\d.]+)x \| ([\d.]+)x \|"
    rows = re.findall(row, text, re.M)
    assert [(r[0], r[1]) for r in rows] == [("2", "20.0"), ("4", "60.0")]  # the anchor's medians
    for _, anchor, *mine, hits, plain, cached in rows:
        assert abs(float(plain) - max(map(float, mine[:-1])) / float(anchor)) < 0.01
        assert abs(float(cached) - float(mine[-1]) / float(anchor)) < 0.01
        assert int(hits) > 0  # 4 simulations from the same first position in every game: repeats
    assert (tmp_path / "results" / "selfplay_versus_pgx.png").stat().st_size > 0


@pytest.mark.parametrize("precision, pgx", [("bfloat16", "bfloat16"), ("float32", "float32"), ("auto", "float32")])
def test_versus_runs_both_nets_at_the_precision_asked(tmp_path, monkeypatch, precision, pgx):
    script = script_in(tmp_path, monkeypatch)
    anchors, mine = [], []
    monkeypatch.setattr(script, "pgx_rate", lambda game, G, sims, seconds, dtype: anchors.append(dtype) or 10.0)
    monkeypatch.setattr(
        script, "measure", lambda *a, **kw: mine.append(kw["precision"]) or {"moves_per_s": 5.0, "hit_share": 0.0}
    )
    script.main(f"versus --game go --games 2 --seconds 0.1 --precision {precision}".split())
    assert anchors == [pgx] and mine == [precision] * 3  # one thread, all cores, with the cache
    text = (tmp_path / "results" / "selfplay_versus_pgx.md").read_text()
    assert ("Both nets compute in bfloat16" in text) == (precision == "bfloat16")
    assert ("Pgx + mctx runs on JAX's default device, in float32" in text) == (precision == "auto")


@pytest.mark.parametrize(
    "body, want",
    [("print(123.5)", 123.5), ("import sys; sys.exit(3)", None), ("raise SystemExit('broken')", RuntimeError)],
)
def test_the_anchor_runs_in_a_child_process(tmp_path, monkeypatch, body, want):
    script = script_in(tmp_path, monkeypatch)
    (tmp_path / "pgx_selfplay.py").write_text(body + "\n")
    if want is RuntimeError:
        with pytest.raises(RuntimeError, match="Pgx \\+ mctx failed \\(go, G=8\\)"):
            script.pgx_rate("go", 8, 4, 0.1)
    else:
        assert script.pgx_rate("go", 8, 4, 0.1) == want
