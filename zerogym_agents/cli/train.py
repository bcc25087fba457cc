"""`zerogym train alphazero|pg`: the options both share (the config's layers, the run folder, the run, the
backend), each algorithm's sub-command and its run; --resume continues a run."""

from __future__ import annotations

import argparse
import math
import os
import shutil
import textwrap
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from zerogym_agents.core.config_io import JsonConfig
from zerogym_agents.pg.config import ALGOS
from zerogym_agents.training.run_folder import add_run_folder_arguments, prepare_run_folder
from zerogym_agents.agents.specs import parse_kwargs

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from zerogym_agents.alphazero.config import AlphaZeroConfig
    from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
    from zerogym_agents.pg.base import PGTrainer
    from zerogym_agents.pg.config import PGConfig
    from zerogym_agents.scale.config import RayConfig
    from zerogym_agents.training.schedule import CosineSchedule

ConfigT = TypeVar("ConfigT", bound=JsonConfig)
TrainerT = TypeVar("TrainerT", bound="CosineSchedule")


def add_train_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    train = subparsers.add_parser("train", help="train an agent (alphazero, pg)")
    algos = train.add_subparsers(dest="algo", required=True)
    from zerogym_agents.alphazero.config import AlphaZeroConfig

    az = algos.add_parser(
        "alphazero",
        help="AlphaZero self-play training",
        **help_texts(
            "AlphaZero self-play training. Settings come from AlphaZeroConfig's defaults (listed below), then "
            "the game's starting settings, for a useful agent in minutes on a laptop (" + starting_lines() + "), "
            "then --config FILE (JSON), then --set key=value pairs.",
            AlphaZeroConfig,
        ),
    )
    add_training_arguments(az, AlphaZeroConfig, "runs/alphazero-GAME")
    az.set_defaults(func=run_train_alphazero, command_name="train alphazero")
    add_pg_parser(algos)


def starting_lines() -> str:
    """The games' starting settings in a few words, games with the same ones together, for --help."""
    from zerogym.registry import GAMES
    from zerogym_agents.alphazero.recipes import starting_settings

    games_of: dict[str, list[str]] = {}
    for game in GAMES:
        s = starting_settings(game)
        if s:
            net = f"{s['net']['blocks']}x{s['net']['channels']}"
            words = (
                f"{s['max_steps']} steps of {s['concurrent_games']} games, {s['simulations']} simulations, {net} net"
            )
            games_of.setdefault(words, []).append(game)
    return "; ".join(f"{', '.join(games)}: {words}" for words, games in games_of.items())


def help_texts(description: str, config_class: type[JsonConfig]) -> dict[str, Any]:
    """add_parser's description (wrapped here) and epilog: every field of config_class, its default,
    the values it allows and its doc (JsonConfig.fields_help), kept as written."""
    width = max(60, shutil.get_terminal_size().columns - 2)
    epilog = (
        f"{config_class.__name__} fields (--set KEY=VALUE, values read as JSON; or --config FILE):\n"
        + config_class.fields_help(width)
    )
    return {
        "description": textwrap.fill(description, width),
        "epilog": epilog,
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }


def alphazero_config(args: argparse.Namespace) -> AlphaZeroConfig:
    """The AlphaZeroConfig of `zerogym train alphazero ARGS`."""
    from zerogym_agents.alphazero.config import AlphaZeroConfig
    from zerogym_agents.alphazero.recipes import starting_settings

    return config_from_args(AlphaZeroConfig, args, start=starting_settings(args.game))


def run_train_alphazero(args: argparse.Namespace) -> None:
    from zerogym_agents.alphazero.trainer import AlphaZeroTrainer

    cfg = alphazero_config(args)  # errors: one line through zerogym_agents.cli.main.user_error
    rc = ray_config(args)
    make_trainer: Callable[..., AlphaZeroTrainer] = AlphaZeroTrainer
    if rc is not None:
        import functools

        from zerogym_agents.scale.alphazero import RayAlphaZeroTrainer

        make_trainer = functools.partial(RayAlphaZeroTrainer, ray_config=rc)
    trainer, out = train(args, cfg, os.path.join("runs", f"alphazero-{cfg.game}"), make_trainer)
    print(summary_line(trainer, out))


def summary_line(trainer: AlphaZeroTrainer, out: str) -> str:
    """What a finished `zerogym train alphazero` prints: counts, the last losses (rounded), where it is."""
    last: dict[str, Any] = next((h for h in reversed(trainer.history) if h.get("loss") is not None), {})
    if last:
        losses = f"last loss {last['loss']:.3f} (policy {last['policy_loss']:.3f}, value {last['value_loss']:.3f})"
    else:
        losses = (
            f"no training step yet (it starts once the replay buffer holds min_buffer = "
            f"{trainer.cfg.min_buffer} positions)"
        )
    return (
        f"{trainer.games} games, {trainer.positions} positions, {trainer.train_steps} training steps; {losses}; "
        f"checkpoint and agent.pt in {out}"
    )


def add_config_arguments(parser: argparse.ArgumentParser, config_class: type[JsonConfig]) -> None:
    """The options `zerogym train alphazero|pg` share: the game, the config's layers and its start."""
    from zerogym.registry import GAMES

    name = config_class.__name__
    fields = cast("type[DataclassInstance]", config_class).__dataclass_fields__  # config classes are dataclasses
    parser.add_argument("--game", required=True, help=", ".join(GAMES))
    parser.add_argument("--kwargs", nargs="*", default=[], help="game kwargs: key=value words or one JSON object")
    parser.add_argument("--config", help=f"a JSON file of {name} fields")
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="override config fields")
    parser.add_argument("--init-from", metavar="FILE", help=fields["init_from"].metadata["doc"])


def config_from_args(
    config_class: type[ConfigT], args: argparse.Namespace, start: Mapping[str, Any] | None = None, **given: Any
) -> ConfigT:
    """config_class from its defaults, then `start` (the game's starting settings), then --config, then
    --set, then --game, --kwargs, --init-from and `given` (the options that are not None)."""
    kwargs = parse_kwargs(args.kwargs) if args.kwargs else None  # none given: the config's stay
    given.update(game=args.game, game_kwargs=kwargs, init_from=args.init_from)
    given = {k: v for k, v in given.items() if v is not None}
    return config_class.from_layers(args.config, args.set, start=start, **given)


def add_training_arguments(parser: argparse.ArgumentParser, config_class: type[JsonConfig], default_out: str) -> None:
    """Every option `zerogym train alphazero|pg` share: the config's (add_config_arguments), --out,
    the run folder's rule, the run's and the backend's."""
    add_config_arguments(parser, config_class)
    parser.add_argument("--out", default=None, help=f"run folder (default {default_out})")
    add_run_folder_arguments(parser)
    add_run_arguments(parser)
    add_backend_arguments(parser)


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The options `zerogym train alphazero|pg` share about the run itself."""
    parser.add_argument(
        "--max-seconds",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="stop this long after the command starts, within a few seconds, saving a checkpoint (--resume continues)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """--backend, --workers, --address and the ray backend's settings (zerogym_agents.scale)."""
    parser.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local: one process (default); ray: self-play or rollouts on Ray workers",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="ray: worker actors (default 2); local (pg --algo ppo only): processes for the games",
    )
    parser.add_argument(
        "--address",
        default=None,
        help="ray: the cluster to join ('auto' after `ray start --head`); default a local instance",
    )
    parser.add_argument(
        "--ray-set",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="ray: RayConfig fields (mode=deterministic, steps_per_task, max_inflight, "
        "samples_per_position, cpus_per_worker, gpus_per_worker)",
    )


def ray_config(args: argparse.Namespace) -> RayConfig | None:
    """The RayConfig of --backend ray (None for the local backend); ValueError when Ray is missing."""
    if args.backend != "ray":
        if args.workers is not None or args.address is not None or args.ray_set:
            raise ValueError("--workers, --address and --ray-set go with --backend ray")
        return None
    from zerogym_agents.scale.config import RayConfig
    from zerogym_agents.scale.runtime import require_ray

    given = {k: v for k, v in (("workers", args.workers), ("address", args.address)) if v is not None}
    rc = RayConfig.from_layers(None, args.ray_set, sets_option="--ray-set", **given)
    try:
        require_ray()
    except ImportError as err:
        raise ValueError(str(err)) from None
    return rc


def train(
    args: argparse.Namespace, cfg: JsonConfig, default_out: str, make_trainer: Callable[..., TrainerT]
) -> tuple[TrainerT, str]:
    """The run of `zerogym train alphazero|pg`: the run folder (--out, else default_out) prepared by
    its rule, the trainer made (make_trainer(cfg, out, resume=...)) and run; returns (trainer, out).
    --max-seconds counts from here: making the trainer (a resumed run's loading too) is part of it.
    A trainer with close() (the ray backend's) is closed afterwards."""
    start = time.perf_counter()
    out = args.out or default_out
    prepare_run_folder(out, resume=args.resume, force=args.force)
    trainer = make_trainer(cfg, out, resume=args.resume)
    left = None if args.max_seconds is None else max(args.max_seconds - (time.perf_counter() - start), 1e-3)
    try:
        trainer.run(progress=not args.no_progress, max_seconds=left)
    finally:
        if hasattr(trainer, "close"):
            trainer.close()
    return trainer, out


def seconds(text: str) -> float:
    """An argparse type: a number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text!r}")
    return value


def add_pg_parser(algos: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add `pg` to the `zerogym train` sub-commands (`algos`, an argparse subparsers object)."""
    from zerogym_agents.pg.config import PGConfig

    pg = algos.add_parser(
        "pg",
        help="policy gradient against a pool of past selves (REINFORCE, PPO)",
        **help_texts(
            "Policy-gradient training against a pool of frozen snapshots of the learner. Settings come from "
            "PGConfig's defaults, then --config FILE (JSON), then --set key=value pairs; --algo, --game and --kwargs "
            "override them.",
            PGConfig,
        ),
    )
    pg.add_argument(
        "--algo",
        choices=ALGOS,
        default=None,
        help="reinforce, reinforce-baseline or ppo (default: the config's, else reinforce)",
    )
    add_training_arguments(pg, PGConfig, "runs/pg-ALGO-GAME")
    pg.set_defaults(func=run_train_pg, command_name="train pg")
    return pg


def pg_config(args: argparse.Namespace) -> PGConfig:
    """The PGConfig of `zerogym train pg ARGS`."""
    from zerogym_agents.pg.config import PGConfig

    return config_from_args(PGConfig, args, algo=args.algo)


def local_workers(args: argparse.Namespace, cfg: PGConfig) -> int | None:
    """--backend local --workers N: PPO's games in N local processes (None: not asked for). Taken off
    args, so ray_config sees a plain local run; refused for the other algorithms."""
    if args.backend != "local" or args.workers is None:
        return None
    if cfg.algo != "ppo":
        raise ValueError(
            f"--backend local --workers N plays PPO's games in N processes; {cfg.algo} runs its "
            f"rollouts in one process locally (--backend ray --workers N spreads them over Ray workers)"
        )
    from zerogym_agents.pg.worker_vec_env import check_workers

    workers, args.workers = check_workers(args.workers, cfg.num_envs), None  # refused before the run folder
    return workers


def run_train_pg(args: argparse.Namespace) -> PGTrainer:
    from zerogym_agents.pg.trainers import make_trainer as make_local

    cfg = pg_config(args)  # errors: one line through zerogym_agents.cli.main.user_error
    workers = local_workers(args, cfg)
    rc = ray_config(args)
    if workers is not None:
        from zerogym_agents.pg.ppo import PPOTrainer

        def make_trainer(config, out, resume=False):
            return PPOTrainer(config, out, resume=resume, workers=workers)
    elif rc is None:
        make_trainer = make_local
    else:
        from zerogym_agents.scale.pg import ray_pg_trainer

        make_trainer = ray_pg_trainer(cfg, rc)
    trainer, out = train(args, cfg, os.path.join("runs", f"pg-{cfg.algo}-{cfg.game}"), make_trainer)
    last = trainer.history[-1] if trainer.history else {}
    win = last.get("win_rate")
    win = "-" if win is None or math.isnan(win) else f"{win:.2f}"  # nan: no game finished in the interval
    print(
        f"{cfg.algo} {cfg.game}: {trainer.step} updates, {trainer.episodes} games, {trainer.learner_moves} learner "
        f"moves; last win rate vs pool {win}, learner Elo "
        f"{trainer.pool.learner_elo:.0f}; checkpoint and agent.pt in {out}"
    )
    return trainer
