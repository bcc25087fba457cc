"""`zerogym transfer run`: the board-size transfer experiment from the command line (resumable)."""
import json
import os
import shlex

from zerogym_agents.transfer.settings import DEFAULT_REFERENCES, MAX_SIMULATIONS, METHODS


def add_run_parser(commands):
    r = commands.add_parser(
        "run", help="the transfer experiment: scratch, fine-tune, composite, grown and curriculum runs on a bigger board",
        description="From one small-board AlphaZero net, train on --big-size boards by each method with the same "
                    "budget and AlphaZero config, evaluate against fixed references over training, fit a pooled "
                    "Elo and write a report with a plot. Restarting with the same --out and --resume skips "
                    "finished methods and resumes the others from their checkpoints.")
    r.add_argument("--source", required=True, metavar="FILE", help="saved agent, checkpoint or pretrained:NAME "
                                                                   "(a net trained on the small board)")
    r.add_argument("--big-size", type=int, required=True, help="board size to transfer to")
    r.add_argument("--small-size", type=int, help="the source's board size (default: from its card or config)")
    r.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS), metavar="METHOD",
                   help=f"any of {', '.join(METHODS)} (default all)")
    budget = r.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=float, default=60.0, help="training minutes per method (default 60)")
    budget.add_argument("--steps", type=int, help="or: self-play search steps per method (deterministic)")
    r.add_argument("--eval-every-minutes", type=float, default=10.0, help="evaluate every so many training minutes")
    r.add_argument("--eval-every-steps", type=int, help="with --steps: evaluate every so many steps (default steps/4)")
    r.add_argument("--eval-games", type=int, default=10, help="games against each reference per evaluation")
    r.add_argument("--final-games", type=int, help="games per reference at the last evaluation (default --eval-games)")
    r.add_argument("--zero-shot-games", type=int, default=20, help="games of the untrained source net against Random")
    r.add_argument("--references", nargs="+", default=list(DEFAULT_REFERENCES), metavar="SPEC",
                   help="reference agents (arena specs: random, greedy, uct:N, gnugo:LEVEL, a saved agent)")
    r.add_argument("--reference-games", type=int, default=0, help="games between each pair of references (default 0)")
    r.add_argument("--simulations", type=int, default=200,
                   help=f"simulations per move of the evaluated AlphaZeroAgent (at most {MAX_SIMULATIONS})")
    r.add_argument("--opening-moves", type=int, default=6,
                   help="the evaluated agent samples in proportion to visits before this move number (default 6)")
    r.add_argument("--config", metavar="JSON", help="AlphaZeroConfig fields: a JSON file or an inline JSON object")
    r.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="override AlphaZeroConfig fields")
    r.add_argument("--grow-blocks", type=int, default=2, help="residual blocks the grown method adds (default 2)")
    r.add_argument("--composite", nargs="*", default=[], metavar="KEY=VALUE",
                   help="CompositeNet options, e.g. downscalings=4 features=32")
    r.add_argument("--curriculum", nargs="+", type=int, metavar="SIZE",
                   help="intermediate board sizes (default: those between, of the big size's parity)")
    r.add_argument("--curriculum-split", nargs="+", type=float, metavar="SHARE",
                   help="budget shares of the curriculum stages, the big board last (default equal)")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--out", help="experiment folder (default runs/transfer-SOURCE-BIGxBIG)")
    r.add_argument("--report", help="markdown report path, plot beside it as .png (default OUT/report.md)")
    r.add_argument("--parallel", type=int, default=1,
                   help="methods trained at once, each in a child process on one torch thread (default 1)")
    r.add_argument("--no-progress", action="store_true")
    from zerogym_agents.run_folder import add_run_folder_arguments
    add_run_folder_arguments(r, what="the experiment")
    r.set_defaults(func=run_experiment_cli, command_name="transfer run")
    return r


def read_config(text):
    """AlphaZeroConfig fields from an inline JSON object or a JSON file."""
    if text is None:
        return {}
    if text.lstrip().startswith("{"):
        data = json.loads(text)
    else:
        with open(text) as f:
            data = json.load(f)
    if not isinstance(data, dict):
        raise ValueError(f"--config must hold a JSON object, got {type(data).__name__}")
    return data


def settings_from_args(args):
    from zerogym_agents.specs import parse_kwargs
    from zerogym_agents.transfer.settings import TransferSettings
    config = read_config(args.config)
    config.update(parse_kwargs(args.set))
    return TransferSettings(
        source=args.source, big_size=args.big_size, small_size=args.small_size, methods=tuple(args.methods),
        minutes=args.minutes, steps=args.steps, eval_every_minutes=args.eval_every_minutes,
        eval_every_steps=args.eval_every_steps, eval_games=args.eval_games, final_games=args.final_games,
        zero_shot_games=args.zero_shot_games, references=tuple(args.references),
        reference_games=args.reference_games, simulations=args.simulations,
        opening_moves=args.opening_moves, config=config,
        grow_blocks=args.grow_blocks, composite=parse_kwargs(args.composite),
        curriculum=tuple(args.curriculum) if args.curriculum else None,
        curriculum_split=tuple(args.curriculum_split) if args.curriculum_split else None, seed=args.seed)


def command_line(settings, out, report, parallel=1):
    """The full `zerogym transfer run` command of these settings (every option spelt out)."""
    s = settings
    words = ["zerogym", "transfer", "run", "--source", s.source, "--big-size", str(s.big_size)]
    if s.small_size is not None:
        words += ["--small-size", str(s.small_size)]
    words += ["--methods", *s.methods]
    if s.steps is not None:
        words += ["--steps", str(s.steps), "--eval-every-steps", str(s.eval_every_steps)]
    else:
        words += ["--minutes", f"{s.minutes:g}", "--eval-every-minutes", f"{s.eval_every_minutes:g}"]
    words += ["--eval-games", str(s.eval_games), "--final-games", str(s.final_games),
              "--zero-shot-games", str(s.zero_shot_games), "--references", *s.references,
              "--reference-games", str(s.reference_games), "--simulations", str(s.simulations),
              "--opening-moves", str(s.opening_moves)]
    if s.config:
        words += ["--config", json.dumps(s.config, sort_keys=True, separators=(",", ":"))]
    words += ["--grow-blocks", str(s.grow_blocks)]
    if s.composite:
        words += ["--composite", *(f"{k}={json.dumps(v)}" for k, v in sorted(s.composite.items()))]
    if s.curriculum:
        words += ["--curriculum", *map(str, s.curriculum)]
    if s.curriculum_split:
        words += ["--curriculum-split", *(f"{x:g}" for x in s.curriculum_split)]
    words += ["--seed", str(s.seed), "--out", out]
    if report:
        words += ["--report", report]
    if parallel > 1:
        words += ["--parallel", str(parallel)]
    return shlex.join(words)


def run_experiment_cli(args):
    from zerogym_agents.run_folder import prepare_run_folder
    from zerogym_agents.transfer.experiment import run_transfer
    try:
        settings = settings_from_args(args)
        out = args.out or os.path.join(
            "runs", f"transfer-{os.path.splitext(os.path.basename(args.source.split(':')[-1]))[0]}-"
                    f"{args.big_size}x{args.big_size}")
        prepare_run_folder(out, resume=args.resume, force=args.force, checkpoint="experiment.json")
        data = run_transfer(settings, out, report=args.report, progress=not args.no_progress,
                            command=command_line(settings, out, args.report, args.parallel), parallel=args.parallel)
    except RuntimeError as err:                 # a method's training failed (its error is printed above)
        raise SystemExit(f"zerogym transfer run: error: {err}")     # ValueError, OSError: zerogym_agents.cli.user_error
    for method, prog in data["methods"].items():
        last = prog["evals"][-1]
        agents = (data["elo"] or {}).get("agents", {})
        elo = agents.get(last["name"], {}).get("elo")
        results = ", ".join(f"{m['agent_b']} {m['total']['wins']}-{m['total']['draws']}-{m['total']['losses']}"
                            for m in last["matches"])
        print(f"{method}: Elo {elo:+.0f}; {results}" if elo is not None else f"{method}: {results}")
    print(f"wrote {data['paths']['report']} and {data['paths']['plot']}; runs and agents in {out}")
    return data
