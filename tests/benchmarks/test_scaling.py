"""benchmarks/scaling.py's PPO part: the section it writes into scaling.md, replaced in place or appended."""

from benchmark_scripts import load_script as load_benchmark


def load_script():
    return load_benchmark("scaling")


def test_the_ppo_section_is_replaced_in_place_or_appended(tmp_path):
    scaling = load_script()
    path = tmp_path / "scaling.md"
    path.write_text("# Scaling\n\n## Throughput\n\nold numbers\n")
    scaling.replace_ppo_section(str(path), [scaling.PPO_HEADING, "", "first", ""])
    assert path.read_text() == f"# Scaling\n\n## Throughput\n\nold numbers\n\n{scaling.PPO_HEADING}\n\nfirst\n"
    path.write_text(path.read_text() + "\n## Later\n\nkept\n")
    scaling.replace_ppo_section(str(path), [scaling.PPO_HEADING, "", "second", ""])
    text = path.read_text()
    assert "first" not in text and "second" in text and text.count(scaling.PPO_HEADING) == 1
    assert text.endswith("## Later\n\nkept\n") and text.startswith("# Scaling\n\n## Throughput\n\nold numbers\n")


def test_the_ppo_lines_report_medians_and_the_ratio():
    scaling = load_script()
    results = {
        1: [(700.0, 3000.0, 4096), (500.0, 3400.0, 4096), (600.0, 3200.0, 4096)],
        2: [(450.0, 2600.0, 4096), (480.0, 2400.0, 4096), (300.0, 2500.0, 4096)],
    }
    text = "\n".join(scaling.ppo_lines(results, 3, 2, (1.0,) * 6))
    assert "| 1 | 600 | 3200 | 700, 500, 600 |" in text and "| 2 | 450 | 2500 |" in text
    assert "2 workers: 0.75x" in text and "0.78x while collecting" in text
