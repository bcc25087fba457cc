"""`zerogym train alphazero`: train from the command line, resume with --resume."""
import os

from zerogym_agents.pg.cli import add_pg_parser, read_config_file
from zerogym_agents.run_folder import add_run_folder_arguments, prepare_run_folder
from zerogym_agents.specs import parse_kwargs


def add_train_parser(subparsers):
    train = subparsers.add_parser("train", help="train an agent (alphazero, pg)")
    algos = train.add_subparsers(dest="algo", required=True)
    az = algos.add_parser("alphazero", help="AlphaZero self-play training",
                          description="AlphaZero self-play training. Settings come from AlphaZeroConfig's defaults, "
                                      "then --config FILE (JSON), then --set key=value pairs.")
    az.add_argument("--game", required=True, help="go, othello, hex, connect_four or tictactoe")
    az.add_argument("--kwargs", nargs="*", default=[], help="game kwargs: key=value words or one JSON object")
    az.add_argument("--config", help="a JSON file of AlphaZeroConfig fields")
    az.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="override config fields")
    az.add_argument("--out", default=None, help="run folder (default runs/alphazero-GAME)")
    add_run_folder_arguments(az)
    az.add_argument("--init-from", metavar="FILE", help="start from the net in this agent, checkpoint or net file "
                                                         "(same game, any board size; or pretrained:NAME)")
    az.add_argument("--no-progress", action="store_true")
    az.set_defaults(func=run_train_alphazero, command_name="train alphazero")
    add_pg_parser(algos)


def build_config(args):
    from zerogym_agents.alphazero.config import AlphaZeroConfig
    fields = {}
    if args.config:
        fields.update(read_config_file(args.config, "AlphaZeroConfig"))
    fields.update(parse_kwargs(args.set) if args.set else {})
    fields["game"] = args.game
    fields["game_kwargs"] = parse_kwargs(args.kwargs)
    if args.init_from:
        fields["init_from"] = args.init_from
    return AlphaZeroConfig.from_dict(fields)


def run_train_alphazero(args):
    from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
    cfg = build_config(args)            # errors: one line through zerogym_agents.cli.user_error
    out = args.out or os.path.join("runs", f"alphazero-{cfg.game}")
    prepare_run_folder(out, resume=args.resume, force=args.force)
    trainer = AlphaZeroTrainer(cfg, out, resume=args.resume)
    trainer.run(progress=not args.no_progress)
    print(summary_line(trainer, out))


def summary_line(trainer, out):
    """What a finished `zerogym train alphazero` prints: counts, the last losses (rounded), where it is."""
    last = next((h for h in reversed(trainer.history) if h.get("loss") is not None), {})
    if last:
        losses = (f"last loss {last['loss']:.3f} (policy {last['policy_loss']:.3f}, value {last['value_loss']:.3f})")
    else:
        losses = (f"no training step yet (it starts once the replay buffer holds min_buffer = "
                  f"{trainer.cfg.min_buffer} positions)")
    return (f"{trainer.games} games, {trainer.positions} positions, {trainer.train_steps} training steps; {losses}; "
            f"checkpoint and agent.pt in {out}")
