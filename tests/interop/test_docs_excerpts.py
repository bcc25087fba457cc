"""The code excerpts of docs/interop/ are lines of the examples they quote, so they cannot drift."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs" / "interop").glob("*.md"))


def excerpts(text):
    return re.findall(r"```text\n(.*?)```", text, re.S)


@pytest.mark.parametrize("page", [p for p in PAGES if p.name != "README.md"], ids=lambda p: p.name)
def test_excerpt_lines_are_in_the_example(page):
    text = page.read_text()
    (example,) = set(re.findall(r"\(\.\./\.\./(examples/\w+\.py)\)", text))
    source = {line.strip() for line in (ROOT / example).read_text().splitlines()}
    (code,) = excerpts(text)
    missing = [line for line in code.splitlines() if line.strip() not in source and line.strip() not in ("", "...")]
    assert missing == [], f"{page.name}: lines not in {example}"


def test_every_library_has_a_page_and_a_test():
    assert {p.stem for p in PAGES} >= {"README", "sb3", "tianshou", "torchrl", "rllib"}
    for name in ("sb3", "tianshou", "torchrl", "rllib"):
        assert (ROOT / "tests" / "interop" / f"test_{name}.py").is_file()
