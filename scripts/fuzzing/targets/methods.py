"""methods: the public methods a game's State class adds, called with odd arguments on real positions."""

import os
import random

from ..common import Finding
from ..positions import CorpusTarget, move_limit, play_out


class MethodTarget(CorpusTarget):
    """The public methods a game's State class adds to State's (set_position, move_cells, winning_cells,
    ...), found by looking, called with odd arguments on real positions: each returns, or refuses with
    TypeError / ValueError; a method that changed the state must leave a position that loads again and
    plays on to the end."""

    name = "methods"
    games_per_config = 2

    def __init__(self, seed):
        from zerogym._core.state import State

        super().__init__(seed)
        base = set(dir(State))
        self.methods = {}
        for cfg in self.corpus.configs:
            cls = type(cfg["template"])
            if cls not in self.methods:
                self.methods[cls] = sorted(
                    m for m in dir(cls) if not m.startswith("_") and m not in base and callable(getattr(cls, m))
                )

    def generate(self, rng):
        ci, cfg = self.corpus.pick_config(rng)
        moves, blob = self.corpus.position(rng, ci)
        names = self.methods[type(cfg["template"])]
        return {
            "game": cfg["game"],
            "config": ci,
            "blob": blob,
            "method": rng.choice(names) if names else None,
            "args": [self.arg_spec(rng) for _ in range(rng.choice((0, 1, 1, 2, 2, 3)))],
            "seed": rng.getrandbits(32),
        }

    @staticmethod
    def arg_spec(rng):
        return rng.choice(
            (
                "0",
                "1",
                "2",
                "-1",
                "A",
                "A-1",
                "big",
                "huge",
                "true",
                "np1",
                "npu64",
                "float",
                "half",
                "nan",
                "none",
                "str",
                "bytes",
                "list",
                "obj",
                "board",
                "board",
                "board",
                "board_bad",
                "board_float",
                "board_bool",
                "board_obj",
                "board_T",
                "board_short",
                "board_3d",
                "board_list",
                "board_empty",
                "board_u8",
                "board_one_side",
            )
        )

    def make_arg(self, what, st, rng):
        import numpy as np

        board = np.asarray(st.board())
        simple = {
            "0": 0,
            "1": 1,
            "2": 2,
            "-1": -1,
            "A": st.num_actions,
            "A-1": st.num_actions - 1,
            "big": 2**31,
            "huge": 2**64 + 1,
            "true": True,
            "np1": np.int64(1),
            "npu64": np.uint64(2**64 - 1),
            "float": 1.0,
            "half": 0.5,
            "nan": float("nan"),
            "none": None,
            "str": "1",
            "bytes": b"\x01",
            "list": [0, 1],
            "obj": object(),
        }
        if what in simple:
            return simple[what]
        b = board.copy()
        if what == "board_bad":
            for _ in range(rng.randrange(1, 4)):
                b.flat[rng.randrange(b.size)] = rng.choice((-1, 3, 127, -128, 4))
            return b
        if what == "board_one_side":  # pieces of one player only, or none
            b[b == rng.choice((1, 2))] = 0
            if rng.random() < 0.3:
                b[:] = 0
            return b
        if what == "board":  # a real board with a few cells changed to pieces
            for _ in range(rng.randrange(0, 4)):
                b.flat[rng.randrange(b.size)] = rng.choice((0, 1, 2))
            return b
        return {
            "board_float": b.astype(float) + (0.5 if rng.random() < 0.3 else 0.0),
            "board_bool": b.astype(bool),
            "board_obj": b.astype(object),
            "board_T": b.T if b.shape[0] != b.shape[1] else b[:-1],
            "board_short": b[:, :-1],
            "board_3d": b[None],
            "board_list": b.tolist(),
            "board_empty": b[:0],
            "board_u8": b.astype(np.uint8),
        }[what]

    def execute(self, inp):
        cfg = self.corpus.configs[inp["config"]]
        if inp["method"] is None:
            return
        st = self.corpus.state(inp["config"], inp["blob"])
        rng = random.Random(inp["seed"])
        args = [self.make_arg(a, st, rng) for a in inp["args"]]
        before = st.to_bytes()
        try:
            getattr(st, inp["method"])(*args)
        except (TypeError, ValueError) as err:
            if st.to_bytes() != before:
                raise Finding(f"{inp['method']} raised {type(err).__name__} and changed the state") from None
            return
        if st.to_bytes() != before:
            fresh = cfg["template"].copy()
            try:
                fresh.load_bytes(st.to_bytes())
            except ValueError as err:
                raise Finding(f"{inp['method']} left a position that does not load: {err}") from None
            play_out(st, random.Random(inp["seed"]), move_limit(st), revalidate=True)

    def save(self, inp, folder):
        with open(os.path.join(folder, "blob.bin"), "wb") as f:
            f.write(inp["blob"])
        return {k: v for k, v in inp.items() if k != "blob"}
