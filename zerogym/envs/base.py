"""The shared PettingZoo AEC base for every zerogym game."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol, cast

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import BaseWrapper

from zerogym._core.aec import EnvCore, WrapperCore
from zerogym._validate import choice_arg, known_kwargs
from zerogym.envs.binding import bind

if TYPE_CHECKING:
    from zerogym._core.state import State
    from zerogym.envs.game_info import GameInfo


class _ActionSpace(spaces.Discrete):
    """Discrete whose generator is built from its seed on the first draw, not by seed(): course code
    calls reset(seed=...) every episode, and building a generator costs more than a short game."""

    _pending_seed: int | None = None

    def seed(self, seed: int | None = None) -> int | Any:
        if seed is None:
            return super().seed(seed)
        # gymnasium types _np_random as a Generator and itself uses None for "not built yet"
        self._np_random, self._pending_seed = None, seed  # type: ignore[assignment]
        return seed

    @property
    def np_random(self) -> np.random.Generator:
        if self._np_random is None:
            super().seed(self._pending_seed)
        return self._np_random


class BoardGameEnv(EnvCore, AECEnv):
    """Two-player, alternating board game over a compiled State (`self.state`).

    Subclasses set `state_class` and `game_info` (the game's GameInfo, see zerogym/envs/game_info.py:
    how its boards and pictures look, among the rest); `metadata["name"]` follows from game_info.name.
    Observations are {"observation": int8 (H, W, C) seen from the observing agent,
    "action_mask": int8 (A,), all zero for an agent that is not to move}.
    reset(), observe(), last(), step(), agent_iter() and the fields they touch are compiled (EnvCore,
    zerogym/_core/aec.pyx).
    """

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "name": "board_game",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    state_class: type[State]
    game_info: GameInfo[Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "game_info" in cls.__dict__ and "metadata" not in cls.__dict__:
            cls.metadata = dict(BoardGameEnv.metadata, name=f"{cls.game_info.name}_v0")

    def __init__(self, render_mode: str | None = None, **kwargs: Any) -> None:
        super().__init__()
        known_kwargs(self.state_class, kwargs)
        self.state = self.state_class(**kwargs)
        spec = self.state.spec
        if render_mode is not None:
            choice_arg(spec.name, "render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        self.possible_agents = list(spec.agents)
        self._player = {a: i for i, a in enumerate(self.possible_agents)}
        h, w, c = spec.obs_shape
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0, 1, (h, w, c), np.int8),
                    "action_mask": spaces.Box(0, 1, (spec.num_actions,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: _ActionSpace(spec.num_actions) for a in self.possible_agents}
        self._window = None
        self._np_random, self._np_random_seed = None, None
        self.reset()

    # ---- PettingZoo API ----------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    @property
    def np_random(self) -> np.random.Generator:
        """gymnasium's generator, built from the last reset's seed on the first draw."""
        if self._np_random is None:
            self._np_random, _ = seeding.np_random(self._np_random_seed)
        return self._np_random

    @np_random.setter
    def np_random(self, generator: np.random.Generator) -> None:
        self._np_random = generator

    def final_info(self) -> dict[str, Any]:
        """Extra info given to both agents when the game ends (Go adds its score)."""
        return {}

    # ---- rendering -----------------------------------------------------------------------------
    def render(self) -> str | npt.NDArray[np.uint8] | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= to the env")
            return None
        if self.render_mode == "ansi":
            return self.render_text()
        from zerogym import render

        image = render.draw(self.state)
        if self.render_mode == "rgb_array":
            return image
        self._window = render.show(image, self._window, self.metadata["name"])
        return None

    def render_text(self) -> str:
        """The board as text with coordinates; the last move is bracketed."""
        from zerogym.render import text_board

        return text_board(self.state, **self.game_info.text_style)

    def close(self) -> None:
        if self._window is not None:
            from zerogym import render

            render.close(self._window)
            self._window = None

    def __str__(self) -> str:
        return f"{self.metadata['name']}({', '.join(f'{k}={v!r}' for k, v in self.state.spec.kwargs.items())})"


class ClassicWrapper(WrapperCore, BaseWrapper):
    """PettingZoo's classic wrapping in one thin layer.

    Same behaviour as TerminateIllegalWrapper(-1) + AssertOutOfBoundsWrapper + OrderEnforcingWrapper,
    without their per-attribute __getattr__ chains: step/observe need a reset() first; with
    illegal="terminate" a legal-range but illegal move ends the game, the offender gets -1 and the
    other 0 (info["illegal_move"] says why); with illegal="raise" it raises IllegalMoveError and
    changes nothing. An action outside 0..A-1 (or not an int) always raises IllegalMoveError.
    """

    def __init__(self, env: BoardGameEnv, illegal: str = "terminate") -> None:
        super().__init__(env)
        self._raw = env.unwrapped
        self.illegal = choice_arg(self._raw.metadata["name"], "illegal", illegal, ("terminate", "raise"))
        self._has_reset = False
        self._ended_illegally = False

    def _terminate_illegal(self, agent: str, reason: str | None) -> None:
        raw = self._raw
        self._ended_illegally = True
        raw._cumulative_rewards[agent] = 0
        raw.terminations = {a: True for a in raw.agents}
        raw.rewards = {a: 0 for a in raw.agents}
        raw.rewards[agent] = -1.0
        for a in raw.agents:
            raw.infos[a] = dict(raw.infos[a], illegal_move=f"{agent}: {reason}")
        raw._accumulate_rewards()
        raw._deads_step_first()

    def __str__(self) -> str:
        return str(self._raw)


class RawEnvFactory(Protocol):
    """A game module's raw_env: makes the unwrapped env, and names the game's State class and GameInfo."""

    state_class: type[State]
    game_info: GameInfo[Any]

    def __call__(self, render_mode: str | None = None, **kwargs: Any) -> BoardGameEnv: ...


def env_factories(raw_class: type[BoardGameEnv]) -> tuple[Callable[..., ClassicWrapper], RawEnvFactory]:
    """The (env, raw_env) pair a game module exports; binds the class's GameInfo to its State class, so that
    the game's states find it (zerogym.envs.binding)."""
    bind(raw_class.state_class, raw_class.game_info)

    def raw_env(render_mode: str | None = None, **kwargs: Any) -> BoardGameEnv:
        return raw_class(render_mode=render_mode, **kwargs)

    def env(render_mode: str | None = None, illegal: str = "terminate", **kwargs: Any) -> ClassicWrapper:
        return ClassicWrapper(raw_class(render_mode=render_mode, **kwargs), illegal=illegal)

    factory = cast(RawEnvFactory, raw_env)  # the function, with the two attributes set below
    factory.__doc__ = f"Unwrapped AEC env: {raw_class.__doc__}"
    env.__doc__ = f"Wrapped AEC env (PettingZoo classic conventions, see ClassicWrapper): {raw_class.__doc__}"
    factory.state_class = raw_class.state_class
    factory.game_info = raw_class.game_info
    return env, factory
