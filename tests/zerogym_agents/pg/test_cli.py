"""`zerogym train pg`: short REINFORCE and PPO runs, resume, arena on the saved agent, clear refusals."""
import json
import os

import pytest

from zerogym import cli
from zerogym_agents.pg.agent import PolicyAgent
from zerogym_agents.saved import load_agent, load_card

NET = 'net={"trunk": "resnet", "blocks": 1, "channels": 8}'


def train(out, *extra, algo="reinforce", steps=2):
    cli.main(["train", "pg", "--algo", algo, "--game", "tictactoe", "--set", "num_envs=4", f"max_steps={steps}",
              "checkpoint_every=1", "ppo_n_steps=8", "ppo_batch_size=16", "ppo_epochs=1", NET,
              "--out", str(out), "--no-progress", *extra])


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
    cli.main(["arena", "--game", "tictactoe", "--agents", str(out / "agent.pt"), "random", "--games", "2",
              "--no-progress", "--out", str(tmp_path / "arena")])
    assert str(out / "agent.pt") in capsys.readouterr().out


def test_config_file_and_flags_combine(tmp_path, capsys):
    (tmp_path / "c.json").write_text(json.dumps({"algo": "ppo", "seed": 4, "max_steps": 99}))
    train(tmp_path / "run", "--config", str(tmp_path / "c.json"), steps=1)   # --algo and --set win over the file
    saved = json.loads((tmp_path / "run" / "config.json").read_text())
    assert (saved["algo"], saved["seed"], saved["max_steps"]) == ("reinforce", 4, 1)


def test_bad_input_exits_with_a_clear_message(tmp_path):
    with pytest.raises(SystemExit, match=r"zerogym train pg: PGConfig.lr must be a number > 0, got -1"):
        train(tmp_path, "--set", "lr=-1")
    with pytest.raises(SystemExit, match=r"no kwargs \['size'\]; allowed: board_size, win_length"):
        train(tmp_path, "--kwargs", "size=3")
    with pytest.raises(SystemExit, match=r"checkpoint.pt: no such file"):
        train(tmp_path / "nothing", "--resume")
    with pytest.raises(SystemExit) as e:
        cli.main(["train", "pg", "--algo", "a3c", "--game", "go"])
    assert e.value.code == 2                     # argparse: invalid choice
