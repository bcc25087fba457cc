"""precision="bfloat16": forward passes under bf16 autocast on the CPU, in the evaluator, the loss
and the AlphaZero trainer; "auto" keeps the CPU in float32 exactly."""

import warnings

import numpy as np
import pytest
import torch

from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.alphazero.trainer import AlphaZeroTrainer
from zerogym_agents.core.devices import autocast, check_precision, cpu_has_bf16
from zerogym_agents.nets.evaluate import make_evaluator
from zerogym_agents.nets.model import PolicyValueNet, for_game, loss
from net_cases import positions
from tiny_runs import alphazero_config

CPU = torch.device("cpu")


def make_net(seed=0):
    torch.manual_seed(seed)
    return PolicyValueNet(for_game("connect_four", blocks=2, channels=16)).eval()


def conv_dtypes(net):
    """The dtypes the first convolution's outputs come out in, recorded on every forward pass."""
    seen = []
    conv = next(m for m in net.modules() if isinstance(m, torch.nn.Conv2d))
    conv.register_forward_hook(lambda module, inputs, out: seen.append(out.dtype))
    return seen


@pytest.mark.parametrize("bad", ["bf16", "half", "FLOAT32", "", None, 16])
def test_bad_precisions_say_what_is_allowed(bad):
    with pytest.raises(ValueError, match="precision must be one of 'auto', 'float32', 'bfloat16'"):
        check_precision(bad)
    with pytest.raises(ValueError, match="precision must be one of"):
        make_evaluator(make_net(), precision=bad)
    with pytest.raises(ValueError, match="AlphaZeroConfig.precision must be"):
        AlphaZeroConfig(precision=bad)
    with pytest.raises(ValueError, match="loss: precision must be 'float32' or 'bfloat16'"):
        planes, masks = positions("connect_four", 2)
        loss(make_net(), planes, masks / masks.sum(1, keepdims=True), np.zeros(2, np.float32), masks, precision=bad)


def test_autocast_is_off_on_the_cpu_unless_bfloat16_is_asked_for():
    x = torch.ones(4, 4)
    for precision, dtype in (("auto", torch.float32), ("float32", torch.float32), ("bfloat16", torch.bfloat16)):
        with autocast(CPU, precision):
            assert (x @ x).dtype == dtype, precision
    assert isinstance(cpu_has_bf16(), bool)


def test_auto_keeps_the_cpu_in_float32_exactly():
    net = make_net()
    planes, masks = positions("connect_four", 32)
    seen = conv_dtypes(net)
    priors, values = make_evaluator(net)(planes, masks)
    assert seen == [torch.float32]
    with torch.inference_mode():  # float32 up to the rounding of the folded BatchNorms (bf16: ~1e-2 off)
        logits, v = net(torch.from_numpy(planes))
    expect = torch.softmax(logits.masked_fill(torch.from_numpy(masks) == 0, float("-inf")), dim=1)
    np.testing.assert_allclose(values, v.numpy(), rtol=0, atol=1e-6)
    np.testing.assert_allclose(priors, expect.numpy(), rtol=0, atol=1e-6)


def test_a_bfloat16_evaluator_runs_the_net_in_bf16_and_answers_in_float32():
    net = make_net()
    planes, masks = positions("connect_four", 64, seed=1)
    exact = make_evaluator(net, precision="float32")(planes, masks)
    seen = conv_dtypes(net)
    priors, values = make_evaluator(net, precision="bfloat16")(planes, masks)
    assert seen == [torch.bfloat16]
    assert priors.dtype == values.dtype == np.float32
    assert np.all(priors[masks == 0] == 0) and np.allclose(priors.sum(1), 1, atol=1e-5)
    assert np.abs(priors - exact[0]).max() < 0.03 and np.abs(values - exact[1]).max() < 0.03
    assert not np.array_equal(values, exact[1])  # rounded, so not float32's answers


def test_a_bfloat16_loss_keeps_float32_weights_and_gradients_close_to_float32s():
    planes, masks = positions("connect_four", 64, seed=2)
    policy = masks / masks.sum(1, keepdims=True)
    value = np.random.default_rng(0).uniform(-1, 1, 64).astype(np.float32)
    grads, totals = {}, {}
    for precision in ("float32", "bfloat16"):
        net = make_net().train()
        seen = conv_dtypes(net)
        total, pol, val = loss(net, planes, policy, value, masks, precision=precision)
        assert total.dtype == torch.float32 and seen == [
            {"float32": torch.float32, "bfloat16": torch.bfloat16}[precision]
        ]
        total.backward()
        totals[precision] = total.item()
        grads[precision] = torch.cat([p.grad.flatten() for p in net.parameters()])
        assert grads[precision].dtype == torch.float32 and torch.isfinite(grads[precision]).all()
    a, b = grads["float32"], grads["bfloat16"]
    assert abs(totals["bfloat16"] - totals["float32"]) < 0.02 * totals["float32"]
    assert torch.nn.functional.cosine_similarity(a, b, dim=0) > 0.95 and not torch.equal(a, b)


def test_the_trainer_plays_and_learns_at_the_configs_precision(tmp_path):
    cfg = alphazero_config(concurrent_games=4, simulations=8, batch_size=8, min_buffer=8, precision="bfloat16")
    trainer = AlphaZeroTrainer(cfg, tmp_path / "run", log_dir=False)
    assert trainer.evaluator.precision == trainer.opp_evaluator.precision == "bfloat16"
    seen = conv_dtypes(trainer.net)
    trainer.train_for(12)
    assert trainer.train_steps > 0 and set(seen) == {torch.bfloat16}  # self-play and SGD alike
    assert all(p.dtype == torch.float32 for p in trainer.net.parameters())
    default = AlphaZeroTrainer(
        AlphaZeroConfig(**{**cfg.to_dict(), "precision": "auto", "device": "cpu"}), tmp_path / "auto", log_dir=False
    )
    seen = conv_dtypes(default.net)
    default.train_for(12)
    assert default.train_steps > 0 and set(seen) == {torch.float32}  # "auto" on the CPU: float32 throughout


@pytest.mark.parametrize("native", [False, True])
def test_bfloat16_on_a_cpu_that_emulates_it_warns(monkeypatch, native):
    monkeypatch.setattr("zerogym_agents.core.devices.cpu_has_bf16", lambda: native)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for precision in ("auto", "float32"):
            make_evaluator(make_net(), precision=precision)
        bf16 = make_evaluator(make_net(), precision="bfloat16")
    messages = [str(w.message) for w in seen if issubclass(w.category, RuntimeWarning)]
    if native:
        assert messages == []
    else:
        assert len(messages) == 1 and "without native bf16" in messages[0] and "'float32'" in messages[0]
    assert bf16.precision == "bfloat16"  # a warning, not a refusal: the evaluator is built as asked


def test_a_cpu_evaluator_hands_the_net_its_input_in_channels_last_order():
    net = make_net()
    planes, masks = positions("connect_four", 8)
    first = next(m for m in net.modules() if isinstance(m, torch.nn.Conv2d))
    seen = []
    hook = first.register_forward_pre_hook(
        lambda m, args: seen.append(args[0].is_contiguous(memory_format=torch.channels_last))
    )
    try:
        make_evaluator(net)(planes, masks)
    finally:
        hook.remove()
    assert seen == [True]


def test_the_loss_hands_a_cpu_net_its_input_in_channels_last_order_and_computes_the_same():
    net = make_net().train()
    planes, masks = positions("connect_four", 8)
    policies = (masks / masks.sum(1, keepdims=True)).astype(np.float32)
    values = np.linspace(-1, 1, 8).astype(np.float32)
    first = next(m for m in net.modules() if isinstance(m, torch.nn.Conv2d))
    seen = []
    hook = first.register_forward_pre_hook(
        lambda m, args: seen.append(args[0].is_contiguous(memory_format=torch.channels_last))
    )
    try:
        total, _, _ = loss(net, planes, policies, values, masks)
    finally:
        hook.remove()
    assert seen == [True]
    logits, z = net.forward_raw(torch.from_numpy(planes))  # the standard order, by hand
    logp = torch.log_softmax(logits.masked_fill(torch.from_numpy(masks) == 0, float("-inf")), 1)
    policy = -(torch.from_numpy(policies) * logp.masked_fill(torch.from_numpy(masks) == 0, 0)).sum(1).mean()
    assert policy.item() < total.item()  # the value loss adds to it
    torch.testing.assert_close(loss(net, planes, policies, values, masks)[1], policy, rtol=1e-5, atol=1e-6)
