"""actions: odd Python objects as actions to State.step / is_legal / illegal_reason and to the AEC envs' step."""

import os
from decimal import Decimal
from enum import IntEnum
from fractions import Fraction

from ..common import INT_DTYPES, Finding, Timeout
from ..positions import CorpusTarget


class _Boom(Exception):
    """Raised by the fuzzer's own odd objects; passing it through is allowed."""


class _IndexInt:
    """__index__ and __int__ give different numbers."""

    def __init__(self, index, as_int):
        self.i, self.n = index, as_int

    def __index__(self):
        return self.i

    def __int__(self):
        return self.n

    def __repr__(self):
        return f"_IndexInt(index={self.i}, int={self.n})"


class _IndexSeq:
    """__index__ returns the next of `values` at every call (the last one over and over)."""

    def __init__(self, values):
        self.values, self.calls = list(values), 0

    def __index__(self):
        v = self.values[min(self.calls, len(self.values) - 1)]
        self.calls += 1
        return v

    def __int__(self):
        return self.__index__()

    def __repr__(self):
        return f"_IndexSeq({self.values})"


class _IndexRaises:
    def __init__(self, exc):
        self.exc = exc

    def __index__(self):
        raise self.exc

    __int__ = __index__

    def __repr__(self):
        return f"_IndexRaises({self.exc!r})"


class _IndexReturns:
    """__index__ returns something that is not an int."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value

    def __repr__(self):
        return f"_IndexReturns({self.value!r})"


class _MyInt(int):
    pass


class _Colour(IntEnum):
    A = 0
    B = 1
    C = 2
    D = 3


def action_spec(rng, num_actions, legal):
    """A description (JSON data) of an odd action: build it with make_action."""
    a = int(rng.choice(legal)) if len(legal) and rng.random() < 0.7 else rng.randrange(-2, num_actions + 2)
    big = rng.choice(
        (
            2**31 - 1,
            2**31,
            2**32,
            2**32 + a,
            2**63 - 1,
            2**63,
            2**64,
            2**64 + a,
            10**30,
            -(2**31),
            -(2**31) - 1,
            -(2**32) + a,
            -(2**63),
            -(2**64),
            -(10**30),
        )
    )
    kind = rng.choice(
        (
            "int",
            "int",
            "int",
            "big",
            "np",
            "np",
            "np_edge",
            "np0d",
            "np1",
            "bool",
            "npbool",
            "float",
            "npfloat",
            "str",
            "bytes",
            "none",
            "list",
            "tuple",
            "complex",
            "fraction",
            "decimal",
            "index_int",
            "index_seq",
            "index_raises",
            "index_returns",
            "int_subclass",
            "intenum",
            "object",
            "nan",
            "inf",
        )
    )
    spec = {"kind": kind, "a": a}
    if kind == "big":
        spec["a"] = big
    elif kind in ("np", "np0d", "np1"):
        spec["dtype"] = rng.choice(INT_DTYPES)
    elif kind == "np_edge":
        spec["dtype"] = rng.choice(INT_DTYPES)
        spec["edge"] = rng.choice(("min", "max", "max-1", "min+1"))
    elif kind == "npfloat":
        spec["dtype"] = rng.choice(("float16", "float32", "float64"))
    elif kind == "bool":
        spec["a"] = rng.random() < 0.5
    elif kind == "index_int":
        spec["int"] = rng.choice((a + 1, -1, 0, big, num_actions))
    elif kind == "index_seq":
        spec["values"] = [a] + [rng.choice((big, -1, num_actions, a + 1, 0)) for _ in range(3)]
    elif kind == "index_raises":
        spec["exc"] = rng.choice(("TypeError", "ValueError", "OverflowError", "_Boom", "KeyError"))
    elif kind == "index_returns":
        spec["value"] = rng.choice(("float", "str", "none", "bool"))
    elif kind == "intenum":
        spec["a"] = rng.randrange(4)
    return spec


def make_action(spec):
    """(the object, the integers it may be played as, whether it must be accepted when legal).

    An empty set of integers: the object is not an integer and must be refused.
    """
    import numpy as np

    kind, a = spec["kind"], spec["a"]
    if kind in ("int", "big"):
        return a, {a}, True
    if kind == "np":
        info = np.iinfo(spec["dtype"])
        if info.min <= a <= info.max:
            return np.dtype(spec["dtype"]).type(a), {a}, True
        return int(a), {a}, True
    if kind == "np_edge":
        info = np.iinfo(spec["dtype"])
        v = {"min": info.min, "max": info.max, "max-1": info.max - 1, "min+1": info.min + 1}[spec["edge"]]
        return np.dtype(spec["dtype"]).type(v), {int(v)}, True
    if kind == "np0d":
        info = np.iinfo(spec["dtype"])
        v = a if info.min <= a <= info.max else 0
        return np.array(v, dtype=spec["dtype"]), {v}, False
    if kind == "np1":
        info = np.iinfo(spec["dtype"])
        v = a if info.min <= a <= info.max else 0
        return np.array([v], dtype=spec["dtype"]), set(), False
    if kind == "bool":
        return bool(a), set(), False
    if kind == "npbool":
        return np.bool_(a % 2), set(), False
    if kind == "float":
        return float(a), set(), False
    if kind == "npfloat":
        return np.dtype(spec["dtype"]).type(a), set(), False
    if kind == "nan":
        return float("nan"), set(), False
    if kind == "inf":
        return float("inf") if a % 2 else float("-inf"), set(), False
    if kind == "str":
        return str(a), set(), False
    if kind == "bytes":
        return str(a).encode(), set(), False
    if kind == "none":
        return None, set(), False
    if kind == "list":
        return [a], set(), False
    if kind == "tuple":
        return (a,), set(), False
    if kind == "complex":
        return complex(a, 0), set(), False
    if kind == "fraction":
        return Fraction(a, 1), set(), False
    if kind == "decimal":
        return Decimal(a), set(), False
    if kind == "index_int":
        return _IndexInt(a, spec["int"]), {a}, False
    if kind == "index_seq":
        return _IndexSeq(spec["values"]), set(spec["values"]), False
    if kind == "index_raises":
        exc = {
            "TypeError": TypeError,
            "ValueError": ValueError,
            "OverflowError": OverflowError,
            "_Boom": _Boom,
            "KeyError": KeyError,
        }[spec["exc"]]
        return _IndexRaises(exc("from __index__")), set(), False
    if kind == "index_returns":  # Python takes an int subclass (True) from __index__, with a warning
        value = {"float": 1.0, "str": "1", "none": None, "bool": True}[spec["value"]]
        return _IndexReturns(value), {1} if value is True else set(), False
    if kind == "int_subclass":
        return _MyInt(a), {a}, True
    if kind == "intenum":
        return _Colour(a), {a}, False
    if kind == "object":
        return object(), set(), False
    raise AssertionError(kind)


def refusal_allowed(err, action):
    """IllegalMoveError, TypeError, ValueError, or the exception the action's own __index__ raised."""
    from zerogym.errors import IllegalMoveError

    if isinstance(err, (IllegalMoveError, TypeError, ValueError)):
        return True
    return isinstance(action, _IndexRaises) and err is action.exc


class ActionTarget(CorpusTarget):
    name = "actions"
    games_per_config = 3

    def generate(self, rng):
        ci, cfg = self.corpus.pick_config(rng)
        moves, blob = self.corpus.position(rng, ci)
        st = self.corpus.state(ci, blob)
        legal = [int(x) for x in st.legal_actions()]
        api = rng.choice(("step", "step", "is_legal", "illegal_reason", "raw_env", "env_raise"))
        if api in ("raw_env", "env_raise"):
            moves = moves[: rng.randrange(min(len(moves), 24) + 1)]
            st = self.corpus.state(ci, self.corpus.configs[ci]["games"][0][1][0])
            for m in moves:
                st.step(m)
            legal = [int(x) for x in st.legal_actions()]
            blob = st.to_bytes()
        return {
            "game": cfg["game"],
            "config": ci,
            "blob": blob,
            "moves": moves,
            "api": api,
            "action": action_spec(rng, st.num_actions, legal),
        }

    def execute(self, inp):
        cfg = self.corpus.configs[inp["config"]]
        spec = inp["action"]
        action, values, must_accept = make_action(spec)
        if inp["api"] in ("raw_env", "env_raise"):
            return self.execute_env(inp, cfg, action, values, must_accept)
        st = self.corpus.state(inp["config"], inp["blob"])
        before = st.to_bytes()
        legal = set(int(x) for x in st.legal_actions())
        api = inp["api"]
        try:
            if api == "step":
                st.step(action)
                result = None
            elif api == "is_legal":
                result = st.is_legal(action)
            else:
                result = st.illegal_reason(action)
        except BaseException as err:
            if isinstance(err, Timeout) or not refusal_allowed(err, action):
                raise
            if st.to_bytes() != before:
                raise Finding(f"{api}({spec['kind']}) raised {type(err).__name__} and changed the state") from None
            if must_accept and values & legal:
                raise Finding(f"{api} refused a legal {spec['kind']} action: {type(err).__name__}: {err}") from None
            return
        if api == "step":
            played = [v for v in values & legal if self.stepped(cfg, before, v) == st.to_bytes()]
            if not played:
                raise Finding(
                    f"step accepted a {spec['kind']} action "
                    + ("that is not an integer" if not values else "but did not play it as its value")
                )
        else:
            if st.to_bytes() != before:
                raise Finding(f"{api}({spec['kind']}) changed the state")
            ok = result is True if api == "is_legal" else result is None
            if api == "is_legal" and not isinstance(result, bool):
                raise Finding(f"is_legal returned {type(result).__name__}, not bool")
            if api == "illegal_reason" and result is not None and not isinstance(result, str):
                raise Finding(f"illegal_reason returned {type(result).__name__}")
            if ok and not values & legal:
                raise Finding(f"{api} says a {spec['kind']} action is legal")
            if not ok and must_accept and values & legal:
                raise Finding(f"{api} says a legal {spec['kind']} action is illegal")

    def stepped(self, cfg, blob, a):
        st = cfg["template"].copy()
        st.load_bytes(blob)
        st.step(a)
        return st.to_bytes()

    def execute_env(self, inp, cfg, action, values, must_accept):
        import zerogym

        spec = inp["action"]
        if inp["api"] == "raw_env":
            env = zerogym.make_raw(cfg["game"], **cfg["kwargs"])
        else:
            env = zerogym.make(cfg["game"], illegal="raise", **cfg["kwargs"])
        env.reset(seed=0)
        for m in inp["moves"]:
            env.step(m)
        raw = env.unwrapped
        if not raw.agents or raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]:
            return
        before = (raw.state.to_bytes(), raw.agent_selection, dict(raw.rewards), dict(raw._cumulative_rewards))
        legal = set(int(x) for x in raw.state.legal_actions())
        try:
            env.step(action)
        except BaseException as err:
            if isinstance(err, Timeout) or not refusal_allowed(err, action):
                raise
            after = (raw.state.to_bytes(), raw.agent_selection, dict(raw.rewards), dict(raw._cumulative_rewards))
            if after != before:
                raise Finding(f"env.step({spec['kind']}) raised {type(err).__name__} and changed the env") from None
            if must_accept and values & legal:
                raise Finding(f"env.step refused a legal {spec['kind']} action: {type(err).__name__}") from None
            return
        if not any(self.stepped(cfg, before[0], v) == raw.state.to_bytes() for v in values & legal):
            raise Finding(
                f"env.step accepted a {spec['kind']} action "
                + ("that is not an integer" if not values else "but did not play it as its value")
            )
        if raw.agent_selection != raw.possible_agents[raw.state.current_player]:
            raise Finding("env.step left agent_selection out of step with the state")

    def save(self, inp, folder):
        with open(os.path.join(folder, "blob.bin"), "wb") as f:
            f.write(inp["blob"])
        return {k: v for k, v in inp.items() if k != "blob"}
