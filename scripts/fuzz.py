#!/usr/bin/env python
"""Fuzzes the inputs zerogym takes from outside (python scripts/fuzz.py --help); the fuzzer is the package
scripts/fuzzing/, one module per target under scripts/fuzzing/targets/."""

import sys

from fuzzing.cli import main

if __name__ == "__main__":
    sys.exit(main())
