"""Notebooks run in the test suite (through nbmake) in quick mode: minutes, not the class-length runs."""
import os

os.environ.setdefault("ZEROGYM_QUICK", "1")
