"""Fixtures shared by the agents' tests."""
import os

import pytest


@pytest.fixture(scope="session")
def gnugo():
    """The gnugo executable; the test is skipped where it is missing, except under CI, which installs it."""
    from zerogym_agents.gnugo import GnuGoNotFoundError, find_gnugo
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
