"""REINFORCE against a pool of past selves, with or without a learned value baseline.

ZetaGo (Painter & Johnston, "Mastering the game of Go from scratch") plays a batch of games against
an opponent drawn from snapshots of the learner and updates the policy by sum_t grad log p(a_t | s_t) * r, r the game's
result; it names the missing value baseline as the likely cause of its unstable training.
algo="reinforce" is that update; algo="reinforce-baseline" uses r - V(s_t), with V the
PolicyValueNet's value head trained on r (Williams 1992; Sutton et al. 2000).

One step: num_envs games through the vector path (one forward pass per vector step for all the
learner's moves, one for the opponent's), then one gradient step on all of the learner's positions,
each seen under a random board symmetry (or all of them), with an entropy bonus. Illegal actions
are masked out of the softmax everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch.nn.functional as F

import zerogym.vector
from zerogym_agents.nets import PolicyValueNet
from zerogym_agents.agents.policy import PolicyAgent
from zerogym_agents.pg.base import PGTrainer, learning_mode, seed_for
from zerogym_agents.pg.opponents import PoolOpponent, SnapshotSchedule, snapshot
from zerogym_agents.pg.rollout import Episodes, play_episodes
from zerogym_agents.training.interrupt import OutOfTime

if TYPE_CHECKING:
    from zerogym.symmetry import Symmetries
    from zerogym_agents.core.file_checks import Spec
    from zerogym_agents.pg.config import PGConfig


def masked_log_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """log-probabilities over the legal actions; 0 (not -inf) on illegal ones, so products stay finite."""
    logp = torch.log_softmax(logits.masked_fill(~mask, float("-inf")), dim=1)
    return torch.where(mask, logp, 0.0)


def reinforce_loss(
    net: PolicyValueNet,
    planes: torch.Tensor,
    masks: torch.Tensor | np.ndarray,
    actions: torch.Tensor,
    returns: torch.Tensor,
    baseline: bool = False,
    entropy_coef: float = 0.0,
    value_coef: float = 0.5,
    total: int | None = None,
    behaviour_logp: torch.Tensor | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """The REINFORCE loss of a batch of the learner's moves, and its parts as floats.

    planes float32 (B, C, H, W); masks (B, A) bool or 0/1; actions int64 (B,); returns float32 (B,)
    in [-1, 1] from the mover's view. Loss = sum over rows of
    -advantage * log p(a | s) - entropy_coef * H(p(. | s)) + value_coef * value_loss, divided by
    `total` (default B; pass the full batch size when summing gradients over chunks).
    behaviour_logp float32 (B,): the log-probability the move had when it was played. Each row's policy
    term is then weighted by min(1, p(a | s) / behaviour) (truncated importance sampling, as in
    ACER and IMPALA's V-trace): 1 for a move as played, less for a symmetric image the current policy
    would rarely play. Without it, such an image with a negative advantage pushes its already tiny
    probability down without bound (d log p / d logit -> 1, not 0, as p -> 0) and the logits diverge.
    Without `baseline` the advantage is the return and the value head gets no gradient; with it,
    the advantage is return - V(s) (V detached) and the value loss is the net's config.value_loss
    ("mse" on V, or "bce" on (V + 1) / 2 against (return + 1) / 2).
    """
    logits, z = net.forward_raw(planes)
    mask = masks.bool() if torch.is_tensor(masks) else torch.as_tensor(masks != 0)
    logp = masked_log_softmax(logits, mask)
    logp_a = logp.gather(1, actions[:, None])[:, 0]
    entropy = -(logp.exp() * logp).sum(dim=1)
    if baseline:
        value = torch.tanh(z)
        advantage = returns - value.detach()
        if net.config.value_loss == "mse":
            value_loss = (value - returns) ** 2
        else:
            value_loss = F.binary_cross_entropy_with_logits(2 * z, (returns + 1) / 2, reduction="none")
    else:
        advantage = returns
        value_loss = torch.zeros_like(returns)
    if behaviour_logp is not None:
        advantage = advantage * torch.exp(logp_a.detach() - behaviour_logp).clamp(max=1.0)
    policy_loss = -advantage * logp_a
    total = len(actions) if total is None else total
    loss = (policy_loss - entropy_coef * entropy + value_coef * value_loss).sum() / total
    parts = {
        "policy_loss": policy_loss.sum().item(),
        "value_loss": value_loss.sum().item(),
        "entropy": entropy.sum().item(),
    }
    return loss, parts


def augment(
    symmetries: Symmetries | None,
    planes: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
    returns: np.ndarray,
    mode: str,
    rng: np.random.Generator,
    logp: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Board symmetries of a batch: mode "random" transforms each position by one drawn transform,
    "all" stacks every transform of every position, "none" returns the batch as it is. Planes,
    masks and actions are transformed alike (zerogym.symmetry.Symmetries); returns and the
    behaviour log-probabilities `logp` (optional) follow their rows. Returns (planes, masks,
    actions, returns, logp)."""
    if mode == "none" or symmetries is None or len(symmetries) < 2:
        return planes, masks, actions, returns, logp
    if mode == "all":
        n = len(symmetries)
        ks = np.repeat(np.arange(n), len(actions))
        planes, masks = np.tile(planes, (n, 1, 1, 1)), np.tile(masks, (n, 1))
        actions, returns = np.tile(actions, n), np.tile(returns, n)
        logp = None if logp is None else np.tile(logp, n)
    elif mode == "random":
        ks = rng.integers(len(symmetries), size=len(actions))
        planes, masks, actions = planes.copy(), masks.copy(), actions.copy()
    else:
        raise ValueError(f"augment mode must be 'random', 'all' or 'none', got {mode!r}")
    for k in np.unique(ks):
        sel = ks == k
        planes[sel] = symmetries.planes(planes[sel], k)
        masks[sel] = symmetries.policy(masks[sel], k)
        actions[sel] = symmetries.action_maps[k][actions[sel]]
    return planes, masks, actions, returns, logp


def make_optimizer(params: Iterable[torch.nn.Parameter], cfg: PGConfig) -> torch.optim.Optimizer:
    """Adam or SGD (with momentum) as the config says; weight_decay is an L2 term."""
    if cfg.optimizer == "adam":
        return torch.optim.Adam(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    return torch.optim.SGD(params, lr=cfg.lr, momentum=cfg.momentum, weight_decay=cfg.weight_decay)


class ReinforceTrainer(PGTrainer):
    """REINFORCE (algo "reinforce" or "reinforce-baseline") on batched games against the pool.

    The learner's seat is (game index + step) % 2, so colours alternate between games and steps.
    Checkpoints hold everything the next step depends on (weights, optimizer, pool and its
    generator, the rollout generator, counters), and every step starts fresh games, so a run
    resumed from a checkpoint gives the same weights as one that was never interrupted.
    """

    algos = ("reinforce", "reinforce-baseline")

    def _build(self) -> None:
        cfg = self.cfg
        self.net = PolicyValueNet(self.net_config).to(self.device).eval()
        self.opt = make_optimizer(self.net.parameters(), cfg)
        self.venv = zerogym.vector.make(cfg.game, cfg.num_envs, copy=False, **cfg.game_kwargs)
        self.symmetries = self.venv.spec.symmetries
        self.learner = PolicyAgent(self.net, greedy=False)
        self.opponent = PoolOpponent(self.pool, greedy=cfg.opponent_greedy, device=self.device)
        self.rng = np.random.default_rng(seed_for(cfg.seed, 2))
        self.schedule = SnapshotSchedule(cfg.snapshot_every, cfg.snapshot_unit)

    def play(self) -> Episodes:
        """One game in each of the num_envs slots against an opponent drawn from the pool; the results
        go to the pool's Elo. Returns the Episodes. Past the run's wall-clock limit the games stop at the
        learner's next move and their random draws are taken back (OutOfTime)."""
        cfg = self.cfg
        draws = self.rng.bit_generator.state, self.pool.rng.bit_generator.state
        try:
            self.opponent.reset()
            seats = (np.arange(cfg.num_envs) + self.step) % 2
            episodes = play_episodes(
                self.venv,
                self.on_time(self.learner.logits),
                self.opponent.logits,
                seats,
                self.rng,
                gamma=cfg.gamma,
                opponent_greedy=cfg.opponent_greedy,
            )
        except OutOfTime:
            self.rng.bit_generator.state, self.pool.rng.bit_generator.state = draws
            raise
        for result in episodes.results:
            self.opponent.record((float(result) + 1.0) / 2.0)
        return episodes

    def update(self, episodes: Episodes) -> dict[str, float | None]:
        """One gradient step on the learner's moves of `episodes`; returns the mean loss parts."""
        cfg = self.cfg
        planes, masks, actions, returns, logp = augment(
            self.symmetries,
            episodes.planes,
            episodes.masks,
            episodes.actions,
            episodes.returns,
            cfg.augment,
            self.rng,
            logp=episodes.logp,
        )
        total = len(actions)
        if total == 0:
            return {}
        assert logp is not None  # episodes carry their behaviour log-probabilities
        sums = {"loss": 0.0, "policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0}
        dev = self.device

        def tensor(x: np.ndarray) -> torch.Tensor:
            return torch.from_numpy(x).to(dev)

        learning_mode(self.net, cfg.batch_stats())
        self.opt.zero_grad(set_to_none=True)
        try:
            for s in range(0, total, cfg.minibatch_size):
                part = slice(s, s + cfg.minibatch_size)
                loss, parts = reinforce_loss(
                    self.net,
                    tensor(planes[part].astype(np.float32)),
                    tensor(masks[part] != 0),
                    tensor(actions[part]),
                    tensor(returns[part]),
                    baseline=cfg.algo == "reinforce-baseline",
                    entropy_coef=cfg.entropy_coef,
                    value_coef=cfg.value_coef,
                    total=total,
                    behaviour_logp=tensor(logp[part]),
                )
                loss.backward()
                sums["loss"] += loss.item()
                for k, v in parts.items():
                    sums[k] += v / total
            if cfg.grad_clip > 0:
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), cfg.grad_clip)
            for group in self.opt.param_groups:
                group["lr"] = self.learning_rate()
            self.opt.step()
        finally:
            self.net.eval()
        stats: dict[str, float | None] = dict(sums)
        if cfg.algo == "reinforce":
            stats["value_loss"] = None
        return stats

    def iteration(self) -> dict[str, Any]:
        cfg = self.cfg
        episodes = self.play()
        stats = self.update(episodes)
        self.step += 1
        self.episodes += cfg.num_envs
        self.learner_moves += len(episodes)
        count = self.episodes if cfg.snapshot_unit == "episodes" else self.learner_moves
        if self.schedule.due(count):
            self.pool.add(snapshot(self.net), name=f"{cfg.snapshot_unit}-{count}")
        r = episodes.results
        return {**stats, "wins": int((r > 0).sum()), "draws": int((r == 0).sum()), "losses": int((r < 0).sum())}

    def _algo_state(self) -> dict[str, Any]:
        return {
            "optimizer": self.opt.state_dict(),
            "rng": self.rng.bit_generator.state,
            "snapshot_mark": self.schedule.mark,
        }

    def _algo_schema(self) -> dict[str, Spec]:
        from zerogym_agents.core.file_checks import Int, Optimizer, RngState

        return {"optimizer": Optimizer(self.opt), "rng": RngState(), "snapshot_mark": Int(0)}

    def _load_algo_state(self, data: dict[str, Any]) -> None:
        self.opt.load_state_dict(data["optimizer"])
        self.rng.bit_generator.state = data["rng"]
        self.schedule.mark = data["snapshot_mark"]
