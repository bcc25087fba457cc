"""The training algorithms the harness knows, by name: how to build each one's run (a TrainingRun)
from a dict of its config fields."""
from dataclasses import dataclass, field

from zerogym_agents.pg.config import ALGOS as PG_ALGOS


@dataclass(frozen=True)
class Algorithm:
    """build(fields, folder, resume, log_dir) -> TrainingRun, where `fields` are the config's fields
    (a dict, JSON-able: it is saved with the run's records) and `defaults` the fields the harness
    sets for this algorithm in every config unless the config sets them."""
    name: str
    build: object
    defaults: dict = field(default_factory=dict)


ALGORITHMS = {}


def register(name, build, **defaults):
    """Make algorithm `name` known to the harness (Comparison.add(name, algorithm=...))."""
    ALGORITHMS[name] = Algorithm(name, build, dict(defaults))
    return ALGORITHMS[name]


def algorithm(name):
    """The registered Algorithm called `name` (ValueError listing the known ones otherwise)."""
    if name not in ALGORITHMS:
        raise ValueError(f"unknown training algorithm {name!r}; known: {', '.join(ALGORITHMS)}")
    return ALGORITHMS[name]


def build_alphazero(fields, folder, resume=False, log_dir=None):
    from zerogym_agents.alphazero.config import AlphaZeroConfig
    from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
    return AlphaZeroTrainer(AlphaZeroConfig.from_dict(fields), folder, resume=resume, log_dir=log_dir)


def build_policy_gradient(fields, folder, resume=False, log_dir=None):
    from zerogym_agents.pg.config import PGConfig
    from zerogym_agents.pg.trainers import make_trainer
    return make_trainer(PGConfig.from_dict(fields), folder, resume=resume, log_dir=log_dir)


register("alphazero", build_alphazero)
for _algo in PG_ALGOS:
    register(_algo, build_policy_gradient, algo=_algo)
