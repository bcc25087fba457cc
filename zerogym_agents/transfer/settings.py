"""TransferSettings: everything that defines one board-size transfer experiment (see experiment.py)."""
import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from zerogym_agents.config_io import JsonConfig

METHODS = ("scratch", "finetune", "composite", "grown", "curriculum")
DEFAULT_REFERENCES = ("random", "uct:1000", "gnugo:1", "gnugo:10")
MAX_SIMULATIONS = 400
NO_STEP_CAP = 10 ** 9           # AlphaZeroConfig.max_steps in minutes mode: time, not steps, ends a stage
# NetConfig fields that the game fixes (for_game sets them)
GAME_FIELDS = ("in_planes", "action_layout", "extra_actions", "game")


def _positive_int(name, v, low=1):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
        raise ValueError(f"TransferSettings.{name} must be an integer >= {low}, got {v!r}")
    return int(v)


def _positive_number(name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0 or not math.isfinite(v):
        raise ValueError(f"TransferSettings.{name} must be a number > 0, got {v!r}")
    return float(v)


@dataclass
class TransferSettings(JsonConfig):
    """Everything that defines one transfer experiment (JSON-able; see the module docstring).

    config: AlphaZeroConfig fields shared by every method (game, the board size in game_kwargs,
    net, init_from, max_steps and seed are set by the experiment; other game_kwargs such as komi
    apply to every board). composite: CompositeNet keyword arguments. curriculum: the intermediate board sizes
    (default: those between small and big of the big size's parity, e.g. 7 for 5 -> 9).
    curriculum_split: budget share of each curriculum stage, the big board last (default equal).
    opening_moves: the evaluated agent samples its moves in proportion to visit counts while the
    game has fewer moves than this (then plays the most visited), so that games against
    deterministic references (GNU Go) differ.
    """

    source: str
    big_size: int
    small_size: int = None
    methods: tuple = METHODS
    minutes: float = 60.0
    steps: int = None
    eval_every_minutes: float = 10.0
    eval_every_steps: int = None
    eval_games: int = 10
    final_games: int = None
    zero_shot_games: int = 20
    references: tuple = DEFAULT_REFERENCES
    reference_games: int = 0
    simulations: int = 200
    opening_moves: int = 6
    config: dict = field(default_factory=dict)
    grow_blocks: int = 2
    composite: dict = field(default_factory=dict)
    curriculum: tuple = None
    curriculum_split: tuple = None
    seed: int = 0

    def __post_init__(self):
        if not isinstance(self.source, str) or not self.source:
            raise ValueError(f"TransferSettings.source must be a file path or pretrained:NAME, got {self.source!r}")
        self.big_size = _positive_int("big_size", self.big_size, 2)
        if self.small_size is not None:
            self.small_size = _positive_int("small_size", self.small_size, 1)
            if self.small_size >= self.big_size:
                raise ValueError(f"TransferSettings: small_size ({self.small_size}) must be below big_size "
                                 f"({self.big_size})")
        methods = tuple(self.methods)
        bad = [m for m in methods if m not in METHODS]
        if bad or not methods or len(set(methods)) != len(methods):
            raise ValueError(f"TransferSettings.methods must be distinct names among {', '.join(METHODS)}, "
                             f"got {list(methods)}")
        self.methods = methods
        if self.steps is None:
            self.minutes = _positive_number("minutes", self.minutes)
            self.eval_every_minutes = _positive_number("eval_every_minutes", self.eval_every_minutes)
        else:
            self.steps = _positive_int("steps", self.steps)
            if self.eval_every_steps is None:
                self.eval_every_steps = max(1, self.steps // 4)
            self.eval_every_steps = _positive_int("eval_every_steps", self.eval_every_steps)
        for name in ("eval_games", "zero_shot_games", "grow_blocks"):
            setattr(self, name, _positive_int(name, getattr(self, name)))
        self.final_games = _positive_int("final_games", self.eval_games if self.final_games is None
                                         else self.final_games)
        self.reference_games = _positive_int("reference_games", self.reference_games, 0)
        self.opening_moves = _positive_int("opening_moves", self.opening_moves, 0)
        self.seed = _positive_int("seed", self.seed, 0)
        self.simulations = _positive_int("simulations", self.simulations)
        if self.simulations > MAX_SIMULATIONS:
            raise ValueError(f"TransferSettings.simulations must be at most {MAX_SIMULATIONS} (the evaluated "
                             f"agent's search), got {self.simulations}")
        refs = tuple(self.references)
        if not refs or len(set(refs)) != len(refs) or not all(isinstance(r, str) and r for r in refs):
            raise ValueError(f"TransferSettings.references must be distinct agent specs, got {list(refs)}")
        self.references = refs
        for name in ("config", "composite"):
            if not isinstance(getattr(self, name), dict):
                raise ValueError(f"TransferSettings.{name} must be a dict, got {getattr(self, name)!r}")
        fixed = sorted(k for k in self.config if k in ("game", "init_from", "max_steps", "net", "seed"))
        if fixed:
            raise ValueError(f"TransferSettings.config must not set {', '.join(fixed)}: the experiment sets them "
                             f"(nets: from the source; budget: minutes or steps; seed: TransferSettings.seed)")
        if self.curriculum is not None:
            self.curriculum = tuple(_positive_int("curriculum", s, 2) for s in self.curriculum)
        if self.curriculum_split is not None:
            self.curriculum_split = tuple(_positive_number("curriculum_split", float(x))
                                          for x in self.curriculum_split)

    @property
    def step_mode(self):
        return self.steps is not None

    def to_dict(self):
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(self).items()}

