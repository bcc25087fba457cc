"""`zerogym transfer grow|composite` on net files, saved agents and training checkpoints."""

import argparse
import json

import pytest
import torch

import zerogym
from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
from zerogym_agents.core.checkpoint import save_checkpoint
from zerogym_agents.nets import NetFileError, load_net, net_payload, save_net
from zerogym_agents.agents.saved import load_agent, load_card, save_agent
from zerogym_agents.transfer import CompositeNet
from zerogym_agents.cli.transfer import add_transfer_parser


def cli(*argv):
    from zerogym_agents.cli.main import main

    main(["transfer", *map(str, argv)])


def same_outputs(a, b, size, planes):
    x = torch.from_numpy(planes)
    with torch.no_grad():
        (la, va), (lb, vb) = a.eval()(x), b.eval()(x)
    return (la - lb).abs().max() < 1e-4 and (va - vb).abs().max() < 1e-4


def test_parser_has_room_for_more_commands():
    ap = argparse.ArgumentParser()
    commands = add_transfer_parser(ap.add_subparsers(dest="command"))
    commands.add_parser("later")  # e.g. a later command
    assert ap.parse_args(["transfer", "later"]).transfer_command == "later"
    assert ap.parse_args(["transfer", "run", "--source", "a.pt", "--big-size", "9"]).transfer_command == "run"
    with pytest.raises(SystemExit):
        ap.parse_args(["transfer"])  # a sub-command is required


def test_grow_a_net_file(tmp_path, tools, capsys):
    net = tools.small_go_net(5)
    save_net(net, tmp_path / "small.pt")
    cli(
        "grow",
        "--in",
        tmp_path / "small.pt",
        "--out",
        tmp_path / "big.pt",
        "--blocks",
        3,
        "--channels",
        12,
        "--kernel-size",
        5,
        "--noise",
        0,
        "--seed",
        1,
    )
    grown = load_net(tmp_path / "big.pt")
    assert (grown.config.blocks, grown.config.channels, grown.config.kernel_size) == (3, 12, 5)
    assert "resnet 1x8" in capsys.readouterr().out
    for size in (5, 9):
        planes, _ = tools.positions("go", 6, seed=size, board_size=size)
        assert same_outputs(net, grown, size, planes)


def test_grow_an_agent_keeps_options_and_card(tmp_path, tools):
    net = tools.small_go_net(5)
    save_agent(
        tmp_path / "agent.pt",
        net,
        {"simulations": 17},
        {"game": "go", "kwargs": {"board_size": 5}, "training": {"steps": 3}},
    )
    cli("grow", "--in", tmp_path / "agent.pt", "--out", tmp_path / "grown.pt", "--blocks", 2)
    agent = load_agent(str(tmp_path / "grown.pt"))
    assert agent.evaluator.net.config.blocks == 2
    card = load_card(str(tmp_path / "grown.pt"))
    assert card["training"] == {"steps": 3} and card["net"]["blocks"] == 2
    assert card["transfer"]["operation"] == "grow" and card["transfer"]["from_net"]["blocks"] == 1
    assert json.loads((tmp_path / "grown.json").read_text())["options"] == {"simulations": 17}
    env = zerogym.make("go", board_size=5)
    env.reset(seed=0)
    assert env.unwrapped.state.is_legal(agent.act(env))


def test_grow_errors_are_clear(tmp_path, tools):
    save_net(tools.small_go_net(5), tmp_path / "small.pt")
    with pytest.raises(SystemExit, match="give at least one of --blocks"):
        cli("grow", "--in", tmp_path / "small.pt", "--out", tmp_path / "x.pt")
    with pytest.raises(SystemExit, match="channels can only grow"):
        cli("grow", "--in", tmp_path / "small.pt", "--out", tmp_path / "x.pt", "--channels", 2)
    with pytest.raises(SystemExit, match="no network file"):
        cli("grow", "--in", tmp_path / "missing.pt", "--out", tmp_path / "x.pt", "--blocks", 2)
    assert not (tmp_path / "x.pt").exists()


def test_composite_from_a_shipped_agent(tmp_path):
    cli(
        "composite",
        "--in",
        "pretrained:tictactoe",
        "--out",
        tmp_path / "c.pt",
        "--big-size",
        5,
        "--downscalings",
        1,
        "--feature-layers",
        1,
        "--features",
        8,
        "--head-layers",
        1,
        "--seed",
        0,
    )
    card = load_card(str(tmp_path / "c.pt"))
    assert card["game"] == "tictactoe" and card["kwargs"] == {"board_size": 5}
    assert card["transfer"]["small_size"] == 3 and card["transfer"]["source_card"]["game"] == "tictactoe"
    assert "results" not in card  # they were measured for the 3x3 agent
    agent = load_agent(str(tmp_path / "c.pt"))
    comp = agent.evaluator.net
    assert isinstance(comp, CompositeNet) and (comp.config.small_size, comp.config.big_size) == (3, 5)
    assert json.loads((tmp_path / "c.json").read_text())["options"] == {"simulations": 64}
    env = zerogym.make("tictactoe", board_size=5)
    env.reset(seed=0)
    assert env.unwrapped.state.is_legal(agent.act(env))


def test_composite_from_a_net_file_or_a_checkpoint(tmp_path, tools):
    net = tools.small_go_net(5)
    save_net(net, tmp_path / "small.pt")
    with pytest.raises(SystemExit, match="give --small-size"):
        cli("composite", "--in", tmp_path / "small.pt", "--out", tmp_path / "c.pt", "--big-size", 7)
    cli(
        "composite",
        "--in",
        tmp_path / "small.pt",
        "--out",
        tmp_path / "c.pt",
        "--big-size",
        7,
        "--small-size",
        5,
        "--downscalings",
        3,
    )
    comp = load_net(tmp_path / "c.pt", game="go", game_kwargs={"board_size": 7})
    assert comp.config.downscalings == 3 and comp.config.small_size == 5
    assert all(torch.equal(v, net.state_dict()[k]) for k, v in comp.small.state_dict().items())
    # what `zerogym train alphazero --init-from c.pt` does next
    run = AlphaZeroConfig(
        game="go", game_kwargs={"board_size": 7}, init_from=str(tmp_path / "c.pt"), concurrent_games=2, simulations=2
    )
    trainer = AlphaZeroTrainer(run, tmp_path / "run", log_dir=False)
    assert isinstance(trainer.net, CompositeNet)
    assert all(torch.equal(v.cpu(), comp.state_dict()[k].cpu()) for k, v in trainer.net.state_dict().items())
    with pytest.raises(NetFileError, match="does not fit game 'go' on a 9x9 board"):
        AlphaZeroTrainer(
            AlphaZeroConfig(game="go", game_kwargs={"board_size": 9}, init_from=str(tmp_path / "c.pt")),
            tmp_path / "run9",
            log_dir=False,
        )
    cfg = AlphaZeroConfig(game="go", game_kwargs={"board_size": 5})
    save_checkpoint(tmp_path / "checkpoint.pt", "alphazero", {"config": cfg.to_json(), "net": net_payload(net)})
    cli("composite", "--in", tmp_path / "checkpoint.pt", "--out", tmp_path / "c9.pt", "--big-size", 9)
    assert load_net(tmp_path / "c9.pt").config.small_size == 5
    with pytest.raises(SystemExit, match="small board \\(5\\) must be smaller than the big one \\(5\\)"):
        cli("composite", "--in", tmp_path / "checkpoint.pt", "--out", tmp_path / "x.pt", "--big-size", 5)


def _agent_with(tmp_path, **changes):
    from zerogym_agents.agents.saved import resolve

    data = torch.load(resolve("pretrained:tictactoe"), weights_only=True)
    data.update(changes)
    path = tmp_path / f"bad-{'-'.join(changes)}.pt"
    torch.save(data, path)
    return path


@pytest.mark.parametrize("command", ["grow", "composite"])
def test_a_malformed_source_is_refused_in_one_line_naming_it(tmp_path, tools, command):
    extra = ["--blocks", 3] if command == "grow" else ["--big-size", 5]
    net = tools.small_go_net(5)
    cfg = AlphaZeroConfig(game="go", game_kwargs={"board_size": 5})
    bad_config = json.dumps({**json.loads(cfg.to_json()), "game": 5})
    save_checkpoint(tmp_path / "ckpt.pt", "alphazero", {"config": bad_config, "net": net_payload(net)})
    huge = net_payload(net)
    huge["config"] = json.dumps({**json.loads(huge["config"]), "channels": 10**7})
    torch.save(huge, tmp_path / "huge.pt")
    cases = [
        (_agent_with(tmp_path, card="[1]"), "card must be a dict, got a list of 1"),
        (_agent_with(tmp_path, options="{"), "options is not valid JSON"),
        (_agent_with(tmp_path, agent=None), "agent must be a string, got None"),
        (tmp_path / "ckpt.pt", "config.game must be a string, got 5"),
        (tmp_path / "huge.pt", "config.channels = 10000000 is more than a network file may claim"),
    ]
    for path, words in cases:
        with pytest.raises(SystemExit) as e:
            cli(command, "--in", path, "--out", tmp_path / "out.pt", *extra)
        msg = str(e.value)
        assert msg.startswith(f"zerogym transfer {command}: error: {path}") and words in msg and "\n" not in msg, msg
    assert not (tmp_path / "out.pt").exists()
