"""The docs site (mkdocs.yml's hook): which files of the repository it holds, and its API reference.

The site mirrors the repository: every page keeps its repository path (README.md is the home page,
docs/games/go.md is /docs/games/go/, benchmarks/results/env_speed.md is /benchmarks/results/env_speed/),
so the relative links of the markdown files work as written, on GitHub and in the site alike.

The API reference is `API_PAGES`, the one list of what it documents: each page renders modules or
objects with mkdocstrings, and the pages of the two packages list their public names with a link to
each one's entry. tests/test_docs_site.py checks that every public name of both packages has an entry.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# the repository's files that the site holds besides docs/: pages, and the files that pages link to
EXTRA_FILES = (
    "README.md",
    "CONTRIBUTING.md",
    "CHANGELOG.md",
    "LICENSE",
    "benchmarks/results/**/*.*",
    "examples/*.py",
    "notebooks/*.ipynb",
)
# docs/ files that are not part of the site
SKIPPED = ()

GAME_MODULES = tuple(
    f"zerogym.{game}_v0" for game in ("go", "othello", "hex", "connect_four", "tictactoe", "havannah", "breakthrough")
)
# the API reference: (title, what the page documents); a package's page lists its public names (its
# __all__), each linked to the entry of another page; a module is documented with every public name
# defined in it, an object (module.name) alone
API_PAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("zerogym", ("zerogym",)),
    ("zerogym.registry", ("zerogym.registry",)),
    ("Game modules", GAME_MODULES),
    ("The compiled State", ("zerogym._core.state.State",)),
    ("zerogym.vector", ("zerogym.vector",)),
    ("zerogym.wrappers", ("zerogym.wrappers",)),
    ("zerogym.render", ("zerogym.render",)),
    ("zerogym.coords", ("zerogym.coords",)),
    ("zerogym.errors", ("zerogym.errors",)),
    ("Playing a game: terminal and notebook", ("zerogym.play", "zerogym.clicks", "zerogym_agents.notebook")),
    ("zerogym_agents", ("zerogym_agents",)),
    (
        "Agents",
        (
            "zerogym_agents.agents.base",
            "zerogym_agents.agents.greedy",
            "zerogym_agents.agents.minimax",
            "zerogym_agents.agents.search",
            "zerogym_agents.agents.policy",
            "zerogym_agents.agents.solver",
            "zerogym_agents.agents.gnugo",
        ),
    ),
    ("Saving and loading agents", ("zerogym_agents.agents.saved", "zerogym_agents.agents.specs")),
    ("Search (BatchedMCTS)", ("zerogym_agents.mcts.search", "zerogym_agents.mcts.config")),
    ("Networks", ("zerogym_agents.nets.model", "zerogym_agents.nets.evaluate", "zerogym_agents.nets.composite")),
    ("AlphaZero", ("zerogym_agents.alphazero.config", "zerogym_agents.alphazero.trainer")),
    (
        "Policy gradient",
        (
            "zerogym_agents.pg.config",
            "zerogym_agents.pg.trainers",
            "zerogym_agents.pg.opponents",
            "zerogym_agents.pg.ppo",
        ),
    ),
    ("Board-size transfer", ("zerogym_agents.transfer.grow", "zerogym_agents.transfer.settings")),
    ("Arena", ("zerogym_agents.arena.match", "zerogym_agents.arena.elo", "zerogym_agents.arena.report")),
    ("Opponent pools", ("zerogym_agents.training.pool",)),
    ("Solvers", ("zerogym_agents.solvers.connect_four", "zerogym_agents.solvers.perfect_play")),
    (
        "Experiments",
        (
            "zerogym_agents.experiment.comparison",
            "zerogym_agents.experiment.budget",
            "zerogym_agents.experiment.transfer",
        ),
    ),
    (
        "RL libraries",
        (
            "zerogym_agents.interop",
            "zerogym_agents.interop.sb3",
            "zerogym_agents.interop.tianshou",
            "zerogym_agents.interop.torchrl",
            "zerogym_agents.interop.rllib",
        ),
    ),
    ("Checkpoints", ("zerogym_agents.core.checkpoint",)),
    ("GTP engine", ("zerogym_agents.cli.gtp",)),
)
PACKAGES = ("zerogym", "zerogym_agents")


def api_uri(title: str) -> str:
    """The site path of an API page."""
    slug = title.lower().replace("(", "").replace(")", "")
    return "api/" + "-".join(slug.replace(".", "_").split()) + ".md"


def defining_path(package: str, name: str) -> str:
    """The dotted path where an exported name of a package is defined (its API entry)."""
    obj = getattr(importlib.import_module(package), name)
    module = getattr(obj, "__module__", None)
    return f"{module}.{obj.__qualname__}" if module and module != package else f"{package}.{name}"


def package_page(package: str) -> str:
    """A package's page: its docstring and a table of its public names, each linked to its entry."""
    rows = [
        f"| [`{name}`][{defining_path(package, name)}] | `{defining_path(package, name)}` |"
        for name in importlib.import_module(package).__all__
        if not name.startswith("_")
    ]
    return "\n".join(
        [
            f"# {package}",
            "",
            f"::: {package}",
            "    options:",
            "      members: false",
            "      show_root_heading: false",
            "",
            "| name | defined in |",
            "|---|---|",
            *rows,
            "",
        ]
    )


def factory_lines(module: str, name: str) -> list[str]:
    """An entry for a game module's env() or raw_env(), which env_factories makes at import (so that
    mkdocstrings, reading the source, sees no function): its signature and docstring."""
    factory = getattr(importlib.import_module(module), name)
    doc = " ".join(inspect.getdoc(factory).split())
    signature = inspect.signature(factory, eval_str=True)
    return [f"[](){{#{module}.{name}}}`{module}.{name}{signature}`", f":   {doc}", ""]


def game_modules_page(title: str, modules: tuple[str, ...]) -> str:
    """The game modules: their rules (each module's docstring), env() and raw_env(), and the env classes."""
    lines = [
        f"# {title}",
        "",
        "Every game module `zerogym.<game>_v0` holds the rules (its docstring),",
        '`env(render_mode=None, illegal="terminate", **kwargs)`,',
        "the game's env as PettingZoo classic wraps it ([ClassicWrapper][zerogym.envs.base.ClassicWrapper]), and",
        "`raw_env(render_mode=None, **kwargs)`, the unwrapped env (a [BoardGameEnv][zerogym.envs.base.BoardGameEnv]).",
        "The games' pages ([docs/games](../docs/games/README.md)) show each one's actions and observations.",
        "",
    ]
    for module in modules:
        env_class = importlib.import_module(module).raw_env().__class__
        lines += [f"::: {module}", "    options:", "      members: false", "      heading_level: 2", ""]
        lines += factory_lines(module, "env") + factory_lines(module, "raw_env")
        lines += [f"::: {env_class.__module__}.{env_class.__qualname__}", "    options:", "      heading_level: 3", ""]
    lines += ["## The env classes", ""]
    for path in ("zerogym.envs.base.BoardGameEnv", "zerogym.envs.base.ClassicWrapper"):
        lines += [f"::: {path}", "    options:", "      heading_level: 3", ""]
    return "\n".join(lines)


def api_page(title: str, paths: tuple[str, ...]) -> str:
    """The markdown of an API page: mkdocstrings' `:::` for each module or object."""
    if paths in ((p,) for p in PACKAGES):
        return package_page(paths[0])
    if paths == GAME_MODULES:
        return game_modules_page(title, paths)
    blocks = [f"# {title}", ""]
    for path in paths:
        blocks += [f"::: {path}", ""]
    return "\n".join(blocks)


def api_nav() -> list[dict[str, str]]:
    return [{title: api_uri(title)} for title, _ in API_PAGES]


# ---- the mkdocs hooks -----------------------------------------------------------------------------
def on_config(config: Any) -> Any:
    """Appends the API reference to the nav."""
    config.nav.append({"API reference": api_nav()})
    return config


def on_files(files: Any, config: Any) -> Any:
    """The site's files: docs/ and EXTRA_FILES at their repository paths, and the API pages."""
    from mkdocs.structure.files import File, Files

    site = config.site_dir
    urls = config.use_directory_urls
    docs = Path(config.docs_dir).resolve()
    out = [
        File(f"docs/{f.src_uri}", str(ROOT), site, urls) if Path(f.src_dir).resolve() == docs else f
        for f in files
        if f"docs/{f.src_uri}" not in SKIPPED
    ]
    for pattern in EXTRA_FILES:
        for path in sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob(pattern) if p.is_file()):
            out.append(File(path, str(ROOT), site, urls))
    for title, paths in API_PAGES:
        out.append(File.generated(config, api_uri(title), content=api_page(title, paths)))
    return Files(out)
