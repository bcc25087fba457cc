"""docs/agents/: the agent pages say what the code does.

- Every ```python block of docs/agents/*.md runs, each in a fresh namespace, in a temporary folder,
  under a CPU-time limit (and a looser wall-clock limit against hangs). A block whose first line is
  `# doc: skip` is not run (for long runs); `# doc: needs gnugo` runs only where GNU Go is installed.
- Every relative link of the pages points to a file that exists.
- Every class named in a table of the pages exists in zerogym / zerogym_agents, and the tables
  introduced by a `<!-- doc-table: ... -->` comment match the code: config fields and their defaults
  (dataclasses.fields), constructor / function arguments and their defaults (inspect.signature),
  and agent spec strings (agent_from_spec).

The checkers are plain functions returning lists of problems; test_checkers_catch_errors feeds them
broken pages, so none of the checks can pass vacuously.
"""

import ast
import builtins
import dataclasses
import importlib
import inspect
import os
import pkgutil
import re
import signal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "agents"
AGENT_PAGES = ("random.md", "greedy.md", "minimax.md", "uct.md", "alphazero.md", "policy_gradient.md", "gnugo.md")
EXPECTED_PAGES = ("README.md", *AGENT_PAGES, "transfer.md")
# every page of docs/agents (a new page is checked too), and the expected ones even if missing
PAGES = tuple(sorted({p.name for p in DOCS.glob("*.md")} | set(EXPECTED_PAGES)))
# headings every page must have (the brief of each page), besides its title
REQUIRED_HEADINGS = {
    **{
        p: (
            "Where it comes from",
            "How it chooses a move",
            "Python API",
            "Arena and command line",
            "Saving and loading",
            "Strength",
        )
        for p in AGENT_PAGES
    },
    "alphazero.md": (
        "Where it comes from",
        "How it chooses a move",
        "Python API",
        "Arena and command line",
        "Training",
        "Saving and loading",
        "Strength",
    ),
    "policy_gradient.md": (
        "Where it comes from",
        "How it chooses a move",
        "Python API",
        "Arena and command line",
        "Training",
        "The opponent pool",
        "Saving and loading",
        "Strength",
    ),
    "README.md": ("The agent interface", "Agent specs", "Saving and loading", "Strength at a glance", "Papers"),
    "transfer.md": (
        "Where it comes from",
        "Zero-shot play on another board size",
        "Network growth",
        "The ZetaGo composite",
        "The transfer experiment",
        "Saving and loading",
        "Strength",
    ),
}
CPU_LIMIT = float(os.environ.get("ZEROGYM_DOC_CPU_SECONDS", "60"))  # per block, all threads together
WALL_LIMIT = float(os.environ.get("ZEROGYM_DOC_WALL_SECONDS", "600"))  # per block: hangs (GNU Go), a loaded machine
SKIP, NEEDS_GNUGO = "# doc: skip", "# doc: needs gnugo"
PY_CONSTANTS = {"True", "False", "None"}


# ---- reading the pages ----------------------------------------------------------------------------
def python_blocks(text):
    """[(line number of the code's first line, code)] of the ```python blocks of a markdown text."""
    blocks, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            start, body = i + 2, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise ValueError(f"line {start - 1}: a ```python block is never closed")
            blocks.append((start, "\n".join(body) + "\n"))
        i += 1
    return blocks


def without_code(text):
    """The text with fenced code blocks blanked (line numbers kept): links and tables live outside them."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.strip().startswith("```"):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else line)
    return "\n".join(out)


LINK = re.compile(r"!?\[[^\]]*\]\(\s*([^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")


def link_problems(text, page_dir, root=ROOT):
    """Relative links of a page that point nowhere (or outside the repository)."""
    problems = []
    for n, line in enumerate(without_code(text).split("\n"), 1):
        for target in LINK.findall(line):
            if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # http(s), mailto, in-page anchors
            path = target.split("#", 1)[0]
            full = (Path(page_dir) / path).resolve()
            try:
                rel = full.relative_to(Path(root).resolve()).as_posix()
            except ValueError:
                problems.append(f"line {n}: {target} leaves the repository")
                continue
            if not full.exists():
                problems.append(f"line {n}: {target} does not exist ({rel})")
    return problems


def split_row(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def tables(text):
    """[(line number, marker or None, header cells, [(line number, cells)])] of the markdown tables;
    marker: the words of a `<!-- doc-table: ... -->` comment just above the table (blank lines allowed)."""
    lines = without_code(text).split("\n")
    found, i = [], 0
    while i < len(lines):
        if (
            lines[i].lstrip().startswith("|")
            and i + 1 < len(lines)
            and re.fullmatch(r"\s*\|[\s:|-]+\|\s*", lines[i + 1])
        ):
            marker, j = None, i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            m = re.fullmatch(r"\s*<!--\s*doc-table:\s*(.*?)\s*-->\s*", lines[j]) if j >= 0 else None
            if m:
                marker = m.group(1).split()
            header, rows, k = split_row(lines[i]), [], i + 2
            while k < len(lines) and lines[k].lstrip().startswith("|"):
                rows.append((k + 1, split_row(lines[k])))
                k += 1
            found.append((i + 1, marker, header, rows))
            i = k
        else:
            i += 1
    return found


def markers_without_table(text):
    """Line numbers of doc-table comments that no table follows (a marker must not check nothing)."""
    lines = without_code(text).split("\n")
    used = set()
    for start, marker, _, _ in tables(text):
        if marker:
            j = start - 2
            while not lines[j].strip():
                j -= 1
            used.add(j + 1)
    return [n for n, line in enumerate(lines, 1) if "doc-table:" in line and n not in used]


def code_spans(cell):
    return re.findall(r"`([^`]+)`", cell)


def resolve_dotted(path):
    """The object a dotted path names, or None: each part is an attribute of the object before it
    (so a package's exported function wins over a submodule of the same name), else a submodule."""
    parts = path.split(".")
    try:
        obj = importlib.import_module(parts[0])
    except ImportError:
        return None
    for i, name in enumerate(parts[1:], 1):
        try:
            obj = getattr(obj, name)
        except AttributeError:
            try:
                obj = importlib.import_module(".".join(parts[: i + 1]))
            except ImportError:
                return None
    return obj


_CLASSES = None


def known_classes():
    """Names of the classes defined or exported by the modules of zerogym and zerogym_agents."""
    global _CLASSES
    if _CLASSES is None:
        names = {k for k, v in vars(builtins).items() if inspect.isclass(v)}  # ValueError, ...
        for pkg_name in ("zerogym", "zerogym_agents"):
            pkg = importlib.import_module(pkg_name)
            mods = [pkg_name] + [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg_name + ".")]
            for mod_name in mods:
                try:
                    mod = importlib.import_module(mod_name)
                except Exception:  # optional extras (display, bench): their classes cannot be named
                    continue
                names.update(k for k, v in vars(mod).items() if inspect.isclass(v))
            names.update(getattr(pkg, "__all__", ()))
        _CLASSES = names
    return _CLASSES


def class_problems(text, known=None):
    """Class names (CamelCase or dotted zerogym paths in backticks) in table cells that the code lacks."""
    known = known_classes() if known is None else known
    problems = []
    for _, _, header, rows in tables(text):
        for n, cells in [(0, header)] + rows:
            for span in (s for c in cells for s in code_spans(c)):
                name = re.sub(r"\(.*\)$", "", span.strip())
                if re.fullmatch(r"zerogym(_agents)?(\.\w+)+", name):
                    if resolve_dotted(name) is None:
                        problems.append(f"line {n}: {name} does not exist")
                elif (
                    re.fullmatch(r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*", name)
                    and name not in PY_CONSTANTS
                    and name not in known
                ):
                    problems.append(f"line {n}: class {name} is not in zerogym or zerogym_agents")
    return problems


def literal(cell):
    """(True, value) for a cell holding one backticked Python literal; (False, None) for '(required)'."""
    if cell.strip() == "(required)":
        return False, None
    spans = code_spans(cell)
    if len(spans) != 1:
        raise ValueError(f"a default cell needs one `literal` or (required), got {cell!r}")
    return True, ast.literal_eval(spans[0])


def _same(a, b):
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return list(a) == list(b)
    return type(a) is type(b) and a == b or (isinstance(a, float) and isinstance(b, float) and a == b)


def documented_defaults(kind, target):
    """{name: (has default, default)} from the code: dataclass fields or call arguments."""
    obj = resolve_dotted(target)
    if obj is None:
        raise ValueError(f"{target} does not exist")
    out = {}
    if kind == "fields":
        for f in dataclasses.fields(obj):
            if f.default is not dataclasses.MISSING:
                out[f.name] = (True, f.default)
            elif f.default_factory is not dataclasses.MISSING:
                out[f.name] = (True, f.default_factory())
            else:
                out[f.name] = (False, None)
    elif kind == "signature":
        for p in inspect.signature(obj).parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            out[p.name] = (p.default is not p.empty, None if p.default is p.empty else p.default)
    else:
        raise ValueError(f"unknown doc-table kind {kind!r}")
    return out


def spec_problems(rows):
    """Rows `| `spec` | `Class` | ...` whose spec does not build an agent of that class."""
    from zerogym_agents.agents.specs import agent_from_spec

    problems = []
    for n, cells in rows:
        spec, cls = code_spans(cells[0]), code_spans(cells[1])
        if len(spec) != 1 or len(cls) != 1:
            problems.append(f"line {n}: a spec row needs `spec` | `Class`, got {cells[:2]}")
            continue
        if spec[0].startswith("gnugo"):
            from zerogym_agents.agents.gnugo import GnuGoNotFoundError, find_gnugo

            try:
                find_gnugo()
            except GnuGoNotFoundError:
                continue  # the class is still checked by class_problems
        try:
            agent = agent_from_spec(spec[0])
        except Exception as err:
            problems.append(f"line {n}: agent_from_spec({spec[0]!r}) fails: {err}")
            continue
        if type(agent).__name__ != cls[0]:
            problems.append(f"line {n}: {spec[0]} gives a {type(agent).__name__}, not {cls[0]}")
        if hasattr(agent, "close"):
            agent.close()
    return problems


def table_problems(text):
    """Rows of doc-table tables that disagree with the code, and markers that check nothing."""
    problems = [f"line {n}: a doc-table comment with no table under it" for n in markers_without_table(text)]
    for start, marker, _header, rows in tables(text):
        if not marker:
            continue
        kind = marker[0]
        if kind == "specs":
            problems += spec_problems(rows)
            continue
        if kind not in ("fields", "signature") or len(marker) < 2:
            problems.append(f"line {start}: unknown doc-table marker {' '.join(marker)!r}")
            continue
        try:
            code = documented_defaults(kind, marker[1])
        except ValueError as err:
            problems.append(f"line {start}: {err}")
            continue
        seen = set()
        for n, cells in rows:
            names = code_spans(cells[0])
            if len(names) != 1 or len(cells) < 2:
                problems.append(f"line {n}: the first cell must be one `name`, the second its default")
                continue
            name = names[0]
            seen.add(name)
            if name not in code:
                problems.append(
                    f"line {n}: {marker[1]} has no {kind[:-1] if kind == 'fields' else 'argument'} {name!r}"
                )
                continue
            try:
                has, value = literal(cells[1])
            except (ValueError, SyntaxError) as err:
                problems.append(f"line {n}: {err}")
                continue
            code_has, code_value = code[name]
            if has != code_has or (has and not _same(value, code_value)):
                want = repr(code_value) if code_has else "(required)"
                problems.append(f"line {n}: {marker[1]}.{name} defaults to {want}, the table says {cells[1]}")
        if "complete" in marker[2:]:
            missing = sorted(set(code) - seen)
            if missing:
                problems.append(f"line {start}: the table of {marker[1]} leaves out {', '.join(missing)}")
    return problems


def heading_problems(text, required):
    have = {m.strip() for m in re.findall(r"^##\s+(.+)$", without_code(text), flags=re.M)}
    return [f"no '## {h}' section" for h in required if h not in have]


# ---- running the examples --------------------------------------------------------------------------
class BlockTimeout(Exception):
    pass


def run_block(code, name, cpu_limit=CPU_LIMIT, wall_limit=WALL_LIMIT):
    """exec `code` in a fresh namespace; BlockTimeout past cpu_limit CPU seconds (all threads of this
    process) or wall_limit seconds."""

    def stop(signum, frame):
        raise BlockTimeout(
            f"{name}: over {cpu_limit:g} CPU s"
            if signum == signal.SIGPROF
            else f"{name}: over {wall_limit:g} s of wall clock"
        )

    old = signal.signal(signal.SIGPROF, stop), signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_PROF, cpu_limit)
    signal.setitimer(signal.ITIMER_REAL, wall_limit)
    try:
        exec(compile(code, name, "exec"), {"__name__": "__doc_example__"})
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, old[0])
        signal.signal(signal.SIGALRM, old[1])


def all_blocks():
    out = []
    for page in PAGES:
        path = DOCS / page
        if path.exists():
            for line, code in python_blocks(path.read_text()):
                out.append(pytest.param(page, line, code, id=f"{page}:{line}"))
    return out


# ---- the tests -------------------------------------------------------------------------------------
def test_pages_exist_and_index_links_them():
    missing = [p for p in EXPECTED_PAGES if not (DOCS / p).is_file()]
    assert not missing, f"docs/agents lacks {missing}"
    index = (DOCS / "README.md").read_text()
    unlinked = [p for p in PAGES if p != "README.md" and f"]({p})" not in index]
    assert not unlinked, f"docs/agents/README.md does not link {unlinked}"
    assert len(all_blocks()) >= 20, "the pages should hold runnable examples"


@pytest.mark.parametrize("page", EXPECTED_PAGES)
def test_sections(page):
    assert heading_problems((DOCS / page).read_text(), REQUIRED_HEADINGS[page]) == []


@pytest.mark.parametrize("page,line,code", all_blocks())
def test_python_block_runs(page, line, code, tmp_path, monkeypatch):
    first = code.lstrip().split("\n", 1)[0].strip()
    if first == SKIP:
        pytest.skip("marked `# doc: skip` (a long run)")
    if first == NEEDS_GNUGO:
        from zerogym_agents.agents.gnugo import GnuGoNotFoundError, find_gnugo

        try:
            find_gnugo()
        except GnuGoNotFoundError:
            pytest.skip("GNU Go is not installed")
    monkeypatch.chdir(tmp_path)  # examples write their files here, not into the checkout
    run_block(code, f"docs/agents/{page}:{line}")


def test_skipped_blocks_are_few():
    skipped = [p for p in all_blocks() if p.values[2].lstrip().startswith(SKIP)]
    assert len(skipped) <= 3, f"too many examples are not run: {[p.id for p in skipped]}"


@pytest.mark.parametrize("page", PAGES)
def test_links(page):
    assert link_problems((DOCS / page).read_text(), DOCS) == []


@pytest.mark.parametrize("page", PAGES)
def test_tables_match_code(page):
    assert table_problems((DOCS / page).read_text()) == []


@pytest.mark.parametrize("page", PAGES)
def test_classes_in_tables_exist(page):
    assert class_problems((DOCS / page).read_text()) == []


BROKEN_PAGE = """# A broken page

See [the speed table](../../benchmarks/results/env_speed.md), [nothing](../../benchmarks/results/none.md),
[a site](https://example.org) and [outside](../../../elsewhere.md).

<!-- doc-table: fields zerogym_agents.alphazero.config.AlphaZeroConfig complete -->

| field | default |
|---|---|
| `simulations` | `100` |
| `lr` | `0.5` |
| `no_such_field` | `1` |

<!-- doc-table: signature zerogym_agents.agents.search.UCTAgent -->
| argument | default |
|---|---|
| `simulations` | (required) |
| `c` | `1.4` |

<!-- doc-table: specs -->
| spec | class |
|---|---|
| `uct:5` | `UCTAgent` |
| `greedy` | `RandomAgent` |

| class | note |
|---|---|
| `GreedyAgent` | exists |
| `FancyAgent` | does not |
| `zerogym_agents.agents.saved.load_agent` | exists |
| `zerogym_agents.agents.saved.no_such_thing` | does not |

<!-- doc-table: fields zerogym_agents.pg.config.PGConfig -->

```python
raise ZeroDivisionError("this example fails")
```

## Python API
"""


def test_checkers_catch_errors(tmp_path):
    page_dir = DOCS
    links = link_problems(BROKEN_PAGE, page_dir)
    assert len(links) == 2 and "none.md" in links[0] and "leaves the repository" in links[1]
    assert link_problems("[x](../../benchmarks/results/transfer_go.md)", page_dir) == []

    problems = "\n".join(table_problems(BROKEN_PAGE))
    assert "AlphaZeroConfig.lr defaults to 0.02" in problems
    assert "no field 'no_such_field'" in problems
    assert "leaves out" in problems and "c_puct" in problems
    assert "simulations defaults to 1000" in problems
    assert "greedy gives a GreedyAgent, not RandomAgent" in problems
    assert "doc-table comment with no table" in problems
    assert "AlphaZeroConfig.simulations" not in problems and "uct:5" not in problems

    assert callable(resolve_dotted("zerogym_agents.transfer.grow"))  # the function, not the module
    assert resolve_dotted("zerogym_agents.no_such_module.x") is None

    classes = "\n".join(class_problems(BROKEN_PAGE))
    assert "FancyAgent" in classes and "no_such_thing" in classes
    assert "GreedyAgent" not in classes and "saved.load_agent does" not in classes

    assert heading_problems(BROKEN_PAGE, ("Python API", "Strength")) == ["no '## Strength' section"]

    ((line, code),) = python_blocks(BROKEN_PAGE)
    assert BROKEN_PAGE.split("\n")[line - 1].startswith("raise")
    with pytest.raises(ZeroDivisionError):
        run_block(code, "broken")
    with pytest.raises(BlockTimeout):
        run_block("while True:\n    pass\n", "spin", cpu_limit=0.5)
    with pytest.raises(BlockTimeout):
        run_block("import time\ntime.sleep(5)\n", "sleep", wall_limit=0.5)
