"""vector: zerogym.vector.make(...).step with odd action arrays, and make with odd num_envs."""

import random

from ..common import INT_DTYPES, Finding, Timeout
from ..configs import config_cells, game_configs


def weighted(rng, items):
    """One of `items` (tuples whose last element is a weight)."""
    return rng.choices(items, weights=[it[-1] for it in items])[0]


class VectorTarget:
    name = "vector"
    timeout = 20.0

    def generate(self, rng):
        configs = game_configs()
        game, kwargs, _ = weighted(rng, [c for i, c in enumerate(configs) if config_cells(i) <= 100])
        if rng.random() < 0.1:
            num = rng.choice(
                (
                    0,
                    -1,
                    -(2**31),
                    2**31 - 1,
                    2**31,
                    2**63,
                    10**30,
                    "4",
                    b"4",
                    None,
                    True,
                    False,
                    1.0,
                    2.5,
                    float("nan"),
                    [3],
                    (3,),
                    "np_int8",
                    "np_uint64",
                    "np_float",
                    "np_bool",
                    "np_array",
                )
            )
            return {"game": game, "kwargs": kwargs, "mode": "make", "num_envs": num}
        return {
            "game": game,
            "kwargs": kwargs,
            "mode": "step",
            "num_envs": rng.choice((1, 2, 3, 5, 8)),
            "num_threads": rng.choice((1, 2, 3, 8)),
            "warmup": rng.randrange(0, 12),
            "seed": rng.getrandbits(31),
            "dtype": rng.choice(
                INT_DTYPES
                + INT_DTYPES
                + ("int64",) * 6
                + ("list", "list", "tuple", "float32", "float64", "bool", "object", "complex", "str", "float16")
            ),
            "shape": rng.choice(("ok",) * 12 + ("scalar", "short", "long", "2d", "col", "empty")),
            "layout": rng.choice(("c",) * 6 + ("strided", "reversed", "fortran2d", "readonly")),
            "values": rng.choice(("legal",) * 6 + ("skip", "mixed", "bad_one", "huge", "wrap", "negative", "fraction")),
            "pick": rng.getrandbits(32),
        }

    def execute(self, inp):
        import numpy as np
        import zerogym.vector

        if inp["mode"] == "make":
            return self.execute_make(inp)
        n = inp["num_envs"]
        venv = zerogym.vector.make(inp["game"], n, num_threads=inp.get("num_threads", 1), **inp["kwargs"])
        venv.reset(seed=inp["seed"])
        for _ in range(inp["warmup"]):
            venv.step(venv.sample_actions())
        actions, expect = self.actions(inp, venv)
        before = [venv.get_state(i) for i in range(n)]
        try:
            venv.step(actions)
        except BaseException as err:
            from zerogym.errors import IllegalMoveError

            if isinstance(err, Timeout):
                raise
            if not isinstance(err, (IllegalMoveError, TypeError, ValueError)):
                raise
            if any(venv.get_state(i) != before[i] for i in range(n)):
                raise Finding(f"a refused step ({type(err).__name__}) changed a game") from None
            if expect == "accept":
                raise Finding(f"step refused legal integer actions: {type(err).__name__}: {err}") from None
            return
        if expect == "refuse":
            raise Finding(f"step accepted {inp['dtype']} actions ({inp['shape']}, {inp['values']}, {inp['layout']})")
        values = [int(v) for v in np.atleast_1d(np.asarray(actions, dtype=object)).ravel()]
        fresh = venv.template.copy()
        fresh.reset()
        for i, (st, a) in enumerate(zip(before, values)):
            now = venv.get_state(i)
            if a == -1:
                if now != st:
                    raise Finding("action -1 changed its game")
                continue
            ref = st.copy()
            ref.step(a)
            if now != ref and not (ref.is_over() and now == fresh):
                raise Finding("step did not play the given actions")

    def actions(self, inp, venv):
        """(the actions object, "accept" | "refuse" | "either")."""
        import numpy as np

        rng = random.Random(inp["pick"])
        n, a_count = venv.num_envs, venv.num_actions
        mask = venv._mask
        legal = [[int(x) for x in np.flatnonzero(mask[i])] for i in range(n)]
        vals = [rng.choice(acts) if acts else -1 for acts in legal]
        kind = inp["values"]
        ok_values = True
        if kind == "skip":
            vals = [v if rng.random() < 0.5 else -1 for v in vals]
        elif kind == "mixed":
            vals = [v if rng.random() < 0.7 else rng.randrange(-3, a_count + 3) for v in vals]
            ok_values = all(v == -1 or v in legal[i] for i, v in enumerate(vals))
        elif kind == "bad_one":
            i = rng.randrange(n)
            illegal = [x for x in range(a_count) if x not in legal[i]]
            vals[i] = rng.choice(illegal + [-2, a_count, a_count + 1])
            ok_values = False
        elif kind == "huge":
            vals[rng.randrange(n)] = rng.choice((2**31, 2**32, 2**63 - 1, -(2**63), 2**40))
            ok_values = False
        elif kind == "wrap":  # a legal action plus 2**32: wraps to it in 32 bits
            i = rng.randrange(n)
            vals[i] += 2**32
            ok_values = False
        elif kind == "negative":
            vals[rng.randrange(n)] = rng.choice((-2, -3, -(2**31), -1000))
            ok_values = False
        elif kind == "fraction":
            vals = [v + 0.5 for v in vals]
            ok_values = False
        dtype, shape, layout = inp["dtype"], inp["shape"], inp["layout"]
        integer = dtype in INT_DTYPES or dtype in ("list", "tuple", "object")
        if kind == "fraction" and integer:
            vals = [int(v - 0.5) for v in vals]
            ok_values = True
        if dtype in INT_DTYPES:
            info = np.iinfo(dtype)
            if not all(info.min <= v <= info.max for v in vals):
                if dtype == "uint64" and kind != "fraction":
                    vals = [v % 2**64 for v in vals]  # -1 as 2**64 - 1, -2 as 2**64 - 2, ...
                    ok_values = all(0 <= v < a_count and v in legal[i] for i, v in enumerate(vals))
                else:
                    vals = [max(info.min, min(info.max, v)) for v in vals]
                    ok_values = all(v == -1 or v in legal[i] for i, v in enumerate(vals))
        if dtype == "list":
            arr = list(vals)
        elif dtype == "tuple":
            arr = tuple(vals)
        elif dtype == "str":
            arr = np.array([str(v) for v in vals])
        elif dtype == "object":
            arr = np.array(vals, dtype=object)
        elif dtype in INT_DTYPES:
            arr = np.array(vals, dtype=dtype)
        elif dtype == "bool":
            arr = np.array([bool(v) for v in vals])
        else:
            arr = np.array([float(v) for v in vals]).astype(dtype)
        right_shape = True
        if shape != "ok":
            right_shape = False
            base = np.asarray(arr) if not isinstance(arr, (list, tuple)) else np.array(arr, dtype=object)
            if shape == "scalar":  # not an (N,) array, even for N = 1
                arr = base[0] if dtype not in ("list", "tuple") else vals[0]
            elif shape == "short":
                arr = base[:-1]
            elif shape == "long":
                arr = np.concatenate([base, base[:1]])
            elif shape == "2d":
                arr = np.stack([base, base])
            elif shape == "col":
                arr = base.reshape(-1, 1)
            elif shape == "empty":
                arr = base[:0]
        elif isinstance(arr, np.ndarray):
            if layout == "strided":
                big = np.repeat(arr, 2)
                arr = big[::2]
            elif layout == "reversed":
                arr = arr[::-1][::-1] if rng.random() < 0.5 else np.ascontiguousarray(arr[::-1])[::-1]
            elif layout == "fortran2d":
                arr = np.asfortranarray(np.stack([arr, arr]).T)[:, 0]
            elif layout == "readonly":
                arr = arr.copy()
                arr.flags.writeable = False
        if shape == "scalar" and n == 1 and integer and ok_values:
            return arr, "either"  # numpy makes a scalar an (1,) array: harmless
        if not (integer and right_shape and ok_values):
            return arr, "refuse"
        if dtype in ("int64", "int32", "list", "tuple"):
            return arr, "accept"
        return arr, "either"

    def execute_make(self, inp):
        import numpy as np
        import zerogym.vector

        num = inp["num_envs"]
        special = {
            "np_int8": np.int8(3),
            "np_uint64": np.uint64(3),
            "np_float": np.float64(3.0),
            "np_bool": np.bool_(True),
            "np_array": np.array([3]),
        }
        if isinstance(num, str) and num in special:
            num = special[num]
        integer = isinstance(num, (int, np.integer)) and not isinstance(num, (bool, np.bool_))
        try:
            venv = zerogym.vector.make(inp["game"], num, **inp["kwargs"])
        except (TypeError, ValueError):
            return
        except MemoryError:  # more games than this machine can hold: fine, if it says so at once
            if integer and int(num) > 2**20:
                return
            raise
        if not integer:
            raise Finding(f"vector.make accepted num_envs={num!r} ({type(num).__name__})")
        if not 0 <= int(num) <= 2**24:
            raise Finding(f"vector.make accepted num_envs={num!r}")
        if venv.num_envs != int(num):
            raise Finding(f"vector.make(num_envs={num!r}) made {venv.num_envs} games")
        venv.reset(seed=0)
        venv.step(venv.sample_actions())

    def save(self, inp, folder):
        return inp
