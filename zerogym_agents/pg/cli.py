"""`zerogym train pg`: REINFORCE (± value baseline) or MaskablePPO from the command line."""
import json
import math
import os

from zerogym_agents.pg.config import ALGOS
from zerogym_agents.run_folder import add_run_folder_arguments, prepare_run_folder
from zerogym_agents.specs import parse_kwargs


def add_pg_parser(algos):
    """Add `pg` to the `zerogym train` sub-commands (`algos`, an argparse subparsers object)."""
    pg = algos.add_parser("pg", help="policy gradient against a pool of past selves (REINFORCE, PPO)",
                          description="Policy-gradient training against a pool of frozen snapshots of the learner. "
                                      "Settings come from PGConfig's defaults, then --config FILE (JSON), then "
                                      "--set key=value pairs; --algo, --game and --kwargs override them.")
    pg.add_argument("--algo", choices=ALGOS, default=None,
                    help="reinforce, reinforce-baseline or ppo (default: the config's, else reinforce)")
    pg.add_argument("--game", required=True, help="go, othello, hex, connect_four or tictactoe")
    pg.add_argument("--kwargs", nargs="*", default=[], help="game kwargs: key=value words or one JSON object")
    pg.add_argument("--config", help="a JSON file of PGConfig fields")
    pg.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="override config fields")
    pg.add_argument("--init-from", metavar="FILE", help="start from the net in this agent, checkpoint or net file "
                    "(same game, any board size; or pretrained:NAME); the net's shape comes from it")
    pg.add_argument("--out", default=None, help="run folder (default runs/pg-ALGO-GAME)")
    add_run_folder_arguments(pg)
    pg.add_argument("--max-seconds", type=float, default=None, help="stop (and save) after this much wall clock")
    pg.add_argument("--no-progress", action="store_true")
    pg.set_defaults(func=run_train_pg, command_name="train pg")
    return pg


def read_config_file(path, kind):
    """The JSON object of config fields in file `path` (ValueError naming the file when it holds none)."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        loaded = json.loads(data)
    except ValueError as err:                   # not JSON, or not text
        raise ValueError(f"--config {path}: not a JSON file ({err})") from None
    if not isinstance(loaded, dict):
        raise ValueError(f"--config {path}: expected a JSON object of {kind} fields")
    return loaded


def build_config(args):
    from zerogym_agents.pg.config import PGConfig
    fields = {}
    if args.config:
        fields.update(read_config_file(args.config, "PGConfig"))
    fields.update(parse_kwargs(args.set) if args.set else {})
    if args.algo is not None:
        fields["algo"] = args.algo
    fields["game"] = args.game
    if args.init_from:
        fields["init_from"] = args.init_from
    fields["game_kwargs"] = parse_kwargs(args.kwargs)
    return PGConfig.from_dict(fields)


def run_train_pg(args):
    from zerogym_agents.pg.trainers import make_trainer
    cfg = build_config(args)            # errors: one line through zerogym_agents.cli.user_error
    if args.max_seconds is not None and not args.max_seconds > 0:
        raise ValueError(f"--max-seconds must be > 0, got {args.max_seconds}")
    out = args.out or os.path.join("runs", f"pg-{cfg.algo}-{cfg.game}")
    prepare_run_folder(out, resume=args.resume, force=args.force)
    trainer = make_trainer(cfg, out, resume=args.resume)
    trainer.run(progress=not args.no_progress, max_seconds=args.max_seconds)
    last = trainer.history[-1] if trainer.history else {}
    win = last.get("win_rate")
    win = "-" if win is None or math.isnan(win) else f"{win:.2f}"          # nan: no game finished in the interval
    print(f"{cfg.algo} {cfg.game}: {trainer.step} updates, {trainer.episodes} games, {trainer.learner_moves} learner "
          f"moves; last win rate vs pool {win}, learner Elo "
          f"{trainer.pool.learner_elo:.0f}; checkpoint and agent.pt in {out}")
    return trainer
