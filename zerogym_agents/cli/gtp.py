"""A zerogym agent as a GTP (Go Text Protocol, version 2) engine: GTPEngine answers a controller's
commands, so that GNU Go, GoGui, Sabaki or any GTP controller can play it (`zerogym gtp --agent
SPEC`).  The controller's side (GTPClient) and the vertex and score formats are in gtp_client.
"""

from __future__ import annotations

import argparse
import io
import math
import re
import sys
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any

from zerogym_agents.agents.gtp_client import COLOUR_NAMES, parse_colour, parse_vertex, score_text, vertex

if TYPE_CHECKING:
    from zerogym._core.go import GoState
    from zerogym.play import Player

MAX_BOARD = 25  # the largest Go board zerogym plays (and GTP vertices can name)
MAX_LINE = 1 << 16  # longer command lines are answered "? line too long" and never held whole
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")  # undecodable bytes, as surrogateescape puts them
_LEADING_ID = re.compile(rb"[ \t]*([0-9]+)(?:[ \t\r\n]|$)")


# ---- a zerogym agent as a GTP engine -----------------------------------------------------------
class _Refused(Exception):
    """A command's GTP error message (the engine state is unchanged)."""


COMMANDS = (
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "showboard",
    "final_score",
    "final_status_list",
)


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

    def __init__(
        self, agent: Player, board_size: int = 9, komi: float = 7.5, max_moves: int | None = None, name: str = "zerogym"
    ) -> None:
        self.agent = agent
        self.name = name
        self.max_moves = max_moves
        self.done = False  # set by quit
        self._setup(self._size_arg(board_size), self._komi_arg(komi), [])

    # -- state -----------------------------------------------------------------------------------
    @property
    def env(self) -> Any:
        """The zerogym AEC env of the current game (what the agent acts on)."""
        return self._env

    @property
    def state(self) -> GoState:
        return self._env.unwrapped.state

    @property
    def moves(self) -> list[int]:
        """The actions of the current game so far (black first)."""
        return list(self._moves)

    def _setup(self, size: int, komi: float, moves: Sequence[int]) -> None:
        """Build the game (size, komi) with `moves` played; the engine changes only if all is legal."""
        import zerogym

        mm = self.max_moves if self.max_moves is not None else 4 * size * size
        env = zerogym.make("go", board_size=size, komi=komi, max_moves=mm, illegal="raise")
        env.reset()
        for a in moves:
            env.step(a)
        self._env, self.board_size, self.komi, self._moves = env, size, komi, list(moves)

    @staticmethod
    def _size_arg(size: Any) -> int:
        if isinstance(size, bool) or not isinstance(size, int) or not 2 <= size <= MAX_BOARD:
            raise ValueError(f"board_size must be an int in 2..{MAX_BOARD}, got {size!r}")
        return size

    @staticmethod
    def _komi_arg(komi: Any) -> float:
        if isinstance(komi, bool) or not isinstance(komi, (int, float)) or not math.isfinite(komi):
            raise ValueError(f"komi must be a finite number, got {komi!r}")
        return float(komi)

    def _reset_agent(self) -> None:
        if hasattr(self.agent, "reset"):
            self.agent.reset()

    # -- protocol --------------------------------------------------------------------------------
    def handle(self, line: str | bytes | bytearray | memoryview) -> str:
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
        except Exception as err:  # a failing agent: answer, keep serving
            ok, text = False, f"internal error: {type(err).__name__}: {err}"
        else:
            ok = True
        if not ok:
            self._env, self.board_size, self.komi, self._moves = before
        body = "\n".join(x for x in text.split("\n") if x.strip())  # a blank line would end the answer
        if text.startswith("\n"):
            body = "\n" + body
        return f"{'=' if ok else '?'}{ident} {body}\n\n"

    def serve(self, stdin: IO[Any], stdout: IO[Any]) -> None:
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
                while line and not line.endswith(nl):  # drop the rest of the line
                    line = stdin.readline(MAX_LINE + 1)
            else:
                response = self.handle(line)
            if response:
                stdout.write(response if text_out else response.encode("utf-8", "backslashreplace"))
                stdout.flush()

    # -- commands (each returns the answer text or raises _Refused) --------------------------------
    @staticmethod
    def _nargs(args: list[str], n: int, usage: str) -> None:
        if len(args) != n:
            raise _Refused(f"syntax error: usage {usage}")

    def _number(self, args: list[str], usage: str, convert: Callable[[str], Any], what: str) -> Any:
        # the command's one argument through convert; its ValueError is a syntax error, `what` the
        # message's format with the argument
        self._nargs(args, 1, usage)
        try:
            return convert(args[0])
        except ValueError:
            raise _Refused("syntax error: " + what.format(args[0])) from None

    def _cmd_protocol_version(self, args: list[str]) -> str:
        return "2"

    def _cmd_name(self, args: list[str]) -> str:
        return self.name

    def _cmd_version(self, args: list[str]) -> str:
        import zerogym

        agent = getattr(self.agent, "name", None) or type(self.agent).__name__
        return f"{zerogym.__version__} (agent {agent})"

    def _cmd_known_command(self, args: list[str]) -> str:
        self._nargs(args, 1, "known_command NAME")
        return "true" if args[0].lower() in COMMANDS else "false"

    def _cmd_list_commands(self, args: list[str]) -> str:
        return "\n".join(COMMANDS)

    def _cmd_quit(self, args: list[str]) -> str:
        self.done = True
        return ""

    def _cmd_boardsize(self, args: list[str]) -> str:
        size = self._number(args, "boardsize N", int, "board size {!r} is not an int")
        if not 2 <= size <= MAX_BOARD:
            raise _Refused(f"unacceptable size (2..{MAX_BOARD})")
        self._setup(size, self.komi, [])
        self._reset_agent()
        return ""

    def _cmd_clear_board(self, args: list[str]) -> str:
        self._setup(self.board_size, self.komi, [])
        self._reset_agent()
        return ""

    def _cmd_komi(self, args: list[str]) -> str:
        komi = self._number(args, "komi FLOAT", _finite, "komi {!r} is not a finite number")
        self._setup(self.board_size, komi, self._moves)
        return ""

    def _colour_to_move(self, word: str) -> int:
        try:
            colour = parse_colour(word)
        except ValueError as err:
            raise _Refused(f"syntax error: {err}") from None
        st = self.state
        if not st.is_over() and colour != st.current_player:
            raise _Refused(
                f"illegal move: {COLOUR_NAMES[st.current_player]} is to move (this engine takes alternating moves only)"
            )
        return colour

    def _cmd_play(self, args: list[str]) -> str:
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

    def _cmd_genmove(self, args: list[str]) -> str:
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

    def _cmd_undo(self, args: list[str]) -> str:
        if not self._moves:
            raise _Refused("cannot undo")
        self._setup(self.board_size, self.komi, self._moves[:-1])
        return ""

    def _cmd_showboard(self, args: list[str]) -> str:
        return "\n" + self._env.unwrapped.render_text()

    def _cmd_final_score(self, args: list[str]) -> str:
        return score_text(self.state.score())

    def _cmd_final_status_list(self, args: list[str]) -> str:
        self._nargs(args, 1, "final_status_list alive|dead|seki")
        status = args[0].lower()
        if status not in ("alive", "dead", "seki"):
            raise _Refused(f"syntax error: status {args[0]!r} is not alive, dead or seki")
        if status != "alive":
            return ""
        board, n = self.state.board(), self.board_size
        return " ".join(vertex(r * n + c, n) for r in range(n) for c in range(n) if board[r, c])


def _finite(word: str) -> float:
    """float(word), ValueError unless it is finite."""
    x = float(word)
    if not math.isfinite(x):
        raise ValueError(f"{word!r} is not finite")
    return x


def _line_id(line: str | bytes) -> str:
    """The id ("12") a command line (bytes or str) starts with, or ""."""
    head = line[:64]
    if isinstance(head, str):
        head = head.encode("utf-8", "replace")
    m = _LEADING_ID.match(head)
    return m.group(1).decode("ascii") if m else ""


# ---- command line -------------------------------------------------------------------------------
def add_gtp_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add the `gtp` sub-command to an argparse subparsers object; returns its parser."""
    from zerogym_agents.agents.specs import AGENT_SPECS

    p = subparsers.add_parser(
        "gtp",
        help="play an agent over GTP (for GNU Go, GoGui, Sabaki, ...)",
        description="Answers Go Text Protocol commands on stdin/stdout with the given "
        "agent choosing the moves (Tromp-Taylor rules, positional superko).",
    )
    p.add_argument("--agent", required=True, metavar="SPEC", help=f"agent spec: {AGENT_SPECS}")
    p.add_argument("--board-size", type=int, default=9, help="initial board size (default 9; boardsize changes it)")
    p.add_argument("--komi", type=float, default=7.5, help="initial komi (default 7.5; komi changes it)")
    p.add_argument("--max-moves", type=int, default=None, help="game length limit (default 4 * board_size**2)")
    p.add_argument("--seed", type=int, default=None, help="seed of the agent's random choices")
    p.add_argument(
        "--resign-below",
        type=float,
        default=None,
        metavar="V",
        help="a saved AlphaZero agent resigns once its root value (-1..1) has been below V for "
        "--resign-moves of its moves in a row (default: never resigns; -0.9 is a cautious choice)",
    )
    p.add_argument("--resign-moves", type=int, default=2, help="see --resign-below (default 2)")
    p.set_defaults(func=run_gtp)
    return p


def resigning(agent: Player, args: argparse.Namespace, kwargs: dict[str, Any]) -> Player:
    """The saved AlphaZero agent of args.agent again, with the resignation options of `args`."""
    from zerogym_agents.agents.saved import load_agent
    from zerogym_agents.agents.search import AlphaZeroAgent

    if not isinstance(agent, AlphaZeroAgent):
        raise ValueError(
            f"--resign-below needs a saved AlphaZero agent (pretrained:NAME or a file), and "
            f"{args.agent!r} is a {type(agent).__name__}"
        )
    return load_agent(
        args.agent,
        seed=args.seed,
        game="go",
        game_kwargs=kwargs,
        resign_below=args.resign_below,
        resign_moves=args.resign_moves,
    )


def run_gtp(args: argparse.Namespace) -> None:
    """Serve GTP on stdin/stdout for the parsed `args`; anything else the agent prints goes to stderr."""
    from zerogym_agents.agents.specs import agent_from_spec

    try:
        if args.agent.startswith("pretrained:") or args.agent.endswith(".pt"):
            from zerogym_agents.agents.saved import load_card

            game = load_card(args.agent).get("game")
            if game not in (None, "go", "go_v0"):
                raise ValueError(f"agent {args.agent!r} plays {game}, not Go")
        kwargs = {"board_size": args.board_size, "komi": args.komi}
        agent: Player = agent_from_spec(args.agent, "go", kwargs, seed=args.seed)
        if args.resign_below is not None:
            agent = resigning(agent, args, kwargs)
        engine = GTPEngine(agent, args.board_size, args.komi, args.max_moves)
    except (ValueError, RuntimeError) as err:
        sys.exit(f"zerogym gtp: {err}")
    out, sys.stdout = sys.stdout, sys.stderr  # stdout carries GTP only
    try:
        out.flush()
        # bytes both ways: what arrives need not be text in the locale's encoding (or any)
        engine.serve(getattr(sys.stdin, "buffer", sys.stdin), getattr(out, "buffer", out))
    finally:
        sys.stdout = out
        if hasattr(agent, "close"):
            agent.close()


__all__ = ["COMMANDS", "GTPEngine", "add_gtp_parser", "run_gtp"]
