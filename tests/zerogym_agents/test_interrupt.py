"""Ctrl-C in a training run: the first asks for a stop between steps, the second stops at once."""
import signal
import threading

import pytest

from zerogym_agents.interrupt import StopRequest, deadline, stopped


def test_the_first_ctrl_c_asks_the_second_interrupts_and_the_handler_is_put_back(capsys):
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
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


def test_outside_the_main_thread_nothing_is_installed():
    seen = []

    def run():
        with StopRequest() as stop:
            seen.append(signal.getsignal(signal.SIGINT))
        stopped(stop, 1, "x")                   # not requested: returns
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
