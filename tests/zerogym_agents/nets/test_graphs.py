"""CUDA graphs of the forward pass: padded batch sizes, fixed buffers reused across batches of
different sizes, recapture when the net's storage moves; on a GPU, graphs against the eager pass."""

import numpy as np
import pytest
import torch

from zerogym_agents.nets.evaluate import make_evaluator
from zerogym_agents.nets.graphs import GraphedForward, padded_size
from zerogym_agents.nets.model import PolicyValueNet, for_game
from net_cases import positions, randomize_bn


def make_net(game, **kwargs):
    torch.manual_seed(0)
    return randomize_bn(PolicyValueNet(for_game(game, game_kwargs=kwargs, blocks=1, channels=8)), 0, 0.2).eval()


cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def test_padded_size_is_at_most_a_quarter_more_and_four_sizes_per_doubling():
    sizes = [padded_size(n) for n in range(1, 5000)]
    for n, b in zip(range(1, 5000), sizes):
        assert n <= b <= n + max(n // 4, 0) + 1 and b <= 1.25 * n + 1
    for k in range(3, 12):  # sizes in (2**k, 2**(k+1)]
        assert len({padded_size(n) for n in range(2**k + 1, 2 ** (k + 1) + 1)}) == 4
    assert padded_size(4096) == 4096 and padded_size(1024) == 1024
    with pytest.raises(ValueError, match="at least one row"):
        padded_size(0)


class Refreshed(GraphedForward):
    """A GraphedForward over an evaluator's pass that first brings the evaluator's folded copy of the
    net up to date, as the evaluator does before each batch."""

    def __init__(self, ev):
        super().__init__(ev._graph_run, torch.device("cpu"), ev._storage)
        self.ev = ev

    def __call__(self, planes, masks):
        self.ev._refresh()
        return super().__call__(planes, masks)


def on_cpu(game, **kwargs):
    """A net and a GraphedForward over its evaluator's pass, on the CPU (the same buffers, no graph)."""
    net = make_net(game, **kwargs)
    return net, Refreshed(make_evaluator(net, device="cpu", threads=None))


def eager(net, planes, masks):
    return make_evaluator(net, device="cpu", threads=None, cuda_graphs=False)(planes, masks)


def test_fixed_buffers_give_the_eager_answers_for_any_batch_size_in_any_order():
    net, graphed = on_cpu("go", board_size=5)
    planes, masks = positions("go", 40, board_size=5)
    with torch.inference_mode():
        for n in (40, 7, 33, 1, 40, 29):  # smaller batches leave an earlier batch's rows behind
            priors, values = graphed(planes[:n], masks[:n])
            want_p, want_v = eager(net, planes[:n], masks[:n])
            assert priors.shape == want_p.shape and values.shape == want_v.shape
            np.testing.assert_allclose(priors, want_p, atol=1e-6)
            np.testing.assert_allclose(values, want_v, atol=1e-6)
    assert len(graphed._slots) == len({padded_size(n) for n in (40, 7, 33, 1, 29)})


def test_answers_are_copies_that_the_next_batch_leaves_alone():
    net, graphed = on_cpu("connect_four")
    planes, masks = positions("connect_four", 16)
    with torch.inference_mode():
        first, _ = graphed(planes[:8], masks[:8])
        kept = first.copy()
        graphed(planes[8:], masks[8:])
    np.testing.assert_array_equal(first, kept)


def test_masks_of_any_one_byte_or_wider_dtype_mean_the_same():
    net, graphed = on_cpu("connect_four")
    planes, masks = positions("connect_four", 6)
    with torch.inference_mode():
        want, _ = graphed(planes, masks)
        for dtype in (np.bool_, np.uint8, np.int64):
            got, _ = graphed(planes, masks.astype(dtype))
            np.testing.assert_array_equal(got, want)


def test_moving_the_nets_storage_drops_the_buffers_and_in_place_steps_need_nothing():
    net, graphed = on_cpu("go", board_size=5)
    planes, masks = positions("go", 5, board_size=5)
    with torch.inference_mode():
        graphed(planes, masks)
    slots = dict(graphed._slots)
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.1)  # in place: same storage
    with torch.inference_mode():
        after_step, _ = graphed(planes, masks)
    assert graphed._slots == slots
    np.testing.assert_allclose(after_step, eager(net, planes, masks)[0], atol=1e-6)
    net.load_state_dict({k: v.clone() for k, v in net.state_dict().items()}, assign=True)  # new storage
    with torch.inference_mode():
        graphed(planes, masks)
    assert graphed._slots and all(graphed._slots[k] is not slots[k] for k in graphed._slots)


def test_graphs_are_asked_for_only_where_they_can_run():
    net = make_net("go", board_size=5)
    assert make_evaluator(net, device="cpu", threads=None).graphed is None  # "auto" on a CPU: off
    with pytest.raises(ValueError, match="cuda_graphs=True needs a CUDA device"):
        make_evaluator(net, device="cpu", threads=None, cuda_graphs=True)
    with pytest.raises(ValueError, match="cuda_graphs must be"):
        make_evaluator(net, device="cpu", threads=None, cuda_graphs="yes")


@cuda
@pytest.mark.parametrize("game, kwargs", [("go", {"board_size": 9}), ("connect_four", {})])
def test_on_a_gpu_the_graphs_replay_what_the_eager_pass_computes(game, kwargs):
    net = make_net(game, **kwargs)
    planes, masks = positions(game, 300, **kwargs)
    pairs = {}
    for precision in ("auto", "float32"):
        graphed = make_evaluator(net, device="cuda", threads=None, precision=precision)
        plain = make_evaluator(net, device="cuda", threads=None, precision=precision, cuda_graphs=False)
        assert graphed.graphed is not None and plain.graphed is None
        tol = 1e-5 if precision == "float32" else 3e-2
        for n in (300, 77, 300, 1):
            p, v = graphed(planes[:n], masks[:n])
            q, w = plain(planes[:n], masks[:n])
            np.testing.assert_allclose(p, q, atol=tol)
            np.testing.assert_allclose(v, w, atol=tol)
        assert graphed.graphed.captures == len({padded_size(n) for n in (300, 77, 1)})
        pairs[precision] = graphed, plain
    graphed, plain = pairs["float32"]
    before = graphed(planes[:77], masks[:77])[0]
    opt = torch.optim.SGD(net.parameters(), lr=0.5)  # an in-place step: the replay sees it
    net.train()
    opt.zero_grad()
    net(torch.from_numpy(planes[:32]).cuda())[0].sum().backward()
    opt.step()
    after = graphed(planes[:77], masks[:77])[0]
    assert np.abs(after - before).max() > 1e-3
    np.testing.assert_allclose(after, plain(planes[:77], masks[:77])[0], atol=1e-5)
