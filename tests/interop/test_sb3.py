"""examples/sb3_maskable_ppo.py and zerogym_agents.interop.sb3 (skipped without sb3-contrib)."""

import numpy as np
from interop.example_runs import check_run, load_example, skip_without

skip_without("sb3_contrib", "sb3-contrib", "the agents extra")

import zerogym  # noqa: E402
from zerogym_agents.interop.sb3 import MaskablePPOAgent  # noqa: E402


def test_example_trains_without_illegal_moves_and_plays_the_arena():
    out = load_example("sb3_maskable_ppo").train("tictactoe", "greedy", steps=256, seed=0, arena_games=4, n_steps=128)
    check_run(out, 256, 4)


def test_the_agent_passes_the_mask_at_prediction():
    seen = []

    class Model:
        def predict(self, obs, action_masks=None, deterministic=False):
            seen.append(action_masks.copy())
            return np.int64(int(np.flatnonzero(action_masks)[-1])), None

    env = zerogym.make("tictactoe")
    env.reset(seed=0)
    env.step(8)
    assert MaskablePPOAgent(Model()).act(env) == 7
    assert seen[0].tolist() == [True] * 8 + [False]
