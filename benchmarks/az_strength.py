"""AlphaZero trained from scratch on one game, its Elo against fixed baselines over training, and a
final match; the trained agent is saved with a model card (optionally into the package's pretrained/).

    python benchmarks/az_strength.py --game tictactoe [--steps 300] [--eval-every 50] [--final-games 200]
                                     [--save-pretrained tictactoe]
    python benchmarks/az_strength.py --game connect_four --minutes 15 --workers 2 --set search=gumbel \
                                     --opening-moves 2 --label connect_four_15min
    python benchmarks/az_strength.py --game go_9x9 --minutes 80 --workers 2 --set search=gumbel \
                                     simulations=32 ownership_weight=1.5 score_weight=0.5 --opening-moves 2

The go_9x9 preset trains pretrained:go_9x9 further and ends with GNU Go level 10 (needs `gnugo`).

--workers N plays self-play on N Ray workers (the ray backend, async) while this process trains; a
step is then one worker's task (steps_per_task search steps), so --steps and --eval-every count tasks.
--set overrides the preset's training settings (AlphaZeroConfig fields, values read as JSON).
--opening-moves K starts every pair of evaluation games from the same K random moves, colours swapped.
--train-only trains and saves the agent without playing a match (for a machine without the
opponents: GNU Go, say); --final-only AGENT skips training and plays the final matches of a saved
agent (one trained on another machine, say) with the seeds a run of the same --seed would use and
the preset's simulations a move; writes az_strength_<label>_final.md, and with --save-pretrained
saves the agent into the package, the results added to its model card.

Writes benchmarks/results/az_strength_<label>.md and .png (label: the preset by default), the run
(checkpoints, TensorBoard logs) under runs/az-strength-<label>/.
"""

import argparse
import os
import sys

import matplotlib
import numpy as np
import torch

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from zerogym_agents.alphazero.config import AlphaZeroConfig  # noqa: E402
from zerogym_agents.alphazero.recipes import PRESETS  # noqa: E402
from zerogym_agents.alphazero.trainer import AlphaZeroTrainer  # noqa: E402
from zerogym_agents.arena.elo import fit_elo  # noqa: E402
from zerogym_agents.arena.match import play_match  # noqa: E402
from zerogym_agents.core.config_io import parse_kwargs  # noqa: E402
from zerogym_agents.nets import net_from_payload  # noqa: E402
from zerogym_agents.agents.saved import PRETRAINED_DIR, read_agent, save_agent  # noqa: E402
from zerogym_agents.agents.search import AlphaZeroAgent  # noqa: E402
from zerogym_agents.agents.specs import agent_from_spec  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def baseline(name, seed):
    return agent_from_spec(name, seed=seed)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="tictactoe", choices=sorted(PRESETS), help="a preset: game and board size")
    ap.add_argument("--steps", type=int, default=None, help="self-play search steps (default: the preset's)")
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--eval-games", type=int, default=20, help="games against each baseline per evaluation")
    ap.add_argument("--final-games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save-pretrained", default=None, metavar="NAME", help="also save as pretrained:NAME")
    ap.add_argument(
        "--minutes",
        type=float,
        default=None,
        help="stop training after this much training time (the learning rate then anneals over it)",
    )
    ap.add_argument("--workers", type=int, default=None, help="self-play on this many Ray workers")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="training settings over the preset's")
    ap.add_argument(
        "--ray",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="RayConfig settings with --workers, e.g. samples_per_position=8",
    )
    ap.add_argument(
        "--opening-moves",
        type=int,
        default=0,
        metavar="K",
        help="random opening moves of the evaluation games (default 0)",
    )
    ap.add_argument("--label", default=None, help="names the results and the run folder (default: --game)")
    ap.add_argument("--final-only", metavar="AGENT", help="no training: the final matches of this saved agent")
    ap.add_argument(
        "--train-only",
        action="store_true",
        help="no matches: train and save the agent (for a "
        "machine without the opponents, GNU Go say; play them later with --final-only)",
    )
    args = ap.parse_args(argv)
    args.label = args.label or args.game
    if args.final_only and args.train_only:
        ap.error("--final-only and --train-only exclude each other")
    if args.ray and not args.workers:
        ap.error("--ray sets the Ray workers' config: give --workers too")
    preset = PRESETS[args.game]
    if args.final_only:
        return final_only(args, preset, " ".join(sys.argv[1:] if argv is None else argv))
    steps = args.steps or preset["steps"]
    game, kwargs = preset["game"], preset["kwargs"]
    config = {**preset["config"], **parse_kwargs(args.set)}
    cfg = AlphaZeroConfig(
        game=game, game_kwargs=kwargs, max_steps=steps, checkpoint_every=args.eval_every, seed=args.seed, **config
    )
    run_dir = os.path.join("runs", f"az-strength-{args.label}")
    if args.workers:
        from zerogym_agents.scale.alphazero import RayAlphaZeroTrainer

        trainer = RayAlphaZeroTrainer(cfg, run_dir, ray_config={**parse_kwargs(args.ray), "workers": args.workers})
    else:
        trainer = AlphaZeroTrainer(cfg, run_dir)
    sims, opening = preset["sims"], args.opening_moves
    play = {"simulations": sims, **({"decisive_moves": True} if cfg.decisive_moves else {})}  # as in training
    outcomes, curve, t_train = [], [], 0.0
    for i, a in enumerate(() if args.train_only else preset["baselines"]):  # the baselines against each other
        for b in preset["baselines"][i + 1 :]:
            outcomes += play_match(
                baseline(a, 1), baseline(b, 2), game, kwargs, games=args.eval_games, seed=args.seed, names=(a, b)
            ).outcomes()
    budget = None if args.minutes is None else 60.0 * args.minutes
    trainer.time_budget = budget  # the learning rate then anneals over the minutes, not the steps
    while trainer.step < steps and (budget is None or t_train < budget):
        t_train += trainer.train_for(args.eval_every, t_train, None if budget is None else budget - t_train)
        if args.train_only:
            continue
        name = f"az@{trainer.step}"
        for b in preset["baselines"]:
            agent = AlphaZeroAgent(trainer.net, seed=trainer.step, **play)
            outcomes += play_match(
                agent,
                baseline(b, 3),
                game,
                kwargs,
                games=args.eval_games,
                seed=args.seed + trainer.step,
                names=(name, b),
                opening_moves=opening,
            ).outcomes()
        elo = fit_elo(outcomes, anchor="random")
        curve.append((trainer.step, t_train, elo.rating(name), *elo.interval(name)))
        print(f"step {trainer.step}: {t_train:.0f} s of training, Elo {curve[-1][2]:+.0f} (random = 0)", flush=True)
    if args.workers:
        trainer.close()
    matches = [] if args.train_only else final_matches(trainer.net, play, preset, args)
    cmd = "python benchmarks/az_strength.py " + " ".join(sys.argv[1:] if argv is None else argv)
    card = {
        "game": game,
        "kwargs": kwargs,
        "net": trainer.net.config.to_dict(),
        "parameters": trainer.net.num_parameters(),
        "training": {
            "steps": trainer.step,
            "self_play_games": trainer.games,
            "positions": trainer.positions,
            "train_steps": trainer.train_steps,
            "seconds": round(t_train, 1),
            "config": cfg.to_dict(),
        },
        "results": match_results(matches),
        "simulations_per_move": sims,
        "command": cmd,
    }
    save_agent(os.path.join(run_dir, "agent.pt"), trainer.net, play, card)
    if args.save_pretrained:
        save_agent(os.path.join(PRETRAINED_DIR, f"{args.save_pretrained}.pt"), trainer.net, play, card)
    write_results(args, cmd, cfg, trainer, t_train, sims, curve, matches)


def final_matches(net, play, preset, args):
    """[the final match against the preset's final opponent (--final-games), then half as many games
    against each other baseline]; the seeds depend on --seed alone."""
    game, kwargs, opening = preset["game"], preset["kwargs"], args.opening_moves
    final = play_match(
        AlphaZeroAgent(net, seed=7, **play),
        baseline(preset["final"], 8),
        game,
        kwargs,
        games=args.final_games,
        seed=args.seed + 1,
        names=("alphazero", preset["final"]),
        opening_moves=opening,
    )
    others = {
        b: play_match(
            AlphaZeroAgent(net, seed=9, **play),
            baseline(b, 10),
            game,
            kwargs,
            games=args.final_games // 2,
            seed=args.seed + 2,
            names=("alphazero", b),
            opening_moves=opening,
        )
        for b in preset["baselines"]
        if b != preset["final"]
    }
    return [final, *others.values()]


def final_only(args, preset, argv_text):
    """--final-only: the final matches of a saved agent, played as the run would have played them
    (the preset's simulations a move, the agent's other saved play options), written to
    az_strength_<label>_final.md; with --save-pretrained the agent is saved into the package with
    those options and its card gains the results and this command."""
    path, saved = read_agent(args.final_only)
    net = net_from_payload(saved["net"], source=path, game=preset["game"], game_kwargs=preset["kwargs"]).eval()
    play = {**saved["options"], "simulations": preset["sims"]}
    matches = final_matches(net, play, preset, args)
    if args.save_pretrained:
        card = {
            **saved["card"],
            "results": match_results(matches),
            "simulations_per_move": preset["sims"],
            "command": saved["card"].get("command", f"(trained elsewhere: {args.final_only})"),
            "final_command": f"python benchmarks/az_strength.py {argv_text}",
        }
        save_agent(os.path.join(PRETRAINED_DIR, f"{args.save_pretrained}.pt"), net, play, card)
    lines = [
        f"# AlphaZero strength, final matches only: {args.label}",
        "",
        f"Made by `python benchmarks/az_strength.py {argv_text}` on a machine with {os.cpu_count()} CPU cores, "
        f"from `{args.final_only}` (played with {play}).",
        "",
        *match_table(matches),
    ]
    out = os.path.join(HERE, "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"az_strength_{args.label}_final.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return matches


def match_results(matches):
    """The model card's results: per opponent, AlphaZero's W-D-L moving first and second."""
    return {f"vs {m.agent_b}": {"first": vars(m.a_first), "second": vars(m.b_first)} for m in matches}


def wdl(x):
    return f"{x.wins}-{x.draws}-{x.losses}"


def match_table(matches):
    """Markdown rows: each match's W-D-L with AlphaZero first, second and in all."""
    return [
        "| opponent | AlphaZero first (W-D-L) | AlphaZero second (W-D-L) | total (W-D-L) |",
        "|---|---|---|---|",
        *(f"| {m.agent_b} | {wdl(m.a_first)} | {wdl(m.b_first)} | {wdl(m.total)} |" for m in matches),
    ]


def write_results(args, cmd, cfg, trainer, t_train, sims, curve, matches):
    out = os.path.join(HERE, "results")
    os.makedirs(out, exist_ok=True)
    where = f"on {args.workers} Ray worker{'s' * (args.workers > 1)}" if args.workers else "in the training process"
    gpu = (
        "no GPU used" if trainer.device.type != "cuda" else f"the net on a {torch.cuda.get_device_name(trainer.device)}"
    )
    lines = [
        f"# AlphaZero strength: {args.label}",
        "",
        f"Made by `{cmd}` on a machine with {os.cpu_count()} CPU cores ({gpu}).",
        "",
        f"Training: {trainer.games} self-play games, {trainer.positions} positions, {trainer.train_steps} SGD "
        f"steps, {t_train:.0f} s of training wall time, self-play {where}; net {trainer.net.config.trunk} "
        f"{trainer.net.config.blocks}x{trainer.net.config.channels} ({trainer.net.num_parameters()} parameters); "
        f"{sims} simulations per move when playing{' (decisive moves)' * cfg.decisive_moves}.",
        "",
    ]
    if matches:
        lines += match_table(matches)
    else:
        agent = os.path.join("runs", f"az-strength-{args.label}", "agent.pt")
        lines.append(f"No matches were played (--train-only): play the final ones with `--final-only {agent}`.")
    if curve:
        plot_curve(args, curve, os.path.join(out, f"az_strength_{args.label}.png"))
        lines += [
            "",
            "Elo over training (maximum likelihood over every evaluation game, random = 0, 95% interval):",
            "",
            "| step | training s | Elo | interval |",
            "|---|---|---|---|",
        ]
        lines += [f"| {int(s)} | {t:.0f} | {e:+.0f} | {a:+.0f} .. {b:+.0f} |" for s, t, e, a, b in curve]
        lines += ["", f"![curve](az_strength_{args.label}.png)"]
    lines += ["", "Config:", "", "```json", cfg.to_json(), "```", ""]
    if args.workers:
        lines += ["Ray config:", "", "```json", trainer.ray_cfg.to_json(), "```", ""]
    with open(os.path.join(out, f"az_strength_{args.label}.md"), "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines[:12]))


def plot_curve(args, curve, path):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    steps, secs, elo, lo, hi = np.array(curve).T
    ax.plot(secs, elo, marker="o", label="AlphaZero")
    ax.fill_between(secs, lo, hi, alpha=0.2)
    ax.set_xlabel("training wall time (s)")
    ax.set_ylabel("Elo (random = 0)")
    ax.set_title(f"AlphaZero on {args.game}: Elo against fixed baselines")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    main()
