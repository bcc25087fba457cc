"""GNU Go as an outside yardstick: GnuGoAgent drives the `gnugo` program (Debian package gnugo) over GTP.

GNU Go is found as: the `binary` argument, else the GNUGO environment variable, else `gnugo` on PATH,
else /usr/games/gnugo (where Debian installs it, often not on PATH).
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from zerogym_agents.agents.base import AECEnv, Agent, game_state
from zerogym_agents.agents.gtp_client import (
    COLOUR_NAMES,
    ClosedOnExit,
    GTPClient,
    GTPError,
    parse_score,
    parse_vertex,
    vertex,
)

if TYPE_CHECKING:
    from zerogym._core.state import State

FALLBACK_PATHS = ("/usr/games/gnugo",)
MAX_GNUGO_BOARD = 19
MAX_LEVEL = 20


class GnuGoNotFoundError(RuntimeError):
    """The gnugo program is not installed (or GNUGO / binary names no executable)."""


def find_gnugo(binary: str | os.PathLike[str] | None = None) -> str:
    """Path of the gnugo executable (binary, else $GNUGO, else PATH, else /usr/games/gnugo)."""
    how = "install it with `sudo apt-get install gnugo` (Debian/Ubuntu), or set GNUGO to the gnugo executable"
    for given, what in ((binary, "binary"), (os.environ.get("GNUGO") or None, "GNUGO")):
        if given is not None:
            path = shutil.which(os.fspath(given))
            if path is None:
                raise GnuGoNotFoundError(f"GNU Go not found: {what}={os.fspath(given)!r} is not an executable; {how}")
            return path
    path = shutil.which("gnugo")
    for candidate in FALLBACK_PATHS:
        if path is None and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            path = candidate
    if path is None:
        raise GnuGoNotFoundError(
            f"GNU Go not found (looked for gnugo on PATH and in {', '.join(FALLBACK_PATHS)}): {how}"
        )
    return path


def _gnugo_seed(seed: int | None) -> int:
    """GNU Go's --seed (1..2**31-2; 0 would mean 'from the clock') derived from an agent seed."""
    return int(np.random.default_rng(seed).integers(1, 2**31 - 1))


def _start(
    binary: str | os.PathLike[str] | None,
    level: int = 1,
    seed: int = 1,
    superko: str = "positional",
    capture_all_dead: bool = False,
    timeout: float | None = None,
) -> GTPClient:
    argv = [
        find_gnugo(binary),
        "--mode",
        "gtp",
        "--level",
        str(level),
        "--chinese-rules",
        "--seed",
        str(seed),
        "--positional-superko" if superko == "positional" else "--simple-ko",
    ]
    if capture_all_dead:
        argv.append("--capture-all-dead")
    return GTPClient(argv, timeout=timeout)


class GnuGoAgent(ClosedOnExit, Agent):
    """GNU Go (gnugo --mode gtp --level L --chinese-rules) as a zerogym agent, Go boards up to 19x19.

    komi: the komi GNU Go plays for (None: the game's).  seed: GNU Go's --seed is derived from it,
    and seed(s) reseeds the running program, so games are reproducible.  binary: the gnugo path
    (see find_gnugo; GnuGoNotFoundError here if there is none).  capture_all_dead (default True):
    GNU Go captures dead stones before it passes, which Tromp-Taylor scoring needs (it counts every
    stone left on the board).  timeout: seconds to wait for each answer of GNU Go (None: no limit).
    GNU Go's superko rule follows the game's superko kwarg.

    One GNU Go process lives as long as the agent (close() or a with block ends it).  act(env)
    brings GNU Go's board to the game: it plays only the new moves when the game extends the one
    it knows (the opponent's move, or a new game), takes moves back when the game went back, and
    otherwise rebuilds the position stone by stone (then GNU Go does not know the earlier
    positions; zerogym's rules still decide what is legal).

    Resignation: when GNU Go resigns, act() sets `.resigned` (cleared at the next act/reset) and
    returns pass, a legal action; play_game ends the game there as a loss for GNU Go.
    Illegal proposals: when GNU Go's move is illegal under zerogym's rules (positional superko is
    the usual cause), it is taken back and GNU Go picks again among the legal points
    (restricted_genmove); if it finds none worth playing, GnuGoAgent passes.
    """

    name = "gnugo"

    def __init__(
        self,
        level: int = 10,
        komi: float | None = None,
        seed: int | None = None,
        binary: str | os.PathLike[str] | None = None,
        capture_all_dead: bool = True,
        timeout: float | None = None,
    ) -> None:
        if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or not 0 <= level <= MAX_LEVEL:
            raise ValueError(
                f"GnuGoAgent: level must be an int in 0..{MAX_LEVEL} (GNU Go's default is 10), got {level!r}"
            )
        if komi is not None and (
            isinstance(komi, bool) or not isinstance(komi, (int, float, np.floating)) or not math.isfinite(komi)
        ):
            raise ValueError(f"GnuGoAgent: komi must be None (the game's) or a finite number, got {komi!r}")
        super().__init__(seed)
        self.level = int(level)
        self.komi = None if komi is None else float(komi)
        self.binary = find_gnugo(binary)
        self.capture_all_dead = bool(capture_all_dead)
        self.timeout = timeout
        self.name = f"gnugo:{self.level}"
        self.resigned = False
        self._gnugo_seed = _gnugo_seed(seed)
        self._proc: GTPClient | None = None
        self._superko: str | None = None
        self._forget()

    def _forget(self) -> None:
        """GNU Go's board is unknown: the next act rebuilds it."""
        self._size: int | None = None
        self._komi_sent: float | None = None
        self._shadow: State | None = None  # a State equal to GNU Go's board (None: unknown)
        self._moves: list[int] | None = None  # the actions GNU Go played since clear_board (None after a stone setup)

    # -- lifetime --------------------------------------------------------------------------------
    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self._gnugo_seed = _gnugo_seed(seed)
        if self._proc is not None and self._proc.alive:
            self._send(f"set_random_seed {self._gnugo_seed}")

    def reset(self) -> None:
        self.resigned = False

    def close(self) -> None:
        """End the GNU Go process (a later act starts a new one)."""
        proc, self._proc = getattr(self, "_proc", None), None
        self._forget()
        if proc is not None:
            proc.close()

    def __getstate__(self) -> dict[str, Any]:  # copies start their own process
        d = dict(self.__dict__)
        d.update(_proc=None, _size=None, _komi_sent=None, _shadow=None, _moves=None)
        return d

    def _send(self, command: str) -> str:
        assert self._proc is not None  # _sync starts the process before any command
        return self._proc.send(command)

    # -- playing ---------------------------------------------------------------------------------
    def act(self, env: AECEnv) -> int:
        st = game_state(env)
        self.resigned = False
        if st.spec.name != "go":
            raise ValueError(f"GnuGoAgent plays Go only, not {st.spec.name}")
        n = st.spec.kwargs["board_size"]
        if n > MAX_GNUGO_BOARD:
            raise ValueError(f"GnuGoAgent: GNU Go plays boards up to {MAX_GNUGO_BOARD}x{MAX_GNUGO_BOARD}, not {n}x{n}")
        if st.is_over():
            raise ValueError("GnuGoAgent: the game is over, there is no move to choose")
        self._sync(st)
        colour = COLOUR_NAMES[st.current_player]
        answer = self._send(f"genmove {colour}")
        if answer.lower() == "resign":
            self.resigned = True
            return self._play(colour, n * n)
        action = _parse_move(answer, n)
        assert self._shadow is not None  # _sync left GNU Go's board known
        if st.is_legal(action):
            self._shadow.step(action)
            if self._moves is not None:
                self._moves.append(action)
            return action
        # GNU Go proposed a move zerogym's rules forbid: take it back, choose among the legal points
        try:
            self._send("undo")
        except GTPError:
            self._rebuild(st)
        points = [int(a) for a in st.legal_actions() if a != n * n]
        choice = n * n
        if points:
            answer = self._send(f"restricted_genmove {colour} " + " ".join(vertex(a, n) for a in points))
            if answer.lower() not in ("pass", "resign") and _parse_move(answer, n) in points:
                choice = _parse_move(answer, n)
        return self._play(colour, choice)

    def _play(self, colour: str, action: int) -> int:
        """Play our own chosen action on GNU Go's board too, so that it stays the game's board."""
        assert self._proc is not None and self._shadow is not None and self._size is not None  # after _sync
        try:
            self._send(f"play {colour} {vertex(action, self._size)}")
        except GTPError:
            if not self._proc.alive:
                raise
            self._shadow = self._moves = None  # GNU Go refused it: rebuild its board next time
            return action
        self._shadow.step(action)
        if self._moves is not None:
            self._moves.append(action)
        return action

    def _sync(self, st: State) -> None:
        """Bring GNU Go's board to `st`."""
        kw = st.spec.kwargs
        superko = kw.get("superko", "positional")
        if self._proc is None or not self._proc.alive or self._superko != superko:
            self.close()
            self._proc = _start(self.binary, self.level, self._gnugo_seed, superko, self.capture_all_dead, self.timeout)
            self._superko = superko
            # GNU Go's first genmove draws random numbers for its own set-up: let it happen now, so that
            # a game (after set_random_seed) is the same on a new process as on a reused one
            self._send("genmove black")
            self._send(f"set_random_seed {self._gnugo_seed}")
        komi = self.komi if self.komi is not None else float(kw["komi"])
        if self._komi_sent != komi:
            self._send(f"komi {komi!r}")
            self._komi_sent = komi
        try:
            if self._size == kw["board_size"] and self._shadow is not None and self._follow(st):
                return
            self._rebuild(st)
        except GTPError:
            if not self._proc.alive:
                raise
            self._rebuild(st)  # GNU Go refused a move (e.g. its superko after a stone setup)

    def _follow(self, st: State) -> bool:
        """Reach `st` from GNU Go's board by playing / taking back moves; False if that fails."""
        shadow = self._shadow
        assert shadow is not None and self._size is not None  # _sync calls this on a known board
        if st == shadow:
            return True
        last = st.last_action
        if st.move_count == shadow.move_count + 1 and shadow.is_legal(last):
            nxt = shadow.copy()
            nxt.step(last)
            if nxt == st:
                self._send(f"play {COLOUR_NAMES[shadow.current_player]} {vertex(last, self._size)}")
                self._shadow = nxt
                if self._moves is not None:
                    self._moves.append(last)
                return True
        if self._moves is None:
            return False
        m = st.move_count
        for keep, extra in ((m, []), (m - 1, [last])):
            if not 0 <= keep <= len(self._moves):
                continue
            history = self._moves[:keep] + extra
            if _replay(st, history) != st:
                continue
            undo = len(self._moves) - keep
            if undo > len(history):
                self._replay_from_start(st, history)
            else:
                for _ in range(undo):
                    self._send("undo")
                self._moves = self._moves[:keep]
                self._shadow = _replay(st, self._moves)
                assert self._shadow is not None  # a prefix of the history just replayed
                for a in extra:
                    self._send(f"play {COLOUR_NAMES[self._shadow.current_player]} {vertex(a, self._size)}")
                    self._shadow.step(a)
                    self._moves.append(a)
            return True
        return False

    def _replay_from_start(self, st: State, history: list[int]) -> None:
        self._moves = self._shadow = None
        self._send("clear_board")
        self._send("clear_cache")
        shadow = _replay(st, [])
        assert shadow is not None and self._size is not None  # no move to refuse; a known board size
        for a in history:
            self._send(f"play {COLOUR_NAMES[shadow.current_player]} {vertex(a, self._size)}")
            shadow.step(a)
        self._shadow, self._moves = shadow, list(history)

    def _rebuild(self, st: State) -> None:
        """Set GNU Go's board to `st`: empty and known when no move was played, else stone by stone
        (no chain ever lacks a liberty on the way, so nothing is captured)."""
        n = st.spec.kwargs["board_size"]
        self._shadow = self._moves = None
        if self._size != n:
            self._send(f"boardsize {n}")
            self._send(f"komi {self._komi_sent!r}")
            self._size = n
        self._send("clear_board")
        self._send("clear_cache")
        if st.move_count == 0:
            self._shadow, self._moves = st.copy(), []
            return
        board = st.board()
        for colour in (1, 2):
            for r, c in zip(*np.nonzero(board == colour)):
                self._send(f"play {COLOUR_NAMES[colour - 1]} {vertex(int(r) * n + int(c), n)}")
        self._shadow = st.copy()


def _replay(st: State, actions: Iterable[int]) -> State | None:
    """A fresh State of st's game with `actions` played, or None if one is illegal."""
    out = type(st)(**st.spec.kwargs)
    for a in actions:
        if not out.is_legal(a):
            return None
        out.step(a)
    return out


# ---- scoring cross-check ---------------------------------------------------------------------
def gnugo_final(
    moves: Iterable[int],
    board_size: int,
    komi: float,
    binary: str | os.PathLike[str] | None = None,
    superko: str = "positional",
    timeout: float | None = 60,
) -> dict[str, Any]:
    """GNU Go's view of the end of a game (moves: actions, black first, N*N = pass):
    {"score": final_score as black - white - komi, "black_area" / "white_area": its area count
    (stones it thinks alive or in seki plus its territory), "dead": actions of the stones it
    thinks dead, "seki": actions of stones in seki}.

    GNU Go removes the stones it judges dead before counting; Tromp-Taylor (State.score / area)
    counts every stone on the board.  The two agree on games played out until the dead stones
    are captured (e.g. GNU Go against itself with capture_all_dead), except for dame GNU Go
    leaves unfilled next to territory it still credits to a player, and eyes in seki (which
    Tromp-Taylor gives to their owner and GNU Go may count as neutral)."""
    n = int(board_size)
    if not 1 <= n <= MAX_GNUGO_BOARD:
        raise ValueError(f"gnugo_final: GNU Go plays boards 1..{MAX_GNUGO_BOARD}, got {board_size!r}")
    with _start(binary, superko=superko, timeout=timeout) as gg:
        gg.send(f"boardsize {n}")
        gg.send(f"komi {float(komi)!r}")
        gg.send("clear_board")
        for i, a in enumerate(moves):
            try:
                gg.send(f"play {COLOUR_NAMES[i % 2]} {vertex(int(a), n)}")
            except GTPError as err:
                raise ValueError(f"gnugo_final: move {i} ({a}) is illegal for GNU Go: {err}") from None
        score = parse_score(gg.send("final_score"))
        listed = {k: _actions(gg.send(f"final_status_list {k}"), n) for k in ("dead", "seki")}
        territory = [len(_actions(gg.send(f"final_status_list {c}_territory"), n)) for c in COLOUR_NAMES]
        stones = [set(_actions(gg.send(f"list_stones {c}"), n)) for c in COLOUR_NAMES]
    dead = set(listed["dead"])
    return {
        "score": score,
        "black_area": len(stones[0] - dead) + territory[0],
        "white_area": len(stones[1] - dead) + territory[1],
        "dead": sorted(dead),
        "seki": sorted(listed["seki"]),
    }


def gnugo_score(
    moves: Iterable[int],
    board_size: int,
    komi: float,
    binary: str | os.PathLike[str] | None = None,
    superko: str = "positional",
) -> float:
    """GNU Go's final_score of a game (black - white - komi, after removing what it thinks dead)."""
    return gnugo_final(moves, board_size, komi, binary, superko)["score"]


def _parse_move(answer: str, n: int) -> int:
    try:
        return parse_vertex(answer, n)
    except ValueError:
        raise GTPError(f"GNU Go answered genmove with {answer!r}, not a move") from None


def _actions(text: str, n: int) -> list[int]:
    return [parse_vertex(v, n) for v in text.split()]


__all__ = ["GnuGoAgent", "GnuGoNotFoundError", "find_gnugo", "gnugo_final", "gnugo_score"]
