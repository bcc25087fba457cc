"""Policy-gradient resume (REINFORCE and PPO): a malformed checkpoint is refused with a CheckpointError
naming the file and what is wrong, before anything is restored."""

import copy
import json

import pytest
import torch

from zerogym_agents.core.checkpoint import CheckpointError
from zerogym_agents.core.constants import CHECKPOINT
from zerogym_agents.pg.config import PGConfig
from zerogym_agents.pg.trainers import make_trainer
from tiny_runs import PPO, pg_fields

CONFIGS = {"reinforce": pg_fields(num_envs=4, snapshot_every=4), "ppo": pg_fields(PPO, ppo_epochs=1)}


def config(algo, **over):
    return PGConfig(**{**CONFIGS[algo], **over})


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def saved(request, tmp_path_factory):
    """(algo, the checkpoint dict of a 2-update run)."""
    algo = request.param
    folder = tmp_path_factory.mktemp(algo)
    torch.set_num_threads(1)
    make_trainer(config(algo), folder, log_dir=False).run(progress=False, stop_at=2)
    return algo, torch.load(folder / CHECKPOINT, weights_only=True)


def refused(tmp_path, algo, data, *words, cfg=None):
    folder = tmp_path / "resume"
    folder.mkdir(exist_ok=True)
    torch.save(data, folder / CHECKPOINT)
    with pytest.raises(CheckpointError) as err:
        make_trainer(cfg or config(algo), folder, resume=True, log_dir=False)
    msg = str(err.value)
    assert msg.startswith(str(folder / CHECKPOINT)), msg
    for w in words:
        assert w in msg, (w, msg)


def keys(data):
    return sorted(k for k in data if k not in ("format", "version", "kind"))


def test_the_fixture_checkpoint_resumes(tmp_path, saved):
    algo, data = saved
    folder = tmp_path / "resume"
    folder.mkdir()
    torch.save(data, folder / CHECKPOINT)
    assert make_trainer(config(algo), folder, resume=True, log_dir=False).step == 2


def test_every_key_missing_or_of_the_wrong_type_is_named(tmp_path, saved):
    algo, data = saved
    assert "cuda_rng" in keys(data)
    for key in keys(data):
        bad = copy.deepcopy(data)
        del bad[key]
        if key != "cuda_rng":  # optional: files written before GPUs' generators were kept
            refused(tmp_path, algo, bad, f"lacks '{key}'")
        for wrong in (None, "x", [1], {"a": 1}, -1):
            if (key, wrong) in (("last_obs", None), ("last_episode_starts", None), ("cuda_rng", None)):
                continue  # None: a run that never stepped, a run on the CPU
            bad = copy.deepcopy(data)
            bad[key] = wrong
            refused(tmp_path, algo, bad, key)


def _set(path, value):
    def mutate(data):
        node = data
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value(node[path[-1]])

    return mutate


COMMON = {
    "config not JSON": (_set(["config"], lambda _: "[1"), "config is not valid JSON"),
    "config of another game": (
        _set(["config"], lambda t: json.dumps({**json.loads(t), "game": "connect_four"})),
        "game='connect_four', but this run has game='tictactoe'",
    ),
    "net of another shape": (
        _set(["net", "config"], lambda t: json.dumps({**json.loads(t), "channels": 4})),
        "corrupt zerogym network in net",
    ),
    "net claims a huge trunk": (
        _set(["net", "config"], lambda t: json.dumps({**json.loads(t), "blocks": 10**5})),
        "config.blocks = 100000 is more than",
    ),
    "a snapshot of a composite": (
        _set(["pool_snapshots", 0, "format"], lambda _: "zerogym.CompositeNet"),
        "pool_snapshots[0] is not a zerogym network",
    ),
    "a snapshot with a bad weight": (
        _set(["pool_snapshots", 0, "state_dict", "value.mlp.0.weight"], lambda t: t.T),
        "pool_snapshots[0]: state_dict['value.mlp.0.weight'] must be",
    ),
    "snapshots and names disagree": (
        _set(["pool_snapshots"], lambda s: s + s),
        "pool_snapshots holds 6 nets for 3 pool names",
    ),
    "pool names not strings": (_set(["pool", "names"], lambda n: [7]), "pool.names[0] must be a string"),
    "torch_rng garbage": (_set(["torch_rng"], torch.zeros_like), "torch_rng is not a torch CPU generator state"),
    "cuda_rng of another size": (
        _set(["cuda_rng"], lambda _: torch.zeros(8, dtype=torch.uint8)),
        "cuda_rng must be None or a CUDA generator state (a uint8 tensor of shape (16,))",
    ),
    "Adam moment of a wrong shape": (
        _set(["optimizer", "state", 0, "exp_avg"], lambda t: t[:1]),
        "optimizer.state[0].exp_avg must be a floating-point tensor of shape (8, 3, 3, 3)",
    ),
    "Adam betas not numbers": (
        _set(["optimizer", "param_groups", 0, "betas"], lambda b: ("a", "b")),
        "optimizer.param_groups[0].betas[0] must be a finite number",
    ),
    "counters negative": (_set(["counters", "episodes"], lambda _: -4), "counters.episodes must be an integer >= 0"),
    "history of strings": (_set(["history"], lambda h: ["x"]), "history[0] must be a dict"),
}
ALGO = {
    "reinforce": {
        "rng garbage": (_set(["rng"], lambda _: {"bit_generator": "PCG64", "state": 3}), "rng is not a numpy PCG64"),
        "snapshot mark a float": (_set(["snapshot_mark"], lambda _: 0.5), "snapshot_mark must be an integer >= 0"),
    },
    "ppo": {
        "games from before PoolVecEnv": (
            _set(["games"], lambda g: [g["games"][0]]),
            "games holds one game per SingleAgentEnv",
        ),
        "a game blob of another length": (
            _set(["games", "games", 0], lambda t: t[:7]),
            "games.games[0] must be a uint8 tensor of shape (48,)",
        ),
        "a corrupt game position": (
            _set(["games", "games", 1], lambda t: torch.cat([t[:8], t[8:9] + 50, t[9:]])),
            "games.games[1] is not a valid tictactoe position",
        ),
        "games of another count": (_set(["games", "games"], lambda g: g[:1]), "games.games must be a list of 2, got 1"),
        "a seat of 2": (_set(["games", "seats"], lambda t: t + 2), "games.seats must hold values in [0, 1]"),
        "an unknown opponent": (
            _set(["games", "opponents"], lambda o: ["ghost"] * len(o)),
            "games plays snapshots ['ghost'], which neither the pool nor the saved games hold",
        ),
        "a dropped opponent of another net": (
            _set(
                ["games"],
                lambda g: {
                    **g,
                    "opponents": ["ghost"] * len(g["opponents"]),
                    "dropped": {"ghost": {"trunk.0.0.weight": torch.zeros(2)}},
                },
            ),
            "games.dropped.ghost does not fit the learner's network",
        ),
        "results not counts": (
            _set(["games", "results"], lambda r: [1, 2]),
            "games.results must be a list of 3, got 2",
        ),
        "numpy global rng keys": (
            _set(["np_global_rng", "keys"], lambda t: t[:5]),
            "np_global_rng.keys must be an integer tensor of shape (624,)",
        ),
        "numpy global rng name": (
            _set(["np_global_rng", "name"], lambda _: "PCG64"),
            "np_global_rng.name must be one of 'MT19937'",
        ),
        "last obs of another board": (
            _set(["last_obs"], lambda t: t[:, :2]),
            "last_obs must be an integer tensor of shape (2, 3, 3, 3)",
        ),
        "last obs alone": (_set(["last_episode_starts"], lambda _: None), "last_obs and last_episode_starts must both"),
        "episode starts as ints": (
            _set(["last_episode_starts"], lambda t: t.long()),
            "last_episode_starts must be a bool tensor of shape (2,)",
        ),
        "SB3 counter a string": (_set(["num_timesteps"], lambda _: "64"), "num_timesteps must be an integer >= 0"),
    },
}


@pytest.mark.parametrize("case", sorted(COMMON) + sorted({c for cases in ALGO.values() for c in cases}))
def test_a_malformed_entry_is_refused_with_what_is_wrong(tmp_path, saved, case):
    algo, data = saved
    mutate, words = COMMON.get(case) or ALGO[algo].get(case, (None, None))
    if mutate is None:
        pytest.skip(f"not a {algo} entry")
    if case.startswith("Adam") and json.loads(data["config"]).get("optimizer") != "adam":
        pytest.skip("an SGD run")
    bad = copy.deepcopy(data)
    mutate(bad)
    refused(tmp_path, algo, bad, words)


def test_ppo_resume_needs_the_same_number_of_games(tmp_path, saved):
    algo, data = saved
    if algo != "ppo":
        pytest.skip("PPO only")
    refused(
        tmp_path, algo, copy.deepcopy(data), "num_envs=2, but this run has num_envs=3", cfg=config("ppo", num_envs=3)
    )
