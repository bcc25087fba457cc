"""TransferSettings: everything that defines one board-size transfer experiment (see experiment.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zerogym_agents.core.config_io import Dict, Integer, JsonConfig, ListOf, Maybe, Number, OneOf, Text, setting

METHODS = ("scratch", "finetune", "composite", "grown", "curriculum")
DEFAULT_REFERENCES = ("random", "uct:1000", "gnugo:1", "gnugo:10")
MAX_SIMULATIONS = 400
NO_STEP_CAP = 10**9  # AlphaZeroConfig.max_steps in minutes mode: time, not steps, ends a stage
# NetConfig fields that the game fixes (for_game sets them)
GAME_FIELDS = ("in_planes", "action_layout", "extra_actions", "actions_per_cell", "game")


@dataclass
class TransferSettings(JsonConfig):
    """Everything that defines one transfer experiment (JSON-able; see the module docstring).

    Each field's doc is the help of its `zerogym transfer run` option (run_cli.py makes the options
    from these declarations). config: AlphaZeroConfig fields shared by every method (game, the board
    size in game_kwargs, net, init_from, max_steps and seed are set by the experiment; other
    game_kwargs such as komi apply to every board).
    """

    source: str = setting(
        check=Text("a file path or pretrained:NAME", empty=False),
        metavar="FILE",
        doc="saved agent, checkpoint or pretrained:NAME (a net trained on the small board)",
    )
    big_size: int = setting(check=Integer(2), doc="board size to transfer to")
    small_size: int | None = setting(
        None, Maybe(Integer(1)), "the source's board size, by default from its card or config"
    )
    methods: tuple[str, ...] = setting(
        METHODS, ListOf(OneOf(METHODS), distinct=True), f"any of {', '.join(METHODS)} (default all)", metavar="METHOD"
    )
    minutes: float = setting(60.0, Number(above=0), "training minutes per method")
    steps: int | None = setting(None, Maybe(Integer(1)), "or: self-play search steps per method (deterministic)")
    eval_every_minutes: float = setting(10.0, Number(above=0), "evaluate every so many training minutes")
    eval_every_steps: int | None = setting(
        None, Maybe(Integer(1)), "with --steps: evaluate every so many steps, by default steps/4"
    )
    eval_games: int = setting(10, Integer(1), "games against each reference per evaluation")
    final_games: int | None = setting(
        None, Maybe(Integer(1)), "games per reference at the last evaluation, by default as --eval-games"
    )
    zero_shot_games: int = setting(20, Integer(1), "games of the untrained source net against Random")
    references: tuple[str, ...] = setting(
        DEFAULT_REFERENCES,
        ListOf(Text("an agent spec", empty=False), distinct=True),
        "reference agents (arena specs: random, greedy, uct:N, gnugo:LEVEL, a saved agent)",
        metavar="SPEC",
    )
    reference_games: int = setting(0, Integer(0), "games between each pair of references")
    simulations: int = setting(200, Integer(1, MAX_SIMULATIONS), "simulations per move of the evaluated AlphaZeroAgent")
    opening_moves: int = setting(
        6,
        Integer(0),
        "the evaluated agent samples its moves in proportion to visit "
        "counts before this move number (then plays the most visited), so that games "
        "against deterministic references (GNU Go) differ",
    )
    config: dict[str, Any] = setting(
        factory=dict,
        check=Dict("a dict of AlphaZeroConfig fields"),
        json_arg=True,
        doc="AlphaZeroConfig fields: a JSON file or an inline JSON object",
    )
    grow_blocks: int = setting(2, Integer(1), "residual blocks the grown method adds")
    composite: dict[str, Any] = setting(
        factory=dict,
        check=Dict("a dict of CompositeNet options"),
        doc="CompositeNet options, e.g. downscalings=4 features=32",
    )
    curriculum: tuple[int, ...] | None = setting(
        None,
        Maybe(ListOf(Integer(2))),
        metavar="SIZE",
        doc="intermediate board sizes, by default those between of the big size's parity",
    )
    curriculum_split: tuple[float, ...] | None = setting(
        None,
        Maybe(ListOf(Number(above=0))),
        "budget shares of the curriculum stages, the big board last; equal by default",
        metavar="SHARE",
    )
    seed: int = setting(0, Integer(0), "seeds everything")

    def check_rules(self) -> None:
        if self.small_size is not None and self.small_size >= self.big_size:
            raise ValueError(
                f"TransferSettings: small_size ({self.small_size}) must be below big_size ({self.big_size})"
            )
        fixed = sorted(k for k in self.config if k in ("game", "init_from", "max_steps", "net", "seed"))
        if fixed:
            raise ValueError(
                f"TransferSettings.config must not set {', '.join(fixed)}: the experiment sets them "
                f"(nets: from the source; budget: minutes or steps; seed: TransferSettings.seed)"
            )
        if self.steps is not None and self.eval_every_steps is None:
            self.eval_every_steps = max(1, self.steps // 4)
        if self.final_games is None:
            self.final_games = self.eval_games

    @property
    def step_mode(self) -> bool:
        return self.steps is not None
