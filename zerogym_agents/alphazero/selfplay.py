"""Self-play of G games at once through the compiled batched search: the engine that the trainer
runs in its own process and that each Ray self-play worker runs (zerogym_agents.scale).

The engine holds the games (their roots, move numbers and, in pool games, the learner's seat) and
the search trees; it plays one move in every game per step() and hands back the learner's moves as
training records and the games that ended. Whoever owns the replay buffer keeps the records of the
games in progress (GameRecords) and turns a finished game into numpy arrays.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Optional, cast

import numpy as np
import numpy.typing as npt

import zerogym
from zerogym_agents.mcts.search import BatchedMCTS, LeafEvaluator

if TYPE_CHECKING:
    from zerogym._core.go import GoState
    from zerogym._core.state import State
    from zerogym_agents.alphazero.config import AlphaZeroConfig

# a learner's move: (game, planes (C, H, W) float32, legal mask, search policy, mover, root value for the mover)
Move = tuple[int, np.ndarray, np.ndarray, np.ndarray, int, float]
Finished = tuple[int, tuple[float, float], Optional[float]]  # (game, returns per player, learner's score)
Final = tuple[np.ndarray, float]  # a game's final (ownership (H, W), score), from the first player's view


def tree_seed(*parts: int) -> int:
    """A 32-bit seed derived from the integers `parts` (run seed, step or worker slot and task...)."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


class SelfPlay:
    """concurrent_games games of `cfg` (an AlphaZeroConfig) searched together; the last
    round(pool_fraction * G) of them are played by the learner against a pool opponent through a
    second search over the same positions (the learner's colour alternates game by game in each of
    these slots). See AlphaZeroTrainer for the whole loop."""

    def __init__(self, cfg: AlphaZeroConfig) -> None:
        self.cfg = cfg
        self.template = zerogym.make_state(cfg.game, **cfg.game_kwargs)
        h, w, _ = self.template.spec.obs_shape
        no_pass_before = math.ceil(cfg.no_pass_fraction * h * w)
        G = cfg.concurrent_games
        self.num_pool = int(round(cfg.pool_fraction * G))  # games G - num_pool .. G - 1 face the pool
        self.mcts = self._search(G, no_pass_before, seed=cfg.seed)
        # the pool's search: the same settings, no forced playouts (it makes no policy target)
        self.opp_mcts = self._search(self.num_pool, no_pass_before, forced_playouts=0.0) if self.num_pool else None
        # playout cap randomization's draws (cheap_simulations > 0), reseeded by rebuild()
        self.cap_rng = np.random.default_rng(cfg.seed + 2) if cfg.cheap_simulations else None
        self.opening_rng = np.random.default_rng(cfg.seed + 3)  # random_opening_moves' draws, reseeded too
        self.roots = [self.template.copy() for _ in range(G)]
        self.move_no = np.zeros(G, np.int64)
        self.learner_seat = np.arange(self.num_pool) % 2
        # auxiliary targets (cfg.aux_targets): {game: (ownership, score)} of the games that ended in the
        # last step(), from the first player's view (the State's ownership() and score())
        self.finals: dict[int, Final] = {}

    def _search(self, n: int, no_pass_before: int, seed: int | None = None, **settings: Any) -> BatchedMCTS:
        """A BatchedMCTS of n games with the config's search settings (`settings` over them)."""
        cfg = self.cfg
        return BatchedMCTS(
            cfg.game,
            num_games=n,
            simulations=cfg.simulations,
            config=cfg,
            seed=seed,
            no_pass_before=no_pass_before,
            **settings,
            **cfg.game_kwargs,
        )

    def rebuild(self, seed: int) -> None:
        """Fresh search trees at the current roots, every random stream reseeded from `seed`."""
        self.mcts.seed(seed)
        self.mcts.set_roots(self.roots)
        if self.num_pool:
            assert self.opp_mcts is not None  # there are pool games: they have their search
            self.opp_mcts.seed(seed + 1)
            self.opp_mcts.set_roots(self.roots[-self.num_pool :])
        if self.cfg.cheap_simulations:
            self.cap_rng = np.random.default_rng(seed + 2)
        self.opening_rng = np.random.default_rng(seed + 3)

    def _open(self, root: State) -> int:
        """Play up to random_opening_moves uniformly random legal moves in `root` (their number drawn
        uniformly from 0..random_opening_moves), stopping before a move that would end the game;
        returns how many it played."""
        rng = self.opening_rng
        moves = int(rng.integers(self.cfg.random_opening_moves + 1))
        for played in range(moves):
            action = int(rng.choice(np.flatnonzero(root.legal_mask())))
            trial = root.copy()
            trial.step(action)
            if trial.is_over():
                return played
            root.step(action)
        return moves

    def _choose(self, mcts: BatchedMCTS, move_no: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        if mcts.search == "gumbel":  # the search's own move: Gumbel noise at the root is the exploration
            return mcts.select_actions()
        sampled = mcts.select_actions(1.0)
        best = mcts.select_actions(0.0)
        return np.where(move_no < self.cfg.temperature_moves, sampled, best)

    def step(
        self, evaluator: LeafEvaluator, opp_evaluator: LeafEvaluator | None = None
    ) -> tuple[list[Move], list[Finished]]:
        """One search of every game, then one move in each. Returns (moves, finished): moves, the
        learner's moves (with playout cap randomization, those of full searches only) as (game,
        planes (C, H, W) float32, legal mask, search policy, mover, root value from the mover's view)
        in game order; finished, the games that ended as (game, returns per player, score) in game order,
        score the learner's result in [0, 1] in a pool game (None in the others). A finished game is
        reset and its slot starts the next game at once, from its random opening (random_opening_moves)
        at its first step; with auxiliary targets its final ownership and score are in self.finals."""
        cfg = self.cfg
        G, P = cfg.concurrent_games, self.num_pool
        if cfg.random_opening_moves:  # the games about to make their first searched move get their opening
            for k in np.flatnonzero(self.move_no == 0):
                if self._open(self.roots[k]):
                    self.mcts.set_root(k, self.roots[k])
                    if k >= G - P:
                        assert self.opp_mcts is not None  # a pool game
                        self.opp_mcts.set_root(k - (G - P), self.roots[k])
        full = None  # playout cap randomization: the games searched fully (recorded), else cheap
        if cfg.cheap_simulations:
            assert self.cap_rng is not None  # made when cheap_simulations is set
            full = self.cap_rng.random(G) < cfg.full_search_prob
            policies, values = self.mcts.run(
                evaluator, explore=full, simulations=np.where(full, cfg.simulations, cfg.cheap_simulations)
            )
        else:
            policies, values = self.mcts.run(evaluator)
        values = np.clip(values, -1.0, 1.0)  # float rounding of a mean of values in [-1, 1]
        if cfg.forced_playouts:
            policies = self.mcts.pruned_policy()  # the forced playouts taken out of the policy target
        actions = self._choose(self.mcts, self.move_no)
        theirs = np.zeros(G, bool)  # the pool opponent moves in these games
        if P:
            assert self.opp_mcts is not None and opp_evaluator is not None  # pool games have both
            self.opp_mcts.run(opp_evaluator, copy=False)
            theirs[G - P :] = [r.current_player != s for r, s in zip(self.roots[G - P :], self.learner_seat)]
            actions[theirs] = self._choose(self.opp_mcts, self.move_no[G - P :])[theirs[G - P :]]
        moves = [
            (i, root.encode(), root.legal_mask(), policies[i].copy(), root.current_player, float(values[i]))
            for i, root in enumerate(self.roots)
            if not theirs[i] and (full is None or full[i])
        ]
        self.mcts.advance(actions)
        if P:
            assert self.opp_mcts is not None
            self.opp_mcts.advance(actions[G - P :])
        self.move_no += 1
        finished: list[Finished] = []
        self.finals = {}
        for i, root in enumerate(self.roots):
            root.step(int(actions[i]))
            if root.is_over():
                returns = root.returns()
                if cfg.aux_targets:  # Go (AlphaZeroConfig refuses them for other games)
                    go = cast("GoState", root)
                    self.finals[i] = (go.ownership(), go.score())
                score = None
                root.reset()
                self.mcts.set_root(i, root)
                self.move_no[i] = 0
                if i >= G - P:
                    assert self.opp_mcts is not None
                    j = i - (G - P)
                    score = (returns[self.learner_seat[j]] + 1.0) / 2.0
                    self.learner_seat[j] ^= 1
                    self.opp_mcts.set_root(j, root)
                finished.append((i, returns, score))
        return moves, finished

    # ---- the games' state, for checkpoints and for handing a worker's games to another -------
    def carry(self) -> dict[str, Any]:
        """The games' state (no trees): {"roots": [bytes], "move_no", "learner_seat"}."""
        return {
            "roots": [r.to_bytes() for r in self.roots],
            "move_no": self.move_no.copy(),
            "learner_seat": self.learner_seat.copy(),
        }

    def load_carry(self, carry: dict[str, Any]) -> None:
        """Restore carry(); the trees are rebuilt by the next rebuild()."""
        for root, blob in zip(self.roots, carry["roots"]):
            root.load_bytes(bytes(blob))
        self.move_no = np.array(carry["move_no"], np.int64)
        self.learner_seat = np.array(carry["learner_seat"], np.int64)


class GameRecords:
    """The learner's moves of the games in progress, one list per game slot; finish() turns a game
    into replay arrays once its result is known. A move's value target is the game's outcome for
    its mover, mixed with the search's root value there when root_value_weight > 0:
    (1 - w) * outcome + w * root value."""

    def __init__(self, num_games: int, root_value_weight: float = 0.0) -> None:
        # per game: (planes, mask, policy, mover, root value)
        self.pending: list[list[tuple[Any, ...]]] = [[] for _ in range(num_games)]
        self.root_value_weight = float(root_value_weight)

    def add(self, moves: Iterable[Move]) -> None:
        for i, planes, mask, policy, mover, value in moves:
            self.pending[i].append((planes, mask, policy, mover, value))

    def finish(self, i: int, returns: Sequence[float], final: Final | None = None) -> tuple[np.ndarray, ...] | None:
        """(planes int8, masks, policies, values) of game i's moves with the result `returns`, or
        None when the learner made no move in it; the slot is emptied. A move restored from an older
        checkpoint, with no root value (None), gets the outcome alone. With `final`
        (SelfPlay.finals' (ownership (H, W), score) from the first player's view), also (ownership,
        scores) of each move, turned to its mover's view."""
        moves, self.pending[i] = self.pending[i], []
        if not moves:
            return None
        planes = np.stack([m[0] for m in moves]).astype(np.int8)
        masks = np.stack([m[1] for m in moves])
        policies = np.stack([m[2] for m in moves])
        w = self.root_value_weight
        values = np.array(
            [returns[m[3]] if m[4] is None or not w else (1 - w) * returns[m[3]] + w * m[4] for m in moves], np.float32
        )
        if final is None:
            return planes, masks, policies, values
        sign = np.array([1 if m[3] == 0 else -1 for m in moves], np.int8)
        ownership = (final[0][None].astype(np.int8) * sign[:, None, None]).astype(np.int8)
        return planes, masks, policies, values, ownership, (final[1] * sign).astype(np.float32)
