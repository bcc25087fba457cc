"""`zerogym transfer grow|composite|run`: grow a saved net, wrap it in a ZetaGo composite for a bigger
board, or run the board-size transfer experiment (zerogym_agents.experiment.transfer).

grow and composite read any file load_net accepts (a net file, a saved agent, a training
checkpoint) and write a net file, or a saved agent (same options, updated model card) when the
input was an agent.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

    from zerogym_agents.agents.policy import PolicyNet
    from zerogym_agents.nets.model import PolicyValueNet

COMMAND = "zerogym transfer"


def add_transfer_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    """Add `transfer` with its sub-commands; returns their subparsers object, for more sub-commands."""
    transfer = subparsers.add_parser(
        "transfer",
        help="board-size transfer: grow a net, build a ZetaGo composite",
        description="Board-size transfer of policy-value nets.",
    )
    commands = transfer.add_subparsers(dest="transfer_command", required=True, metavar="COMMAND")

    g = commands.add_parser(
        "grow",
        help="add residual blocks, channels or wider kernels (Polygames' convert)",
        description="Grow a network so that it starts from the same function (new weights "
        "zero where they would change it, plus optional --noise).",
    )
    _io_arguments(g)
    g.add_argument("--blocks", type=int, help="total residual blocks (at least the net's)")
    g.add_argument("--channels", type=int, help="trunk width (at least the net's)")
    g.add_argument("--kernel-size", type=int, help="odd spatial kernel size (at least the net's)")
    g.add_argument(
        "--noise",
        type=float,
        default=0.0,
        help="std of noise on the new weights that start at zero (default 0: the same function)",
    )
    g.add_argument("--seed", type=int, default=None, help="seed of the new weights and the noise")
    g.set_defaults(func=run_grow, command_name="transfer grow")

    c = commands.add_parser(
        "composite",
        help="a frozen small-board net inside a learned net for a bigger board (ZetaGo)",
        description="Build Painter & Johnston's composite network for --big-size boards "
        "around the (frozen) net in --in.",
    )
    _io_arguments(c)
    c.add_argument("--big-size", type=int, required=True, help="board size of the composite")
    c.add_argument(
        "--small-size",
        type=int,
        help="board size the input net was trained on (default: from the agent's card or the checkpoint's config)",
    )
    c.add_argument("--downscalings", type=int, default=4, help="learned global downscalings N (paper: 32)")
    c.add_argument("--features", type=int, default=32, help="channels of the new big-board feature layers")
    c.add_argument("--feature-layers", type=int, default=5, help="new big-board feature layers")
    c.add_argument("--head-layers", type=int, default=3, help="conv layers after the concatenation")
    c.add_argument("--head-channels", type=int, default=32, help="their channels")
    c.add_argument("--seed", type=int, default=None, help="seed of the new weights")
    c.set_defaults(func=run_composite, command_name="transfer composite")
    from zerogym_agents.cli.transfer_run import add_run_parser

    add_run_parser(commands)
    return commands


def _io_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--in", dest="src", required=True, metavar="FILE", help="a net file, saved agent or checkpoint")
    p.add_argument("--out", required=True, metavar="FILE", help="where to write the result")


def write_result(path: str, net: torch.nn.Module, agent: dict[str, Any] | None, card: dict[str, Any]) -> None:
    """save_agent (with the input agent's options and this model card) when the input was an
    agent, else save_net."""
    from zerogym_agents.nets import save_net
    from zerogym_agents.agents.saved import save_agent

    if agent is None:
        save_net(net, path)
    else:
        save_agent(path, net, agent["options"], card, kind=agent["kind"])


def max_change(a: PolicyValueNet, b: PolicyValueNet, size: int, seed: int = 0) -> tuple[float, float]:
    """The largest difference of policy logits and of values between nets a and b on random boards."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    x = (torch.rand(16, a.config.in_planes, size, size, generator=gen) < 0.3).float()
    with torch.no_grad():
        (la, va), (lb, vb) = a.eval()(x), b.eval()(x)
    return float((la - lb).abs().max()), float((va - vb).abs().max())


def plain_net(net: PolicyNet, src: str) -> PolicyValueNet:
    """`net` when it is a PolicyValueNet (what growth and the composite start from), else ValueError."""
    from zerogym_agents.nets import PolicyValueNet

    if not isinstance(net, PolicyValueNet):
        raise ValueError(
            f"{src} holds a {type(net).__name__}; growth and the composite start from a plain PolicyValueNet"
        )
    return net


def run_grow(args: argparse.Namespace) -> None:
    from zerogym_agents.transfer.grow import grow
    from zerogym_agents.transfer.sources import read_source

    if args.blocks is None and args.channels is None and args.kernel_size is None:
        raise ValueError("give at least one of --blocks, --channels, --kernel-size")
    try:
        net, agent, game, kwargs = read_source(args.src)
        net = plain_net(net, args.src)
        options = {name: getattr(args, name) for name in ("blocks", "channels", "kernel_size", "noise", "seed")}
        grown = grow(net, **options)
    # ValueError and OSError: one line through zerogym_agents.cli.main.user_error
    except (TypeError, KeyError) as err:
        raise ValueError(f"{args.src}: {err}") from err
    change = max_change(net, grown, 9)
    card = dict(agent["card"]) if agent else {}
    previous = card.get("transfer")
    card.update(
        net=grown.config.to_dict(),
        parameters=grown.num_parameters(),
        transfer={
            "operation": "grow",
            "from": args.src,
            "from_net": net.config.to_dict(),
            "noise": args.noise,
            "seed": args.seed,
            **({"previous": previous} if previous else {}),
        },
    )
    write_result(args.out, grown, agent, card)
    print(
        f"{net.describe()} -> {grown.describe()}\n"
        f"largest change on random 9x9 boards: policy logits {change[0]:.2e}, value {change[1]:.2e}\n"
        f"written to {args.out}"
    )


def run_composite(args: argparse.Namespace) -> None:
    import torch
    from zerogym_agents.nets.composite import CompositeNet
    from zerogym_agents.transfer.sources import read_source, board_size_of

    try:
        net, agent, game, kwargs = read_source(args.src)
        net = plain_net(net, args.src)
        small = args.small_size
        if small is None:
            if kwargs is None:
                raise ValueError(f"{args.src} does not say which board size its net was trained on: give --small-size")
            small = board_size_of(game, kwargs)
        with torch.random.fork_rng(devices=[]):
            if args.seed is not None:
                torch.manual_seed(args.seed)
            comp = CompositeNet(
                net,
                args.big_size,
                small_size=small,
                downscalings=args.downscalings,
                features=args.features,
                feature_layers=args.feature_layers,
                head_layers=args.head_layers,
                head_channels=args.head_channels,
            ).eval()
        if game is not None:
            big_kwargs = {**(kwargs or {}), "board_size": args.big_size}
            comp.config.check_game(game, big_kwargs)
    # ValueError and OSError: one line through zerogym_agents.cli.main.user_error
    except (TypeError, KeyError) as err:
        raise ValueError(f"{args.src}: {err}") from err
    # the card's other entries (training, results) describe the small-board agent: kept under "transfer"
    card = {
        "net": comp.config.to_dict(),
        "parameters": comp.num_parameters(),
        "transfer": {
            "operation": "composite",
            "from": args.src,
            "small_size": small,
            "big_size": args.big_size,
            "source_card": agent["card"] if agent else None,
        },
    }
    if game is not None:
        card.update(game=game, kwargs=big_kwargs)
    write_result(args.out, comp, agent, card)
    print(f"{comp.describe()}\nwritten to {args.out}")
