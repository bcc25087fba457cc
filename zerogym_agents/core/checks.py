"""The argument checks of zerogym_agents: a number in a range, an index, a seed, a buffer's shape.

The compiled searches (mcts._puct, mcts._uct, solvers._minimax) index memory with what Python hands
them (tree indices, counts, actions, array shapes) and check nothing there; every such value goes
through one of these functions first, in the Python-facing methods, and so do the arguments of the
searches' and agents' Python API. A value of the wrong type raises ArgumentTypeError (a TypeError and a
ValueError), a value out of range ValueError (an index out of range IndexError), each naming the
argument, what was given and what is allowed. Config fields are declared with their checks in
config_io; files read back are checked by the schemas of file_checks.
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Iterable
from typing import Any

import numpy as np

from zerogym._validate import as_int

UINT64_MASK = 2**64 - 1


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type: a TypeError, and a ValueError as every other bad argument of the
    package is (so that the command line answers it in one line)."""


def integer(name: str, value: Any, lo: int, hi: int | None = None) -> int:
    """`value` as an int in lo..hi (no upper bound when hi is None; bools refused)."""
    v = _int(name, value, f"{lo}..{hi}" if hi is not None else f">= {lo}")
    if v < lo or (hi is not None and v > hi):
        raise ValueError(
            f"{name} must be in {lo}..{hi}, got {v}" if hi is not None else f"{name} must be >= {lo}, got {v}"
        )
    return v


def index(name: str, value: Any, n: int) -> int:
    """`value` as an int in 0..n-1: TypeError if it is no integer, IndexError if out of range."""
    v = _int(name, value, f"0..{n - 1}")
    if not 0 <= v < n:
        raise IndexError(f"{name} {v} out of range 0..{n - 1}")
    return v


def _int(name: str, value: Any, allowed: str) -> int:
    v = as_int(value)
    if v is None:
        kind = "" if isinstance(value, (bool, np.bool_)) else f" ({type(value).__name__})"
        raise ArgumentTypeError(
            f"{name} must be an integer {'' if allowed.startswith('>') else 'in '}{allowed}, got {value!r}{kind}"
        )
    return v


def real(name: str, value: Any, lo: float | None = None, hi: float | None = None, open_lo: bool = False) -> float:
    """`value` as a finite float in [lo, hi] ((lo, hi] with open_lo)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    v = float(value)
    low_bad = lo is not None and (v <= lo if open_lo else v < lo)
    if not math.isfinite(v) or low_bad or (hi is not None and v > hi):
        allowed = " and ".join(
            part
            for part in (None if lo is None else f"{'>' if open_lo else '>='} {lo}", None if hi is None else f"<= {hi}")
            if part
        )
        raise ValueError(f"{name} must be a finite number{' ' + allowed if allowed else ''}, got {value!r}")
    return v


def seed64(name: str, value: Any) -> int:
    """An integer seed reduced to 64 bits."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    try:
        return operator.index(value) & UINT64_MASK
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})") from None


def shape(name: str, arr: Iterable[int], expected: Iterable[int]) -> None:
    """ValueError unless the buffer `arr` (a typed memoryview's shape tuple) is `expected`."""
    got = tuple(arr)
    if got != tuple(expected):
        raise ValueError(f"{name} must have shape {tuple(expected)}, got {got}")


def check_bytes(what: str, need: int) -> None:
    """MemoryError before allocating when `need` bytes cannot even be addressed."""
    if need > 2**63 - 1:
        raise MemoryError(f"{what} need {need} bytes, more than can be addressed")
