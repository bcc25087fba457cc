"""The agent interface: anything with act(env) -> int plays any zerogym AEC env."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from zerogym._core.state import State

# a zerogym PettingZoo AEC env, wrapped or not (PettingZoo has no type information)
AECEnv = Any


class Player(Protocol):
    """What plays a game: anything with act(env) -> int (an Agent, or any object like one)."""

    def act(self, env: AECEnv) -> int: ...


def game_state(env: AECEnv) -> State:
    """The compiled State behind a zerogym AEC env (wrapped or not)."""
    return env.unwrapped.state


class Agent:
    """Base class of zerogym agents.

    act(env) returns the action for the agent to move in `env` (a zerogym AEC env); search
    agents read game_state(env), network-only agents may read env.observe(agent).  seed(s)
    reseeds the agent's own random generator; reset() is called at the start of a game.
    """

    name = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def act(self, env: AECEnv) -> int:
        raise NotImplementedError

    def __call__(self, env: AECEnv) -> int:
        return self.act(env)

    def __repr__(self) -> str:
        return self.name


class RandomAgent(Agent):
    """Uniformly random legal moves."""

    name = "random"

    def act(self, env: AECEnv) -> int:
        legal = game_state(env).legal_actions()
        return int(legal[self.rng.integers(len(legal))])
