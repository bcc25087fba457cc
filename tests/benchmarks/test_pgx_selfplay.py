"""benchmarks/pgx_selfplay.py, the anchor of the self-play benchmark (where JAX, Pgx and mctx are installed)."""

import numpy as np
import pytest

from benchmark_scripts import load_script

pytest.importorskip("pgx")
pytest.importorskip("mctx")
jax = pytest.importorskip("jax")


def test_the_net_in_bfloat16_gives_float32_outputs_near_the_float32_ones():
    script = load_script("pgx_selfplay")
    params = script.init_net(jax.random.PRNGKey(0), (6, 7, 2), 7, blocks=2, channels=16)
    obs = jax.random.bernoulli(jax.random.PRNGKey(1), 0.3, (5, 6, 7, 2))
    exact = script.apply_net(params, obs)
    half = script.apply_net(params, obs, jax.numpy.bfloat16)
    for a, b in zip(exact, half):
        assert a.dtype == b.dtype == np.float32 and a.shape == b.shape
        assert 0 < float(np.abs(np.asarray(a) - np.asarray(b)).max()) < 0.1  # rounded, not another net


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_self_play_moves_in_either_dtype(dtype):
    script = load_script("pgx_selfplay")
    step, carry = script.make_selfplay("connect_four", 2, 4, blocks=1, channels=8, dtype=dtype)
    state, _ = step(carry)
    assert int(state.legal_action_mask.sum()) > 0 and int((state._step_count == 1).sum()) == 2  # one move each
