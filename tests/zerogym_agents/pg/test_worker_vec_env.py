"""PPO with its games in worker processes: trains, mirrors the pool, reproducible, resumes, refuses bad counts."""

import numpy as np
import pytest
import torch

from zerogym_agents.cli import main as cli
from zerogym_agents.core.checkpoint import CheckpointError
from zerogym_agents.core.constants import CHECKPOINT
from zerogym_agents.pg.ppo import PPOTrainer
from zerogym_agents.pg.worker_vec_env import WorkerPoolVecEnv
from tiny_runs import NET as TINY, WORKER_PPO, pg_config

pytest.importorskip("sb3_contrib")
STEPS, ENVS, N_STEPS = 4, 4, 8


def tiny(**over):
    return pg_config(WORKER_PPO, {"num_envs": ENVS, "ppo_n_steps": N_STEPS, "max_steps": STEPS}, **over)


def weights(trainer):
    return {k: v.clone() for k, v in trainer.net.state_dict().items()}


def same_weights(a, b):
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    """A seeded 2-worker run of STEPS updates, its workers still up (closed at the end)."""
    torch.set_num_threads(1)
    tr = PPOTrainer(tiny(), tmp_path_factory.mktemp("full"), log_dir=False, workers=2)
    tr.run(progress=False)
    yield tr
    tr.close()


def test_two_workers_train_and_their_pools_mirror_the_drivers(full_run):
    tr = full_run
    assert isinstance(tr.vec, WorkerPoolVecEnv) and tr.vec.sizes == [2, 2]
    assert tr.learner_moves == STEPS * ENVS * N_STEPS and tr.step == STEPS
    assert tr.episodes == tr.vec.wins + tr.vec.draws + tr.vec.losses > 0
    assert all(h["approx_kl"] is not None for h in tr.history)
    # snapshots were taken (the pool evicted its first ones) and every worker holds the driver's pool
    assert len(tr.pool) == 3 and "episodes-0" not in tr.pool.entries
    for names, elos, learner_elo, snaps in tr.vec.worker_pools():
        assert names == list(tr.pool.entries)
        assert elos == [e[1] for e in tr.pool.entries.values()] and learner_elo == tr.pool.learner_elo
        for snap, (mine, _) in zip(snaps, tr.pool.entries.values()):
            assert same_weights(snap["state_dict"], mine["state_dict"])
    # the driver's Elo moved with the workers' games, and the games in progress play later snapshots
    assert tr.pool.learner_elo != 0.0
    state = tr.vec.state_dict()
    playing = {name for shard in state["shards"] for name in shard["games"]["opponents"]}
    assert playing - {"episodes-0"}
    assert [sum(s["games"]["results"][i] for s in state["shards"]) for i in range(3)] == [
        tr.vec.wins,
        tr.vec.draws,
        tr.vec.losses,
    ]


def test_a_seeded_two_worker_run_is_reproducible(full_run, tmp_path):
    # one run at a time: a trainer seeds torch's and numpy's global generators, which SB3 draws from
    again = PPOTrainer(tiny(), tmp_path / "again", log_dir=False, workers=2)
    try:
        again.run(progress=False)
    finally:
        again.close()
    assert same_weights(weights(again), weights(full_run))
    assert (again.episodes, again.pool.learner_elo, list(again.pool.entries)) == (
        full_run.episodes,
        full_run.pool.learner_elo,
        list(full_run.pool.entries),
    )
    other = PPOTrainer(tiny(seed=2), tmp_path / "other", log_dir=False, workers=2)
    try:
        other.run(progress=False, stop_at=1)
    finally:
        other.close()
    assert other.history[0]["elo"] != full_run.history[0]["elo"]  # the seed matters


def test_a_two_worker_run_resumes_bit_for_bit(full_run, tmp_path):
    cut = PPOTrainer(tiny(), tmp_path, log_dir=False, workers=2)
    cut.run(progress=False, stop_at=2)
    cut.close()
    resumed = PPOTrainer(tiny(), tmp_path, resume=True, log_dir=False, workers=2)
    try:
        assert (resumed.step, resumed.model.num_timesteps) == (2, 2 * ENVS * N_STEPS)
        resumed.run(progress=False)
        assert (resumed.step, resumed.episodes, resumed.learner_moves) == (
            full_run.step,
            full_run.episodes,
            full_run.learner_moves,
        )
        assert list(resumed.pool.entries) == list(full_run.pool.entries)
        assert resumed.pool.learner_elo == full_run.pool.learner_elo
        assert same_weights(weights(resumed), weights(full_run))
    finally:
        resumed.close()
    with pytest.raises(CheckpointError, match=r"2 env worker\(s\).*one process.*resume --workers 2"):
        PPOTrainer(tiny(), tmp_path, resume=True, log_dir=False)
    with pytest.raises(CheckpointError, match=r"2 env worker\(s\).*4 env worker\(s\): resume --workers 2"):
        PPOTrainer(tiny(), tmp_path, resume=True, log_dir=False, workers=4)
    data = torch.load(tmp_path / CHECKPOINT, weights_only=True)
    data["games"]["shards"][1]["games"]["seats"] = torch.zeros(5, dtype=torch.int64)
    (tmp_path / "bad").mkdir()
    torch.save(data, tmp_path / "bad" / CHECKPOINT)
    with pytest.raises(CheckpointError, match=r"games\.shards\[1\]\.games\.seats"):
        PPOTrainer(tiny(), tmp_path / "bad", resume=True, log_dir=False, workers=2)


def test_one_worker_keeps_the_in_process_games(tmp_path):
    from zerogym_agents.pg.pool_vec_env import PoolVecEnv

    tr = PPOTrainer(tiny(max_steps=1), tmp_path, log_dir=False, workers=1)
    assert type(tr.vec) is PoolVecEnv
    tr.close()  # nothing to stop


@pytest.mark.parametrize(
    "workers, message",
    [
        (0, r"workers must be an integer >= 1"),
        (-2, r"workers must be an integer >= 1"),
        (2.0, r"workers must be an integer >= 1"),
        (True, r"workers must be an integer >= 1"),
        (ENVS + 1, r"workers \(5\) must be at most num_envs \(4\)"),
    ],
)
def test_bad_worker_counts_are_refused_before_any_process_starts(tmp_path, workers, message):
    with pytest.raises(ValueError, match=message):
        PPOTrainer(tiny(), tmp_path, log_dir=False, workers=workers)


def test_the_command_line_plays_ppo_in_local_processes(tmp_path, capsys):
    base = [
        *"train pg --game tictactoe --set num_envs=4 max_steps=1 ppo_n_steps=8 ppo_batch_size=16 ppo_epochs=1".split(),
        f"net={TINY}".replace("'", '"'),
        "--no-progress",
    ]
    cli.main([*base, "--algo", "ppo", "--backend", "local", "--workers", "2", "--out", str(tmp_path / "ok")])
    assert "ppo tictactoe: 1 updates, " in capsys.readouterr().out
    assert (tmp_path / "ok" / "agent.pt").is_file()
    with pytest.raises(SystemExit, match=r"workers \(9\) must be at most num_envs \(4\)"):
        cli.main([*base, "--algo", "ppo", "--workers", "9", "--out", str(tmp_path / "many")])
    assert not (tmp_path / "many").exists()  # refused before the run folder
    with pytest.raises(SystemExit, match=r"--backend local --workers N plays PPO's games .*reinforce"):
        cli.main([*base, "--algo", "reinforce", "--workers", "2", "--out", str(tmp_path / "r")])
    with pytest.raises(SystemExit, match=r"--address and --ray-set go with --backend ray"):
        cli.main([*base, "--algo", "ppo", "--workers", "2", "--address", "auto", "--out", str(tmp_path / "a")])


def test_worker_shares_split_the_games_in_order(full_run):
    masks = full_run.vec.action_masks()
    assert masks.shape == (ENVS, 9) and masks.dtype == bool
    assert list(full_run.vec.bounds) == [0, 2, 4]
    assert np.all(masks.sum(axis=1) >= 1)
