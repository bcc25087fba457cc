"""KataGo's auxiliary heads on PolicyValueNet: size-independent shapes, the loss, and files without them."""

import json

import numpy as np
import pytest
import torch

from zerogym_agents.core.checkpoint import read_torch_file, resolve
from zerogym_agents.nets import make_evaluator
from zerogym_agents.nets.model import NetConfig, PolicyValueNet, for_game, load_net, loss, net_payload, save_net
from net_cases import positions


def go_net(seed=0, **over):
    torch.manual_seed(seed)
    return PolicyValueNet(for_game("go", game_kwargs={"board_size": 5}, blocks=1, channels=8, **over)).eval()


@pytest.mark.parametrize("size", [5, 9])
def test_heads_run_on_every_board_size(size):
    net = go_net(ownership_head=True, score_head=True)
    planes, _ = positions("go", 3, board_size=size)
    logits, z, own, score = net.forward_aux(torch.from_numpy(planes))
    assert logits.shape == (3, size * size + 1) and z.shape == (3,)
    assert own.shape == (3, size, size) and score.shape == (3,)
    pred = net.predict_aux(planes)
    assert pred["ownership"].abs().max() <= 1 and pred["score"].shape == (3,)
    # the score head reads out margin / area: points scale with the board
    assert torch.allclose(pred["score"], score.detach() * size * size)
    # forward (what evaluators and the search call) is the policy and value only
    out = net(torch.from_numpy(planes))
    assert len(out) == 2 and torch.equal(out[0], logits)


def test_heads_are_only_present_when_enabled():
    names = set(go_net().state_dict())
    assert not any(k.startswith(("ownership.", "score.")) for k in names)
    both = set(go_net(ownership_head=True, score_head=True).state_dict())
    assert {k.split(".")[0] for k in both - names} == {"ownership", "score"}
    assert go_net().forward_aux(torch.zeros(1, 7, 5, 5))[2:] == (None, None)
    with pytest.raises(ValueError, match="ownership_head must be"):
        NetConfig(ownership_head=1)


def test_with_aux_heads_keeps_the_policy_and_value_and_the_evaluator_ignores_the_heads():
    net = go_net()
    grown = net.with_aux_heads(ownership=True, score=True)
    assert net.with_aux_heads() is net and grown.with_aux_heads(ownership=True) is grown
    assert grown.config.ownership_head and grown.config.score_head and not net.config.ownership_head
    planes, masks = positions("go", 6, board_size=7)
    for a, b in zip(net(torch.from_numpy(planes)), grown(torch.from_numpy(planes))):
        assert torch.equal(a, b)
    pa, va = make_evaluator(net, threads=None)(planes, masks)
    pb, vb = make_evaluator(grown, threads=None)(planes, masks)
    assert np.array_equal(pa, pb) and np.array_equal(va, vb)


def test_files_without_aux_heads_load_and_play_as_before(tmp_path):
    net = go_net()
    save_net(net, tmp_path / "new.pt")
    # a file written before the heads existed: its config has no ownership_head / score_head
    payload = net_payload(net)
    old = json.loads(payload["config"])
    del old["ownership_head"], old["score_head"]
    payload["config"] = json.dumps(old)
    torch.save(payload, tmp_path / "old.pt")
    planes, _ = positions("go", 4, board_size=5)
    x = torch.from_numpy(planes)
    for name in ("old.pt", "new.pt"):
        back = load_net(tmp_path / name, game="go", game_kwargs={"board_size": 5})
        assert not back.config.ownership_head and not back.config.score_head
        assert set(back.state_dict()) == set(net.state_dict())
        assert all(torch.equal(a, b) for a, b in zip(back(x), net(x)))
    # the shipped Go net: its file has no such fields and loads to the same weights
    shipped = read_torch_file(resolve("pretrained:go_5x5"))
    assert "ownership_head" not in json.loads(shipped["net"]["config"])
    pre = load_net("pretrained:go_5x5")
    assert all(torch.equal(pre.state_dict()[k], v) for k, v in shipped["net"]["state_dict"].items())


def test_aux_nets_round_trip_through_files(tmp_path):
    net = go_net(ownership_head=True, score_head=True)
    save_net(net, tmp_path / "aux.pt")
    back = load_net(tmp_path / "aux.pt")
    assert back.config == net.config
    x = torch.from_numpy(positions("go", 2, board_size=9)[0])
    for a, b in zip(back.forward_aux(x), net.forward_aux(x)):
        assert torch.equal(a, b)


def fixed_batch(n=32, size=5, seed=0):
    planes, masks = positions("go", n, seed=seed, board_size=size)
    policy = masks / masks.sum(1, keepdims=True)
    own = (planes[:, 0] - planes[:, 1]).astype(np.float32)  # a learnable map: own stones +1, theirs -1
    score = own.sum(axis=(1, 2))  # points, the mover's view
    return planes, policy.astype(np.float32), np.zeros(n, np.float32), masks, own, score


def test_aux_losses_are_added_with_their_weights_and_decrease_on_a_fixed_batch():
    net = go_net(ownership_head=True, score_head=True)
    planes, policy, value, masks, own, score = fixed_batch()
    base = loss(net, planes, policy, value, masks)[0]
    aux = dict(ownership=own, score=score, ownership_weight=1.5, score_weight=0.5)
    parts = {}
    total, _, _ = loss(net, planes, policy, value, masks, **aux, parts=parts)
    assert torch.allclose(total, base + 1.5 * parts["ownership_loss"] + 0.5 * parts["score_loss"])
    # the score is fitted as margin / area
    _, _, _, pred = net.forward_aux(torch.from_numpy(planes))
    assert torch.allclose(parts["score_loss"], ((pred - torch.from_numpy(score) / 25) ** 2).mean())
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    net.train()
    first = None
    for _ in range(60):
        parts = {}
        total, _, _ = loss(net, planes, policy, value, masks, **aux, parts=parts)
        first = first or {k: v.item() for k, v in parts.items()}
        opt.zero_grad()
        total.backward()
        opt.step()
    assert parts["ownership_loss"].item() < 0.7 * first["ownership_loss"]
    assert parts["score_loss"].item() < 0.7 * first["score_loss"]


def test_aux_loss_refusals():
    planes, policy, value, masks, own, score = fixed_batch(4)
    with pytest.raises(ValueError, match="needs a net with the ownership head"):
        loss(go_net(), planes, policy, value, masks, ownership=own, ownership_weight=1.0)
    net = go_net(ownership_head=True, score_head=True)
    with pytest.raises(ValueError, match="need their targets"):
        loss(net, planes, policy, value, masks, score_weight=1.0)
    with pytest.raises(ValueError, match=r"ownership must have shape \(4, 5, 5\)"):
        loss(net, planes, policy, value, masks, ownership=own[:, :4], ownership_weight=1.0)
    # weight 0: the heads stay out of the loss, whatever targets are passed
    assert torch.equal(
        loss(net, planes, policy, value, masks, ownership=own, score=score)[0],
        loss(net, planes, policy, value, masks)[0],
    )
