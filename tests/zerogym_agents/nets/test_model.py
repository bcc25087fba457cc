"""PolicyValueNet: config, any board size, translation equivariance, loss, training, save/load."""

import json
import math
import os
import pickle

import numpy as np
import pytest
import torch

import zerogym
from zerogym_agents.nets.model import NetConfig, NetFileError, PolicyValueNet, for_game, load_net, loss, save_net
from net_cases import positions, randomize_bn


# ---- config ------------------------------------------------------------------------------------


def test_config_json_round_trip():
    trunk = dict(trunk="mobilenet", blocks=3, channels=16, expansion=3)
    cfg = NetConfig(**trunk, in_planes=7, extra_actions=1, value_loss="bce", value_weight=4, game="go")
    text = json.dumps(cfg.to_dict())
    back = NetConfig.from_dict(json.loads(text))
    assert back == cfg and NetConfig.from_json(cfg.to_json()) == cfg
    assert isinstance(back.expansion, float) and back.value_weight == 4.0


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"trunk": "vgg"}, "trunk must be one of 'resnet', 'mobilenet'"),
        ({"blocks": -1}, "blocks must be an integer >= 0"),
        ({"channels": 0}, "channels must be an integer >= 1"),
        ({"blocks": True}, "blocks must be an integer"),
        ({"expansion": 0}, "expansion must be a number > 0"),
        ({"value_loss": "l1"}, "value_loss must be one of 'mse', 'bce'"),
        ({"value_weight": -1}, "value_weight must be a number >= 0"),
        ({"value_activation": "tanh"}, "value_activation must be one of 'relu', 'leaky_relu'"),
        ({"action_layout": "columns", "extra_actions": 1}, "'columns' layout has no extra actions"),
        ({"action_layout": "rows"}, "action_layout must be one of 'cells', 'columns'"),
    ],
)
def test_config_rejects_bad_values(kwargs, match):
    with pytest.raises(ValueError, match=match):
        NetConfig(**kwargs)


def test_config_from_dict_rejects_unknown_fields():
    with pytest.raises(ValueError, match=r"unknown NetConfig fields \['depth'\]"):
        NetConfig.from_dict({"depth": 3})


# (game, kwargs, in_planes from obs_shape, layout, extra): Go/Othello pass and Hex swap are the one
# action after the N*N cells (the envs' action encoding); Connect Four's actions are its columns
@pytest.mark.parametrize(
    "game,kwargs,layout,extra",
    [
        ("go", {"board_size": 5}, "cells", 1),
        ("othello", {"board_size": 6}, "cells", 1),
        ("hex", {"board_size": 5}, "cells", 1),
        ("hex", {"board_size": 4, "swap": False}, "cells", 1),
        ("connect_four", {}, "columns", 0),
        ("tictactoe", {}, "cells", 0),
    ],
)
def test_for_game(game, kwargs, layout, extra):
    st = zerogym.make_state(game, **kwargs)
    cfg = for_game(game, game_kwargs=kwargs, channels=8)
    assert (cfg.in_planes, cfg.action_layout, cfg.extra_actions, cfg.game, cfg.channels) == (
        st.spec.obs_shape[2],
        layout,
        extra,
        game,
        8,
    )
    assert for_game(st) == for_game(st.spec) == for_game(zerogym.make(game, **kwargs)) == NetConfig.for_game(game)


def test_for_game_rejects_overrides_that_do_not_fit():
    with pytest.raises(ValueError, match="extra_actions=0 does not fit game 'go', which needs extra_actions=1"):
        for_game("go", extra_actions=0)
    with pytest.raises(ValueError, match="expected a game name, State, GameSpec or zerogym env"):
        for_game(42)


# ---- one set of weights, many boards ----------------------------------------------------------

BOARDS = {
    "go": [{"board_size": 5}, {"board_size": 9}, {"board_size": 13}],
    "hex": [{"board_size": 5}, {"board_size": 11}],
    "othello": [{"board_size": 6}, {"board_size": 8}],
    "connect_four": [{}, {"rows": 5, "cols": 4}],
    "tictactoe": [{}, {"board_size": 7, "win_length": 4}],
}


@pytest.mark.parametrize("trunk", ["resnet", "mobilenet"])
@pytest.mark.parametrize("game", sorted(BOARDS))
def test_same_weights_on_every_board_size(game, trunk):
    torch.manual_seed(0)
    net = PolicyValueNet(for_game(game, trunk=trunk, blocks=2, channels=8)).eval()
    for kwargs in BOARDS[game]:
        spec = zerogym.make_state(game, **kwargs).spec
        net.config.check_game(game, kwargs)
        planes, _ = positions(game, 6, **kwargs)
        with torch.no_grad():
            logits, value = net(torch.from_numpy(planes))
        assert logits.shape == (6, spec.num_actions) == (6, net.num_actions(*spec.obs_shape[:2]))
        assert value.shape == (6,)
        assert torch.isfinite(logits).all() and (value.abs() <= 1).all()


def test_forward_rejects_wrong_planes():
    net = PolicyValueNet(NetConfig(in_planes=3))
    with pytest.raises(ValueError, match=r"planes must have shape \(B, 3, H, W\), got \(2, 4, 5, 5\)"):
        net(torch.zeros(2, 4, 5, 5))


def test_check_game_names_the_mismatch():
    cfg = for_game("othello")
    with pytest.raises(ValueError, match="made for othello.*in_planes=3.*does not fit game 'go'.*in_planes=7"):
        cfg.check_game("go")


@pytest.mark.parametrize("trunk,blocks", [("resnet", 1), ("mobilenet", 2)])
def test_translating_a_pattern_moves_its_logits(trunk, blocks):
    # both trunks here see 3 cells around each point (3 convolutions of 3x3); heads are 1x1 or pooled
    radius, n = 3, 19
    gen = torch.Generator().manual_seed(2)
    torch.manual_seed(2)
    net = PolicyValueNet(NetConfig(trunk=trunk, blocks=blocks, channels=8, in_planes=7, extra_actions=1)).eval()
    randomize_bn(net, gen)
    pattern = torch.rand(7, 3, 3, generator=gen)
    x = torch.zeros(2, 7, n, n)
    x[0, :, 7:10, 7:10] = pattern
    dr, dc = 3, 1
    x[1, :, 7 + dr : 10 + dr, 7 + dc : 10 + dc] = pattern
    with torch.no_grad():
        logits, value = net(x)
    cells = logits[:, : n * n].view(2, n, n)
    inner = slice(radius, n - radius - max(dr, dc))
    a = cells[0, inner, inner]
    b = cells[1, radius + dr : n - radius - max(dr, dc) + dr, radius + dc : n - radius - max(dr, dc) + dc]
    assert torch.allclose(a, b, atol=1e-5)
    assert not torch.allclose(cells[0], cells[1], atol=1e-3)  # the pattern did move
    # every cell the pattern reaches is away from the edges, so pooled outputs see the same values
    assert torch.allclose(value[0], value[1], atol=1e-5) and torch.allclose(logits[0, -1], logits[1, -1], atol=1e-5)


# ---- parameters ---------------------------------------------------------------------------------


def test_parameter_count_by_hand():
    cfg = NetConfig(trunk="resnet", blocks=1, channels=2, in_planes=3, extra_actions=1, policy_hidden=2, value_hidden=3)
    stem = 3 * 2 * 9 + 2 * 2  # 3x3 conv 3->2 (no bias) + BN
    block = 2 * (2 * 2 * 9) + 2 * (2 * 2)  # two 3x3 convs 2->2 + two BNs
    policy = 2 * 2 + 2 * 2 + (2 + 1) + (4 * 1 + 1)  # 1x1 conv 2->2, BN, 1x1 conv 2->1 + bias, Linear(4 -> 1)
    value = (4 * 3 + 3) + (3 + 1)  # Linear(4 -> 3), Linear(3 -> 1)
    assert PolicyValueNet(cfg).num_parameters() == stem + block + policy + value == 173
    mob_trunk = dict(trunk="mobilenet", blocks=1, channels=2, expansion=2)
    mob = NetConfig(**mob_trunk, in_planes=3, action_layout="columns", policy_hidden=0, value_hidden=1)
    hidden = 4
    mblock = 2 * hidden + 2 * hidden + 9 * hidden + 2 * hidden + hidden * 2 + 2 * 2
    assert PolicyValueNet(mob).num_parameters() == stem + mblock + (2 + 1) + (4 * 1 + 1) + (1 + 1)


# ---- loss and training --------------------------------------------------------------------------


def _np_log_softmax_legal(logits, mask):
    out = np.zeros_like(logits)
    for i in range(len(logits)):
        legal = mask[i] != 0
        z = logits[i, legal]
        out[i, legal] = z - (z.max() + math.log(np.exp(z - z.max()).sum()))
    return out


@pytest.mark.parametrize("value_loss", ["mse", "bce"])
def test_loss_by_hand(value_loss):
    torch.manual_seed(3)
    planes, masks = positions("go", 5, seed=3, board_size=5)
    net = PolicyValueNet(for_game("go", blocks=1, channels=8, value_loss=value_loss, value_weight=2.5)).eval()
    rng = np.random.default_rng(3)
    target = rng.random(masks.shape) * masks
    target /= target.sum(axis=1, keepdims=True)
    tv = np.array([1.0, -1.0, 0.0, 0.5, -0.25])
    total, ce, vl = loss(net, planes, target, tv, masks)
    with torch.no_grad():
        logits, z = net.forward_raw(torch.from_numpy(planes))
    logits, v = logits.double().numpy(), np.tanh(z.double().numpy())
    want_ce = -(target * _np_log_softmax_legal(logits, masks)).sum(axis=1).mean()
    if value_loss == "mse":
        want_vl = ((v - tv) ** 2).mean()
    else:
        p, y = (v + 1) / 2, (tv + 1) / 2
        want_vl = -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()
    assert math.isclose(ce.item(), want_ce, rel_tol=1e-4)
    assert math.isclose(vl.item(), want_vl, rel_tol=1e-4)
    assert math.isclose(total.item(), want_ce + 2.5 * want_vl, rel_tol=1e-4)
    # without a mask every action is in the softmax
    full = np.ones_like(masks)
    assert math.isclose(
        loss(net, planes, target, tv)[1].item(), loss(net, planes, target, tv, full)[1].item(), rel_tol=1e-6
    )


def test_loss_rejects_bad_targets():
    net = PolicyValueNet(for_game("tictactoe", blocks=1, channels=4))
    planes, masks = positions("tictactoe", 3, seed=1)
    target = masks / masks.sum(axis=1, keepdims=True)
    tv = np.zeros(3)
    bad = target.copy()
    bad[1] = 1 - masks[1]  # all mass on the one occupied cell
    assert bad[1].sum() == 1
    with pytest.raises(ValueError, match="probability on actions the mask marks illegal"):
        loss(net, planes, bad, tv, masks)
    with pytest.raises(ValueError, match="no legal action"):
        loss(net, planes, target * 0, tv, masks * np.array([[0], [1], [1]], np.int8))
    with pytest.raises(ValueError, match=r"target_policy must have shape \(3, 9\)"):
        loss(net, planes, target[:, :8], tv, masks)
    with pytest.raises(ValueError, match=r"target_value must lie in \[-1, 1\]"):
        loss(net, planes, target, tv + 2, masks)


@pytest.mark.parametrize("trunk,value_loss", [("resnet", "mse"), ("mobilenet", "bce")])
def test_overfits_a_tiny_batch(trunk, value_loss, one_torch_thread):
    torch.manual_seed(4)
    planes, masks = positions("othello", 16, seed=4, board_size=6)
    rng = np.random.default_rng(4)
    target = np.zeros(masks.shape, np.float32)
    for i, m in enumerate(masks):
        target[i, rng.choice(np.flatnonzero(m))] = 1.0
    tv = rng.choice([-1.0, 1.0], size=16).astype(np.float32)
    net = PolicyValueNet(for_game("othello", trunk=trunk, blocks=2, channels=16, value_loss=value_loss))
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    x, t, v, m = (torch.from_numpy(a) for a in (planes, target, tv, masks))
    first = None
    for _ in range(200):
        total, ce, vl = loss(net, x, t, v, m)
        first = first if first is not None else (total.item(), ce.item(), vl.item())
        opt.zero_grad()
        total.backward()
        opt.step()
    net.eval()
    total, ce, vl = loss(net, x, t, v, m)
    assert total.item() < first[0] / 10
    assert ce.item() < first[1] / 10 and vl.item() < first[2] / 10


# ---- save / load --------------------------------------------------------------------------------


def _trained_net(tmp_path):
    torch.manual_seed(5)
    net = PolicyValueNet(for_game("othello", trunk="mobilenet", blocks=2, channels=8))
    planes, masks = positions("othello", 8, seed=5, board_size=6)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    total, _, _ = loss(net, planes, masks / masks.sum(axis=1, keepdims=True), np.zeros(8), masks)
    total.backward()
    opt.step()  # weights and BN statistics differ from a fresh net
    return net.eval(), planes


def test_save_load_round_trip(tmp_path):
    net, planes = _trained_net(tmp_path)
    path = tmp_path / "net.pt"
    save_net(net, path)
    save_net(net, path)  # overwriting works too
    assert os.listdir(tmp_path) == ["net.pt"]  # no temp file left behind
    back = PolicyValueNet.load(path, game="othello", game_kwargs={"board_size": 8})
    assert back.config == net.config and not back.training
    x = torch.from_numpy(planes)
    with torch.no_grad():
        (l1, v1), (l2, v2) = net(x), back(x)
    assert torch.equal(l1, l2) and torch.equal(v1, v2)
    fresh = PolicyValueNet(net.config).eval()
    with torch.no_grad():
        assert not torch.equal(fresh(x)[0], l1)


def test_load_refuses_other_game_or_config(tmp_path):
    net, _ = _trained_net(tmp_path)
    path = tmp_path / "net.pt"
    net.save(path)
    with pytest.raises(NetFileError, match="made for othello.*does not fit game 'go'"):
        load_net(path, game="go")
    other = NetConfig.from_dict({**net.config.to_dict(), "channels": 16})
    with pytest.raises(NetFileError, match="another config.*channels: saved 8, wanted 16"):
        load_net(path, config=other)


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_load_refuses_corrupt_and_foreign_files(tmp_path):
    net, _ = _trained_net(tmp_path)
    good = tmp_path / "net.pt"
    save_net(net, good)
    data = good.read_bytes()
    cases = {
        "truncated.pt": data[: len(data) // 2],
        "garbage.pt": bytes(np.random.default_rng(0).integers(0, 256, 4000, dtype=np.uint8)),
        "empty.pt": b"",
        "object.pt": pickle.dumps(NetConfig()),  # a pickled object: weights_only refuses it
    }
    for name, blob in cases.items():
        (tmp_path / name).write_bytes(blob)
        with pytest.raises(NetFileError, match="not a readable zerogym network file"):
            load_net(tmp_path / name)
    torch.save({"weights": torch.zeros(3)}, tmp_path / "foreign.pt")
    with pytest.raises(NetFileError, match="is not a zerogym network.*found \\['weights'\\]"):
        load_net(tmp_path / "foreign.pt")
    torch.save([torch.zeros(3)], tmp_path / "list.pt")
    with pytest.raises(NetFileError, match="is not a zerogym network.*found list"):
        load_net(tmp_path / "list.pt")
    # right format tag, but weights that belong to another shape of net
    payload = torch.load(good, weights_only=True)
    payload["config"] = NetConfig.from_dict({**net.config.to_dict(), "blocks": 3}).to_json()
    torch.save(payload, tmp_path / "mismatch.pt")
    with pytest.raises(
        NetFileError,
        match="corrupt zerogym network: state_dict does not fit the network its "
        "config describes: it lacks 'trunk.3.expand.weight'",
    ):
        load_net(tmp_path / "mismatch.pt")
    payload["version"] = 99
    torch.save(payload, tmp_path / "future.pt")
    with pytest.raises(NetFileError, match="version 99 is not supported"):
        load_net(tmp_path / "future.pt")
    with pytest.raises(FileNotFoundError, match="no network file"):
        load_net(tmp_path / "missing.pt")


def test_a_net_file_without_value_activation_reads_as_relu(tmp_path):
    net = PolicyValueNet(for_game("tictactoe", blocks=1, channels=8, value_activation="leaky_relu"))
    save_net(net, tmp_path / "net.pt")
    payload = torch.load(tmp_path / "net.pt", weights_only=True)
    config = json.loads(payload["config"])
    assert config.pop("value_activation") == "leaky_relu"
    payload["config"] = json.dumps(config)
    torch.save(payload, tmp_path / "old.pt")
    old, new = load_net(tmp_path / "old.pt"), load_net(tmp_path / "net.pt")
    assert old.config.value_activation == "relu" and new.config.value_activation == "leaky_relu"
    assert isinstance(old.value.mlp[1], torch.nn.ReLU) and isinstance(new.value.mlp[1], torch.nn.LeakyReLU)


def test_with_value_activation_keeps_the_weights_and_changes_only_units_below_zero():
    torch.manual_seed(0)
    relu = PolicyValueNet(for_game("go", game_kwargs={"board_size": 5}, blocks=1, channels=8, score_head=True)).eval()
    assert relu.with_value_activation("relu") is relu
    leaky = relu.with_value_activation("leaky_relu")
    assert leaky.config.value_activation == "leaky_relu" and not leaky.training
    assert all(isinstance(m, torch.nn.LeakyReLU) for m in (leaky.value.mlp[1], leaky.score.mlp[1]))
    assert isinstance(relu.value.mlp[1], torch.nn.ReLU)  # the original is left as it was
    assert leaky.state_dict().keys() == relu.state_dict().keys()
    assert all(torch.equal(v, leaky.state_dict()[k]) for k, v in relu.state_dict().items())
    x = torch.rand(6, relu.config.in_planes, 5, 5)
    for bias, same in ((100.0, True), (-100.0, False)):  # every hidden unit above zero, then below
        for net in (relu, leaky):
            torch.nn.init.constant_(net.value.mlp[0].bias, bias)
        with torch.no_grad():
            assert torch.allclose(relu.forward_raw(x)[1], leaky.forward_raw(x)[1]) == same


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize("key", ["value.mlp.2.weight", "trunk.0.1.running_var"])
def test_load_refuses_non_finite_weights(tmp_path, key, value):
    net = PolicyValueNet(for_game("tictactoe", blocks=1, channels=8))
    save_net(net, tmp_path / "net.pt")
    payload = torch.load(tmp_path / "net.pt", weights_only=True)
    assert key in payload["state_dict"]
    payload["state_dict"][key].view(-1)[:2] = value
    torch.save(payload, tmp_path / "bad.pt")
    with pytest.raises(NetFileError, match=f"bad.pt: corrupt zerogym network: non-finite .* in {key} \\(2\\)"):
        load_net(tmp_path / "bad.pt")
    load_net(tmp_path / "net.pt")  # the good file still loads


# ---- malformed net files ---------------------------------------------------------------------------------


def _net_file(tmp_path):
    net = PolicyValueNet(for_game("tictactoe", blocks=1, channels=8))
    save_net(net, tmp_path / "net.pt")
    return torch.load(tmp_path / "net.pt", weights_only=True)


@pytest.mark.parametrize("bad", [None, 3, "x", [1], {"a": 1}, "DELETE"])
@pytest.mark.parametrize("key", ["format", "version", "config", "state_dict"])
def test_a_net_file_with_a_missing_or_wrong_entry_names_it(tmp_path, key, bad):
    payload = _net_file(tmp_path)
    if bad == "DELETE":
        del payload[key]
    else:
        payload[key] = bad
    torch.save(payload, tmp_path / "bad.pt")
    with pytest.raises(NetFileError) as err:
        load_net(tmp_path / "bad.pt")
    msg = str(err.value)
    assert msg.startswith(str(tmp_path / "bad.pt"))
    assert (key in msg) if key in ("config", "state_dict") else ("not a zerogym network" in msg or "version" in msg)


def test_a_net_file_claiming_a_huge_net_is_refused_unbuilt_by_field(tmp_path, nets_only_on_meta):
    payload = _net_file(tmp_path)
    for field, value in (("blocks", 10**5), ("channels", 10**6), ("kernel_size", 10**5 + 1)):
        payload["config"] = json.dumps({**json.loads(_net_file(tmp_path)["config"]), field: value})
        torch.save(payload, tmp_path / "huge.pt")
        with (
            nets_only_on_meta(),
            pytest.raises(
                NetFileError,
                match=rf"huge\.pt: corrupt zerogym network: "
                rf"config\.{field} = {value} is more than a network file may claim "
                rf"\(at most \d+\)",
            ),
        ):
            load_net(tmp_path / "huge.pt")


def test_load_net_checks_the_net_inside_agents_and_checkpoints_too(tmp_path):
    from zerogym_agents.core.checkpoint import save_checkpoint

    payload = _net_file(tmp_path)
    del payload["state_dict"]["value.mlp.0.bias"]
    save_checkpoint(tmp_path / "ckpt.pt", "alphazero", {"config": "{}", "net": payload})
    with pytest.raises(
        NetFileError,
        match=r"ckpt\.pt: corrupt zerogym network: state_dict does not fit the network "
        r"its config describes: it lacks 'value\.mlp\.0\.bias'",
    ):
        load_net(tmp_path / "ckpt.pt")


def test_checking_a_payload_allocates_nothing_and_draws_no_random_number(tmp_path):
    from zerogym_agents.nets.model import expected_state

    before = torch.get_rng_state()
    shapes = expected_state(PolicyValueNet, NetConfig(blocks=200, channels=2048))  # ~15 billion weights
    assert torch.equal(before, torch.get_rng_state())
    assert shapes["trunk.1.conv1.weight"] == ((2048, 2048, 3, 3), torch.float32)
