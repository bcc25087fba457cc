"""N games of one kind stepped in one compiled call: the fast path for self-play and rollouts."""

from __future__ import annotations

import os
from typing import Any, NoReturn

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from zerogym._core.batch import Batch
from zerogym._core.state import State, agent_name
from zerogym._types import Observation
from zerogym._validate import int_arg
from zerogym.errors import ActionTypeError, IllegalMoveError
from zerogym.registry import make_state

INT64_MAX = np.iinfo(np.int64).max
OUT_OF_RANGE = 1  # the GameDef reason code of an action out of range (spec.reasons[1])


class VectorEnv:
    """`num_envs` games of `game`, each reset automatically when it ends.

    reset(seed) -> (obs, infos); step(actions) -> (obs, rewards, terminations, truncations, infos)
    with obs = {"observation": int8 (N, H, W, C) seen from each game's player to move,
    "action_mask": int8 (N, A)}, rewards[i] for the player who just moved in game i,
    infos["to_play"] (N,) the player to move next (0 = first), and for games that just ended
    infos["final_observation"] (N, H, W, C, valid where infos["_final_observation"]). An action of
    -1 leaves its game as it is for that step (reward 0, not ended, same observation): for loops
    where only some games have a move to make (one player's turn, an opponent's reply).

    Actions are integers: an int64 array (the fast path), any other numpy integer array whose
    values fit in int64, or a list of Python ints.  Anything else (floats, bools, strings) raises
    ActionTypeError, never a cast: 3.7 is not 3, and True is not 1.

    With copy=False the returned arrays are buffers reused by the next step (faster; copy what
    you keep). num_threads > 1 splits each step between threads (OpenMP builds; otherwise the
    games are stepped one after another all the same); it pays only on otherwise idle cores:
    OpenMP threads wait for each other at every step, so a busy core slows them all down.
    """

    def __init__(self, game: str, num_envs: int, copy: bool = True, num_threads: int = 1, **kwargs: Any) -> None:
        self.game = game
        self.template = make_state(game, **kwargs)
        self.spec = self.template.spec
        self.num_envs = int_arg("vector", "num_envs", num_envs, 1, 2**31 - 1)
        self.copy = copy
        self.num_threads = int_arg("vector", "num_threads", num_threads, 1, 1024)
        n, (h, w, c), a = self.num_envs, self.spec.obs_shape, self.spec.num_actions
        _check_fits(game, n, self.spec.state_bytes + 3 * h * w * c + a + 16)
        self._batch = Batch(self.spec, self.num_envs)
        self.num_actions = a
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (h, w, c), np.int8),
                "action_mask": spaces.Box(0, 1, (a,), np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(a)
        self._obs = np.zeros((n, h, w, c), np.int8)
        self._mask = np.zeros((n, a), np.int8)
        self._final = np.zeros((n, h, w, c), np.int8)
        self._rewards = np.zeros(n, np.float32)
        self._term = np.zeros(n, np.uint8)
        self._trunc = np.zeros(n, np.uint8)
        self._done = np.zeros(n, np.uint8)
        self._to_play = np.zeros(n, np.int32)
        self._batch.bind(
            self._obs.reshape(n, -1),
            self._mask,
            self._rewards,
            self._term,
            self._trunc,
            self._to_play,
            self._final.reshape(n, -1),
            self._done,
        )
        # what copy=False returns every step: the buffers themselves, in prebuilt containers
        self._shared_obs = {"observation": self._obs, "action_mask": self._mask}
        self._shared_infos: dict[str, npt.NDArray[Any]] = {
            "to_play": self._to_play,
            "final_observation": self._final,
            "_final_observation": self._done.view(bool),
        }
        self._term_b, self._trunc_b = self._term.view(bool), self._trunc.view(bool)
        self.np_random = np.random.default_rng()

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, npt.NDArray[Any]]]:
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
            self.single_action_space.seed(seed)
            self._batch.seed(seed)
        self._batch.reset(self.num_threads)
        return self._out_obs(), {"to_play": self._to_play.copy() if self.copy else self._to_play}

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        Observation, npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, npt.NDArray[Any]]
    ]:
        if not (type(actions) is np.ndarray and actions.dtype == np.int64 and actions.flags.c_contiguous):
            actions = self._as_int64(actions)
        self._check_shape(actions.shape)
        bad, code = self._batch.step(actions, self.num_threads)
        if bad >= 0:
            self._raise(bad, int(actions[bad]), code)
        if not self.copy:
            return self._shared_obs, self._rewards, self._term_b, self._trunc_b, self._shared_infos
        infos = {k: v.copy() for k, v in self._shared_infos.items()}
        return self._out_obs(), self._rewards.copy(), self._term_b.copy(), self._trunc_b.copy(), infos

    def _as_int64(self, actions: Any) -> npt.NDArray[np.int64]:
        """`actions` as a C-contiguous int64 array, converted only where no value changes."""
        allowed = f"an integer array (numpy int dtypes, or a list of ints) of actions in -1..{self.num_actions - 1}"
        if isinstance(actions, (list, tuple)):
            for x in actions:
                if type(x) is not int and not isinstance(x, np.integer):
                    raise ActionTypeError(f"actions must be {allowed}; got an element {x!r} ({type(x).__name__})")
            self._check_shape((len(actions),))
            big = [i for i, x in enumerate(actions) if not -(2**63) <= x <= INT64_MAX]
            if big:
                self._raise(big[0], int(actions[big[0]]), OUT_OF_RANGE)
            return np.array(actions, dtype=np.int64)
        arr = np.asarray(actions)
        if arr.dtype.kind not in "iu":
            raise ActionTypeError(f"actions must be {allowed}; got dtype {arr.dtype}")
        self._check_shape(arr.shape)
        if arr.dtype.kind == "u" and arr.size and arr.max() > INT64_MAX:
            i = int(np.argmax(arr > INT64_MAX))
            self._raise(i, int(arr.flat[i]), OUT_OF_RANGE)  # would wrap to a negative int64
        return np.ascontiguousarray(arr, dtype=np.int64)

    def _check_shape(self, shape: tuple[int, ...]) -> None:
        """The shape check comes first: an index of a value is only a game's index in an array of N."""
        if shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {shape}")

    def _raise(self, i: int, a: int, code: int) -> NoReturn:
        st = self.get_state(i)
        reason = self.spec.reason(code)
        move = f"action {a}" if not 0 <= a < self.num_actions else f"{self.spec.action_name(a)} (action {a})"
        player = agent_name(self.spec, st.current_player)
        raise IllegalMoveError(
            f"game {i}: illegal move {move} by {player}: {reason}; no game was changed",
            action=a,
            player=player,
            reason=reason,
            game_index=i,
        )

    def _out_obs(self) -> Observation:
        if not self.copy:
            return self._shared_obs
        return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

    def get_state(self, i: int) -> State:
        """A copy of game i as a State."""
        st = self.template.copy()
        self._batch.get_state(i, st)
        return st

    def set_state(self, i: int, state: State) -> None:
        """Replace game i by `state`; its observation, mask and player to move are updated at once
        (read them from the arrays the last step returned with copy=False, or from the next step)."""
        self._batch.set_state(i, state)

    def encode(self, out: npt.NDArray[np.float32] | None = None) -> npt.NDArray[np.float32]:
        """float32 (N, C, H, W): every game's planes from its mover's view, for a network."""
        h, w, c = self.spec.obs_shape
        if out is None:
            out = np.empty((self.num_envs, c, h, w), np.float32)
        self._batch.encode(out)
        return out

    def sample_actions(self, mask: npt.ArrayLike | None = None) -> npt.NDArray[np.int64]:
        """One uniformly random legal action per game, drawn in compiled code (seeded by reset(seed)).

        `mask` defaults to the current legal masks; pass the "action_mask" you got to be explicit.
        """
        m = self._mask if mask is None else np.ascontiguousarray(mask, dtype=np.int8)
        out = np.empty(m.shape[0], np.int64)
        self._batch.sample(m, out, self.num_threads)
        return out

    def close(self) -> None:
        pass


def _check_fits(game: str, n: int, bytes_per_game: int) -> None:
    """MemoryError, saying how much was asked for, when n games cannot fit in this machine's memory."""
    need = n * bytes_per_game
    try:
        have = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not on every platform
        return
    if need > have:
        raise MemoryError(
            f"vector: {n} {game} games need about {need} bytes ({need / 2**30:.1f} GiB, "
            f"{bytes_per_game} bytes each); this machine has {have} bytes of memory"
        )


def make(game: str, num_envs: int, copy: bool = True, num_threads: int = 1, **kwargs: Any) -> VectorEnv:
    """zerogym.vector.make("go", num_envs=1024, board_size=9)."""
    return VectorEnv(game, num_envs, copy=copy, num_threads=num_threads, **kwargs)
