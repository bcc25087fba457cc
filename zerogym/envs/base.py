"""The shared PettingZoo AEC base for every zerogym game."""
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from zerogym._validate import choice_arg
from zerogym.errors import IllegalMoveError


class BoardGameEnv(AECEnv):
    """Two-player, alternating board game over a compiled State (`self.state`).

    Subclasses set `state_class`, `metadata["name"]` and, for rendering, `text_style`.
    Observations are {"observation": int8 (H, W, C) seen from the observing agent,
    "action_mask": int8 (A,), all zero for an agent that is not to move}.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "name": "board_game",
                "is_parallelizable": False, "render_fps": 2}
    state_class = None
    # text rendering: symbols for empty / first / second, whether row 0 is printed last (bottom)
    text_style = {"symbols": ".XO", "row0_at_bottom": True, "hex": False, "column_labels": "letters"}

    def __init__(self, render_mode=None, **kwargs):
        super().__init__()
        self.state = self.state_class(**kwargs)
        spec = self.state.spec
        if render_mode is not None:
            choice_arg(spec.name, "render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        self.possible_agents = list(spec.agents)
        self._player = {a: i for i, a in enumerate(self.possible_agents)}
        h, w, c = spec.obs_shape
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0, 1, (h, w, c), np.int8),
            "action_mask": spaces.Box(0, 1, (spec.num_actions,), np.int8),
        }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(spec.num_actions) for a in self.possible_agents}
        self._window = None
        self.reset()

    # ---- PettingZoo API ----------------------------------------------------------------------
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        p = self._player[agent]
        if p == self.state.current_player:
            mask = self.state.legal_mask()
        else:
            mask = np.zeros(self.state.num_actions, dtype=np.int8)
        return {"observation": self.state.observation(p), "action_mask": mask}

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
            for i, a in enumerate(self.possible_agents):
                self.action_spaces[a].seed(seed + i)
        self.state.reset()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def step(self, action):
        if not self.agents:
            raise IllegalMoveError(f"the {self.state.spec.name} game is over and every agent is done: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise IllegalMoveError(f"the game is over, {agent} is done: step(None) to let it leave, "
                                       f"or reset() for a new game (got action {action!r})")
            return self._was_dead_step(action)
        self.state.step(action)          # raises IllegalMoveError, state unchanged
        self._cumulative_rewards[agent] = 0
        if self.state.is_over():
            ret = self.state.returns()
            done = {a: True for a in self.agents}
            if self.state.is_terminal():
                self.terminations = done
            else:
                self.truncations = done
            self.rewards = {a: ret[self._player[a]] for a in self.agents}
            info = self.final_info()
            self.infos = {a: dict(info) for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def final_info(self):
        """Extra info given to both agents when the game ends (Go adds its score)."""
        return {}

    # ---- rendering -----------------------------------------------------------------------------
    def render(self):
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= to the env")
            return None
        if self.render_mode == "ansi":
            return self.render_text()
        from zerogym import render
        image = render.draw(self.state, self.metadata["name"], self.text_style["row0_at_bottom"])
        if self.render_mode == "rgb_array":
            return image
        self._window = render.show(image, self._window, self.metadata["name"])
        return None

    def render_text(self):
        """The board as text with coordinates; the last move is bracketed."""
        from zerogym.render import text_board
        return text_board(self.state, **self.text_style)

    def close(self):
        if self._window is not None:
            from zerogym import render
            render.close(self._window)
            self._window = None

    def __str__(self):
        return f"{self.metadata['name']}({', '.join(f'{k}={v!r}' for k, v in self.state.spec.kwargs.items())})"


def wrap(raw, illegal="terminate"):
    """PettingZoo classic wrapping: an illegal move ends the game with -1 for the offender
    (illegal="terminate"), or raises IllegalMoveError and changes nothing (illegal="raise")."""
    choice_arg(raw.metadata["name"], "illegal", illegal, ("terminate", "raise"))
    env = raw
    if illegal == "terminate":
        env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def env_factories(raw_class):
    """The (env, raw_env) pair a game module exports."""

    def raw_env(render_mode=None, **kwargs):
        return raw_class(render_mode=render_mode, **kwargs)

    def env(render_mode=None, illegal="terminate", **kwargs):
        return wrap(raw_class(render_mode=render_mode, **kwargs), illegal=illegal)

    raw_env.__doc__ = f"Unwrapped AEC env: {raw_class.__doc__}"
    env.__doc__ = f"Wrapped AEC env (PettingZoo classic wrappers): {raw_class.__doc__}"
    raw_env.state_class = raw_class.state_class
    return env, raw_env
