"""Schema pieces for checking what a file held before anything is built from it.

Every loader of zerogym_agents (agents, nets, training checkpoints, model cards, transfer sources)
says what it expects with these pieces (Fields, Int, Tensor, StateDict, Optimizer, ...) and calls
check(), so a file that unpickles but is malformed (a key missing, a value of the wrong type, a
tensor of the wrong shape or dtype, numbers out of range) raises CheckpointError naming the file
and what is wrong, never a KeyError, TypeError or a torch RuntimeError from deep inside a load.
"""

from __future__ import annotations

import json
import math
import re
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import NoReturn, Union

import torch

from zerogym_agents.core.checkpoint import CheckpointError

if typing.TYPE_CHECKING:
    from zerogym._core.state import State
    from zerogym_agents.core.config_io import JsonConfig

# what as_spec makes a Spec of: a Spec, a dict of field specs or a type
SpecLike = Union["Spec", dict[typing.Any, typing.Any], type]
# a Fields rule's answer: None, or what is wrong (a message, or a (key, message) pair)
Problem = Union[None, str, tuple[typing.Any, str]]


def _a(word: str) -> str:
    return ("an " if word[:1] in "aeio" else "a ") + word


def describe(value: object) -> str:
    """A short description of a loaded value, for error messages."""
    if isinstance(value, torch.Tensor):
        return f"{_a(str(value.dtype).replace('torch.', ''))} tensor of shape {tuple(value.shape)}"
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str):
        return f"the string {value[:40]!r}" + ("..." if len(value) > 40 else "")
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)}"
    if isinstance(value, Mapping):
        return f"a dict of {len(value)}"
    if type(value).__module__ == "numpy" and hasattr(value, "shape"):
        return f"a numpy {type(value).__name__} of shape {tuple(value.shape)}"
    return _a(type(value).__name__)


def _join(where: str, key: object) -> str:
    """The place of `key` inside `where`: a.b, a[3], a['x.y']."""
    if isinstance(key, int) or not isinstance(key, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        return f"{where}[{key!r}]"
    return f"{where}.{key}" if where else key


class Context:
    """Where a check runs: the file (source) and the error class to raise."""

    def __init__(self, source: object, error: type[Exception] = CheckpointError) -> None:
        self.source, self.error = source, error

    def fail(self, where: str, message: str) -> NoReturn:
        raise self.error(f"{self.source}: {where or 'the file'} {message}")


class Spec:
    """What one value of a loaded file must be: check(value, ctx, where) returns it (or what it
    decodes to, e.g. the object of a JSON text) or calls ctx.fail(where, what is wrong)."""

    what = "a value"

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        raise NotImplementedError

    def refuse(self, value: typing.Any, ctx: Context, where: str) -> NoReturn:
        ctx.fail(where, f"must be {self.what}, got {describe(value)}")


def as_spec(spec: SpecLike) -> Spec:
    """A Spec from a Spec, a dict of field specs (Fields) or a type (an isinstance test)."""
    if isinstance(spec, Spec):
        return spec
    if isinstance(spec, dict):
        return Fields(spec)
    if isinstance(spec, type):
        return Instance(spec)
    raise TypeError(f"not a schema: {spec!r}")


def check(
    value: typing.Any, spec: SpecLike, source: object, where: str = "", error: type[Exception] = CheckpointError
) -> typing.Any:
    """`value` (read from file `source`) checked against `spec`; returns what spec.check returns,
    raises `error` (CheckpointError) naming the file, the place in it and what is wrong."""
    return as_spec(spec).check(value, Context(source, error), where)


class Any(Spec):
    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        return value


class Instance(Spec):
    def __init__(self, cls: type) -> None:
        self.cls, self.what = cls, f"a {cls.__name__}"

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        if not isinstance(value, self.cls):
            self.refuse(value, ctx, where)
        return value


def _range_text(low: float | None, high: float | None) -> str:
    if low is not None and low == high:
        return f" equal to {low}"
    if low is not None and high is not None:
        return f" in [{low}, {high}]"
    if low is not None:
        return f" >= {low}"
    return f" <= {high}" if high is not None else ""


class Int(Spec):
    """An int (not a bool) in [low, high]."""

    def __init__(self, low: int | None = None, high: int | None = None) -> None:
        self.low, self.high = low, high
        self.what = "an integer" + _range_text(low, high)

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or (self.low is not None and value < self.low)
            or (self.high is not None and value > self.high)
        ):
            self.refuse(value, ctx, where)
        return value


class Real(Spec):
    """An int or float (not a bool) in [low, high]; finite unless finite=False (NaN, inf allowed)."""

    def __init__(self, low: float | None = None, high: float | None = None, finite: bool = True) -> None:
        self.low, self.high, self.finite = low, high, finite
        self.what = ("a finite number" if finite else "a number") + _range_text(low, high)

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        ok = not isinstance(value, bool) and isinstance(value, (int, float))
        if ok and not (isinstance(value, float) and math.isnan(value) and not self.finite):
            ok = (
                (not self.finite or math.isfinite(value))
                and (self.low is None or value >= self.low)
                and (self.high is None or value <= self.high)
            )
        if not ok:
            self.refuse(value, ctx, where)
        return value


class Bool(Spec):
    what = "True or False"

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        if not isinstance(value, bool):
            self.refuse(value, ctx, where)
        return value


class Str(Spec):
    """A str, one of `choices` when given."""

    def __init__(self, choices: Iterable[str] | None = None) -> None:
        self.choices = tuple(choices) if choices is not None else None
        self.what = f"one of {', '.join(map(repr, self.choices))}" if self.choices else "a string"

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        if not isinstance(value, str) or (self.choices is not None and value not in self.choices):
            self.refuse(value, ctx, where)
        return value


class Maybe(Spec):
    """None, or what `spec` accepts."""

    def __init__(self, spec: SpecLike) -> None:
        self.spec = as_spec(spec)
        self.what = f"None or {self.spec.what}"

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        return None if value is None else self.spec.check(value, ctx, where)


class ListOf(Spec):
    """A list or tuple of items `item` accepts: `length` of them exactly, at most `max_length`."""

    def __init__(self, item: SpecLike, length: int | None = None, max_length: int | None = None) -> None:
        self.item, self.length, self.max_length = as_spec(item), length, max_length
        self.what = f"a list of {length}" if length is not None else "a list"

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        if not isinstance(value, (list, tuple)):
            self.refuse(value, ctx, where)
        if self.length is not None and len(value) != self.length:
            ctx.fail(where, f"must be a list of {self.length}, got {len(value)}")
        if self.max_length is not None and len(value) > self.max_length:
            ctx.fail(where, f"must be a list of at most {self.max_length}, got {len(value)}")
        return [self.item.check(v, ctx, _join(where, i)) for i, v in enumerate(value)]


class DictOf(Spec):
    """A dict whose keys `key` accepts and values `value` accepts."""

    what = "a dict"

    def __init__(self, key: SpecLike | None = None, value: SpecLike | None = None) -> None:
        self.key, self.value = as_spec(key or Any()), as_spec(value or Any())

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        if not isinstance(value, Mapping):
            self.refuse(value, ctx, where)
        out: dict[typing.Any, typing.Any] = {}
        for k, v in value.items():
            self.key.check(k, ctx, f"{where or 'the file'} key {k!r}")
            out[k] = self.value.check(v, ctx, _join(where, k))
        return out


class History(ListOf):
    """A trainer's history: a list of log entries, each a dict of numbers (None where an entry has no value)."""

    def __init__(self) -> None:
        super().__init__(DictOf(Str(), Maybe(Real(finite=False))))


class Fields(Spec):
    """A dict with every key of `fields` (each checked by its spec), the keys of `optional` when
    present, and any other keys (kept unchecked). rule(checked dict) -> None, or a message (or a
    (key, message) pair) for what the fields break together (e.g. lengths that must agree)."""

    what = "a dict"

    def __init__(
        self,
        fields: Mapping[typing.Any, SpecLike],
        optional: Mapping[typing.Any, SpecLike] | None = None,
        rule: Callable[[dict[typing.Any, typing.Any]], Problem] | None = None,
    ) -> None:
        self.fields = {k: as_spec(s) for k, s in fields.items()}
        self.optional = {k: as_spec(s) for k, s in (optional or {}).items()}
        self.rule = rule

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        if not isinstance(value, Mapping):
            self.refuse(value, ctx, where)
        missing = [k for k in self.fields if k not in value]
        if missing:
            ctx.fail(where or "the file", f"lacks {', '.join(map(repr, missing))}")
        out = dict(value)
        for k, spec in self.fields.items():
            out[k] = spec.check(value[k], ctx, _join(where, k))
        for k, spec in self.optional.items():
            if k in value:
                out[k] = spec.check(value[k], ctx, _join(where, k))
        if self.rule is not None:
            problem = self.rule(out)
            if problem:
                at, message = (_join(where, problem[0]), problem[1]) if isinstance(problem, tuple) else (where, problem)
                ctx.fail(at, message)
        return out


class Json(Spec):
    """A str holding JSON whose decoded value `spec` accepts; returns the decoded (checked) value."""

    def __init__(self, spec: SpecLike | None = None) -> None:
        self.spec = as_spec(spec or Any())
        self.what = f"JSON text of {self.spec.what}"

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        if not isinstance(value, str):
            self.refuse(value, ctx, where)
        try:
            decoded = json.loads(value)
        except ValueError as err:
            ctx.fail(where, f"is not valid JSON ({err})")
        return self.spec.check(decoded, ctx, where)


class Config(Spec):
    """JSON text of a config dataclass with from_dict (a JsonConfig); returns the config object."""

    def __init__(self, cls: type[JsonConfig]) -> None:
        self.cls, self.what = cls, f"JSON text of a {cls.__name__}"

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        fields = Json(dict).check(value, ctx, where)
        try:
            return self.cls.from_dict(fields)
        except (TypeError, ValueError) as err:
            ctx.fail(where, f"is not a valid {self.cls.__name__}: {err}")


DTYPE_KINDS = {"float": "a floating-point", "int": "an integer", "any": "a"}


def _dtype_ok(dtype: torch.dtype, want: str | torch.dtype) -> bool:
    if want == "any":
        return True
    if want == "float":
        return dtype.is_floating_point
    if want == "int":
        return not dtype.is_floating_point and not dtype.is_complex and dtype != torch.bool
    return dtype == want


def _dtype_text(want: str | torch.dtype) -> str:
    return DTYPE_KINDS[want] if isinstance(want, str) else _a(str(want).replace("torch.", ""))


class Tensor(Spec):
    """A dense CPU tensor: `dtype` a torch dtype or "float" / "int" / "any"; `shape` a tuple of
    sizes (None: any size); its values in [low, high] when given (floats then also finite)."""

    def __init__(
        self,
        dtype: str | torch.dtype = "any",
        shape: tuple[int | None, ...] | None = None,
        low: float | None = None,
        high: float | None = None,
    ) -> None:
        self.dtype, self.shape, self.low, self.high = dtype, shape, low, high
        shape_text = (
            ""
            if shape is None
            else " of shape ("
            + ", ".join("n" if s is None else str(s) for s in shape)
            + ("," if len(shape) == 1 else "")
            + ")"
        )
        self.what = f"{_dtype_text(dtype)} tensor{shape_text}"

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        if (
            not isinstance(value, torch.Tensor)
            or value.layout != torch.strided
            or value.is_meta
            or value.is_quantized
            or not _dtype_ok(value.dtype, self.dtype)
        ):
            self.refuse(value, ctx, where)
        if self.shape is not None and (
            value.dim() != len(self.shape) or any(s is not None and s != n for s, n in zip(self.shape, value.shape))
        ):
            self.refuse(value, ctx, where)
        if (self.low is not None or self.high is not None) and value.numel():
            v = value.detach()
            if v.is_floating_point() and not bool(torch.isfinite(v).all()):
                ctx.fail(where, "holds NaN or infinite values")
            if (self.low is not None and bool((v < self.low).any())) or (
                self.high is not None and bool((v > self.high).any())
            ):
                ctx.fail(
                    where,
                    f"must hold values{_range_text(self.low, self.high)}, "
                    f"found {v.min().item()!r} to {v.max().item()!r}",
                )
        return value


class StateDict(Spec):
    """A state_dict fitting `reference` (a dict name -> tensor, or name -> (shape, dtype)): the same
    names, each a tensor of the same shape, floating where the reference is, integer where it is."""

    what = "a dict of tensors (a state_dict)"

    def __init__(
        self, reference: Mapping[str, torch.Tensor | tuple[Iterable[int], torch.dtype]], label: str = "the network"
    ) -> None:
        self.label = label
        self.ref = {
            k: (tuple(v.shape), v.dtype) if isinstance(v, torch.Tensor) else (tuple(v[0]), v[1])
            for k, v in reference.items()
        }

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        if not isinstance(value, Mapping):
            self.refuse(value, ctx, where)
        missing = [k for k in self.ref if k not in value]
        extra = [k for k in value if k not in self.ref]
        problems: list[str] = []
        for label, names in (("lacks", missing), ("has unexpected", extra)):
            if names:
                more = f" and {len(names) - 3} more" if len(names) > 3 else ""
                problems.append(f"{label} {', '.join(map(repr, names[:3]))}{more}")
        if problems:
            ctx.fail(where or "the state_dict", f"does not fit {self.label}: it {'; it '.join(problems)}")
        for k, (shape, dtype) in self.ref.items():
            kind = (
                "float" if dtype.is_floating_point else "int" if not dtype.is_complex and dtype != torch.bool else dtype
            )
            Tensor(kind, shape).check(value[k], ctx, _join(where, k))
        return value


class RngState(Spec):
    """A numpy bit generator's state (bit_generator.state) for `kind` (default PCG64, what
    np.random.default_rng makes), tried on a scratch generator."""

    def __init__(self, kind: str = "PCG64") -> None:
        self.kind, self.what = kind, f"a numpy {kind} generator state"

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        import numpy as np

        if not isinstance(value, Mapping):
            self.refuse(value, ctx, where)
        try:
            getattr(np.random, self.kind)().state = dict(value)
        except Exception as err:  # numpy raises TypeError, KeyError, ValueError, OverflowError
            ctx.fail(where, f"is not {self.what} ({type(err).__name__}: {err})")
        return value


class TorchRngState(Spec):
    """torch.get_rng_state()'s uint8 tensor, tried on a scratch CPU generator."""

    what = "a torch CPU generator state"

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        Tensor(torch.uint8, tuple(torch.get_rng_state().shape)).check(value, ctx, where)
        try:
            torch.Generator().set_state(value)
        except (RuntimeError, TypeError, ValueError) as err:
            ctx.fail(where, f"is not {self.what} ({err})")
        return value


class CudaRngState(Spec):
    """torch.cuda.get_rng_state()'s uint8 tensor (a Philox generator's 64-bit seed and offset), or
    None for a CPU run."""

    what = "None or a CUDA generator state (a uint8 tensor of shape (16,))"

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        if value is not None and not (
            isinstance(value, torch.Tensor)
            and value.layout == torch.strided
            and value.dtype == torch.uint8
            and tuple(value.shape) == (16,)
        ):
            self.refuse(value, ctx, where)
        return value


class StateBlob(Spec):
    """A compiled game State's to_bytes() as a uint8 tensor, for the game of `template` (a State):
    it must load (template.copy().load_bytes, which refuses inconsistent blobs); playing=True: a game
    that is over is refused too (checkpoints hold games in progress). Returns the tensor."""

    def __init__(self, template: State, playing: bool = False) -> None:
        self.template, self.playing = template, playing
        self.size = len(template.to_bytes())
        self.what = f"a {template.spec.name} position (a uint8 tensor of shape ({self.size},))"

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        Tensor(torch.uint8, (self.size,)).check(value, ctx, where)
        state = self.template.copy()
        try:
            state.load_bytes(bytes(value.numpy()))
        except (ValueError, TypeError) as err:
            ctx.fail(where, f"is not a valid {self.template.spec.name} position: {err}")
        if self.playing and state.is_over():
            ctx.fail(where, "is a finished game; a checkpoint holds games in progress")
        return value


class Optimizer(Spec):
    """A state_dict of `optimizer` (a live torch optimizer over the net it will drive): the same
    groups and parameter counts, hyperparameters of the live ones' types, and per-parameter state
    tensors (momentum buffers, Adam moments) of their parameter's shape."""

    what = "an optimizer state_dict"

    def __init__(self, optimizer: torch.optim.Optimizer) -> None:
        self.groups = [(g["params"], {k: v for k, v in g.items() if k != "params"}) for g in optimizer.param_groups]
        self.name = type(optimizer).__name__

    @staticmethod
    def _hyper(live: object) -> Spec:
        if isinstance(live, bool) or live is None:
            return Maybe(Bool())
        if isinstance(live, (int, float)):
            return Real()
        if isinstance(live, (tuple, list)):
            return ListOf(Real(), length=len(live))
        return Any()

    def check(self, value: typing.Any, ctx: Context, where: str) -> typing.Any:
        groups = ListOf(Any(), length=len(self.groups)).check(
            Fields({"state": DictOf(), "param_groups": Any()}).check(value, ctx, where)["param_groups"],
            ctx,
            _join(where, "param_groups"),
        )
        shapes: dict[int, tuple[int, ...]] = {}
        for i, (group, (params, hyper)) in enumerate(zip(groups, self.groups)):
            at = _join(_join(where, "param_groups"), i)
            spec = Fields(
                {"params": ListOf(Int(0), length=len(params))}, optional={k: self._hyper(v) for k, v in hyper.items()}
            )
            ids = spec.check(group, ctx, at)["params"]
            shapes.update({pid: tuple(p.shape) for pid, p in zip(ids, params)})
        if len(shapes) != sum(len(p) for p, _ in self.groups):
            ctx.fail(_join(where, "param_groups"), "name a parameter twice")
        for pid, entry in value["state"].items():
            at = f"{_join(where, 'state')}[{pid!r}]"
            if pid not in shapes:
                ctx.fail(at, f"is the state of no parameter of the {self.name} (its parameters: 0..{len(shapes) - 1})")
            for k, v in DictOf(Str(), Any()).check(entry, ctx, at).items():
                if isinstance(v, torch.Tensor) and v.dim():
                    Tensor("float", shapes[pid]).check(v, ctx, _join(at, k))
                elif isinstance(v, torch.Tensor):
                    Tensor("any", ()).check(v, ctx, _join(at, k))
                else:
                    Maybe(Real()).check(v, ctx, _join(at, k))
        return value
