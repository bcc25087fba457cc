"""CompositeNet for games with several actions per cell (Breakthrough's moves from a cell), and network
growth of nets with the auxiliary heads."""

import torch

import zerogym
from zerogym_agents.nets import load_net, save_net
from zerogym_agents.nets.model import PolicyValueNet, _game_fields, for_game
from zerogym_agents.agents.search import AlphaZeroAgent
from zerogym_agents.transfer import CompositeNet
from zerogym_agents.transfer.grow import grow
from zerogym_agents.transfer.settings import GAME_FIELDS
from net_cases import positions

TINY = dict(downscalings=1, features=6, feature_layers=1, head_layers=1, head_channels=6)


def breakthrough_net(size, seed=0):
    torch.manual_seed(seed)
    return PolicyValueNet(
        for_game(
            "breakthrough",
            game_kwargs={"rows": size, "cols": size},
            blocks=1,
            channels=8,
            policy_hidden=8,
            value_hidden=8,
        )
    ).eval()


def test_a_breakthrough_composite_gives_one_logit_per_move(tools, tmp_path):
    small = breakthrough_net(4)
    assert small.config.action_layout == "cell_moves" and small.config.actions_per_cell == 3
    comp = CompositeNet(small, 6, small_size=4, **TINY).eval()
    spec = zerogym.make_state("breakthrough", rows=6, cols=6).spec
    assert comp.config.actions_per_cell == 3
    comp.config.check_game("breakthrough", {"rows": 6, "cols": 6})
    planes, masks = tools.positions("breakthrough", 3, rows=6, cols=6)
    logits, value = comp(torch.from_numpy(planes))
    assert logits.shape == (3, spec.num_actions) == (3, 6 * 6 * 3) and comp.num_actions(6, 6) == spec.num_actions
    # R1 per window: the frozen net's probability of moving from each cell, summing to 1 over the window
    r1 = comp.window_policies(torch.from_numpy(planes))
    assert r1.shape == (3, 9, 6, 6)
    assert torch.allclose(r1.sum(dim=(2, 3)), torch.ones(3, 9), atol=1e-5)
    with torch.no_grad():
        cells = small.policy.cells(small.trunk(torch.from_numpy(planes)[:, :, 1:5, 2:6]))  # window (1, 2)
    want = torch.softmax(cells.permute(0, 2, 3, 1).flatten(1), 1).view(3, 4, 4, 3).sum(3)
    assert torch.allclose(r1[:, 1 * 3 + 2, 1:5, 2:6], want, atol=1e-6)
    save_net(comp, tmp_path / "comp.pt")
    back = load_net(tmp_path / "comp.pt", game="breakthrough", game_kwargs={"rows": 6, "cols": 6})
    assert torch.equal(back(torch.from_numpy(planes))[0], logits)
    env = zerogym.make("breakthrough", rows=6, cols=6)
    env.reset(seed=0)
    assert env.unwrapped.state.is_legal(AlphaZeroAgent(comp, simulations=4).act(env))


def test_game_fields_are_the_fields_for_game_sets():
    spec = zerogym.make_state("breakthrough", rows=5, cols=5).spec
    assert set(GAME_FIELDS) == set(_game_fields(spec))


def test_grow_keeps_the_aux_heads_function():
    torch.manual_seed(0)
    net = PolicyValueNet(
        for_game("go", game_kwargs={"board_size": 5}, blocks=1, channels=8, ownership_head=True, score_head=True)
    ).eval()
    big = grow(net, blocks=2, channels=12, seed=1)
    x = torch.from_numpy(positions("go", 3, board_size=7)[0])
    for a, b in zip(net.forward_aux(x), big.forward_aux(x)):
        assert torch.allclose(a, b, atol=1e-5)
    assert big.config.ownership_head and big.config.score_head
