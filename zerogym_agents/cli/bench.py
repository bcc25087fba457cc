"""`zerogym bench`: random legal play, moves per second, zerogym against PettingZoo, OpenSpiel and Pgx, same run.

    zerogym bench [--seconds 3] [--quick] [--no-pgx] [--out DIR]
    python benchmarks/env_speed.py [...]        # the same, writing its table to benchmarks/results/

Each implementation plays random legal moves and fetches what an RL loop needs every move (the
observation and the legal moves). Rows are games; the table prints moves/s and the ratios the
targets are stated in:
  * zerogym AEC env() / PettingZoo classic env(), or where PettingZoo has no such game, OpenSpiel's
    game as a PettingZoo AEC env through Shimmy (marked *)  (target >= 10x)
  * the same with env.reset(seed=...) every episode, as course code does   (target >= 10x)
  * that seeded loop drawing each move with numpy (Generator.choice over np.flatnonzero(mask)), beside
    its ceiling: the ratio of an env that cost nothing, set by numpy's own time per draw; the three
    figures are measured in turn NUMPY_ROUNDS times and each keeps its best round, as a shared
    machine's load shifts between measurements     (target >= 10x where the ceiling allows)
  * zerogym State from Python (step + mask + encode) / OpenSpiel (step + legal + observation_tensor)
                                                             (target >= 1x)
  * zerogym vector path / best of OpenSpiel and batched Pgx  (target >= 3x; Go 9x9 >= 1M moves/s)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tqdm import tqdm

import zerogym
import zerogym.vector


def _go_case(n: int) -> tuple[str, dict[str, Any], tuple[str, dict[str, Any]], tuple[str, dict[str, Any]], str]:
    """Go on an n x n board in every library (a CASES entry)."""
    return (
        "go",
        {"board_size": n},
        ("pettingzoo.classic.go_v5", {"board_size": n}),
        ("go", {"board_size": n, "komi": 7.5}),
        f"go_{n}x{n}",
    )


# game label -> (zerogym game, kwargs, PettingZoo (module, kwargs) or None, OpenSpiel (name, params) or None,
# Pgx id or None); without a PettingZoo module the AEC comparison is OpenSpiel's game through Shimmy
CASES: dict[
    str, tuple[str, dict[str, Any], tuple[str, dict[str, Any]] | None, tuple[str, dict[str, Any]] | None, str | None]
] = {
    "Go 9x9": _go_case(9),
    "Go 19x19": _go_case(19),
    "Othello 8x8": ("othello", {"board_size": 8}, None, ("othello", {}), "othello"),
    "Hex 11x11": ("hex", {"board_size": 11, "swap": False}, None, ("hex", {"board_size": 11}), "hex"),
    "Connect Four 6x7": (
        "connect_four",
        {},
        ("pettingzoo.classic.connect_four_v3", {}),
        ("connect_four", {}),
        "connect_four",
    ),
    "Tic-tac-toe 3x3": ("tictactoe", {}, ("pettingzoo.classic.tictactoe_v3", {}), ("tic_tac_toe", {}), "tic_tac_toe"),
    "Gomoku 15x15": ("tictactoe", {"board_size": 15, "win_length": 5}, None, ("mnk", {"m": 15, "n": 15, "k": 5}), None),
    "Havannah 8": ("havannah", {"board_size": 8}, None, ("havannah", {"board_size": 8}), None),
    "Breakthrough 8x8": ("breakthrough", {}, None, ("breakthrough", {}), None),
}
QUICK = ["Go 9x9", "Connect Four 6x7"]
VECTOR_SIZES = (64, 256, 1024)  # the vector path is measured at each; the table shows the best
CORES = os.cpu_count() or 1
Row = tuple[str, dict[str, Any]]  # (game label, {measurement: moves/s, ...})


def timed(play_one_game: Callable[[], int], seconds: float) -> float:
    """Moves/s of repeated play_one_game() calls (each returns its move count) for `seconds`."""
    moves, t0 = 0, time.perf_counter()
    while True:
        moves += play_one_game()
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return moves / elapsed


def aec_loop(env: Any, seed: int = 0, seeded: bool = False, chooser: str = "lean") -> Callable[[], int]:
    """The standard AEC loop with random legal actions; seeded: env.reset(seed=...) with a new seed every
    episode. chooser "lean" draws with random.random (the same for every env, and cheap); "numpy" as course
    code does, numpy's Generator.choice over np.flatnonzero(mask) every move."""
    rand = random.Random(seed).random
    rng = np.random.default_rng(seed)
    episodes = iter(range(10**12))

    def play() -> int:
        env.reset(seed=next(episodes)) if seeded else env.reset()
        moves = 0
        for _ in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                action = None
            else:
                mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]  # Shimmy: info
                if chooser == "numpy":
                    action = int(rng.choice(np.flatnonzero(mask)))
                else:
                    legal = mask.nonzero()[0]
                    action = legal[int(rand() * len(legal))]
                moves += 1
            env.step(action)
        return moves

    return play


NUMPY_LOOP = ("zg_env_numpy", "pz_env_numpy", "numpy_chooser")  # the numpy loop's figures, compared together
NUMPY_ROUNDS = 3


def numpy_loop(game: str, kwargs: dict[str, Any], alternative: Any, seconds: float) -> dict[str, float]:
    """The numpy loop's moves/s for zerogym and `alternative` (an AEC env) and numpy's draws/s alone,
    measured in turn NUMPY_ROUNDS times for `seconds` each; each keeps its best round."""
    rates = {
        "zg_env_numpy": aec_loop(zerogym.make(game, **kwargs), seeded=True, chooser="numpy"),
        "pz_env_numpy": aec_loop(alternative, seeded=True, chooser="numpy"),
    }
    best = dict.fromkeys(NUMPY_LOOP, 0.0)
    for _ in range(NUMPY_ROUNDS):
        for impl, play in rates.items():
            best[impl] = max(best[impl], timed(play, seconds))
        best["numpy_chooser"] = max(best["numpy_chooser"], numpy_chooser(game, kwargs, seconds))
    return best


def numpy_chooser(game: str, kwargs: dict[str, Any], seconds: float) -> float:
    """Draws/s of the numpy chooser alone, on the legal mask of the game's start position: the most moves/s
    any env can reach in the numpy loop."""
    rng, mask = np.random.default_rng(0), zerogym.make_state(game, **kwargs).legal_mask()

    def draws() -> int:
        for _ in range(1000):
            rng.choice(np.flatnonzero(mask))
        return 1000

    return timed(draws, seconds)


def alternative_env(pz: tuple[str, dict[str, Any]] | None, osp: tuple[str, dict[str, Any]] | None) -> Any:
    """What a PettingZoo user has for the game without zerogym: PettingZoo's classic env, or else
    OpenSpiel's game wrapped as an AEC env by Shimmy."""
    if pz:
        import importlib

        return importlib.import_module(pz[0]).env(**pz[1])
    import pyspiel
    from shimmy import OpenSpielCompatibilityV0

    assert osp is not None  # measure() asks only for a game with one of the two
    return OpenSpielCompatibilityV0(pyspiel.load_game(*osp))


def zerogym_state_loop(game: str, kwargs: dict[str, Any]) -> Callable[[], int]:
    """Same loop shape as openspiel_loop: legal actions, random choice, step, observation."""
    st = zerogym.make_state(game, **kwargs)
    planes = np.empty(tuple(np.roll(st.spec.obs_shape, 1)), np.float32)
    choice = random.Random(0).choice

    def play() -> int:
        st.reset()
        moves = 0
        while not st.is_over():
            st.step(choice(st.legal_actions()))
            st.encode(planes)
            moves += 1
        return moves

    return play


def openspiel_loop(name: str, params: dict[str, Any]) -> Callable[[], int]:
    import pyspiel

    game = pyspiel.load_game(name, params)
    choice = random.Random(0).choice

    def play() -> int:
        s = game.new_initial_state()
        moves = 0
        while not s.is_terminal():
            s.apply_action(choice(s.legal_actions()))
            if not s.is_terminal():  # a terminal state has no player to observe for
                s.observation_tensor()
            moves += 1
        return moves

    return play


def vector_speed(
    game: str, kwargs: dict[str, Any], seconds: float, num_envs: int = 1024, num_threads: int = 1
) -> float:
    """Moves/s of `num_envs` games stepped together with random legal actions (compiled sampler)."""
    venv = zerogym.vector.make(game, num_envs, copy=False, num_threads=num_threads, **kwargs)
    obs, _ = venv.reset(seed=0)
    mask = obs["action_mask"]
    steps, t0 = 0, time.perf_counter()
    while True:
        obs, *_ = venv.step(venv.sample_actions(mask))
        mask = obs["action_mask"]
        steps += 1
        if steps % 16 == 0 and time.perf_counter() - t0 >= seconds:
            return num_envs * steps / (time.perf_counter() - t0)


PGX_SCRIPT = r"""
import json, sys, time
import jax, jax.numpy as jnp, pgx
from pgx.experimental import auto_reset
env_id, batch, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
env = pgx.make(env_id)
init = jax.jit(jax.vmap(env.init))
step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))
@jax.jit
def act(key, mask):
    return jax.random.categorical(key, jnp.where(mask, 0.0, -1e9), axis=-1)
key = jax.random.PRNGKey(0)
key, k = jax.random.split(key)
state = init(jax.random.split(k, batch))
def one(state, key):
    key, k1, k2 = jax.random.split(key, 3)
    a = act(k1, state.legal_action_mask)
    state = step(state, a, jax.random.split(k2, batch))
    return state, key
for _ in range(3):
    state, key = one(state, key)
state.observation.block_until_ready()
n, t0 = 0, time.perf_counter()
while time.perf_counter() - t0 < seconds:
    state, key = one(state, key)
    n += 1
state.observation.block_until_ready()
print(json.dumps(batch * n / (time.perf_counter() - t0)))
"""


def pgx_speed(env_id: str, seconds: float, batches: Sequence[int] = (1024, 4096)) -> float | None:
    """Best moves/s over batch sizes, in a subprocess (JAX keeps to itself); None if Pgx is missing."""
    best: float | None = None
    for batch in batches:
        try:
            out = subprocess.run(
                [sys.executable, "-c", PGX_SCRIPT, env_id, str(batch), str(seconds)],
                capture_output=True,
                text=True,
                timeout=900,
            )
        except subprocess.TimeoutExpired:
            continue
        if out.returncode != 0:
            if "No module named" in out.stderr:
                return None
            continue
        rate = json.loads(out.stdout.strip().splitlines()[-1])
        best = rate if best is None else max(best, rate)
    return best


def measure(labels: Sequence[str], seconds: float, with_pgx: bool = True, threaded: bool = True) -> list[Row]:
    rows = []
    impls = (
        ("zg_env", "pz_env", "zg_env_seeded", "pz_env_seeded", "zg_env_numpy", "pz_env_numpy", "numpy_chooser")
        + ("zg_state", "openspiel", "zg_vector")
        + (("zg_vector_mt",) if threaded else ())
        + ("pgx",)
    )
    tasks = [(label, impl) for label in labels for impl in impls]
    results: dict[str, dict[str, Any]] = {label: {} for label in labels}
    for label, impl in tqdm(tasks, desc="env speed", unit="run"):
        game, kwargs, pz, osp, pgx_id = CASES[label]
        r = results[label]
        if impl in NUMPY_LOOP:
            if impl == NUMPY_LOOP[0]:  # all three at once
                r.update(numpy_loop(game, kwargs, alternative_env(pz, osp), seconds))
        elif impl.startswith("zg_env"):
            r[impl] = timed(aec_loop(zerogym.make(game, **kwargs), seeded=impl.endswith("_seeded")), seconds)
        elif impl.startswith("pz_env") and (pz or osp):
            r[impl] = timed(aec_loop(alternative_env(pz, osp), seeded=impl.endswith("_seeded")), seconds)
            r["shimmy"] = pz is None
        elif impl == "zg_state":
            r[impl] = timed(zerogym_state_loop(game, kwargs), seconds)
        elif impl == "openspiel" and osp:
            r[impl] = timed(openspiel_loop(*osp), seconds)
        elif impl in ("zg_vector", "zg_vector_mt"):
            threads = 1 if impl == "zg_vector" else CORES
            rates = {n: vector_speed(game, kwargs, seconds, num_envs=n, num_threads=threads) for n in VECTOR_SIZES}
            r[impl + "_n"] = max(rates, key=rates.__getitem__)
            r[impl] = rates[r[impl + "_n"]]
        elif impl == "pgx" and pgx_id and with_pgx:
            r[impl] = pgx_speed(pgx_id, seconds)
    for label in labels:
        rows.append((label, results[label]))
    return rows


def fmt(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"{x / 1e6:.2f}M" if x >= 1e6 else f"{x / 1e3:.1f}k"


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.1f}x" if a and b else "n/a"


SHIMMY_NOTE = "*: no PettingZoo env of this game; OpenSpiel's game as a PettingZoo AEC env through Shimmy instead.\n\n"
COMPETITORS = (("openspiel", "OpenSpiel"), ("pgx", "Pgx"))  # what the vector path is compared with


def against(rows: Sequence[Row]) -> str:
    """What the vector ratio compares with, naming only what was measured: "OpenSpiel", "Pgx", or "the
    best of OpenSpiel and Pgx" ("" when neither was)."""
    names = [name for key, name in COMPETITORS if any(r.get(key) for _, r in rows)]
    return "the best of " + " and ".join(names) if len(names) > 1 else "".join(names)


def targets(rows: Sequence[Row]) -> str:
    """The targets of the comparisons that were measured."""
    measured = {key for _, r in rows for key, value in r.items() if value}
    parts = [
        ("pz_env", "zerogym env() at least 10x PettingZoo env(), with and without a seeded reset every episode"),
        ("zg_env_numpy", "in the numpy loop at least 10x PettingZoo where its ceiling is above 10x"),
        ("openspiel", "the zerogym State at least as fast as OpenSpiel"),
    ]
    said = [words for key, words in parts if key in measured]
    if against(rows):
        vector = "the better zerogym vector figure" if "zg_vector_mt" in measured else "the zerogym vector figure"
        said.append(f"{vector} at least 3x {against(rows)}")
    return "Targets: " + "; ".join(said) + "." if said else ""


def table(rows: Sequence[Row]) -> str:
    """The markdown speed table (columns nothing was measured for are left out, and the headings name only
    what was measured), then the targets of what was."""

    def vector(key: str) -> Callable[[dict[str, Any]], str]:
        return lambda r: fmt(r.get(key)) + (f" (N={r[key + '_n']})" if r.get(key) is not None else "")

    def best(r: dict[str, Any]) -> float | None:
        return max([v for v in (r.get(key) for key, _ in COMPETITORS) if v] or [0]) or None

    def ours(r: dict[str, Any]) -> float | None:
        return max(r.get("zg_vector") or 0, r.get("zg_vector_mt") or 0) or None

    def shimmied(key: str) -> Callable[[dict[str, Any]], str]:
        """A PettingZoo figure, starred where PettingZoo plays the game through Shimmy (SHIMMY_NOTE)."""
        return lambda r: fmt(r.get(key)) + " *" * bool(r.get("shimmy"))

    def quotient(a: str, b: str) -> Callable[[dict[str, Any]], str]:
        return lambda r: ratio(r.get(a), r.get(b))

    # (header, cell of a row, the measurements it needs)
    columns = [
        ("zerogym env()", lambda r: fmt(r.get("zg_env")), ("zg_env",)),
        ("PettingZoo env()", shimmied("pz_env"), ("pz_env",)),
        ("env() ratio", quotient("zg_env", "pz_env"), ("zg_env", "pz_env")),
        ("seeded resets: zerogym", lambda r: fmt(r.get("zg_env_seeded")), ("zg_env_seeded",)),
        ("seeded resets: PettingZoo", shimmied("pz_env_seeded"), ("pz_env_seeded",)),
        ("seeded ratio", quotient("zg_env_seeded", "pz_env_seeded"), ("zg_env_seeded", "pz_env_seeded")),
        ("numpy chooser: zerogym", lambda r: fmt(r.get("zg_env_numpy")), ("zg_env_numpy",)),
        ("numpy chooser: PettingZoo", shimmied("pz_env_numpy"), ("pz_env_numpy",)),
        ("numpy ratio", quotient("zg_env_numpy", "pz_env_numpy"), ("zg_env_numpy", "pz_env_numpy")),
        ("numpy ratio, ceiling", quotient("numpy_chooser", "pz_env_numpy"), ("numpy_chooser", "pz_env_numpy")),
        ("zerogym State", lambda r: fmt(r.get("zg_state")), ("zg_state",)),
        ("OpenSpiel", lambda r: fmt(r.get("openspiel")), ("openspiel",)),
        ("State ratio", quotient("zg_state", "openspiel"), ("zg_state", "openspiel")),
        ("zerogym vector, 1 core", vector("zg_vector"), ("zg_vector",)),
        (f"zerogym vector, {CORES} cores", vector("zg_vector_mt"), ("zg_vector_mt",)),
        ("Pgx batched", lambda r: fmt(r.get("pgx")), ("pgx",)),
    ]
    if against(rows):
        columns.append((f"vector ratio vs {against(rows)}", lambda r: ratio(ours(r), best(r)), ("zg_vector",)))
    columns = [c for c in columns if any(all(r.get(k) is not None for k in c[2]) for _, r in rows)]
    lines = ["| game | " + " | ".join(c[0] for c in columns) + " |", "|" + "---|" * (len(columns) + 1)]
    for label, r in rows:
        lines.append(f"| {label} | " + " | ".join(c[1](r) for c in columns) + " |")
    note = SHIMMY_NOTE if any(r.get("shimmy") for _, r in rows) else ""
    return "\n".join(lines) + "\n\n" + note + targets(rows)


def plot(rows: Sequence[Row], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    impls = [
        ("zg_env", "zerogym env()"),
        ("pz_env", "PettingZoo env()"),
        ("zg_state", "zerogym State"),
        ("openspiel", "OpenSpiel"),
        ("zg_vector", "zerogym vector, 1 core"),
        ("zg_vector_mt", f"zerogym vector, {CORES} cores"),
        ("pgx", "Pgx batched"),
    ]
    fig, ax = plt.subplots(figsize=(11, 4.5))
    width = 0.8 / len(impls)
    for j, (key, name) in enumerate(impls):
        xs = [i + j * width for i in range(len(rows))]
        ax.bar(xs, [r.get(key) or 0 for _, r in rows], width, label=name)
    ax.set_yscale("log")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(rows))], [label for label, _ in rows])
    ax.set_ylabel("random legal moves / s")
    ax.set_title("Environment speed (random play, observation each move)")
    ax.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def add_arguments(parser: argparse.ArgumentParser, out_default: str | None = None) -> None:
    """The options of `zerogym bench` and benchmarks/env_speed.py."""
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds of play per measurement (default 3)")
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}, one core, no Pgx")
    parser.add_argument("--no-pgx", action="store_true", help="leave Pgx out (it is measured when installed)")
    parser.add_argument(
        "--out",
        default=out_default,
        metavar="DIR",
        help="write the table (env_speed.md) and its "
        "plot there (not with --quick)" + (f"; default {out_default}" if out_default else ""),
    )


def run(args: argparse.Namespace, command: str) -> list[Row]:
    """Measure, print the table and, unless --quick, write it with its plot to args.out (when given);
    `command` is what reproduces the run, quoted in the written table. Returns the rows."""
    labels = QUICK if args.quick else list(CASES)
    rows = measure(labels, args.seconds, with_pgx=not (args.quick or args.no_pgx), threaded=not args.quick)
    text = table(rows)
    print(text)
    if not args.quick and args.out:
        os.makedirs(args.out, exist_ok=True)
        cmd = command
        with open(os.path.join(args.out, "env_speed.md"), "w") as f:
            f.write(
                "# Environment speed\n\nRandom legal play on this machine "
                f"({os.cpu_count()} CPU cores, no GPU), moves per second, all measured in one run of\n\n"
                f"    {cmd}\n\n{text}\n\n"
                "zerogym env(): the wrapped AEC env in the standard agent_iter loop; seeded resets: the same loop\n"
                "with env.reset(seed=episode) every episode; numpy chooser: the seeded loop drawing each move with\n"
                "numpy's Generator.choice(np.flatnonzero(mask)), as course code does; its ceiling: the ratio an env\n"
                "that cost nothing would reach, the chooser's own draws/s over PettingZoo's moves/s in that loop;\n"
                "zerogym State: the compiled\n"
                "state stepped from Python with its legal mask and float32 planes fetched every move; OpenSpiel:\n"
                "apply_action + legal_actions + observation_tensor every move; vector: N games per call (best of\n"
                f"N in {VECTOR_SIZES}), random legal actions drawn by the compiled sampler, "
                "observations and masks\n"
                f"written every move, on one core (num_threads=1) and on all {CORES} (num_threads={CORES});\n"
                "Pgx: jit-compiled, vmapped step with auto-reset on CPU (all cores), best of batch 1024/4096.\n"
                + (
                    f"The last ratio is the better zerogym vector figure over {against(rows)}.\n"
                    if against(rows)
                    else ""
                )
                + "\n"
                "![speed](env_speed.png)\n"
            )
        plot(rows, os.path.join(args.out, "env_speed.png"))
    return rows
