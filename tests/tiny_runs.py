"""Tiny training runs for the agents' tests: configs whose steps take milliseconds (a 1x8 net, a few games
at once, a few simulations), so that a test states only the fields it changes (importable: tests/ is on
pytest's pythonpath)."""

from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.pg.config import PGConfig

NET = {"trunk": "resnet", "blocks": 1, "channels": 8}

# AlphaZero: 8 tic-tac-toe games at once, 12 simulations a move, a checkpoint every 8 of 16 search steps
SELF_PLAY = dict(game="tictactoe", concurrent_games=8, simulations=12, max_steps=16, checkpoint_every=8)
TRAINING = dict(batch_size=16, min_buffer=16, net=NET, seed=3)
# 5x5 Go with KataGo's auxiliary targets (final ownership and score)
GO_AUX = dict(game="go", game_kwargs={"board_size": 5}, concurrent_games=6, simulations=8, seed=5, device="cpu")
GO_AUX.update(no_pass_fraction=0.2, ownership_weight=1.5, score_weight=0.5)

# policy gradient: REINFORCE on 8 tic-tac-toe games at once, 4 updates, a snapshot to the pool every 8
PG_RUN = dict(algo="reinforce", game="tictactoe", num_envs=8, max_steps=4, checkpoint_every=2, log_every=1)
PG_POOL = dict(snapshot_every=8, pool_size=3, net=NET, seed=3)
# PPO: 2 games, 16 moves each a rollout, 2 epochs over it
PPO = dict(algo="ppo", num_envs=2, ppo_n_steps=16, ppo_batch_size=16, ppo_epochs=2, snapshot_every=6, seed=1)
# PPO with its games in worker processes (or on Ray actors): 4 games, 8 moves each, Elo-weighted opponents
WORKER_PPO = dict(PPO, num_envs=4, ppo_n_steps=8, ppo_epochs=1, snapshot_every=4, pool_mode="elo")


def merged(changes, over):
    """The fields of each dict of `changes` in turn, then those of `over`."""
    fields = {}
    for change in changes:
        fields.update(change)
    return {**fields, **over}


def alphazero_fields(*changes, **over):
    """The fields of a tiny AlphaZero run: SELF_PLAY and TRAINING, then each dict of `changes`, then `over`."""
    return merged((SELF_PLAY, TRAINING, *changes), over)


def alphazero_config(*changes, **over):
    """A tiny AlphaZero run (alphazero_fields as an AlphaZeroConfig)."""
    return AlphaZeroConfig(**alphazero_fields(*changes, **over))


def pg_fields(*changes, **over):
    """The fields of a tiny policy-gradient run: PG_RUN and PG_POOL, then each dict of `changes`, then `over`."""
    return merged((PG_RUN, PG_POOL, *changes), over)


def pg_config(*changes, **over):
    """A tiny policy-gradient run (pg_fields as a PGConfig)."""
    return PGConfig(**pg_fields(*changes, **over))
