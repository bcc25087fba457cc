"""Board-size transfer on Go, 5x5 -> 9x9: training from scratch, fine-tuning the 5x5 net, the ZetaGo
composite around it, the net grown by two blocks, and a 5 -> 7 -> 9 curriculum, each with 60 minutes
of training (evaluation not counted) and the same AlphaZero config, measured against Random,
UCT(1000) and GNU Go levels 1 and 10 on 9x9 (zerogym_agents.experiment.transfer).

    python benchmarks/transfer_go.py [--source pretrained:go_5x5] [--minutes 60] [--methods ...]
                                     [--out runs/transfer-go-5x5-9x9] [--steps N: a quick smoke run]
                                     [--parallel 2: two methods at once, each on one core]
                                     [--save-pretrained go_9x9: the best final agent into the package]

Stopping and running the same command again skips the finished methods and resumes the others
from their last checkpoint. Writes benchmarks/results/transfer_go.md and .png; the runs, the final
agents (with model cards) and TensorBoard logs go under --out.
"""

import argparse
import os
import shlex
import signal
import sys

from zerogym_agents.alphazero.recipes import HOUR_CONFIG
from zerogym_agents.experiment.transfer import METHODS, TransferSettings, run_transfer, save_best_agent

HERE = os.path.dirname(os.path.abspath(__file__))
# AlphaZero on 9x9 Go for a 2-core CPU (the nets take the source's shape: pretrained:go_5x5 is a
# 4x32 ResNet with the BCE value loss, from benchmarks/az_strength.py --game go_5x5). No self-play pass
# before half the board's points are played: without it, training from scratch collapsed within 10
# minutes (White passed from move 1 and then lost to Random at 20 and 30 minutes)
CONFIG = {k: v for k, v in HOUR_CONFIG.items() if k not in ("net", "pool_fraction")}
CONFIG.update(temperature_moves=10, dirichlet_alpha=0.15, no_pass_fraction=0.5, checkpoint_every=100)
REFERENCES = ("random", "uct:1000", "gnugo:1", "gnugo:10")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", default="pretrained:go_5x5", help="the 5x5 agent or checkpoint")
    ap.add_argument("--minutes", type=float, default=60.0, help="training minutes per method")
    ap.add_argument("--steps", type=int, default=None, help="search steps per method instead (smoke runs)")
    ap.add_argument("--eval-every-minutes", type=float, default=10.0)
    ap.add_argument("--eval-games", type=int, default=10, help="games per reference at each evaluation")
    ap.add_argument("--final-games", type=int, default=20, help="games per reference at the last evaluation")
    ap.add_argument("--simulations", type=int, default=200, help="simulations per move of the evaluated agents")
    ap.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    ap.add_argument(
        "--parallel", type=int, default=1, help="methods trained at once, each a child process on one torch thread"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=os.path.join("runs", "transfer-go-5x5-9x9"))
    ap.add_argument("--report", default=os.path.join(HERE, "results", "transfer_go.md"))
    ap.add_argument(
        "--save-pretrained",
        default=None,
        metavar="NAME",
        help="when every method is done, save the one with the highest final Elo as pretrained:NAME",
    )
    args = ap.parse_args(argv)
    settings = TransferSettings(
        source=args.source,
        big_size=9,
        small_size=5,
        methods=tuple(args.methods),
        minutes=args.minutes,
        steps=args.steps,
        eval_every_minutes=args.eval_every_minutes,
        eval_games=args.eval_games,
        final_games=args.final_games,
        zero_shot_games=20,
        references=REFERENCES,
        simulations=args.simulations,
        opening_moves=6,
        config=dict(CONFIG),
        grow_blocks=2,
        curriculum=(7,),
        curriculum_split=(0.5, 0.5),
        seed=args.seed,
    )
    command = "python benchmarks/transfer_go.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    try:
        data = run_transfer(settings, args.out, report=args.report, command=command.strip(), parallel=args.parallel)
    except ValueError as err:
        hint = (
            "; train it first: python benchmarks/az_strength.py --game go_5x5 --save-pretrained go_5x5"
            if "pretrained agent" in str(err)
            else ""
        )
        sys.exit(f"transfer_go: {err}{hint}")
    except RuntimeError as err:  # a method's child process failed; its traceback is above
        sys.exit(f"transfer_go: {err}")
    print(open(data["paths"]["report"]).read().split("## Elo over training")[0])
    if args.save_pretrained:
        from zerogym_agents.agents.saved import PRETRAINED_DIR

        if not all(p.get("done") for p in data["methods"].values()):
            sys.exit("transfer_go: --save-pretrained waits until every method is done")
        path = os.path.join(PRETRAINED_DIR, f"{args.save_pretrained}.pt")
        method = save_best_agent(data, args.out, path, command=command.strip())
        print(f"saved the {method} agent as pretrained:{args.save_pretrained} ({path})")


if __name__ == "__main__":
    # `kill PID`: exit through the finally blocks, which stop the methods' child processes
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    main()
