"""The recipes of the shipped AlphaZero agents: per preset, the game, its kwargs, the training settings
(AlphaZeroConfig fields over the defaults), the search steps, the simulations a move when playing, the
baselines measured during training and the final opponent. benchmarks/az_strength.py trains them
(each model card in pretrained/ names its command); other benchmarks reuse them.
"""

from __future__ import annotations

from typing import Any

from zerogym_agents.alphazero.config import AlphaZeroConfig

NET = {"trunk": "resnet", "blocks": 4, "channels": 32, "value_loss": "bce", "value_activation": "leaky_relu"}


# about an hour of training on 2 cores: the settings over AlphaZeroConfig's defaults
HOUR_CONFIG: dict[str, Any] = dict(
    concurrent_games=128,
    simulations=64,
    batch_size=256,
    min_buffer=4096,
    buffer_size=200_000,
    lr=0.02,
    lr_final=0.002,
    temperature_moves=6,
    pool_fraction=0.0,
    net=NET,
)


def hour_preset(game: str, kwargs: dict[str, Any], **config: Any) -> dict[str, Any]:
    """About an hour of training on 2 cores (6,000 search steps of 128 games), 400 simulations a move
    when playing, UCT(1000) as the final opponent; `config` overrides the training settings."""
    baselines = ("random", "greedy", "uct:200")
    config = {**HOUR_CONFIG, **config}
    return dict(game=game, kwargs=kwargs, config=config, steps=6000, sims=400, baselines=baselines, final="uct:1000")


# per game: training config overrides, evaluation simulations, baselines, final opponent
PRESETS = {
    "tictactoe": dict(
        game="tictactoe",
        kwargs={},
        config=dict(
            concurrent_games=64,
            simulations=32,
            batch_size=128,
            min_buffer=512,
            pool_fraction=0.0,
            net={"trunk": "resnet", "blocks": 2, "channels": 32, "value_loss": "bce", "value_activation": "leaky_relu"},
        ),
        steps=300,
        sims=64,
        baselines=("random", "greedy", "minimax"),
        final="minimax",
    ),
    "connect_four": hour_preset("connect_four", {}),
    "othello_6x6": hour_preset("othello", {"board_size": 6}, temperature_moves=8, dirichlet_alpha=0.5),
    "go_5x5": hour_preset("go", {"board_size": 5}, dirichlet_alpha=0.5, pool_fraction=AlphaZeroConfig.pool_fraction),
    "breakthrough_6x6": hour_preset("breakthrough", {"rows": 6, "cols": 6}, dirichlet_alpha=0.5),
    "havannah_4": hour_preset("havannah", {"board_size": 4}, dirichlet_alpha=0.3),
    # Hex with the swap rule: the small board of the size-transfer experiments
    "hex_7x7": hour_preset("hex", {"board_size": 7, "swap": True}, dirichlet_alpha=0.2),
    # more training for the shipped 9x9 Go agent (itself pretrained:go_5x5 fine-tuned on 9x9), judged by GNU Go
    "go_9x9": dict(
        hour_preset(
            "go",
            {"board_size": 9},
            init_from="pretrained:go_9x9",
            dirichlet_alpha=0.15,
            temperature_moves=10,
            no_pass_fraction=0.3,
        ),
        baselines=("random", "uct:1000", "gnugo:1"),
        final="gnugo:10",
    ),
}

QUICK_STEPS = 600  # a tenth of an hour recipe: about ten minutes of Connect Four on 2 cores


def starting_settings(game: str) -> dict[str, Any]:
    """The settings `zerogym train alphazero --game GAME` starts from, over AlphaZeroConfig's defaults: the
    training settings of the game's first recipe (its net, buffer, learning rate, noise), for the recipe's
    steps (Tic-tac-toe: 300, under a minute on 2 cores) or QUICK_STEPS of an hour recipe, a checkpoint
    every 100 steps. A useful agent in minutes on a laptop; {} for a game without a recipe."""
    for preset in PRESETS.values():
        if preset["game"] == game and "init_from" not in preset["config"]:
            steps = min(preset["steps"], QUICK_STEPS)
            return {**preset["config"], "max_steps": steps, "checkpoint_every": min(100, steps)}
    return {}
