"""Builds the Cython extensions; everything else is in pyproject.toml.

ZEROGYM_ONLY=go,batch builds only the extensions whose module name contains one of those words.
ZEROGYM_SANITIZE=1 builds them with AddressSanitizer and UndefinedBehaviorSanitizer (-O1 -g, frame
pointers kept; OpenMP stays on). Such a build only imports in a Python started with the sanitizer
runtimes preloaded: scripts/sanitize.sh sets that up (docs/hardening.md).
"""
import glob
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

only = [w for w in os.environ.get("ZEROGYM_ONLY", "").split(",") if w]
PARALLEL = {"zerogym._core.batch"}   # modules with prange loops: built with OpenMP when available
SANITIZE = os.environ.get("ZEROGYM_SANITIZE", "") not in ("", "0")
SANITIZER_FLAGS = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"]
# -fno-wrapv: Python's own CFLAGS hold -fwrapv, under which signed overflow is defined and goes unreported
OPTIMIZE = SANITIZER_FLAGS + ["-O1", "-g", "-fno-wrapv"] if SANITIZE else ["-O3"]
LINK = SANITIZER_FLAGS if SANITIZE else []


def openmp_flags():
    """["-fopenmp"] if the C compiler builds and links OpenMP code, else [] (loops then run serially)."""
    if os.environ.get("ZEROGYM_NO_OPENMP"):
        return []
    import tempfile
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.sysconfig import customize_compiler
    cc = new_compiler()
    customize_compiler(cc)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "omp.c")
        with open(src, "w") as f:
            f.write("#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n")
        try:
            objs = cc.compile([src], output_dir=tmp, extra_postargs=["-fopenmp"])
            cc.link_executable(objs, os.path.join(tmp, "omp"), extra_postargs=["-fopenmp"])
        except Exception:
            return []
    return ["-fopenmp"]


OPENMP = openmp_flags()
extensions = []
for pyx in sorted(glob.glob("zerogym/**/*.pyx", recursive=True) + glob.glob("zerogym_agents/**/*.pyx", recursive=True)):
    module = pyx[:-4].replace(os.sep, ".")
    if only and not any(w in module for w in only):
        continue
    extensions.append(Extension(
        module, [pyx],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=OPTIMIZE + ["-Wno-unused-function", "-Wno-unreachable-code"]
        + (OPENMP if module in PARALLEL else []),
        extra_link_args=LINK + (OPENMP if module in PARALLEL else []),
    ))

setup(ext_modules=cythonize(
    extensions,
    compiler_directives={"language_level": 3, "boundscheck": False, "wraparound": False,
                         "cdivision": True, "initializedcheck": False},
    nthreads=os.cpu_count() or 1,
))
