"""Board symmetries: the transforms that map a position to an equivalent one under the rules.

A Symmetries object holds, for each transform k, where every cell and every action goes, and
applies the transform consistently to observations (..., H, W, C), encoded planes
(..., C, H, W) and policy or mask vectors (..., A).
"""
import numpy as np

# (r, c) -> (r', c') on an H x W board; rot90/transpose/antitranspose need H == W
_TRANSFORMS = {
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
DIHEDRAL = ("identity", "rot90", "rot180", "rot270", "flip_lr", "flip_ud", "transpose", "antitranspose")


class Symmetries:
    """Transforms `names` of an H x W board with `num_actions` actions.

    action_kind "cells": actions 0..H*W-1 are cells r*W+c, the rest (pass, swap) map to
    themselves; "columns": action c is column c (Connect Four).
    """

    def __init__(self, names, height, width, num_actions, action_kind="cells"):
        self.names = tuple(names)
        unknown = [n for n in self.names if n not in _TRANSFORMS]
        if unknown:
            raise ValueError(f"unknown transforms {unknown}; known: {', '.join(_TRANSFORMS)}")
        square_only = [n for n in self.names if n in _SQUARE_ONLY]
        if square_only and height != width:
            raise ValueError(f"transforms {square_only} need a square board, got {height}x{width}")
        self.height, self.width, self.num_actions = height, width, num_actions
        r, c = np.divmod(np.arange(height * width), width)
        cells, actions = [], []
        for name in self.names:
            rr, cc = _TRANSFORMS[name](r, c, height, width)
            fwd = rr * width + cc
            cells.append(fwd)
            if action_kind == "cells":
                act = np.arange(num_actions)
                act[: height * width] = fwd
            elif action_kind == "columns":
                act = _TRANSFORMS[name](np.zeros(width, int), np.arange(width), height, width)[1]
            else:
                raise ValueError(f"unknown action_kind {action_kind!r}")
            actions.append(act)
        self.cell_maps = np.array(cells, dtype=np.int64)       # cell i goes to cell_maps[k, i]
        self.action_maps = np.array(actions, dtype=np.int64)   # action a becomes action_maps[k, a]
        self._cell_src = np.argsort(self.cell_maps, axis=1)    # new cell j comes from _cell_src[k, j]
        self._action_src = np.argsort(self.action_maps, axis=1)

    def __len__(self):
        return len(self.names)

    def observation(self, obs, k):
        """Transform (..., H, W, C) observations by symmetry k."""
        flat = obs.reshape(obs.shape[:-3] + (self.height * self.width, obs.shape[-1]))
        return flat[..., self._cell_src[k], :].reshape(obs.shape)

    def planes(self, x, k):
        """Transform (..., C, H, W) encoded planes by symmetry k."""
        flat = x.reshape(x.shape[:-2] + (self.height * self.width,))
        return flat[..., self._cell_src[k]].reshape(x.shape)

    def policy(self, p, k):
        """Transform (..., A) policy vectors or action masks by symmetry k."""
        return p[..., self._action_src[k]]

    def action(self, a, k):
        """The action that action `a` becomes under symmetry k."""
        return int(self.action_maps[k, a])

    def inverse(self, k):
        """The index of the transform that undoes symmetry k."""
        ident = np.arange(self.num_actions)
        for j in range(len(self)):
            if np.array_equal(self.action_maps[j][self.action_maps[k]], ident) and \
               np.array_equal(self.cell_maps[j][self.cell_maps[k]], np.arange(self.height * self.width)):
                return j
        raise ValueError(f"symmetry {self.names[k]} has no inverse in {self.names}")
