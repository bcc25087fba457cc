"""A self-play task played by a Ray worker gives the same bytes as the engine in this process."""

import copy

import numpy as np
import pytest
import torch

from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.alphazero.selfplay import SelfPlay, tree_seed
from zerogym_agents.nets import PolicyValueNet, for_game, make_evaluator, net_payload
from zerogym_agents.scale import runtime
from zerogym_agents.scale.selfplay_worker import SelfPlayWorker, play_task

from .conftest import TINY


def _tasks(ray, cfg, payload, opponent_sd, count, steps):
    weights, opp = ray.put(payload), ray.put(opponent_sd)
    carry = SelfPlay(cfg).carry()
    return [
        {
            "slot": 1,
            "index": k,
            "seed": tree_seed(cfg.seed, 1, k),
            "steps": steps,
            "version": 1,
            "weights": [weights],
            "opponent": "step-0",
            "opponent_weights": [opp],
            "carry": carry if k == 0 else None,
        }
        for k in range(count)
    ]


def _same(a, b):
    for key in ("games", "planes", "masks", "policies", "movers", "root_values", "step_ends"):
        assert a[key].dtype == b[key].dtype and a[key].tobytes() == b[key].tobytes(), key
    assert [(t, i, list(r), s) for t, i, r, s in a["finished"]] == [(t, i, list(r), s) for t, i, r, s in b["finished"]]
    assert len(a["finals"]) == len(a["finished"]) and len(b["finals"]) == len(b["finished"])
    for x, y in zip(a["finals"], b["finals"]):
        assert (x is None) == (y is None)
        if x is not None:
            assert x[0].tobytes() == y[0].tobytes() and x[1] == y[1]
    assert a["carry"]["roots"] == b["carry"]["roots"]
    assert a["carry"]["move_no"].tolist() == b["carry"]["move_no"].tolist()
    assert a["carry"]["learner_seat"].tolist() == b["carry"]["learner_seat"].tolist()


# Go 5x5 with the auxiliary targets: the finished games' final ownership and score travel too;
# bfloat16: the worker's evaluators take the config's precision (else its values differ from here);
# random openings: drawn from the task's seed
@pytest.mark.parametrize(
    "game,steps,over",
    [
        ("tictactoe", 3, {}),
        ("tictactoe", 3, {"precision": "bfloat16"}),
        ("tictactoe", 6, {"random_opening_moves": 4}),
        ("go", 30, {"game_kwargs": {"board_size": 5}, "ownership_weight": 1.0, "score_weight": 0.5}),
    ],
)
def test_worker_games_are_the_in_process_engines_bytes(ray_session, game, steps, over):
    ray = ray_session
    cfg = AlphaZeroConfig.from_dict({**TINY, "seed": 5, "game": game, **over})
    torch.manual_seed(1)
    aux = {"ownership_head": cfg.ownership_weight > 0, "score_head": cfg.score_weight > 0}
    net = PolicyValueNet(for_game(game, game_kwargs=cfg.game_kwargs, **cfg.net, **aux)).eval()
    opponent = PolicyValueNet(for_game(game, game_kwargs=cfg.game_kwargs, **cfg.net, **aux)).eval()
    tasks = _tasks(ray, cfg, net_payload(net), opponent.state_dict(), 3, steps)

    engine = SelfPlay(cfg)
    here = [
        play_task(
            engine,
            *(make_evaluator(n, threads=None, cache=cfg.eval_cache, precision=cfg.precision) for n in (net, opponent)),
            t,
        )
        for t in tasks
    ]
    actor = runtime.actor_class(SelfPlayWorker, 1)
    worker = actor.remote(cfg.to_json(), 1, "cpu")
    there = ray.get([worker.play.remote(t) for t in tasks])
    for a, b in zip(here, there):
        _same(a, b)
    assert sum(len(r["finished"]) for r in here) > 0 and len(here[0]["games"]) > 0
    finals = [f for r in here for f in r["finals"]]
    assert (
        all(f is None for f in finals)
        if game == "tictactoe"
        else all(f is not None and f[0].shape == (5, 5) for f in finals)
    )
    info = ray.get(worker.info.remote())
    assert info["fetches"] == 1 and info["tasks_run"] == 3 and info["threads"] == 1  # one fetch per version
    ray.kill(worker)


def test_a_task_depends_on_its_seed():
    cfg = AlphaZeroConfig.from_dict(TINY)
    net = PolicyValueNet(for_game("tictactoe", **cfg.net)).eval()
    ev = make_evaluator(net, threads=None)
    carry = SelfPlay(cfg).carry()
    results = [
        play_task(
            SelfPlay(cfg),
            ev,
            copy.deepcopy(ev),
            {"slot": 0, "index": 0, "seed": seed, "steps": 4, "version": 1, "opponent": None, "carry": carry},
        )
        for seed in (tree_seed(0, 0, 0), tree_seed(0, 1, 0))
    ]
    assert not np.array_equal(results[0]["policies"], results[1]["policies"])
