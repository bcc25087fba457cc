"""make_evaluator sets torch's thread count process-wide (threads="auto"): put it back after each test."""

import pytest
import torch


@pytest.fixture(autouse=True)
def keep_threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)
