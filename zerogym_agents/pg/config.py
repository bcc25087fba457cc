"""PGConfig: everything that defines a policy-gradient run, saved as JSON beside its checkpoints."""
import dataclasses
from dataclasses import dataclass, field

from zerogym_agents.config_io import JsonConfig

ALGOS = ("reinforce", "reinforce-baseline", "ppo")
OPTIMIZERS = ("adam", "sgd")
AUGMENTS = ("random", "all", "none")
POOL_MODES = ("uniform", "elo")
SNAPSHOT_UNITS = ("episodes", "steps")
BATCHNORM_MODES = ("auto", "batch", "frozen")


@dataclass
class PGConfig(JsonConfig):
    """One policy-gradient run against a pool of past selves. Defaults suit Connect Four on a small CPU.

    algo: "reinforce" (ZetaGo's update: every learner move weighted by the game's result),
    "reinforce-baseline" (advantage = result - V(s), V trained by the net's value loss) or "ppo"
    (sb3-contrib's MaskablePPO on pg.pool_vec_env.PoolVecEnv, the vector path as an SB3 VecEnv).

    A *step* is one policy update. REINFORCE: num_envs games played to the end through the vector
    path (the learner's seat alternates between games and steps), then one gradient step on all of
    the learner's moves. PPO: ppo_n_steps learner moves in each of num_envs games,
    then ppo_epochs epochs of minibatches.

    Pool: a frozen snapshot of the learner joins the pool every snapshot_every learner episodes (or
    learner moves, snapshot_unit="steps"); the pool keeps the last pool_size. Opponents are drawn
    uniformly (pool_mode="uniform", ZetaGo: Painter & Johnston, paper 002) or with probability
    ∝ exp(-(Elo_learner - Elo_i) / 400) (pool_mode="elo", Polygames: Cazenave et al., paper 000).
    REINFORCE draws one opponent per step; PPO draws one per game.
    """

    algo: str = "reinforce"
    game: str = "connect_four"
    game_kwargs: dict = field(default_factory=dict)
    # the AlphaZero nets (zerogym_agents.nets.NetConfig fields other than the game's own)
    net: dict = field(default_factory=lambda: {"trunk": "resnet", "blocks": 2, "channels": 32, "value_loss": "bce"})
    seed: int = 0
    torch_threads: int = 1
    # start from these weights (a net, agent or checkpoint file of the same game at any board size, or
    # "pretrained:NAME"); the net's shape then comes from that file and `net` is ignored
    init_from: str = None
    # rollouts
    num_envs: int = 64
    gamma: float = 1.0                # discount per learner move (1: every move gets the final result)
    augment: str = "random"           # REINFORCE: a random board symmetry per position, all of them, or none
    # optimisation
    optimizer: str = "adam"
    lr: float = 1e-3
    lr_final: float = None            # cosine decay from lr to lr_final over the run (None: lr, a constant rate)
    momentum: float = 0.9             # sgd only
    weight_decay: float = 1e-4
    grad_clip: float = 1.0            # gradient norm clipping (0: none)
    entropy_coef: float = 0.05        # entropy bonus; with 0.01 the policies turned nearly deterministic within
                                      # minutes on Connect Four and learned to beat their past selves, not to play
    value_coef: float = 0.5           # reinforce-baseline and ppo; plain reinforce trains no value
    minibatch_size: int = 2048        # REINFORCE: positions per forward/backward chunk (one update per step)
    # BatchNorm while learning: "batch" (batch statistics, running ones updated, as in supervised training;
    # the policy trained then differs a little from the one that played, which REINFORCE's truncated
    # importance weights correct), "frozen" (running statistics, never updated: the trained policy is
    # exactly the one that played, but the trunk is then unnormalised and learns tactics more slowly),
    # "auto" (batch for REINFORCE, frozen for PPO, whose probability ratios then start at exactly 1)
    batchnorm: str = "auto"
    # PPO (MaskablePPO)
    ppo_n_steps: int = 64
    ppo_batch_size: int = 256
    ppo_epochs: int = 4
    clip_range: float = 0.2
    gae_lambda: float = 0.95
    # opponent pool
    pool_mode: str = "uniform"
    pool_size: int = 10
    pool_k_factor: float = 16.0
    snapshot_every: int = 500
    snapshot_unit: str = "episodes"
    opponent_greedy: bool = False     # pool opponents sample from their policy (False) or play its argmax
    # schedule
    max_steps: int = 1000
    checkpoint_every: int = 50
    log_every: int = 10

    def __post_init__(self):
        def positive_int(name, lo=1):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise ValueError(f"PGConfig.{name} must be an integer >= {lo}, got {v!r}")

        def number(name, lo, hi=None, open_lo=False):
            v = getattr(self, name)
            ok = not isinstance(v, bool) and isinstance(v, (int, float)) and (v > lo if open_lo else v >= lo) \
                and (hi is None or v <= hi)
            if not ok:
                rng = f"{'>' if open_lo else '>='} {lo:g}" + (f" and <= {hi:g}" if hi is not None else "")
                raise ValueError(f"PGConfig.{name} must be a number {rng}, got {v!r}")
            setattr(self, name, float(v))

        def choice(name, allowed):
            v = getattr(self, name)
            if v not in allowed:
                raise ValueError(f"PGConfig.{name} must be one of {', '.join(map(repr, allowed))}, got {v!r}")

        choice("algo", ALGOS)
        choice("optimizer", OPTIMIZERS)
        choice("augment", AUGMENTS)
        choice("pool_mode", POOL_MODES)
        choice("snapshot_unit", SNAPSHOT_UNITS)
        for name in ("num_envs", "minibatch_size", "ppo_n_steps", "ppo_epochs", "pool_size", "snapshot_every",
                     "max_steps", "checkpoint_every", "log_every", "torch_threads"):
            positive_int(name)
        positive_int("ppo_batch_size", 2)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"PGConfig.seed must be an integer >= 0, got {self.seed!r}")
        number("lr", 0.0, open_lo=True)
        if self.lr_final is None:
            self.lr_final = self.lr
        number("lr_final", 0.0)
        number("gamma", 0.0, 1.0, open_lo=True)
        number("gae_lambda", 0.0, 1.0)
        number("momentum", 0.0, 1.0)
        number("clip_range", 0.0, open_lo=True)
        for name in ("weight_decay", "grad_clip", "entropy_coef", "value_coef", "pool_k_factor"):
            number(name, 0.0)
        choice("batchnorm", BATCHNORM_MODES)
        if self.init_from is not None and not (isinstance(self.init_from, str) and self.init_from):
            raise ValueError(f"PGConfig.init_from must be a file path, \"pretrained:NAME\" or None, "
                             f"got {self.init_from!r}")
        if not isinstance(self.opponent_greedy, bool):
            raise ValueError(f"PGConfig.opponent_greedy must be true or false, got {self.opponent_greedy!r}")
        if self.algo == "ppo" and self.ppo_n_steps * self.num_envs < 2:
            raise ValueError("PGConfig: ppo needs ppo_n_steps * num_envs >= 2 moves per update, got "
                             f"{self.ppo_n_steps} * {self.num_envs}")
        self._check_game()

    def _check_game(self):
        """The game name, its kwargs and the net fields, checked by building them (no torch needed)."""
        import zerogym
        from zerogym.registry import GAMES
        if self.game not in GAMES:
            raise ValueError(f"PGConfig.game must be one of {', '.join(map(repr, GAMES))}, got {self.game!r}")
        if not isinstance(self.game_kwargs, dict):
            raise ValueError(f"PGConfig.game_kwargs must be a dict of the game's kwargs, got {self.game_kwargs!r}")
        allowed = sorted(zerogym.make_state(self.game).spec.kwargs)
        unknown = sorted(set(self.game_kwargs) - set(allowed))
        if unknown:
            raise ValueError(f"PGConfig.game_kwargs: {self.game} has no kwargs {unknown}; "
                             f"allowed: {', '.join(allowed)}")
        try:
            zerogym.make_state(self.game, **self.game_kwargs)
        except (TypeError, ValueError) as err:
            raise ValueError(f"PGConfig.game_kwargs: {err}") from None
        if not isinstance(self.net, dict):
            raise ValueError(f"PGConfig.net must be a dict of NetConfig fields, got {self.net!r}")
        self.net_config()

    def batch_stats(self):
        """True when BatchNorm uses batch statistics while learning (see the batchnorm field)."""
        if self.batchnorm == "auto":
            return self.algo != "ppo"
        return self.batchnorm == "batch"

    def net_config(self):
        """The zerogym_agents.nets.NetConfig of the learner (fitted to the game)."""
        from zerogym_agents.nets.model import NetConfig, for_game
        known = {f.name for f in dataclasses.fields(NetConfig)}
        unknown = sorted(set(self.net) - known)
        if unknown:
            raise ValueError(f"PGConfig.net: unknown NetConfig fields {unknown}; known: {', '.join(sorted(known))}")
        try:
            return for_game(self.game, game_kwargs=self.game_kwargs, **self.net)
        except (TypeError, ValueError) as err:
            raise ValueError(f"PGConfig.net: {err}") from None
