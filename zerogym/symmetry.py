"""Board symmetries: the transforms that map a position to an equivalent one under the rules.

A Symmetries object holds, for each transform k, where every cell and every action goes, and
applies the transform consistently to observations (..., H, W, C), encoded planes
(..., C, H, W) and policy or mask vectors (..., A).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Callable, TypeVar

import numpy as np
import numpy.typing as npt

G = TypeVar("G", bound=np.generic)
# (r, c, H, W) -> (r', c'): rows and columns (ints or integer arrays alike) on an H x W board
Transform = Callable[[Any, Any, int, int], tuple[Any, Any]]

# (r, c) -> (r', c') on an H x W board; rot90/transpose/antitranspose need H == W
_TRANSFORMS: dict[str, Transform] = {
    "identity": lambda r, c, H, W: (r, c),
    "rot90": lambda r, c, H, W: (c, H - 1 - r),
    "rot180": lambda r, c, H, W: (H - 1 - r, W - 1 - c),
    "rot270": lambda r, c, H, W: (W - 1 - c, r),
    "flip_lr": lambda r, c, H, W: (r, W - 1 - c),
    "flip_ud": lambda r, c, H, W: (H - 1 - r, c),
    "transpose": lambda r, c, H, W: (c, r),
    "antitranspose": lambda r, c, H, W: (W - 1 - c, H - 1 - r),
}
_SQUARE_ONLY = {"rot90", "rot270", "transpose", "antitranspose"}
ACTION_KINDS = ("cells", "columns", "cell_moves")
DIHEDRAL = ("identity", "rot90", "rot180", "rot270", "flip_lr", "flip_ud", "transpose", "antitranspose")


def _hexagon(turns: int, mirror: bool) -> Transform:
    """The transform of the (2N-1) x (2N-1) grid that holds a hexagon of side N (cells with
    N-1 <= r + c <= 3N-3, row r+1 drawn half a cell right of row r): a mirror in the line r = c
    when `mirror`, then `turns` turns of 60 degrees clockwise as drawn; cells off the hexagon stay."""

    def transform(r: Any, c: Any, H: int, W: int) -> tuple[Any, Any]:
        m = (H - 1) // 2
        x, z = c - m, r - m  # cube coordinates (x, -x-z, z) about the centre
        if mirror:
            x, z = z, x
        for _ in range(turns):
            x, z = -z, x + z  # (x, y, z) -> (-z, -x, -y)
        on = (r + c >= m) & (r + c <= 3 * m)
        return np.where(on, z + m, r), np.where(on, x + m, c)

    return transform


# the 12 symmetries of a hexagon (Havannah): its 6 rotations, each after a mirror or not
_HEXAGON = {
    "hexagon" + "_mirror" * f + f"_rot{60 * k}" * (k > 0): _hexagon(k, bool(f))
    for f in (0, 1)
    for k in range(6)
    if f or k
}
_TRANSFORMS.update(_HEXAGON)
HEXAGON = ("identity", *_HEXAGON)


def _index(x: object, n: int, what: str) -> int:
    """x as an int in 0..n-1 (an integer type, not a bool), else TypeError / ValueError saying so."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"a {what} index must be an int, got {type(x).__name__} {x!r}")
    if not 0 <= x < n:
        raise ValueError(f"{what} index {x} is out of range 0..{n - 1}")
    return int(x)


class Symmetries:
    """Transforms `names` of an H x W board with `num_actions` actions.

    action_kind "cells": actions 0..H*W-1 are cells r*W+c, the rest (pass, swap) map to
    themselves; "columns": action c is column c (Connect Four); "cell_moves": action
    (r*W+c)*k + d moves the piece on cell (r, c) by move_offsets[d] (a (rows, columns) step,
    k = len(move_offsets)), so a transform maps the cell and turns the step with it (flip_lr:
    (1, -1) becomes (1, 1)); a transform that turns a step into none of the game's steps is refused.
    """

    def __init__(
        self,
        names: Iterable[str],
        height: int,
        width: int,
        num_actions: int,
        action_kind: str = "cells",
        move_offsets: Iterable[Iterable[int]] | None = None,
    ) -> None:
        self.names = tuple(names)
        unknown = [n for n in self.names if n not in _TRANSFORMS]
        if unknown:
            raise ValueError(f"unknown transforms {unknown}; known: {', '.join(_TRANSFORMS)}")
        square_only = [n for n in self.names if n in _SQUARE_ONLY]
        if square_only and height != width:
            raise ValueError(f"transforms {square_only} need a square board, got {height}x{width}")
        if any(n in _HEXAGON for n in self.names) and (height != width or height % 2 == 0):
            raise ValueError(f"the hexagon's transforms need a (2N-1)x(2N-1) board, got {height}x{width}")
        if action_kind not in ACTION_KINDS:
            raise ValueError(f"unknown action_kind {action_kind!r}; known: {', '.join(ACTION_KINDS)}")
        if (action_kind == "cell_moves") != (move_offsets is not None):
            raise ValueError(
                "move_offsets (one (rows, columns) step per action of a cell) are given exactly "
                f"for action_kind 'cell_moves', got action_kind {action_kind!r} and {move_offsets!r}"
            )
        self.height, self.width, self.num_actions = height, width, num_actions
        self.action_kind = action_kind
        offsets = None if move_offsets is None else tuple(tuple(int(x) for x in o) for o in move_offsets)
        self.move_offsets = offsets
        self.actions_per_cell = 1 if offsets is None else len(offsets)
        if num_actions < height * width * self.actions_per_cell and action_kind != "columns":
            raise ValueError(
                f"{num_actions} actions are fewer than {self.actions_per_cell} per cell of a {height}x{width} board"
            )
        r, c = np.divmod(np.arange(height * width), width)
        cells: list[npt.NDArray[np.int64]] = []
        actions: list[npt.NDArray[np.int64]] = []
        for name in self.names:
            rr, cc = _TRANSFORMS[name](r, c, height, width)
            fwd = rr * width + cc
            cells.append(fwd)
            if action_kind == "columns":
                act = _TRANSFORMS[name](np.zeros(width, int), np.arange(width), height, width)[1]
            else:
                k = self.actions_per_cell
                act = np.arange(num_actions)
                turned = self._turned_moves(name, offsets) if offsets is not None and k > 1 else np.zeros(1, np.int64)
                act[: height * width * k] = (fwd[:, None] * k + turned[None, :]).ravel()
            actions.append(act)
        self.cell_maps = np.array(cells, dtype=np.int64)  # cell i goes to cell_maps[k, i]
        self.action_maps = np.array(actions, dtype=np.int64)  # action a becomes action_maps[k, a]
        self._cell_src = np.argsort(self.cell_maps, axis=1)  # new cell j comes from _cell_src[k, j]
        self._action_src = np.argsort(self.action_maps, axis=1)

    def _turned_moves(self, name: str, offsets: tuple[tuple[int, ...], ...]) -> npt.NDArray[np.int64]:
        """move index d -> the index of the step offsets[d] (the move_offsets) becomes under transform `name`."""
        t = _TRANSFORMS[name]
        y0, x0 = t(0, 0, self.height, self.width)
        out = []
        for dr, dc in offsets:
            y, x = t(dr, dc, self.height, self.width)
            step = (y - y0, x - x0)
            if step not in offsets:
                raise ValueError(
                    f"transform {name} turns the move step {(dr, dc)} into {step}, which is "
                    f"not one of the game's steps {offsets}"
                )
            out.append(offsets.index(step))
        return np.array(out, dtype=np.int64)

    def resized(self, height: int, width: int, num_actions: int) -> Symmetries:
        """The same transforms and kind of actions on another board size."""
        return Symmetries(self.names, height, width, num_actions, self.action_kind, self.move_offsets)

    def __len__(self) -> int:
        return len(self.names)

    def observation(self, obs: npt.NDArray[G], k: int) -> npt.NDArray[G]:
        """Transform (..., H, W, C) observations by symmetry k."""
        flat = obs.reshape(obs.shape[:-3] + (self.height * self.width, obs.shape[-1]))
        return flat[..., self._cell_src[k], :].reshape(obs.shape)

    def planes(self, x: npt.NDArray[G], k: int) -> npt.NDArray[G]:
        """Transform (..., C, H, W) encoded planes by symmetry k."""
        flat = x.reshape(x.shape[:-2] + (self.height * self.width,))
        return flat[..., self._cell_src[k]].reshape(x.shape)

    def policy(self, p: npt.NDArray[G], k: int) -> npt.NDArray[G]:
        """Transform (..., A) policy vectors or action masks by symmetry k."""
        if np.ndim(p) == 0 or np.shape(p)[-1] != self.num_actions:
            raise ValueError(f"a policy or mask vector has {self.num_actions} entries, got shape {np.shape(p)}")
        return p[..., self._action_src[_index(k, len(self), "symmetry")]]

    def action(self, a: int, k: int) -> int:
        """The action that action `a` becomes under symmetry k."""
        return int(self.action_maps[_index(k, len(self), "symmetry"), _index(a, self.num_actions, "action")])

    def inverse(self, k: int) -> int:
        """The index of the transform that undoes symmetry k."""
        ident = np.arange(self.num_actions)
        for j in range(len(self)):
            if np.array_equal(self.action_maps[j][self.action_maps[k]], ident) and np.array_equal(
                self.cell_maps[j][self.cell_maps[k]], np.arange(self.height * self.width)
            ):
                return j
        raise ValueError(f"symmetry {self.names[k]} has no inverse in {self.names}")
