"""setup.py on Linux: a default build links the extensions stripped (no debug sections, no symbol table,
as the release wheels after auditwheel repair --strip), and ZEROGYM_KEEP_SYMBOLS=1 keeps them. One small
module (Tic-tac-toe's rules) is built into a temporary folder each way."""

import os
import pathlib
import shutil
import struct
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the stripping is for Linux builds")


def section_names(path):
    """The section names of a 64-bit little-endian ELF file (an x86_64 or aarch64 shared object)."""
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not a 64-bit little-endian ELF file"
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    entsize, count, names_index = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * entsize) for i in range(count)]
    names_at = headers[names_index][4]  # sh_offset of the section-name table
    return {data[names_at + h[0] : data.index(b"\0", names_at + h[0])].decode() for h in headers}


def build(tmp_path, **env):
    """Tic-tac-toe's extension built by setup.py from a copy of the sources; the path of the module."""
    pytest.importorskip("Cython", reason="Cython is not installed (the test extra brings it)")
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".*", "*.so", "build", "runs", "docs", "benchmarks"))
    done = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", "lib", "--build-temp", "tmp"],
        cwd=src,
        env={**os.environ, "ZEROGYM_ONLY": "tictactoe", **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    (module,) = (src / "lib" / "zerogym" / "_core").glob("tictactoe*.so")
    return module


def test_a_default_build_is_stripped_and_keep_symbols_keeps_them(tmp_path):
    default = section_names(build(tmp_path / "default"))
    kept = section_names(build(tmp_path / "kept", ZEROGYM_KEEP_SYMBOLS="1"))
    assert ".dynsym" in default and ".text" in default  # what Python needs to load it is there
    assert not {s for s in default if s.startswith(".debug") or s == ".symtab"}, default
    assert ".symtab" in kept and ".debug_info" in kept, kept  # Python's CFLAGS hold -g
