"""PolicyAgent: plays a policy net's move (argmax or a sample) among the legal actions only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

import numpy as np
import numpy.typing as npt
import torch

from zerogym_agents.agents.base import AECEnv, Agent, game_state

if TYPE_CHECKING:
    from zerogym._core.state import State
    from zerogym_agents.nets.composite import CompositeNet
    from zerogym_agents.nets.model import PolicyValueNet

    PolicyNet = Union[PolicyValueNet, CompositeNet]  # a net with forward_raw and a config


def select_actions(
    logits: npt.ArrayLike, masks: npt.ArrayLike, rng: np.random.Generator | None = None, greedy: bool = False
) -> npt.NDArray[np.int64]:
    """One action per row among the legal ones: argmax of the masked logits, or a sample from their
    softmax (Gumbel-max with `rng`, a numpy Generator). logits (B, A) float, masks (B, A) 0/1.

    Illegal actions get -inf before the argmax, so they are never chosen; a row without a legal
    action raises ValueError.
    """
    logits = np.asarray(logits)
    masks = np.asarray(masks)
    if logits.shape != masks.shape:
        raise ValueError(f"logits {logits.shape} and masks {masks.shape} must have the same shape (B, A)")
    legal = masks != 0
    if not legal.any(axis=1).all():
        raise ValueError(f"row {int(np.argmin(legal.any(axis=1)))} of the masks has no legal action")
    x = np.where(legal, logits.astype(np.float64), -np.inf)
    if not greedy:
        if rng is None:
            raise ValueError("sampling needs a numpy Generator (rng=), or greedy=True")
        x += rng.gumbel(size=x.shape)
    return x.argmax(axis=1).astype(np.int64)


def net_logits(net: PolicyNet, planes: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Policy logits (B, A) float32 numpy of a PolicyValueNet for float32 planes (B, C, H, W), in eval
    mode (BatchNorm running statistics) under inference_mode; the net's mode is restored."""
    device = next(net.parameters()).device
    x = torch.from_numpy(np.ascontiguousarray(planes, dtype=np.float32)).to(device)
    was_training = net.training
    if was_training:  # switching modes walks every module: only when needed
        net.eval()
    try:
        with torch.inference_mode():
            logits, _ = net.forward_raw(x)
    finally:
        if was_training:
            net.train()
    return logits.to("cpu", torch.float32).numpy()


class PolicyAgent(Agent):
    """A policy net as a player (the agent interface): act(env) plays the argmax of the net's policy over the
    legal actions (greedy=True) or samples from it (greedy=False, seeded by `seed`).

    net: a zerogym_agents.nets.PolicyValueNet (the value head is not used). It reads the position
    behind the env (env.unwrapped.state.encode(), the planes from the mover's view, and its legal
    mask), so it plays any zerogym AEC env of the net's game, at any board size the net runs on.
    """

    name = "policy"

    def __init__(self, net: PolicyNet, greedy: bool = True, seed: int | None = None) -> None:
        super().__init__(seed)
        if not isinstance(net, torch.nn.Module) or not hasattr(net, "forward_raw") or not hasattr(net, "config"):
            raise ValueError(f"PolicyAgent needs a zerogym_agents.nets.PolicyValueNet, got {type(net).__name__}")
        if not isinstance(greedy, (bool, np.bool_)):
            raise ValueError(f"PolicyAgent: greedy must be True or False, got {greedy!r}")
        self.net = net
        self.greedy = bool(greedy)
        # (game, kwargs) already checked against the net's config
        self._fits: set[tuple[str, tuple[tuple[str, object], ...]]] = set()

    def logits(self, planes: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """Batched policy logits (B, A) for float32 planes (B, C, H, W)."""
        return net_logits(self.net, planes)

    def _check(self, state: State) -> None:
        key = (state.spec.name, tuple(sorted(state.spec.kwargs.items())))
        if key not in self._fits:
            self.net.config.check_game(state.spec)
            self._fits.add(key)

    def probabilities(self, env: AECEnv) -> npt.NDArray[np.float64]:
        """The net's move probabilities (A,) over the legal actions of the player to move."""
        state = self._running(env)
        logits = self.logits(state.encode()[None])[0].astype(np.float64)
        legal = state.legal_mask() != 0
        x = np.where(legal, logits, -np.inf)
        p = np.exp(x - x.max())
        return p / p.sum()

    def _running(self, env: AECEnv) -> State:
        state = game_state(env)
        if state.is_over():
            raise ValueError("PolicyAgent: the game is over, there is no move to choose")
        self._check(state)
        return state

    def act(self, env: AECEnv) -> int:
        state = self._running(env)
        logits = self.logits(state.encode()[None])
        return int(select_actions(logits, state.legal_mask()[None], self.rng, self.greedy)[0])
