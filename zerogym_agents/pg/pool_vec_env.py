"""PoolVecEnv: N games against pool snapshots as one Stable-Baselines3 VecEnv, stepped in compiled code.

What make_selfplay_env copies inside a DummyVecEnv give (the learner's observations and masks, a pool
snapshot drawn per game, colours alternating, results fed to the pool's Elo), but with the games in one
zerogym.vector.VectorEnv and the opponents' replies chosen in one forward pass per distinct snapshot
instead of one per game, so an on-policy learner such as MaskablePPO collects its moves several times
faster. It plays snapshot(net) entries (the policy-gradient trainers' pools) only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from zerogym_agents.agents.policy import net_logits, select_actions
from zerogym_agents.pg.opponents import frozen_net, is_net_snapshot

if TYPE_CHECKING:
    from zerogym._core.state import State
    from zerogym_agents.core.file_checks import Spec
    from zerogym_agents.nets.model import PolicyValueNet
    from zerogym_agents.training.pool import OpponentPool


class PoolVecEnv(VecEnv):
    """`num_envs` games of `game` (kwargs `game_kwargs`), the learner against snapshots of `pool`.

    In slot i the learner's seat alternates from game to game, starting with seat i % 2 (so both
    colours are played from the first step); an opponent is drawn from the pool when each game starts
    and samples from its policy (argmax with greedy=True), with draws seeded by `seed`. Every step
    plays the learner's move in every game, then the opponents' replies until the learner is to move
    again everywhere (a finished game restarts at once).

    reward: the learner's result (+1 win, -1 loss, 0 draw) on the step that ends its game, else 0.
    A game cut at the move limit ends with its result like any other (no TimeLimit.truncated, so no
    bootstrapping: the game is over). infos[i] holds "opponent" (the snapshot's name) and, when
    game i ended, "result". action_masks() gives the learner's legal moves (sb3-contrib).
    wins, draws, losses count the learner's finished games.
    """

    observation_space: spaces.Box  # the learner's planes (H, W, C)

    def __init__(
        self,
        game: str,
        pool: OpponentPool,
        num_envs: int = 64,
        game_kwargs: Mapping[str, Any] | None = None,
        greedy: bool = False,
        seed: int | None = None,
    ) -> None:
        import zerogym.vector

        self.venv = zerogym.vector.make(game, num_envs, copy=False, **dict(game_kwargs or {}))
        self.pool, self.greedy = pool, bool(greedy)
        n = self.venv.num_envs
        h, w, c = self.venv.spec.obs_shape
        self._planes = np.empty((n, c, h, w), np.float32)
        self._actions = np.zeros(n, np.int64)
        self.seats = np.arange(n, dtype=np.int64) % 2
        self.episodes = np.zeros(n, np.int64)  # finished games per slot
        self.opponents: list[str | None] = [None] * n  # the snapshot name each game is played against
        self._nets: dict[str, PolicyValueNet] = {}  # snapshot name -> frozen net
        self.wins = self.draws = self.losses = 0
        self.rng = np.random.default_rng(seed)
        self._seed = seed
        obs, infos = self.venv.reset()  # copy=False: these arrays are updated in place from now on
        self._board, self._mask, self._to_play = obs["observation"], obs["action_mask"], infos["to_play"]
        super().__init__(n, spaces.Box(0, 1, (h, w, c), np.int8), spaces.Discrete(self.venv.num_actions))

    # ---- the games ----------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds[0] is not None else self._seed
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self._reset_seeds()
        self.venv.reset(seed=seed)
        self.episodes[:] = 0
        self.seats = np.arange(self.num_envs, dtype=np.int64) % 2
        for i in range(self.num_envs):
            self._draw(i)
        self._reply(np.zeros(self.num_envs, np.float32), np.zeros(self.num_envs, bool))
        return self._obs()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs).copy()

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        n = self.num_envs
        rewards, dones = np.zeros(n, np.float32), np.zeros(n, bool)
        _, r, term, trunc, _ = self.venv.step(self._actions)  # the learner moves in every game
        ended = np.flatnonzero(term | trunc)
        self._finish(ended, r[ended], rewards, dones)
        self._reply(rewards, dones)
        infos: list[dict[str, Any]] = [{"opponent": self.opponents[i]} for i in range(n)]
        for i in np.flatnonzero(dones):
            infos[i]["result"] = float(rewards[i])
        return self._obs(), rewards, dones, infos

    def _reply(self, rewards: np.ndarray, dones: np.ndarray) -> None:
        """Opponents' moves until the learner is to move in every game."""
        while True:
            theirs = self._to_play != self.seats
            if not theirs.any():
                return
            self.venv.encode(self._planes)
            actions = np.full(self.num_envs, -1, np.int64)
            waiting = np.flatnonzero(theirs)
            names = np.array(self.opponents, dtype=object)[waiting]
            for name in dict.fromkeys(names):
                idx = waiting[names == name]
                logits = net_logits(self._nets[name], self._planes[idx])
                actions[idx] = select_actions(logits, self._mask[idx], self.rng, self.greedy)
            _, r, term, trunc, _ = self.venv.step(actions)
            ended = np.flatnonzero((term | trunc) & theirs)
            self._finish(ended, -r[ended], rewards, dones)  # r is the mover's, the opponent's

    def _finish(self, ended: np.ndarray, results: np.ndarray, rewards: np.ndarray, dones: np.ndarray) -> None:
        """Games `ended` just ended with the learner's `results`: record them, start the next ones."""
        for i, result in zip(ended, results):
            result = float(result)
            rewards[i], dones[i] = result, True
            self.wins += result > 0
            self.losses += result < 0
            self.draws += result == 0
            if self.opponents[i] in self.pool.entries:
                self.pool.record(self.opponents[i], (result + 1.0) / 2.0)
            self.episodes[i] += 1
            self.seats[i] = (i + self.episodes[i]) % 2
            self._draw(i)

    def _draw(self, i: int) -> None:
        name, snap = self.pool.sample()
        if not is_net_snapshot(snap):
            raise ValueError(
                f"PoolVecEnv plays net snapshots (pg.opponents.snapshot) only; pool entry {name!r} "
                f"is a {type(snap).__name__} (make_selfplay_env plays any agent)"
            )
        self.opponents[i] = name
        if name not in self._nets:
            self._nets[name] = frozen_net(snap)
        live = set(self.opponents)
        for old in [k for k in self._nets if k not in live and k not in self.pool.entries]:
            del self._nets[old]

    def _obs(self) -> np.ndarray:
        return self._board.copy()

    def action_masks(self) -> np.ndarray:
        """bool (num_envs, A): the learner's legal moves in each game."""
        return self._mask.astype(bool)

    # ---- checkpoints --------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to carry on exactly: games, seats, opponents (with the weights of those
        the pool has dropped since), results and the random state."""
        return {
            "games": [
                torch.frombuffer(bytearray(self.venv.get_state(i).to_bytes()), dtype=torch.uint8)
                for i in range(self.num_envs)
            ],
            "seats": torch.from_numpy(self.seats.copy()),
            "episodes": torch.from_numpy(self.episodes.copy()),
            "opponents": list(self.opponents),
            "results": [self.wins, self.draws, self.losses],
            "dropped": {
                k: {name: v.clone() for name, v in net.state_dict().items()}
                for k, net in self._nets.items()
                if k not in self.pool.entries
            },
            "rng": self.rng.bit_generator.state,
        }

    def state_schema(self, net_state: Mapping[str, torch.Tensor]) -> Spec:
        """What load_state_dict's `data` must be (a zerogym_agents.core.checkpoint schema): state_dict()'s
        entries for this env's num_envs games, each game a valid position in progress, and the
        dropped opponents' weights with the shapes of `net_state` (the learner's state_dict)."""
        return games_schema(self.venv.template, self.num_envs, net_state)

    def load_state_dict(self, data: Mapping[str, Any]) -> None:
        """Restore state_dict()'s output (check it with state_schema first: a game blob that does not
        load raises ValueError naming the game)."""
        if len(data["games"]) != self.num_envs:
            raise ValueError(f"saved state has {len(data['games'])} games, this env {self.num_envs}")
        states = []
        for i, blob in enumerate(data["games"]):
            st = self.venv.template.copy()
            try:
                st.load_bytes(bytes(blob.numpy()))
            except (ValueError, TypeError) as err:
                raise ValueError(f"saved game {i} is not a valid {self.venv.spec.name} position: {err}") from None
            states.append(st)
        for i, st in enumerate(states):
            self.venv.set_state(i, st)
        self.seats, self.episodes = data["seats"].numpy().copy(), data["episodes"].numpy().copy()
        self.opponents = list(data["opponents"])
        self.wins, self.draws, self.losses = data["results"]
        self._nets = {}
        any_net = next(iter(self.pool.entries.values()))[0]
        for name in dict.fromkeys(data["opponents"]):  # self.opponents, each a name (str)
            if name in self.pool.entries:
                self._nets[name] = frozen_net(self.pool.entries[name][0])
            elif name in data["dropped"]:
                self._nets[name] = frozen_net({**any_net, "state_dict": data["dropped"][name]})
            else:
                raise ValueError(f"saved state plays snapshot {name!r}, which neither the pool nor the state holds")
        self.rng.bit_generator.state = data["rng"]
        self._reset_seeds()

    # ---- the rest of the VecEnv interface -----------------------------------------------------
    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        if attr_name == "render_mode":
            return [None for _ in self._indices(indices)]
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._indices(indices)]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._indices(indices)]

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def _indices(self, indices: VecEnvIndices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else list(indices)


def games_schema(template: State, num_envs: int, net_state: Mapping[str, torch.Tensor]) -> Spec:
    """PoolVecEnv.state_schema for `num_envs` games of the game whose State `template` is."""
    from zerogym_agents.core.file_checks import DictOf, Fields, Int, ListOf, RngState, StateBlob, StateDict, Str, Tensor

    n = num_envs
    return Fields(
        {
            "games": ListOf(StateBlob(template, playing=True), length=n),
            "seats": Tensor(torch.int64, (n,), 0, 1),
            "episodes": Tensor(torch.int64, (n,), 0),
            "opponents": ListOf(Str(), length=n),
            "results": ListOf(Int(0), length=3),
            "dropped": DictOf(Str(), StateDict(net_state, label="the learner's network")),
            "rng": RngState(),
        }
    )
