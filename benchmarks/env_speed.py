"""Random legal play, moves per second: zerogym against PettingZoo, OpenSpiel and Pgx, same run.

    python benchmarks/env_speed.py [--seconds 3] [--quick] [--no-pgx] [--out benchmarks/results]

The measurement is `zerogym bench` (zerogym_agents/cli/bench.py, where the rows and ratios are
explained); this script writes its table and plot to benchmarks/results/ by default.
"""

import argparse
import os
import sys

from zerogym_agents.cli.bench import add_arguments, run

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(ap, out_default=RESULTS)
    return run(ap.parse_args(argv), "python benchmarks/env_speed.py" + "".join(f" {a}" for a in argv))


if __name__ == "__main__":
    main()
