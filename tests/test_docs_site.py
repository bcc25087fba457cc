"""The docs site (mkdocs.yml, the docs extra): `mkdocs build --strict` passes, so no page has a broken link or
anchor and no docstring a cross-reference that does not resolve; every page of docs/ is in the nav; and
every public name of zerogym and zerogym_agents has an entry in the API reference.

Public: the names of both packages' __all__; every class and function defined in a module of the API
reference (scripts/docs_site.py's API_PAGES), and the env()/raw_env() of each game module; every name that
a python block of the README or docs/ imports from either package. A name has an entry when the built
site's API pages hold an anchor of its path or of the path where it is defined.
"""

import ast
import html.parser
import importlib
import shutil
import subprocess
import sys
import zlib

import pytest

from site_build import ROOT, hook, page_url, strict_build

NO_DOCS_EXTRA = "the docs extra is not installed: pip install -e '.[docs]' (scripts/install.sh does)"
pytest.importorskip("mkdocs", reason=NO_DOCS_EXTRA)
griffe = pytest.importorskip("griffe", reason=NO_DOCS_EXTRA)
yaml = pytest.importorskip("yaml", reason=NO_DOCS_EXTRA)

PACKAGES = ("zerogym", "zerogym_agents")


def built_site():
    build = strict_build()
    assert build.returncode == 0, f"mkdocs build --strict failed:\n{build.output[-4000:]}"
    return build.site


def test_the_site_builds_strictly_with_the_readme_as_home_and_every_api_page():
    site = built_site()
    home = (site / "index.html").read_text()
    assert "Board games for reinforcement learning" in home and '<h2 id="the-vector-path">' in home
    assert (site / "docs" / "games" / "go" / "index.html").exists()
    assert (site / "benchmarks" / "results" / "env_speed" / "index.html").exists()  # linked from the pages
    for title, _ in hook().API_PAGES:
        page = site / page_url(hook().api_uri(title)) / "index.html"
        assert page.exists(), f"no API page for {title}"
        assert "doc-object" in page.read_text(), f"the API page for {title} documents nothing"


def nav_pages(entry):
    if isinstance(entry, str):
        return [entry]
    if isinstance(entry, list):
        return [p for item in entry for p in nav_pages(item)]
    return [p for value in entry.values() for p in nav_pages(value)]


def test_every_page_of_docs_is_in_the_nav():
    nav = set(nav_pages(yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]))
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert pages - nav == set(), "pages of docs/ missing from mkdocs.yml's nav"
    assert {"README.md", "docs/first_hour.md", "docs/results.md"} <= nav
    assert not [p for p in nav if not (ROOT / p).exists()]


# ---- the API reference --------------------------------------------------------------------------
class _Ids(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids = set()

    def handle_starttag(self, tag, attrs):
        self.ids.update(value for name, value in attrs if name == "id" and value)


def api_entries(site):
    """The paths the site documents: objects.inv's names and the anchors of the API pages."""
    data = (site / "objects.inv").read_bytes().split(b"\n", 4)[4]
    names = {line.split(" ", 1)[0] for line in zlib.decompress(data).decode().splitlines()}
    parser = _Ids()
    for page in (site / "api").rglob("index.html"):
        parser.feed(page.read_text())
    return names | parser.ids


class Loader:
    """Both packages read by griffe once, as mkdocstrings reads them (without importing them)."""

    def __init__(self):
        griffe_loader = griffe.GriffeLoader(search_paths=[str(ROOT)])
        for package in PACKAGES:
            griffe_loader.load(package)
        self.collection = griffe_loader.modules_collection

    def load(self, path):
        """The module of a dotted path; ModuleNotFoundError if it names no module."""
        try:
            found = self.collection.get_member(path)
        except KeyError:
            raise ModuleNotFoundError(path) from None
        if not found.is_module:
            raise ModuleNotFoundError(path)
        return found


@pytest.fixture(scope="module")
def loader():
    return Loader()


def resolved(loader, module, name):
    """The paths an entry for `module.name` may have: that one, and where the name is defined."""
    paths = {f"{module}.{name}"}
    try:
        member = loader.load(module)[name]
    except KeyError:  # a lazily imported name of zerogym_agents
        obj = getattr(importlib.import_module(module), name)
        return paths | {f"{obj.__module__}.{obj.__qualname__}"}
    return paths | {member.target_path if member.is_alias else member.path}


def module_names(loader, module):
    """The public classes and functions a module of the API reference defines (for a game module, the
    env() and raw_env() it exports)."""
    if module in hook().GAME_MODULES:
        return ("env", "raw_env")
    members = loader.load(module).members.items()
    return tuple(
        name
        for name, member in members
        if not name.startswith("_") and not member.is_alias and member.kind.value in ("class", "function")
    )


def docs_imports():
    """(module, name) of every `from zerogym... import name` in the python blocks of the README and docs/;
    (module, None) for `import zerogym...`."""
    from test_docs_blocks import PAGES, page_text, python_blocks

    found = set()
    for page in PAGES:
        for _, code in python_blocks(page_text(page)):
            for node in ast.walk(ast.parse(code)):
                if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PACKAGES:
                    found |= {(node.module, alias.name) for alias in node.names}
                elif isinstance(node, ast.Import):
                    found |= {(a.name, None) for a in node.names if a.name.split(".")[0] in PACKAGES}
    return found


def public_names(loader):
    """{public name: the entry paths that document it}."""
    out = {}
    for package in PACKAGES:
        for name in importlib.import_module(package).__all__:
            if not name.startswith("_"):
                out[f"{package}.{name}"] = resolved(loader, package, name)
    for _, paths in hook().API_PAGES:
        for path in paths:
            if path in PACKAGES:
                continue
            try:
                names = module_names(loader, path)
            except ModuleNotFoundError:  # an object, documented alone
                out[path] = {path}
                continue
            out[path] = {path}
            out.update({f"{path}.{name}": resolved(loader, path, name) for name in names})
    for module, name in docs_imports():
        if name is None:
            out[module] = {module}
        elif name in loader.load(module).members and loader.load(module)[name].is_module:
            out[f"{module}.{name}"] = {f"{module}.{name}"}
        else:
            out[f"{module}.{name}"] = resolved(loader, module, name)
    return out


def missing(entries, names):
    return sorted(name for name, paths in names.items() if not paths & entries)


def test_every_public_name_has_an_api_entry(loader):
    names = public_names(loader)
    assert {"zerogym_agents.AlphaZeroAgent", "zerogym.vector.make", "zerogym.go_v0.env"} <= set(names)
    assert "zerogym_agents.mcts.search.BatchedMCTS" in names and "zerogym.wrappers.SingleAgentEnv" in names
    assert len(names) > 150
    assert missing(api_entries(built_site()), names) == []


def undocumented(loader, names):
    """The public classes and functions among `names` whose definition has no docstring."""
    out = set()
    for paths in names.values():
        for path in paths:
            try:
                found = loader.collection.get_member(path)
                found = found.final_target if found.is_alias else found
            except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
                continue  # not a path griffe reads (a lazily imported name, a game module's env())
            if found.kind.value in ("class", "function") and not found.docstring:
                out.add(found.path)
    return sorted(out)


def test_every_public_class_and_function_has_a_docstring(loader):
    assert undocumented(loader, public_names(loader)) == []
    assert undocumented(loader, {"x": {"zerogym.envs.base.BoardGameEnv.__init__"}}) == [
        "zerogym.envs.base.BoardGameEnv.__init__"
    ]


def test_the_check_finds_a_name_without_an_entry(loader):
    entries = api_entries(built_site())
    names = public_names(loader)
    assert missing(entries - {"zerogym_agents.mcts.search.BatchedMCTS"}, names) == [
        "zerogym_agents.mcts.search.BatchedMCTS"
    ]
    lazy = resolved(loader, "zerogym_agents", "load_agent")
    assert lazy == {"zerogym_agents.load_agent", "zerogym_agents.agents.saved.load_agent"}
    assert missing(entries, {**names, "zerogym.nothing": {"zerogym.nothing"}}) == ["zerogym.nothing"]
    assert ("zerogym_agents.mcts.search", "BatchedMCTS") in docs_imports()


# ---- strict means strict ------------------------------------------------------------------------
BROKEN = """# A page

A [link to nowhere](nowhere.md), an [anchor that is not there](#nothing) and a
[reference][zerogym.no_such_name].
"""


def test_a_broken_link_anchor_or_reference_fails_the_strict_build(tmp_path):
    """A site with mkdocs.yml's validation and plugins (not its nav or hook) and one broken page."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    for key in ("nav", "hooks", "watch"):
        config.pop(key)
    config.update(docs_dir=str(tmp_path / "docs"), site_dir=str(tmp_path / "site"))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(BROKEN)
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(tmp_path / "mkdocs.yml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    for problem in ("nowhere.md", "#nothing", "zerogym.no_such_name"):
        assert problem in done.stderr, done.stderr[-3000:]
    shutil.rmtree(tmp_path / "site", ignore_errors=True)
