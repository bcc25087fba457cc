"""symmetry: the board transforms of every game, played through and called with odd arguments."""

import random

from ..common import Finding, valid_index
from ..positions import CorpusTarget


class SymmetryTarget(CorpusTarget):
    """The board transforms of every game (the spec's Symmetries), cell_moves actions included: a random game
    played again through transform k is the transformed game (legal masks, observations, encoded planes,
    the outcome), every action map is a permutation with an inverse, and action() and policy() refuse an
    action, a transform index or a vector that is not one of theirs instead of wrapping it around."""

    name = "symmetry"
    games_per_config = 2

    def generate(self, rng):
        ci, cfg = self.corpus.pick_config(rng)
        moves, _ = rng.choice(cfg["games"])
        k = rng.randrange(len(cfg["template"].symmetries()))
        mode = rng.choice(("replay", "replay", "replay", "garbage"))
        odd = [-1, -2, 2**31, 2**63, -(2**63), True, 1.5, "1", None, [0], "n", "n+1", "np-1", "np"]
        return {
            "game": cfg["game"],
            "config": ci,
            "moves": moves[: rng.randrange(len(moves) + 1)],
            "k": k,
            "mode": mode,
            "a": rng.choice(odd + ["ok"] * 3),
            "kk": rng.choice(odd + ["ok"] * 3),
            "vec": rng.choice(("short", "long", "ok", "2d", "scalar")),
            "pick": rng.getrandbits(32),
        }

    def execute(self, inp):
        import numpy as np

        cfg = self.corpus.configs[inp["config"]]
        sym = cfg["template"].symmetries()
        k, n, A = inp["k"], len(sym), cfg["template"].num_actions
        amap = np.asarray(sym.action_maps[k])
        if sorted(amap.tolist()) != list(range(A)):
            raise Finding(f"transform {sym.names[k]} does not map the actions one to one")
        j = sym.inverse(k)
        if not np.array_equal(np.asarray(sym.action_maps[j])[amap], np.arange(A)):
            raise Finding(f"the inverse of transform {sym.names[k]} does not undo it")
        if inp["mode"] == "garbage":
            return self.garbage(inp, sym, n, A)
        st, t = cfg["template"].copy(), cfg["template"].copy()
        if not np.array_equal(sym.observation(st.observation(), k), st.observation()):
            return  # a start position the transform changes: no replay
        for m in inp["moves"] + [None]:
            if not np.array_equal(sym.policy(st.legal_mask(), k), t.legal_mask()):
                raise Finding(
                    f"{sym.names[k]}: the legal moves of the transformed position are not the transformed legal moves"
                )
            if not np.array_equal(sym.observation(st.observation(), k), t.observation()):
                raise Finding(
                    f"{sym.names[k]}: the transformed position's observation is not the transformed observation"
                )
            if not np.array_equal(sym.planes(st.encode(), k), t.encode()):
                raise Finding(f"{sym.names[k]}: encoded planes do not transform with the position")
            if (st.is_over(), st.winner, st.returns()) != (t.is_over(), t.winner, t.returns()):
                raise Finding(f"{sym.names[k]}: the transformed game has another outcome")
            if m is None:
                break
            st.step(m)
            t.step(sym.action(m, k))

    def garbage(self, inp, sym, n, A):
        import numpy as np

        def value(x, size, rng):
            return (
                {
                    "ok": rng.randrange(size),
                    "n": size,
                    "n+1": size + 1,
                    "np-1": np.int64(-1),
                    "np": np.int32(rng.randrange(size)),
                }.get(x, x)
                if isinstance(x, str)
                else x
            )

        rng = random.Random(inp["pick"])
        a, kk = value(inp["a"], A, rng), value(inp["kk"], n, rng)
        try:
            out = sym.action(a, kk)
        except (TypeError, ValueError, IndexError):
            if valid_index(a, A) and valid_index(kk, n):
                raise Finding(f"action({a!r}, {kk!r}) refused an action and transform in range") from None
        else:
            if not (valid_index(a, A) and valid_index(kk, n)):
                raise Finding(f"action({a!r}, {kk!r}) returned {out!r} for an action or transform out of range")
            if out != int(sym.action_maps[kk, a]) or not isinstance(out, int):
                raise Finding(f"action({a!r}, {kk!r}) returned {out!r}")
        shape = {"short": (A - 1,), "long": (A + 1,), "ok": (A,), "2d": (3, A), "scalar": ()}[inp["vec"]]
        vec = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
        try:
            out = sym.policy(vec, inp["k"])
        except (TypeError, ValueError, IndexError):
            if inp["vec"] in ("ok", "2d"):
                raise Finding(f"policy refused a vector of shape {shape}") from None
            return
        if inp["vec"] not in ("ok", "2d"):
            raise Finding(f"policy accepted a vector of shape {shape} for {A} actions")
        if out.shape != shape or sorted(out.ravel().tolist()) != sorted(vec.ravel().tolist()):
            raise Finding("policy did not permute the vector")

    def save(self, inp, folder):
        return inp
