"""Opponent pools: frozen snapshots of a learner, drawn uniformly (ZetaGo) or by Elo (Polygames).

Polygames (Cazenave et al. 2020) keeps the last checkpoints with an Elo each and draws an opponent
with probability proportional to exp(-(Elo_learner - Elo_i) / 400): strong snapshots more often.
ZetaGo (Painter & Johnston) draws uniformly from snapshots taken every 500 episodes.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from zerogym._validate import choice_arg, int_arg

if TYPE_CHECKING:
    from zerogym_agents.core.file_checks import Fields


class OpponentPool:
    """At most `capacity` snapshots (the oldest leaves first), each with a name and an Elo.

    A snapshot is any object (a state_dict, a frozen agent); the pool never copies it, so add a
    frozen copy. sample() returns (name, snapshot); record(name, score) updates both Elos with the
    result of a game of the learner against that snapshot (score 1 win, 0.5 draw, 0 loss).
    """

    def __init__(self, capacity: int = 10, mode: str = "elo", k_factor: float = 16.0, seed: int | None = None) -> None:
        self.capacity = int_arg("OpponentPool", "capacity", capacity, 1, 10**6)
        self.mode = choice_arg("OpponentPool", "mode", mode, ("elo", "uniform"))
        self.k = float(k_factor)
        self.rng = np.random.default_rng(seed)
        self.entries: OrderedDict[str, list[Any]] = OrderedDict()  # name -> [snapshot, elo]
        self.learner_elo = 0.0
        self._count = 0

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, snapshot: Any, name: str | None = None, elo: float | None = None) -> str:
        """Add a snapshot (by default at the learner's current Elo); returns its name."""
        self._count += 1
        name = name or f"snapshot-{self._count}"
        if name in self.entries:
            raise ValueError(f"the pool already has a snapshot named {name!r}")
        self.entries[name] = [snapshot, self.learner_elo if elo is None else float(elo)]
        while len(self.entries) > self.capacity:
            self.entries.popitem(last=False)
        return name

    def probabilities(self) -> npt.NDArray[np.float64]:
        """Sampling probability of each snapshot, in pool order."""
        if not self.entries:
            return np.zeros(0)
        if self.mode == "uniform":
            return np.full(len(self.entries), 1.0 / len(self.entries))
        elos = np.array([e[1] for e in self.entries.values()])
        logits = -(self.learner_elo - elos) / 400.0
        w = np.exp(logits - logits.max())
        return w / w.sum()

    def sample(self) -> tuple[str, Any]:
        """(name, snapshot) of a drawn opponent."""
        if not self.entries:
            raise RuntimeError("the opponent pool is empty: add() a snapshot first")
        names = list(self.entries)
        name = names[self.rng.choice(len(names), p=self.probabilities())]
        return name, self.entries[name][0]

    def elo(self, name: str) -> float:
        return self.entries[name][1]

    def record(self, name: str, score: float) -> None:
        """Elo update after one game of the learner against snapshot `name`."""
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"score must be in [0, 1] (1 win, 0.5 draw, 0 loss), got {score}")
        opp = self.entries[name][1]
        expected = 1.0 / (1.0 + 10.0 ** ((opp - self.learner_elo) / 400.0))
        delta = self.k * (score - expected)
        self.learner_elo += delta
        self.entries[name][1] = opp - delta

    def state_dict(self) -> dict[str, Any]:
        """Everything but the snapshots themselves (names, Elos, counters, generator state)."""
        settings = {"capacity": self.capacity, "mode": self.mode, "k": self.k}
        return {
            **settings,
            "learner_elo": self.learner_elo,
            "count": self._count,
            "names": list(self.entries),
            "elos": [e[1] for e in self.entries.values()],
            "rng": self.rng.bit_generator.state,
        }

    @staticmethod
    def state_schema() -> Fields:
        """What load_state_dict's `state` must be (a zerogym_agents.core.checkpoint schema): state_dict()'s
        entries, as many Elos as names, unique names, no more than capacity."""
        from zerogym_agents.core.file_checks import Fields, Int, ListOf, Real, RngState, Str

        def consistent(d: dict[str, Any]) -> tuple[str, str] | None:
            names = d["names"]
            if len(d["elos"]) != len(names):
                return "elos", f"must be a list of {len(names)} (one per name), got {len(d['elos'])}"
            if len(set(names)) != len(names) or len(names) > d["capacity"]:
                return "names", f"must be at most {d['capacity']} distinct names, got {names[:12]}"
            return None

        return Fields(
            {
                "capacity": Int(1, 10**6),
                "mode": Str(("elo", "uniform")),
                "k": Real(0),
                "learner_elo": Real(),
                "count": Int(0),
                "names": ListOf(Str()),
                "elos": ListOf(Real()),
                "rng": RngState(),
            },
            rule=consistent,
        )

    def load_state_dict(self, state: dict[str, Any], snapshots: Sequence[Any]) -> None:
        """Restore from state_dict() plus the snapshots in the same order as state["names"]."""
        if len(snapshots) != len(state["names"]):
            raise ValueError(f"{len(state['names'])} snapshot names but {len(snapshots)} snapshots")
        self.capacity, self.mode, self.k = state["capacity"], state["mode"], state["k"]
        self.learner_elo, self._count = state["learner_elo"], state["count"]
        self.entries = OrderedDict((n, [s, e]) for n, s, e in zip(state["names"], snapshots, state["elos"]))
        self.rng.bit_generator.state = state["rng"]


def expected_score(elo_a: float, elo_b: float) -> float:
    """The logistic Elo expectation of A against B."""
    return 1.0 / (1.0 + math.pow(10.0, (elo_b - elo_a) / 400.0))
