"""The docs site, built once per test process for tests/test_docs_site.py and tests/test_docs_browser.py:
`mkdocs build --strict` of mkdocs.yml into a temporary folder, and scripts/docs_site.py (its hook)."""

import atexit
import functools
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT = 600


class Build(NamedTuple):
    returncode: int
    output: str
    site: Path


@functools.cache
def strict_build() -> Build:
    """`python -m mkdocs build --strict` of the repository's mkdocs.yml (run from the repository root,
    so the hook imports the packages of this checkout)."""
    site = Path(tempfile.mkdtemp(prefix="zerogym-site-"))
    atexit.register(shutil.rmtree, site, ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
    )
    return Build(done.returncode, done.stdout + done.stderr, site)


@functools.cache
def hook() -> ModuleType:
    """scripts/docs_site.py, the hook of mkdocs.yml: the API pages and the files of the site."""
    spec = importlib.util.spec_from_file_location("docs_site", ROOT / "scripts" / "docs_site.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def page_url(src_uri: str) -> str:
    """The site path of a page (use_directory_urls): api/arena.md -> api/arena/, README.md -> ''."""
    stem = src_uri.removesuffix(".md")
    if stem == "README" or stem.endswith("/README") or stem.endswith("/index"):
        return stem.rpartition("/")[0] + "/" if "/" in stem else ""
    return stem + "/"
