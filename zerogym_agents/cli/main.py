"""The `zerogym` command line: every sub-command, and one way for all of them to end on an error."""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections.abc import Sequence

import numpy as np

from zerogym_agents.cli.train import add_train_parser
from zerogym_agents.cli.arena import add_arena_parser
from zerogym_agents.cli.bench import add_arguments as add_bench_arguments
from zerogym_agents.cli.gtp import add_gtp_parser
from zerogym_agents.cli.play import add_play_parser
from zerogym_agents.agents.specs import game_kwargs_for_agents, is_saved_agent_spec
from zerogym_agents.cli.transfer import add_transfer_parser


def demo(args: argparse.Namespace) -> None:
    """A seeded random game of Go rendered in the terminal, AlphaZero trained briefly on Connect Four and
    put against the baselines (a results table and plots on disk), then a quick speed table."""
    import zerogym

    env = zerogym.make("go", board_size=args.board_size, render_mode="ansi")
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    for _agent in env.agent_iter():
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
    print(
        f"Tromp-Taylor area: black {black}, white {white}, komi {st.spec.kwargs['komi']} -> "
        f"score {st.score():+.1f} ({'black' if st.score() > 0 else 'white' if st.score() < 0 else 'nobody'} wins)"
    )
    if not args.no_train:
        from zerogym_agents.cli.demo import train_and_compare

        print(f"\nAlphaZero learns Connect Four for {args.minutes:g} minutes, then meets the baselines:")
        train_and_compare(
            args.minutes, args.out, games_per_pair=args.games_per_pair, seed=args.seed, zerogym=invocation()
        )
    if not args.no_bench:
        print("\nSpeed, random legal play (moves per second, this machine):")
        bench(argparse.Namespace(seconds=args.seconds, quick=True, no_pgx=True, out=None))


def invocation() -> str:
    """How to run zerogym again, as a hint to print: "zerogym" when that is on PATH and is the
    script running now, else the script's path as it was run (".venv/bin/zerogym"), else
    "PYTHON -m zerogym_agents.cli.main"."""
    import shutil

    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if os.path.basename(argv0) == "zerogym":
        found = shutil.which("zerogym")
        if found and os.path.realpath(found) == os.path.realpath(argv0):
            return "zerogym"
        return argv0
    python = sys.executable or "python"
    rel = os.path.relpath(python) if os.path.isabs(python) else python
    return f"{python if rel.startswith('..') else rel} -m zerogym_agents.cli.main"


def bench(args: argparse.Namespace) -> None:
    """`zerogym bench`: the environment speed table (zerogym_agents.cli.bench); --out DIR also writes it."""
    from zerogym_agents.cli.bench import run

    options = [f"--seconds {args.seconds:g}"] + ["--quick"] * args.quick + ["--no-pgx"] * args.no_pgx
    run(args, " ".join(["zerogym bench", *options, *(["--out", args.out] if args.out else [])]))


class CommandExit(SystemExit):
    """How main() ends a command on a user's mistake, once its one line is on stderr: `.code` is the
    exit status (the interpreter exits with it), str() is the message."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(status)
        self.message = message

    def __str__(self) -> str:
        return self.message


_PACKAGES = ("zerogym", "zerogym_agents")
_FILE_ERRORS = (FileNotFoundError, FileExistsError, IsADirectoryError, NotADirectoryError, PermissionError)


def _raised_in_zerogym(err: BaseException) -> bool:
    """Whether the innermost frame of err's traceback is zerogym's own code (Python or Cython)."""
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return False
    path = tb.tb_frame.f_code.co_filename.replace(os.sep, "/")
    if not os.path.isabs(path):  # Cython frames name their .pyx relative to the source root
        return path.split("/", 1)[0] in _PACKAGES
    for name in _PACKAGES:
        module = sys.modules.get(name)
        file = module.__file__ if module is not None else None  # None: a namespace package, not ours
        if file is not None and path.startswith(os.path.dirname(file).replace(os.sep, "/") + "/"):
            return True
    return False


def user_error(err: BaseException) -> tuple[int, str] | None:
    """(exit status, message) when exception `err` is a user's mistake, else None: a bug, which keeps its traceback.

    User mistakes are one line on stderr (`zerogym CMD: error: MESSAGE`) and exit status 2 for bad
    arguments or 1 for work that failed on a file:

    - 2: zerogym.KwargsError (an unknown game keyword; other TypeErrors are bugs), and a ValueError
      raised by zerogym's own checks (an unknown game, bad kwargs or settings, an agent spec, a run
      folder used without --resume or --force, ...): every check in zerogym and zerogym_agents
      raises ValueError with a message that says what is allowed.  A ValueError raised inside
      numpy, torch or another library is a bug (zerogym should have checked first) and keeps its
      traceback.
    - 1: zerogym_agents.core.checkpoint.CheckpointError (a missing or malformed checkpoint, agent or net
      file), zerogym.IllegalMoveError (a move refused during the work), and the file-system errors
      FileNotFoundError, FileExistsError, IsADirectoryError, NotADirectoryError, PermissionError.
    - 130: KeyboardInterrupt (Ctrl-C), with no message.

    `zerogym --debug ...` shows the traceback of all of them.
    """
    from zerogym.errors import IllegalMoveError, KwargsError

    checkpoint = sys.modules.get("zerogym_agents.core.checkpoint")
    if isinstance(err, KeyboardInterrupt):
        return 130, ""
    if checkpoint is not None and isinstance(err, checkpoint.CheckpointError) or isinstance(err, IllegalMoveError):
        return 1, str(err)
    if isinstance(err, _FILE_ERRORS):
        if err.filename is None or not err.strerror:
            return 1, str(err)
        return 1, f"{err.filename}: {err.strerror[:1].lower()}{err.strerror[1:]}"
    if isinstance(err, KwargsError) or isinstance(err, ValueError) and _raised_in_zerogym(err):
        return 2, str(err)
    return None


def gtp_board_from_card(args: argparse.Namespace, argv: Sequence[str]) -> None:
    """`zerogym gtp` with a saved agent: without --board-size (or --komi) the first board is the one of
    the agent's model card (the controller's boardsize and komi commands change it as usual); a size
    other than the card's gets a note on stderr, since stdout carries GTP only."""
    if not is_saved_agent_spec(args.agent):
        return

    def given(option: str) -> bool:
        return any(a == option or a.startswith(option + "=") for a in argv)

    try:
        card, _ = game_kwargs_for_agents("go", {}, [args.agent])
    except (ValueError, TypeError):
        return  # another game, a missing or bad file: the gtp command says so
    if not given("--board-size"):
        args.board_size = card.get("board_size", args.board_size)
    if not given("--komi"):
        args.komi = card.get("komi", args.komi)
    _, notes = game_kwargs_for_agents("go", {"board_size": args.board_size, "komi": args.komi}, [args.agent])
    for note in notes:
        print(f"zerogym gtp: {note}", file=sys.stderr)


def command_name(args: argparse.Namespace) -> str:
    """ "train alphazero", "transfer grow", "arena": the command as typed, for messages."""
    return getattr(args, "command_name", None) or args.command


def parser() -> argparse.ArgumentParser:
    """The `zerogym` parser with every sub-command. Building it (and --help, --version, an argument
    error) imports no sub-command's heavy modules: torch is loaded by the commands that run."""
    from zerogym import __version__

    ap = argparse.ArgumentParser(
        prog="zerogym", description="Board games with a compiled core, and agents that learn them."
    )
    ap.add_argument("--version", action="version", version=f"zerogym {__version__}")
    ap.add_argument(
        "--debug", action="store_true", help="show the full traceback of any error (also after the command)"
    )
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="a Go game, AlphaZero trained briefly against the baselines, a speed table")
    d.add_argument("--board-size", type=int, default=9, help="side of the Go board (default 9)")
    d.add_argument("--seed", type=int, default=0, help="seed of the random game and of training (default 0)")
    d.add_argument(
        "--watch", type=float, default=0.0, metavar="SECONDS", help="redraw after every move, pausing this long"
    )
    d.add_argument("--seconds", type=float, default=2.0, help="time per speed measurement")
    d.add_argument("--no-bench", action="store_true", help="skip the speed table")
    d.add_argument("--minutes", type=float, default=6.0, help="AlphaZero training time on Connect Four")
    d.add_argument("--games-per-pair", type=int, default=10, help="round-robin games per pair of agents")
    d.add_argument("--out", default=os.path.join("runs", "demo"), help="folder for the results table and plots")
    d.add_argument("--no-train", action="store_true", help="skip training and the round robin")
    d.set_defaults(func=demo)
    b = sub.add_parser("bench", help="environment speed against PettingZoo, OpenSpiel and Pgx")
    add_bench_arguments(b)
    b.set_defaults(func=bench)
    add_play_parser(sub)
    add_arena_parser(sub)
    add_gtp_parser(sub)
    add_train_parser(sub)
    add_transfer_parser(sub)
    return ap


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command line `argv` (default sys.argv[1:]); see user_error for how errors end."""
    argv = list(sys.argv[1:] if argv is None else argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    debug = "--debug" in argv[:cut]  # accepted anywhere, before or after the command
    argv = [a for a in argv[:cut] if a != "--debug"] + argv[cut:]
    ap = parser()
    args = ap.parse_args(argv)
    try:
        if args.command == "gtp":
            gtp_board_from_card(args, argv)
        args.func(args)
    except BrokenPipeError:  # output piped into a reader that stopped (head, less)
        try:  # so that the interpreter's final flush does not fail again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        raise CommandExit("", 1) from None
    except (Exception, KeyboardInterrupt) as err:
        found = user_error(err)
        if found is None or debug and isinstance(err, KeyboardInterrupt):
            raise
        status, message = found
        if debug:  # the traceback, then the same line and exit status
            traceback.print_exception(type(err), err, err.__traceback__)
        if message:
            message = f"zerogym {command_name(args)}: error: {message}"
            print(message, file=sys.stderr)
        raise CommandExit(message, status) from None


if __name__ == "__main__":
    main()
