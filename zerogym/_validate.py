"""Checks for constructor kwargs, with messages that say what is allowed."""
import operator


def int_arg(game, name, value, lo, hi, extra=""):
    """`value` as an int in lo..hi, or ValueError naming the game, the kwarg and the range."""
    if isinstance(value, bool):
        raise ValueError(f"{game}: {name} must be an integer in {lo}..{hi}{extra}, got {value!r}")
    try:
        v = operator.index(value)
    except TypeError:
        raise ValueError(f"{game}: {name} must be an integer in {lo}..{hi}{extra}, got {value!r}") from None
    if not lo <= v <= hi:
        raise ValueError(f"{game}: {name} must be in {lo}..{hi}{extra}, got {v}")
    return v


def choice_arg(game, name, value, allowed):
    if value not in allowed:
        raise ValueError(f"{game}: {name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value
