"""Seeds derived from a run's seed and a purpose, so that every random stream is independent."""

import numpy as np


def seed_int(*words: int) -> int:
    """A 63-bit seed from a list of ints (SeedSequence entropy)."""
    return int(np.random.SeedSequence([int(w) for w in words]).generate_state(1, np.uint64)[0] >> np.uint64(1))
