"""Fixtures shared by the agents' tests."""

import os

import pytest


@pytest.fixture(scope="session")
def gnugo():
    """The gnugo executable; the test is skipped where it is missing, except under CI, which installs it."""
    from zerogym_agents.agents.gnugo import GnuGoNotFoundError, find_gnugo

    try:
        return find_gnugo()
    except GnuGoNotFoundError as err:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"GNU Go is not installed: {err}")


@pytest.fixture
def one_torch_thread():
    """One torch thread for the test, restored afterwards."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def nets_only_on_meta(monkeypatch):
    """A context manager: inside it, building a torch module fails unless on the meta device (shapes
    only, no memory), so what reads a file claiming a huge network must refuse it unallocated."""
    import contextlib

    import torch

    init = torch.nn.Module.__init__

    def checked(self, *args, **kwargs):
        assert torch.empty(0).device.type == "meta", "a network was built in memory"
        init(self, *args, **kwargs)

    @contextlib.contextmanager
    def only_on_meta():
        with monkeypatch.context() as m:
            m.setattr(torch.nn.Module, "__init__", checked)
            yield

    return only_on_meta


@pytest.fixture
def tools(one_torch_thread):
    """The network helpers of net_cases for the size-transfer tests (nets, growth, composites), on one
    torch thread: these nets are tiny, and the machine may be busy."""
    import types

    from net_cases import positions, randomize_bn, small_go_net, targets

    return types.SimpleNamespace(
        positions=positions,
        randomize_bn=lambda net, seed=0: randomize_bn(net, seed, 0.2),
        small_go_net=small_go_net,
        targets=targets,
    )
