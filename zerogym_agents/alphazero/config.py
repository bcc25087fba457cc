"""AlphaZeroConfig: everything that defines a training run, saved as JSON beside its checkpoints."""
from dataclasses import dataclass, field

from zerogym_agents.config_io import JsonConfig


@dataclass
class AlphaZeroConfig(JsonConfig):
    """One AlphaZero run. Defaults suit a small game on a 2-core CPU."""

    game: str = "tictactoe"
    game_kwargs: dict = field(default_factory=dict)
    # BCE on the value: unlike MSE on tanh, its gradient does not vanish when the head saturates
    net: dict = field(default_factory=lambda: {"trunk": "resnet", "blocks": 4, "channels": 32, "value_loss": "bce"})
    seed: int = 0
    # start from these weights (a net, agent or checkpoint file of the same game, any board size);
    # the net's shape then comes from that file and `net` is ignored
    init_from: str = None
    # self-play
    concurrent_games: int = 64        # G games searched together, one evaluator call per batch of leaves
    simulations: int = 100
    c_puct: float = 1.5
    dirichlet_alpha: float = 0.3
    dirichlet_epsilon: float = 0.25
    fpu_reduction: float = 0.25
    leaves_per_tree: int = 1
    temperature_moves: int = 8        # moves sampled in proportion to visits, then the most visited
    # no pass while another move is legal before move ceil(no_pass_fraction * board points) (0: none).
    # Go from scratch otherwise tends to collapse: a young value net that credits White with the komi
    # whatever happens makes passing look free, White learns to pass from move 1, and Black learns nothing
    no_pass_fraction: float = 0.0
    # replay and training
    buffer_size: int = 50_000
    max_reuse: int = 8                # Polygames: each position is trained on about 8 times at most
    batch_size: int = 128
    min_buffer: int = 512             # positions stored before training starts
    lr: float = 0.02
    lr_final: float = 0.002           # cosine decay from lr to lr_final over max_steps search steps
    momentum: float = 0.9
    weight_decay: float = 1e-4        # the L2 term
    max_train_per_step: int = 4       # training steps after each self-play search step, at most
    grad_clip: float = 5.0            # gradient norm clipping (0: none); keeps early steps from saturating heads
    # schedule (in self-play search steps, so that runs are reproducible)
    max_steps: int = 2000
    checkpoint_every: int = 200
    # losses, learning rate, throughput and buffer fill go to the history (training.png) and TensorBoard
    # every log_every search steps, and at every checkpoint. Counted in steps, not seconds, so that the
    # points fall on the same steps in a resumed run as in an uninterrupted one; 5 gives the 6-minute
    # Connect Four demo (~1 step/s on a 2-core CPU) about 70 points and a default 2000-step run 400,
    # a few hundred bytes each in the checkpoint
    log_every: int = 5
    # tournament pool (Polygames): this share of the games is played against one of the last
    # pool_size checkpoints, drawn with probability ∝ exp(-(Elo_learner - Elo_i) / 400) at each checkpoint
    pool_fraction: float = 0.25
    pool_size: int = 10

    def __post_init__(self):
        for name, kind in (("game", str), ("game_kwargs", dict), ("net", dict)):
            if not isinstance(getattr(self, name), kind):
                raise ValueError(f"AlphaZeroConfig.{name} must be a {'JSON object' if kind is dict else 'string'}, "
                                 f"got {getattr(self, name)!r}")
        import zerogym
        zerogym.make_state(self.game, **self.game_kwargs)      # an unknown game or bad kwargs: refused here, by name
        if self.init_from is not None and not isinstance(self.init_from, str):
            raise ValueError(f"AlphaZeroConfig.init_from must be a file name or null, got {self.init_from!r}")
        for name in ("seed", "temperature_moves", "min_buffer", "max_train_per_step"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"AlphaZeroConfig.{name} must be an integer >= 0, got {value!r}")
        for name in ("c_puct", "dirichlet_alpha", "dirichlet_epsilon", "fpu_reduction", "lr", "lr_final", "momentum",
                     "weight_decay", "grad_clip", "pool_fraction"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
                raise ValueError(f"AlphaZeroConfig.{name} must be a number >= 0, got {value!r}")
        for name in ("concurrent_games", "simulations", "buffer_size", "batch_size", "max_steps",
                     "checkpoint_every", "log_every", "pool_size", "max_reuse", "leaves_per_tree"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"AlphaZeroConfig.{name} must be a positive integer, got {value!r}")
        if isinstance(self.no_pass_fraction, bool) or not isinstance(self.no_pass_fraction, (int, float)) \
                or not 0.0 <= self.no_pass_fraction <= 1.0:
            raise ValueError(f"AlphaZeroConfig.no_pass_fraction must be a number in [0, 1], got {self.no_pass_fraction!r}")
        if not 0.0 <= self.pool_fraction < 1.0:
            raise ValueError(f"AlphaZeroConfig.pool_fraction must be in [0, 1), got {self.pool_fraction!r}")
        if self.min_buffer < self.batch_size:
            raise ValueError(f"AlphaZeroConfig.min_buffer ({self.min_buffer}) must be at least batch_size "
                             f"({self.batch_size})")
