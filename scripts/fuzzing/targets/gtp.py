"""gtp: random and mutated byte lines to GTPEngine.handle and serve."""

import io
import os
import re

from ..common import Finding

# commands that GTP defines but the engine does not know
UNKNOWN_COMMANDS = ("loadsgf", "time_settings", "fixed_handicap")


def gtp_line(rng, size, commands):
    """One random GTP line (bytes) of `commands`, mostly well-formed, often mutated."""
    letters = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
    cmd = rng.choice(commands)
    args = []
    colour = rng.choice(("b", "w", "black", "white", "B", "x", ""))
    vertex = rng.choice(
        (
            f"{rng.choice(letters[: size + 1])}{rng.randrange(0, size + 2)}",
            "pass",
            "PASS",
            "resign",
            "I1",
            "A0",
            "Z99",
            "A" + "9" * 30,
            "a-1",
            "",
        )
    )
    if cmd == "play":
        args = [colour, vertex]
    elif cmd == "genmove":
        args = [colour]
    elif cmd == "boardsize":
        args = [rng.choice(("2", "5", "9", "19", "25", "26", "1", "0", "-5", "9.5", "1" * 40, "x", ""))]
    elif cmd == "komi":
        args = [rng.choice(("7.5", "0", "-3", "1e309", "nan", "inf", "-inf", "1e-400", "x", "1" * 400, ""))]
    elif cmd in ("known_command",):
        args = [rng.choice(commands + ("fly", ""))]
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
            line = line[:j] + bytes([line[j] ^ (1 << rng.randrange(8))]) + line[j + 1 :]
        elif op == 2:
            line = (
                line[:i]
                + rng.choice((b"\x00", b"\r", b"\x01", b"\x7f", b"\x1b[2J", b"\t", b"#", b"\x0b\x0c"))
                + line[i:]
            )
        elif op == 3:
            line = line[:i] + rng.choice(("é", "€", "𝄞", "\u200b", "\ufeff", "Ａ")).encode() + line[i:]
        elif op == 4:
            line = (
                line[:i]
                + rng.choice((b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\xe2\x82"))
                + line[i:]
            )
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
        # imported here: under --atheris, with coverage instrumentation
        from zerogym_agents.cli.gtp import COMMANDS

        self.commands = COMMANDS + UNKNOWN_COMMANDS

    def generate(self, rng):
        size = rng.choice((2, 3, 5, 5, 9, 9, 13, 19))
        lines = [gtp_line(rng, size, self.commands) for _ in range(rng.randrange(1, 9))]
        return {
            "game": "go",
            "size": size,
            "komi": rng.choice((7.5, 0.5, -3.0, 0.0)),
            "lines": lines,
            "serve": rng.random() < 0.25,
            "agent_seed": rng.getrandbits(31),
            "ends": [rng.choice((b"\n", b"\r\n", b"\n", b"\r\r\n")) for _ in lines],
        }

    def execute(self, inp):
        from zerogym_agents import RandomAgent
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
            if out == "":  # only for a line blank once control characters and spaces go
                code = line.split(b"#", 1)[0]
                visible = re.sub(rb"[\x00-\x08\x0a-\x1f\x7f]", b"", code).decode("utf-8", "replace").strip()
                if visible or b"\x00" in code:
                    raise Finding(f"no answer to a command line {line[:60]!r}")
                continue
            if out[:1] not in "=?" or not out.endswith("\n\n") or "\n\n" in out[:-2]:
                raise Finding(f"malformed answer {out[:80]!r} to {line[:60]!r}")
            aid = re.match(r"[=?]([0-9]*)", out).group(1).encode()
            cleaned = re.sub(rb"[\x00-\x08\x0a-\x1f\x7f]", b"", line)
            text = cleaned.decode("utf-8", "replace").strip()  # Unicode spaces (U+2003) separate too
            if aid and not (line.lstrip().startswith(aid) or text.startswith(aid.decode())):
                raise Finding(f"answer {out[:20]!r} carries an id the line {line[:40]!r} does not have")
            after = (engine.board_size, engine.komi, engine.moves, engine.state.to_bytes())
            if out.startswith("?") and after != before:
                raise Finding(f"an error answer changed the engine: {out.strip()[:60]!r}")

    def save(self, inp, folder):
        with open(os.path.join(folder, "lines.bin"), "wb") as f:
            f.write(b"".join(line + end for line, end in zip(inp["lines"], inp["ends"])))
        return {k: v for k, v in inp.items() if k not in ("lines", "ends")}
