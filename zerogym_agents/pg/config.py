"""PGConfig: everything that defines a policy-gradient run, saved as JSON beside its checkpoints."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

from zerogym.registry import GAMES
from zerogym_agents.core.config_io import (
    Flag,
    Integer,
    JsonConfig,
    Maybe,
    Number,
    OneOf,
    game_kwargs_setting,
    init_from_setting,
    net_setting,
    setting,
)
from zerogym_agents.core.devices import device_setting

if TYPE_CHECKING:
    from zerogym_agents.nets.model import NetConfig

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
    uniformly (pool_mode="uniform", ZetaGo: Painter & Johnston) or with probability
    ∝ exp(-(Elo_learner - Elo_i) / 400) (pool_mode="elo", Polygames: Cazenave et al. 2020).
    REINFORCE draws one opponent per step; PPO draws one per game.
    """

    algo: str = setting("reinforce", OneOf(ALGOS), "the update: REINFORCE, REINFORCE with a value baseline, or PPO")
    game: str = setting("connect_four", OneOf(GAMES), "registry name of the game")
    game_kwargs: dict[str, Any] = game_kwargs_setting()
    # the AlphaZero nets (zerogym_agents.nets.NetConfig fields other than the game's own)
    net: dict[str, Any] = net_setting(blocks=2)
    seed: int = setting(0, Integer(0), "seed of the net's weights, the games and the pool's draws")
    torch_threads: int = setting(1, Integer(1), "torch's CPU threads")
    device: str = device_setting("where the net trains and plays")
    init_from: str | None = init_from_setting()
    # rollouts
    num_envs: int = setting(64, Integer(1), "games played at once")
    gamma: float = setting(
        1.0, Number(above=0, high=1), "discount per learner move (1: every move gets the final result)"
    )
    augment: str = setting(
        "random", OneOf(AUGMENTS), "REINFORCE: a random board symmetry per position, all of them, or none"
    )
    # optimisation
    optimizer: str = setting("adam", OneOf(OPTIMIZERS), "the optimizer")
    lr: float = setting(1e-3, Number(above=0), "learning rate")
    lr_final: float | None = setting(
        None, Maybe(Number(0)), "final learning rate: cosine decay from lr over the run (None: lr, a constant rate)"
    )
    momentum: float = setting(0.9, Number(0, 1), "SGD momentum (optimizer sgd only)")
    weight_decay: float = setting(1e-4, Number(0), "the L2 term")
    grad_clip: float = setting(1.0, Number(0), "gradient norm clipping (0: none)")
    # entropy bonus; with 0.01 the policies turned nearly deterministic within minutes on Connect Four
    # and learned to beat their past selves, not to play
    entropy_coef: float = setting(0.05, Number(0), "weight of the entropy bonus")
    value_coef: float = setting(
        0.5, Number(0), "weight of the value loss (reinforce-baseline and ppo; plain reinforce trains no value)"
    )
    minibatch_size: int = setting(2048, Integer(1), "REINFORCE: positions per forward/backward chunk of one update")
    # BatchNorm while learning: "batch" (batch statistics, running ones updated, as in supervised training;
    # the policy trained then differs a little from the one that played, which REINFORCE's truncated
    # importance weights correct), "frozen" (running statistics, never updated: the trained policy is
    # exactly the one that played, but the trunk is then unnormalised and learns tactics more slowly),
    # "auto" (batch for REINFORCE, frozen for PPO, whose probability ratios then start at exactly 1)
    batchnorm: str = setting(
        "auto",
        OneOf(BATCHNORM_MODES),
        "BatchNorm while learning: batch statistics, frozen running ones, or auto (batch: REINFORCE, frozen: PPO)",
    )
    # PPO (MaskablePPO)
    ppo_n_steps: int = setting(64, Integer(1), "PPO: learner moves per game in one update")
    ppo_batch_size: int = setting(256, Integer(2), "PPO: positions per minibatch")
    ppo_epochs: int = setting(4, Integer(1), "PPO: epochs over the moves of one update")
    clip_range: float = setting(0.2, Number(above=0), "PPO: clipping of the probability ratio")
    gae_lambda: float = setting(0.95, Number(0, 1), "PPO: lambda of the generalised advantage estimate")
    # opponent pool
    pool_mode: str = setting(
        "uniform",
        OneOf(POOL_MODES),
        "how opponents are drawn from the pool: uniformly, or by Elo (the closer to the learner, the likelier)",
    )
    pool_size: int = setting(10, Integer(1), "snapshots the pool keeps (the last ones)")
    pool_k_factor: float = setting(16.0, Number(0), "Elo K-factor of the pool's ratings")
    snapshot_every: int = setting(500, Integer(1), "learner episodes (or moves: snapshot_unit) between snapshots")
    snapshot_unit: str = setting("episodes", OneOf(SNAPSHOT_UNITS), "what snapshot_every counts")
    opponent_greedy: bool = setting(
        False, Flag(), "pool opponents play their policy's argmax (false: they sample from it)"
    )
    # schedule
    max_steps: int = setting(1000, Integer(1), "updates of the run")
    checkpoint_every: int = setting(50, Integer(1), "updates between checkpoints")
    log_every: int = setting(10, Integer(1), "updates between history entries (training.png, TensorBoard)")

    def check_rules(self) -> None:
        if self.lr_final is None:
            self.lr_final = self.lr
        if self.algo == "ppo" and self.ppo_n_steps * self.num_envs < 2:
            raise ValueError(
                "PGConfig: ppo needs ppo_n_steps * num_envs >= 2 moves per update, got "
                f"{self.ppo_n_steps} * {self.num_envs}"
            )
        self._check_game()

    def _check_game(self) -> None:
        """The game's kwargs and the net fields, checked by building them (no torch needed)."""
        import zerogym

        allowed = sorted(zerogym.make_state(self.game).spec.kwargs)
        unknown = sorted(set(self.game_kwargs) - set(allowed))
        if unknown:
            raise ValueError(
                f"PGConfig.game_kwargs: {self.game} has no kwargs {unknown}; allowed: {', '.join(allowed)}"
            )
        try:
            zerogym.make_state(self.game, **self.game_kwargs)
        except (TypeError, ValueError) as err:
            raise ValueError(f"PGConfig.game_kwargs: {err}") from None
        self.net_config()

    def batch_stats(self) -> bool:
        """True when BatchNorm uses batch statistics while learning (see the batchnorm field)."""
        if self.batchnorm == "auto":
            return self.algo != "ppo"
        return self.batchnorm == "batch"

    def net_config(self) -> NetConfig:
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


# what the trainers take for their config: a PGConfig or its dict (PGConfig.coerce)
PGConfigLike = Union[PGConfig, dict[str, Any]]
