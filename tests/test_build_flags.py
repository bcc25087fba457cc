"""setup.py's sanitizer flags (ZEROGYM_SANITIZE) and scripts/sanitize.sh's options, checked without a build."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# runs setup.py with setuptools.setup and Cython's cythonize replaced by no-ops (Cython is a build
# requirement, not installed beside the package), then reports the flags it chose and what
# check_thread_compiler says of each compiler named in argv[1:]
DRIVER = """
import json, os, runpy, sys, types
import setuptools
setuptools.setup = lambda **kw: None
cython, build = types.ModuleType("Cython"), types.ModuleType("Cython.Build")
build.cythonize = lambda extensions, **kw: extensions
cython.Build = build
sys.modules.update({"Cython": cython, "Cython.Build": build})
try:
    g = runpy.run_path("setup.py")
except SystemExit as err:
    print(json.dumps({"exit": str(err)}))
    sys.exit(0)
refused = {}
for name in sys.argv[1:]:
    class Compiler:
        compiler_so = [name, "-c"]
    try:
        g["check_thread_compiler"](Compiler())
        refused[name] = None
    except SystemExit as err:
        refused[name] = str(err)
print(json.dumps({"optimize": g["UNIX_OPTIMIZE"], "link": g["UNIX_LINK"], "cc": os.environ.get("CC"),
                  "refused": refused}))
"""


def setup_flags(sanitize, compilers=(), cc=None):
    env = {k: v for k, v in os.environ.items() if k not in ("ZEROGYM_SANITIZE", "CC")}
    env["ZEROGYM_ONLY"] = "no-such-module"  # nothing to cythonize
    if sanitize is not None:
        env["ZEROGYM_SANITIZE"] = sanitize
    if cc is not None:
        env["CC"] = cc
    out = subprocess.run(
        [sys.executable, "-c", DRIVER, *compilers], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_thread_picks_thread_sanitizer_and_clang():
    gcc, clang = "/usr/bin/x86_64-linux-gnu-gcc", "/usr/bin/clang-14"
    got = setup_flags("thread", compilers=(gcc, clang))
    assert "-fsanitize=thread" in got["optimize"] and "-fsanitize=thread" in got["link"]
    assert not any("address" in f for f in got["optimize"] + got["link"])
    assert "-g" in got["optimize"] and "-O1" in got["optimize"]
    assert got["cc"] == "clang"  # the default compiler of a TSan build
    assert setup_flags("thread", cc="clang-14")["cc"] == "clang-14"  # a chosen one is kept
    refused = got["refused"][gcc]
    assert "needs clang" in refused and "libgomp" in refused and "apt-get install clang libomp-dev" in refused
    assert got["refused"][clang] is None


def test_one_keeps_address_and_undefined_sanitizers():
    got = setup_flags("1")
    assert "-fsanitize=address,undefined" in got["optimize"] and "-fno-wrapv" in got["optimize"]
    assert "-fsanitize=address,undefined" in got["link"] and "-fsanitize=thread" not in got["optimize"]
    assert got["cc"] is None  # the compiler Python was built with, as before


@pytest.mark.parametrize("value", [None, "", "0"])
def test_unset_or_zero_builds_without_sanitizers(value):
    got = setup_flags(value)
    assert got["optimize"] == ["-O3"] and not any("sanitize" in flag for flag in got["link"])


def test_an_unknown_value_says_what_is_allowed():
    message = setup_flags("address")["exit"]
    assert "ZEROGYM_SANITIZE='address'" in message and "thread" in message and "1" in message


def test_sanitize_script_knows_thread_and_refuses_unknown_options():
    script = os.path.join(ROOT, "scripts", "sanitize.sh")
    help_text = subprocess.run(["bash", script, "--help"], capture_output=True, text=True, timeout=30).stdout
    assert "--thread" in help_text and "--self-test" in help_text and "zerogym-tsan" in help_text
    bad = subprocess.run(["bash", script, "--no-such-option"], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "unknown option --no-such-option" in bad.stderr
