"""The training algorithms the harness knows, by name: how to build each one's run (a TrainingRun)
from a dict of its config fields."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from zerogym_agents.pg.config import ALGOS as PG_ALGOS


@dataclass(frozen=True)
class Algorithm:
    """build(fields, folder, resume, log_dir, net=None) -> TrainingRun, where `fields` are the
    config's fields (a dict, JSON-able: it is saved with the run's records), `defaults` the fields
    the harness sets for this algorithm in every config unless the config sets them, and takes_net
    whether build takes `net`, a network object to start from instead of a fresh one (a net that
    no config field describes, such as the transfer experiment's grown or composite nets)."""

    name: str
    build: Callable[..., Any]
    defaults: dict[str, Any] = field(default_factory=dict)
    takes_net: bool = False


ALGORITHMS: dict[str, Algorithm] = {}


def register(name: str, build: Callable[..., Any], takes_net: bool = False, **defaults: Any) -> Algorithm:
    """Make algorithm `name` known to the harness (Comparison.add(name, algorithm=...))."""
    ALGORITHMS[name] = Algorithm(name, build, dict(defaults), takes_net)
    return ALGORITHMS[name]


def algorithm(name: str) -> Algorithm:
    """The registered Algorithm called `name` (ValueError listing the known ones otherwise)."""
    if name not in ALGORITHMS:
        raise ValueError(f"unknown training algorithm {name!r}; known: {', '.join(ALGORITHMS)}")
    return ALGORITHMS[name]


def build_alphazero(
    fields: dict[str, Any], folder: str, resume: bool = False, log_dir: str | None = None, net: Any = None
) -> Any:
    """An AlphaZeroTrainer; `net` (not on resume: the checkpoint holds the net) replaces the one that
    config.net or config.init_from would give."""
    from zerogym_agents.alphazero.config import AlphaZeroConfig
    from zerogym_agents.alphazero.trainer import AlphaZeroTrainer

    return AlphaZeroTrainer(AlphaZeroConfig.from_dict(fields), folder, resume=resume, log_dir=log_dir, net=net)


def build_policy_gradient(fields: dict[str, Any], folder: str, resume: bool = False, log_dir: str | None = None) -> Any:
    """The policy-gradient trainer of fields["algo"] (ReinforceTrainer or PPOTrainer)."""
    from zerogym_agents.pg.config import PGConfig
    from zerogym_agents.pg.trainers import make_trainer

    return make_trainer(PGConfig.from_dict(fields), folder, resume=resume, log_dir=log_dir)


register("alphazero", build_alphazero, takes_net=True)
for _algo in PG_ALGOS:
    register(_algo, build_policy_gradient, algo=_algo)
