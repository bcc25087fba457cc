"""Builds the Cython extensions; everything else is in pyproject.toml.

Compiler flags depend on the compiler, chosen when the extensions are built:
- gcc and clang (Linux, and macOS): -O3; the modules with prange loops (PARALLEL) get -fopenmp when
  the compiler builds and links OpenMP code. Apple's clang has no OpenMP of its own: it gets
  `-Xpreprocessor -fopenmp -lomp` when libomp is installed (Homebrew's `libomp`, or a conda
  environment's), and builds without OpenMP otherwise.
- MSVC (Windows): /O2 and /openmp.
Without OpenMP the vector path's loops run serially, on one thread (the build says so).

ZEROGYM_ONLY=go,batch builds only the extensions whose module name contains one of those words.
ZEROGYM_NO_OPENMP=1 builds without OpenMP on any compiler.
Linux builds link with -s: Python's own CFLAGS hold -g, and the debug sections and symbol tables would be
three quarters of the modules' size (auditwheel repair --strip does the same for the release wheels).
ZEROGYM_KEEP_SYMBOLS=1 keeps them (for a debugger or a profiler); sanitizer builds always keep them.
ZEROGYM_SANITIZE=1 builds them with AddressSanitizer and UndefinedBehaviorSanitizer (-O1 -g, frame
pointers kept; OpenMP stays on; gcc and clang only). ZEROGYM_SANITIZE=thread builds them with
ThreadSanitizer instead, with clang (CC defaults to clang) and LLVM's libomp, whose OpenMP
synchronisation TSan learns through the Archer tool (libgomp is not instrumented: TSan would report
races across its barriers). Such builds only import in a Python started with the sanitizer runtimes
preloaded: scripts/sanitize.sh (and `scripts/sanitize.sh --thread`) sets that up (docs/hardening.md).
"""

import glob
import os
import sys
import tempfile

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

only = [w for w in os.environ.get("ZEROGYM_ONLY", "").split(",") if w]
# modules with prange loops: built with OpenMP when available
PARALLEL = {"zerogym._core.batch", "zerogym_agents.mcts._puct"}
NO_OPENMP = os.environ.get("ZEROGYM_NO_OPENMP", "") not in ("", "0")
# ZEROGYM_SANITIZE: its value -> (compile flags, link flags); "" and "0" build without sanitizers
SANITIZERS = {
    # -fno-wrapv: Python's own CFLAGS hold -fwrapv, under which signed overflow is defined and goes unreported
    "1": (
        ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-O1", "-g", "-fno-wrapv"],
        ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"],
    ),
    "thread": (["-fsanitize=thread", "-O1", "-g"], ["-fsanitize=thread"]),
}


def sanitizer_mode(value):
    """The ZEROGYM_SANITIZE value `value` as a key of SANITIZERS, or None for a plain build."""
    if value in ("", "0"):
        return None
    if value not in SANITIZERS:
        raise SystemExit(
            f"ZEROGYM_SANITIZE={value!r}: use 1 (AddressSanitizer + UndefinedBehaviorSanitizer), "
            "thread (ThreadSanitizer) or 0 / unset (no sanitizer)"
        )
    return value


SANITIZE = sanitizer_mode(os.environ.get("ZEROGYM_SANITIZE", ""))
if SANITIZE == "thread":
    # TSan sees OpenMP's synchronisation only through LLVM's libomp and its Archer tool, so clang builds it
    os.environ.setdefault("CC", "clang")
KEEP_SYMBOLS = os.environ.get("ZEROGYM_KEEP_SYMBOLS", "") not in ("", "0")
# a plain Linux build links stripped, as the release wheels are; sanitizer builds keep their symbols
STRIP = [] if KEEP_SYMBOLS or not sys.platform.startswith("linux") else ["-s"]
UNIX_OPTIMIZE, UNIX_LINK = SANITIZERS[SANITIZE] if SANITIZE else (["-O3"], STRIP)
UNIX_WARNINGS = ["-Wno-unused-function", "-Wno-unreachable-code"]
# where libomp lives for Apple's clang: Homebrew on Apple silicon and on Intel, then a conda environment
LIBOMP_PREFIXES = ["/opt/homebrew/opt/libomp", "/usr/local/opt/libomp", os.environ.get("CONDA_PREFIX", "")]
OMP_TEST = "#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n"


def links_openmp(compiler, compile_args, link_args):
    """Whether `compiler` compiles and links a small OpenMP program with these flags."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "omp.c")
        with open(src, "w") as f:
            f.write(OMP_TEST)
        try:
            objs = compiler.compile([src], output_dir=tmp, extra_postargs=compile_args)
            compiler.link_executable(objs, os.path.join(tmp, "omp"), extra_postargs=link_args)
        except Exception:
            return False
    return True


def unix_openmp(compiler):
    """(compile flags, link flags) that give gcc or clang OpenMP, or None when none work."""
    if links_openmp(compiler, ["-fopenmp"], ["-fopenmp"]):
        return ["-fopenmp"], ["-fopenmp"]
    if sys.platform == "darwin":
        for prefix in filter(None, LIBOMP_PREFIXES):
            inc, lib = os.path.join(prefix, "include"), os.path.join(prefix, "lib")
            if os.path.isfile(os.path.join(inc, "omp.h")):
                flags = ["-Xpreprocessor", "-fopenmp", f"-I{inc}"], [f"-L{lib}", "-lomp", f"-Wl,-rpath,{lib}"]
                if links_openmp(compiler, *flags):
                    return flags
    return None


def check_thread_compiler(compiler):
    """Stop a ThreadSanitizer build by another compiler than clang: it would not see OpenMP's synchronisation."""
    cc = os.path.basename(compiler.compiler_so[0])
    if "clang" not in cc:
        raise SystemExit(
            f"ZEROGYM_SANITIZE=thread needs clang (CC={cc}): gcc's libgomp is not instrumented, so "
            "ThreadSanitizer would report races across its barriers; apt-get install clang libomp-dev"
        )


class BuildExt(build_ext):
    """build_ext that sets each extension's flags for the compiler it is built with."""

    def build_extensions(self):
        kind = self.compiler.compiler_type
        if kind == "msvc":
            if SANITIZE:
                raise SystemExit(
                    f"ZEROGYM_SANITIZE={SANITIZE} needs gcc or clang; MSVC builds have no sanitizer option here"
                )
            base, link, openmp = ["/O2"], [], None if NO_OPENMP else (["/openmp"], [])
        else:
            if SANITIZE == "thread":
                check_thread_compiler(self.compiler)
            base, link = UNIX_OPTIMIZE + UNIX_WARNINGS, UNIX_LINK
            openmp = None if NO_OPENMP else unix_openmp(self.compiler)
            if SANITIZE == "thread" and openmp is None and not NO_OPENMP:
                raise SystemExit("ZEROGYM_SANITIZE=thread: clang does not link OpenMP code; apt-get install libomp-dev")
        if openmp is None and any(ext.name in PARALLEL for ext in self.extensions):
            why = (
                "ZEROGYM_NO_OPENMP is set"
                if NO_OPENMP
                else (
                    "Apple's clang needs libomp (brew install libomp)"
                    if sys.platform == "darwin"
                    else "the C compiler does not build OpenMP code"
                )
            )
            print(
                f"zerogym: building without OpenMP ({why}): the vector path's loops run serially, on one thread",
                file=sys.stderr,
            )
        for ext in self.extensions:
            parallel = openmp is not None and ext.name in PARALLEL
            ext.extra_compile_args = base + (openmp[0] if parallel else [])
            ext.extra_link_args = link + (openmp[1] if parallel else [])
        if self.parallel is None and kind != "msvc":
            self.parallel = os.cpu_count() or 1  # one extension per core (gcc -O3 takes most of a build)
        super().build_extensions()


extensions = []
for pyx in sorted(glob.glob("zerogym/**/*.pyx", recursive=True) + glob.glob("zerogym_agents/**/*.pyx", recursive=True)):
    module = pyx[:-4].replace(os.sep, ".")
    if only and not any(w in module for w in only):
        continue
    extensions.append(
        Extension(
            module,
            [pyx],
            include_dirs=[np.get_include()],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        )
    )

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
        # parallel cythonizing forks; where multiprocessing spawns instead (macOS, Windows) it would
        # run this file again in each worker
        nthreads=(os.cpu_count() or 1) if sys.platform.startswith("linux") else 0,
    ),
    cmdclass={"build_ext": BuildExt},
)
