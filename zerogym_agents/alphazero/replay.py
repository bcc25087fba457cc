"""The replay buffer of self-play positions: cyclic, bounded, each sample reused a limited number of times."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import torch

from zerogym._validate import int_arg

if TYPE_CHECKING:
    from zerogym.symmetry import Symmetries
    from zerogym_agents.core.file_checks import Fields


class ReplayBuffer:
    """Positions (planes, legal mask, search policy, final outcome from the mover's view).

    Cyclic: past `capacity` the oldest positions are overwritten. A position is drawn at most
    `max_reuse` times (Polygames uses about 8), so training cannot run far ahead of self-play.
    With `symmetries` (a zerogym.symmetry.Symmetries), sample() applies a random board transform
    to each position: planes, mask and policy alike. Planes are stored as int8 (every zerogym
    observation plane is 0/1) and returned as float32.

    With aux=True (KataGo's auxiliary targets, Go) each position also holds the final owner of
    every point (H, W) int8 in {-1, 0, 1} and the final score margin (points), both from the
    mover's view; the ownership map is transformed with the planes.
    """

    def __init__(
        self,
        capacity: int,
        planes_shape: Sequence[int],
        num_actions: int,
        max_reuse: int = 8,
        symmetries: Symmetries | None = None,
        seed: int | None = None,
        aux: bool = False,
    ) -> None:
        self.capacity = int_arg("ReplayBuffer", "capacity", capacity, 1, 10**9)
        self.max_reuse = int_arg("ReplayBuffer", "max_reuse", max_reuse, 1, 10**6)
        self.planes_shape = tuple(planes_shape)
        self.num_actions = int(num_actions)
        self.symmetries = symmetries
        self.rng = np.random.default_rng(seed)
        self.planes = np.zeros((self.capacity,) + self.planes_shape, np.int8)
        self.masks = np.zeros((self.capacity, self.num_actions), np.int8)
        self.policies = np.zeros((self.capacity, self.num_actions), np.float32)
        self.values = np.zeros(self.capacity, np.float32)
        self.uses = np.zeros(self.capacity, np.int32)
        self.aux = bool(aux)
        if self.aux:
            self.ownership = np.zeros((self.capacity,) + self.planes_shape[1:], np.int8)
            self.scores = np.zeros(self.capacity, np.float32)
        self.size = 0  # positions stored
        self.next = 0  # slot the next position goes to
        self.added = 0  # positions ever added

    def __len__(self) -> int:
        return self.size

    def available(self) -> int:
        """How many stored positions may still be drawn."""
        return int(np.count_nonzero(self.uses[: self.size] < self.max_reuse))

    def add(
        self,
        planes: npt.ArrayLike,
        masks: npt.ArrayLike,
        policies: npt.ArrayLike,
        values: npt.ArrayLike,
        ownership: npt.ArrayLike | None = None,
        scores: npt.ArrayLike | None = None,
    ) -> None:
        """Append a batch: planes (B, C, H, W) of 0/1, masks (B, A), policies (B, A), values (B,);
        with aux, also ownership (B, H, W) and scores (B,) (and never without)."""
        planes = np.asarray(planes)
        b = len(planes)
        if planes.shape[1:] != self.planes_shape:
            raise ValueError(
                f"planes must have shape (B, {', '.join(map(str, self.planes_shape))}), got {planes.shape}"
            )
        if (ownership is not None or scores is not None) != self.aux or (
            self.aux and (ownership is None or scores is None)
        ):
            raise ValueError(
                "ownership and scores must be given together, exactly when the buffer holds auxiliary "
                f"targets (this one {'does' if self.aux else 'does not'})"
            )
        checks: list[tuple[str, Any, tuple[int, ...]]] = [
            ("masks", masks, (b, self.num_actions)),
            ("policies", policies, (b, self.num_actions)),
            ("values", values, (b,)),
        ]
        if self.aux:
            checks += [("ownership", ownership, (b,) + self.planes_shape[1:]), ("scores", scores, (b,))]
        for name, arr, shape in checks:
            if np.shape(arr) != shape:
                raise ValueError(f"{name} must have shape {shape}, got {np.shape(arr)}")
        idx = (self.next + np.arange(b)) % self.capacity
        self.planes[idx] = planes
        self.masks[idx] = masks
        self.policies[idx] = policies
        self.values[idx] = values
        if self.aux:
            assert ownership is not None and scores is not None  # checked above
            self.ownership[idx] = ownership
            self.scores[idx] = scores
        self.uses[idx] = 0
        self.next = int((self.next + b) % self.capacity)
        self.size = min(self.capacity, self.size + b)
        self.added += b

    def sample(self, batch_size: int) -> dict[str, np.ndarray] | None:
        """A training batch of `batch_size` distinct positions still under their reuse cap, as
        float32 arrays {planes, masks, policies, values} (with aux, also ownership and scores);
        None when fewer are available."""
        open_ = np.flatnonzero(self.uses[: self.size] < self.max_reuse)
        if len(open_) < batch_size:
            return None
        idx = self.rng.choice(open_, size=batch_size, replace=False)
        self.uses[idx] += 1
        planes = self.planes[idx].astype(np.float32)
        masks, policies = self.masks[idx].copy(), self.policies[idx].copy()
        ownership = self.ownership[idx].astype(np.float32) if self.aux else None
        if self.symmetries is not None and len(self.symmetries) > 1:
            ks = self.rng.integers(len(self.symmetries), size=batch_size)
            for k in np.unique(ks):
                sel = ks == k
                planes[sel] = self.symmetries.planes(planes[sel], k)
                masks[sel] = self.symmetries.policy(masks[sel], k)
                policies[sel] = self.symmetries.policy(policies[sel], k)
                if ownership is not None:  # (..., H, W): a board plane like the planes' own
                    ownership[sel] = self.symmetries.planes(ownership[sel], k)
        batch = {"planes": planes, "masks": masks, "policies": policies, "values": self.values[idx].copy()}
        if self.aux:
            batch.update(ownership=ownership, scores=self.scores[idx].copy())
        return batch

    def _arrays(self) -> dict[str, np.ndarray]:
        """{name: stored array} of what a checkpoint holds, per position."""
        names = ("planes", "masks", "policies", "values", "uses") + (("ownership", "scores") if self.aux else ())
        return {k: getattr(self, k) for k in names}

    def state_dict(self) -> dict[str, Any]:
        """The stored positions and counters as tensors and plain data (for weights_only checkpoints)."""
        n = self.size
        return {
            **{k: torch.from_numpy(a[:n].copy()) for k, a in self._arrays().items()},
            "size": n,
            "next": self.next,
            "added": self.added,
            "capacity": self.capacity,
            "max_reuse": self.max_reuse,
            "rng": self.rng.bit_generator.state,
        }

    def state_schema(self) -> Fields:
        """What load_state_dict needs (a zerogym_agents.core.checkpoint schema): state_dict()'s entries
        with their dtypes, this buffer's capacity and shapes, values in range, and the counters
        consistent with one another."""
        from zerogym_agents.core.file_checks import Fields, Int, RngState, Tensor

        a, cap = self.num_actions, self.capacity

        def consistent(d: dict[str, Any]) -> str | None:
            n = d["size"]
            rows = {k: d[k].shape[0] for k in self._arrays()}
            if any(r != n for r in rows.values()):
                return f"holds {rows} rows for size {n}"
            if d["size"] != min(cap, d["added"]) or d["next"] != d["added"] % cap:
                return f"has inconsistent counters: size {n}, next {d['next']}, added {d['added']} (capacity {cap})"
            return None

        aux = (
            {
                "ownership": Tensor(torch.int8, (None,) + self.planes_shape[1:], -1, 1),
                "scores": Tensor(torch.float32, (None,)),
            }
            if self.aux
            else {}
        )
        return Fields(
            {
                "capacity": Int(cap, cap),
                "planes": Tensor(torch.int8, (None,) + self.planes_shape, 0, 1),
                "masks": Tensor(torch.int8, (None, a), 0, 1),
                "policies": Tensor(torch.float32, (None, a), 0, 1),
                "values": Tensor(torch.float32, (None,), -1, 1),
                "uses": Tensor(torch.int32, (None,), 0),
                "size": Int(0, cap),
                "next": Int(0, cap - 1),
                "added": Int(0),
                "max_reuse": Int(1, 10**6),
                "rng": RngState(),
                **aux,
            },
            rule=consistent,
        )

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore state_dict()'s output; ValueError when it does not fit (state_schema checks it all)."""
        if state["capacity"] != self.capacity or tuple(state["planes"].shape[1:]) != self.planes_shape:
            raise ValueError(
                f"replay buffer state of capacity {state['capacity']} and planes "
                f"{tuple(state['planes'].shape[1:])} does not fit capacity {self.capacity}, "
                f"planes {self.planes_shape}"
            )
        if ("ownership" in state) != self.aux:
            raise ValueError(
                f"replay buffer state {'with' if 'ownership' in state else 'without'} auxiliary targets "
                f"does not fit a buffer {'with' if self.aux else 'without'} them"
            )
        n = state["size"]
        for k, a in self._arrays().items():
            a[:n] = state[k].numpy()
        self.size, self.next, self.added, self.max_reuse = n, state["next"], state["added"], state["max_reuse"]
        self.rng.bit_generator.state = state["rng"]
