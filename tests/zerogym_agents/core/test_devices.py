"""Device settings: names checked, "auto" resolved, CUDA refused clearly where there is none."""

import pytest
import torch

from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.core.devices import check_device_name, resolve_device
from zerogym_agents.nets import PolicyValueNet, for_game, make_evaluator
from zerogym_agents.pg.config import PGConfig
from zerogym_agents.agents.saved import load_agent

NO_CUDA = not torch.cuda.is_available()


@pytest.mark.parametrize("name", ["auto", "cpu", "cuda", "cuda:0", "cuda:12"])
def test_device_names_accepted(name):
    assert check_device_name(name) == name


@pytest.mark.parametrize("name", ["gpu", "CUDA", "cuda:", "cuda:x", "cpu:0", "", 0, None])
def test_bad_device_names_say_what_is_allowed(name):
    with pytest.raises(ValueError, match=r'device must be "auto", "cpu", "cuda" or "cuda:N"'):
        check_device_name(name)
    with pytest.raises(ValueError, match="AlphaZeroConfig.device must be"):
        AlphaZeroConfig(device=name)
    with pytest.raises(ValueError, match="PGConfig.device must be"):
        PGConfig(device=name)


def test_configs_default_to_auto():
    assert AlphaZeroConfig().device == "auto" and PGConfig().device == "auto"


@pytest.mark.skipif(not NO_CUDA, reason="this machine has a CUDA GPU")
def test_auto_is_the_cpu_without_a_gpu():
    assert resolve_device("auto") == torch.device("cpu")
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")


@pytest.mark.skipif(not NO_CUDA, reason="this machine has a CUDA GPU")
@pytest.mark.parametrize("name", ["cuda", "cuda:1"])
def test_cuda_without_a_gpu_is_refused_by_name(name, tmp_path):
    with pytest.raises(ValueError, match=f"device '{name}' asked for, but"):
        resolve_device(name)
    with pytest.raises(ValueError, match="asked for"):
        load_agent("pretrained:tictactoe", device=name)
    with pytest.raises(ValueError, match="asked for"):
        make_evaluator(PolicyValueNet(for_game("tictactoe", blocks=1, channels=8)), device=name)
    from zerogym_agents.alphazero.trainer import AlphaZeroTrainer

    with pytest.raises(ValueError, match="asked for"):
        AlphaZeroTrainer({"game": "tictactoe", "device": name}, tmp_path / "run", log_dir=False)
    assert not (tmp_path / "run" / "checkpoint.pt").exists()


def test_load_agent_puts_the_net_on_the_device():
    agent = load_agent("pretrained:tictactoe", device="auto")
    device = next(agent.evaluator.net.parameters()).device
    assert device == resolve_device("auto")
    assert agent.evaluator.device == device  # the evaluator follows the net, it does not move it back


@pytest.mark.skipif(NO_CUDA, reason="needs a CUDA GPU")
def test_cuda_evaluator_matches_the_cpu_one_closely():
    import numpy as np

    net = PolicyValueNet(for_game("tictactoe", blocks=1, channels=8)).eval()
    planes = np.random.default_rng(0).integers(0, 2, (16, net.config.in_planes, 3, 3)).astype(np.float32)
    masks = np.ones((16, 9), np.int8)
    p_cpu, v_cpu = make_evaluator(net, device="cpu")(planes, masks)
    import copy

    p_gpu, v_gpu = make_evaluator(copy.deepcopy(net), device="cuda")(planes, masks)
    assert p_gpu.dtype == np.float32 and np.allclose(p_cpu, p_gpu, atol=2e-2) and np.allclose(v_cpu, v_gpu, atol=2e-2)


@pytest.mark.skipif(NO_CUDA, reason="needs a CUDA GPU")
def test_a_gpu_is_named_with_its_index():
    current = torch.device("cuda", torch.cuda.current_device())
    assert resolve_device("auto") == resolve_device("cuda") == resolve_device(torch.device("cuda")) == current
    assert resolve_device("cuda:0") == torch.device("cuda", 0)
    assert torch.zeros(1, device=resolve_device("cuda")).device == current
