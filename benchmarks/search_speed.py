"""Tree search speed, simulations per second, all measured in one run on this machine.

    python benchmarks/search_speed.py [--seconds 3] [--out benchmarks/results]

* UCTAgent's compiled search against OpenSpiel's C++ MCTSBot with RandomRolloutEvaluator(n_rollouts=1)
  (one random rollout per simulation, same exploration constant, no solver) on Connect Four 6x7
  and Go 9x9 from the start position (target: >= 2x OpenSpiel).
* BatchedMCTS (PUCT) on Go 9x9 from the start with the uniform, zero-value evaluator, G games per
  batch, one leaf per tree per batch, the Python evaluator call included (target: >= 200,000/s
  on one core).

Each figure is the best of repeated timed searches (the machine is shared, so the best repeat is
the least disturbed one); UCT and OpenSpiel repeats are interleaved.
"""

import argparse
import os
import platform
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # the PUCT figure is for one core

import numpy as np
from tqdm import tqdm

import zerogym
from zerogym_agents.mcts.search import BatchedMCTS, uniform_evaluator
from zerogym_agents.agents.search import UCTAgent

C_UCT = 1.4
# label -> (zerogym game, kwargs, OpenSpiel game, OpenSpiel params, simulations per search)
UCT_CASES = {
    "Connect Four 6x7": ("connect_four", {}, "connect_four", {}, 20000),
    "Go 9x9": ("go", {"board_size": 9}, "go", {"board_size": 9, "komi": 7.5}, 2000),
}
PUCT_GAMES = (16, 64, 256)  # G: trees searched together
PUCT_SIMULATIONS = 200


def best_rate(run_once, simulations, seconds, repeats_min=3):
    """Best simulations/s over repeated run_once() calls for about `seconds` (at least repeats_min)."""
    best, t_end, k = 0.0, time.perf_counter() + seconds, 0
    while k < repeats_min or time.perf_counter() < t_end:
        t0 = time.perf_counter()
        run_once()
        best = max(best, simulations / (time.perf_counter() - t0))
        k += 1
    return best


def uct_rates(game, kwargs, os_game, os_params, sims, seconds, bar):
    import pyspiel

    state = zerogym.make_state(game, **kwargs)
    agent = UCTAgent(sims, c=C_UCT, seed=0)
    agent.search(state)  # warm up (allocates the tree)
    os_g = pyspiel.load_game(os_game, os_params)
    bot = pyspiel.MCTSBot(os_g, pyspiel.RandomRolloutEvaluator(1, 0), C_UCT, sims, 4000, False, 0, False)
    os_state = os_g.new_initial_state()
    ours = theirs = 0.0
    for _ in range(3):  # interleave so both see the same machine load
        ours = max(ours, best_rate(lambda: agent.search(state), sims, seconds / 6, 1))
        theirs = max(theirs, best_rate(lambda: bot.step(os_state), sims, seconds / 6, 1))
        bar.update(1)
    return ours, theirs


def mean_random_game_length(game, kwargs, os_game, os_params, games=100):
    """Mean length of uniformly random games in zerogym and OpenSpiel (what one rollout costs)."""
    import pyspiel

    rng = np.random.default_rng(0)
    ours = theirs = 0
    os_g = pyspiel.load_game(os_game, os_params)
    for _ in range(games):
        st = zerogym.make_state(game, **kwargs)
        while not st.is_over():
            legal = st.legal_actions()
            st.step(int(legal[rng.integers(len(legal))]))
            ours += 1
        s = os_g.new_initial_state()
        while not s.is_terminal():
            legal = s.legal_actions()
            s.apply_action(legal[rng.integers(len(legal))])
            theirs += 1
    return ours / games, theirs / games


def puct_rate(G, seconds):
    st = zerogym.make_state("go", board_size=9)
    m = BatchedMCTS("go", num_games=G, simulations=PUCT_SIMULATIONS, dirichlet_epsilon=0.25, seed=0, board_size=9)
    roots = [st] * G

    def once():
        m.set_roots(roots)
        m.run(uniform_evaluator)

    once()  # warm up: the node arrays get their pages
    calls0 = m.evaluator_calls
    once()
    calls = m.evaluator_calls - calls0
    return best_rate(once, G * PUCT_SIMULATIONS, seconds), calls


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measured figure")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results"))
    args = ap.parse_args(argv)
    rows, puct = [], []
    with tqdm(total=3 * len(UCT_CASES) + len(PUCT_GAMES), desc="search speed") as bar:
        for label, (game, kw, osg, osp, sims) in UCT_CASES.items():
            ours, theirs = uct_rates(game, kw, osg, osp, sims, args.seconds, bar)
            rows.append((label, sims, ours, theirs, mean_random_game_length(game, kw, osg, osp)))
        for G in PUCT_GAMES:
            rate, calls = puct_rate(G, args.seconds)
            puct.append((G, rate, calls))
            bar.update(1)

    cmd = "python benchmarks/search_speed.py" + ("" if args.seconds == 3.0 else f" --seconds {args.seconds:g}")
    lines = [
        "# Search speed",
        "",
        f"Simulations per second on this machine ({os.cpu_count()} CPU cores, "
        f"{platform.processor() or platform.machine()}), all measured in one run of",
        "",
        f"    {cmd}",
        "",
        "## UCT with one random rollout per simulation (target: >= 2x OpenSpiel)",
        "",
        "| game (start position) | simulations per search | zerogym UCTAgent | OpenSpiel MCTSBot | ratio "
        "| mean random game length, zerogym / OpenSpiel |",
        "|---|---|---|---|---|---|",
    ]
    for label, sims, ours, theirs, (len_ours, len_theirs) in rows:
        lines.append(
            f"| {label} | {sims} | {ours:,.0f} | {theirs:,.0f} | {ours / theirs:.1f}x "
            f"| {len_ours:.1f} / {len_theirs:.1f} |"
        )
    lines += [
        "",
        f"Both: UCB1 with c = {C_UCT}, children created on a node's second visit, one uniformly "
        "random rollout to the end of the game per simulation (OpenSpiel: `MCTSBot(game, "
        f"RandomRolloutEvaluator(1, seed), {C_UCT}, simulations, 4000, solve=False, ...)`, one `step()` per "
        "search). Best of interleaved repeats. The last column (100 uniformly random games each) shows that "
        "a rollout plays about as many moves in both.",
        "",
        "## PUCT, uniform zero-value evaluator, Go 9x9 from the start (target: >= 200,000/s on one core)",
        "",
        "| games per batch G | simulations per tree | evaluator calls per search | simulations/s |",
        "|---|---|---|---|",
        *(f"| {G} | {PUCT_SIMULATIONS} | {calls} | {rate:,.0f} |" for G, rate, calls in puct),
        "",
        "One thread; each search sets G fresh roots and runs BatchedMCTS.run(uniform_evaluator) with one "
        "leaf per tree per batch, Dirichlet noise on (epsilon 0.25); the time includes the Python evaluator call "
        "(priors = the legal mask, values = 0), leaf encoding to float32 planes, expansion and backup. "
        "Best of repeated searches over the measuring time.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "search_speed.md"), "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
