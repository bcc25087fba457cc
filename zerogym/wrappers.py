"""A Gymnasium single-agent view of a two-player zerogym AEC env."""

from __future__ import annotations

from typing import Any, Callable

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from zerogym._core.state import action_index
from zerogym._validate import choice_arg


def _as_policy(opponent: Any) -> Callable[[Any], Any]:
    if hasattr(opponent, "act"):
        return opponent.act
    if callable(opponent):
        return opponent
    raise TypeError(
        f"opponent must have an act(env) method or be a callable env -> action, got {type(opponent).__name__}"
    )


class SingleAgentEnv(gymnasium.Env):
    """The learner plays one seat of `aec_env`; `opponent` plays the other.

    opponent: an agent with act(env) -> action (an opponent pool is one), or a callable
    env -> action; it gets the unwrapped AEC env, so search agents can read env.state and random
    callables can draw from env.np_random (seeded by reset(seed=...)). If it has a seed(seed)
    method, reset(seed=...) calls it; if it has reset(), that is called at the start of every
    episode (pools draw a new opponent there).
    learner: "first", "second" or "alternate" (seats swap every episode, starting from the
    first seat after a seeded reset).
    illegal: "lose" (an illegal learner action ends the episode with reward -1) or "raise".

    Observations are the learner's int8 planes (H, W, C); action_masks() gives the learner's legal
    actions for sb3-contrib's MaskablePPO; info["action_mask"] holds the same.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"]}

    def __init__(self, aec_env: Any, opponent: Any, learner: str = "first", illegal: str = "lose") -> None:
        super().__init__()
        self.env = aec_env.unwrapped
        self.opponent = opponent
        self._policy = _as_policy(opponent)
        self.learner = choice_arg("SingleAgentEnv", "learner", learner, ("first", "second", "alternate"))
        self.illegal = choice_arg("SingleAgentEnv", "illegal", illegal, ("lose", "raise"))
        agent = self.env.possible_agents[0]
        self.observation_space = self.env.observation_space(agent)["observation"]
        self.action_space = spaces.Discrete(self.env.state.num_actions)
        self.render_mode = self.env.render_mode
        self.seat = 0
        self._episodes = 0

    @property
    def learner_agent(self) -> str:
        return self.env.possible_agents[self.seat]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.int8], dict[str, Any]]:
        super().reset(seed=seed)
        self.env.reset(seed=seed)
        if seed is not None:
            self._episodes = 0  # a seed restarts the seat sequence too
        if self.learner == "alternate":
            self.seat = self._episodes % 2
        else:
            self.seat = 0 if self.learner == "first" else 1
        self._episodes += 1
        if seed is not None and hasattr(self.opponent, "seed"):
            self.opponent.seed(seed)
        if hasattr(self.opponent, "reset"):
            self.opponent.reset()
        self._play_opponent()
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[npt.NDArray[np.int8], float, bool, bool, dict[str, Any]]:
        state = self.env.state
        if state.is_over():
            raise RuntimeError("the episode is over: call reset()")
        action = action_index(action, state.num_actions)  # one conversion; no bools or floats
        if not state.is_legal(action):
            if self.illegal == "raise":
                state.step(action)  # raises IllegalMoveError with the reason
            info = self._info()
            info["illegal_action"] = state.illegal_reason(action)
            return self._obs(), -1.0, True, False, info
        self.env.step(action)
        self._play_opponent()
        reward = 0.0
        if state.is_over():
            reward = float(state.returns()[self.seat])
        return self._obs(), reward, state.is_terminal(), state.is_truncated(), self._info()

    def _play_opponent(self) -> None:
        state = self.env.state
        while not state.is_over() and state.current_player != self.seat:
            self.env.step(action_index(self._policy(self.env), state.num_actions))

    def _obs(self) -> npt.NDArray[np.int8]:
        return self.env.state.observation(self.seat)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "seat": self.seat}

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """bool (A,): the learner's legal actions (all False once the game is over)."""
        state = self.env.state
        if state.is_over() or state.current_player != self.seat:
            return np.zeros(state.num_actions, dtype=bool)
        return state.legal_mask().astype(bool)

    def render(self) -> Any:
        return self.env.render()

    def close(self) -> None:
        self.env.close()
