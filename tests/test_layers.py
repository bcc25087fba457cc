"""The packages' layers: zerogym (the environments) imports nothing from zerogym_agents; no module and no
package of either takes part in an import cycle; and every import in zerogym_agents points to its own layer
or one below (LAYERS, drawn in docs/architecture.md). Imports inside functions count, and in zerogym_agents so
do imports by a string (importlib.import_module("zerogym_agents.x"), a "module:name" entry of a table): any
string literal there that names a module of the packages is an import of it. zerogym has one table of
modules by name, the registry's games (zerogym.make("go") imports zerogym.go_v0 when first asked): the
registry is the top of zerogym, reached from below only where a person names a game (render.replay("go"),
coords.column_labels("go")); a state or an env finds its pictures and coordinates without it
(tests/zerogym/test_binding.py)."""

import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("zerogym", "zerogym_agents")


def modules():
    """{dotted module name: path} of every .py and .pyx module of both packages."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*")):
            if path.suffix not in (".py", ".pyx") or "__pycache__" in path.parts:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def python_imports(path):
    """The import statements of a module (for .pyx, its Python-level `import` / `from` lines)."""
    text = path.read_text()
    if path.suffix == ".pyx":
        text = "\n".join(
            line.strip()
            for line in text.splitlines()
            if line.strip().startswith(("import ", "from ")) and " cimport " not in line
        )
    return [node for node in ast.walk(ast.parse(text)) if isinstance(node, (ast.Import, ast.ImportFrom))]


def string_imports(path, mods):
    """The modules of the packages that a .py module names in a string literal (outside docstrings): a
    module name, or the module of a "module:name" or "module.name" reference."""
    if path.suffix != ".py":
        return set()
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            name = node.value.split(":")[0]
            if "." not in name:  # a bare "zerogym_agents" is a package's name, not an import
                continue
            while name and name not in mods:
                name = name.rpartition(".")[0] if name.count(".") > 1 else ""
            if name in mods:
                found.add(name)
    return found


def import_graph():
    """{module: set of modules of the packages it imports}. `from a.b import c` points at a.b.c when
    that is a module, else at a.b (its __init__)."""
    mods = modules()

    def owner(name):
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for name, path in mods.items():
        package = name if path.stem == "__init__" else name.rpartition(".")[0]
        targets = set()
        for node in python_imports(path):
            if isinstance(node, ast.Import):
                targets |= {owner(a.name) for a in node.names}
                continue
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            targets |= {f"{base}.{a.name}" if f"{base}.{a.name}" in mods else owner(base) for a in node.names}
        if name.split(".")[0] == "zerogym_agents":
            targets |= string_imports(path, mods)
        graph[name] = {t for t in targets if t and t != name}
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


# zerogym_agents' layers, top to bottom; a package (or the root __init__, "") imports only its own layer and
# those below it, and packages of one layer do not import each other in a loop
LAYERS = (
    ("",),  # the public names, imported lazily
    ("cli", "notebook"),  # every command; the notebook widget
    ("experiment", "scale"),  # experiments over runs; Ray scale-out
    ("alphazero", "pg", "transfer"),  # the training algorithms
    ("training", "arena", "interop"),  # the run loop and pool; matches and Elo; RL libraries
    ("agents",),  # every act(env) agent; saving, loading, naming them
    ("mcts", "nets", "solvers"),  # compiled searches, networks, exact solvers
    ("core",),  # settings, checks, checkpoint files, devices, constants
)
LAYER_OF = {package: depth for depth, packages in enumerate(LAYERS) for package in packages}


def package_of(module):
    """ "mcts" for zerogym_agents.mcts._puct, "" for zerogym_agents itself; None outside zerogym_agents."""
    parts = module.split(".")
    if parts[0] != "zerogym_agents":
        return None
    return parts[1] if len(parts) > 1 else ""


def package_graph(graph):
    """{package: set of other packages of zerogym_agents it imports}."""
    packages = {}
    for module, targets in graph.items():
        source = package_of(module)
        if source is None:
            continue
        packages.setdefault(source, set()).update(p for p in map(package_of, targets) if p is not None and p != source)
    return packages


def upward_imports(graph):
    """[(module, imported module)] for each import from a lower layer to a higher one."""
    return sorted(
        (m, t)
        for m, targets in graph.items()
        for t in targets
        if package_of(m) is not None and package_of(t) is not None and LAYER_OF[package_of(t)] < LAYER_OF[package_of(m)]
    )


def test_the_graph_sees_imports_inside_functions_and_relative_ones():
    graph = import_graph()
    assert "zerogym_agents.agents.specs" in graph["zerogym_agents.cli.arena"]  # a top-level import
    # an import inside a function
    assert "zerogym_agents.agents.saved" in graph["zerogym_agents.agents.specs"]
    assert graph["zerogym.registry"] and len(graph) > 60
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_environments_import_nothing_from_the_agents():
    up = sorted(
        (m, t)
        for m, targets in import_graph().items()
        if m.split(".")[0] == "zerogym"
        for t in targets
        if t.split(".")[0] == "zerogym_agents"
    )
    assert up == []


def test_no_module_takes_part_in_an_import_cycle():
    assert cycles(import_graph()) == []


def test_the_graph_sees_imports_by_string():
    graph = import_graph()
    # zerogym_agents/__init__.py imports its public names on first use, from a table of module names
    assert "zerogym_agents.agents.saved" in graph["zerogym_agents"]
    assert "zerogym_agents.alphazero.trainer" in graph["zerogym_agents.experiment.algorithms"]


def test_every_package_has_a_layer_and_no_package_takes_part_in_an_import_cycle():
    packages = package_graph(import_graph())
    assert sorted(set(packages) - set(LAYER_OF)) == []  # a new package is placed in LAYERS
    assert cycles(packages) == []


def test_imports_point_to_the_same_layer_or_below():
    assert upward_imports(import_graph()) == []


def test_the_layer_checks_fail_on_a_loop_or_an_upward_import():
    graph = {
        "zerogym_agents.nets.model": {"zerogym_agents.agents.saved"},  # up: nets is below agents
        "zerogym_agents.agents.saved": {"zerogym_agents.nets.model"},
        "zerogym_agents.alphazero.x": {"zerogym_agents.pg.y"},
        "zerogym_agents.pg.y": {"zerogym_agents.alphazero.z"},
        "zerogym_agents.alphazero.z": set(),
    }
    assert upward_imports(graph) == [("zerogym_agents.nets.model", "zerogym_agents.agents.saved")]
    assert cycles(package_graph(graph)) == [["agents", "nets"], ["alphazero", "pg"]]


def test_the_layers_drawn_in_the_architecture_page_are_these():
    page = (ROOT / "docs" / "architecture.md").read_text()
    drawing = page.split("<!-- the layers of zerogym_agents, top to bottom: tests/test_layers.py LAYERS -->\n```text\n")
    assert len(drawing) == 2
    rows = [line.split("  ")[0].strip() for line in drawing[1].split("```")[0].splitlines()]
    drawn = [tuple(sorted(w.strip("/,") for w in row.split() if w.strip("/,"))) for row in rows]
    assert drawn == [tuple(sorted(p or "zerogym_agents" for p in layer)) for layer in LAYERS]


BLOCKED = """
import importlib, pkgutil, sys
sys.modules["torch"] = None                 # importing either now fails, as where they are not installed
sys.modules["zerogym_agents"] = None
import zerogym
names = [m.name for m in pkgutil.walk_packages(zerogym.__path__, "zerogym.")]
for name in names:
    importlib.import_module(name)
from zerogym.play import play
from zerogym import render
env = zerogym.make("go", board_size=5, render_mode="ansi")
env.reset(seed=0)
for agent in env.agent_iter():
    obs, reward, term, trunc, info = env.last()
    env.step(None if term or trunc else int(env.np_random.choice(obs["action_mask"].nonzero()[0])))
print(len(names), "modules;", info["score"] if "score" in info else "", env.render().splitlines()[0])
"""


def test_the_environments_import_and_play_without_torch_or_the_agents():
    out = subprocess.run([sys.executable, "-c", BLOCKED], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.split()[0]) > 15 and "A B C D E" in out.stdout
