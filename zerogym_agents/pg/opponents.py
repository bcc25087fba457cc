"""Opponent pools as players: frozen snapshots of a learner, drawn from a zerogym_agents.training.pool.OpponentPool.

snapshot(net) is what goes into the pool: the net's config and a *cloned* state_dict, so later
training of the learner cannot change it and no tensor is shared with the learner. PoolOpponent
loads the drawn snapshot into a net of its own (eval mode, no gradients) and plays it, one move at
a time (act(env), as SingleAgentEnv's opponent) or batched (logits(planes), in the vector path).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, SupportsFloat, cast

import gymnasium
import numpy as np

from zerogym_agents.agents.base import Agent
from zerogym_agents.pg.config import SNAPSHOT_UNITS

if TYPE_CHECKING:
    import torch

    from zerogym.wrappers import SingleAgentEnv
    from zerogym_agents.nets.model import PolicyValueNet
    from zerogym_agents.training.pool import OpponentPool

SNAPSHOT_FORMAT = "zerogym.PolicyValueNet"  # the format of nets.net_payload, so files and pools agree


def snapshot(net: PolicyValueNet) -> dict[str, Any]:
    """A frozen copy of a PolicyValueNet for a pool: {"format", "version", "config", "state_dict"}
    with every tensor cloned (nets.net_payload's layout, readable by nets.net_from_payload)."""
    from zerogym_agents.nets.model import FILE_FORMAT, FILE_VERSION

    return {
        "format": FILE_FORMAT,
        "version": FILE_VERSION,
        "config": net.config.to_json(),
        "state_dict": {k: v.detach().to("cpu", copy=True) for k, v in net.state_dict().items()},
    }


def frozen_net(snap: Mapping[str, Any]) -> PolicyValueNet:
    """A PolicyValueNet holding snapshot `snap`'s weights, in eval mode, with no gradients."""
    import torch
    from zerogym_agents.nets.model import NetConfig, PolicyValueNet

    with torch.random.fork_rng(devices=[]):  # its initial weights are overwritten: draw nothing
        net = PolicyValueNet(NetConfig.from_json(snap["config"])).eval()
    net.load_state_dict(snap["state_dict"])
    return net.requires_grad_(False)


def is_net_snapshot(obj: object) -> bool:
    """Whether `obj` is a net snapshot of the pool (a mapping with the snapshot format tag), not an agent."""
    return isinstance(obj, Mapping) and obj.get("format") == SNAPSHOT_FORMAT


class SnapshotSchedule:
    """Says when a snapshot is due: every `every` learner episodes or learner moves ("steps")."""

    def __init__(self, every: int, unit: str = "episodes") -> None:
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError(f"snapshot every must be an integer >= 1, got {every!r}")
        if unit not in SNAPSHOT_UNITS:
            raise ValueError(f"snapshot unit must be one of {', '.join(map(repr, SNAPSHOT_UNITS))}, got {unit!r}")
        self.every, self.unit = every, unit
        self.mark = 0  # the count at the last snapshot

    def due(self, count: int) -> bool:
        """True (and remember `count`) when `count` passed a multiple of `every` since the last snapshot."""
        if count // self.every > self.mark // self.every:
            self.mark = count
            return True
        return False


class PoolOpponent(Agent):
    """An OpponentPool as one player: reset() draws a snapshot (pool.sample()), act(env) plays it.

    Snapshots made by snapshot(net) are loaded into a separate net in eval mode whose parameters
    never require gradients (one net per distinct net config, reused across draws); any other
    snapshot is played as it is (an agent with act(env), or a callable env -> action).
    greedy: play the policy's argmax instead of sampling from it (seeded by `seed`). device: where the
    snapshots' nets run (a torch.device or a name; default the CPU).
    record(score) reports the result of the current game (1 win, 0.5 draw, 0 loss for the learner)
    to the pool's Elo. SingleAgentEnv calls reset() at every episode start and seed() on seeded resets.
    """

    name = "pool"

    def __init__(
        self, pool: OpponentPool, greedy: bool = False, seed: int | None = None, device: torch.device | str = "cpu"
    ) -> None:
        super().__init__(seed)
        self.device = device
        self.pool = pool
        self.greedy = bool(greedy)
        self.current: str | None = None  # name of the snapshot being played
        # what plays it: a PolicyAgent over our own net, or the snapshot itself (an agent or a callable)
        self._player: Any = None
        self._nets: dict[str, PolicyValueNet] = {}  # config JSON -> frozen net

    def reset(self) -> None:
        name, snap = self.pool.sample()
        self.load(name, snap)

    def load(self, name: str, snap: Any) -> None:
        """Play snapshot `snap` (named `name` in the pool) from now on."""
        if is_net_snapshot(snap):
            from zerogym_agents.agents.policy import PolicyAgent

            net = self._nets.get(snap["config"])
            if net is None:
                net = self._nets[snap["config"]] = frozen_net(snap).to(self.device)
            else:
                net.load_state_dict(snap["state_dict"])
            if self._player is None or getattr(self._player, "net", None) is not net:
                self._player = PolicyAgent(net, greedy=self.greedy)
            self._player.rng = self.rng
        elif hasattr(snap, "act") or callable(snap):
            self._player = snap
        else:
            raise ValueError(
                f"pool snapshot {name!r} is neither snapshot(net) nor an agent/callable: {type(snap).__name__}"
            )
        self.current = name

    @property
    def net(self) -> PolicyValueNet | None:
        """The frozen net being played (None when the snapshot is not a net)."""
        return getattr(self._player, "net", None) if self._player is not None else None

    def _need_player(self):
        if self._player is None:
            raise RuntimeError("PoolOpponent: call reset() to draw an opponent from the pool first")

    def act(self, env: Any) -> int:
        self._need_player()
        if hasattr(self._player, "act"):
            return self._player.act(env)
        return self._player(env)

    def logits(self, planes: np.ndarray) -> np.ndarray:
        """Batched policy logits of the drawn snapshot (only for snapshot(net) entries)."""
        self._need_player()
        if self.net is None:
            raise ValueError(f"pool snapshot {self.current!r} is not a net: it cannot play batched positions")
        return self._player.logits(planes)

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        if self._player is not None and hasattr(self._player, "net"):
            self._player.rng = self.rng

    def record(self, score: float) -> None:
        """Elo update for one finished game of the learner against the current snapshot."""
        if self.current is not None and self.current in self.pool.entries:
            self.pool.record(self.current, score)


class RecordPoolResults(gymnasium.Wrapper):
    """Around a SingleAgentEnv whose opponent is a PoolOpponent: reports each finished game to the pool
    (Elo) and counts the learner's wins, draws and losses. info gets "opponent" (the snapshot's name)
    and, at the end of a game, "result" (the learner's reward)."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.wins = self.draws = self.losses = 0

    @property
    def episodes(self) -> int:
        return self.wins + self.draws + self.losses

    def _single(self) -> SingleAgentEnv:
        return cast("SingleAgentEnv", self.env.unwrapped)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        opponent = self._single().opponent
        info["opponent"] = getattr(opponent, "current", None)
        if terminated or truncated:
            result = float(reward)
            info["result"] = result
            self.wins += result > 0
            self.losses += result < 0
            self.draws += result == 0
            if hasattr(opponent, "record"):
                opponent.record((result + 1.0) / 2.0)
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self._single().action_masks()


def make_selfplay_env(
    game: str,
    pool: OpponentPool,
    game_kwargs: dict[str, Any] | None = None,
    learner: str = "alternate",
    greedy: bool = False,
    seed: int | None = None,
) -> RecordPoolResults:
    """A gymnasium env for single-agent learners (Stable-Baselines3 and the like): the learner plays
    `game` against snapshots drawn from `pool` (one per episode), colours alternating by default;
    results update the pool's Elo. action_masks() gives the legal actions (sb3-contrib)."""
    import zerogym
    from zerogym.wrappers import SingleAgentEnv

    opponent = PoolOpponent(pool, greedy=greedy, seed=seed)
    return RecordPoolResults(SingleAgentEnv(zerogym.make(game, **(game_kwargs or {})), opponent, learner=learner))
