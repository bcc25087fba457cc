"""The `zerogym` command line."""
import argparse
import os
import sys
import time

import numpy as np


def demo(args):
    """A seeded random game of Go rendered in the terminal, AlphaZero trained briefly on Connect Four and
    put against the baselines (a results table and plots on disk), then a quick speed table."""
    import zerogym
    env = zerogym.make("go", board_size=args.board_size, render_mode="ansi")
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
        if args.watch:
            print("\033[H\033[J" + env.render(), flush=True)
            time.sleep(args.watch)
    st = env.unwrapped.state
    print(env.render())
    black, white = st.area()
    print(f"Tromp-Taylor area: black {black}, white {white}, komi {st.spec.kwargs['komi']} -> "
          f"score {st.score():+.1f} ({'black' if st.score() > 0 else 'white' if st.score() < 0 else 'nobody'} wins)")
    if not args.no_train:
        from zerogym_agents.demo import train_and_compare
        print(f"\nAlphaZero learns Connect Four for {args.minutes:g} minutes, then meets the baselines:")
        train_and_compare(args.minutes, args.out, games_per_pair=args.games_per_pair, seed=args.seed)
    if not args.no_bench:
        print("\nSpeed, random legal play (moves per second, this machine):")
        bench(argparse.Namespace(seconds=args.seconds, quick=True, no_pgx=True, out=None))


def bench(args):
    """Run benchmarks/env_speed.py's measurement (the full one writes benchmarks/results/)."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(os.path.dirname(here), "benchmarks"))
    try:
        import env_speed
    except ImportError:
        sys.exit("zerogym bench needs the source checkout (benchmarks/env_speed.py is not installed)")
    argv = ["--seconds", str(args.seconds)] + (["--quick"] if args.quick else []) + (["--no-pgx"] if args.no_pgx else [])
    if args.out:
        argv += ["--out", args.out]
    env_speed.main(argv)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="zerogym", description="Board games with a compiled core, and agents that learn them.")
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="a Go game, AlphaZero trained briefly against the baselines, a speed table")
    d.add_argument("--board-size", type=int, default=9)
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--watch", type=float, default=0.0, metavar="SECONDS", help="redraw after every move, pausing this long")
    d.add_argument("--seconds", type=float, default=2.0, help="time per speed measurement")
    d.add_argument("--no-bench", action="store_true", help="skip the speed table")
    d.add_argument("--minutes", type=float, default=6.0, help="AlphaZero training time on Connect Four")
    d.add_argument("--games-per-pair", type=int, default=10, help="round-robin games per pair of agents")
    d.add_argument("--out", default=os.path.join("runs", "demo"), help="folder for the results table and plots")
    d.add_argument("--no-train", action="store_true", help="skip training and the round robin")
    d.set_defaults(func=demo)
    b = sub.add_parser("bench", help="environment speed against PettingZoo, OpenSpiel and Pgx")
    b.add_argument("--seconds", type=float, default=3.0)
    b.add_argument("--quick", action="store_true")
    b.add_argument("--no-pgx", action="store_true")
    b.add_argument("--out", default=None, help="results folder (default benchmarks/results)")
    b.set_defaults(func=bench)
    from zerogym.play import add_play_parser
    add_play_parser(sub)
    from zerogym_agents.alphazero.cli import add_train_parser
    from zerogym_agents.arena.cli import add_arena_parser
    from zerogym_agents.gtp import add_gtp_parser
    add_arena_parser(sub)
    add_gtp_parser(sub)
    add_train_parser(sub)
    from zerogym_agents.transfer.cli import add_transfer_parser
    add_transfer_parser(sub)
    args = ap.parse_args(argv)
    try:
        args.func(args)
    except ValueError as err:         # a malformed file that a command did not report itself: one line, no traceback
        checkpoint = sys.modules.get("zerogym_agents.checkpoint")
        if checkpoint is None or not isinstance(err, checkpoint.CheckpointError):
            raise
        sys.exit(f"zerogym {args.command}: {err}")


if __name__ == "__main__":
    main()
