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


KEEPERS = {
    "dict": lambda obs: obs,
    "observation": lambda obs: obs["observation"],
    "action_mask": lambda obs: obs["action_mask"],
    "view": lambda obs: obs["observation"][..., 0],
    "memoryview": lambda obs: memoryview(obs["action_mask"]),
}


@pytest.mark.parametrize("game,kwargs", GAMES[:4], ids=[g for g, _ in GAMES[:4]])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_what_a_caller_keeps_of_an_observation_never_changes(game, kwargs, seed):
    # observe() refills the dicts and arrays a caller has let go of: never one it still holds
    env = zerogym.registry.game_module(game).env(**kwargs)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed % 1000)
    kept = []
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if rng.random() < 0.5:
            keep = list(KEEPERS)[rng.integers(len(KEEPERS))]
            held = KEEPERS[keep](obs)
            kept.append((held, {k: v.copy() for k, v in held.items()} if keep == "dict" else np.array(held)))
        del obs
        env.observe(env.possible_agents[int(rng.integers(2))])  # dropped at once
        action = None if term or trunc else int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"])))
        env.step(action)
    for held, copy in kept:
        if isinstance(held, dict):
            assert held.keys() == copy.keys()
            for k in copy:
                np.testing.assert_array_equal(held[k], copy[k])
        else:
            np.testing.assert_array_equal(np.asarray(held), copy)


def _swap(d):
    d["observation"], d["action_mask"] = d["action_mask"], d["observation"]


def _flatten(d):
    d["observation"].shape = (-1,)


def _reverse_axes(d):
    d["observation"].shape = d["observation"].shape[::-1]


def _freeze(d):
    d["action_mask"].flags.writeable = False


def _retype(d):
    d["action_mask"].dtype = np.uint8


MUTATIONS = {
    "swap": _swap,
    "flatten": _flatten,
    "reverse axes": _reverse_axes,
    "freeze": _freeze,
    "retype": _retype,
    "pop": lambda d: d.pop("action_mask"),
    "add": lambda d: d.update(x=1),
}


@pytest.mark.parametrize("mutate", MUTATIONS.values(), ids=MUTATIONS.keys())
def test_a_dict_changed_then_let_go_does_not_change_later_observations(mutate):
    env = zerogym.registry.game_module("connect_four").env()
    env.reset(seed=1)
    state = env.unwrapped.state
    for move in range(12):  # columns 0..6 in turn: no four in a row
        mutate(env.last()[0])  # changed, then let go: the env may take it back, or must not
        env.last()
        obs = env.last()[0]  # where the env would take the first one back (it keeps the last two)
        p = state.current_player
        assert set(obs) == {"observation", "action_mask"}
        assert obs["observation"].shape == state.spec.obs_shape
        for a in obs.values():
            assert a.flags.writeable and a.dtype == np.int8
        np.testing.assert_array_equal(obs["observation"], state.observation(p))
        np.testing.assert_array_equal(obs["action_mask"], state.legal_mask())
        env.step(move % 7)
