"""Evaluators: masked priors, values, symmetry averaging, batching, bad input, the uniform one."""

import numpy as np
import pytest
import torch

import zerogym
from zerogym.symmetry import Symmetries
from zerogym_agents.nets.evaluate import _masked_softmax, make_evaluator
from zerogym_agents.nets.model import PolicyValueNet, for_game
from net_cases import positions


def make_net(game, seed=0, **kw):
    torch.manual_seed(seed)
    net = PolicyValueNet(for_game(game, blocks=1, channels=8, **kw))
    with torch.no_grad():  # non-trivial BN statistics so that eval mode matters
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.normal_(0, 0.2)
                m.running_var.uniform_(0.5, 1.5)
    return net.eval()


def np_masked_softmax(logits, mask):
    out = np.zeros_like(logits, dtype=np.float64)
    for i in range(len(logits)):
        legal = mask[i] != 0
        if legal.any():
            e = np.exp(logits[i, legal] - logits[i, legal].max())
            out[i, legal] = e / e.sum()
    return out


def test_priors_are_the_softmax_over_legal_actions():
    net = make_net("go")
    planes, masks = positions("go", 12, board_size=5)
    rng = np.random.default_rng(1)
    masks = (masks * (rng.random(masks.shape) < 0.5)).astype(np.int8)  # fewer legal moves
    masks[0] = 0  # no legal action at all
    masks[1] = 0
    masks[1, 25] = 1  # only pass
    priors, values = make_evaluator(net)(planes, masks)
    assert priors.dtype == np.float32 and values.dtype == np.float32
    assert priors.shape == (12, 26) and values.shape == (12,)
    assert (priors[masks == 0] == 0).all()
    assert np.allclose(priors[2:].sum(axis=1), 1, atol=1e-5) and (priors[0] == 0).all() and priors[1, 25] == 1
    with torch.no_grad():
        logits, v = net(torch.from_numpy(planes))
    assert np.allclose(priors, np_masked_softmax(logits.double().numpy(), masks), atol=1e-6)
    assert np.allclose(values, v.numpy(), atol=1e-6) and (np.abs(values) <= 1).all()


def test_masked_softmax_ignores_huge_illegal_logits():
    logits = torch.tensor([[1e4, 0.0, 1.0, -1e30], [3.0, 2.0, 1e38, 0.0], [5.0, 5.0, 5.0, 5.0]])
    mask = torch.tensor([[0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 0, 0]], dtype=torch.bool)
    p = _masked_softmax(logits, mask).double().numpy()
    e1, e2 = np.exp([0.0, 1.0]), np.exp([3.0, 2.0])
    want = np.array(
        [[0, e1[0] / e1.sum(), e1[1] / e1.sum(), 0], [e2[0] / e2.sum(), e2[1] / e2.sum(), 0, 0], [0, 0, 0, 0]]
    )
    assert np.allclose(p, want, atol=1e-7) and np.isfinite(p).all()


def test_columns_game_and_other_sizes_with_one_evaluator():
    net = make_net("connect_four")
    ev = make_evaluator(net)
    for kwargs in ({}, {"rows": 5, "cols": 4}):
        planes, masks = positions("connect_four", 5, **kwargs)
        priors, values = ev(planes, masks)
        assert priors.shape == masks.shape and np.allclose(priors.sum(axis=1), 1, atol=1e-5)


def brute_force_average(net, syms, planes, masks):
    """Evaluate every transformed position separately and map each policy back with the inverse."""
    ps, vs = [], []
    for k in range(len(syms)):
        with torch.no_grad():
            logits, v = net(torch.from_numpy(np.ascontiguousarray(syms.planes(planes, k))))
        p = np_masked_softmax(logits.double().numpy(), syms.policy(masks, k))
        ps.append(syms.policy(p, syms.inverse(k)))
        vs.append(v.double().numpy())
    return np.mean(ps, axis=0), np.mean(vs, axis=0)


CASES = [
    ("go", {"board_size": 5}),
    ("hex", {"board_size": 5}),
    ("connect_four", {}),
    ("othello", {"board_size": 6}),
    ("tictactoe", {}),
]


@pytest.mark.parametrize("game,kwargs", CASES)
def test_symmetry_average_matches_brute_force_and_is_invariant(game, kwargs):
    st = zerogym.make_state(game, **kwargs)
    syms = st.symmetries()
    net = make_net(game)
    planes, masks = positions(game, 6, seed=2, **kwargs)
    ev = make_evaluator(net, symmetries=syms)
    priors, values = ev(planes, masks)
    want_p, want_v = brute_force_average(net, syms, planes, masks)
    assert np.allclose(priors, want_p, atol=1e-5) and np.allclose(values, want_v, atol=1e-5)
    plain, _ = make_evaluator(net)(planes, masks)
    assert not np.allclose(plain, priors, atol=1e-4)  # averaging did something
    for j in range(len(syms)):
        pj, vj = ev(np.ascontiguousarray(syms.planes(planes, j)), np.ascontiguousarray(syms.policy(masks, j)))
        assert np.allclose(pj, syms.policy(priors, j), atol=1e-5)
        assert np.allclose(vj, values, atol=1e-5)


def test_symmetries_from_names_state_or_other_board_size():
    net = make_net("go")
    planes, masks = positions("go", 4, seed=3, board_size=7)
    st7 = zerogym.make_state("go", board_size=7)
    want = make_evaluator(net, symmetries=st7.symmetries())(planes, masks)
    for given in (st7, st7.spec, list(st7.spec.symmetry_names), zerogym.make_state("go", board_size=5).symmetries()):
        got = make_evaluator(net, symmetries=given)(planes, masks)
        assert np.allclose(got[0], want[0], atol=1e-6) and np.allclose(got[1], want[1], atol=1e-6)
    sub = make_evaluator(net, symmetries=["identity", "rot180"])(planes, masks)
    want_p, _ = brute_force_average(net, Symmetries(["identity", "rot180"], 7, 7, 50), planes, masks)
    assert np.allclose(sub[0], want_p, atol=1e-5)


def test_batch_size_splits_without_changing_results():
    net = make_net("othello")
    planes, masks = positions("othello", 10, board_size=6)
    syms = zerogym.make_state("othello", board_size=6).symmetries()
    full = make_evaluator(net, symmetries=syms)(planes, masks)
    calls = []
    net.register_forward_hook(lambda m, i, o: calls.append(i[0].shape[0]))
    split = make_evaluator(net, symmetries=syms, batch_size=7)(planes, masks)
    assert calls == [7] * 11 + [3]  # 10 positions x 8 transforms in rows of at most 7
    assert np.allclose(full[0], split[0], atol=1e-6) and np.allclose(full[1], split[1], atol=1e-6)


def test_evaluating_leaves_training_state_alone():
    net = make_net("tictactoe").train()
    before = {k: v.clone() for k, v in net.state_dict().items()}
    planes, masks = positions("tictactoe", 5)
    p1, _ = make_evaluator(net)(planes, masks)
    assert net.training
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items())  # BN statistics not updated
    net.eval()
    p2, _ = make_evaluator(net)(planes, masks)
    assert np.array_equal(p1, p2)  # both ran in eval mode


def test_threads_setting():
    net = make_net("tictactoe")
    make_evaluator(net, threads=1)
    assert torch.get_num_threads() == 1
    make_evaluator(net, threads=None)
    assert torch.get_num_threads() == 1
    with pytest.raises(ValueError, match="threads must be a positive integer, 'auto' or None"):
        make_evaluator(net, threads=0)


def test_bad_input():
    net = make_net("go")
    ev = make_evaluator(net)
    planes, masks = positions("go", 3, board_size=5)
    with pytest.raises(ValueError, match="planes must be a float32 numpy array"):
        ev(planes.astype(np.float64), masks)
    with pytest.raises(ValueError, match="planes have 3 channels, the net takes 7"):
        ev(planes[:, :3].copy(), masks)
    with pytest.raises(ValueError, match="masks have 25 actions; the net gives 26 on a 5x5 board"):
        ev(planes, masks[:, :25])
    with pytest.raises(ValueError, match="with B = 3 like the planes"):
        ev(planes, masks[:2])
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        make_evaluator(net, batch_size=0)
    with pytest.raises(ValueError, match="symmetries must be None"):
        make_evaluator(net, symmetries="rot90")
    with pytest.raises(ValueError, match="unknown transforms"):
        make_evaluator(net, symmetries=["spin"])(planes, masks)
