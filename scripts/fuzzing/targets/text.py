"""text: parse_action and format_action (zerogym.coords) on action names and garbage text."""

import random

from ..common import Finding, valid_index
from ..configs import game_configs

_TEXT_BITS = (
    "",
    " ",
    "\t",
    "\x00",
    "-",
    "x",
    ":",
    "off",
    "OFF",
    "pass",
    "swap",
    "0",
    "1",
    "9",
    "99",
    "-1",
    "\u0663",
    "\u00b2",
    "\uff21",
    "\u0130",
    "\u017f",
    "\U0001d7d9",
    "\u200b",
    "\ufeff",
    "a",
    "z",
    "I",
    "i",
    "A1",
    "c2-c3",
    "c2c3",
    "1e3",
    "0x1",
    "\ud800",
    "\n",
    "#",
    "é",
)


class TextTarget:
    """parse_action and format_action (zerogym.coords) of every game: the name of each action (with and
    without the player who moves) parses back to it, and garbage text -- mutated names, Unicode digits and
    letters, long numbers, control characters, objects that are no text -- gives an action in range whose
    name parses back to it, or a ValueError that says what to type; format_action refuses what is no action."""

    name = "text"
    timeout = 20.0

    def __init__(self, seed=0):
        self.configs = game_configs()

    def generate(self, rng):
        ci = rng.choices(range(len(self.configs)), weights=[c[2] for c in self.configs])[0]
        game, kwargs, _ = self.configs[ci]
        mode = rng.choice(("roundtrip", "garbage", "garbage", "garbage", "format"))
        return {"game": game, "config": ci, "mode": mode, "seed": rng.getrandbits(32)}

    def text(self, rng, spec):
        from zerogym.coords import format_action

        a = rng.randrange(spec.num_actions)
        t = format_action(spec, a, rng.choice((None, 0, 1)))
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            i = rng.randrange(len(t) + 1)
            op = rng.randrange(6)
            if op == 0:
                t = t[:i] + rng.choice(_TEXT_BITS) + t[i:]
            elif op == 1:
                t = t[:i] + t[i + 1 :]
            elif op == 2:
                t = t[:i] + rng.choice(_TEXT_BITS) + t[i + 1 :]
            elif op == 3:
                t = t[:i] + "9" * rng.choice((5, 20, 400, 5000)) + t[i:]
            elif op == 4:
                t = t.swapcase()
            else:
                t = "".join(rng.choice(_TEXT_BITS) for _ in range(rng.randrange(1, 6)))
        if rng.random() < 0.08:
            return rng.choice((None, 5, -1, 2.5, b"a1", ["a1"], True, float("nan"), 10**30))
        return t

    def execute(self, inp):
        import numpy as np
        from zerogym.coords import format_action, parse_action
        from zerogym.registry import make_state

        game, kwargs, _ = self.configs[inp["config"]]
        st = make_state(game, **kwargs)
        spec = st.spec
        rng = random.Random(inp["seed"])
        if inp["mode"] == "roundtrip":
            for _ in range(8):
                a = rng.randrange(spec.num_actions)
                for who in (None, 0, 1):
                    name = format_action(spec, a, who)
                    if not isinstance(name, str) or not name:
                        raise Finding(f"format_action({a}) gave {name!r}")
                    back = parse_action(spec, name)
                    if back != a:
                        raise Finding(f"format_action({a}, player={who}) = {name!r} parses to {back!r}")
            return
        if inp["mode"] == "format":
            x = rng.choice(
                (
                    -1,
                    spec.num_actions,
                    2**63,
                    2.0,
                    2.5,
                    "3",
                    None,
                    True,
                    np.int64(1),
                    np.float64(1.0),
                    np.array([1]),
                    1 + 0j,
                )
            )
            try:
                name = format_action(spec, x)
            except (TypeError, ValueError):
                if valid_index(x, spec.num_actions):
                    raise Finding(f"format_action refused the action {x!r}") from None
                return
            if not valid_index(x, spec.num_actions):
                raise Finding(f"format_action accepted {x!r} ({type(x).__name__}), which is no action, as {name!r}")
            return
        text = self.text(rng, spec)
        try:
            a = parse_action(spec, text)
        except ValueError as err:
            msg = str(err)
            if "type " not in msg and "is not" not in msg:
                raise Finding(f"parse_action({text!r}) raised an unclear ValueError: {msg[:120]}") from None
            return
        if not isinstance(a, int) or isinstance(a, bool) or not 0 <= a < spec.num_actions:
            raise Finding(f"parse_action({text!r}) gave {a!r}, which is no action")
        if parse_action(spec, format_action(spec, a)) != a:
            raise Finding(f"parse_action({text!r}) gave {a}, whose name does not parse back to it")

    def save(self, inp, folder):
        return inp
