"""Running the inputs of targets in this process: time limits, findings, the crash slot."""

import os
import random
import signal
import struct
import time
import traceback

from .common import Finding, Timeout, input_seed
from .targets import TARGETS, make_target

CRASH_SLOT = struct.Struct("<qq")  # (target number, input index) a worker is about to run


class Alarm:
    """Raise Timeout in the main thread after `seconds` (Python-level slowness; the parent process
    catches hangs in compiled code by watching the crash slot)."""

    def __init__(self):
        self.ok = hasattr(signal, "setitimer")
        if self.ok:
            try:
                self.previous = signal.signal(signal.SIGALRM, self._fire)
            except ValueError:  # not the main thread
                self.ok = False

    def close(self):
        if self.ok:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)

    @staticmethod
    def _fire(signum, frame):
        raise Timeout()

    def arm(self, seconds):
        if self.ok:
            signal.setitimer(signal.ITIMER_REAL, seconds)

    def disarm(self):
        if self.ok:
            signal.setitimer(signal.ITIMER_REAL, 0)


def run_input(tgt, inp, alarm):
    """(kind, message, detail) of a finding, or None when the input behaved."""
    try:
        alarm.arm(tgt.timeout)
        try:
            tgt.execute(inp)
        finally:
            alarm.disarm()
    except Finding as f:
        return "broken promise", str(f), traceback.format_exc()
    except Timeout:
        return "hang", f"an input ran longer than {tgt.timeout:g} s", traceback.format_exc()
    except Exception as err:
        frames = traceback.extract_tb(err.__traceback__)
        where = f"{os.path.basename(frames[-1].filename)}:{frames[-1].name}" if frames else "?"
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        return "unexpected exception", f"{type(err).__name__} in {where}: {first}", traceback.format_exc()
    return None


def run_targets(names, budgets, seed, offset, stride, start, rec, emit, slot=None, crash_at=None):
    """Run each target in `names` for budgets[name] seconds on inputs offset, offset + stride, ...
    crash_at=(target, index): abort the process there (to test the handling of crashes)."""
    import warnings

    warnings.filterwarnings("ignore", message="__index__ returned non-int", category=DeprecationWarning)
    alarm = Alarm()
    for name in names:
        t_setup = time.monotonic()
        tgt = make_target(name, seed)
        setup = time.monotonic() - t_setup
        number = TARGETS.index(name)
        index = start.get(name, offset)
        t0 = time.monotonic()
        deadline = t0 + max(0.0, budgets[name])
        last = 0.0
        counts = rec.counts[name]
        rng = random.Random()
        while True:
            now = time.monotonic()
            if now >= deadline:
                break
            if now - last > 0.25:
                rec.seconds[name] = now - t0
                emit(name, index, setup)
                last = now
            if slot is not None:
                CRASH_SLOT.pack_into(slot, 0, number, index)
            rng.seed(input_seed(seed, name, index))
            inp = tgt.generate(rng)
            if crash_at == (name, index):
                os.abort()
            found = run_input(tgt, inp, alarm)
            if found:
                rec.add(name, *found, index=index, inp=inp, tgt=tgt)
            counts[inp["game"]] += 1
            index += stride
        rec.seconds[name] = time.monotonic() - t0
        emit(name, index, setup, done=True)
    alarm.close()
