"""Calls raced between two threads, for the compiled searches that refuse a second thread."""

import threading
import time


def race(background, foreground, seconds=1.0, ignore=()):
    """Loop the calls of `background` on a second thread while those of `foreground` loop on this one
    for `seconds`; returns the messages of the RuntimeErrors raised (exceptions of the types in
    `ignore` are passed over)."""
    stop = threading.Event()
    refused = []

    def attempt(call):
        try:
            call()
        except ignore:
            pass
        except RuntimeError as err:
            refused.append(str(err))

    def loop():
        while not stop.is_set():
            for call in background:
                attempt(call)

    worker = threading.Thread(target=loop)
    worker.start()
    end = time.time() + seconds
    try:
        while time.time() < end:
            for call in foreground:
                attempt(call)
    finally:
        stop.set()
        worker.join()
    return refused
