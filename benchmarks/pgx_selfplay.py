"""The anchor of the self-play benchmark: Pgx environments searched by DeepMind's mctx, all in JAX.

A ResNet policy-value net (`blocks` residual blocks of two 3x3 convolutions with `channels` channels,
a 1x1 policy head and a 1x1 value head with a hidden layer), written here in plain jax.numpy so that
no network library is needed; freshly initialised; computed in float32, or in bfloat16 (weights and
inputs cast, outputs back in float32) when DTYPE is bfloat16. Each move every one of the G games runs
mctx's Gumbel MuZero search with the environment itself as the model (the usual AlphaZero set-up of
Pgx's examples), plays the chosen move, and a finished game starts again (pgx.experimental.auto_reset).

Needs `pip install "jax[cpu]" pgx mctx` (the bench extra). Run by the self-play benchmark in a child
process of its own:

    python benchmarks/pgx_selfplay.py GAME GAMES_AT_ONCE SIMULATIONS SECONDS [DTYPE]

prints the moves per second; exit status 3 where JAX, Pgx or mctx is not installed.
"""

from __future__ import annotations

import sys
import time

try:
    import jax
    import jax.numpy as jnp
    import mctx
    import pgx
    from pgx.experimental import auto_reset
except ImportError as missing:
    if __name__ == "__main__":
        print(f"Pgx + mctx not installed: {missing}", file=sys.stderr)
        sys.exit(3)
    raise

PGX_NAMES = {"go": "go_9x9", "connect_four": "connect_four"}


def _conv_init(key, k, cin, cout):
    return jax.random.normal(key, (k, k, cin, cout), jnp.float32) * (2.0 / (k * k * cin)) ** 0.5


def init_net(key, shape, num_actions, blocks, channels):
    """Parameters of the ResNet for observations of `shape` (H, W, C)."""
    h, w, c = shape
    keys = iter(jax.random.split(key, 2 * blocks + 6))
    return {
        "stem": _conv_init(next(keys), 3, c, channels),
        "blocks": [
            (_conv_init(next(keys), 3, channels, channels), _conv_init(next(keys), 3, channels, channels))
            for _ in range(blocks)
        ],
        "policy_conv": _conv_init(next(keys), 1, channels, 2),
        "policy_fc": jax.random.normal(next(keys), (2 * h * w, num_actions)) * (1.0 / (2 * h * w)) ** 0.5,
        "value_conv": _conv_init(next(keys), 1, channels, 1),
        "value_fc1": jax.random.normal(next(keys), (h * w, channels)) * (1.0 / (h * w)) ** 0.5,
        "value_fc2": jax.random.normal(next(keys), (channels, 1)) * (1.0 / channels) ** 0.5,
    }


def _conv(x, w):
    return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def apply_net(params, obs, dtype=jnp.float32):
    """(logits (B, A), value (B,)) in float32 of observations (B, H, W, C), computed in `dtype`."""
    params = jax.tree_util.tree_map(lambda p: p.astype(dtype), params)
    x = jax.nn.relu(_conv(obs.astype(dtype), params["stem"]))
    for w1, w2 in params["blocks"]:
        x = jax.nn.relu(x + _conv(jax.nn.relu(_conv(x, w1)), w2))
    b = x.shape[0]
    logits = jax.nn.relu(_conv(x, params["policy_conv"])).reshape(b, -1) @ params["policy_fc"]
    v = jax.nn.relu(_conv(x, params["value_conv"])).reshape(b, -1) @ params["value_fc1"]
    value = jnp.tanh(jax.nn.relu(v) @ params["value_fc2"])[:, 0]
    return logits.astype(jnp.float32), value.astype(jnp.float32)


def make_selfplay(game, num_games, simulations, blocks=4, channels=32, seed=0, dtype="float32"):
    """(step, state): step(state) -> state plays one move in each of the num_games games (jitted)."""
    env = pgx.make(PGX_NAMES[game])
    dtype = jnp.dtype(dtype)
    params = init_net(jax.random.PRNGKey(seed), env.observation_shape, env.num_actions, blocks, channels)

    def recurrent_fn(params, key, action, state):
        player = state.current_player
        state = jax.vmap(env.step)(state, action)
        logits, value = apply_net(params, state.observation, dtype)
        logits = jnp.where(state.legal_action_mask, logits, jnp.finfo(logits.dtype).min)
        reward = state.rewards[jnp.arange(state.rewards.shape[0]), player]
        value = jnp.where(state.terminated, 0.0, value)
        discount = jnp.where(state.terminated, 0.0, -1.0)  # two players, taking turns
        return mctx.RecurrentFnOutput(reward=reward, discount=discount, prior_logits=logits, value=value), state

    @jax.jit
    def step(carry):
        state, key = carry
        key, search_key, reset_key = jax.random.split(key, 3)
        logits, value = apply_net(params, state.observation, dtype)
        root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)
        out = mctx.gumbel_muzero_policy(
            params,
            search_key,
            root,
            recurrent_fn,
            num_simulations=simulations,
            invalid_actions=~state.legal_action_mask,
            max_num_considered_actions=16,
        )
        keys = jax.random.split(reset_key, num_games)
        state = jax.vmap(auto_reset(env.step, env.init))(state, out.action, keys)
        return state, key

    key = jax.random.PRNGKey(seed + 1)
    state = jax.vmap(env.init)(jax.random.split(key, num_games))
    return step, (state, key)


def moves_per_second(game, num_games, simulations, seconds, blocks=4, channels=32, dtype="float32"):
    """Self-play moves per second (all games together), timed after the first move (the compilation)."""
    step, carry = make_selfplay(game, num_games, simulations, blocks, channels, dtype=dtype)
    carry = step(carry)
    jax.block_until_ready(carry)
    moves, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        carry = step(carry)
        jax.block_until_ready(carry)
        moves += num_games
    return moves / (time.perf_counter() - t0)


if __name__ == "__main__":
    game, games, simulations, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    dtype = sys.argv[5] if len(sys.argv) > 5 else "float32"
    print(moves_per_second(game, games, simulations, seconds, dtype=dtype))
