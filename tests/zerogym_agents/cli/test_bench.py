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


def test_the_headings_and_targets_name_only_the_competitors_measured():
    ours = {
        "zg_env": 2e5,
        "zg_env_seeded": 2e5,
        "zg_state": 4e5,
        "zg_vector": 4e6,
        "zg_vector_n": 256,
        "zg_vector_mt_n": 1024,
    }
    heading = lambda text: text.splitlines()[0]  # noqa: E731

    both = env_speed.table([("Go 9x9", {**ours, "openspiel": 7e4, "pgx": 1e6, "zg_vector_mt": 8e6})])
    assert "vector ratio vs the best of OpenSpiel and Pgx" in heading(both) and "| 8.0x |" in both
    assert "the better zerogym vector figure at least 3x the best of OpenSpiel and Pgx." in both

    no_pgx = env_speed.table([("Go 9x9", {**ours, "openspiel": 1e5})])
    assert heading(no_pgx).endswith("| vector ratio vs OpenSpiel |") and "| 40.0x |" in no_pgx
    assert "Pgx" not in no_pgx and "the zerogym vector figure at least 3x OpenSpiel." in no_pgx

    only_pgx = env_speed.table([("Go 9x9", {**ours, "pgx": 2e6})])
    assert heading(only_pgx).endswith("| vector ratio vs Pgx |") and "OpenSpiel" not in only_pgx

    alone = env_speed.table([("Go 9x9", ours)])
    assert "ratio" not in alone and "OpenSpiel" not in alone and "Pgx" not in alone and "PettingZoo" not in alone
    assert "Targets" not in alone


def test_the_numpy_loop_draws_legal_moves_with_numpy_and_reseeds():
    env = zerogym.make("connect_four")
    drawn, step = [], env.step
    env.step = lambda action: (drawn.append((action, env.unwrapped.state.legal_actions())), step(action))[1]
    seeds, reset = [], env.reset
    env.reset = lambda seed=None, options=None: (seeds.append(seed), reset(seed=seed))[1]
    play = env_speed.aec_loop(env, seeded=True, chooser="numpy")
    moves = sum(play() for _ in range(4))
    assert seeds == [0, 1, 2, 3]
    played = [(a, legal) for a, legal in drawn if a is not None]
    assert len(played) == moves and all(type(a) is int and a in legal for a, legal in played)
    again = env_speed.aec_loop(zerogym.make("connect_four"), seeded=True, chooser="numpy")
    assert [again() for _ in range(4)] == [len(g) for g in _games(drawn)]  # the same seed, the same games


def _games(drawn):
    """The played moves of `drawn` split into games (a None step ends each agent's game)."""
    games, current = [], []
    for a, _ in drawn:
        if a is None:
            if current:
                games.append(current)
            current = []
        else:
            current.append(a)
    return games


def test_the_numpy_ceiling_is_the_chooser_over_pettingzoo():
    row = {"zg_env_numpy": 6e4, "pz_env_numpy": 1e4, "numpy_chooser": 8e4}
    text = env_speed.table([("Tic-tac-toe 3x3", row)])
    header = [h.strip() for h in text.splitlines()[0].strip("|").split("|")]
    cells = [c.strip() for c in text.splitlines()[2].strip("|").split("|")]
    assert dict(zip(header, cells))["numpy ratio"] == "6.0x"
    assert dict(zip(header, cells))["numpy ratio, ceiling"] == "8.0x"
    assert "in the numpy loop at least 10x PettingZoo where its ceiling is above 10x" in text
    assert env_speed.numpy_chooser("tictactoe", {}, 0.01) > 1000


def test_the_numpy_loop_keeps_each_figures_best_round(monkeypatch):
    from pettingzoo.classic import tictactoe_v3

    rounds = iter(range(100))
    monkeypatch.setattr(env_speed, "timed", lambda play, seconds: float(next(rounds)))
    monkeypatch.setattr(env_speed, "numpy_chooser", lambda game, kwargs, seconds: 7.0)
    best = env_speed.numpy_loop("tictactoe", {}, tictactoe_v3.env(), 0.01)
    # zerogym and PettingZoo alternate: rounds 0/1, 2/3, 4/5; each keeps its largest
    assert best == {"zg_env_numpy": 4.0, "pz_env_numpy": 5.0, "numpy_chooser": 7.0}
