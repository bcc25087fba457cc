"""Batched episodes through the vector path: the learner against one opponent in N games at once.

Each vector step makes one move in every game: one forward pass for all the games where the learner
is to move, one for all the games where the opponent is. Every game is played to its end once;
a game that ended restarts inside the vector env (auto-reset) and is then stepped with its first
legal action, unrecorded, until the slowest game ends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from zerogym_agents.agents.policy import select_actions

if TYPE_CHECKING:
    from zerogym.vector import VectorEnv

# policy logits (B, A) of float32 planes (B, C, H, W): a learner's or an opponent's batched forward pass
Logits = Callable[[np.ndarray], np.ndarray]


@dataclass
class Episodes:
    """The learner's side of N finished games, one row per learner move (M rows in all).

    planes int8 (M, C, H, W) from the learner's view; masks int8 (M, A); actions int64 (M,);
    logp float32 (M,): the log-probability the learner gave its action when it played;
    returns float32 (M,): the game's result for the learner, discounted by gamma per later learner
    move; games int64 (M,): the game of each move. results float32 (N,): the learner's final reward
    (+1 win, 0 draw or cut off, -1 loss); lengths int64 (N,): moves of both players; seats (N,).
    """

    planes: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    logp: np.ndarray
    returns: np.ndarray
    games: np.ndarray
    results: np.ndarray
    lengths: np.ndarray
    seats: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)


def play_episodes(
    venv: VectorEnv,
    learner: Logits,
    opponent: Logits,
    seats: npt.ArrayLike,
    rng: np.random.Generator,
    gamma: float = 1.0,
    learner_greedy: bool = False,
    opponent_greedy: bool = False,
) -> Episodes:
    """Play one game in each of venv's N games from the start position; returns Episodes.

    venv: a zerogym.vector.VectorEnv (copy=False is fastest). learner, opponent: callables
    planes float32 (B, C, H, W) -> policy logits (B, A); moves are drawn from their softmax over
    the legal actions only (or their argmax when greedy), with `rng` (numpy Generator).
    seats: int (N,), the learner's seat (0 = first player) in each game.
    """
    n = venv.num_envs
    seats = np.asarray(seats, dtype=np.int64)
    if seats.shape != (n,) or not np.isin(seats, (0, 1)).all():
        raise ValueError(f"seats must be {n} values in {{0, 1}}, got {seats!r}")
    if not 0.0 < gamma <= 1.0:
        raise ValueError(f"gamma must be in (0, 1], got {gamma!r}")
    obs, infos = venv.reset()
    h, w, c = venv.spec.obs_shape
    planes = np.empty((n, c, h, w), np.float32)
    to_play = np.array(infos["to_play"], dtype=np.int64)
    active = np.ones(n, bool)
    results = np.zeros(n, np.float32)
    lengths = np.zeros(n, np.int64)
    counts = np.zeros(n, np.int64)  # learner moves so far, per game
    rec = []  # per step: (games, move number, planes, masks, actions)
    while active.any():
        venv.encode(planes)
        mask = obs["action_mask"]
        actions = np.argmax(mask, axis=1).astype(np.int64)  # finished games: first legal action
        mine = active & (to_play == seats)
        theirs = active & ~mine
        if mine.any():
            idx = np.flatnonzero(mine)
            x, m = planes[idx], mask[idx]
            logits = learner(x)
            a = select_actions(logits, m, rng, learner_greedy)
            actions[idx] = a
            rec.append((idx, counts[idx], x.astype(np.int8), m, a, action_logp(logits, m, a)))
            counts[idx] += 1
        if theirs.any():
            idx = np.flatnonzero(theirs)
            actions[idx] = select_actions(opponent(planes[idx]), mask[idx], rng, opponent_greedy)
        obs, rewards, terms, truncs, infos = venv.step(actions)
        lengths[active] += 1
        ended = np.flatnonzero(active & (terms | truncs))
        if len(ended):
            # rewards[i] is the mover's: the learner's when it moved, else the opposite
            results[ended] = np.where(mine[ended], rewards[ended], -rewards[ended])
            active[ended] = False
        to_play = np.array(infos["to_play"], dtype=np.int64)
    num_actions = venv.num_actions
    if rec:
        games = np.concatenate([r[0] for r in rec])
        move_no = np.concatenate([r[1] for r in rec])
        out_planes = np.concatenate([r[2] for r in rec])
        masks = np.concatenate([r[3] for r in rec])
        actions = np.concatenate([r[4] for r in rec])
        logp = np.concatenate([r[5] for r in rec])
    else:
        games = move_no = actions = np.zeros(0, np.int64)
        logp = np.zeros(0, np.float32)
        out_planes, masks = np.zeros((0, c, h, w), np.int8), np.zeros((0, num_actions), np.int8)
    later = counts[games] - 1 - move_no
    returns = (results[games] * np.power(gamma, later)).astype(np.float32)
    return Episodes(
        out_planes, masks.astype(np.int8, copy=False), actions, logp, returns, games, results, lengths, seats
    )


def action_logp(logits: npt.ArrayLike, masks: npt.ArrayLike, actions: np.ndarray) -> np.ndarray:
    """log softmax(logits over the legal actions)[action] per row, float32 (B,)."""
    x = np.where(np.asarray(masks) != 0, np.asarray(logits, np.float64), -np.inf)
    top = x.max(axis=1, keepdims=True)
    log_z = np.log(np.exp(x - top).sum(axis=1)) + top[:, 0]
    return (x[np.arange(len(actions)), actions] - log_z).astype(np.float32)
