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
