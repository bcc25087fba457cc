"""The ray backend with KataGo's auxiliary Go targets: the workers send each finished game's final
ownership and score with its moves, and the learner trains on them."""

import numpy as np

from zerogym_agents.scale.alphazero import RayAlphaZeroTrainer
from tiny_runs import GO_AUX, alphazero_config


def test_workers_ship_the_final_ownership_and_score_and_the_learner_trains_on_them(ray_session, tmp_path):
    tr = RayAlphaZeroTrainer(
        alphazero_config(GO_AUX, max_steps=12, checkpoint_every=6, log_every=3, pool_fraction=0.0),
        tmp_path,
        log_dir=False,
        ray_config={"workers": 2, "mode": "deterministic", "steps_per_task": 8},
    )
    try:
        tr.run(progress=False)
    finally:
        tr.close()
    n = len(tr.replay)
    assert tr.games > 0 and n == tr.positions > 0 and tr.train_steps > 0
    own, scores = tr.replay.ownership[:n].astype(int), tr.replay.scores[:n]
    # from the mover's view: own area - the other side's - komi (white's side) or + komi (black's side)
    assert np.all(np.isclose(np.abs(scores - own.sum(axis=(1, 2))), 7.5))
    assert set(np.unique(own)) <= {-1, 0, 1} and np.any(own != 0)
    logged = [h for h in tr.history if h.get("ownership_loss") is not None]
    assert logged and all(np.isfinite(h["ownership_loss"]) and np.isfinite(h["score_loss"]) for h in logged)
