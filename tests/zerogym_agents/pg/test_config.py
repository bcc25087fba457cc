"""PGConfig: defaults are valid, bad values are refused with the field and what is allowed."""

import json

import pytest

from zerogym_agents.pg.config import PGConfig


def test_defaults_round_trip_through_json():
    cfg = PGConfig(algo="ppo", game="tictactoe", game_kwargs={"board_size": 4}, lr=0.01)
    back = PGConfig.from_json(cfg.to_json())
    assert back == cfg
    assert json.loads(cfg.to_json())["game_kwargs"] == {"board_size": 4}
    assert cfg.net_config().game == "tictactoe" and cfg.net_config().in_planes == 3
    assert cfg.lr_final == 0.01  # not given: the rate stays constant
    assert PGConfig.from_dict({"lr": 0.01, "lr_final": 0.001}).lr_final == 0.001


@pytest.mark.parametrize(
    "field,value,message",
    [
        ("algo", "a2c", r"PGConfig.algo must be one of 'reinforce', 'reinforce-baseline', 'ppo', got 'a2c'"),
        ("lr", 0, r"PGConfig.lr must be a number > 0, got 0"),
        ("lr", "fast", r"PGConfig.lr must be a number > 0"),
        ("lr_final", -1e-3, r"PGConfig.lr_final must be a number >= 0, got -0.001"),
        ("gamma", 1.5, r"PGConfig.gamma must be a number > 0 and <= 1, got 1.5"),
        ("num_envs", 0, r"PGConfig.num_envs must be an integer >= 1, got 0"),
        ("num_envs", 2.5, r"PGConfig.num_envs must be an integer >= 1, got 2.5"),
        ("max_steps", True, r"PGConfig.max_steps must be an integer >= 1, got True"),
        ("entropy_coef", -0.1, r"PGConfig.entropy_coef must be a number >= 0"),
        ("augment", "flip", r"PGConfig.augment must be one of 'random', 'all', 'none'"),
        ("pool_mode", "best", r"PGConfig.pool_mode must be one of 'uniform', 'elo'"),
        ("snapshot_unit", "games", r"PGConfig.snapshot_unit must be one of 'episodes', 'steps'"),
        ("optimizer", "rmsprop", r"PGConfig.optimizer must be one of 'adam', 'sgd'"),
        ("opponent_greedy", "yes", r"PGConfig.opponent_greedy must be true or false"),
        ("ppo_batch_size", 1, r"PGConfig.ppo_batch_size must be an integer >= 2"),
        ("seed", -1, r"PGConfig.seed must be an integer >= 0"),
        ("batchnorm", "renorm", r"PGConfig.batchnorm must be one of 'auto', 'batch', 'frozen'"),
        ("game", "chess", r"PGConfig.game must be one of 'go', .*got 'chess'"),
    ],
)
def test_bad_values_name_the_field_and_what_is_allowed(field, value, message):
    with pytest.raises(ValueError, match=message):
        PGConfig(**{field: value})


def test_bad_game_kwargs_and_net_fields():
    with pytest.raises(
        ValueError,
        match=r"game_kwargs: tictactoe has no kwargs \['board'\]; allowed: board_size, "
        r"win_length",
    ):
        PGConfig(game="tictactoe", game_kwargs={"board": 3})
    with pytest.raises(ValueError, match=r"game_kwargs: .*board_size must be in 2..25, got 1"):
        PGConfig(game="tictactoe", game_kwargs={"board_size": 1})
    with pytest.raises(ValueError, match=r"PGConfig.net: unknown NetConfig fields \['layers'\]; known: .*blocks"):
        PGConfig(net={"layers": 3})
    with pytest.raises(ValueError, match=r"PGConfig.net: .*trunk must be one of 'resnet', 'mobilenet'"):
        PGConfig(net={"trunk": "vit"})
    with pytest.raises(ValueError, match=r"unknown PGConfig fields \['learning_rate'\]; known: .*lr"):
        PGConfig.from_dict({"learning_rate": 0.1})


def test_batchnorm_auto_means_batch_statistics_for_reinforce_and_frozen_for_ppo():
    assert PGConfig(algo="reinforce").batch_stats() and PGConfig(algo="reinforce-baseline").batch_stats()
    assert not PGConfig(algo="ppo").batch_stats()
    assert PGConfig(algo="ppo", batchnorm="batch").batch_stats()
    assert not PGConfig(algo="reinforce", batchnorm="frozen").batch_stats()


def test_the_entropy_bonus_is_the_same_for_every_algorithm_and_an_explicit_one_stays():
    assert {PGConfig(algo=a).entropy_coef for a in ("reinforce", "reinforce-baseline", "ppo")} == {0.05}
    assert PGConfig(algo="ppo", entropy_coef=0.2).entropy_coef == 0.2
    assert PGConfig.from_json(PGConfig(algo="ppo", entropy_coef=0.2).to_json()).entropy_coef == 0.2
