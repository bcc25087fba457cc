"""What the fuzzer's modules share: the repository root, the outcomes of an input, the seed of each input."""

import hashlib
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


class Finding(Exception):
    """An outcome the contract does not allow (the message says which)."""


class Timeout(BaseException):
    """One input ran longer than its target's timeout (a BaseException: code under test cannot catch it)."""


def input_seed(seed, target, index):
    """The seed of input `index` of `target`: every input is rebuilt from these three alone."""
    digest = hashlib.blake2b(f"{seed}:{target}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def sanitizers_active():
    """Which sanitizer runtimes this process has loaded ("" when none)."""
    found = []
    try:
        with open("/proc/self/maps") as f:
            maps = f.read()
    except OSError:
        maps = os.environ.get("LD_PRELOAD", "")
    for libs, name in (
        (("libasan",), "AddressSanitizer"),
        (("libubsan",), "UndefinedBehaviorSanitizer"),
        (("libtsan", "clang_rt.tsan"), "ThreadSanitizer"),
    ):
        if any(lib in maps for lib in libs):
            found.append(name)
    return " + ".join(found)


def valid_index(x, n):
    """True for an int (not a bool) in range(n): what a transform must accept."""
    import numpy as np

    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) and 0 <= x < n
