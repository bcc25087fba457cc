"""The Go Text Protocol (version 2) as a controller speaks it: GTPClient drives a GTP engine program
over pipes (GnuGoAgent uses it), and the vertex, colour and score formats both sides share.

Vertices are GTP names: column letters without I, row 1 at the bottom, so action r * N + c is the
vertex of column c and row r + 1; action N * N is "pass".
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from typing import Any, Callable, TypeVar

from zerogym.coords import parse_point, point_name

_C = TypeVar("_C", bound="ClosedOnExit")
_ANSWER = re.compile(r"([=?])[0-9]*(?:[ \n](.*))?", re.S)


class GTPError(RuntimeError):
    """A GTP engine answered a command with an error, stopped, or did not answer in time."""


# ---- vertices and colours ----------------------------------------------------------------------
def vertex(action: int, board_size: int) -> str:
    """The GTP vertex of an action: "pass" for N * N, else e.g. "C3" (row 0 = rank 1)."""
    n = int(board_size)
    if not 0 <= action <= n * n:
        raise ValueError(f"action {action!r} is not a point or pass on a {n}x{n} board")
    return "pass" if action == n * n else point_name(*divmod(int(action), n))


def parse_vertex(text: str, board_size: int) -> int:
    """The action of a GTP vertex ("pass" or e.g. "c3", any case) on an N x N board; ValueError if
    it is not one (resign is not a vertex)."""
    n = int(board_size)
    if text.strip().lower() == "pass":
        return n * n
    r, c = parse_point(text, n)
    return r * n + c


def parse_colour(text: str) -> int:
    """0 for black ("b", "black"), 1 for white ("w", "white"), any case; ValueError otherwise."""
    t = text.strip().lower()
    if t in ("b", "black"):
        return 0
    if t in ("w", "white"):
        return 1
    raise ValueError(f"{text!r} is not a colour: use b, black, w or white")


COLOUR_NAMES = ("black", "white")


# ---- driving an engine program ------------------------------------------------------------------
class ClosedOnExit:
    """close() on leaving a with block and when the object is collected, with the keyword arguments
    `close_on_collect` then (quietly: at interpreter shutdown what close() needs may be gone)."""

    close_on_collect: dict[str, Any] = {}
    close: Callable[..., None]  # what a subclass defines

    def __enter__(self: _C) -> _C:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close(**self.close_on_collect)
        except Exception:
            pass


class GTPClient(ClosedOnExit):
    """A GTP engine program (argv) on pipes.  send(command) returns the answer's text without the
    "= " (GTPError on "? ..." answers, on exit or after `timeout` seconds, None = wait forever).
    close() (or leaving a with block) sends quit and ends the process; a collected client is killed."""

    close_on_collect = {"kill": True}

    def __init__(self, argv: Sequence[str], timeout: float | None = None, env: Mapping[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.timeout = timeout
        self._err = tempfile.TemporaryFile()
        try:
            self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, env=env
            )
        except OSError as err:
            self._err.close()
            raise GTPError(f"cannot start {self.argv[0]!r}: {err}") from None
        self._buf = b""

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def send(self, command: str, timeout: float | None = None) -> str:
        """Send one command line; return the answer text (may hold several lines)."""
        if "\n" in command or "\r" in command:
            raise ValueError(f"one GTP command per line, got {command!r}")
        if not self.alive:
            raise GTPError(f"{self.argv[0]}: the engine is not running{self._stderr_tail()}")
        assert self.proc is not None and self.proc.stdin is not None  # running, on pipes
        try:
            self.proc.stdin.write(command.encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise GTPError(f"{self.argv[0]}: the engine stopped{self._stderr_tail()}") from None
        answer = self._read(self.timeout if timeout is None else timeout, command)
        m = _ANSWER.fullmatch(answer)
        if not m:
            raise GTPError(f"{self.argv[0]}: not a GTP answer to {command!r}: {answer!r}")
        text = (m.group(2) or "").strip()
        if m.group(1) == "?":
            raise GTPError(f"{self.argv[0]}: {command!r} failed: {text}")
        return text

    def _read(self, timeout: float | None, command: str) -> str:
        assert self.proc is not None and self.proc.stdout is not None  # send() checked it runs, on pipes
        fd = self.proc.stdout.fileno()
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            self._buf = self._buf.lstrip(b"\n")
            end = self._buf.find(b"\n\n")
            if end >= 0:
                answer, self._buf = self._buf[:end], self._buf[end + 2 :]
                return answer.decode(errors="replace")
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                self.close(kill=True)
                raise GTPError(f"{self.argv[0]}: no answer to {command!r} within {timeout} s")
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                self.proc.wait()
                raise GTPError(
                    f"{self.argv[0]}: the engine exited (code {self.proc.returncode}) "
                    f"while answering {command!r}{self._stderr_tail()}"
                )
            self._buf += chunk.replace(b"\r", b"")

    def _stderr_tail(self) -> str:
        try:
            self._err.seek(0)
            tail = self._err.read()[-500:].decode(errors="replace").strip()
        except (OSError, ValueError):
            return ""
        return f"; its stderr: {tail}" if tail else ""

    def close(self, kill: bool = False, wait: float = 10) -> None:
        """End the engine (quit, then kill it if it lingers `wait` seconds); safe to call twice."""
        proc, self.proc = getattr(self, "proc", None), None
        if proc is None:
            return
        try:
            if not kill and proc.poll() is None:
                try:
                    proc.stdin.write(b"quit\n")
                    proc.stdin.flush()
                except OSError:
                    pass
                try:
                    proc.wait(timeout=wait)
                except subprocess.TimeoutExpired:
                    pass
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=5)
        finally:
            for f in (proc.stdin, proc.stdout, self._err):
                try:
                    f.close()
                except OSError:
                    pass


def score_text(score: float) -> str:
    """GTP / SGF result text of a score (black - white - komi): "B+3.5", "W+0.5" or "0"."""
    score = float(score)
    return "0" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):g}"


def parse_score(text: str) -> float:
    """The score (black - white) of a result text: "B+3.5" -> 3.5, "W+2" -> -2.0, "0" -> 0.0."""
    t = text.strip().upper()
    if t in ("0", "DRAW", "JIGO"):
        return 0.0
    m = re.fullmatch(r"([BW])\+(\d+(?:\.\d*)?)", t)
    if not m:
        raise ValueError(f"{text!r} is not a score such as B+3.5, W+0.5 or 0")
    return float(m.group(2)) * (1 if m.group(1) == "B" else -1)
