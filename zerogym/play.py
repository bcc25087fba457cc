"""A person against an agent in the terminal (what `zerogym play` runs).

play(game, agent, ...) runs one game against any object with act(env) -> int; input and output go
through input_fn / print_fn, so a whole game can be scripted.  Moves are typed as zerogym.coords
names them ("D4", "a1" in Othello, "pass", "swap", or a column number in Connect Four); commands:
undo, hint, resign, help, quit.  (zerogym_agents.play_cli names agents by spec, e.g. "uct:400".)
"""
from dataclasses import dataclass, field

from zerogym.coords import column_labels, format_action, input_help, parse_action
from zerogym.errors import IllegalMoveError

TITLES = {"go": "Go", "othello": "Othello", "hex": "Hex", "connect_four": "Connect Four", "tictactoe": "Tic-tac-toe"}
COLOURS = {"go": ("black", "white"), "othello": ("black", "white"), "hex": ("black", "white")}


@dataclass
class PlayResult:
    """How a game of `play` ended, from the person's side."""
    outcome: str                 # "win", "loss", "draw", "no result" (Go move limit), "resigned" or "quit"
    human: int                   # the person's player index (0 moves first)
    actions: list = field(default_factory=list)   # every move played, in order
    state: object = None         # the final State
    winner: int = -1             # player index of the winner, -1 for none


def player_name(game, player):
    """'black (X)', 'white (O)', or 'X' / 'O' for the games named after players."""
    symbol = "XO"[player]
    return f"{COLOURS[game][player]} ({symbol})" if game in COLOURS else symbol


def move_text(spec, action):
    """A move as a person reads it: "D4", "pass", "swap", "column 3"."""
    text = format_action(spec, action)
    return f"column {text}" if spec.name == "connect_four" else text


def agent_move_line(name, spec, action, history):
    """What the agent did, in words."""
    if spec.name in ("go", "othello") and action == spec.num_actions - 1:
        return f"{name} passes."
    if spec.name == "hex" and action == spec.num_actions - 1:
        n = spec.kwargs["board_size"]
        r, c = divmod(history[0][1], n)
        return (f"{name} swaps: the black stone on {format_action(spec, r * n + c)} becomes a white "
                f"stone on {format_action(spec, c * n + r)}, and black moves again.")
    return f"{name} plays {move_text(spec, action)}."


def board_text(state):
    """The board with the coordinates a person types; the last move in brackets; under it the move
    number and who moves, named as in the prompt ("black (X)", "X")."""
    from zerogym.render import ROW0_AT_BOTTOM, text_board
    game = state.spec.name
    text = text_board(state, symbols=".XO", row0_at_bottom=ROW0_AT_BOTTOM[game], hex=game == "hex",
                      column_labels=column_labels(game),
                      row_labels=game != "connect_four")
    status = "game over" if state.is_over() else f"{player_name(game, state.current_player)} to move"
    return text.rsplit("\n", 1)[0] + f"\nmove {state.move_count}, {status}"


def move_help(state):
    """What a person may type for a move now: coords.input_help, without "or swap" once the swap
    is no longer legal."""
    text = input_help(state.spec)
    if state.spec.name == "hex" and not state.is_legal(state.spec.num_actions - 1):
        text = text.replace(", or swap", "")
    return text


def rules_line(state):
    """One sentence on how this game is won, with its kwargs."""
    spec, game = state.spec, state.spec.name
    kw = spec.kwargs
    if game == "go":
        return (f"{kw['board_size']}x{kw['board_size']}, komi {kw['komi']:g}, area scoring; two passes in a row "
                "end the game (play it out: dead stones are not removed).")
    if game == "othello":
        return f"{kw['board_size']}x{kw['board_size']}; most discs wins. Pass only when you cannot place."
    if game == "hex":
        return (f"{kw['board_size']}x{kw['board_size']}; black joins top and bottom, white left and right"
                + ("; white may swap instead of its first move." if kw["swap"] else "."))
    if game == "connect_four":
        return f"{kw['rows']} rows x {kw['cols']} columns; {kw['connect']} in a row wins."
    return f"{kw['board_size']}x{kw['board_size']}; {kw['win_length']} in a row wins."


def help_text(state):
    """How to type a move, and the commands."""
    return "\n".join([
        f"Type a move: {move_help(state)}.",
        "Commands: undo (take back your last move and the reply), hint (what the agent would play for you),",
        "          resign, help, quit.",
    ])


def score_lines(state):
    """The final score explained, line by line."""
    game = state.spec.name
    if game == "go":
        board = state.board()
        stones = [int((board == 1).sum()), int((board == 2).sum())]
        area = state.area()
        komi = state.spec.kwargs["komi"]
        terr = [area[0] - stones[0], area[1] - stones[1]]
        lines = ["Area scoring (Tromp-Taylor): stones on the board + empty points reached by that colour only:",
                 f"  black: {stones[0]} stones + {terr[0]} territory = {area[0]}",
                 f"  white: {stones[1]} stones + {terr[1]} territory + {komi:g} komi = {area[1] + komi:g}"]
        score = state.score()
        if state.is_truncated():
            lines.append(f"The game reached the move limit (max_moves={state.spec.kwargs['max_moves']}): no result.")
        elif score == 0:
            lines.append("Equal scores: a draw.")
        else:
            lines.append(f"{'Black' if score > 0 else 'White'} wins by {abs(score):g}.")
        return lines
    if game == "othello":
        black, white = state.counts()
        leader = "black" if black > white else "white"
        verdict = "a draw" if black == white else f"{leader} wins by {abs(black - white)}"
        return [f"Neither side can place a disc. Discs: black {black}, white {white}: {verdict}."]
    if state.winner < 0:
        return ["The board is full and nobody made a line: a draw."]
    who = player_name(game, state.winner)
    if game == "hex":
        path = state.winning_path() or []
        sides = "top and bottom" if state.winner == 0 else "left and right"
        chain = " ".join(format_action(state.spec, r * state.board().shape[1] + c) for r, c in path)
        return [f"{who[0].upper()}{who[1:]} connected {sides}: {chain}."]
    line = winning_line(state)
    if game == "connect_four":
        cols = sorted({c + 1 for _, c in line})
        where = f"column {cols[0]}" if len(cols) == 1 else f"columns {cols[0]}-{cols[-1]}"
        return [f"{who} made {len(line)} in a row ({where})."]
    w = state.board().shape[1]
    names = " ".join(format_action(state.spec, r * w + c) for r, c in line)
    return [f"{who} made {len(line)} in a row: {names}."]


def winning_line(state):
    """The cells (row, col) of the longest line through the last piece, in order."""
    from zerogym.render import last_point
    board, last = state.board(), last_point(state)
    if last is None:
        return []
    h, w = board.shape
    colour = board[last]
    best = [last]
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        cells = [last]
        for sign in (1, -1):
            r, c = last[0] + sign * dr, last[1] + sign * dc
            while 0 <= r < h and 0 <= c < w and board[r, c] == colour:
                cells.append((r, c))
                r, c = r + sign * dr, c + sign * dc
        if len(cells) > len(best):
            best = sorted(cells, key=lambda rc: (rc[1], rc[0]) if dc else rc)
    return [(int(r), int(c)) for r, c in best]


class _Quit(Exception):
    pass


class Session:
    """One game of a person against an agent; run() plays it.

    game, kwargs: the game; agent: any object with act(env) -> int (reset() is called before the
    game and after an undo, when it has one); name: what to call it (default its .name); notes:
    lines said before the game starts; human: "first" or "second" (or 0 / 1); input_fn(prompt) ->
    str and print_fn(text) do all the talking (the end of input counts as quit).  While it runs,
    .env, .state (the live State) and .history ((player, action) per move) show the game.
    """

    def __init__(self, game, agent, kwargs=None, human="first", seed=None, input_fn=input, print_fn=print,
                 name=None, notes=()):
        import zerogym
        if not callable(getattr(agent, "act", None)):
            raise ValueError(f"agent must have an act(env) method, got {agent!r} (agent specs such as "
                             "'uct:400' are read by zerogym_agents.play_cli.session)")
        self.kwargs, self.notes = dict(kwargs or {}), list(notes)
        self.env = zerogym.make(game, illegal="raise", **self.kwargs)
        self.env.reset(seed=seed)
        self.state = self.env.unwrapped.state
        self.spec = self.state.spec
        if human in ("first", 0):
            self.me = 0
        elif human in ("second", 1):
            self.me = 1
        else:
            raise ValueError(f"human must be 'first' or 'second', got {human!r}")
        self.agent = agent
        self.name = name or getattr(agent, "name", type(agent).__name__)
        self.input_fn, self.print_fn = input_fn, print_fn
        self.history = []

    def run(self):
        """Play until the game ends, the person resigns or quits; returns a PlayResult."""
        spec, me, say = self.spec, self.me, self.print_fn
        self._reset_agent()
        for note in self.notes:
            say(note)
        say(f"{TITLES[spec.name]}: {rules_line(self.state)}")
        say(f"You play {player_name(spec.name, me)}, moving {'first' if me == 0 else 'second'}; "
            f"{self.name} plays {player_name(spec.name, 1 - me)}.")
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

    def _result(self, outcome):
        winner = 1 - self.me if outcome == "resigned" else self.state.winner
        return PlayResult(outcome, self.me, [a for _, a in self.history], self.state.copy(), winner)

    def _reset_agent(self):
        if hasattr(self.agent, "reset"):
            self.agent.reset()

    def _agent_move(self):
        action = int(self.agent.act(self.env))
        self.env.step(action)
        self.history.append((1 - self.me, action))
        self.print_fn(agent_move_line(self.name, self.spec, action, self.history))
        self.print_fn(board_text(self.state))

    def undo(self):
        """Take back the person's last move and everything after it; False if they have not moved."""
        mine = [i for i, (p, _) in enumerate(self.history) if p == self.me]
        if not mine:
            self.print_fn("Nothing to undo: you have not moved yet.")
            return False
        taken = [move_text(self.spec, a) for _, a in self.history[mine[-1]:]]
        del self.history[mine[-1]:]
        self.env.reset()
        for _, a in self.history:
            self.env.step(a)
        self._reset_agent()
        self.print_fn(f"Took back {', '.join(taken)}.")
        self.print_fn(board_text(self.state))
        return True

    def _human_turn(self):
        """Ask until the person moves (None) or resigns ("resigned"); raises _Quit on quit."""
        spec, say = self.spec, self.print_fn
        if spec.name == "othello" and list(self.state.legal_actions()) == [spec.num_actions - 1]:
            say("You have no legal placement: type pass.")
        while True:
            try:
                text = self.input_fn(f"{player_name(spec.name, self.me)} to move> ")
            except EOFError:
                raise _Quit() from None
            word = text.strip().lower()
            if not word:                            # an empty line: ask again
                continue
            if word in ("quit", "exit", "q"):
                raise _Quit()
            if word in ("help", "?", "h"):
                say(help_text(self.state))
            elif word == "resign":
                say(f"You resigned: {player_name(spec.name, 1 - self.me)} wins.")
                return "resigned"
            elif word == "hint":
                say(f"hint: the agent would play {move_text(spec, int(self.agent.act(self.env)))}")
            elif word in ("undo", "u"):
                self.undo()
            else:
                try:
                    action = parse_action(spec, text)
                    self.env.step(action)
                except IllegalMoveError as err:
                    say(f"{move_text(spec, action)} is not allowed: {err.reason}. Try again (help lists the commands).")
                except ValueError as err:           # not a move: say what is, as the game stands now
                    say(str(err).replace(input_help(spec), move_help(self.state)))
                else:
                    self.history.append((self.me, action))
                    return None


def play(game, agent, kwargs=None, human="first", seed=None, input_fn=input, print_fn=print):
    """Play `game` against `agent` in the terminal (see Session); returns a PlayResult."""
    return Session(game, agent, kwargs, human, seed, input_fn, print_fn).run()
