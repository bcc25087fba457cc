"""JSON round trips shared by the config dataclasses (nets, training runs, experiments)."""
import dataclasses
import json
from collections.abc import Mapping


class JsonConfig:
    """Mixin for a config dataclass: to/from dict and JSON, refusing unknown fields by name."""

    json_indent = 2           # None: one line (configs embedded in checkpoints)

    def to_dict(self):
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d):
        if not isinstance(d, Mapping):
            raise ValueError(f"{cls.__name__}.from_dict needs a mapping, got {type(d).__name__}")
        fields = dataclasses.fields(cls)
        known = {f.name for f in fields}
        unknown = sorted(set(d) - known, key=str)
        if unknown:
            raise ValueError(f"unknown {cls.__name__} fields {unknown}; known: {', '.join(sorted(known))}")
        missing = [f.name for f in fields if f.name not in d and f.default is dataclasses.MISSING
                   and f.default_factory is dataclasses.MISSING]
        if missing:
            raise ValueError(f"{cls.__name__} needs the fields {missing}")
        return cls(**d)

    def to_json(self):
        return json.dumps(self.to_dict(), indent=self.json_indent, sort_keys=True)

    @classmethod
    def from_json(cls, text):
        return cls.from_dict(json.loads(text))
