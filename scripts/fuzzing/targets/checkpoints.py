"""checkpoints: load_agent on mutated copies of the shipped agents' .pt and .json files."""

import atexit
import copy
import io
import json
import os
import random
import tempfile

from ..common import Finding


def _json_mutants(rng, text):
    """A mutated version of a JSON text (options or card)."""
    choice = rng.randrange(6)
    if choice == 0:
        return rng.choice(("", "{", "[]", "null", "1", '"x"', "{]", "\x00", '{"a": NaN}', "\u00e9\\ud800"))
    try:
        obj = json.loads(text)
    except ValueError:
        return text + "}"
    if not isinstance(obj, dict) or not obj:
        return json.dumps([obj])
    keys = list(obj)
    k = rng.choice(keys + ["simulations", "c_puct", "temperature", "leaves_per_tree", "bogus"])
    if choice == 1:
        obj.pop(k, None)
    else:
        obj[k] = odd_value(rng, obj.get(k))
    try:
        return json.dumps(obj)
    except (TypeError, ValueError):
        return json.dumps({k: str(obj[k])})


def odd_value(rng, old=None):
    pool = [
        None,
        True,
        False,
        0,
        -1,
        1,
        2,
        2**31,
        2**63,
        10**30,
        -(10**30),
        0.5,
        -0.0,
        float("nan"),
        float("inf"),
        "",
        "x",
        "resnet",
        [],
        [1, 2],
        {},
        {"a": 1},
        "1" * 200,
    ]
    if isinstance(old, bool):
        pool += [not old]
    elif isinstance(old, int):
        pool += [old + 1, old - 1, old * 2, -old]
    elif isinstance(old, float):
        pool += [old * 2, -old, old + 0.5]
    elif isinstance(old, str):
        pool += [old.upper(), old + "x", old[:-1]]
    return rng.choice(pool)


class CheckpointTarget:
    name = "checkpoints"
    timeout = 30.0

    def __init__(self, seed):
        import torch
        from zerogym_agents.agents.saved import PRETRAINED_DIR, pretrained_names

        torch.set_num_threads(1)
        self.dir = tempfile.mkdtemp(prefix="zerogym-fuzz-ckpt-")
        import shutil

        atexit.register(shutil.rmtree, self.dir, True)
        self.bases = []
        for name in pretrained_names():
            pt = os.path.join(PRETRAINED_DIR, name + ".pt")
            with open(pt, "rb") as f:
                raw = f.read()
            card_path = os.path.join(PRETRAINED_DIR, name + ".json")
            card_text = open(card_path).read() if os.path.exists(card_path) else "{}"
            payload = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
            card = json.loads(payload["card"])
            self.bases.append(
                {
                    "name": name,
                    "raw": raw,
                    "card_text": card_text,
                    "payload": payload,
                    "game": card.get("game"),
                    "kwargs": card.get("kwargs") or {},
                }
            )

    def generate(self, rng):
        b = rng.randrange(len(self.bases))
        base = self.bases[b]
        mode = rng.choice(("struct", "struct", "struct", "bytes", "bytes", "json"))
        edits = []
        if mode == "struct":
            for _ in range(rng.choice((1, 1, 2, 3))):
                where = rng.choice(
                    ("top", "options", "card", "net", "config", "config", "config", "tensor", "tensor", "tensor")
                )
                edits.append({"where": where, "seed": rng.getrandbits(32)})
        elif mode == "bytes":
            for _ in range(rng.choice((1, 1, 2, 4))):
                edits.append(
                    {
                        "op": rng.choice(("bitflip", "bytes", "truncate", "append", "zero", "splice")),
                        "seed": rng.getrandbits(32),
                    }
                )
        else:
            edits.append({"op": rng.choice(("bitflip", "truncate", "text")), "seed": rng.getrandbits(32)})
        return {"game": base["game"], "base": b, "mode": mode, "edits": edits, "act_seed": rng.getrandbits(31)}

    def build(self, inp):
        """(bytes of the .pt file, text of the .json file) of an input."""
        import torch

        base = self.bases[inp["base"]]
        raw, card_text = base["raw"], base["card_text"]
        if inp["mode"] == "struct":
            payload = copy.copy(base["payload"])
            payload["net"] = copy.copy(payload["net"])
            payload["net"]["state_dict"] = dict(payload["net"]["state_dict"])
            for e in inp["edits"]:
                self.edit(random.Random(e["seed"]), e["where"], payload)
            buf = io.BytesIO()
            torch.save(payload, buf)
            raw = buf.getvalue()
        elif inp["mode"] == "bytes":
            data = bytearray(raw)
            for e in inp["edits"]:
                rng = random.Random(e["seed"])
                n = len(data)
                if e["op"] == "bitflip":
                    for _ in range(rng.randrange(1, 9)):
                        i = rng.randrange(n)
                        data[i] ^= 1 << rng.randrange(8)
                elif e["op"] == "bytes":
                    i = rng.randrange(n) if rng.random() < 0.5 else rng.randrange(min(n, 2048))
                    data[i : i + 8] = rng.randbytes(len(data[i : i + 8]))
                elif e["op"] == "truncate":
                    del data[rng.randrange(n) :]
                elif e["op"] == "append":
                    data += rng.randbytes(rng.randrange(1, 512))
                elif e["op"] == "zero":
                    i = rng.randrange(n)
                    data[i : i + 256] = bytes(len(data[i : i + 256]))
                elif e["op"] == "splice":
                    other = self.bases[rng.randrange(len(self.bases))]["raw"]
                    cut = rng.randrange(min(n, len(other)))
                    data = data[:cut] + bytearray(other[cut:])
            raw = bytes(data)
        else:
            rng = random.Random(inp["edits"][0]["seed"])
            op = inp["edits"][0]["op"]
            if op == "text":
                card_text = _json_mutants(rng, card_text)
            else:
                data = bytearray(card_text.encode())
                if op == "bitflip" and data:
                    data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
                elif data:
                    del data[rng.randrange(len(data)) :]
                card_text = data.decode("utf-8", "surrogateescape")
        return raw, card_text

    def edit(self, rng, where, payload):
        import torch

        if where == "top":
            key = rng.choice(("format", "version", "kind", "agent", "net", "options", "card", "extra"))
            if rng.random() < 0.3:
                payload.pop(key, None)
            else:
                payload[key] = odd_value(rng, payload.get(key))
        elif where in ("options", "card"):
            payload[where] = (
                _json_mutants(rng, payload[where]) if isinstance(payload.get(where), str) else odd_value(rng)
            )
        elif where == "net":
            net = payload.get("net")
            if isinstance(net, dict):
                key = rng.choice(("format", "version", "config", "state_dict", "extra"))
                if rng.random() < 0.3:
                    net.pop(key, None)
                else:
                    net[key] = odd_value(rng, net.get(key))
        elif where == "config":
            net = payload.get("net")
            if isinstance(net, dict) and isinstance(net.get("config"), str):
                try:
                    cfg = json.loads(net["config"])
                except ValueError:
                    return
                if isinstance(cfg, dict) and cfg:
                    key = rng.choice(list(cfg) + ["bogus"])
                    if rng.random() < 0.2:
                        cfg.pop(key, None)
                    else:
                        old = cfg.get(key)
                        cfg[key] = (
                            odd_value(rng, old)
                            if rng.random() < 0.7
                            else (rng.choice((0, 1, -1, old * 2 if isinstance(old, int) else 3)))
                        )
                    try:
                        net["config"] = json.dumps(cfg)
                    except ValueError:
                        pass
        elif where == "tensor":
            net = payload.get("net")
            sd = net.get("state_dict") if isinstance(net, dict) else None
            if isinstance(sd, dict) and sd:
                key = rng.choice(sorted(sd))
                t = sd[key]
                op = rng.choice(("drop", "extra", "shape", "dtype", "nan", "inf", "big", "scalar", "empty", "value"))
                if op == "drop":
                    del sd[key]
                elif op == "extra":
                    sd[key + ".extra"] = torch.zeros(3)
                elif not isinstance(t, torch.Tensor):
                    sd[key] = torch.zeros(2)
                elif op == "shape":
                    flat = t.reshape(-1)
                    sd[key] = (
                        flat[: max(0, flat.numel() - 1)].clone()
                        if rng.random() < 0.5
                        else torch.cat([flat, flat[:1]])
                        if flat.numel()
                        else torch.zeros(1)
                    )
                elif op == "dtype":
                    sd[key] = t.to(
                        rng.choice(
                            (torch.float16, torch.float64, torch.int64, torch.bool, torch.bfloat16, torch.complex64)
                        )
                    )
                elif op in ("nan", "inf", "big"):
                    t = t.clone()
                    if t.is_floating_point() and t.numel():
                        t.view(-1)[rng.randrange(t.numel())] = {"nan": float("nan"), "inf": float("inf"), "big": 3e38}[
                            op
                        ]
                    sd[key] = t
                elif op == "scalar":
                    sd[key] = torch.tensor(1.0)
                elif op == "empty":
                    sd[key] = torch.zeros(0)
                elif op == "value":
                    sd[key] = odd_value(rng)

    def execute(self, inp):
        from zerogym_agents import CheckpointError, load_agent

        raw, card_text = self.build(inp)
        base = self.bases[inp["base"]]
        stem = os.path.join(self.dir, f"agent-{os.getpid()}")
        with open(stem + ".pt", "wb") as f:
            f.write(raw)
        with open(stem + ".json", "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(card_text)
        try:
            agent = load_agent(stem + ".pt", seed=0)
        except CheckpointError:
            return
        self.play(agent, base, inp["act_seed"])

    def play(self, agent, base, seed):
        """The loaded agent chooses a legal move in its game (with at most 4 simulations), or refuses
        with a ValueError (weights edited to NaN load, and the search then says so)."""
        import zerogym

        if isinstance(getattr(agent, "simulations", None), int):  # a search agent
            agent.simulations = min(agent.simulations, 4)
        env = zerogym.make(base["game"], **base["kwargs"])
        env.reset(seed=seed)
        try:
            a = agent.act(env)
        except ValueError:  # a clear refusal (e.g. a net that outputs NaN): allowed
            return
        except Exception as err:
            raise Finding(f"a loaded agent fails to act: {type(err).__name__}: {err}") from None
        if not env.unwrapped.state.is_legal(int(a)):
            raise Finding(f"a loaded agent chose an illegal move {a!r}")

    def save(self, inp, folder):
        raw, card_text = self.build(inp)
        with open(os.path.join(folder, "agent.pt"), "wb") as f:
            f.write(raw)
        with open(os.path.join(folder, "agent.json"), "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(card_text)
        return inp
