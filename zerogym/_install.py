"""How to install zerogym with an extra, for the messages that name a missing one: zerogym is not on PyPI
yet, so the command installs from a checkout, or from the repository (both compile the core)."""

# pyproject.toml's [project.urls] Repository, the one address of the project (tests/test_packaging.py
# checks that they agree, and that the notebooks' badges and first cells use it)
REPOSITORY = "https://github.com/zerogym/zerogym"


def install_command(extras: str) -> str:
    """The pip lines that add `extras` ("agents", "agents,ray") to zerogym, as the README's install table
    gives them."""
    return f'pip install ".[{extras}]" in a checkout of zerogym, or pip install "zerogym[{extras}] @ git+{REPOSITORY}"'
