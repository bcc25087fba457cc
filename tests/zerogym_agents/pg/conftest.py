"""One torch thread per test (as the trainers use), restored afterwards."""

import pytest


@pytest.fixture(autouse=True)
def one_thread(one_torch_thread):
    pass
