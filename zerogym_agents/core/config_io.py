"""Config dataclasses that check, save and parse themselves (nets, training runs, experiments).

Each field is declared once, with its default, the values it allows and what it means:

    @dataclass
    class RunConfig(JsonConfig):
        game: str = setting("go", Text(), "registry name of the game")
        simulations: int = setting(100, Integer(1), "simulations per move")
        lr_final: float = setting(None, Maybe(Number(0)), "final learning rate (None: lr)")

        def check_rules(self):              # what fields must satisfy together, defaults made of others
            if self.lr_final is None:
                self.lr_final = self.lr

JsonConfig.__post_init__ passes every field through its check. A value it refuses raises
ValueError naming the class, the field, what is allowed and the value given ("RunConfig.simulations
must be an integer >= 1, got 0"); a value it accepts is stored in its plain form (int for a numpy
integer, float for any number, tuple for a list). check_rules() runs after that. Configs read from
files (from_dict, from_json, file_checks.Config) go through the same checks.

The declarations also make command-line options (add_options, from_options, to_options): --big-size
for big_size, typed and with choices from its check, its default, and help from its doc.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import numbers
import textwrap
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

from zerogym._validate import did_you_mean

_C = TypeVar("_C", bound="JsonConfig")


class Refused(Exception):
    """A check's answer to a value it does not allow (JsonConfig turns it into a ValueError)."""


def _text(x: object) -> str:
    """A number or word as written in messages and on the command line (60.0 -> 60, 1e-4 -> 0.0001)."""
    if isinstance(x, float):
        short = f"{x:g}"
        return short if float(short) == x else repr(x)
    return str(x)


class Check:
    """What one field allows. what: the allowed values in words ("an integer >= 1"); calling it with
    a value returns the value in its plain form, or raises Refused. arg_type and choices: how a
    command-line word is read (None: the field has no generated option)."""

    what: str = "a value"
    arg_type: Callable[[str], Any] | None = None
    choices: tuple[Any, ...] | None = None

    def __call__(self, value: Any) -> Any:
        return value

    def refusal(self, value: Any) -> str:
        """What a refused `value` must be instead (the words after "must be")."""
        return self.what


class Integer(Check):
    """An int (a numpy integer too; not a bool) within the bounds given."""

    arg_type = int

    def __init__(self, low: int | None = None, high: int | None = None) -> None:
        self.low, self.high = low, high
        self.what = "an integer" + _bounds_text(low, high)

    def __call__(self, value: Any) -> int:
        if (
            isinstance(value, bool)
            or not isinstance(value, numbers.Integral)
            or not _in_bounds(value, self.low, self.high)
        ):
            raise Refused
        return int(value)


class Number(Check):
    """A finite int or float (not a bool), stored as a float: low <= x <= high, above < x < below."""

    arg_type = float

    def __init__(
        self,
        low: float | None = None,
        high: float | None = None,
        *,
        above: float | None = None,
        below: float | None = None,
    ) -> None:
        self.low, self.high, self.above, self.below = low, high, above, below
        self.what = "a number" + _bounds_text(low, high, above, below)

    def __call__(self, value: Any) -> float:
        if (
            isinstance(value, bool)
            or not isinstance(value, numbers.Real)
            or not math.isfinite(value)
            or not _in_bounds(value, self.low, self.high, self.above, self.below)
        ):
            raise Refused
        return float(value)


def _bounds_text(
    low: float | None = None, high: float | None = None, above: float | None = None, below: float | None = None
) -> str:
    if low is not None and high is not None:
        return f" in [{_text(low)}, {_text(high)}]"
    parts = [f"{op} {_text(x)}" for op, x in ((">=", low), (">", above), ("<=", high), ("<", below)) if x is not None]
    return " " + " and ".join(parts) if parts else ""


def _in_bounds(
    x: Any, low: float | None = None, high: float | None = None, above: float | None = None, below: float | None = None
) -> bool:
    return (
        (low is None or x >= low)
        and (high is None or x <= high)
        and (above is None or x > above)
        and (below is None or x < below)
    )


class OneOf(Check):
    """One of `options` (a tuple, or a dict whose keys are the options; read when checking, so a
    registry that grows is followed)."""

    arg_type = str

    def __init__(self, options: Collection[Any]) -> None:
        self.options = options

    # read from the options each time (a registry that grows is followed): properties, not attributes
    @property
    def choices(self) -> tuple[Any, ...]:  # type: ignore[override]
        return tuple(self.options)

    @property
    def what(self) -> str:  # type: ignore[override]
        return "one of " + ", ".join(map(repr, self.options))

    def __call__(self, value: Any) -> Any:
        if not any(type(value) is type(o) and value == o for o in self.options):
            raise Refused
        return value


class Text(Check):
    """A str; `what` says which (a path, a name); empty=False refuses ''."""

    arg_type = str

    def __init__(self, what: str = "a string", empty: bool = True) -> None:
        self.what, self.empty = what, empty

    def __call__(self, value: Any) -> str:
        if not isinstance(value, str) or (not value and not self.empty):
            raise Refused
        return value


class Flag(Check):
    what = "true or false"

    def __call__(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise Refused
        return value


class Dict(Check):
    """A dict (a JSON object) of anything; `what` says of what."""

    def __init__(self, what: str = "a dict") -> None:
        self.what = what

    def __call__(self, value: Any) -> dict[Any, Any]:
        if not isinstance(value, dict):
            raise Refused
        return value


class ListOf(Check):
    """A non-empty list or tuple of items `item` accepts (distinct ones with distinct=True), stored
    as a tuple."""

    def __init__(self, item: Check, distinct: bool = False) -> None:
        self.item, self.distinct = item, distinct
        self.what = f"a non-empty list{' of distinct values' if distinct else ''}, each {item.what}"
        self.arg_type, self.choices = item.arg_type, item.choices

    def __call__(self, value: Any) -> tuple[Any, ...]:
        if not isinstance(value, (list, tuple)) or not value:
            raise Refused
        out = tuple(self.item(v) for v in value)
        if self.distinct and len(set(out)) != len(out):
            raise Refused
        return out


class Maybe(Check):
    """None, or what `check` accepts."""

    def __init__(self, check: Check) -> None:
        self.check = check
        self.what = f"None or {check.what}"
        self.arg_type, self.choices = check.arg_type, check.choices

    def __call__(self, value: Any) -> Any:
        return None if value is None else self.check(value)

    def refusal(self, value: Any) -> str:
        return self.check.refusal(value)  # it was not None: what it must be is what `check` accepts


class Nested(Check):
    """A config of class `cls`, or its dict (read with cls.from_dict, whose errors name its fields)."""

    def __init__(self, cls: type[JsonConfig]) -> None:
        self.cls, self.what = cls, f"a {cls.__name__} or its dict"

    def __call__(self, value: Any) -> JsonConfig:
        if isinstance(value, Mapping):
            return self.cls.from_dict(value)
        if not isinstance(value, self.cls):
            raise Refused
        return value


def setting(
    default: Any = dataclasses.MISSING,
    check: Check | None = None,
    doc: str = "",
    *,
    factory: Callable[[], Any] | None = None,
    metavar: str | None = None,
    json_arg: bool = False,
    file_max: float | None = None,
) -> Any:
    """A config field, declared once: its default (or factory, for a dict; neither: required), its
    `check` (a Check), `doc` (what it means: the help of its command-line option), the option's
    metavar, json_arg (a dict field's option takes one JSON word, inline or a file, rather than
    key=value words) and file_max (the largest value a network file may hold: JsonConfig.file_limits)."""
    if not isinstance(check, Check):
        raise TypeError(f"setting needs a Check, got {check!r}")
    meta = {"check": check, "doc": doc, "metavar": metavar, "json_arg": json_arg, "file_max": file_max}
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def game_kwargs_setting() -> Any:
    """A trainer config's `game_kwargs` field: the game's kwargs (default {})."""
    return setting(
        factory=dict, check=Dict("a dict of the game's kwargs"), doc='the game\'s kwargs, e.g. {"board_size": 9}'
    )


def net_setting(blocks: int) -> Any:
    """A trainer config's `net` field: NetConfig fields, by default a ResNet of `blocks` blocks x 32 channels
    with the BCE value loss (unlike MSE on tanh, its gradient does not vanish when the head saturates)."""
    net = {"trunk": "resnet", "blocks": blocks, "channels": 32, "value_loss": "bce", "value_activation": "leaky_relu"}
    return setting(
        factory=lambda: dict(net),
        check=Dict("a dict of NetConfig fields"),
        doc="the network: NetConfig fields (trunk, blocks, channels, ...)",
    )


def init_from_setting() -> Any:
    """A trainer config's `init_from` field: the net a run starts from (default None: a new net)."""
    return setting(
        None,
        Maybe(Text("a file path or pretrained:NAME", empty=False)),
        "start from the net in this agent, checkpoint or net file (same game, any board size; or "
        "pretrained:NAME); the net's shape then comes from it and `net` is ignored, but for its "
        "value_activation (a setting without weights)",
    )


class _FileLimits:
    """JsonConfig.file_limits: {field: the largest value a network file may hold}, from file_max."""

    def __get__(self, obj: object, cls: type) -> dict[str, Any]:
        if not dataclasses.is_dataclass(cls):
            return {}
        return {
            f.name: f.metadata["file_max"] for f in dataclasses.fields(cls) if f.metadata.get("file_max") is not None
        }


class JsonConfig:
    """Base of a config dataclass whose fields are declared with setting(): checked on construction,
    to/from dict and JSON (unknown fields refused by name), and command-line options."""

    json_indent: ClassVar[int | None] = 2  # None: one line (configs embedded in checkpoints)
    file_limits = _FileLimits()
    if TYPE_CHECKING:  # every subclass is a dataclass: dataclasses.fields(self) and asdict(self) apply
        __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    def __post_init__(self) -> None:
        name = type(self).__name__
        for f in dataclasses.fields(self):
            check, value = f.metadata.get("check"), getattr(self, f.name)
            if check is None:
                raise TypeError(f"{name}.{f.name} is not declared with setting(): it has no check")
            try:
                setattr(self, f.name, check(value))
            except Refused:
                raise ValueError(f"{name}.{f.name} must be {check.refusal(value)}, got {value!r}") from None
            except ValueError as err:  # a nested config's own field
                raise ValueError(f"{name}.{f.name}: {err}") from None
        self.check_rules()

    def check_rules(self) -> None:
        """Rules between fields, and defaults computed from other fields (after every field's own check)."""

    @classmethod
    def check_field(cls, name: str, value: Any) -> Any:
        """`value` as field `name` stores it, or the ValueError construction would raise for it."""
        check = next(f for f in dataclasses.fields(cls) if f.name == name).metadata["check"]
        try:
            return check(value)
        except Refused:
            raise ValueError(f"{cls.__name__}.{name} must be {check.refusal(value)}, got {value!r}") from None

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}

    @classmethod
    def coerce(cls: type[_C], config: _C | Mapping[str, Any] | None) -> _C:
        """`config` itself if it is one, else the config of that mapping's fields (None: the defaults)."""
        if isinstance(config, cls):
            return config
        return cls.from_dict({} if config is None else cast("Mapping[str, Any]", config))

    @classmethod
    def from_dict(cls: type[_C], d: Mapping[str, Any]) -> _C:
        if not isinstance(d, Mapping):
            raise ValueError(f"{cls.__name__}.from_dict needs a mapping, got {type(d).__name__}")
        fields = dataclasses.fields(cls)
        known = {f.name for f in fields}
        unknown = sorted(set(d) - known, key=str)
        if unknown:
            hints = [did_you_mean(str(name), known) for name in unknown]
            if all(hints):
                raise ValueError(
                    " and ".join(f"unknown {cls.__name__} field {name!r}{hint}" for name, hint in zip(unknown, hints))
                )
            raise ValueError(f"unknown {cls.__name__} fields {unknown}; known: {', '.join(sorted(known))}")
        missing = [
            f.name
            for f in fields
            if f.name not in d and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        ]
        if missing:
            raise ValueError(f"{cls.__name__} needs the fields {missing}")
        return cls(**d)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=self.json_indent, sort_keys=True)

    @classmethod
    def from_json(cls: type[_C], text: str | bytes) -> _C:
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_layers(
        cls: type[_C],
        config: str | None = None,
        sets: Sequence[str] = (),
        *,
        sets_option: str = "--set",
        start: Mapping[str, Any] | None = None,
        **given: Any,
    ) -> _C:
        """The defaults, then the fields of `start`, then those in `config` (--config: a JSON file, or an
        inline JSON object), then `sets` (key=value words of the option `sets_option`), then `given`
        (options of their own, e.g. --game)."""
        fields = dict(start or {})
        fields.update(read_json_object(config, f"{cls.__name__} fields") if config else {})
        fields.update(parse_kwargs(sets, sets_option))
        fields.update(given)
        return cls.from_dict(fields)

    # ---- command-line options made from the fields ----------------------------------------------
    @classmethod
    def fields_help(cls, width: int = 100) -> str:
        """Every field as a command's --help lists it: `name = default  (the values it allows)`, then
        its doc wrapped to `width` columns."""
        lines, width = [], max(width, 40)
        for f in dataclasses.fields(cls):
            default = _default(f)
            shown = "(required)" if default is dataclasses.MISSING else _word(default)
            lines += textwrap.wrap(
                f"{f.name} = {shown}  ({f.metadata['check'].what})",
                width,
                initial_indent="  ",
                subsequent_indent=" " * 8,
                break_on_hyphens=False,
            )
            lines += textwrap.wrap(f.metadata["doc"], width, initial_indent=" " * 6, subsequent_indent=" " * 6)
        return "\n".join(lines)

    @classmethod
    def add_options(
        cls, parser: argparse.ArgumentParser, names: Collection[str] | None = None, exclusive: Collection[str] = ()
    ) -> None:
        """Add one option per field named in `names` (default: every field) to argparse `parser`:
        --field-name, its type and choices from the field's check, its default (required when it
        has none), its doc as help. A list field takes one or more words; a dict field key=value
        words or one JSON object (json_arg: one JSON word, inline or a file). The fields named in
        `exclusive` go into one mutually exclusive group."""
        group = parser.add_mutually_exclusive_group() if exclusive else None
        for f in dataclasses.fields(cls):
            if names is None or f.name in names:
                flag, kwargs = _option(f)
                (group if group is not None and f.name in exclusive else parser).add_argument(flag, **kwargs)

    @classmethod
    def from_options(cls: type[_C], args: argparse.Namespace, **given: Any) -> _C:
        """The config of the options add_options made, parsed into `args`, and of `given` fields."""
        fields = {
            f.name: _read_option(f, getattr(args, f.name))
            for f in dataclasses.fields(cls)
            if f.name not in given and hasattr(args, f.name)
        }
        return cls.from_dict({**fields, **given})

    def to_options(self, skip: Collection[str] = ()) -> list[str]:
        """The command-line words of every field (but those in `skip`, None, and empty dicts) that
        from_options reads back to this config."""
        words: list[str] = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in skip or value is None or value == {}:
                continue
            words.append(_flag(f))
            if isinstance(value, dict) and f.metadata["json_arg"]:
                words.append(json.dumps(value, sort_keys=True, separators=(",", ":")))
            elif isinstance(value, dict):
                words += [f"{k}={json.dumps(v)}" for k, v in sorted(value.items())]
            else:
                words += [_text(v) for v in (value if isinstance(value, tuple) else (value,))]
        return words


def _flag(f: dataclasses.Field[Any]) -> str:
    return "--" + f.name.replace("_", "-")


def _word(value: Any) -> str:
    """A default as a --set value is written: JSON, but for a string (as it is) and a float (_text)."""
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return _text(value)
    return json.dumps(list(value) if isinstance(value, tuple) else value)


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


def _inner(f: dataclasses.Field[Any]) -> Check:
    """A field's check, within Maybe."""
    check = f.metadata["check"]
    return check.check if isinstance(check, Maybe) else check


def _option(f: dataclasses.Field[Any]) -> tuple[str, dict[str, Any]]:
    """(flag, add_argument kwargs) of field f."""
    meta, default, inner = f.metadata, _default(f), _inner(f)
    kwargs: dict[str, Any] = {"dest": f.name, "metavar": meta["metavar"]}
    if isinstance(inner, Dict):
        kwargs.update(
            nargs=None if meta["json_arg"] else "*",
            default=None if meta["json_arg"] else [],
            metavar=meta["metavar"] or ("JSON" if meta["json_arg"] else "KEY=VALUE"),
        )
    elif inner.arg_type is None:
        raise TypeError(f"{f.name}: a field checked by {type(inner).__name__} has no command-line form")
    else:
        kwargs.update(
            type=inner.arg_type, choices=inner.choices, default=list(default) if isinstance(default, tuple) else default
        )
        if isinstance(inner, ListOf):
            kwargs["nargs"] = "+"
    if default is dataclasses.MISSING:
        kwargs.update(required=True, default=None)
    item = inner.item if isinstance(inner, ListOf) else inner
    notes = [("each " if item is not inner else "") + item.what] if isinstance(item, (Integer, Number)) else []
    if isinstance(default, (int, float, str)):
        notes.append(f"default {_text(default)}")
    kwargs["help"] = " ".join([meta["doc"]] + [f"({', '.join(notes)})"] * bool(notes)).strip() or None
    return _flag(f), kwargs


def _read_option(f: dataclasses.Field[Any], value: Any) -> Any:
    """A field's value from what argparse parsed for its option."""
    if isinstance(_inner(f), Dict):
        if f.metadata["json_arg"]:
            return read_json_object(value, f"{f.name} fields") if value is not None else {}
        return parse_kwargs(value)
    return tuple(value) if isinstance(value, list) else value


def read_json_object(text: str, what: str, option: str = "--config") -> dict[str, Any]:
    """The JSON object of `text`: inline JSON (it starts with '{') or the name of a JSON file.
    ValueError naming the option when it holds no JSON object (`what`: of what, for the message)."""
    inline = text.lstrip().startswith("{")
    data: str | bytes
    if inline:
        data, where = text, option
    else:
        with open(text, "rb") as f:
            data = f.read()
        where = f"{option} {text}"
    try:
        loaded = json.loads(data)
    except ValueError as err:  # not JSON, or not text
        raise ValueError(f"{where}: not {'valid JSON' if inline else 'a JSON file'} ({err})") from None
    if not isinstance(loaded, dict):
        raise ValueError(f"{where}: expected a JSON object of {what}")
    return loaded


def parse_kwargs(items: Sequence[str] | None, option: str = "--kwargs") -> dict[str, Any]:
    """Game kwargs (or config fields) from the command line: one JSON object, or key=value words
    (values read as JSON when they parse, e.g. 9, 7.5, true, null; else kept as strings). Errors
    name `option`, the option the words came from."""
    if not items:
        return {}
    if len(items) == 1 and items[0].lstrip().startswith("{"):
        try:
            out = json.loads(items[0])
        except json.JSONDecodeError as err:
            raise ValueError(f"{option}: not valid JSON ({err}): {items[0]!r}") from None
        if not isinstance(out, dict):
            raise ValueError(f"{option}: expected a JSON object, got {items[0]!r}")
        return out
    out = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(
                f"{option} takes key=value words (or one JSON object), got {item!r}"
                + (f": write {item}=VALUE" if key and not eq else "")
            )
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out
