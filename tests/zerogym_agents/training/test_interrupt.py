"""Ctrl-C in a training run: the first asks for a stop between steps, the second stops at once."""

import signal
import threading

import pytest

from zerogym_agents.training.interrupt import StopRequest, deadline, stopped


@pytest.fixture
def sigint(request):
    """SIGINT set to the handler given by the test's parameter (default: Python's), put back after."""
    previous = signal.signal(signal.SIGINT, getattr(request, "param", signal.default_int_handler))
    yield
    signal.signal(signal.SIGINT, previous)


def test_the_first_ctrl_c_asks_the_second_interrupts_and_the_handler_is_put_back(sigint, capsys):
    with StopRequest() as stop:
        assert not stop.requested
        signal.raise_signal(signal.SIGINT)
        assert stop.requested and "to save a checkpoint" in capsys.readouterr().err
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        stopped(stop, 7, "runs/x")
    assert "saved at step 7 in runs/x: the same command with --resume" in capsys.readouterr().err


@pytest.mark.parametrize("sigint", [signal.SIG_IGN], indirect=True)
def test_where_ctrl_c_is_ignored_nothing_is_installed(sigint):
    with StopRequest() as stop:  # e.g. a run started with nohup or in the background
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    assert not stop.requested and signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_outside_the_main_thread_nothing_is_installed(sigint):
    seen = []

    def run():
        with StopRequest() as stop:
            seen.append(signal.getsignal(signal.SIGINT))
        stopped(stop, 1, "x")  # not requested: returns
        seen.append(stop.requested)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert seen == [signal.default_int_handler, False]


@pytest.mark.parametrize("bad", [0, -1, True, "5", float("nan")])
def test_a_deadline_needs_seconds_above_zero(bad):
    assert deadline(None) is None and deadline(2.5) > 0
    with pytest.raises(ValueError, match="max_seconds must be a number > 0 or None"):
        deadline(bad)
