"""Pick the trainer for a PGConfig's algo and run it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zerogym_agents.training.run_folder import LogDir
from zerogym_agents.pg.config import PGConfig, PGConfigLike

if TYPE_CHECKING:
    from zerogym_agents.pg.base import PGTrainer


def make_trainer(config: PGConfigLike, out_dir: str, resume: bool = False, log_dir: LogDir = None) -> PGTrainer:
    """ReinforceTrainer for algo "reinforce" / "reinforce-baseline", PPOTrainer for "ppo"."""
    cfg = PGConfig.coerce(config)
    if cfg.algo == "ppo":
        from zerogym_agents.pg.ppo import PPOTrainer

        return PPOTrainer(cfg, out_dir, resume=resume, log_dir=log_dir)
    from zerogym_agents.pg.reinforce import ReinforceTrainer

    return ReinforceTrainer(cfg, out_dir, resume=resume, log_dir=log_dir)


def train(
    config: PGConfigLike,
    out_dir: str,
    resume: bool = False,
    progress: bool = True,
    max_seconds: float | None = None,
) -> PGTrainer:
    """Run policy-gradient training as configured; returns the trainer (its .net is the result)."""
    trainer = make_trainer(config, out_dir, resume=resume)
    trainer.run(progress=progress, max_seconds=max_seconds)
    return trainer
