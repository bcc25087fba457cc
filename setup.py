"""Builds the Cython extensions; everything else is in pyproject.toml.

ZEROGYM_ONLY=go,batch builds only the extensions whose module name contains one of those words.
"""
import glob
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

only = [w for w in os.environ.get("ZEROGYM_ONLY", "").split(",") if w]
extensions = []
for pyx in sorted(glob.glob("zerogym/**/*.pyx", recursive=True) + glob.glob("zerogym_agents/**/*.pyx", recursive=True)):
    module = pyx[:-4].replace(os.sep, ".")
    if only and not any(w in module for w in only):
        continue
    extensions.append(Extension(
        module, [pyx],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3", "-Wno-unused-function", "-Wno-unreachable-code"],
    ))

setup(ext_modules=cythonize(
    extensions,
    compiler_directives={"language_level": 3, "boundscheck": False, "wraparound": False,
                         "cdivision": True, "initializedcheck": False},
    nthreads=os.cpu_count() or 1,
))
