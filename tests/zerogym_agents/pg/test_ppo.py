"""MaskablePPO on SingleAgentEnv against the pool: env checks, masked predictions, snapshots, exact resume."""

import warnings

import numpy as np
import pytest
import torch

import zerogym
from zerogym_agents.nets import PolicyValueNet
from zerogym_agents.agents.policy import PolicyAgent
from zerogym_agents.pg.opponents import make_selfplay_env, snapshot
from zerogym_agents.pg.ppo import PolicyValueNetPolicy, PPOTrainer, SB3PolicyAgent, SnapshotCallback, policy_snapshot
from zerogym_agents.training.pool import OpponentPool
from tiny_runs import NET as TINY, PPO, pg_config

sb3_contrib = pytest.importorskip("sb3_contrib")


def pool_env(game="connect_four", **kw):
    pool = OpponentPool(capacity=4, seed=0)
    env = make_selfplay_env(game, pool, seed=0, **kw)
    return pool, env


def model_on(env, policy=PolicyValueNetPolicy, **kw):
    kwargs = dict(n_steps=16, batch_size=16, n_epochs=1, seed=0, device="cpu", verbose=0)
    if policy is PolicyValueNetPolicy:
        kwargs["policy_kwargs"] = {"net": TINY}
    kwargs.update(kw)
    return sb3_contrib.MaskablePPO(policy, env, **kwargs)


def test_the_ppo_env_passes_sb3_and_gymnasium_checks():
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    pool, env = pool_env()
    torch.manual_seed(0)
    from zerogym_agents.nets import for_game

    pool.add(snapshot(PolicyValueNet(for_game("connect_four", **TINY))), name="s")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # advice about observation dtypes, not failures
        sb3_check(env)
        gym_check(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert env.action_masks().dtype == bool and env.action_masks().shape == (7,)
    assert env.observation_space.contains(obs)


def test_predict_refuses_to_run_without_masks_and_never_picks_an_illegal_move():
    pool, env = pool_env()
    model = model_on(env)
    pool.add(policy_snapshot(model.policy), name="start")
    obs, _ = env.reset(seed=0)
    with pytest.raises(ValueError, match="action_masks"):
        model.predict(obs)
    net = model.policy.net
    real = net.forward_raw
    net.forward_raw = lambda x: (real(x)[0] + torch.tensor([1e4, 0, 0, 0, 0, 0, 0]), real(x)[1])  # loves column 0
    picks = set()
    for game in range(6):
        obs, _ = env.reset()
        done = False
        while not done:
            mask = env.action_masks()
            action, _ = model.predict(obs, action_masks=mask, deterministic=game % 2 == 0)
            assert mask[int(action)], (mask, action)
            picks.add(int(action))
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
    assert 0 in picks and len(picks) > 1  # column 0 while it is open, others once it is full


def test_the_ppo_policy_exports_as_a_policy_agent(tmp_path):
    from zerogym_agents.agents.saved import load_agent, save_agent

    pool, env = pool_env()
    model = model_on(env)
    save_agent(tmp_path / "ppo.pt", model.policy.net, {"greedy": True}, {"game": "connect_four"}, kind="policy")
    agent = load_agent(str(tmp_path / "ppo.pt"))
    assert isinstance(agent, PolicyAgent)
    obs = np.random.default_rng(0).integers(0, 2, (5, 6, 7, 3)).astype(np.int8)
    model.policy.set_training_mode(False)  # as in rollouts and predict()
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.from_numpy(obs), np.ones((5, 7), bool))
    planes = obs.transpose(0, 3, 1, 2).astype(np.float32)
    mine = torch.log_softmax(torch.from_numpy(agent.logits(planes)), dim=1).numpy()
    assert np.allclose(dist.distribution.logits.numpy(), mine, atol=1e-5)


def test_snapshot_callback_freezes_any_sb3_policy_into_the_pool():
    pool, env = pool_env("tictactoe")
    model = model_on(env, "MlpPolicy")
    pool.add(policy_snapshot(model.policy), name="start")
    model.learn(64, callback=SnapshotCallback(pool, every=32, unit="steps"))
    assert list(pool.entries) == ["start", "steps-32", "steps-64"]
    snap = pool.entries["start"][0]
    assert isinstance(snap, SB3PolicyAgent)
    live = {p.data_ptr() for p in model.policy.parameters()}
    assert not live & {p.data_ptr() for p in snap.policy.parameters()}
    assert not any(p.requires_grad for p in snap.policy.parameters())
    game = zerogym.make("tictactoe", illegal="raise")
    game.reset(seed=0)
    while not game.unwrapped.state.is_over():
        game.step(snap.act(game))
    with pytest.raises(ValueError, match="snapshot unit"):
        SnapshotCallback(pool, every=10, unit="games")


def tiny(**over):
    return pg_config(PPO, **over)


def test_ppo_resume_continues_the_counters_and_the_weights_exactly(tmp_path):
    full = PPOTrainer(tiny(), tmp_path / "a", log_dir=False)
    full.run(progress=False)
    assert full.learner_moves == 4 * 2 * 16 and full.episodes > 0
    assert all(h["approx_kl"] is not None for h in full.history)
    assert len(full.pool) == 3
    cut = PPOTrainer(tiny(), tmp_path / "b", log_dir=False)
    cut.run(progress=False, stop_at=2)
    resumed = PPOTrainer(tiny(), tmp_path / "b", resume=True, log_dir=False)
    assert (resumed.step, resumed.learner_moves, resumed.model.num_timesteps) == (2, 64, 64)
    resumed.run(progress=False)
    assert (resumed.step, resumed.episodes, resumed.learner_moves) == (full.step, full.episodes, full.learner_moves)
    assert list(resumed.pool.entries) == list(full.pool.entries)
    for k, v in full.net.state_dict().items():
        assert torch.equal(v, resumed.net.state_dict()[k]), k


def test_ppo_follows_the_trainers_learning_rate_schedule(tmp_path):
    tr = PPOTrainer(tiny(lr=1e-3, lr_final=1e-4), tmp_path, log_dir=False)
    tr.run(progress=False)
    last_update = 1e-4 + 9e-4 * (1 + np.cos(np.pi * 3 / 4)) / 2  # made at step 3 of 4
    assert tr.model.policy.optimizer.param_groups[0]["lr"] == pytest.approx(last_update)
    assert tr.history[-1]["lr"] == pytest.approx(1e-4)


def test_a_policy_can_be_frozen_after_learning():
    """After learn() the policy's last distribution is part of the autograd graph; the frozen copy
    is built from the policy's constructor arguments and weights and plays as the policy does."""
    pool, env = pool_env("tictactoe")
    model = model_on(env, "MlpPolicy")
    pool.add(policy_snapshot(model.policy), name="start")
    model.learn(64)
    snap = policy_snapshot(model.policy, greedy=True)
    obs, _ = model.policy.obs_to_tensor(zerogym.make_state("tictactoe").observation())
    with torch.no_grad():
        ours = snap.policy.get_distribution(obs).distribution.logits
        theirs = model.policy.get_distribution(obs).distribution.logits
    assert torch.equal(ours, theirs)
    assert not {p.data_ptr() for p in model.policy.parameters()} & {p.data_ptr() for p in snap.policy.parameters()}


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_a_resumed_run_on_the_gpu_continues_its_gpu_generator(tmp_path):
    cut = PPOTrainer(tiny(device="cuda"), tmp_path, log_dir=False)
    cut.run(progress=False, stop_at=2)  # the policy samples its moves on the GPU
    saved = torch.load(tmp_path / "checkpoint.pt", weights_only=True)["cuda_rng"]
    assert saved is not None
    torch.cuda.manual_seed(12345)
    resumed = PPOTrainer(tiny(device="cuda"), tmp_path, resume=True, log_dir=False)
    assert torch.equal(torch.cuda.get_rng_state(resumed.device), saved)


def test_a_cpu_run_keeps_no_gpu_generator_state(tmp_path):
    PPOTrainer(tiny(device="cpu", max_steps=2), tmp_path, log_dir=False).run(progress=False)
    assert torch.load(tmp_path / "checkpoint.pt", weights_only=True)["cuda_rng"] is None
