"""A person against an agent in the terminal (what `zerogym play` runs).

play(game, agent, ...) runs one game against any object with act(env) -> int; input and output go
through input_fn / print_fn, so a whole game can be scripted.  Moves are typed as zerogym.coords
names them ("D4", "a1" in Othello, "pass", "swap", or a column number in Connect Four); commands:
undo, hint, resign, help, quit.  (zerogym_agents.cli.play names agents by spec, e.g. "uct:400".)
What a game says in words (its title, the players' names, the rules line, the score explained) comes
from its GameInfo: the env's own, or the one a state or spec leads to (zerogym.envs.binding).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol

from zerogym._core.state import State
from zerogym._types import GameLike
from zerogym.coords import checked_action, input_help, parse_action, spec_of
from zerogym.envs.binding import game_info_of
from zerogym.envs.game_info import GameInfo, winning_line
from zerogym.errors import IllegalMoveError

if TYPE_CHECKING:
    from zerogym.envs.base import ClassicWrapper

__all__ = [
    "PlayResult",
    "Session",
    "agent_move_line",
    "board_text",
    "help_text",
    "move_help",
    "move_text",
    "play",
    "player_name",
    "rules_line",
    "score_lines",
    "winning_line",
]


@dataclass
class PlayResult:
    """How a game of `play` ended, from the person's side."""

    outcome: str  # "win", "loss", "draw", "no result" (Go move limit), "resigned" or "quit"
    human: int  # the person's player index (0 moves first)
    actions: list[int] = field(default_factory=list)  # every move played, in order
    state: State | None = None  # the final State
    winner: int = -1  # player index of the winner, -1 for none


class Player(Protocol):
    """What `play` plays against: any object with act(env) -> action (reset() and .name are optional)."""

    def act(self, env: Any) -> int: ...


def player_name(game: str | GameLike, player: int) -> str:
    """'black (X)', 'white (O)', or 'X' / 'O' for the games named after players; `game` is a name, a
    GameSpec, a State or an env."""
    if isinstance(game, str):
        from zerogym.registry import game_info

        return game_info(game).player_name(player)
    return game_info_of(game).player_name(player)


def move_text(spec: GameLike, action: Any, player: int | None = None) -> str:
    """A move as a person reads it: "D4", "pass", "swap", "column 3"; given the `player` who makes
    it, the full name where a game's names depend on the mover (Breakthrough's "c2-c3").  `spec` is
    a GameSpec, a State or an env."""
    info, spec = game_info_of(spec), spec_of(spec)
    return info.move_text(spec, checked_action(spec, action), player)


def agent_move_line(name: str, spec: GameLike, action: int, history: list[tuple[int, int]]) -> str:
    """What the agent did, in words (`spec`: a GameSpec, a State or an env)."""
    info, game, spec = game_info_of(spec), spec, spec_of(spec)
    if action == spec.pass_action:
        return f"{name} passes."
    if action == spec.swap_action:
        return info.swap_line(name, spec, history)
    return f"{name} plays {move_text(game, action, history[-1][0] if history else None)}."


def board_text(state: State) -> str:
    """The board with the coordinates a person types; the last move in brackets; under it the move
    number and who moves, named as in the prompt ("black (X)", "X")."""
    from zerogym.render import text_board

    info = game_info_of(state)
    text = text_board(state, **info.text_style, row_labels=info.moves_name_rows)
    status = "game over" if state.is_over() else f"{info.player_name(state.current_player)} to move"
    return text.rsplit("\n", 1)[0] + f"\nmove {state.move_count}, {status}"


def move_help(state: State) -> str:
    """What a person may type for a move now: coords.input_help, without "or swap" once the swap
    is no longer legal."""
    info = game_info_of(state)
    text = info.input_help(state.spec)
    swap = state.spec.swap_action
    if swap >= 0 and not state.is_legal(swap):
        text = text.replace(f", or {info.format_action(state.spec, swap)}", "")
    return text


def rules_line(state: State) -> str:
    """One sentence on how this game is won, with its kwargs."""
    return game_info_of(state).rules_line(state)


def help_text(state: State) -> str:
    """How to type a move, and the commands."""
    return "\n".join(
        [
            f"Type a move: {move_help(state)}.",
            "Commands: undo (take back your last move and the reply), hint (what the agent would play for you),",
            "          resign, help, quit.",
        ]
    )


def score_lines(state: State) -> list[str]:
    """The final score explained, line by line."""
    return game_info_of(state).score_lines(state)


class _Quit(Exception):
    pass


class Session:
    """One game of a person against an agent; run() plays it.

    game, kwargs: the game; agent: any object with act(env) -> int (reset() is called before the
    game and after an undo, when it has one); name: what to call it (default its .name); notes:
    lines said before the game starts; human: "first" or "second" (or 0 / 1); input_fn(prompt) ->
    str and print_fn(text) do all the talking (the end of input counts as quit).  While it runs,
    .env, .state (the live State), .info (the env's GameInfo) and .history ((player, action) per move)
    show the game.
    """

    def __init__(
        self,
        game: str,
        agent: Player,
        kwargs: dict[str, Any] | None = None,
        human: str | int = "first",
        seed: int | None = None,
        input_fn: Callable[[str], str] = input,
        print_fn: Callable[[str], object] = print,
        name: str | None = None,
        notes: Iterable[str] = (),
    ) -> None:
        import zerogym

        if not callable(getattr(agent, "act", None)):
            raise ValueError(
                f"agent must have an act(env) method, got {agent!r} (agent specs such as "
                "'uct:400' are read by zerogym_agents.cli.play.session)"
            )
        self.kwargs, self.notes = dict(kwargs or {}), list(notes)
        self.env: ClassicWrapper = zerogym.make(game, illegal="raise", **self.kwargs)
        self.env.reset(seed=seed)
        self.state: State = self.env.unwrapped.state
        self.spec = self.state.spec
        self.info: GameInfo[Any] = self.env.unwrapped.game_info
        if human in ("first", 0):
            self.me = 0
        elif human in ("second", 1):
            self.me = 1
        else:
            raise ValueError(f"human must be 'first' or 'second', got {human!r}")
        self.agent = agent
        self.name: str = name if name else getattr(agent, "name", type(agent).__name__)
        self.input_fn, self.print_fn = input_fn, print_fn
        self.history: list[tuple[int, int]] = []

    def run(self) -> PlayResult:
        """Play until the game ends, the person resigns or quits; returns a PlayResult."""
        me, say = self.me, self.print_fn
        self._reset_agent()
        for note in self.notes:
            say(note)
        say(f"{self.info.title}: {rules_line(self.state)}")
        say(
            f"You play {self.info.player_name(me)}, moving {'first' if me == 0 else 'second'}; "
            f"{self.name} plays {self.info.player_name(1 - me)}."
        )
        say(help_text(self.state))
        say(board_text(self.state))
        try:
            while not self.state.is_over():
                if self.state.current_player != me:
                    self._agent_move()
                elif self._human_turn() == "resigned":
                    return self._result("resigned")
        except _Quit:
            say("Game abandoned.")
            return self._result("quit")
        if self.history[-1][0] == me:
            say(board_text(self.state))
        for line in score_lines(self.state):
            say(line)
        if self.state.is_truncated() or self.state.winner < 0:
            outcome = "no result" if self.state.is_truncated() else "draw"
            say("No result." if self.state.is_truncated() else "A draw.")
        else:
            outcome = "win" if self.state.winner == me else "loss"
            say("You win!" if outcome == "win" else f"{self.name} wins.")
        return self._result(outcome)

    def _result(self, outcome: str) -> PlayResult:
        winner = 1 - self.me if outcome == "resigned" else self.state.winner
        return PlayResult(outcome, self.me, [a for _, a in self.history], self.state.copy(), winner)

    def _reset_agent(self) -> None:
        if hasattr(self.agent, "reset"):
            self.agent.reset()

    def _agent_move(self) -> None:
        action = int(self.agent.act(self.env))
        self.env.step(action)
        self.history.append((1 - self.me, action))
        self.print_fn(agent_move_line(self.name, self.env, action, self.history))
        self.print_fn(board_text(self.state))

    def undo(self) -> bool:
        """Take back the person's last move and everything after it; False if they have not moved."""
        mine = [i for i, (p, _) in enumerate(self.history) if p == self.me]
        if not mine:
            self.print_fn("Nothing to undo: you have not moved yet.")
            return False
        taken = [move_text(self.env, a, p) for p, a in self.history[mine[-1] :]]
        del self.history[mine[-1] :]
        self.env.reset()
        for _, a in self.history:
            self.env.step(a)
        self._reset_agent()
        self.print_fn(f"Took back {', '.join(taken)}.")
        self.print_fn(board_text(self.state))
        return True

    def _human_turn(self) -> str | None:
        """Ask until the person moves (None) or resigns ("resigned"); raises _Quit on quit."""
        spec, env, info, say = self.spec, self.env, self.info, self.print_fn
        if spec.pass_action >= 0 and list(self.state.legal_actions()) == [spec.pass_action]:
            say("You have no legal placement: type pass.")
        while True:
            try:
                text = self.input_fn(f"{info.player_name(self.me)} to move> ")
            except EOFError:
                raise _Quit() from None
            word = text.strip().lower()
            if not word:  # an empty line: ask again
                continue
            if word in ("quit", "exit", "q"):
                raise _Quit()
            if word in ("help", "?", "h"):
                say(help_text(self.state))
            elif word == "resign":
                say(f"You resigned: {info.player_name(1 - self.me)} wins.")
                return "resigned"
            elif word == "hint":
                say(f"hint: the agent would play {move_text(env, int(self.agent.act(env)), self.me)}")
            elif word in ("undo", "u"):
                self.undo()
            else:
                try:
                    action = parse_action(env, text)
                    env.step(action)
                except IllegalMoveError as err:
                    say(
                        f"{move_text(env, action, self.me)} is not allowed: {err.reason}. "
                        "Try again (help lists the commands)."
                    )
                except ValueError as err:  # not a move: say what is, as the game stands now
                    say(str(err).replace(input_help(env), move_help(self.state)))
                else:
                    self.history.append((self.me, action))
                    return None


def play(
    game: str,
    agent: Player,
    kwargs: dict[str, Any] | None = None,
    human: str | int = "first",
    seed: int | None = None,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[[str], object] = print,
) -> PlayResult:
    """Play `game` against `agent` in the terminal (see Session); returns a PlayResult."""
    return Session(game, agent, kwargs, human, seed, input_fn, print_fn).run()
