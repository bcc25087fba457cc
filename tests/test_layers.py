"""The packages' layers: zerogym (the environments) imports nothing from zerogym_agents, and no module
of either package takes part in an import cycle, counting the imports inside functions too."""
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
        text = "\n".join(line.strip() for line in text.splitlines()
                         if line.strip().startswith(("import ", "from ")) and " cimport " not in line)
    return [node for node in ast.walk(ast.parse(text)) if isinstance(node, (ast.Import, ast.ImportFrom))]


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
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            targets |= {f"{base}.{a.name}" if f"{base}.{a.name}" in mods else owner(base) for a in node.names}
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


def test_the_graph_sees_imports_inside_functions_and_relative_ones():
    graph = import_graph()
    assert "zerogym_agents.specs" in graph["zerogym_agents.arena.cli"]            # a top-level import
    assert "zerogym_agents.saved" in graph["zerogym_agents.specs"]                # an import inside a function
    assert graph["zerogym.registry"] and len(graph) > 60
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_environments_import_nothing_from_the_agents():
    up = sorted((m, t) for m, targets in import_graph().items() if m.split(".")[0] == "zerogym"
                for t in targets if t.split(".")[0] == "zerogym_agents")
    assert up == []


def test_no_module_takes_part_in_an_import_cycle():
    assert cycles(import_graph()) == []


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
