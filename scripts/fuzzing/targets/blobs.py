"""blobs: State.load_bytes (and pickle.loads of a State) on mutated blobs of real positions."""

import os
import pickle
import random
import struct

from ..common import Finding
from ..positions import CorpusTarget, move_limit, play_out

HEADER = {
    "hash": (0, "<Q"),
    "to_play": (8, "<i"),
    "status": (12, "<i"),
    "winner": (16, "<i"),
    "moves": (20, "<i"),
    "last_action": (24, "<i"),
    "pad": (28, "<i"),
}
HEADER_BYTES = 32
INT32 = (
    -(2**31),
    -(2**31) + 1,
    -65536,
    -257,
    -2,
    -1,
    0,
    1,
    2,
    3,
    7,
    127,
    128,
    255,
    256,
    32767,
    65535,
    2**30,
    2**31 - 1,
)


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
        self.pivots = {}  # leading feature -> (row, hash)
        for b in dict.fromkeys(blobs):
            row = self.row(b)
            if row is None or len(self.pivots) > self.values * self.cells:
                continue
            rest, h = self.reduce(row, struct.unpack_from("<Q", b, 0)[0])
            if rest:
                self.pivots[rest.bit_length() - 1] = (rest, h)
            elif h:
                self.ok = False  # the hash is no XOR of such keys
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


class BlobTarget(CorpusTarget):
    name = "blobs"

    def __init__(self, seed):
        super().__init__(seed)
        self.models = {}

    def generate(self, rng):
        ci, cfg = self.corpus.pick_config(rng)
        _, blob = self.corpus.position(rng, ci)
        blob = bytearray(blob)
        ops = []
        for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 5))):
            op = rng.choice(
                (
                    "bitflip",
                    "bitflip",
                    "bytes",
                    "header",
                    "header",
                    "header",
                    "int",
                    "int",
                    "splice",
                    "splice_other",
                    "block",
                    "fill",
                    "resize",
                    "field",
                    "field",
                    "field",
                    "field_copy",
                    "board",
                    "board",
                )
            )
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
                    v = rng.choice((0, 1, 2**63, 2**64 - 1, rng.getrandbits(64)))
                else:
                    v = rng.choice(
                        INT32
                        + (
                            cfg["template"].num_actions,
                            cfg["template"].num_actions - 1,
                            cfg["template"].num_actions + 1,
                            rng.randrange(-(2**31), 2**31),
                        )
                    )
                struct.pack_into(fmt, blob, off, v)
            elif op == "int":
                size, fmt, lo, hi = rng.choice(
                    ((1, "<b", -128, 127), (2, "<h", -(2**15), 2**15 - 1), (4, "<i", -(2**31), 2**31 - 1))
                )
                if n >= size:
                    i = rng.randrange(0, n - size + 1, size) if rng.random() < 0.8 else rng.randrange(n - size + 1)
                    v = rng.choice(
                        (lo, hi, -1, 0, 1, 2, 3, lo + 1, hi - 1, rng.randint(lo, hi), cfg["template"].num_actions)
                    )
                    v = max(lo, min(hi, v))
                    struct.pack_into(fmt, blob, i, v)
            elif op == "splice":  # two positions of the same config, cut at one point
                _, other = self.corpus.position(rng, ci)
                cut = rng.randrange(min(n, len(other)) + 1)
                blob = blob[:cut] + bytearray(other[cut:])
            elif op == "splice_other":  # a region of another config's position (sizes may differ)
                _, other = self.corpus.position(rng, self.corpus.pick(rng))
                i, j = rng.randrange(n), rng.randrange(len(other))
                k = rng.randrange(1, 257)
                piece = other[j : j + k]
                blob[i : i + len(piece)] = piece
                del blob[n:]
            elif op == "block":  # copy a region of the blob onto another place
                i, j, k = rng.randrange(n), rng.randrange(n), rng.randrange(1, 129)
                piece = blob[i : i + k]
                blob[j : j + len(piece)] = piece
                del blob[n:]
            elif op == "fill":
                i, k = rng.randrange(n), rng.randrange(1, 257)
                blob[i : i + k] = bytes([rng.choice((0, 0xFF, 0x80, 0x7F))]) * len(blob[i : i + k])
            elif op == "resize":
                if rng.random() < 0.5:
                    del blob[rng.randrange(n) :]
                else:
                    blob += rng.randbytes(rng.choice((1, 7, 8, 64, 4096)))
            elif op in ("field", "field_copy", "board"):
                self.edit_field(rng, ci, blob, op)
        if rng.random() < 0.6:  # past the hash check to the checks behind it
            self.hash_model(ci).fix(blob)
            ops.append("hash")
        via = "pickle" if rng.random() < 0.15 else "load_bytes"
        kwargs = dict(cfg["kwargs"])
        if via == "pickle" and rng.random() < 0.2:  # a pickle whose kwargs and blob disagree
            _, other = self.corpus.pick_config(rng)
            if other["game"] == cfg["game"]:
                kwargs = dict(other["kwargs"])
        return {
            "game": cfg["game"],
            "config": ci,
            "kwargs": kwargs,
            "blob": bytes(blob),
            "ops": ops,
            "via": via,
            "play_seed": rng.getrandbits(32),
        }

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
        arr = np.frombuffer(blob, dt, count, off)  # a view: writing it edits the blob
        if op == "field_copy":
            _, other = self.corpus.position(rng, ci)
            arr[:] = np.frombuffer(other, dt, count, off)
            return
        if dt.names:  # a structured field: one of its members
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
            v = rng.choice(
                (
                    info.min,
                    info.max,
                    0,
                    1,
                    2,
                    -1,
                    old + 1,
                    old - 1,
                    old ^ (1 << rng.randrange(dt.itemsize * 8)),
                    count,
                    count - 1,
                    rng.randrange(max(count, 1)),
                    int(arr[rng.randrange(count)]),
                    spec.num_actions,
                    spec.num_actions - 1,
                    3,
                )
            )
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
