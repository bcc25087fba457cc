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
    "Game",
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


class Game:
    """One game of a person against an agent, without input or output: the moves, undo, hint and the
    result, in the words `zerogym play` says them.  Session (the terminal) and the notebook widget
    (zerogym_agents.notebook) both play through it.

    game, kwargs: the game; agent: any object with act(env) -> int (reset() is called before the game
    and after an undo, when it has one); name: what to call it (default its .name); notes: lines said
    before the game starts; human: "first" or "second" (or 0 / 1).  .env, .state (the live State),
    .info (the env's GameInfo) and .history ((player, action) per move) show the game.
    """

    def __init__(
        self,
        game: str,
        agent: Player,
        kwargs: dict[str, Any] | None = None,
        human: str | int = "first",
        seed: int | None = None,
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
        self.me = _side(human)
        self.agent = agent
        self.name: str = name if name else getattr(agent, "name", type(agent).__name__)
        self.history: list[tuple[int, int]] = []
        self.resigned = False

    def new_game(self, human: str | int | None = None) -> None:
        """Start again from the first position (playing the side `human` when given); the agent is reset."""
        if human is not None:
            self.me = _side(human)
        self.history.clear()
        self.resigned = False
        self.env.reset()
        self._reset_agent()

    def intro(self) -> list[str]:
        """What is said before the first move: the notes, the rules, who plays which side."""
        me = self.me
        return [
            *self.notes,
            f"{self.info.title}: {rules_line(self.state)}",
            f"You play {self.info.player_name(me)}, moving {'first' if me == 0 else 'second'}; "
            f"{self.name} plays {self.info.player_name(1 - me)}.",
        ]

    @property
    def over(self) -> bool:
        """True once the game has ended (or the person resigned)."""
        return self.resigned or self.state.is_over()

    @property
    def agent_to_move(self) -> bool:
        """True while the game goes on and the agent is to move."""
        return not self.over and self.state.current_player != self.me

    def agent_move(self) -> str:
        """Let the agent play its move; returns what it did, in words ("uct:400 plays D4.")."""
        if not self.agent_to_move:
            raise RuntimeError("the agent is not to move")
        action = int(self.agent.act(self.env))
        self.env.step(action)
        self.history.append((1 - self.me, action))
        return agent_move_line(self.name, self.env, action, self.history)

    def move(self, action: int) -> None:
        """Play the person's move `action`: IllegalMoveError (the game unchanged) where it is not
        allowed, with the message a person reads in refusal(action, err)."""
        if self.over or self.state.current_player != self.me:
            raise RuntimeError("it is not the person's turn" if not self.over else "the game is over")
        self.env.step(action)
        self.history.append((self.me, action))

    def refusal(self, action: int, err: IllegalMoveError) -> str:
        """Why the person's move `action` was refused, in words."""
        return f"{move_text(self.env, action, self.me)} is not allowed: {err.reason}."

    def parse(self, text: str) -> int:
        """The action a person means by a typed move, or ValueError saying what may be typed now."""
        try:
            return parse_action(self.env, text)
        except ValueError as err:  # not a move: say what is, as the game stands now
            raise ValueError(str(err).replace(input_help(self.env), move_help(self.state))) from None

    @property
    def must_pass(self) -> bool:
        """True when the person is to move and passing is all they may do (Othello)."""
        pass_action = self.spec.pass_action
        return (
            pass_action >= 0
            and not self.agent_to_move
            and not self.over
            and list(self.state.legal_actions()) == [pass_action]
        )

    def undo(self) -> str:
        """Take back the person's last move and everything after it (the agent's answer); returns what was
        taken back, or why nothing was."""
        mine = [i for i, (p, _) in enumerate(self.history) if p == self.me]
        if not mine:
            return "Nothing to undo: you have not moved yet."
        taken = [move_text(self.env, a, p) for p, a in self.history[mine[-1] :]]
        del self.history[mine[-1] :]
        self.resigned = False
        self.env.reset()
        for _, a in self.history:
            self.env.step(a)
        self._reset_agent()
        return f"Took back {', '.join(taken)}."

    def hint(self) -> int:
        """The move the agent would play in the person's place."""
        return int(self.agent.act(self.env))

    def hint_line(self) -> str:
        """The hint, in words."""
        return f"hint: the agent would play {move_text(self.env, self.hint(), self.me)}"

    def resign(self) -> str:
        """The person gives up; returns the sentence that says so."""
        self.resigned = True
        return f"You resigned: {self.info.player_name(1 - self.me)} wins."

    @property
    def outcome(self) -> str:
        """From the person's side: "win", "loss", "draw", "no result" (a move limit), "resigned", or
        "" while the game goes on."""
        if self.resigned:
            return "resigned"
        if not self.state.is_over():
            return ""
        if self.state.is_truncated():
            return "no result"
        if self.state.winner < 0:
            return "draw"
        return "win" if self.state.winner == self.me else "loss"

    def ending(self) -> list[str]:
        """The end of the game explained: the score, line by line, then the verdict."""
        outcome = self.outcome
        if outcome in ("", "resigned"):
            return []
        verdict = {"no result": "No result.", "draw": "A draw.", "win": "You win!"}.get(outcome, f"{self.name} wins.")
        return [*score_lines(self.state), verdict]

    def result(self, outcome: str | None = None) -> PlayResult:
        """The PlayResult of the game as it stands (outcome: instead of self.outcome, e.g. "quit")."""
        outcome = outcome or self.outcome
        winner = 1 - self.me if outcome == "resigned" else self.state.winner
        return PlayResult(outcome, self.me, [a for _, a in self.history], self.state.copy(), winner)

    def _reset_agent(self) -> None:
        if hasattr(self.agent, "reset"):
            self.agent.reset()


def _side(human: str | int) -> int:
    """The person's player index for human="first" / "second" (or 0 / 1)."""
    if human in ("first", 0):
        return 0
    if human in ("second", 1):
        return 1
    raise ValueError(f"human must be 'first' or 'second', got {human!r}")


class Session(Game):
    """One game of a person against an agent in the terminal; run() plays it (see Game).

    input_fn(prompt) -> str and print_fn(text) do all the talking (the end of input counts as quit).
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
        super().__init__(game, agent, kwargs, human, seed, name, notes)
        self.input_fn, self.print_fn = input_fn, print_fn

    def run(self) -> PlayResult:
        """Play until the game ends, the person resigns or quits; returns a PlayResult."""
        say = self.print_fn
        self._reset_agent()
        for line in self.intro():
            say(line)
        say(help_text(self.state))
        say(board_text(self.state))
        try:
            while not self.over:
                if self.agent_to_move:
                    say(self.agent_move())
                    say(board_text(self.state))
                else:
                    self._human_turn()
        except _Quit:
            say("Game abandoned.")
            return self.result("quit")
        if self.resigned:
            return self.result()
        if self.history[-1][0] == self.me:
            say(board_text(self.state))
        for line in self.ending():
            say(line)
        return self.result()

    def undo(self) -> str:
        """Take back the person's last move and the reply, and show the board (see Game.undo)."""
        line = super().undo()
        self.print_fn(line)
        if line.startswith("Took back"):
            self.print_fn(board_text(self.state))
        return line

    def _human_turn(self) -> None:
        """Ask until the person moves or resigns; raises _Quit on quit."""
        say = self.print_fn
        if self.must_pass:
            say("You have no legal placement: type pass.")
        while True:
            try:
                text = self.input_fn(f"{self.info.player_name(self.me)} to move> ")
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
                say(self.resign())
                return
            elif word == "hint":
                say(self.hint_line())
            elif word in ("undo", "u"):
                self.undo()
            else:
                try:
                    action = self.parse(text)
                    self.move(action)
                except IllegalMoveError as err:
                    say(f"{self.refusal(action, err)} Try again (help lists the commands).")
                except ValueError as err:
                    say(str(err))
                else:
                    return


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
