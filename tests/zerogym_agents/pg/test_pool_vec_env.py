"""PoolVecEnv: the learner's games against pool snapshots in the vector path, as an SB3 VecEnv."""

import copy

import numpy as np
import pytest
import torch

from zerogym_agents.nets import PolicyValueNet, for_game
from zerogym_agents.pg.opponents import snapshot
from zerogym_agents.pg.pool_vec_env import PoolVecEnv
from zerogym_agents.training.pool import OpponentPool

TINY = {"trunk": "resnet", "blocks": 1, "channels": 8}
GAMES = [("connect_four", {}), ("go", {"board_size": 5}), ("othello", {"board_size": 6})]


def pool_of(game, kwargs, k=3, seed=0):
    torch.manual_seed(seed)
    pool = OpponentPool(capacity=4, seed=seed)
    for i in range(k):
        pool.add(snapshot(PolicyValueNet(for_game(game, game_kwargs=kwargs, **TINY))), name=f"s{i}")
    return pool


def learner_moves(env, rng):
    return np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])


@pytest.mark.parametrize("game,kwargs", GAMES)
def test_the_learner_is_to_move_in_every_game_and_sees_its_own_view(game, kwargs):
    pool = pool_of(game, kwargs)
    env = PoolVecEnv(game, pool, num_envs=6, game_kwargs=kwargs, seed=1)
    obs = env.reset()
    rng = np.random.default_rng(2)
    seats_seen, ended = set(), 0
    for _ in range(120):
        for i in range(env.num_envs):
            st = env.venv.get_state(i)
            assert not st.is_over() and st.current_player == env.seats[i]
            assert np.array_equal(obs[i], st.observation(int(env.seats[i])))
            assert np.array_equal(env.action_masks()[i], st.legal_mask().astype(bool))
            assert env.opponents[i] in pool.entries
            seats_seen.add((i, int(env.seats[i])))
        seats = env.seats.copy()
        obs, rewards, dones, infos = env.step(learner_moves(env, rng))
        assert obs.dtype == np.int8 and env.observation_space.contains(obs[0])
        for i in range(env.num_envs):
            if dones[i]:
                ended += 1
                assert rewards[i] in (-1.0, 0.0, 1.0) and infos[i]["result"] == rewards[i]
                assert env.seats[i] == 1 - seats[i]  # colours alternate per game
            else:
                assert rewards[i] == 0 and "result" not in infos[i] and env.seats[i] == seats[i]
    assert ended == env.wins + env.draws + env.losses > 0
    assert len(seats_seen) == 2 * env.num_envs  # every game was played from both seats


def test_results_are_the_learners_and_feed_the_pool():
    """A learner that always plays the first legal column against sampled snapshots: each finished
    game's reward agrees with the final position, and the pool's Elo moved."""
    pool = pool_of("connect_four", {})
    env = PoolVecEnv("connect_four", pool, num_envs=8, seed=3)
    env.reset()
    before = pool.learner_elo
    checked = 0
    for _ in range(200):
        finals = [env.venv.get_state(i) for i in range(env.num_envs)]
        actions = np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()])
        seats = env.seats.copy()
        _, rewards, dones, _ = env.step(actions)
        for i in np.flatnonzero(dones):
            st = finals[i].copy().step(int(actions[i]))
            if st.is_over():  # the learner's own move ended it
                assert rewards[i] == st.returns()[seats[i]]
                checked += 1
    assert checked > 0
    assert pool.learner_elo != before


def test_reproducible_from_the_seed_and_resumable_exactly():
    def run(env, steps, rng):
        out = []
        for _ in range(steps):
            obs, rewards, dones, _ = env.step(learner_moves(env, rng))
            out.append((obs.copy(), rewards.copy(), dones.copy(), list(env.opponents)))
        return out

    a = PoolVecEnv("go", pool_of("go", {"board_size": 5}), num_envs=4, game_kwargs={"board_size": 5}, seed=7)
    b = PoolVecEnv("go", pool_of("go", {"board_size": 5}), num_envs=4, game_kwargs={"board_size": 5}, seed=7)
    a.reset(), b.reset()
    ra, rb = np.random.default_rng(0), np.random.default_rng(0)
    first = run(a, 30, ra)
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(first, run(b, 30, rb)))
    saved, pool = a.state_dict(), copy.deepcopy(a.pool)  # the trainer checkpoints the pool itself
    rng_state = ra.bit_generator.state
    cont = run(a, 40, ra)
    c = PoolVecEnv("go", pool, num_envs=4, game_kwargs={"board_size": 5}, seed=99)
    c.load_state_dict(saved)
    rc = np.random.default_rng(0)
    rc.bit_generator.state = rng_state
    again = run(c, 40, rc)
    for x, y in zip(cont, again):
        assert np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) and x[3] == y[3]
    assert (c.wins, c.draws, c.losses) == (a.wins, a.draws, a.losses)


def test_an_opponent_dropped_from_the_pool_keeps_playing_its_game():
    pool = pool_of("connect_four", {}, k=1)
    env = PoolVecEnv("connect_four", pool, num_envs=2, seed=0)
    env.reset()
    torch.manual_seed(5)
    for i in range(4):  # capacity 4: "s0" is pushed out
        pool.add(snapshot(PolicyValueNet(for_game("connect_four", **TINY))), name=f"new{i}")
    assert "s0" not in pool.entries and env.opponents == ["s0", "s0"]
    saved = env.state_dict()
    assert set(saved["dropped"]) == {"s0"}
    other = PoolVecEnv("connect_four", pool, num_envs=2, seed=0)
    other.load_state_dict(saved)
    assert other.opponents == ["s0", "s0"]
    assert all(torch.equal(v, env._nets["s0"].state_dict()[k]) for k, v in other._nets["s0"].state_dict().items())
    env.step(learner_moves(env, np.random.default_rng(0)))  # plays on


def test_bad_pools_and_states_are_refused():
    pool = OpponentPool(capacity=2, seed=0)
    pool.add(lambda env: 0, name="a callable")
    with pytest.raises(ValueError, match="net snapshots .* only; pool entry 'a callable'"):
        PoolVecEnv("connect_four", pool, num_envs=2).reset()
    env = PoolVecEnv("connect_four", pool_of("connect_four", {}), num_envs=2)
    env.reset()
    saved = env.state_dict()
    with pytest.raises(ValueError, match="2 games, this env 3"):
        PoolVecEnv("connect_four", pool_of("connect_four", {}), num_envs=3).load_state_dict(saved)
    saved["opponents"] = ["gone", "gone"]
    with pytest.raises(ValueError, match="snapshot 'gone'"):
        env.load_state_dict(saved)


def test_maskable_ppo_learns_on_it():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from zerogym_agents.pg.ppo import PolicyValueNetPolicy

    env = PoolVecEnv("connect_four", pool_of("connect_four", {}), num_envs=4, seed=0)
    model = sb3_contrib.MaskablePPO(
        PolicyValueNetPolicy,
        env,
        n_steps=16,
        batch_size=32,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"net": TINY},
        verbose=0,
    )
    before = {k: v.clone() for k, v in model.policy.state_dict().items()}
    model.learn(64)
    assert model.num_timesteps == 64 and env.wins + env.draws + env.losses > 0
    assert any(not torch.equal(before[k], v) for k, v in model.policy.state_dict().items())
