"""The compiled AEC env (zerogym/_core/aec.pyx) against PettingZoo's own AECEnv bookkeeping.

ReferenceEnv keeps the agents, rewards, flags and infos with PettingZoo's AECEnv methods (its
agent_iter, _was_dead_step and _accumulate_rewards) over the same compiled State; both envs play the
same random games and must agree on everything an agent can see after every call.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo import AECEnv

import zerogym

GAMES = [
    ("connect_four", {"rows": 4, "cols": 5, "connect": 3}),
    ("tictactoe", {}),
    ("hex", {"board_size": 3}),
    ("breakthrough", {"rows": 4, "cols": 4}),
    ("go", {"board_size": 3, "max_moves": 6}),  # ends by the move limit: truncation
    ("go", {"board_size": 3}),
]


class ReferenceEnv(AECEnv):
    """An AEC env written the plain PettingZoo way over a zerogym State."""

    def __init__(self, game: str, kwargs: dict[str, Any], final_info: Any) -> None:
        self.state = zerogym.make_state(game, **kwargs)
        self.possible_agents = list(self.state.spec.agents)
        self.final_info = final_info
        self.reset()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.state.reset()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = self.possible_agents.index(agent)
        mask = self.state.legal_mask() if p == self.state.current_player else np.zeros(self.state.num_actions, np.int8)
        return {"observation": self.state.observation(p), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.state.step(action)
        if self.state.is_over():
            ret = self.state.returns()
            flags = self.terminations if self.state.is_terminal() else self.truncations
            for a in self.agents:
                flags[a] = True
                self.rewards[a] = ret[self.possible_agents.index(a)]
                self.infos[a] = dict(self.final_info())
            self._cumulative_rewards[agent] = 0
            self._accumulate_rewards()
        self.agent_selection = self.possible_agents[self.state.current_player]


def same_seen(env: Any, ref: ReferenceEnv) -> None:
    """Everything an agent can read agrees between the two envs."""
    assert env.agents == ref.agents and env.agent_selection == ref.agent_selection
    for name in ("rewards", "_cumulative_rewards", "terminations", "truncations", "infos"):
        assert getattr(env, name) == getattr(ref, name), name
    if env.agents:
        obs, rew, term, trunc, info = env.last()
        robs, rrew, rterm, rtrunc, rinfo = ref.last()
        assert (rew, term, trunc, info) == (rrew, rterm, rtrunc, rinfo)
        for agent in env.agents:
            o, r = env.observe(agent), ref.observe(agent)
            assert o["observation"].dtype == np.int8 and o["action_mask"].dtype == np.int8
            np.testing.assert_array_equal(o["observation"], r["observation"])
            np.testing.assert_array_equal(o["action_mask"], r["action_mask"])
        np.testing.assert_array_equal(obs["action_mask"], robs["action_mask"])


@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
@pytest.mark.parametrize("game,kwargs", GAMES, ids=[f"{g}-{len(k)}" for g, k in GAMES])
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_match_pettingzoos_bookkeeping(game, kwargs, wrapped, seed):
    module = zerogym.registry.game_module(game)
    env = (module.env if wrapped else module.raw_env)(**kwargs)
    ref = ReferenceEnv(game, kwargs, env.unwrapped.final_info)
    rng = np.random.default_rng(seed)
    for _ in range(2):  # a second game after reset, on the same objects
        env.reset(seed=int(rng.integers(1000)))
        ref.reset()
        same_seen(env, ref)
        turns = []
        for agent, ref_agent in zip(env.agent_iter(), ref.agent_iter()):
            assert agent == ref_agent
            _, _, term, trunc, _ = env.last()
            action = None if term or trunc else int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"])))
            env.step(action)
            ref.step(action)
            turns.append(agent)
            same_seen(env, ref)
        assert list(env.agent_iter()) == list(ref.agent_iter()) == []  # both ended together
        assert sorted(turns[-2:]) == sorted(env.possible_agents) and not env.agents  # both left at the end


@pytest.mark.parametrize("max_iter", [0, 1, 3, -2])
def test_agent_iter_gives_at_most_max_iter_turns(max_iter):
    env = zerogym.registry.game_module("tictactoe").env()
    env.reset()
    turns = []
    for agent in env.agent_iter(max_iter):
        turns.append(agent)
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    assert turns == ["player_0", "player_1", "player_0"][: max(max_iter, 0)]


def test_illegal_move_ends_the_game_and_both_agents_leave_in_pettingzoos_order():
    env = zerogym.registry.game_module("tictactoe").env()
    env.reset()
    env.step(4)
    env.step(4)  # occupied: player_1 loses
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env._cumulative_rewards == {"player_0": 0, "player_1": -1.0}
    left = []
    for agent in env.agent_iter():
        obs, _, term, _, _ = env.last()
        assert term and not obs["action_mask"].any()
        left.append(agent)
        env.step(None)
    assert left == ["player_0", "player_1"] and env.agents == []
