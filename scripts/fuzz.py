#!/usr/bin/env python
"""Fuzzes the inputs zerogym takes from outside: state blobs, actions, the vector path, agent files, GTP.

    python scripts/fuzz.py --minutes 30 --seed 0                 # every target, one worker per core
    python scripts/fuzz.py --seconds 20 --targets blobs,actions  # a few targets, briefly
    python scripts/fuzz.py --replay runs/fuzz-findings/blobs/<signature>/<index>   # rerun one input
    scripts/sanitize.sh python scripts/fuzz.py --minutes 10      # against the ASan/UBSan build

Targets (each input is built from (seed, target, index) alone, so a run is reproducible and any
input can be rebuilt from its index):

  blobs        State.load_bytes (and pickle.loads of a State) on mutated blobs of real positions of
               every game at several sizes.  A bad blob must raise ValueError and leave the state as it
               was; an accepted one must then work: legal_mask, observation, encode, copy, hash,
               pickling, and random legal play to the end.
  actions      odd Python objects as actions to State.step / is_legal / illegal_reason and to the AEC
               envs' step: an action is either a legal move played as its integer value or refused with
               IllegalMoveError / TypeError / ValueError, leaving everything byte for byte unchanged.
  vector       zerogym.vector.make(...).step with arrays of odd dtypes, shapes, layouts and values, and
               make with odd num_envs: accepted only when every action is an integer and legal (or -1),
               else refused with no game changed.
  checkpoints  load_agent on mutated copies of the shipped agents (structured edits of the payload,
               byte edits of the .pt and .json files): it loads (and the agent then plays a move) or
               raises CheckpointError.
  gtp          random and mutated byte lines to GTPEngine.handle and serve: every answer is a
               well-formed "=..." or "?..." (or nothing for a blank line), and an error changes nothing.

Anything else is a finding: an unexpected exception, a broken promise, a hang, or a crash of the
process (a segfault or a sanitizer report: inputs run in worker processes, --jobs, which the main
process restarts after a crash).  Findings are counted by kind, and up to --examples inputs of each
kind are saved under --findings with the traceback or crash report and the command that replays them.
The markdown summary goes to --out.  Exit status 1 when there was any finding.

The time is shared between targets by --weights (checkpoint loads are slow, so they get less); each
worker runs every target for its share, worker j taking inputs j, j + jobs, j + 2 jobs, ...  With
--atheris TARGET (blobs or gtp, where the input is bytes) the atheris package, if installed, drives
one target with coverage feedback instead; plain random mutation is the default.
"""
import argparse
import atexit
import copy
import datetime
import hashlib
import io
import json
import math
import mmap
import os
import pickle
import random
import re
import select
import shlex
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from decimal import Decimal
from enum import IntEnum
from fractions import Fraction

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGETS = ("blobs", "actions", "vector", "symmetry", "text", "methods", "checkpoints", "gtp")
WEIGHTS = {"blobs": 4, "actions": 4, "vector": 3, "symmetry": 1, "text": 1, "methods": 1, "checkpoints": 1, "gtp": 2}
# rule variants fuzzed besides the sizes and switches every game of the registry is probed at
# (game_configs); a game that is not named here is fuzzed at those alone
VARIANTS = (
    ("go", {"board_size": 7, "komi": 0.5}), ("go", {"board_size": 9, "superko": "simple"}),
    ("go", {"board_size": 9, "max_moves": 30}),
    ("connect_four", {"rows": 4, "cols": 5, "connect": 3}), ("connect_four", {"rows": 1, "cols": 3, "connect": 2}),
    ("connect_four", {"rows": 10, "cols": 12, "connect": 5}),
    ("tictactoe", {"board_size": 4, "win_length": 3}), ("tictactoe", {"board_size": 15, "win_length": 5}),
)
GAME_WEIGHT = 12.0          # every game gets the same share of the inputs of a state target
_SELECTED = None            # --games: the games fuzzed (None: every game of zerogym.registry.GAMES)
HEADER = {"hash": (0, "<Q"), "to_play": (8, "<i"), "status": (12, "<i"), "winner": (16, "<i"),
          "moves": (20, "<i"), "last_action": (24, "<i"), "pad": (28, "<i")}
HEADER_BYTES = 32
INT32 = (-2 ** 31, -2 ** 31 + 1, -65536, -257, -2, -1, 0, 1, 2, 3, 7, 127, 128, 255, 256, 32767, 65535,
         2 ** 30, 2 ** 31 - 1)
INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
CRASH_SLOT = struct.Struct("<qq")        # (target number, input index) a worker is about to run


class Finding(Exception):
    """An outcome the contract does not allow (the message says which)."""


class _Timeout(BaseException):
    """One input ran longer than its target's timeout (a BaseException: code under test cannot catch it)."""


class _Boom(Exception):
    """Raised by the fuzzer's own odd objects; passing it through is allowed."""


def input_seed(seed, target, index):
    """The seed of input `index` of `target`: every input is rebuilt from these three alone."""
    digest = hashlib.blake2b(f"{seed}:{target}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def sanitizers_active():
    """Which sanitizer runtimes this process has loaded ("" when none)."""
    found = []
    try:
        with open("/proc/self/maps") as f:
            maps = f.read()
    except OSError:
        maps = os.environ.get("LD_PRELOAD", "")
    for lib, name in (("libasan", "AddressSanitizer"), ("libubsan", "UndefinedBehaviorSanitizer")):
        if lib in maps:
            found.append(name)
    return " + ".join(found)


def weighted(rng, items):
    """One of `items` (tuples whose last element is a weight)."""
    return rng.choices(items, weights=[it[-1] for it in items])[0]


def config_label(game, kwargs):
    return game + ("(" + ", ".join(f"{k}={v}" for k, v in kwargs.items()) + ")" if kwargs else "")


def games():
    """The games fuzzed: --games, or every game of zerogym.registry.GAMES (a new game is fuzzed as it is added)."""
    from zerogym.registry import GAMES
    return tuple(g for g in GAMES if _SELECTED is None or g in _SELECTED)


def probed_kwargs(game):
    """Kwargs of `game` found from its make_spec signature alone: the defaults; each int kwarg at its
    smallest, second smallest, a middle and its largest accepted value in 1..40 (with the GameInfo's
    size_probe where the value is refused alone); each bool kwarg flipped, at the defaults and at the
    smallest size."""
    import importlib
    import inspect
    from zerogym.gamedocs import _accepts
    from zerogym.registry import game_info, game_module
    core = importlib.import_module(game_module(game).raw_env.state_class.__module__)
    params = inspect.signature(core.make_spec).parameters.values()
    defaults = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}
    probe = game_info(game).size_probe
    found = [{}]
    smallest = {}
    for name, default in defaults.items():
        if isinstance(default, bool) or not isinstance(default, int):
            continue
        ok = []
        for v in range(1, 41):
            for kw in ({name: v}, {**probe, name: v}):
                if _accepts(game, kw):
                    ok.append(kw)
                    break
        if not ok:
            continue
        smallest = smallest or ok[0]
        for i in sorted({0, 1, len(ok) // 3, len(ok) - 1}):
            if i < len(ok) and ok[i] not in found:
                found.append(ok[i])
    for name, default in defaults.items():
        if isinstance(default, bool):
            for base in ({}, smallest):
                kw = {**base, name: not default}
                if kw not in found and _accepts(game, kw):
                    found.append(kw)
    return found


_CONFIGS = {}


def game_configs():
    """(game, kwargs, weight) of every game fuzzed: probed_kwargs and VARIANTS; big boards are rarer (their
    blobs are long and their games slow to play out), and the weights of each game add up to GAME_WEIGHT."""
    key = games()
    if key not in _CONFIGS:
        from zerogym.gamedocs import _accepts
        from zerogym.registry import make_state
        out = []
        for game in key:
            kws = probed_kwargs(game) + [kw for g, kw in VARIANTS if g == game and _accepts(game, kw)]
            rows, seen = [], set()
            for kw in kws:
                spec = make_state(game, **kw).spec
                h, w, _ = spec.obs_shape
                if repr(spec.kwargs) not in seen:             # the same game twice (a value that is the default)
                    seen.add(repr(spec.kwargs))
                    rows.append((kw, 3.0 if h * w <= 49 else 2.0 if h * w <= 169 else 1.0, h * w))
            total = sum(r[1] for r in rows)
            out += [(game, kw, GAME_WEIGHT * wt / total, cells) for kw, wt, cells in rows]
        _CONFIGS[key] = tuple((g, kw, wt) for g, kw, wt, _ in out), tuple(c for *_, c in out)
    return _CONFIGS[key][0]


def config_cells(i):
    """The board cells of game_configs()[i]."""
    game_configs()
    return _CONFIGS[games()][1][i]


# ---- positions ---------------------------------------------------------------------------------------
class Corpus:
    """Real positions of every config: a few random games per config, deterministic in the seed."""

    def __init__(self, seed, games_per_config=4):
        from zerogym.registry import make_state
        rng = random.Random(f"corpus:{seed}")
        self.configs = []
        for game, kwargs, weight in game_configs():
            template = make_state(game, **kwargs)
            games = []
            for _ in range(games_per_config):
                st, moves, blobs = template.copy(), [], [template.to_bytes()]
                while not st.is_over():
                    a = int(rng.choice(st.legal_actions()))
                    st.step(a)
                    moves.append(a)
                    blobs.append(st.to_bytes())
                games.append((moves, blobs))
            self.configs.append({"game": game, "kwargs": kwargs, "weight": weight, "template": template,
                                 "games": games, "label": config_label(game, kwargs)})

    def pick(self, rng):
        weights = [c["weight"] for c in self.configs]
        return rng.choices(range(len(self.configs)), weights=weights)[0]

    def position(self, rng, ci):
        """(moves, blob) of a random position of config ci."""
        moves, blobs = rng.choice(self.configs[ci]["games"])
        k = rng.randrange(len(blobs))
        return moves[:k], blobs[k]

    def state(self, ci, blob):
        st = self.configs[ci]["template"].copy()
        st.load_bytes(blob)
        return st


def play_out(st, rng, limit, revalidate=False):
    """Random legal moves to the end; Finding if the game misbehaves or does not end within `limit`.
    revalidate: every position reached must load again (load_bytes of its own blob)."""
    import numpy as np
    fresh = st.copy() if revalidate else None
    for _ in range(limit):
        if revalidate:
            try:
                fresh.load_bytes(st.to_bytes())
            except ValueError as err:
                raise Finding(f"a position reached by legal play from an accepted blob is refused: {err}") from None
        if st.is_over():
            return
        mask = st.legal_mask()
        acts = st.legal_actions()
        if not len(acts):
            raise Finding("a running game has no legal move")
        if not np.array_equal(np.flatnonzero(mask), acts):
            raise Finding("legal_mask and legal_actions disagree")
        a = int(acts[rng.randrange(len(acts))])
        st.step(a)
    if not st.is_over():
        raise Finding(f"the game did not end within {limit} random moves")


def move_limit(st):
    """A bound on the length of any game from the start (Go: its max_moves; the others fill the board)."""
    kwargs = st.spec.kwargs
    if st.spec.name.startswith("go"):
        n = kwargs.get("board_size", 19)
        return (kwargs.get("max_moves") or 2 * n * n) + 2
    h, w, _ = st.spec.obs_shape
    return 2 * (h * w + st.num_actions) + 4


class HashModel:
    """The Zobrist hash of one config, learned from its corpus: the XOR of a 64-bit key per (cell, piece
    value) of the blob's "board" field and one key for the second player to move, solved over GF(2).
    fix() gives a mutated blob the hash its board and player to move would have, so that a mutation of
    the board reaches the checks behind the hash.  ok is False for a game whose hash is not of that form
    (the corpus contradicts it) or that has no int8 board field."""

    def __init__(self, spec, blobs):
        import numpy as np
        self.ok = "board" in spec.layout and spec.layout["board"][1] == "i1"
        if not self.ok:
            return
        self.off, _, self.cells = spec.layout["board"]
        self.values = max(2, max(int(np.frombuffer(b, np.int8, self.cells, self.off).max()) for b in blobs))
        self.pivots = {}                    # leading feature -> (row, hash)
        for b in dict.fromkeys(blobs):
            row = self.row(b)
            if row is None or len(self.pivots) > self.values * self.cells:
                continue
            rest, h = self.reduce(row, struct.unpack_from("<Q", b, 0)[0])
            if rest:
                self.pivots[rest.bit_length() - 1] = (rest, h)
            elif h:
                self.ok = False             # the hash is no XOR of such keys
                return

    def row(self, blob):
        """The features of a blob as the bits of an int (None when a cell holds no piece value)."""
        import numpy as np
        if len(blob) < self.off + self.cells:
            return None
        board = np.frombuffer(bytes(blob), np.int8, self.cells, self.off).astype(np.int64)
        if board.min() < 0 or board.max() > self.values:
            return None
        bits = np.zeros(self.cells * self.values + 1, np.uint8)
        cells = np.flatnonzero(board)
        bits[cells * self.values + board[cells] - 1] = 1
        bits[-1] = struct.unpack_from("<i", blob, 8)[0] == 1
        return int.from_bytes(np.packbits(bits, bitorder="little").tobytes(), "little")

    def reduce(self, row, h=0):
        while row:
            top = row.bit_length() - 1
            if top not in self.pivots:
                break
            prow, ph = self.pivots[top]
            row ^= prow
            h ^= ph
        return row, h

    def fix(self, blob):
        """Write the learned hash of `blob` (a bytearray) into it, when the corpus determines it."""
        row = self.row(blob) if self.ok and len(blob) >= HEADER_BYTES else None
        if row is not None:
            rest, h = self.reduce(row)
            if not rest:
                struct.pack_into("<Q", blob, 0, h)


# ---- target: state blobs -------------------------------------------------------------------------------
class BlobTarget:
    name = "blobs"
    timeout = 20.0

    def __init__(self, seed):
        self.corpus = Corpus(seed)
        self.models = {}

    def generate(self, rng):
        ci = self.corpus.pick(rng)
        cfg = self.corpus.configs[ci]
        _, blob = self.corpus.position(rng, ci)
        blob = bytearray(blob)
        ops = []
        for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 5))):
            op = rng.choice(("bitflip", "bitflip", "bytes", "header", "header", "header", "int", "int", "splice",
                             "splice_other", "block", "fill", "resize", "field", "field", "field", "field_copy",
                             "board", "board"))
            ops.append(op)
            n = len(blob)
            if not n:
                blob = bytearray(rng.randbytes(rng.randrange(1, 64)))
                continue
            if op == "bitflip":
                for _ in range(rng.choice((1, 1, 2, 3, 8))):
                    i = rng.randrange(n)
                    blob[i] ^= 1 << rng.randrange(8)
            elif op == "bytes":
                for _ in range(rng.randrange(1, 17)):
                    blob[rng.randrange(n)] = rng.randrange(256)
            elif op == "header" and n >= HEADER_BYTES:
                field = rng.choice(tuple(HEADER))
                off, fmt = HEADER[field]
                if fmt == "<Q":
                    v = rng.choice((0, 1, 2 ** 63, 2 ** 64 - 1, rng.getrandbits(64)))
                else:
                    v = rng.choice(INT32 + (cfg["template"].num_actions, cfg["template"].num_actions - 1,
                                            cfg["template"].num_actions + 1, rng.randrange(-2 ** 31, 2 ** 31)))
                struct.pack_into(fmt, blob, off, v)
            elif op == "int":
                size, fmt, lo, hi = rng.choice(((1, "<b", -128, 127), (2, "<h", -2 ** 15, 2 ** 15 - 1),
                                                (4, "<i", -2 ** 31, 2 ** 31 - 1)))
                if n >= size:
                    i = rng.randrange(0, n - size + 1, size) if rng.random() < 0.8 else rng.randrange(n - size + 1)
                    v = rng.choice((lo, hi, -1, 0, 1, 2, 3, lo + 1, hi - 1, rng.randint(lo, hi),
                                    cfg["template"].num_actions))
                    v = max(lo, min(hi, v))
                    struct.pack_into(fmt, blob, i, v)
            elif op == "splice":                 # two positions of the same config, cut at one point
                _, other = self.corpus.position(rng, ci)
                cut = rng.randrange(min(n, len(other)) + 1)
                blob = blob[:cut] + bytearray(other[cut:])
            elif op == "splice_other":           # a region of another config's position (sizes may differ)
                _, other = self.corpus.position(rng, self.corpus.pick(rng))
                i, j = rng.randrange(n), rng.randrange(len(other))
                k = rng.randrange(1, 257)
                piece = other[j:j + k]
                blob[i:i + len(piece)] = piece
                del blob[n:]
            elif op == "block":                  # copy a region of the blob onto another place
                i, j, k = rng.randrange(n), rng.randrange(n), rng.randrange(1, 129)
                piece = blob[i:i + k]
                blob[j:j + len(piece)] = piece
                del blob[n:]
            elif op == "fill":
                i, k = rng.randrange(n), rng.randrange(1, 257)
                blob[i:i + k] = bytes([rng.choice((0, 0xFF, 0x80, 0x7F))]) * len(blob[i:i + k])
            elif op == "resize":
                if rng.random() < 0.5:
                    del blob[rng.randrange(n):]
                else:
                    blob += rng.randbytes(rng.choice((1, 7, 8, 64, 4096)))
            elif op in ("field", "field_copy", "board"):
                self.edit_field(rng, ci, blob, op)
        if rng.random() < 0.6:                   # past the hash check to the checks behind it
            self.hash_model(ci).fix(blob)
            ops.append("hash")
        via = "pickle" if rng.random() < 0.15 else "load_bytes"
        kwargs = dict(cfg["kwargs"])
        if via == "pickle" and rng.random() < 0.2:       # a pickle whose kwargs and blob disagree
            other = self.corpus.configs[self.corpus.pick(rng)]
            if other["game"] == cfg["game"]:
                kwargs = dict(other["kwargs"])
        return {"game": cfg["game"], "config": ci, "kwargs": kwargs, "blob": bytes(blob), "ops": ops, "via": via,
                "play_seed": rng.getrandbits(32)}

    def hash_model(self, ci):
        if ci not in self.models:
            cfg = self.corpus.configs[ci]
            self.models[ci] = HashModel(cfg["template"].spec, [b for _, blobs in cfg["games"] for b in blobs])
        return self.models[ci]

    def edit_field(self, rng, ci, blob, op):
        """A structured edit through spec.layout: an element of a named field (a counter, a link of a
        union-find, a mask, the player who moved first, a header field) set to a boundary value, to a
        value near its own, to an index of the field or to another element's value ("field"); a whole
        field taken from another position of the config ("field_copy"); or pieces put on or taken off
        cells of the board ("board")."""
        import numpy as np
        spec = self.corpus.configs[ci]["template"].spec
        if op == "board" and "board" in spec.layout:
            field = "board"
        else:
            field = rng.choice(sorted(spec.layout))
        off, dtype, count = spec.layout[field]
        dt = np.dtype(dtype).newbyteorder("<")
        if off + dt.itemsize * count > len(blob):
            return
        arr = np.frombuffer(blob, dt, count, off)          # a view: writing it edits the blob
        if op == "field_copy":
            _, other = self.corpus.position(rng, ci)
            arr[:] = np.frombuffer(other, dt, count, off)
            return
        if dt.names:                                       # a structured field: one of its members
            arr = arr[rng.choice(dt.names)]
        if arr.dtype.kind not in "iu" or arr.ndim != 1 or not arr.size:
            return
        dt, count = arr.dtype, arr.size
        for _ in range(rng.choice((1, 1, 1, 2, 3)) if op == "field" else rng.choice((1, 1, 2, 3, 6))):
            i = rng.randrange(count)
            if op == "board":
                arr[i] = rng.choice((0, 0, 1, 2, 1, 2, -1, 3))
                continue
            info = np.iinfo(dt)
            old = int(arr[i])
            v = rng.choice((info.min, info.max, 0, 1, 2, -1, old + 1, old - 1, old ^ (1 << rng.randrange(dt.itemsize * 8)),
                            count, count - 1, rng.randrange(max(count, 1)), int(arr[rng.randrange(count)]),
                            spec.num_actions, spec.num_actions - 1, 3))
            arr[i] = max(info.min, min(info.max, v))

    def execute(self, inp):
        cfg = self.corpus.configs[inp["config"]]
        blob = inp["blob"]
        if inp["via"] == "pickle":
            from zerogym._core.state import _restore
            data = pickle.dumps(_Reduce(_restore, (type(cfg["template"]), inp["kwargs"], blob)))
            try:
                st = pickle.loads(data)
            except ValueError:
                return
            if len(blob) != len(st.to_bytes()):
                raise Finding("pickle.loads accepted a blob of the wrong length")
        else:
            st = cfg["template"].copy()
            before = st.to_bytes()
            try:
                st.load_bytes(blob)
            except ValueError:
                if st.to_bytes() != before:
                    raise Finding("a refused blob changed the state") from None
                return
            if len(blob) != len(before):
                raise Finding("load_bytes accepted a blob of the wrong length")
        self.check_accepted(st, random.Random(inp["play_seed"]), cfg)

    def check_accepted(self, st, rng, cfg):
        import numpy as np
        mask = st.legal_mask()
        if mask.shape != (st.num_actions,) or not np.isin(mask, (0, 1)).all():
            raise Finding("legal_mask of an accepted blob is not 0/1")
        if st.current_player not in (0, 1):
            raise Finding(f"accepted blob has current_player {st.current_player}")
        st.legal_actions()
        for p in (None, 0, 1):
            obs = st.observation(p)
            if not np.isin(obs, (0, 1)).all():
                raise Finding("observation of an accepted blob is not 0/1")
        st.encode()
        st.board()
        st.is_terminal(), st.is_truncated(), st.returns(), st.winner, st.last_action, st.move_count
        c = st.copy()
        if c != st or c.to_bytes() != st.to_bytes() or hash(c) != hash(st) or c.hash != st.hash:
            raise Finding("copy of an accepted blob differs")
        back = pickle.loads(pickle.dumps(st))
        if back != st:
            raise Finding("pickle round trip of an accepted blob differs")
        if not st.is_over():
            legal = st.legal_actions()
            if not len(legal):
                raise Finding("a running game has no legal move")
            for a in legal[:8]:
                if not st.is_legal(int(a)) or st.illegal_reason(int(a)) is not None:
                    raise Finding("legal_actions and is_legal disagree")
        if hasattr(st, "recompute_hash") and st.recompute_hash() != st.hash:
            raise Finding("an accepted blob's hash is not the hash of its position")
        play_out(st, rng, move_limit(st), revalidate=True)

    def save(self, inp, folder):
        with open(os.path.join(folder, "blob.bin"), "wb") as f:
            f.write(inp["blob"])
        return {k: v for k, v in inp.items() if k != "blob"}


class _Reduce:
    """Pickles as fn(*args): what a State pickle holds, with any blob."""

    def __init__(self, fn, args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return self.fn, self.args


# ---- target: actions -----------------------------------------------------------------------------------
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
    big = rng.choice((2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 32 + a, 2 ** 63 - 1, 2 ** 63, 2 ** 64, 2 ** 64 + a,
                      10 ** 30, -2 ** 31, -2 ** 31 - 1, -2 ** 32 + a, -2 ** 63, -2 ** 64, -10 ** 30))
    kind = rng.choice(("int", "int", "int", "big", "np", "np", "np_edge", "np0d", "np1", "bool", "npbool", "float",
                       "npfloat", "str", "bytes", "none", "list", "tuple", "complex", "fraction", "decimal",
                       "index_int", "index_seq", "index_raises", "index_returns", "int_subclass", "intenum",
                       "object", "nan", "inf"))
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
        exc = {"TypeError": TypeError, "ValueError": ValueError, "OverflowError": OverflowError,
               "_Boom": _Boom, "KeyError": KeyError}[spec["exc"]]
        return _IndexRaises(exc("from __index__")), set(), False
    if kind == "index_returns":          # Python takes an int subclass (True) from __index__, with a warning
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


class ActionTarget:
    name = "actions"
    timeout = 20.0

    def __init__(self, seed):
        self.corpus = Corpus(seed, games_per_config=3)

    def generate(self, rng):
        ci = self.corpus.pick(rng)
        cfg = self.corpus.configs[ci]
        moves, blob = self.corpus.position(rng, ci)
        st = self.corpus.state(ci, blob)
        legal = [int(x) for x in st.legal_actions()]
        api = rng.choice(("step", "step", "is_legal", "illegal_reason", "raw_env", "env_raise"))
        if api in ("raw_env", "env_raise"):
            moves = moves[:rng.randrange(min(len(moves), 24) + 1)]
            st = self.corpus.state(ci, self.corpus.configs[ci]["games"][0][1][0])
            for m in moves:
                st.step(m)
            legal = [int(x) for x in st.legal_actions()]
            blob = st.to_bytes()
        return {"game": cfg["game"], "config": ci, "blob": blob, "moves": moves, "api": api,
                "action": action_spec(rng, st.num_actions, legal)}

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
            if isinstance(err, _Timeout) or not refusal_allowed(err, action):
                raise
            if st.to_bytes() != before:
                raise Finding(f"{api}({spec['kind']}) raised {type(err).__name__} and changed the state") from None
            if must_accept and values & legal:
                raise Finding(f"{api} refused a legal {spec['kind']} action: {type(err).__name__}: {err}") from None
            return
        if api == "step":
            played = [v for v in values & legal if self.stepped(cfg, before, v) == st.to_bytes()]
            if not played:
                raise Finding(f"step accepted a {spec['kind']} action "
                              + ("that is not an integer" if not values else "but did not play it as its value"))
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
            if isinstance(err, _Timeout) or not refusal_allowed(err, action):
                raise
            after = (raw.state.to_bytes(), raw.agent_selection, dict(raw.rewards), dict(raw._cumulative_rewards))
            if after != before:
                raise Finding(f"env.step({spec['kind']}) raised {type(err).__name__} and changed the env") from None
            if must_accept and values & legal:
                raise Finding(f"env.step refused a legal {spec['kind']} action: {type(err).__name__}") from None
            return
        if not any(self.stepped(cfg, before[0], v) == raw.state.to_bytes() for v in values & legal):
            raise Finding(f"env.step accepted a {spec['kind']} action "
                          + ("that is not an integer" if not values else "but did not play it as its value"))
        if raw.agent_selection != raw.possible_agents[raw.state.current_player]:
            raise Finding("env.step left agent_selection out of step with the state")

    def save(self, inp, folder):
        with open(os.path.join(folder, "blob.bin"), "wb") as f:
            f.write(inp["blob"])
        return {k: v for k, v in inp.items() if k != "blob"}


# ---- target: the vector path ---------------------------------------------------------------------------
class VectorTarget:
    name = "vector"
    timeout = 20.0

    def generate(self, rng):
        configs = game_configs()
        game, kwargs, _ = weighted(rng, [c for i, c in enumerate(configs) if config_cells(i) <= 100])
        if rng.random() < 0.1:
            num = rng.choice((0, -1, -2 ** 31, 2 ** 31 - 1, 2 ** 31, 2 ** 63, 10 ** 30, "4", b"4", None, True, False,
                              1.0, 2.5, float("nan"), [3], (3,), "np_int8", "np_uint64", "np_float", "np_bool",
                              "np_array"))
            return {"game": game, "kwargs": kwargs, "mode": "make", "num_envs": num}
        return {"game": game, "kwargs": kwargs, "mode": "step", "num_envs": rng.choice((1, 2, 3, 5, 8)),
                "warmup": rng.randrange(0, 12), "seed": rng.getrandbits(31),
                "dtype": rng.choice(INT_DTYPES + INT_DTYPES + ("int64",) * 6 + ("list", "list", "tuple", "float32",
                                                                                 "float64", "bool", "object",
                                                                                 "complex", "str", "float16")),
                "shape": rng.choice(("ok",) * 12 + ("scalar", "short", "long", "2d", "col", "empty")),
                "layout": rng.choice(("c",) * 6 + ("strided", "reversed", "fortran2d", "readonly")),
                "values": rng.choice(("legal",) * 6 + ("skip", "mixed", "bad_one", "huge", "wrap", "negative",
                                                       "fraction")),
                "pick": rng.getrandbits(32)}

    def execute(self, inp):
        import numpy as np
        import zerogym.vector
        if inp["mode"] == "make":
            return self.execute_make(inp)
        n = inp["num_envs"]
        venv = zerogym.vector.make(inp["game"], n, **inp["kwargs"])
        venv.reset(seed=inp["seed"])
        for _ in range(inp["warmup"]):
            venv.step(venv.sample_actions())
        actions, expect = self.actions(inp, venv)
        before = [venv.get_state(i) for i in range(n)]
        try:
            venv.step(actions)
        except BaseException as err:
            from zerogym.errors import IllegalMoveError
            if isinstance(err, _Timeout):
                raise
            if not isinstance(err, (IllegalMoveError, TypeError, ValueError)):
                raise
            if any(venv.get_state(i) != before[i] for i in range(n)):
                raise Finding(f"a refused step ({type(err).__name__}) changed a game") from None
            if expect == "accept":
                raise Finding(f"step refused legal integer actions: {type(err).__name__}: {err}") from None
            return
        if expect == "refuse":
            raise Finding(f"step accepted {inp['dtype']} actions ({inp['shape']}, {inp['values']}, "
                          f"{inp['layout']})")
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
        vals = [rng.choice(l) if l else -1 for l in legal]
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
            vals[rng.randrange(n)] = rng.choice((2 ** 31, 2 ** 32, 2 ** 63 - 1, -2 ** 63, 2 ** 40))
            ok_values = False
        elif kind == "wrap":                 # a legal action plus 2**32: wraps to it in 32 bits
            i = rng.randrange(n)
            vals[i] += 2 ** 32
            ok_values = False
        elif kind == "negative":
            vals[rng.randrange(n)] = rng.choice((-2, -3, -2 ** 31, -1000))
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
                    vals = [v % 2 ** 64 for v in vals]       # -1 as 2**64 - 1, -2 as 2**64 - 2, ...
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
            if shape == "scalar":                      # not an (N,) array, even for N = 1
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
            return arr, "either"                       # numpy makes a scalar an (1,) array: harmless
        if not (integer and right_shape and ok_values):
            return arr, "refuse"
        if dtype in ("int64", "int32", "list", "tuple"):
            return arr, "accept"
        return arr, "either"

    def execute_make(self, inp):
        import numpy as np
        import zerogym.vector
        num = inp["num_envs"]
        special = {"np_int8": np.int8(3), "np_uint64": np.uint64(3), "np_float": np.float64(3.0),
                   "np_bool": np.bool_(True), "np_array": np.array([3])}
        if isinstance(num, str) and num in special:
            num = special[num]
        integer = (isinstance(num, (int, np.integer)) and not isinstance(num, (bool, np.bool_)))
        try:
            venv = zerogym.vector.make(inp["game"], num, **inp["kwargs"])
        except (TypeError, ValueError):
            return
        except MemoryError:         # more games than this machine can hold: fine, if it says so at once
            if integer and int(num) > 2 ** 20:
                return
            raise
        if not integer:
            raise Finding(f"vector.make accepted num_envs={num!r} ({type(num).__name__})")
        if not 0 <= int(num) <= 2 ** 24:
            raise Finding(f"vector.make accepted num_envs={num!r}")
        if venv.num_envs != int(num):
            raise Finding(f"vector.make(num_envs={num!r}) made {venv.num_envs} games")
        venv.reset(seed=0)
        venv.step(venv.sample_actions())

    def save(self, inp, folder):
        return inp


# ---- target: symmetries -----------------------------------------------------------------------------
def _valid_index(x, n):
    """True for an int (not a bool) in range(n): what a transform must accept."""
    import numpy as np
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) and 0 <= x < n


class SymmetryTarget:
    """The board transforms of every game (the spec's Symmetries), cell_moves actions included: a random game
    played again through transform k is the transformed game (legal masks, observations, encoded planes,
    the outcome), every action map is a permutation with an inverse, and action() and policy() refuse an
    action, a transform index or a vector that is not one of theirs instead of wrapping it around."""
    name = "symmetry"
    timeout = 20.0

    def __init__(self, seed):
        self.corpus = Corpus(seed, games_per_config=2)

    def generate(self, rng):
        ci = self.corpus.pick(rng)
        cfg = self.corpus.configs[ci]
        moves, _ = rng.choice(cfg["games"])
        k = rng.randrange(len(cfg["template"].symmetries()))
        mode = rng.choice(("replay", "replay", "replay", "garbage"))
        odd = [-1, -2, 2 ** 31, 2 ** 63, -2 ** 63, True, 1.5, "1", None, [0], "n", "n+1", "np-1", "np"]
        return {"game": cfg["game"], "config": ci, "moves": moves[:rng.randrange(len(moves) + 1)], "k": k,
                "mode": mode, "a": rng.choice(odd + ["ok"] * 3), "kk": rng.choice(odd + ["ok"] * 3),
                "vec": rng.choice(("short", "long", "ok", "2d", "scalar")), "pick": rng.getrandbits(32)}

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
            return                                  # a start position the transform changes: no replay
        for m in inp["moves"] + [None]:
            if not np.array_equal(sym.policy(st.legal_mask(), k), t.legal_mask()):
                raise Finding(f"{sym.names[k]}: the legal moves of the transformed position are not the "
                              "transformed legal moves")
            if not np.array_equal(sym.observation(st.observation(), k), t.observation()):
                raise Finding(f"{sym.names[k]}: the transformed position's observation is not the transformed "
                              "observation")
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
            return {"ok": rng.randrange(size), "n": size, "n+1": size + 1, "np-1": np.int64(-1),
                    "np": np.int32(rng.randrange(size))}.get(x, x) if isinstance(x, str) else x
        rng = random.Random(inp["pick"])
        a, kk = value(inp["a"], A, rng), value(inp["kk"], n, rng)
        try:
            out = sym.action(a, kk)
        except (TypeError, ValueError, IndexError):
            if _valid_index(a, A) and _valid_index(kk, n):
                raise Finding(f"action({a!r}, {kk!r}) refused an action and transform in range") from None
        else:
            if not (_valid_index(a, A) and _valid_index(kk, n)):
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


# ---- target: move names -------------------------------------------------------------------------------
_TEXT_BITS = ("", " ", "\t", "\x00", "-", "x", ":", "off", "OFF", "pass", "swap", "0", "1", "9", "99", "-1",
              "\u0663", "\u00b2", "\uff21", "\u0130", "\u017f", "\U0001d7d9", "\u200b", "\ufeff", "a", "z", "I", "i",
              "A1", "c2-c3", "c2c3", "1e3", "0x1", "\ud800", "\n", "#", "é")


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
                t = t[:i] + t[i + 1:]
            elif op == 2:
                t = t[:i] + rng.choice(_TEXT_BITS) + t[i + 1:]
            elif op == 3:
                t = t[:i] + "9" * rng.choice((5, 20, 400, 5000)) + t[i:]
            elif op == 4:
                t = t.swapcase()
            else:
                t = "".join(rng.choice(_TEXT_BITS) for _ in range(rng.randrange(1, 6)))
        if rng.random() < 0.08:
            return rng.choice((None, 5, -1, 2.5, b"a1", ["a1"], True, float("nan"), 10 ** 30))
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
            x = rng.choice((-1, spec.num_actions, 2 ** 63, 2.0, 2.5, "3", None, True, np.int64(1), np.float64(1.0),
                            np.array([1]), 1 + 0j))
            try:
                name = format_action(spec, x)
            except (TypeError, ValueError):
                if _valid_index(x, spec.num_actions):
                    raise Finding(f"format_action refused the action {x!r}") from None
                return
            if not _valid_index(x, spec.num_actions):
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


# ---- target: the games' own methods ------------------------------------------------------------------------
class MethodTarget:
    """The public methods a game's State class adds to State's (set_position, move_cells, winning_cells,
    ...), found by looking, called with odd arguments on real positions: each returns, or refuses with
    TypeError / ValueError; a method that changed the state must leave a position that loads again and
    plays on to the end."""
    name = "methods"
    timeout = 20.0

    def __init__(self, seed):
        from zerogym._core.state import State
        self.corpus = Corpus(seed, games_per_config=2)
        base = set(dir(State))
        self.methods = {}
        for cfg in self.corpus.configs:
            cls = type(cfg["template"])
            if cls not in self.methods:
                self.methods[cls] = sorted(m for m in dir(cls) if not m.startswith("_") and m not in base
                                           and callable(getattr(cls, m)))

    def generate(self, rng):
        ci = self.corpus.pick(rng)
        cfg = self.corpus.configs[ci]
        moves, blob = self.corpus.position(rng, ci)
        names = self.methods[type(cfg["template"])]
        return {"game": cfg["game"], "config": ci, "blob": blob, "method": rng.choice(names) if names else None,
                "args": [self.arg_spec(rng) for _ in range(rng.choice((0, 1, 1, 2, 2, 3)))],
                "seed": rng.getrandbits(32)}

    @staticmethod
    def arg_spec(rng):
        return rng.choice(("0", "1", "2", "-1", "A", "A-1", "big", "huge", "true", "np1", "npu64", "float", "half",
                           "nan", "none", "str", "bytes", "list", "obj", "board", "board", "board", "board_bad",
                           "board_float", "board_bool", "board_obj", "board_T", "board_short", "board_3d",
                           "board_list", "board_empty", "board_u8", "board_one_side"))

    def make_arg(self, what, st, rng):
        import numpy as np
        board = np.asarray(st.board())
        simple = {"0": 0, "1": 1, "2": 2, "-1": -1, "A": st.num_actions, "A-1": st.num_actions - 1,
                  "big": 2 ** 31, "huge": 2 ** 64 + 1, "true": True, "np1": np.int64(1), "npu64": np.uint64(2 ** 64 - 1),
                  "float": 1.0, "half": 0.5, "nan": float("nan"), "none": None, "str": "1", "bytes": b"\x01",
                  "list": [0, 1], "obj": object()}
        if what in simple:
            return simple[what]
        b = board.copy()
        if what == "board_bad":
            for _ in range(rng.randrange(1, 4)):
                b.flat[rng.randrange(b.size)] = rng.choice((-1, 3, 127, -128, 4))
            return b
        if what == "board_one_side":               # pieces of one player only, or none
            b[b == rng.choice((1, 2))] = 0
            if rng.random() < 0.3:
                b[:] = 0
            return b
        if what == "board":                        # a real board with a few cells changed to pieces
            for _ in range(rng.randrange(0, 4)):
                b.flat[rng.randrange(b.size)] = rng.choice((0, 1, 2))
            return b
        return {"board_float": b.astype(float) + (0.5 if rng.random() < 0.3 else 0.0), "board_bool": b.astype(bool),
                "board_obj": b.astype(object), "board_T": b.T if b.shape[0] != b.shape[1] else b[:-1],
                "board_short": b[:, :-1], "board_3d": b[None], "board_list": b.tolist(), "board_empty": b[:0],
                "board_u8": b.astype(np.uint8)}[what]

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


# ---- target: agent files ------------------------------------------------------------------------------
def _json_mutants(rng, text):
    """A mutated version of a JSON text (options or card)."""
    choice = rng.randrange(6)
    if choice == 0:
        return rng.choice(("", "{", "[]", "null", "1", '"x"', "{]", "\x00", "{\"a\": NaN}", "\u00e9\\ud800"))
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
    pool = [None, True, False, 0, -1, 1, 2, 2 ** 31, 2 ** 63, 10 ** 30, -10 ** 30, 0.5, -0.0, float("nan"),
            float("inf"), "", "x", "resnet", [], [1, 2], {}, {"a": 1}, "1" * 200]
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
            self.bases.append({"name": name, "raw": raw, "card_text": card_text, "payload": payload,
                               "game": card.get("game"), "kwargs": card.get("kwargs") or {}})

    def generate(self, rng):
        b = rng.randrange(len(self.bases))
        base = self.bases[b]
        mode = rng.choice(("struct", "struct", "struct", "bytes", "bytes", "json"))
        edits = []
        if mode == "struct":
            for _ in range(rng.choice((1, 1, 2, 3))):
                where = rng.choice(("top", "options", "card", "net", "config", "config", "config", "tensor",
                                    "tensor", "tensor"))
                edits.append({"where": where, "seed": rng.getrandbits(32)})
        elif mode == "bytes":
            for _ in range(rng.choice((1, 1, 2, 4))):
                edits.append({"op": rng.choice(("bitflip", "bytes", "truncate", "append", "zero", "splice")),
                              "seed": rng.getrandbits(32)})
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
                    data[i:i + 8] = rng.randbytes(len(data[i:i + 8]))
                elif e["op"] == "truncate":
                    del data[rng.randrange(n):]
                elif e["op"] == "append":
                    data += rng.randbytes(rng.randrange(1, 512))
                elif e["op"] == "zero":
                    i = rng.randrange(n)
                    data[i:i + 256] = bytes(len(data[i:i + 256]))
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
                    del data[rng.randrange(len(data)):]
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
            payload[where] = _json_mutants(rng, payload[where]) if isinstance(payload.get(where), str) \
                else odd_value(rng)
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
                        cfg[key] = odd_value(rng, old) if rng.random() < 0.7 else \
                            (rng.choice((0, 1, -1, old * 2 if isinstance(old, int) else 3)))
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
                    sd[key] = flat[:max(0, flat.numel() - 1)].clone() if rng.random() < 0.5 \
                        else torch.cat([flat, flat[:1]]) if flat.numel() else torch.zeros(1)
                elif op == "dtype":
                    sd[key] = t.to(rng.choice((torch.float16, torch.float64, torch.int64, torch.bool,
                                               torch.bfloat16, torch.complex64)))
                elif op in ("nan", "inf", "big"):
                    t = t.clone()
                    if t.is_floating_point() and t.numel():
                        t.view(-1)[rng.randrange(t.numel())] = {"nan": float("nan"), "inf": float("inf"),
                                                                 "big": 3e38}[op]
                    sd[key] = t
                elif op == "scalar":
                    sd[key] = torch.tensor(1.0)
                elif op == "empty":
                    sd[key] = torch.zeros(0)
                elif op == "value":
                    sd[key] = odd_value(rng)

    def execute(self, inp):
        from zerogym_agents.core.checkpoint import CheckpointError
        from zerogym_agents.agents.saved import load_agent
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
        if isinstance(getattr(agent, "options", None), dict) and "simulations" in agent.options:
            agent.options["simulations"] = min(int(agent.options["simulations"]), 4)
            agent.simulations = agent.options["simulations"]
        env = zerogym.make(base["game"], **base["kwargs"])
        env.reset(seed=seed)
        try:
            a = agent.act(env)
        except ValueError:          # a clear refusal (e.g. a net that outputs NaN): allowed
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


# ---- target: GTP -----------------------------------------------------------------------------------------
GTP_COMMANDS = ("protocol_version", "name", "version", "known_command", "list_commands", "boardsize",
                "clear_board", "komi", "play", "genmove", "undo", "showboard", "final_score", "final_status_list",
                "quit", "loadsgf", "time_settings", "fixed_handicap")


def gtp_line(rng, size):
    """One random GTP line (bytes), mostly well-formed commands, often mutated."""
    letters = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
    cmd = rng.choice(GTP_COMMANDS)
    args = []
    colour = rng.choice(("b", "w", "black", "white", "B", "x", ""))
    vertex = rng.choice((f"{rng.choice(letters[:size + 1])}{rng.randrange(0, size + 2)}", "pass", "PASS", "resign",
                         "I1", "A0", "Z99", "A" + "9" * 30, "a-1", ""))
    if cmd == "play":
        args = [colour, vertex]
    elif cmd == "genmove":
        args = [colour]
    elif cmd == "boardsize":
        args = [rng.choice(("2", "5", "9", "19", "25", "26", "1", "0", "-5", "9.5", "1" * 40, "x", ""))]
    elif cmd == "komi":
        args = [rng.choice(("7.5", "0", "-3", "1e309", "nan", "inf", "-inf", "1e-400", "x", "1" * 400, ""))]
    elif cmd in ("known_command",):
        args = [rng.choice(GTP_COMMANDS + ("fly", ""))]
    elif cmd == "final_status_list":
        args = [rng.choice(("alive", "dead", "seki", "x"))]
    if rng.random() < 0.2:
        args.append(rng.choice(("extra", "1", "b")))
    words = [cmd] + [a for a in args if a]
    if rng.random() < 0.5:
        words.insert(0, rng.choice((str(rng.randrange(1000)), "0", "007", "9" * 30, "-1", "1.5")))
    sep = rng.choice((" ", " ", "\t", "  "))
    line = sep.join(words).encode()
    for _ in range(rng.choice((0, 0, 0, 1, 2, 4))):
        op = rng.randrange(9)
        i = rng.randrange(len(line) + 1)
        if op == 0:
            line = line[:i] + rng.randbytes(rng.randrange(1, 6)) + line[i:]
        elif op == 1 and line:
            j = rng.randrange(len(line))
            line = line[:j] + bytes([line[j] ^ (1 << rng.randrange(8))]) + line[j + 1:]
        elif op == 2:
            line = line[:i] + rng.choice((b"\x00", b"\r", b"\x01", b"\x7f", b"\x1b[2J", b"\t", b"#", b"\x0b\x0c"))\
                + line[i:]
        elif op == 3:
            line = line[:i] + rng.choice(("é", "€", "𝄞", "\u200b", "\ufeff", "Ａ")).encode() + line[i:]
        elif op == 4:
            line = line[:i] + rng.choice((b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80",
                                          b"\xe2\x82")) + line[i:]
        elif op == 5:
            line = line.upper() if rng.random() < 0.5 else line.lower()
        elif op == 6:
            line = line + b" # " + rng.randbytes(rng.randrange(8))
        elif op == 7:
            line = rng.randbytes(rng.randrange(0, 40))
        elif op == 8 and rng.random() < 0.05:
            line = line + b"y" * (70000 + rng.randrange(1000))
    return line.replace(b"\n", b" ")


class GTPTarget:
    name = "gtp"
    timeout = 30.0

    def __init__(self, seed=0):
        import zerogym_agents.agents.base        # imported here: under --atheris, with coverage instrumentation
        import zerogym_agents.cli.gtp         # noqa: F401

    def generate(self, rng):
        size = rng.choice((2, 3, 5, 5, 9, 9, 13, 19))
        lines = [gtp_line(rng, size) for _ in range(rng.randrange(1, 9))]
        return {"game": "go", "size": size, "komi": rng.choice((7.5, 0.5, -3.0, 0.0)), "lines": lines,
                "serve": rng.random() < 0.25, "agent_seed": rng.getrandbits(31),
                "ends": [rng.choice((b"\n", b"\r\n", b"\n", b"\r\r\n")) for _ in lines]}

    def execute(self, inp):
        from zerogym_agents.agents.base import RandomAgent
        from zerogym_agents.cli.gtp import GTPEngine
        engine = GTPEngine(RandomAgent(inp["agent_seed"]), board_size=inp["size"], komi=inp["komi"])
        if inp["serve"]:
            out = io.BytesIO()
            data = b"".join(line + end for line, end in zip(inp["lines"], inp["ends"]))
            engine.serve(io.BytesIO(data), out)
            text = out.getvalue()
            if text and not text.endswith(b"\n\n"):
                raise Finding("serve's output does not end with a blank line")
            for answer in text[:-2].split(b"\n\n") if text else []:
                if answer[:1] not in (b"=", b"?"):
                    raise Finding(f"serve wrote something that is not a GTP answer: {answer[:80]!r}")
            return
        for line in inp["lines"]:
            if engine.done:
                break
            before = (engine.board_size, engine.komi, engine.moves, engine.state.to_bytes())
            out = engine.handle(line)
            if not isinstance(out, str):
                raise Finding(f"handle returned {type(out).__name__}")
            if out == "":           # only for a line blank once control characters and spaces go
                code = line.split(b"#", 1)[0]
                visible = re.sub(rb"[\x00-\x08\x0a-\x1f\x7f]", b"", code).decode("utf-8", "replace").strip()
                if visible or b"\x00" in code:
                    raise Finding(f"no answer to a command line {line[:60]!r}")
                continue
            if out[:1] not in "=?" or not out.endswith("\n\n") or "\n\n" in out[:-2]:
                raise Finding(f"malformed answer {out[:80]!r} to {line[:60]!r}")
            aid = re.match(r"[=?]([0-9]*)", out).group(1).encode()
            cleaned = re.sub(rb"[\x00-\x08\x0a-\x1f\x7f]", b"", line)
            text = cleaned.decode("utf-8", "replace").strip()       # Unicode spaces (U+2003) separate too
            if aid and not (line.lstrip().startswith(aid) or text.startswith(aid.decode())):
                raise Finding(f"answer {out[:20]!r} carries an id the line {line[:40]!r} does not have")
            after = (engine.board_size, engine.komi, engine.moves, engine.state.to_bytes())
            if out.startswith("?") and after != before:
                raise Finding(f"an error answer changed the engine: {out.strip()[:60]!r}")

    def save(self, inp, folder):
        with open(os.path.join(folder, "lines.bin"), "wb") as f:
            f.write(b"".join(line + end for line, end in zip(inp["lines"], inp["ends"])))
        return {k: v for k, v in inp.items() if k not in ("lines", "ends")}


TARGET_CLASSES = {"blobs": BlobTarget, "actions": ActionTarget, "vector": VectorTarget, "symmetry": SymmetryTarget,
                  "text": TextTarget, "methods": MethodTarget, "checkpoints": CheckpointTarget, "gtp": GTPTarget}


def make_target(name, seed):
    cls = TARGET_CLASSES[name]
    try:
        return cls(seed)
    except TypeError:
        return cls()


# ---- running inputs ---------------------------------------------------------------------------------------
class _Alarm:
    """Raise _Timeout in the main thread after `seconds` (Python-level slowness; the parent process
    catches hangs in compiled code by watching the crash slot)."""

    def __init__(self):
        self.ok = hasattr(signal, "setitimer")
        if self.ok:
            try:
                self.previous = signal.signal(signal.SIGALRM, self._fire)
            except ValueError:          # not the main thread
                self.ok = False

    def close(self):
        if self.ok:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)

    @staticmethod
    def _fire(signum, frame):
        raise _Timeout()

    def arm(self, seconds):
        if self.ok:
            signal.setitimer(signal.ITIMER_REAL, seconds)

    def disarm(self):
        if self.ok:
            signal.setitimer(signal.ITIMER_REAL, 0)


def signature(target, kind, message):
    """What findings of one kind have in common: numbers and quoted values stripped from the message."""
    text = re.sub(r"0x[0-9a-f]+|-?\d+(\.\d+)?(e[-+]?\d+)?", "N", message)
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)[:160]
    return f"{target}: {kind}: {text}"


def json_safe(obj):
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, bytes):
        return obj.decode("latin-1") if len(obj) < 200 else f"<{len(obj)} bytes>"
    if isinstance(obj, float) and not math.isfinite(obj):
        return repr(obj)
    if isinstance(obj, int) and not -2 ** 53 <= obj <= 2 ** 53:
        return str(obj)
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return repr(obj)


class Recorder:
    """Counts and findings of one worker (or of the in-process run)."""

    def __init__(self, findings_dir, seed, examples):
        self.findings_dir, self.seed, self.examples = findings_dir, seed, examples
        self.counts = defaultdict(Counter)          # target -> game -> inputs
        self.seconds = Counter()                    # target -> seconds spent on inputs
        self.findings = {}                          # signature -> {"count", "target", "kind", "message", "examples"}

    def add(self, target, kind, message, detail, index=None, inp=None, tgt=None):
        sig = signature(target, kind, message)
        f = self.findings.setdefault(sig, {"count": 0, "target": target, "kind": kind, "message": message[:500],
                                           "examples": []})
        f["count"] += 1
        if len(f["examples"]) < self.examples and self.findings_dir:
            folder = os.path.join(self.findings_dir, target, hashlib.sha1(sig.encode()).hexdigest()[:12],
                                  str(index))
            os.makedirs(folder, exist_ok=True)
            info = {"target": target, "seed": self.seed, "index": index, "kind": kind, "message": message,
                    "signature": sig, "games": ",".join(_SELECTED) if _SELECTED else None,
                    "replay": f"python scripts/fuzz.py --replay {shlex.quote(folder)}"}
            if inp is not None and tgt is not None:
                try:
                    info["input"] = json_safe(tgt.save(inp, folder))
                except Exception as err:     # saving must not stop the run
                    info["input"] = f"could not save the input: {type(err).__name__}: {err}"
            with open(os.path.join(folder, "info.json"), "w") as fh:
                json.dump(info, fh, indent=2)
            with open(os.path.join(folder, "report.txt"), "w", errors="replace") as fh:
                fh.write(detail)
            f["examples"].append(folder)


def run_input(tgt, inp, alarm):
    """(kind, message, detail) of a finding, or None when the input behaved."""
    try:
        alarm.arm(tgt.timeout)
        try:
            tgt.execute(inp)
        finally:
            alarm.disarm()
    except Finding as f:
        return "broken promise", str(f), traceback.format_exc()
    except _Timeout:
        return "hang", f"an input ran longer than {tgt.timeout:g} s", traceback.format_exc()
    except Exception as err:
        frames = traceback.extract_tb(err.__traceback__)
        where = f"{os.path.basename(frames[-1].filename)}:{frames[-1].name}" if frames else "?"
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        return "unexpected exception", f"{type(err).__name__} in {where}: {first}", traceback.format_exc()
    return None


def run_targets(names, budgets, seed, offset, stride, start, rec, emit, slot=None, crash_at=None):
    """Run each target in `names` for budgets[name] seconds on inputs offset, offset + stride, ...
    crash_at=(target, index): abort the process there (to test the handling of crashes)."""
    import warnings
    warnings.filterwarnings("ignore", message="__index__ returned non-int", category=DeprecationWarning)
    alarm = _Alarm()
    for name in names:
        t_setup = time.monotonic()
        tgt = make_target(name, seed)
        setup = time.monotonic() - t_setup
        number = TARGETS.index(name)
        index = start.get(name, offset)
        t0 = time.monotonic()
        deadline = t0 + max(0.0, budgets[name])
        last = 0.0
        counts = rec.counts[name]
        rng = random.Random()
        while True:
            now = time.monotonic()
            if now >= deadline:
                break
            if now - last > 0.25:
                rec.seconds[name] = now - t0
                emit(name, index, setup)
                last = now
            if slot is not None:
                CRASH_SLOT.pack_into(slot, 0, number, index)
            rng.seed(input_seed(seed, name, index))
            inp = tgt.generate(rng)
            if crash_at == (name, index):
                os.abort()
            found = run_input(tgt, inp, alarm)
            if found:
                rec.add(name, *found, index=index, inp=inp, tgt=tgt)
            counts[inp["game"]] += 1
            index += stride
        rec.seconds[name] = time.monotonic() - t0
        emit(name, index, setup, done=True)
    alarm.close()


# ---- worker processes ----------------------------------------------------------------------------------------
def worker_main(args):
    """A worker: runs its share of every target and reports on --report-fd as JSON lines."""
    report = os.fdopen(args.report_fd, "w", buffering=1)
    slot = None
    if args.slot_file:
        fd = os.open(args.slot_file, os.O_RDWR)
        slot = mmap.mmap(fd, CRASH_SLOT.size)
        os.close(fd)
    names = args.targets.split(",")
    budgets = dict(zip(names, map(float, args.budgets.split(","))))
    start = {names[0]: args.start} if args.start is not None else {}
    rec = Recorder(args.findings, args.seed, args.examples)
    sanitizers = sanitizers_active()

    def emit(name, index, setup, done=False):
        msg = {"target": name, "index": index, "setup": setup, "done": done, "seconds": rec.seconds[name],
               "counts": dict(rec.counts[name]), "sanitizers": sanitizers,
               "findings": {s: {k: v for k, v in f.items()} for s, f in rec.findings.items() if f["target"] == name}}
        report.write(json.dumps(msg) + "\n")

    crash_at = None
    if args.crash_at:
        t, _, i = args.crash_at.partition(":")
        crash_at = (t, int(i))
    run_targets(names, budgets, args.seed, args.offset, args.stride, start, rec, emit, slot=slot, crash_at=crash_at)
    report.close()


class Worker:
    """One worker process (restarted after a crash) and what the main process knows of it."""

    def __init__(self, j, names, budgets, opts, log_dir):
        self.j, self.names, self.budgets, self.opts = j, list(names), dict(budgets), opts
        self.log_dir = log_dir
        self.ended = []                 # reports of earlier runs (the last report of each target)
        self.live = {}                  # target -> last report of the current run
        self.first_seen = {}            # target -> when the current run started it
        self.crashes = Counter()
        self.finished = set()
        self.start_index = None
        self.restarts = 0
        self.proc = None
        fd, self.slot_file = tempfile.mkstemp(prefix=f"zerogym-fuzz-slot-{j}-")
        os.close(fd)
        self.launch()

    def launch(self):
        """Start a worker process on the targets not finished yet (the first from start_index)."""
        todo = [t for t in self.names if t not in self.finished and self.budgets[t] > 0]
        self.proc = None
        if not todo:
            return
        with open(self.slot_file, "wb") as f:
            f.write(CRASH_SLOT.pack(-1, -1))
        self.current = todo
        read_fd, write_fd = os.pipe()
        self.log_path = os.path.join(self.log_dir, f"worker-{self.j}-{self.restarts}.log")
        argv = [sys.executable, os.path.abspath(__file__), "--worker", "--seed", str(self.opts.seed),
                "--targets", ",".join(todo), "--budgets", ",".join(f"{self.budgets[t]:.3f}" for t in todo),
                "--offset", str(self.j), "--stride", str(self.opts.jobs), "--report-fd", str(write_fd),
                "--slot-file", self.slot_file, "--examples", str(self.opts.examples),
                "--findings", self.opts.findings]
        if self.opts.games:
            argv += ["--games", self.opts.games]
        if self.start_index is not None:
            argv += ["--start", str(self.start_index)]
        if self.opts.crash_at:
            argv += ["--crash-at", self.opts.crash_at]
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                         pass_fds=(write_fd,), cwd=ROOT)
        os.close(write_fd)
        self.fd = read_fd
        self.buf = b""
        self.live, self.first_seen = {}, {}
        self.last_slot, self.slot_since = None, time.monotonic()
        self.t_launch = time.monotonic()

    def read_reports(self):
        """Read what the worker reported (call when its pipe is readable); False at end of file."""
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            return False
        self.buf += chunk
        *lines, self.buf = self.buf.split(b"\n")
        for line in lines:
            msg = json.loads(line)
            self.live[msg["target"]] = msg
            self.first_seen.setdefault(msg["target"], time.monotonic())
            if msg["done"]:
                self.finished.add(msg["target"])
        return True

    def end_run(self):
        """The process ended: drain its pipe and keep its last reports."""
        while self.read_reports():
            pass
        os.close(self.fd)
        self.ended.append(self.live)
        self.live = {}

    def read_slot(self):
        with open(self.slot_file, "rb") as f:
            return CRASH_SLOT.unpack(f.read(CRASH_SLOT.size))

    def reports(self):
        """Every last report of every run of this worker, the current one included."""
        return self.ended + [self.live]


def run_workers(opts, names, budgets, progress):
    """Run opts.jobs workers to the end; returns (workers, recorder of crashes, sanitizer text)."""
    log_dir = os.path.join(opts.findings, "worker-logs")
    os.makedirs(log_dir, exist_ok=True)
    workers = []
    try:
        for j in range(opts.jobs):
            workers.append(Worker(j, names, budgets, opts, log_dir))
        crash_rec, sanitizers = _supervise(workers, opts, progress)
    finally:
        for w in workers:                   # on an error or ^C here: no worker outlives the run
            if w.proc is not None and w.proc.poll() is None:
                w.proc.kill()
                w.proc.wait()
            try:
                os.unlink(w.slot_file)
            except OSError:
                pass
    return workers, crash_rec, sanitizers


def _supervise(workers, opts, progress):
    """Watch the workers: collect reports, restart after crashes, kill hangs and runaway memory."""
    crash_rec = Recorder(opts.findings, opts.seed, opts.examples)
    parent_targets = {}
    sanitizers = None
    while any(w.proc is not None for w in workers):
        fds = [w.fd for w in workers if w.proc is not None]
        ready, _, _ = select.select(fds, [], [], 0.25)
        for w in workers:
            if w.proc is None:
                continue
            if w.fd in ready:
                w.read_reports()
            for msg in w.live.values():
                sanitizers = msg.get("sanitizers", sanitizers)
            number, index = w.read_slot()
            if (number, index) != w.last_slot:
                w.last_slot, w.slot_since = (number, index), time.monotonic()
            name = TARGETS[number] if 0 <= number < len(TARGETS) else w.current[0]
            code = w.proc.poll()
            killed_for = None
            if code is None:
                limit = 2 * TARGET_CLASSES[name].timeout + 15 + (60 if time.monotonic() - w.t_launch < 60 else 0)
                rss = _rss_mb(w.proc.pid)
                if time.monotonic() - w.slot_since > limit:
                    killed_for = ("hang", f"no progress for {limit:g} s (compiled code looping or blocked)")
                elif rss > opts.max_rss_mb:
                    killed_for = ("memory", f"a worker grew to {rss:.0f} MB (limit {opts.max_rss_mb:g} MB)")
                if killed_for is None:
                    continue
                w.proc.kill()
                code = w.proc.wait()
            started = w.first_seen.get(name, w.t_launch)
            w.end_run()
            if code == 0 and killed_for is None:
                w.proc = None
                continue
            # a crash or a kill: record it with the input that was running, then go on after that input
            with open(w.log_path, "rb") as f:
                log = f.read().decode("utf-8", "replace")
            if killed_for:
                kind, message = killed_for
            else:
                kind = "crash"
                sig = -code if code < 0 else None
                message = _sanitizer_tag(log) or (f"killed by signal {signal.Signals(sig).name}" if sig
                                                  else f"exit status {code}")
            inp = tgt = None
            if index >= 0:
                tgt = crash_target_in_parent(parent_targets, name, opts.seed)
                inp = tgt.generate(random.Random(input_seed(opts.seed, name, index)))
                crash_rec.counts[name][inp["game"]] += 1
            else:
                message += " (while setting up, before any input)"
            crash_rec.add(name, kind, message, log[-20000:], index=index if index >= 0 else "setup",
                          inp=inp, tgt=tgt)
            w.crashes[name] += 1
            w.restarts += 1
            for t in w.names[:w.names.index(name)]:          # targets run before this one are done
                w.finished.add(t)
            w.budgets[name] = max(0.0, w.budgets[name] - (time.monotonic() - started))
            if index < 0 or w.crashes[name] >= opts.max_crashes:
                w.finished.add(name)
                print(f"\nfuzz: worker {w.j} gives up {name} after {w.crashes[name]} crashes", file=sys.stderr)
            w.start_index = index + opts.jobs if name not in w.finished and w.budgets[name] > 0 else None
            w.launch()
            if w.proc is not None and w.current[0] != name:
                w.start_index = None
                w.proc.kill()                                  # started with a stale start index: redo
                w.proc.wait()
                w.end_run()
                w.launch()
        progress(workers, crash_rec)
    return crash_rec, sanitizers


def crash_target_in_parent(cache, name, seed):
    """The target `name` built in the main process, to rebuild the input a worker crashed on."""
    if name not in cache:
        cache[name] = make_target(name, seed)
    return cache[name]


def _rss_mb(pid):
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
    except (OSError, ValueError, IndexError):
        return 0.0


def _sanitizer_tag(log):
    m = re.search(r"ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer): ?([\w-]+)?", log)
    if m:
        return f"{m.group(1)}: {m.group(2) or ''}".strip()
    m = re.search(r"runtime error: (.{0,120})", log)
    if m:
        return f"UndefinedBehaviorSanitizer: runtime error: {m.group(1)}"
    return None


# ---- summary ---------------------------------------------------------------------------------------------------
def merge(reports, crash_rec, names):
    """(inputs per target and game, seconds per target, findings) of worker reports and the crashes."""
    counts = {t: Counter() for t in names}
    seconds = Counter()
    findings = {}

    def add_findings(fs):
        for sig, g in fs.items():
            h = findings.setdefault(sig, dict(g, count=0, examples=[]))
            h["count"] += g["count"]
            h["examples"] = h["examples"] + list(g["examples"])

    for run in reports:
        for t, msg in run.items():
            counts[t] += Counter(msg["counts"])
            seconds[t] += msg["seconds"]
            add_findings(msg["findings"])
    for t, c in crash_rec.counts.items():
        counts[t] += c
    add_findings(crash_rec.findings)
    return counts, seconds, findings


def write_summary(path, opts, names, counts, seconds, findings, elapsed, sanitizers, command, weights):
    total = sum(sum(c.values()) for c in counts.values())
    nfind = sum(f["count"] for f in findings.values())
    lines = ["# Fuzzing zerogym's inputs", "",
             f"Command: `{command}`  ",
             f"Date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}; "
             f"elapsed {elapsed / 60:.1f} min on {opts.jobs or 1} "
             f"{'worker process' if opts.jobs == 1 else 'worker processes' if opts.jobs else 'process (in-process)'}; "
             f"seed {opts.seed}  ",
             f"Sanitizers: {sanitizers or 'not active (a plain build; scripts/sanitize.sh runs this under ASan + UBSan)'}  ",
             "Mutation: seeded random (every input rebuilt from seed, target and index); time shares "
             + ", ".join(f"{t} {weights[t]:g}" for t in names),
             "", f"**{total:,} inputs, {nfind:,} findings ({len(findings)} kinds).**", "",
             "| target | inputs | CPU seconds | inputs/s | findings |", "|---|---:|---:|---:|---:|"]
    for t in names:
        n = sum(counts[t].values())
        s = seconds[t]
        nf = sum(f["count"] for f in findings.values() if f["target"] == t)
        lines.append(f"| {t} | {n:,} | {s:.0f} | {n / s if s else 0:,.0f} | {nf:,} |")
    fuzzed = games()
    lines += ["", "Inputs per game:", "", "| target | " + " | ".join(fuzzed) + " |",
              "|---|" + "---:|" * len(fuzzed)]
    for t in names:
        lines.append(f"| {t} | " + " | ".join(f"{counts[t].get(g, 0):,}" for g in fuzzed) + " |")
    lines += ["", "## Findings", ""]
    if not findings:
        lines.append("None.")
    else:
        lines += ["| target | kind | what | count | example |", "|---|---|---|---:|---|"]
        for sig, f in sorted(findings.items(), key=lambda kv: (kv[1]["target"], -kv[1]["count"])):
            example = f["examples"][0] if f["examples"] else ""
            if example and not os.path.relpath(example, ROOT).startswith(".."):
                example = os.path.relpath(example, ROOT)
            what = f["message"].replace("|", "\\|").replace("\n", " ")[:200]
            lines.append(f"| {f['target']} | {f['kind']} | {what} | {f['count']:,} | {example} |")
        lines += ["", "Each example folder holds the input, info.json and report.txt (traceback or crash "
                      "report); `python scripts/fuzz.py --replay FOLDER` runs it again."]
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# ---- replay and atheris --------------------------------------------------------------------------------------------
def replay(folder):
    with open(os.path.join(folder, "info.json")) as f:
        info = json.load(f)
    select_games(info.get("games"))            # the inputs of a run over some games depend on which
    tgt = make_target(info["target"], info["seed"])
    inp = tgt.generate(random.Random(input_seed(info["seed"], info["target"], info["index"])))
    print(f"replaying {info['target']} input {info['index']} (seed {info['seed']}): {info['message']}")
    tgt.execute(inp)          # let it raise (or crash) with its full traceback
    print("the input behaved this time")
    return 0


def run_atheris(opts):
    try:
        import atheris
    except ImportError:
        sys.exit("fuzz: --atheris needs the atheris package (pip install atheris); plain random mutation "
                 "is the default")
    name = opts.atheris
    if name not in ("blobs", "gtp"):
        sys.exit("fuzz: --atheris drives the blobs or the gtp target (their inputs are bytes)")
    with atheris.instrument_imports(include=["zerogym", "zerogym_agents"]):   # Python code; not the .so
        tgt = make_target(name, opts.seed)
    alarm = _Alarm()

    def one(data):
        fdp = atheris.FuzzedDataProvider(data)
        inp = tgt.generate(random.Random(fdp.ConsumeInt(8)))
        if name == "blobs":             # the data overwrites the (mutated) blob from an offset
            base = inp["blob"]
            at = fdp.ConsumeIntInRange(0, len(base))
            rest = fdp.ConsumeBytes(fdp.remaining_bytes())
            inp["blob"], inp["via"] = base[:at] + rest + base[at + len(rest):], "load_bytes"
        else:
            inp["lines"] = fdp.ConsumeBytes(fdp.remaining_bytes()).split(b"\n")[:16] or [b""]
            inp["ends"] = [b"\n"] * len(inp["lines"])
        found = run_input(tgt, inp, alarm)
        if found:
            raise RuntimeError(f"{found[0]}: {found[1]}\n{found[2]}")

    argv = [sys.argv[0], f"-max_total_time={int(opts.seconds_total)}", f"-seed={opts.seed}"]
    atheris.Setup(argv, one)
    atheris.Fuzz()


# ---- main ------------------------------------------------------------------------------------------------------------
def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--minutes", type=float, default=None, help="wall-clock time of the run (default 5)")
    p.add_argument("--seconds", type=float, default=None, help="the same in seconds (overrides --minutes)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--targets", default=",".join(TARGETS), help=f"comma-separated subset of {','.join(TARGETS)}")
    p.add_argument("--games", default=None,
                   help="comma-separated games for the state targets (default: every game of zerogym.registry.GAMES)")
    p.add_argument("--weights", default=None,
                   help="time shares, e.g. blobs=4,checkpoints=1 (default " +
                        ",".join(f"{k}={v}" for k, v in WEIGHTS.items()) + ")")
    p.add_argument("--jobs", type=int, default=None,
                   help="worker processes (default: the number of cores); 0 runs in this process, "
                        "where a crash ends the run")
    p.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results", "fuzz.md"), help="markdown summary")
    p.add_argument("--findings", default=os.path.join(ROOT, "runs", "fuzz-findings"),
                   help="folder for the inputs of findings (emptied first)")
    p.add_argument("--examples", type=int, default=3, help="inputs saved per kind of finding")
    p.add_argument("--max-crashes", type=int, default=25, help="crashes after which a worker gives up a target")
    p.add_argument("--max-rss-mb", type=float, default=8000, help="a worker above this is killed (a finding)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--replay", metavar="FOLDER", help="run the input saved in a findings folder again")
    p.add_argument("--atheris", metavar="TARGET", help="coverage-guided fuzzing of one target with atheris")
    # worker-side options
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--budgets", help=argparse.SUPPRESS)
    p.add_argument("--offset", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--stride", type=int, default=1, help=argparse.SUPPRESS)
    p.add_argument("--start", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--report-fd", type=int, help=argparse.SUPPRESS)
    p.add_argument("--slot-file", help=argparse.SUPPRESS)
    p.add_argument("--crash-at", help=argparse.SUPPRESS)        # TARGET:INDEX, for testing crash handling
    opts = p.parse_args(argv)
    opts.seconds_total = opts.seconds if opts.seconds is not None else 60 * (opts.minutes if opts.minutes else 5)
    select_games(opts.games)
    return opts


def select_games(text):
    """Fuzz only the games named in `text` (comma-separated; None: every game)."""
    global _SELECTED
    if not text:
        _SELECTED = None
        return
    from zerogym.registry import GAMES
    names = tuple(g.strip() for g in text.split(",") if g.strip())
    bad = [g for g in names if g not in GAMES]
    if bad or not names:
        sys.exit(f"fuzz: unknown games {bad}; choose from {', '.join(GAMES)}")
    _SELECTED = names


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    opts = parse_args(argv)
    if opts.worker:
        worker_main(opts)
        return 0
    if opts.replay:
        return replay(opts.replay)
    if opts.atheris:
        return run_atheris(opts)
    result = run(argv, opts)
    return 1 if result["findings"] else 0


def run(argv, opts=None):
    """A fuzzing run from command-line arguments: writes the summary and returns
    {"counts": {target: Counter(game -> inputs)}, "seconds": {target: s}, "findings": {signature: {...}},
    "elapsed": s, "sanitizers": str}."""
    argv = list(argv)
    opts = opts or parse_args(argv)
    names = [t.strip() for t in opts.targets.split(",") if t.strip()]
    bad = [t for t in names if t not in TARGETS]
    if bad or not names:
        sys.exit(f"fuzz: unknown targets {bad}; choose from {', '.join(TARGETS)}")
    weights = dict(WEIGHTS)
    if opts.weights:
        for item in opts.weights.split(","):
            k, _, v = item.partition("=")
            if k not in TARGETS:
                sys.exit(f"fuzz: --weights names an unknown target {k!r}")
            weights[k] = float(v)
    total_w = sum(weights[t] for t in names)
    budgets = {t: opts.seconds_total * weights[t] / total_w for t in names}
    if opts.jobs is None:
        opts.jobs = os.cpu_count() or 1
    opts.findings = os.path.abspath(opts.findings)
    if os.path.isdir(opts.findings):
        import shutil
        shutil.rmtree(opts.findings)
    os.makedirs(opts.findings, exist_ok=True)
    command = "python scripts/fuzz.py " + " ".join(shlex.quote(a) for a in argv)
    if sanitizers_active():
        command = "scripts/sanitize.sh " + command

    bar = None
    if not opts.no_progress:
        from tqdm import tqdm
        bar = tqdm(total=round(opts.seconds_total), unit="s", desc="fuzz", dynamic_ncols=True,
                   bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} s [{elapsed}<{remaining}]"
                              "{postfix}")
    t0 = time.monotonic()

    def show(n_inputs, n_findings, current=""):
        if bar is not None:
            bar.n = min(round(time.monotonic() - t0), bar.total)
            bar.set_postfix_str(f"{current} inputs={n_inputs:,} findings={n_findings:,}", refresh=True)

    if opts.jobs == 0:
        rec = Recorder(opts.findings, opts.seed, opts.examples)

        def emit(name, index, setup, done=False):
            show(sum(sum(c.values()) for c in rec.counts.values()),
                 sum(f["count"] for f in rec.findings.values()), name)

        run_targets(names, budgets, opts.seed, 0, 1, {}, rec, emit)
        counts = {t: Counter(rec.counts[t]) for t in names}
        seconds = Counter(rec.seconds)
        findings = rec.findings
        sanitizers = sanitizers_active()
    else:
        def progress(workers, crash_rec):
            counts, _, findings = merge([r for w in workers for r in w.reports()], crash_rec, names)
            show(sum(sum(c.values()) for c in counts.values()), sum(f["count"] for f in findings.values()))

        workers, crash_rec, sanitizers = run_workers(opts, names, budgets, progress)
        counts, seconds, findings = merge([r for w in workers for r in w.reports()], crash_rec, names)
    if bar is not None:
        bar.close()
    elapsed = time.monotonic() - t0
    write_summary(opts.out, opts, names, counts, seconds, findings, elapsed, sanitizers, command, weights)
    total = sum(sum(c.values()) for c in counts.values())
    nfind = sum(f["count"] for f in findings.values())
    print(f"fuzz: {total:,} inputs in {elapsed:.0f} s, {nfind:,} findings ({len(findings)} kinds); "
          f"summary in {os.path.relpath(opts.out)}", file=sys.stderr)
    for sig, f in sorted(findings.items(), key=lambda kv: -kv[1]["count"])[:20]:
        print(f"  {f['count']:>8,}  {sig}", file=sys.stderr)
    return {"counts": counts, "seconds": dict(seconds), "findings": findings, "elapsed": elapsed,
            "sanitizers": sanitizers}


if __name__ == "__main__":
    sys.exit(main())
