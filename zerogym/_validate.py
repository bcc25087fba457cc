"""Checks for constructor kwargs, with messages that say what is allowed."""

from __future__ import annotations

import operator
from collections.abc import Collection, Mapping
from typing import Any, TypeVar

from zerogym.errors import KwargsError

T = TypeVar("T")


def as_int(value: Any) -> int | None:
    """operator.index(value) (one call), or None when `value` is no integer; bools (numpy's too)
    are no integers here."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def int_arg(game: str, name: str, value: object, lo: int, hi: int, extra: str = "") -> int:
    """`value` as an int in lo..hi, or ValueError naming the game, the kwarg and the range."""
    v = as_int(value)
    if v is None:
        raise ValueError(f"{game}: {name} must be an integer in {lo}..{hi}{extra}, got {value!r}")
    if not lo <= v <= hi:
        raise ValueError(f"{game}: {name} must be in {lo}..{hi}{extra}, got {v}")
    return v


def board_arg(game: str, board: object, shape: tuple[int, int], pieces: str) -> Any:
    """`board` as a numpy array of `shape` holding 0 (empty), 1 and 2 (`pieces` says whose, e.g.
    "1 (black) or 2 (white)"), or ValueError naming the game and what is allowed."""
    import numpy as np

    arr = np.asarray(board)
    if arr.shape != shape:
        raise ValueError(f"{game}: board must have shape {shape}, got {arr.shape}")
    if arr.dtype.kind not in "iub" or not np.isin(arr, (0, 1, 2)).all():
        raise ValueError(f"{game}: board values must be 0 (empty), {pieces}")
    return arr


def choice_arg(game: str, name: str, value: T, allowed: Collection[object]) -> T:
    """`value` if it is one of `allowed`, else ValueError naming the game, the kwarg and the choices."""
    if value not in allowed:
        raise ValueError(f"{game}: {name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def did_you_mean(name: str, known: Collection[str]) -> str:
    """ " (did you mean NAME?)" naming the one of `known` closest to a mistyped `name`, else ""."""
    import difflib

    close = difflib.get_close_matches(name, known, n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def known_kwargs(state_class: type, kwargs: Mapping[str, Any]) -> None:
    """KwargsError (a TypeError) naming the game and the keywords it takes if `kwargs` has one that its
    make_spec does not (a typo like boardsize=9 would otherwise name neither)."""
    import inspect
    import sys

    module = sys.modules[state_class.__module__]
    params = inspect.signature(module.make_spec).parameters
    for key in kwargs:
        if key not in params:
            game = module.__name__.rsplit(".", 1)[-1]
            hint = did_you_mean(key, params)
            takes = ", ".join(f"{p.name}={p.default!r}" for p in params.values())
            raise KwargsError(f"{game}: unknown keyword argument {key!r}{hint}; {game} takes {takes}")
