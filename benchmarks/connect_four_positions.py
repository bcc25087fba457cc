"""Solved Connect Four positions from real games, the set the perfect-play yardstick scores agents on.

    python benchmarks/connect_four_positions.py [--positions 1000] [--seed 0] [--min-stones 10] [--az SPEC]

Games between zerogym agents (an AlphaZero agent at 64 simulations, --az, the shipped one by default;
UCT(200), greedy and random; every move is a uniformly random one with probability --epsilon, for
variety) give the positions: two per game at plies drawn uniformly from --min-stones to the game's
end, duplicates dropped.  Each is solved exactly (ConnectFourSolver): the value for the player to
move and the value of every move; the distance-aware scores too from --score-stones stones on.
Writes benchmarks/data/connect_four_positions.json.
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import torch
from tqdm import tqdm

import zerogym
from zerogym_agents import GreedyAgent, RandomAgent, load_agent
from zerogym_agents.agents.search import UCTAgent
from zerogym_agents.solvers.connect_four import ILLEGAL, STANDARD, ConnectFourSolver

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "connect_four_positions.json")
PAIRS = (
    ("az", "az"),
    ("az", "uct"),
    ("uct", "az"),
    ("uct", "greedy"),
    ("greedy", "uct"),
    ("az", "greedy"),
    ("greedy", "az"),
    ("greedy", "random"),
    ("random", "uct"),
    ("uct", "uct"),
)


def make_agents(seed, az="pretrained:connect_four"):
    return {
        "az": load_agent(az, seed=seed, simulations=64),
        "uct": UCTAgent(simulations=200, seed=seed + 1),
        "greedy": GreedyAgent(seed + 2),
        "random": RandomAgent(seed + 3),
    }


def play_game(agents, pair, rng, epsilon, seed):
    """The moves (actions) of one game between agents[pair[0]] (first) and agents[pair[1]]."""
    env = zerogym.make(STANDARD.name, **STANDARD.kwargs)
    env.reset(seed=seed)
    for name in pair:
        agents[name].reset()
    moves = []
    while not env.unwrapped.state.is_over():
        state = env.unwrapped.state
        if rng.random() < epsilon:
            a = int(rng.choice(state.legal_actions()))
        else:
            a = int(agents[pair[state.current_player]].act(env))
        env.step(a)
        moves.append(a)
    return moves


def solve(solver, moves, score_stones):
    """The record of the position after `moves`."""
    state = zerogym.make_state(STANDARD.name, **STANDARD.kwargs)
    for a in moves:
        state.step(a)
    values = solver.move_scores(state, weak=True)
    record = {
        "moves": "".join(str(a + 1) for a in moves),
        "stones": len(moves),
        "to_move": state.current_player,
        "value": int(values.max()),
        "move_values": [None if v == ILLEGAL else int(v) for v in values],
        "score": None,
        "move_scores": None,
    }
    if len(moves) >= score_stones:
        scores = solver.move_scores(state)
        record["score"] = int(scores.max())
        record["move_scores"] = [None if v == ILLEGAL else int(v) for v in scores]
    return record


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--min-stones", type=int, default=10)
    ap.add_argument("--score-stones", type=int, default=14)
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--out", default=OUT)
    ap.add_argument(
        "--az", default="pretrained:connect_four", help="the AlphaZero agent (a saved agent or pretrained:NAME)"
    )
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    rng = np.random.default_rng(args.seed)
    agents = make_agents(args.seed, args.az)
    solver = ConnectFourSolver(tt_bits=22)
    seen, positions, games = set(), [], 0
    start = time.time()
    with tqdm(total=args.positions, desc="positions") as bar:
        while len(positions) < args.positions:
            pair = PAIRS[games % len(PAIRS)]
            moves = play_game(agents, pair, rng, args.epsilon, args.seed + games)
            games += 1
            plies = np.arange(args.min_stones, len(moves))  # positions before the last move: running
            for ply in rng.choice(plies, size=min(2, len(plies)), replace=False) if len(plies) else ():
                state = zerogym.make_state(STANDARD.name, **STANDARD.kwargs)
                for a in moves[:ply]:
                    state.step(a)
                if state.is_over() or state.to_bytes() in seen or len(positions) >= args.positions:
                    continue
                seen.add(state.to_bytes())
                record = solve(solver, moves[:ply], args.score_stones)
                record["players"] = f"{pair[0]}-{pair[1]}"
                positions.append(record)
                bar.update(1)
    values = [p["value"] for p in positions]
    data = {
        "game": STANDARD.name,
        "kwargs": dict(STANDARD.kwargs),
        "command": "python benchmarks/"
        + os.path.basename(__file__)
        + " "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "about": (
            f"positions from games between zerogym agents (az = {args.az} at 64 simulations, "
            f"uct = UCT(200), greedy, random; each move random with probability {args.epsilon}); moves: "
            "columns 1..7 from the empty board; value: +1 win / 0 draw / -1 loss for the player to move "
            "with perfect play; move_values: the value of each column for that player (null: full); "
            "score / move_scores: the same with Pons' scoring (22 - the winner's stones at the win), "
            f"from {args.score_stones} stones on"
        ),
        "games": games,
        "seconds": round(time.time() - start, 1),
        "counts": {"won": values.count(1), "drawn": values.count(0), "lost": values.count(-1)},
        "positions": positions,
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(data, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"{len(positions)} positions from {games} games in {data['seconds']} s: {data['counts']} -> {args.out}")


if __name__ == "__main__":
    main()
