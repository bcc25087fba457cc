"""`zerogym train alphazero`: train from the command line, resume with --resume."""
import os

from zerogym_agents.pg.cli import add_pg_parser, add_training_arguments, config_from_args, ray_config, train


def add_train_parser(subparsers):
    train = subparsers.add_parser("train", help="train an agent (alphazero, pg)")
    algos = train.add_subparsers(dest="algo", required=True)
    az = algos.add_parser("alphazero", help="AlphaZero self-play training",
                          description="AlphaZero self-play training. Settings come from AlphaZeroConfig's defaults, "
                                      "then --config FILE (JSON), then --set key=value pairs.")
    from zerogym_agents.alphazero.config import AlphaZeroConfig
    add_training_arguments(az, AlphaZeroConfig, "runs/alphazero-GAME")
    az.set_defaults(func=run_train_alphazero, command_name="train alphazero")
    add_pg_parser(algos)


def build_config(args):
    from zerogym_agents.alphazero.config import AlphaZeroConfig
    return config_from_args(AlphaZeroConfig, args)


def run_train_alphazero(args):
    from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
    cfg = build_config(args)            # errors: one line through zerogym_agents.cli.user_error
    rc, make_trainer = ray_config(args), AlphaZeroTrainer
    if rc is not None:
        import functools

        from zerogym_agents.scale.alphazero import RayAlphaZeroTrainer
        make_trainer = functools.partial(RayAlphaZeroTrainer, ray_config=rc)
    trainer, out = train(args, cfg, os.path.join("runs", f"alphazero-{cfg.game}"), make_trainer)
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
