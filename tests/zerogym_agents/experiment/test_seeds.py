"""Seeds derived from a run's seed and a purpose."""

from zerogym_agents.experiment.seeds import seed_int


def test_derived_seeds_are_stable_distinct_and_63_bit():
    seeds = {seed_int(0, 7, k, j) for k in range(10) for j in range(4)}
    assert len(seeds) == 40 and all(0 <= s < 2**63 for s in seeds)
    assert seed_int(0, 9, 1) == seed_int(0, 9, 1) != seed_int(0, 1, 9)
