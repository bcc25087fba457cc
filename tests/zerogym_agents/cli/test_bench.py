"""zerogym bench (benchmarks/env_speed.py): the seeded-reset loop and the table's comparison for games PettingZoo
lacks."""

import zerogym
from zerogym_agents.cli import bench as env_speed


def test_the_seeded_loop_reseeds_every_episode_and_counts_moves():
    env = zerogym.make("tictactoe")
    seeds = []
    reset = env.reset
    env.reset = lambda seed=None, options=None: (seeds.append(seed), reset(seed=seed))[1]
    play = env_speed.aec_loop(env, seeded=True)
    moves = [play() for _ in range(3)]
    assert seeds == [0, 1, 2] and all(5 <= m <= 9 for m in moves)


def test_rows_against_shimmy_are_marked_and_explained_only_then():
    ours = {"zg_env": 2e5, "pz_env": 1e4, "zg_env_seeded": 2e5, "pz_env_seeded": 1e4}
    marked = env_speed.table([("Hex 11x11", {**ours, "shimmy": True})])
    assert "10.0k *" in marked and "through Shimmy" in marked and "20.0x" in marked
    plain = env_speed.table([("Connect Four 6x7", {**ours, "shimmy": False})])
    assert "*" not in plain and "Shimmy" not in plain
