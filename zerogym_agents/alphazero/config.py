"""AlphaZeroConfig: everything that defines a training run, saved as JSON beside its checkpoints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zerogym_agents.core.config_io import (
    Flag,
    Integer,
    Number,
    OneOf,
    Text,
    game_kwargs_setting,
    init_from_setting,
    net_setting,
    setting,
)
from zerogym_agents.core.devices import PRECISIONS, device_setting
from zerogym_agents.mcts.config import SearchConfig


@dataclass
class AlphaZeroConfig(SearchConfig):
    """One AlphaZero run. Defaults suit a small game on a 2-core CPU. The self-play search's settings
    (c_puct, dirichlet_*, fpu_reduction, virtual_loss, leaves_per_tree, search, gumbel_m, c_visit,
    c_scale, forced_playouts, decisive_moves, solver) are SearchConfig's fields, inherited."""

    game: str = setting("tictactoe", Text(), "registry name of the game")
    game_kwargs: dict[str, Any] = game_kwargs_setting()
    net: dict[str, Any] = net_setting(blocks=4)
    seed: int = setting(0, Integer(0), "seed of the net's weights, the searches and the replay sampling")
    device: str = device_setting("where the net trains and evaluates self-play positions")
    init_from: str | None = init_from_setting()
    # self-play
    concurrent_games: int = setting(
        64, Integer(1), "self-play games searched together, one evaluator call per batch of their leaves"
    )
    simulations: int = setting(100, Integer(1), "simulations of the search of each move")
    temperature_moves: int = setting(
        8, Integer(0), "moves of a game sampled in proportion to the visits; later moves take the most visited"
    )
    random_opening_moves: int = setting(
        0,
        Integer(0),
        "self-play: each game starts with a number of uniformly "
        "random legal moves drawn from 0..random_opening_moves (never one that "
        "ends the game), neither searched nor trained on (0: off)",
    )
    # no pass while another move is legal before move ceil(no_pass_fraction * board points) (0: none).
    # Go from scratch otherwise tends to collapse: a young value net that credits White with the komi
    # whatever happens makes passing look free, White learns to pass from move 1, and Black learns nothing
    no_pass_fraction: float = setting(
        0.0,
        Number(0, 1),
        "no pass while another move is legal before move ceil(no_pass_fraction * board points) (0: none)",
    )
    precision: str = setting(
        "auto",
        OneOf(PRECISIONS),
        "forward passes: 'auto' (float32 on the CPU, autocast on "
        "CUDA), 'float32', or 'bfloat16' (self-play and SGD forward passes under bf16 "
        "autocast on the CPU too: faster where the CPU has native bf16)",
    )
    eval_cache: int = setting(
        65536,
        Integer(0),
        "self-play: distinct positions whose net outputs are kept "
        "and reused while the weights stay the same (make_evaluator's cache; 0: off)",
    )
    # KataGo (Wu 2019), each off by default. Playout cap randomization: a move gets the full search
    # with probability full_search_prob and is recorded, else a cheap search of cheap_simulations
    # (no root noise) and is not recorded at all. Forced playouts (forced_playouts) are a search setting
    cheap_simulations: int = setting(
        0,
        Integer(0),
        "playout cap randomization: simulations of a cheap search (0: off, every move gets the full search)",
    )
    full_search_prob: float = setting(
        0.25, Number(0, 1), "playout cap randomization: probability of a full search (recorded for training)"
    )
    # KataGo's auxiliary targets (Go; Wu 2019), each off at 0: the net gets an ownership head (the
    # final owner of every point) or a score head (the final score margin / board area), trained on the
    # self-play games' final positions; the search never reads them
    ownership_weight: float = setting(
        0.0, Number(0), "weight of the ownership loss (0: off; 1.5 in KataGo, on the mean over the points)"
    )
    score_weight: float = setting(
        0.0,
        Number(0),
        "weight of the score-margin loss (0: off), a mean squared error on the margin divided by the board's area",
    )
    root_value_weight: float = setting(
        0.0,
        Number(0, 1),
        "value target: (1 - w) * the game's outcome + w * the search's root value at the move (0: the outcome alone)",
    )
    # replay and training
    buffer_size: int = setting(50_000, Integer(1), "positions the replay buffer holds")
    # Polygames: each position is trained on about 8 times at most
    max_reuse: int = setting(8, Integer(1), "times a position is trained on, at most")
    batch_size: int = setting(128, Integer(1), "positions per SGD step")
    min_buffer: int = setting(512, Integer(1), "positions stored before training starts (>= batch_size)")
    lr: float = setting(0.02, Number(0), "learning rate (SGD with momentum)")
    lr_final: float = setting(0.002, Number(0), "final learning rate: cosine decay from lr over max_steps")
    momentum: float = setting(0.9, Number(0, 1), "SGD momentum")
    weight_decay: float = setting(1e-4, Number(0), "the L2 term")
    max_train_per_step: int = setting(4, Integer(0), "SGD steps after each self-play search step, at most")
    overlap_sgd: bool = setting(
        True,
        Flag(),
        "a step's SGD runs on a second thread while its self-play searches (with a copy of the "
        "weights), on batches drawn before the step's games join the buffer; runs stay reproducible",
    )
    # keeps early steps from saturating heads
    grad_clip: float = setting(5.0, Number(0), "gradient norm clipping (0: none)")
    # schedule (in self-play search steps, so that runs are reproducible)
    max_steps: int = setting(2000, Integer(1), "self-play search steps of the run")
    checkpoint_every: int = setting(200, Integer(1), "search steps between checkpoints")
    # losses, learning rate, throughput and buffer fill go to the history (training.png) and TensorBoard
    # every log_every search steps, and at every checkpoint. Counted in steps, not seconds, so that the
    # points fall on the same steps in a resumed run as in an uninterrupted one; 5 gives the 6-minute
    # Connect Four demo (~1 step/s on a 2-core CPU) about 70 points and a default 2000-step run 400,
    # a few hundred bytes each in the checkpoint
    log_every: int = setting(5, Integer(1), "search steps between history entries (training.png, TensorBoard)")
    # tournament pool (Polygames): this share of the games is played against one of the last
    # pool_size checkpoints, drawn with probability ∝ exp(-(Elo_learner - Elo_i) / 400) at each checkpoint
    pool_fraction: float = setting(
        0.25, Number(0, below=1), "share of the self-play games played against a past checkpoint of the pool"
    )
    pool_size: int = setting(10, Integer(1), "checkpoints the pool keeps (the last ones)")

    @property
    def aux_targets(self) -> bool:
        """Whether the run trains on an auxiliary target (ownership or score)."""
        return self.ownership_weight > 0 or self.score_weight > 0

    def check_rules(self) -> None:
        import zerogym

        # an unknown game or bad kwargs: refused here, by name
        state = zerogym.make_state(self.game, **self.game_kwargs)
        if self.cheap_simulations >= self.simulations:
            raise ValueError(
                f"AlphaZeroConfig.cheap_simulations ({self.cheap_simulations}) must be less than "
                f"simulations ({self.simulations}), or 0 to search every move fully"
            )
        super().check_rules()
        if self.aux_targets and not hasattr(state, "ownership"):
            raise ValueError(
                f"AlphaZeroConfig.ownership_weight and score_weight are auxiliary targets for Go (a "
                f"game whose final position gives every point an owner and a score); {self.game!r} "
                f"has none: set both to 0"
            )
        if self.min_buffer < self.batch_size:
            raise ValueError(
                f"AlphaZeroConfig.min_buffer ({self.min_buffer}) must be at least batch_size ({self.batch_size})"
            )
