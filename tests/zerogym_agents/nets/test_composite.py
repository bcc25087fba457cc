"""CompositeNet: shapes, windows, frozen parts, save/load in every file kind, trainer and search."""

import pickle

import numpy as np
import pytest
import torch

import zerogym
from zerogym_agents.core.constants import AGENT, CHECKPOINT
from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
from zerogym_agents.core.checkpoint import CheckpointError
from zerogym_agents.nets import NetFileError, load_net, loss, make_evaluator, net_from_payload, net_payload, save_net
from zerogym_agents.agents.saved import load_agent, save_agent
from zerogym_agents.agents.search import AlphaZeroAgent
from zerogym_agents.transfer import CompositeConfig, CompositeNet
from tiny_runs import alphazero_config

TINY = dict(downscalings=2, features=6, feature_layers=2, head_layers=2, head_channels=6)


def build(tools, small=5, big=9, seed=0, **kw):
    net = CompositeNet(tools.small_go_net(small, seed=seed), big, small_size=small, **{**TINY, **kw})
    return tools.randomize_bn(net, seed + 1).eval()  # also the frozen net's BN: check it never changes


def x_of(tools, size, n=4, seed=0):
    return torch.from_numpy(tools.positions("go", n, seed=seed, board_size=size)[0])


@pytest.mark.parametrize("small,big", [(5, 9), (5, 7), (7, 9), (3, 5)])
def test_shapes_and_windows(small, big, tools):
    comp = build(tools, small, big)
    x = x_of(tools, big, n=5)
    logits, value = comp(x)
    assert logits.shape == (5, big * big + 1) and value.shape == (5,)
    assert ((value > -1) & (value < 1)).all() and torch.isfinite(logits).all()
    assert comp.num_actions(big, big) == big * big + 1
    f = (big - small + 1) ** 2
    assert comp.config.windows == f
    r1 = comp.window_policies(x)
    assert r1.shape == (5, f, big, big)
    # window (i, j) holds the frozen net's cell policy on the board cut at (i, j), zeros elsewhere
    frozen = comp.small
    for k, (i, j) in enumerate([(i, j) for i in range(big - small + 1) for j in range(big - small + 1)]):
        with torch.no_grad():
            cells = frozen.policy.cells(frozen.trunk(x[:, :, i : i + small, j : j + small]))[:, 0]
        want = torch.softmax(cells.flatten(1), dim=1).view(5, small, small)
        assert torch.allclose(r1[:, k, i : i + small, j : j + small], want, atol=1e-6)
        assert r1[:, k].sum().item() == pytest.approx(5.0, abs=1e-4)  # nothing outside the window


def test_only_its_board_size(tools):
    comp = build(tools, 5, 9)
    for size in (5, 7, 11):
        with pytest.raises(ValueError, match=f"runs on 9x9 boards only.*5x5 net.*got {size}x{size}"):
            comp(x_of(tools, size, n=1))
        with pytest.raises(ValueError, match="runs on 9x9 boards only"):
            comp.num_actions(size, size)
    with pytest.raises(ValueError, match="planes must have shape"):
        comp(torch.zeros(1, 2, 9, 9))
    env = zerogym.make("go", board_size=7)
    env.reset(seed=0)
    with pytest.raises(
        ValueError, match="cannot play go .*composite network for 9x9 boards does not fit game 'go' on a 7x7 board"
    ):
        AlphaZeroAgent(comp, simulations=4).act(env)


def test_config(tools):
    comp = build(tools)
    cfg = comp.config
    assert CompositeConfig.from_json(cfg.to_json()) == cfg and cfg.to_dict()["kind"] == "composite"
    assert (cfg.in_planes, cfg.action_layout, cfg.extra_actions, cfg.game) == (
        comp.small.config.in_planes,
        "cells",
        1,
        "go",
    )
    with pytest.raises(ValueError, match="small board \\(9\\) must be smaller than the big one \\(9\\)"):
        CompositeNet(tools.small_go_net(), 9, small_size=9)
    with pytest.raises(ValueError, match="head_layers must be an integer >= 1"):
        CompositeNet(tools.small_go_net(), 9, small_size=5, head_layers=0)
    with pytest.raises(TypeError, match="needs a PolicyValueNet"):
        CompositeNet(comp, 11, small_size=9)
    with pytest.raises(ValueError, match="not a composite network config"):
        CompositeConfig.from_dict({**cfg.to_dict(), "kind": "other"})
    cfg.check_game("go", {"board_size": 9})
    with pytest.raises(ValueError, match="for 9x9 boards does not fit game 'go' on a 7x7 board"):
        cfg.check_game("go", {"board_size": 7})
    with pytest.raises(ValueError, match="does not fit game 'othello'"):
        cfg.check_game("othello", {"board_size": 8})


def test_frozen_net_stays_frozen_and_the_rest_learns(tools):
    given = tools.small_go_net(5)
    comp = CompositeNet(given, 9, small_size=5, **TINY)
    assert all(p.requires_grad for p in given.parameters())  # the caller's net is not frozen
    frozen = {k: v.clone() for k, v in comp.small.state_dict().items()}
    learned = {k: v.detach().clone() for k, v in comp.named_parameters() if not k.startswith("small.")}
    assert all(not p.requires_grad for p in comp.small.parameters())
    assert comp.num_parameters() == sum(v.numel() for v in learned.values())
    comp.train()
    assert comp.training and not comp.small.training and not any(m.training for m in comp.small.modules())
    planes, masks = tools.positions("go", 24, seed=1, board_size=9)
    policy, value = tools.targets(masks)
    opt = torch.optim.SGD(comp.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3)
    for step in range(4):
        opt.zero_grad()
        total, _, _ = loss(comp, planes, policy, value, masks)
        total.backward()
        if step == 0:
            assert comp.down.weight.grad.abs().sum() > 0  # through the frozen trunk
        opt.step()
    adam = torch.optim.Adam(comp.parameters(), lr=1e-3)
    loss(comp, planes, policy, value, masks)[0].backward()
    adam.step()
    for k, v in comp.small.state_dict().items():  # weights, BN statistics, batch counts
        assert torch.equal(v, frozen[k]), k
    now = dict(comp.named_parameters())
    for k, v in learned.items():
        assert not torch.equal(now[k].detach(), v), k
    assert not comp.small.training


def test_save_load_round_trips(tmp_path, tools):
    comp = build(tools)
    comp.train()
    planes, masks = tools.positions("go", 8, seed=4, board_size=9)
    policy, value = tools.targets(masks)
    loss(comp, planes, policy, value, masks)[0].backward()
    torch.optim.SGD(comp.parameters(), lr=0.1).step()
    comp.eval()
    x = torch.from_numpy(planes)
    with torch.no_grad():
        want = comp(x)
    fresh = CompositeNet.from_config(comp.config).eval()
    with torch.no_grad():
        assert not torch.equal(fresh(x)[0], want[0])
    save_net(comp, tmp_path / "net.pt")
    save_agent(tmp_path / "agent.pt", comp, {"simulations": 6}, {"game": "go", "kwargs": {"board_size": 9}})
    nets = [
        net_from_payload(net_payload(comp)),
        load_net(tmp_path / "net.pt", game="go", game_kwargs={"board_size": 9}),
        load_net(tmp_path / "agent.pt"),
        load_agent(str(tmp_path / "agent.pt")).evaluator.net,
    ]
    for back in nets:
        assert isinstance(back, CompositeNet) and back.config == comp.config
        assert not back.training and not any(p.requires_grad for p in back.small.parameters())
        with torch.no_grad():
            got = back(x)
        assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])
    with pytest.raises(NetFileError, match="for 9x9 boards does not fit game 'go' on a 5x5 board"):
        load_net(tmp_path / "net.pt", game="go", game_kwargs={"board_size": 5})
    with pytest.raises(NetFileError, match="holds a CompositeNet"):
        load_net(tmp_path / "net.pt", config=comp.small.config)
    env = zerogym.make("go", board_size=9)
    env.reset(seed=1)
    agent = load_agent(str(tmp_path / "agent.pt"), seed=0)
    assert env.unwrapped.state.is_legal(agent.act(env))
    priors, values = make_evaluator(comp)(planes, masks)
    assert np.allclose(priors.sum(axis=1), 1, atol=1e-5) and (priors[masks == 0] == 0).all()


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_refuses_corrupt_and_foreign_files(tmp_path, tools):
    comp = build(tools)
    save_net(comp, tmp_path / "good.pt")
    data = (tmp_path / "good.pt").read_bytes()
    (tmp_path / "truncated.pt").write_bytes(data[: len(data) // 2])
    (tmp_path / "object.pt").write_bytes(pickle.dumps(comp.config))
    for name in ("truncated.pt", "object.pt"):
        with pytest.raises(NetFileError, match="not a readable zerogym network file"):
            load_net(tmp_path / name)
    good = net_payload(comp)
    broken = {
        "missing weight": {**good, "state_dict": {k: v for k, v in good["state_dict"].items() if k != "head.0.weight"}},
        "small part swapped": {
            **good,
            "config": CompositeConfig.from_dict(
                {**comp.config.to_dict(), "small": {**comp.config.small.to_dict(), "channels": 16}}
            ).to_json(),
        },
        "composite weights, plain tag": {**good, "format": "zerogym.PolicyValueNet"},
        "bad config": {**good, "config": "{not json"},
    }
    for _what, payload in broken.items():
        torch.save(payload, tmp_path / "bad.pt")
        with pytest.raises(NetFileError, match="corrupt zerogym network"):
            load_net(tmp_path / "bad.pt")
    for tag in ("zerogym.Other", ["zerogym.CompositeNet"], None):
        torch.save({**good, "format": tag}, tmp_path / "foreign.pt")
        with pytest.raises(NetFileError, match="is not a zerogym network"):
            load_net(tmp_path / "foreign.pt")
    torch.save({**good, "version": 2}, tmp_path / "future.pt")
    with pytest.raises(NetFileError, match="zerogym.CompositeNet format version 2 is not supported"):
        load_net(tmp_path / "future.pt")
    save_agent(tmp_path / "agent.pt", comp, {}, {})
    agent = torch.load(tmp_path / "agent.pt", weights_only=True)
    agent["net"] = broken["missing weight"]
    torch.save(agent, tmp_path / "bad_agent.pt")
    with pytest.raises(CheckpointError, match="corrupt zerogym network"):
        load_agent(str(tmp_path / "bad_agent.pt"))


# 9x9 Go cut at 6 moves, 4 games at once
GO9 = dict(game="go", game_kwargs={"board_size": 9, "max_moves": 6}, concurrent_games=4, simulations=4, seed=0)


def trainer_config():
    return alphazero_config(GO9, max_steps=12, checkpoint_every=4, max_train_per_step=2)


def test_trainer_runs_and_resumes_a_composite(tmp_path, tools):
    def composite():
        return build(tools, 5, 9, seed=3)

    full = AlphaZeroTrainer(trainer_config(), tmp_path / "a", net=composite(), log_dir=False)
    frozen = {k: v.clone() for k, v in full.net.small.state_dict().items()}
    full.run(progress=False)
    assert full.train_steps > 0 and full.games > 0
    assert all(torch.equal(v, frozen[k]) for k, v in full.net.small.state_dict().items())
    cut = AlphaZeroTrainer(trainer_config(), tmp_path / "b", net=composite(), log_dir=False)
    cut.run(progress=False, stop_at=8)
    resumed = AlphaZeroTrainer(trainer_config(), tmp_path / "b", resume=True, log_dir=False)
    assert isinstance(resumed.net, CompositeNet) and resumed.step == 8
    resumed.run(progress=False)
    assert (resumed.games, resumed.positions, resumed.train_steps) == (full.games, full.positions, full.train_steps)
    for k, v in full.net.state_dict().items():
        assert torch.equal(v, resumed.net.state_dict()[k]), k
    for f in (CHECKPOINT, AGENT):
        assert isinstance(load_net(tmp_path / "b" / f, game="go", game_kwargs={"board_size": 9}), CompositeNet)


@pytest.mark.parametrize(
    "change,field",
    [
        ({"features": 10**6}, "config.features = 1000000"),
        ({"head_layers": 10**5}, "config.head_layers = 100000"),
        ({"big_size": 10**4}, "config.big_size = 10000"),
        ({"downscalings": 10**4}, "config.downscalings = 10000"),
        ({"small": {"blocks": 10**5}}, "config.small.blocks = 100000"),
        ({"small": {"channels": 10**6}}, "config.small.channels = 1000000"),
    ],
)
def test_a_composite_file_claiming_a_huge_net_is_refused_unbuilt_by_field(
    tmp_path, nets_only_on_meta, tools, change, field
):
    import json

    good = net_payload(build(tools))
    cfg = json.loads(good["config"])
    for k, v in change.items():
        cfg[k] = {**cfg[k], **v} if isinstance(v, dict) else v
    torch.save({**good, "config": json.dumps(cfg)}, tmp_path / "huge.pt")
    with (
        nets_only_on_meta(),
        pytest.raises(
            NetFileError,
            match=rf"huge\.pt: corrupt zerogym network: {field} is "
            rf"more than a network file may claim",
        ),
    ):
        load_net(tmp_path / "huge.pt")


def test_a_composite_config_without_its_small_net_says_so(tmp_path, tools):
    import json

    good = net_payload(build(tools))
    cfg = json.loads(good["config"])
    del cfg["small"]
    torch.save({**good, "config": json.dumps(cfg)}, tmp_path / "bad.pt")
    with pytest.raises(
        NetFileError,
        match=r"bad\.pt: corrupt zerogym network: config is not a valid CompositeConfig: "
        r"CompositeConfig needs the fields \['small'\]",
    ):
        load_net(tmp_path / "bad.pt")
