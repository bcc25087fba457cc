"""GTP (Go Text Protocol, version 2) both ways.

GTPEngine puts a zerogym agent behind GTP, so that GNU Go, GoGui, Sabaki or any GTP controller can
play it (`zerogym gtp --agent SPEC`); GTPClient drives a GTP engine program over pipes (GnuGoAgent
uses it).  Vertices are GTP names: column letters without I, row 1 at the bottom, so action
r * N + c is the vertex of column c and row r + 1; action N * N is "pass".
"""
import io
import math
import os
import re
import select
import subprocess
import sys
import tempfile
import time

from zerogym.coords import parse_point, point_name

MAX_BOARD = 25                  # the largest Go board zerogym plays (and GTP vertices can name)
MAX_LINE = 1 << 16              # longer command lines are answered "? line too long" and never held whole
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")          # undecodable bytes, as surrogateescape puts them
_LEADING_ID = re.compile(rb"[ \t]*([0-9]+)(?:[ \t\r\n]|$)")
_ANSWER = re.compile(r"([=?])[0-9]*(?:[ \n](.*))?", re.S)


class GTPError(RuntimeError):
    """A GTP engine answered a command with an error, stopped, or did not answer in time."""


# ---- vertices and colours ----------------------------------------------------------------------
def vertex(action, board_size):
    """The GTP vertex of an action: "pass" for N * N, else e.g. "C3" (row 0 = rank 1)."""
    n = int(board_size)
    if not 0 <= action <= n * n:
        raise ValueError(f"action {action!r} is not a point or pass on a {n}x{n} board")
    return "pass" if action == n * n else point_name(*divmod(int(action), n))


def parse_vertex(text, board_size):
    """The action of a GTP vertex ("pass" or e.g. "c3", any case) on an N x N board; ValueError if
    it is not one (resign is not a vertex)."""
    n = int(board_size)
    if text.strip().lower() == "pass":
        return n * n
    r, c = parse_point(text, n)
    return r * n + c


def parse_colour(text):
    """0 for black ("b", "black"), 1 for white ("w", "white"), any case; ValueError otherwise."""
    t = text.strip().lower()
    if t in ("b", "black"):
        return 0
    if t in ("w", "white"):
        return 1
    raise ValueError(f"{text!r} is not a colour: use b, black, w or white")


COLOUR_NAMES = ("black", "white")


# ---- driving an engine program ------------------------------------------------------------------
class GTPClient:
    """A GTP engine program (argv) on pipes.  send(command) returns the answer's text without the
    "= " (GTPError on "? ..." answers, on exit or after `timeout` seconds, None = wait forever).
    close() (or leaving a with block) sends quit and ends the process."""

    def __init__(self, argv, timeout=None, env=None):
        self.argv = list(argv)
        self.timeout = timeout
        self._err = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._err, env=env)
        except OSError as err:
            self._err.close()
            raise GTPError(f"cannot start {self.argv[0]!r}: {err}") from None
        self._buf = b""

    @property
    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def send(self, command, timeout=None):
        """Send one command line; return the answer text (may hold several lines)."""
        if "\n" in command or "\r" in command:
            raise ValueError(f"one GTP command per line, got {command!r}")
        if not self.alive:
            raise GTPError(f"{self.argv[0]}: the engine is not running{self._stderr_tail()}")
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

    def _read(self, timeout, command):
        fd = self.proc.stdout.fileno()
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            self._buf = self._buf.lstrip(b"\n")
            end = self._buf.find(b"\n\n")
            if end >= 0:
                answer, self._buf = self._buf[:end], self._buf[end + 2:]
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
                raise GTPError(f"{self.argv[0]}: the engine exited (code {self.proc.returncode}) "
                               f"while answering {command!r}{self._stderr_tail()}")
            self._buf += chunk.replace(b"\r", b"")

    def _stderr_tail(self):
        try:
            self._err.seek(0)
            tail = self._err.read()[-500:].decode(errors="replace").strip()
        except (OSError, ValueError):
            return ""
        return f"; its stderr: {tail}" if tail else ""

    def close(self, kill=False, wait=10):
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

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close(kill=True)
        except Exception:       # interpreter shutdown: nothing left to do
            pass


# ---- a zerogym agent as a GTP engine -----------------------------------------------------------
class _Refused(Exception):
    """A command's GTP error message (the engine state is unchanged)."""


COMMANDS = ("protocol_version", "name", "version", "known_command", "list_commands", "quit", "boardsize",
            "clear_board", "komi", "play", "genmove", "undo", "showboard", "final_score", "final_status_list")


class GTPEngine:
    """A zerogym agent behind GTP: GTPEngine(agent, board_size=9, komi=7.5).

    handle(line) answers one command line (str, or bytes as they came) with the full GTP response
    ("=id text\\n\\n" or "?id message\\n\\n"; "" for the empty and comment-only lines GTP says to
    ignore); serve(stdin, stdout) answers lines until quit or end of input.  Commands: see COMMANDS.

    Input that is not GTP text gets an error answer (with the command's id when it has one) and
    changes nothing: a line that is not UTF-8 (outside its comment), holds a NUL, or is longer than
    MAX_LINE bytes ("? line too long"; serve reads such a line in bounded pieces and drops it).
    Other control characters are dropped as GTP says, so CR LF line ends work.

    The rules are zerogym's Go: area (Tromp-Taylor) scoring, suicide illegal, positional superko.
    Moves strictly alternate, black first: `play` or `genmove` for the colour that is not to move
    is an error (no implicit pass; set up handicap stones by playing them with white passes).  Any
    error leaves the engine as it was.  final_score is the Tromp-Taylor score of the board as it
    stands (all stones count as alive, so final_status_list dead is always empty).  After two
    passes, or after max_moves moves (default 4 * board_size**2), the game is over: play is
    refused and genmove answers pass.  If the agent resigns (sets a true `.resigned` after
    act), genmove answers resign and plays nothing.
    """

    def __init__(self, agent, board_size=9, komi=7.5, max_moves=None, name="zerogym"):
        self.agent = agent
        self.name = name
        self.max_moves = max_moves
        self.done = False           # set by quit
        self._setup(self._size_arg(board_size), self._komi_arg(komi), [])

    # -- state -----------------------------------------------------------------------------------
    @property
    def env(self):
        """The zerogym AEC env of the current game (what the agent acts on)."""
        return self._env

    @property
    def state(self):
        return self._env.unwrapped.state

    @property
    def moves(self):
        """The actions of the current game so far (black first)."""
        return list(self._moves)

    def _setup(self, size, komi, moves):
        """Build the game (size, komi) with `moves` played; the engine changes only if all is legal."""
        import zerogym
        mm = self.max_moves if self.max_moves is not None else 4 * size * size
        env = zerogym.make("go", board_size=size, komi=komi, max_moves=mm,
                           illegal="raise")
        env.reset()
        for a in moves:
            env.step(a)
        self._env, self.board_size, self.komi, self._moves = env, size, komi, list(moves)

    @staticmethod
    def _size_arg(size):
        if isinstance(size, bool) or not isinstance(size, int) or not 2 <= size <= MAX_BOARD:
            raise ValueError(f"board_size must be an int in 2..{MAX_BOARD}, got {size!r}")
        return size

    @staticmethod
    def _komi_arg(komi):
        if isinstance(komi, bool) or not isinstance(komi, (int, float)) or not math.isfinite(komi):
            raise ValueError(f"komi must be a finite number, got {komi!r}")
        return float(komi)

    def _reset_agent(self):
        if hasattr(self.agent, "reset"):
            self.agent.reset()

    # -- protocol --------------------------------------------------------------------------------
    def handle(self, line):
        """The full GTP response to one command line (str or bytes)."""
        if isinstance(line, (bytes, bytearray, memoryview)):
            line = bytes(line)
            ident = _line_id(line)
            if len(line) > MAX_LINE:
                return f"?{ident} line too long\n\n"
            line = line.split(b"#", 1)[0]
            if b"\0" in line:
                return f"?{ident} invalid input: NUL byte\n\n"
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError:
                return f"?{ident} invalid input: not UTF-8 text\n\n"
        else:
            line = str(line)
            if len(line) > MAX_LINE:
                return f"?{_line_id(line)} line too long\n\n"
            line = line.split("#", 1)[0]
            if "\0" in line:
                return f"?{_line_id(line)} invalid input: NUL byte\n\n"
            if _SURROGATE.search(line):
                return f"?{_line_id(line)} invalid input: not UTF-8 text\n\n"
        # GTP's white space is the space and the tab: any other character (U+2003 too) is text
        line = _CONTROL.sub("", line).replace("\t", " ").strip(" \n")
        if not line:
            return ""
        words = [w for w in line.split(" ") if w]
        ident = ""
        if re.fullmatch(r"[0-9]+", words[0]):
            ident = words.pop(0)
            if not words:
                return f"?{ident} missing command\n\n"
        command, args = words[0].lower(), words[1:]
        if command not in COMMANDS:
            return f"?{ident} unknown command\n\n"
        before = (self._env, self.board_size, self.komi, list(self._moves))
        try:
            text = getattr(self, "_cmd_" + command)(args)
        except _Refused as err:
            ok, text = False, str(err)
        except Exception as err:        # a failing agent: answer, keep serving
            ok, text = False, f"internal error: {type(err).__name__}: {err}"
        else:
            ok = True
        if not ok:
            self._env, self.board_size, self.komi, self._moves = before
        body = "\n".join(x for x in text.split("\n") if x.strip())    # a blank line would end the answer
        if text.startswith("\n"):
            body = "\n" + body
        return f"{'=' if ok else '?'}{ident} {body}\n\n"

    def serve(self, stdin, stdout):
        """Answer command lines from stdin on stdout until quit or end of input.

        stdin: a binary stream (what a GTP controller's pipe is: sys.stdin.buffer) or a text one;
        stdout: answers go out as UTF-8 bytes to a binary stream, as str to a text stream.  Lines
        are read at most MAX_LINE + 1 bytes at a time, so a line without end costs no memory.
        """
        text_out = isinstance(stdout, io.TextIOBase)
        while not self.done:
            line = stdin.readline(MAX_LINE + 1)
            if not line:
                break
            nl = "\n" if isinstance(line, str) else b"\n"
            if len(line) > MAX_LINE and not line.endswith(nl):
                response = f"?{_line_id(line)} line too long\n\n"
                while line and not line.endswith(nl):         # drop the rest of the line
                    line = stdin.readline(MAX_LINE + 1)
            else:
                response = self.handle(line)
            if response:
                stdout.write(response if text_out else response.encode("utf-8", "backslashreplace"))
                stdout.flush()

    # -- commands (each returns the answer text or raises _Refused) --------------------------------
    @staticmethod
    def _nargs(args, n, usage):
        if len(args) != n:
            raise _Refused(f"syntax error: usage {usage}")

    def _cmd_protocol_version(self, args):
        return "2"

    def _cmd_name(self, args):
        return self.name

    def _cmd_version(self, args):
        import zerogym
        agent = getattr(self.agent, "name", None) or type(self.agent).__name__
        return f"{zerogym.__version__} (agent {agent})"

    def _cmd_known_command(self, args):
        self._nargs(args, 1, "known_command NAME")
        return "true" if args[0].lower() in COMMANDS else "false"

    def _cmd_list_commands(self, args):
        return "\n".join(COMMANDS)

    def _cmd_quit(self, args):
        self.done = True
        return ""

    def _cmd_boardsize(self, args):
        self._nargs(args, 1, "boardsize N")
        try:
            size = int(args[0])
        except ValueError:
            raise _Refused(f"syntax error: board size {args[0]!r} is not an int") from None
        if not 2 <= size <= MAX_BOARD:
            raise _Refused(f"unacceptable size (2..{MAX_BOARD})")
        self._setup(size, self.komi, [])
        self._reset_agent()
        return ""

    def _cmd_clear_board(self, args):
        self._setup(self.board_size, self.komi, [])
        self._reset_agent()
        return ""

    def _cmd_komi(self, args):
        self._nargs(args, 1, "komi FLOAT")
        try:
            komi = float(args[0])
        except ValueError:
            komi = math.nan
        if not math.isfinite(komi):
            raise _Refused(f"syntax error: komi {args[0]!r} is not a finite number")
        self._setup(self.board_size, komi, self._moves)
        return ""

    def _colour_to_move(self, word):
        try:
            colour = parse_colour(word)
        except ValueError as err:
            raise _Refused(f"syntax error: {err}") from None
        st = self.state
        if not st.is_over() and colour != st.current_player:
            raise _Refused(f"illegal move: {COLOUR_NAMES[st.current_player]} is to move "
                           f"(this engine takes alternating moves only)")
        return colour

    def _cmd_play(self, args):
        self._nargs(args, 2, "play COLOUR VERTEX")
        self._colour_to_move(args[0])
        try:
            action = parse_vertex(args[1], self.board_size)
        except ValueError as err:
            raise _Refused(f"syntax error: {err}") from None
        st = self.state
        if st.is_over():
            raise _Refused("illegal move: the game is over")
        if not st.is_legal(action):
            raise _Refused(f"illegal move: {st.illegal_reason(action)}")
        self._env.step(action)
        self._moves.append(action)
        return ""

    def _cmd_genmove(self, args):
        self._nargs(args, 1, "genmove COLOUR")
        self._colour_to_move(args[0])
        st = self.state
        if st.is_over():
            return "pass"
        if hasattr(self.agent, "resigned"):
            self.agent.resigned = False
        action = self.agent.act(self._env)
        if getattr(self.agent, "resigned", False):
            return "resign"
        try:
            legal = st.is_legal(int(action))
        except (TypeError, ValueError):
            legal = False
        if not legal:
            raise _Refused(f"the agent chose an illegal move: {action!r}")
        action = int(action)
        self._env.step(action)
        self._moves.append(action)
        return vertex(action, self.board_size)

    def _cmd_undo(self, args):
        if not self._moves:
            raise _Refused("cannot undo")
        self._setup(self.board_size, self.komi, self._moves[:-1])
        return ""

    def _cmd_showboard(self, args):
        from zerogym.envs.go import GoEnv
        from zerogym.render import text_board
        return "\n" + text_board(self.state, **GoEnv.text_style)

    def _cmd_final_score(self, args):
        return score_text(self.state.score())

    def _cmd_final_status_list(self, args):
        self._nargs(args, 1, "final_status_list alive|dead|seki")
        status = args[0].lower()
        if status not in ("alive", "dead", "seki"):
            raise _Refused(f"syntax error: status {args[0]!r} is not alive, dead or seki")
        if status != "alive":
            return ""
        board, n = self.state.board(), self.board_size
        return " ".join(vertex(r * n + c, n) for r in range(n) for c in range(n) if board[r, c])


def _line_id(line):
    """The id ("12") a command line (bytes or str) starts with, or ""."""
    head = line[:64]
    if isinstance(head, str):
        head = head.encode("utf-8", "replace")
    m = _LEADING_ID.match(head)
    return m.group(1).decode("ascii") if m else ""


def score_text(score):
    """GTP / SGF result text of a score (black - white - komi): "B+3.5", "W+0.5" or "0"."""
    score = float(score)
    return "0" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):g}"


def parse_score(text):
    """The score (black - white) of a result text: "B+3.5" -> 3.5, "W+2" -> -2.0, "0" -> 0.0."""
    t = text.strip().upper()
    if t in ("0", "DRAW", "JIGO"):
        return 0.0
    m = re.fullmatch(r"([BW])\+(\d+(?:\.\d*)?)", t)
    if not m:
        raise ValueError(f"{text!r} is not a score such as B+3.5, W+0.5 or 0")
    return float(m.group(2)) * (1 if m.group(1) == "B" else -1)


# ---- command line -------------------------------------------------------------------------------
def add_gtp_parser(subparsers):
    """Add the `gtp` sub-command to an argparse subparsers object; returns its parser."""
    from zerogym_agents.arena.cli import AGENT_SPECS
    p = subparsers.add_parser("gtp", help="play an agent over GTP (for GNU Go, GoGui, Sabaki, ...)",
                              description="Answers Go Text Protocol commands on stdin/stdout with the given "
                                          "agent choosing the moves (Tromp-Taylor rules, positional superko).")
    p.add_argument("--agent", required=True, metavar="SPEC", help=f"agent spec: {AGENT_SPECS}")
    p.add_argument("--board-size", type=int, default=9, help="initial board size (default 9; boardsize changes it)")
    p.add_argument("--komi", type=float, default=7.5, help="initial komi (default 7.5; komi changes it)")
    p.add_argument("--max-moves", type=int, default=None, help="game length limit (default 4 * board_size**2)")
    p.add_argument("--seed", type=int, default=None, help="seed of the agent's random choices")
    p.set_defaults(func=run_gtp)
    return p


def run_gtp(args):
    """Serve GTP on stdin/stdout for the parsed `args`; anything else the agent prints goes to stderr."""
    from zerogym_agents.arena.cli import agent_from_spec
    try:
        if args.agent.startswith("pretrained:") or args.agent.endswith(".pt"):
            from zerogym_agents.saved import load_card
            game = load_card(args.agent).get("game")
            if game not in (None, "go", "go_v0"):
                raise ValueError(f"agent {args.agent!r} plays {game}, not Go")
        agent = agent_from_spec(args.agent, "go", {"board_size": args.board_size, "komi": args.komi}, seed=args.seed)
        engine = GTPEngine(agent, args.board_size, args.komi, args.max_moves)
    except (ValueError, RuntimeError) as err:
        sys.exit(f"zerogym gtp: {err}")
    out, sys.stdout = sys.stdout, sys.stderr       # stdout carries GTP only
    try:
        out.flush()
        # bytes both ways: what arrives need not be text in the locale's encoding (or any)
        engine.serve(getattr(sys.stdin, "buffer", sys.stdin), getattr(out, "buffer", out))
    finally:
        sys.stdout = out
        if hasattr(agent, "close"):
            agent.close()


__all__ = ["COMMANDS", "GTPClient", "GTPEngine", "GTPError", "parse_colour", "parse_score",
           "parse_vertex", "score_text", "vertex", "add_gtp_parser", "run_gtp"]
