"""`zerogym train pg`: short REINFORCE and PPO runs, resume, arena on the saved agent, clear refusals."""

import json
import os

import pytest

from zerogym_agents.cli import main as cli
from zerogym_agents.agents.policy import PolicyAgent
from zerogym_agents.agents.saved import load_agent, load_card
from tiny_runs import NET as TINY_NET, pg_config

NET = "net=" + json.dumps(TINY_NET)


def train(out, *extra, algo="reinforce", steps=2):
    cli.main(
        [
            "train",
            "pg",
            "--algo",
            algo,
            "--game",
            "tictactoe",
            "--set",
            "num_envs=4",
            f"max_steps={steps}",
            "checkpoint_every=1",
            "ppo_n_steps=8",
            "ppo_batch_size=16",
            "ppo_epochs=1",
            NET,
            "--out",
            str(out),
            "--no-progress",
            *extra,
        ]
    )


@pytest.mark.parametrize("algo", ["reinforce", "ppo"])
def test_a_short_run_from_the_command_line_then_resume_and_arena(tmp_path, capsys, algo):
    out = tmp_path / "run"
    train(out, algo=algo)
    assert f"{algo} tictactoe: 2 updates" in capsys.readouterr().out
    assert json.loads((out / "config.json").read_text())["algo"] == algo
    assert any(f.startswith("events") for f in os.listdir(out / "tb"))
    assert (out / "training.png").stat().st_size > 0
    assert isinstance(load_agent(str(out / "agent.pt")), PolicyAgent)
    assert load_card(str(out / "agent.pt"))["training"]["steps"] == 2
    train(out, "--resume", algo=algo, steps=3)
    assert f"{algo} tictactoe: 3 updates" in capsys.readouterr().out
    assert load_card(str(out / "agent.pt"))["training"]["steps"] == 3
    cli.main(
        [
            "arena",
            "--game",
            "tictactoe",
            "--agents",
            str(out / "agent.pt"),
            "random",
            "--games",
            "2",
            "--no-progress",
            "--out",
            str(tmp_path / "arena"),
        ]
    )
    assert str(out / "agent.pt") in capsys.readouterr().out


def test_config_file_and_flags_combine(tmp_path, capsys):
    (tmp_path / "c.json").write_text(json.dumps({"algo": "ppo", "seed": 4, "max_steps": 99}))
    train(tmp_path / "run", "--config", str(tmp_path / "c.json"), steps=1)  # --algo and --set win over the file
    saved = json.loads((tmp_path / "run" / "config.json").read_text())
    assert (saved["algo"], saved["seed"], saved["max_steps"]) == ("reinforce", 4, 1)


def test_game_kwargs_of_the_config_file_hold_unless_kwargs_are_given(tmp_path, capsys):
    (tmp_path / "c.json").write_text(json.dumps({"game_kwargs": {"board_size": 4, "win_length": 3}}))
    train(tmp_path / "file", "--config", str(tmp_path / "c.json"), steps=1)
    train(tmp_path / "both", "--config", str(tmp_path / "c.json"), "--kwargs", "board_size=5", steps=1)
    kwargs = {r: json.loads((tmp_path / r / "config.json").read_text())["game_kwargs"] for r in ("file", "both")}
    assert kwargs == {"file": {"board_size": 4, "win_length": 3}, "both": {"board_size": 5}}


def test_bad_input_exits_with_a_clear_message(tmp_path):
    with pytest.raises(SystemExit, match=r"zerogym train pg: error: PGConfig.lr must be a number > 0, got -1"):
        train(tmp_path, "--set", "lr=-1")
    with pytest.raises(SystemExit, match=r"no kwargs \['size'\]; allowed: board_size, win_length"):
        train(tmp_path, "--kwargs", "size=3")
    with pytest.raises(SystemExit, match=r"checkpoint.pt: no such file"):
        train(tmp_path / "nothing", "--resume")
    with pytest.raises(SystemExit) as e:
        cli.main(["train", "pg", "--algo", "a3c", "--game", "go"])
    assert e.value.code == 2  # argparse: invalid choice


@pytest.mark.parametrize("algo", ["reinforce-baseline", "ppo"])
def test_init_from_starts_on_another_board_size_with_the_files_net(tmp_path, capsys, algo):
    """A Go 5x5 agent's net (2 blocks of 8 channels) starts a Go 7x7 run: the run trains that shape,
    not the config's, from exactly those weights; a resume keeps going from the checkpoint."""
    import torch
    from zerogym_agents.nets import PolicyValueNet, for_game, load_net
    from zerogym_agents.pg.config import PGConfig
    from zerogym_agents.pg.trainers import make_trainer
    from zerogym_agents.agents.saved import save_agent

    torch.manual_seed(1)
    small = PolicyValueNet(for_game("go", game_kwargs={"board_size": 5}, trunk="resnet", blocks=2, channels=8))
    save_agent(tmp_path / "go5.pt", small, {"simulations": 8}, {"game": "go", "kwargs": {"board_size": 5}})
    game = dict(game="go", game_kwargs={"board_size": 7}, num_envs=2, init_from=str(tmp_path / "go5.pt"))
    ppo = dict(ppo_n_steps=8, ppo_batch_size=8, ppo_epochs=1)
    cfg = pg_config(game, ppo, algo=algo, net=dict(TINY_NET, channels=4), max_steps=1, checkpoint_every=1)
    trainer = make_trainer(cfg, tmp_path / "run", log_dir=False)
    assert (trainer.net.config.blocks, trainer.net.config.channels) == (2, 8)
    assert trainer.net.config.value_activation == "relu"  # net names none: the file's
    leaky = make_trainer(
        PGConfig.from_dict({**cfg.to_dict(), "net": {"value_activation": "leaky_relu"}}),
        tmp_path / "leaky",
        log_dir=False,
    )
    assert leaky.net.config.value_activation == "leaky_relu"
    for k, v in small.state_dict().items():
        assert torch.equal(trainer.net.state_dict()[k].cpu(), v.cpu()), k
    trainer.run(progress=False)
    trained = load_net(tmp_path / "run" / "agent.pt")
    assert any(not torch.equal(trained.state_dict()[k], v) for k, v in small.state_dict().items())
    resumed = make_trainer(
        PGConfig.from_dict({**cfg.to_dict(), "max_steps": 2}), tmp_path / "run", resume=True, log_dir=False
    )
    assert resumed.step == 1
    for k, v in trained.state_dict().items():
        assert torch.equal(resumed.net.state_dict()[k].cpu(), v), k


def test_init_from_on_the_command_line_and_its_refusals(tmp_path, capsys):
    train(tmp_path / "run", "--init-from", "pretrained:tictactoe", steps=1)
    assert "reinforce tictactoe: 1 updates" in capsys.readouterr().out
    from zerogym_agents.nets import load_net

    shipped = load_net("pretrained:tictactoe")
    assert load_net(tmp_path / "run" / "agent.pt").config.channels == shipped.config.channels
    with pytest.raises(SystemExit, match="no network file at .*missing.pt"):
        train(tmp_path / "run2", "--init-from", str(tmp_path / "missing.pt"), steps=1)
    with pytest.raises(SystemExit, match="connect_four"):  # a net of another game
        train(tmp_path / "run3", "--init-from", "pretrained:connect_four", steps=1)
    with pytest.raises(SystemExit, match="PolicyValueNets only"):
        from zerogym_agents.nets import PolicyValueNet, for_game
        from zerogym_agents.nets.composite import CompositeNet
        from zerogym_agents.agents.saved import save_agent

        small = PolicyValueNet(for_game("go", game_kwargs={"board_size": 3}, trunk="resnet", blocks=1, channels=4))
        comp = CompositeNet(
            small, 5, small_size=3, downscalings=1, features=4, feature_layers=1, head_layers=1, head_channels=4
        )
        save_agent(tmp_path / "comp.pt", comp, {"simulations": 4}, {"game": "go", "kwargs": {"board_size": 5}})
        cli.main(
            [
                "train",
                "pg",
                "--game",
                "go",
                "--kwargs",
                "board_size=5",
                "--init-from",
                str(tmp_path / "comp.pt"),
                "--set",
                "num_envs=2",
                "max_steps=1",
                "--out",
                str(tmp_path / "run4"),
                "--no-progress",
            ]
        )
    assert not (tmp_path / "run4" / "checkpoint.pt").exists()


def test_the_summary_says_so_when_no_game_finished(tmp_path, capsys):
    cli.main(
        [
            "train",
            "pg",
            "--algo",
            "ppo",
            "--game",
            "go",
            "--kwargs",
            "board_size=9",
            "--set",
            "max_steps=1",
            "num_envs=2",
            "ppo_n_steps=8",
            "ppo_batch_size=16",
            "ppo_epochs=1",
            "--no-progress",
            "--out",
            str(tmp_path / "run"),
        ]
    )
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert "0 games" in line and "last win rate vs pool -," in line and "nan" not in line


# ---- what a new user reads and mistypes: the settings in --help, --set's words ----------------------------------


@pytest.mark.parametrize("algo", ["alphazero", "pg"])
def test_train_help_lists_every_config_field_with_its_default_bounds_and_doc(capsys, algo):
    import dataclasses

    from zerogym_agents.alphazero.config import AlphaZeroConfig
    from zerogym_agents.pg.config import PGConfig

    config = {"alphazero": AlphaZeroConfig, "pg": PGConfig}[algo]
    with pytest.raises(SystemExit) as e:
        cli.main(["train", algo, "--help"])
    assert e.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for f in dataclasses.fields(config):
        assert f.metadata["doc"] and " ".join(f.metadata["doc"].split()) in text, f.name
        assert f"({f.metadata['check'].what})" in text, f.name
    assert (
        "simulations = 100 (an integer >= 1)" in text
        if algo == "alphazero"
        else "lr_final = null (None or a number >= 0)" in text
    )


@pytest.mark.parametrize(
    "words, says",
    [
        (
            ["simulations"],
            "zerogym train alphazero: error: --set takes key=value words (or one JSON object), got "
            "'simulations': write simulations=VALUE",
        ),
        (
            ["simulatons=3"],
            "zerogym train alphazero: error: unknown AlphaZeroConfig field 'simulatons' (did you mean simulations?)",
        ),
    ],
)
def test_set_mistakes_say_what_set_takes_and_suggest_the_field(tmp_path, capsys, words, says):
    with pytest.raises(SystemExit) as e:
        cli.main(["train", "alphazero", "--game", "tictactoe", "--set", *words, "--out", str(tmp_path / "run")])
    assert e.value.code == 2
    assert capsys.readouterr().err.strip() == says
    assert not (tmp_path / "run").exists()


def test_a_ray_set_mistake_names_ray_set(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(
            [
                "train",
                "pg",
                "--game",
                "tictactoe",
                "--backend",
                "ray",
                "--ray-set",
                "workers",
                "--out",
                str(tmp_path / "run"),
            ]
        )
    assert e.value.code == 2 and "error: --ray-set takes key=value words" in capsys.readouterr().err


def test_a_game_starts_from_its_recipe_and_the_layers_above_override_it():
    from zerogym_agents.alphazero.config import AlphaZeroConfig
    from zerogym_agents.alphazero.recipes import PRESETS, starting_settings
    from zerogym_agents.cli.main import parser
    from zerogym_agents.cli.train import alphazero_config

    parse = parser().parse_args
    ttt = alphazero_config(parse(["train", "alphazero", "--game", "tictactoe"]))
    recipe = PRESETS["tictactoe"]["config"]
    assert ttt.simulations == recipe["simulations"] and ttt.net == recipe["net"]
    assert ttt.max_steps == PRESETS["tictactoe"]["steps"] <= 300 and ttt.checkpoint_every <= ttt.max_steps
    # every game has starting settings shorter than an hour's recipe, and every field is a real one
    for game in ("go", "othello", "hex", "connect_four", "havannah", "breakthrough"):
        start = starting_settings(game)
        assert start and start["max_steps"] < 6000 and "init_from" not in start
        AlphaZeroConfig.from_dict({**start, "game": game})
    # --config, then --set, then --game's own options win over them
    over = alphazero_config(parse(["train", "alphazero", "--game", "tictactoe", "--set", "simulations=7"]))
    assert over.simulations == 7 and over.net == recipe["net"]
