"""Pick the trainer for a PGConfig's algo and run it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zerogym_agents.pg.config import PGConfig

if TYPE_CHECKING:
    from zerogym_agents.pg.base import PGTrainer


def make_trainer(
    config: PGConfig | dict[str, Any], out_dir: str, resume: bool = False, log_dir: str | bool | None = None
) -> PGTrainer:
    """ReinforceTrainer for algo "reinforce" / "reinforce-baseline", PPOTrainer for "ppo"."""
    cfg = PGConfig.coerce(config)
    if cfg.algo == "ppo":
        from zerogym_agents.pg.ppo import PPOTrainer

        return PPOTrainer(cfg, out_dir, resume=resume, log_dir=log_dir)
    from zerogym_agents.pg.reinforce import ReinforceTrainer

    return ReinforceTrainer(cfg, out_dir, resume=resume, log_dir=log_dir)


def train(
    config: PGConfig | dict[str, Any],
    out_dir: str,
    resume: bool = False,
    progress: bool = True,
    max_seconds: float | None = None,
) -> PGTrainer:
    """Run policy-gradient training as configured; returns the trainer (its .net is the result)."""
    trainer = make_trainer(config, out_dir, resume=resume)
    trainer.run(progress=progress, max_seconds=max_seconds)
    return trainer
