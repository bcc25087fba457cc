"""What pip installs: the version in one place, the extras (environments only by default, the agents in
[agents]), and the message that names the agents extra when it is missing."""

import importlib.metadata
import pathlib
import re
import subprocess
import sys

import pytest

import zerogym

tomllib = pytest.importorskip("tomllib")

ROOT = pathlib.Path(__file__).resolve().parents[1]
# the import name of each distribution of the agents extra
AGENTS = {
    "torch": "torch",
    "stable-baselines3": "stable_baselines3",
    "sb3-contrib": "sb3_contrib",
    "tqdm": "tqdm",
    "tensorboard": "tensorboard",
    "matplotlib": "matplotlib",
}


def project():
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def repository():
    return project()["project"]["urls"]["Repository"]


def readme_agents_line():
    """The README install table's line for the agents: what a person with a checkout runs."""
    (line,) = re.findall(r"^\| the agents [^|]*\| `([^`]+)` \|", (ROOT / "README.md").read_text(), re.M)
    return line


def agents_message():
    """What the missing-extra message must say: the README's line, and the repository for those without a
    checkout (zerogym is not on PyPI yet, so `pip install "zerogym[agents]"` alone would fail)."""
    return f'{readme_agents_line()} in a checkout of zerogym, or pip install "zerogym[agents] @ git+{repository()}"'


def names(requirements):
    return {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in requirements}


def test_the_version_is_written_once_and_installed():
    data = project()
    assert "version" not in data["project"] and "version" in data["project"]["dynamic"]
    assert data["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "zerogym._version.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", zerogym.__version__)
    assert importlib.metadata.version("zerogym") == zerogym.__version__
    assert f"## {zerogym.__version__}" in (ROOT / "CHANGELOG.md").read_text()


def test_the_plain_install_is_the_environments_and_the_agents_are_an_extra():
    data = project()["project"]
    extras = data["optional-dependencies"]
    assert names(data["dependencies"]) == {"numpy", "gymnasium", "pettingzoo", "pillow"}
    assert names(extras["agents"]) == set(AGENTS)
    assert "torch>=2.1" in extras["agents"]
    assert {"agents", "ray", "bench", "test", "display", "docs"} <= set(extras)
    assert not names(extras["test"]) & set(AGENTS)
    assert names(extras["test"]) == {
        "pytest",
        "hypothesis",
        "nbclient",
        "ipykernel",
        "open-spiel",
        "pygame",
        "ruff",
        "mypy",
        "cython",
    }
    # the notebook widget, and what its browser test needs besides the test extra
    assert names(extras["notebook"]) == {"anywidget", "ipywidgets"}
    assert names(extras["browser"]) == {"jupyterlab", "selenium"}
    assert not names(extras["notebook"]) & names(data["dependencies"])
    assert names(extras["docs"]) == {"mkdocs", "mkdocs-material", "mkdocstrings", "selenium"}
    assert "mkdocstrings[python]>=0.27" in extras["docs"]


def test_the_install_script_installs_the_extras_the_tests_need_and_chromium():
    """scripts/install.sh installs every extra the tests need (the docs site's and the notebook widget's too)
    and Debian's Chromium and its driver for the browser tests."""
    script = (ROOT / "scripts" / "install.sh").read_text()
    (line,) = [line for line in script.splitlines() if "pip install" in line and "-e" in line]
    (extras,) = re.findall(r'-e "\.\[([a-z,]+)\]"', line)
    assert set(extras.split(",")) == {"agents", "test", "ray", "notebook", "browser", "docs"}
    assert "apt-get install -y -qq chromium chromium-driver" in script


def test_the_installed_metadata_has_the_same_layers():
    meta = importlib.metadata.metadata("zerogym")
    assert {"agents", "ray", "bench", "test", "display", "docs"} <= set(meta.get_all("Provides-Extra"))
    plain = [r for r in meta.get_all("Requires-Dist") if "extra ==" not in r]
    assert names(plain) == {"numpy", "gymnasium", "pettingzoo", "pillow"}
    agents = [r.split(";")[0] for r in meta.get_all("Requires-Dist") if re.search(r"extra == .agents.", r)]
    assert names(agents) == set(AGENTS)


def test_the_package_checks_the_packages_of_the_agents_extra():
    import zerogym_agents

    assert set(zerogym_agents.AGENTS_EXTRA) == set(AGENTS.values())


BLOCK_TORCH = 'import sys; sys.modules["torch"] = None\n'


def test_importing_the_agents_without_the_extra_names_it():
    done = subprocess.run(
        [sys.executable, "-c", BLOCK_TORCH + "import zerogym_agents"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last == f"ImportError: zerogym_agents needs the agents extra (torch not installed): {agents_message()}"
    assert (
        readme_agents_line() == 'pip install ".[agents]"'
        and "zerogym is not on PyPI yet" in (ROOT / "README.md").read_text()
    )


def test_the_zerogym_command_without_the_extra_prints_one_line(tmp_path):
    # a console script as pip writes it, named zerogym, in a Python where torch cannot be imported
    script = tmp_path / "zerogym"
    script.write_text(BLOCK_TORCH + "from zerogym_agents.cli.main import main\nsys.exit(main())\n")
    done = subprocess.run(
        [sys.executable, str(script), "arena", "--help"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"zerogym_agents needs the agents extra (torch not installed): {agents_message()}\n"


def test_with_the_extra_the_package_imports_without_loading_torch():
    done = subprocess.run(
        [sys.executable, "-c", "import sys, zerogym_agents; print('torch' in sys.modules)"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "False"), done.stderr


def test_the_project_address_is_declared_once_and_used_as_declared():
    urls = project()["project"]["urls"]
    assert repository().startswith("https://github.com/")
    assert all(url.startswith(repository() + "/") for name, url in urls.items() if name != "Repository"), urls
    assert {"Documentation", "Issues"} <= set(urls)
    from zerogym._install import REPOSITORY, install_command

    assert REPOSITORY == repository()
    assert f"git+{repository()}" in install_command("ray") and '".[ray]"' in install_command("ray")
    # the docs that show the install without a checkout name the same address
    for page in ("README.md", "docs/interop/README.md"):
        found = re.findall(r"git\+(https://[^\s\"`]+)", (ROOT / page).read_text())
        assert found and set(found) == {repository()}, (page, found)


def test_the_ray_backend_and_the_rendering_window_say_how_to_install_their_extra(monkeypatch):
    import zerogym
    from zerogym_agents.scale.runtime import require_ray

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(
        ImportError,
        match=re.escape(
            f'pip install ".[ray]" in a checkout of zerogym, or pip install "zerogym[ray] @ git+{repository()}"'
        ),
    ):
        require_ray()
    monkeypatch.setitem(sys.modules, "pygame", None)
    env = zerogym.make("tictactoe", render_mode="human")
    env.reset(seed=0)
    with pytest.raises(ImportError, match=re.escape('pip install ".[display]" in a checkout')):
        env.render()


def test_the_readme_says_what_imports_ray():
    (row,) = [line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("| ray |")]
    assert "`--backend ray`" in row and "imported by that backend alone" in row and "interop.rllib" in row
    # Ray is imported by the ray backend's package (which the CLI loads for --backend ray) and the RLlib adapter
    importers = {
        p.relative_to(ROOT).parts[:2]
        for package in ("zerogym", "zerogym_agents")
        for p in (ROOT / package).rglob("*.py")
        if re.search(r"^\s*(import ray\b|from ray\b)", p.read_text(), re.M)
    }
    assert importers == {("zerogym_agents", "scale"), ("zerogym_agents", "interop")}
