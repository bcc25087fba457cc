"""`zerogym transfer run`: the board-size transfer experiment from the command line (resumable)."""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shlex
from typing import Any

from zerogym_agents.transfer.settings import TransferSettings


def add_run_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    r = commands.add_parser(
        "run",
        help="the transfer experiment: scratch, fine-tune, composite, grown and curriculum runs on a bigger board",
        description="From one small-board AlphaZero net, train on --big-size boards by each method with the same "
        "budget and AlphaZero config, evaluate against fixed references over training, fit a pooled "
        "Elo and write a report with a plot. Restarting with the same --out and --resume skips "
        "finished methods and resumes the others from their checkpoints.",
    )
    # one option per TransferSettings field, made from its declaration; --set adds AlphaZeroConfig
    # fields to those of --config (the `config` field)
    names = [f.name for f in dataclasses.fields(TransferSettings)]
    cut = names.index("config") + 1
    TransferSettings.add_options(r, names[:cut], exclusive=("minutes", "steps"))
    r.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="override AlphaZeroConfig fields")
    TransferSettings.add_options(r, names[cut:])
    r.add_argument("--out", help="experiment folder (default runs/transfer-SOURCE-BIGxBIG)")
    r.add_argument("--report", help="markdown report path, plot beside it as .png (default OUT/report.md)")
    r.add_argument(
        "--parallel",
        type=int,
        default=1,
        help="methods trained at once, each in a child process on one torch thread (default 1)",
    )
    r.add_argument(
        "--save-best",
        metavar="FILE",
        help="once every method is done, save the final agent of the highest final Elo to FILE, the choice in "
        "its model card (a .pt path, or pretrained:NAME for the package's folder)",
    )
    r.add_argument("--no-progress", action="store_true", help="no progress bars")
    from zerogym_agents.training.run_folder import add_run_folder_arguments

    add_run_folder_arguments(r, what="the experiment")
    r.set_defaults(func=run_experiment_cli, command_name="transfer run")
    return r


def settings_from_args(args: argparse.Namespace) -> TransferSettings:
    from zerogym_agents.core.config_io import read_json_object
    from zerogym_agents.agents.specs import parse_kwargs

    config = read_json_object(args.config, "AlphaZeroConfig fields") if args.config else {}
    config.update(parse_kwargs(args.set, "--set"))
    return TransferSettings.from_options(args, config=config)


def command_line(settings: TransferSettings, out: str, report: str | None, parallel: int = 1) -> str:
    """The full `zerogym transfer run` command of these settings (every option spelt out)."""
    unused = ("minutes", "eval_every_minutes") if settings.step_mode else ()
    words = ["zerogym", "transfer", "run", *settings.to_options(skip=unused), "--out", out]
    if report:
        words += ["--report", report]
    if parallel > 1:
        words += ["--parallel", str(parallel)]
    return shlex.join(words)


def run_experiment_cli(args: argparse.Namespace) -> dict[str, Any]:
    from zerogym_agents.training.run_folder import prepare_run_folder
    from zerogym_agents.experiment.transfer import run_transfer

    try:
        best_path = best_agent_path(args.save_best) if args.save_best else None
        settings = settings_from_args(args)
        out = args.out or os.path.join(
            "runs",
            f"transfer-{os.path.splitext(os.path.basename(args.source.split(':')[-1]))[0]}-"
            f"{args.big_size}x{args.big_size}",
        )
        prepare_run_folder(out, resume=args.resume, force=args.force, checkpoint="experiment.json")
        data = run_transfer(
            settings,
            out,
            report=args.report,
            progress=not args.no_progress,
            command=command_line(settings, out, args.report, args.parallel),
            parallel=args.parallel,
        )
    except RuntimeError as err:  # a method's training failed (its error is printed above)
        # ValueError, OSError: zerogym_agents.cli.main.user_error
        raise SystemExit(f"zerogym transfer run: error: {err}") from None
    if best_path:
        from zerogym_agents.experiment.transfer import save_best_agent

        command = f"{command_line(settings, out, args.report, args.parallel)} --save-best {shlex.quote(args.save_best)}"
        print(f"saved the {save_best_agent(data, out, best_path, command=command)} agent to {best_path}")
    for method, prog in data["methods"].items():
        last = prog["evals"][-1]
        agents = (data["elo"] or {}).get("agents", {})
        elo = agents.get(last["name"], {}).get("elo")
        results = ", ".join(
            f"{m['agent_b']} {m['total']['wins']}-{m['total']['draws']}-{m['total']['losses']}" for m in last["matches"]
        )
        print(f"{method}: Elo {elo:+.0f}; {results}" if elo is not None else f"{method}: {results}")
    print(f"wrote {data['paths']['report']} and {data['paths']['plot']}; runs and agents in {out}")
    return data


def best_agent_path(target: str) -> str:
    """The file of --save-best `target`: a path, or pretrained:NAME in the package's folder (NAME:
    letters, digits and underscores)."""
    from zerogym_agents.agents.saved import PRETRAINED_DIR

    if not target.startswith("pretrained:"):
        return target
    name = target.split(":", 1)[1]
    if not re.fullmatch(r"\w+", name):
        raise ValueError(f"--save-best {target}: NAME may hold letters, digits and _ only")
    return os.path.join(PRETRAINED_DIR, f"{name}.pt")
