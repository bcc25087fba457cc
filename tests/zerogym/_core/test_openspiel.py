"""Differential tests: every zerogym game against its OpenSpiel (pyspiel) twin on many random games,
move by move.  ADAPTERS says, per game, which OpenSpiel game and parameters match a size, how an
action maps (one to one in every game), how OpenSpiel's board reads, and what else is compared;
RUNS lists the sizes, the number of games and the seed of each comparison.  The tests after them
pin down the OpenSpiel behaviour the adapters rely on.

What OpenSpiel implements (read from its source and checked here by experiment):

Connect Four ("connect_four"): rows, columns and x_in_row; the action is the column, player 0 ('x')
moves first, pieces fall to the lowest empty cell, and str(state) prints the top row first -- our
board() layout.  A line longer than x_in_row wins (as our contract says) and a full board without a
line is a draw, so every size both accept is compared without restriction.

Tic-tac-toe ("tic_tac_toe", "mnk"): tic_tac_toe is the 3x3 game with action r * 3 + c and 'x'
(player 0) first.  mnk has m columns, n rows and k in a row, action r * m + c, and str(state) prints
row r on line r -- for the square boards zerogym supports (m = n = board_size) our r * N + c and
board() row order.  mnk counts a line longer than k as a win ("win_length or more"), a full board
without a line is a draw.

Othello ("othello"): 8x8 only (no game parameters), 65 actions encoded as ours (r * 8 + c, row 0 =
"1" printed at the top, a1 = 0; 64 = pass), black ('x', player 0) first, the same start position
(white d4 e5, black e4 d5), pass legal only when no placement is, the game over as soon as neither
side can place, returns +1 / -1 / 0 by disc count: every rule agrees.

Hex ("hex"): board_size (or num_rows / num_cols), swap (default False); player 0 "x" moves first
and connects row 0 to the last row, player 1 "o" the first column to the last; action = row *
num_cols + col; rows are drawn shifted right as they go down, so the neighbours of (r, c) are
(r-1, c), (r-1, c+1), (r, c-1), (r, c+1), (r+1, c-1), (r+1, c); with swap=True the action N * N,
legal only as the second move, removes x at (r, c) and puts o at (c, r), and x moves next.  That is
zerogym's game; with swap=False OpenSpiel has N * N actions where zerogym keeps N * N + 1 (the swap,
never legal): the legal sets are still equal.

Go ("go"): actions r * N + c with row 0 = rank 1 ("a1" is action 0), N * N = pass, black first;
board sizes 2..19 (ours go to 25); max_game_length 2 * N * N, like our max_moves; suicide is
illegal; simple ko as our superko="simple".  Its legal moves do NOT check positional superko: a
stone move that recreates an earlier board ends the game at once as a draw, where ours, with
superko="positional", makes such a move illegal.  So the legal sets are compared against
superko="simple", and a positional twin is checked against OpenSpiel's superko ending: the moves
it forbids are exactly those that end OpenSpiel's game by superko.  Tromp-Taylor area score plus
komi for white, returns +1 / -1, 0 for a draw; at max_game_length OpenSpiel's game is TERMINAL,
scored as usual, where ours is TRUNCATED with rewards 0: returns are compared only for games that
ended by two passes.

Havannah ("havannah"): board_size (the side, 2..; ours 3..13) and swap; the hexagon in a D x D grid
(D = 2N - 1), cell (x, y) at action y * D + x when |x - y| < N, neighbours along x, y and the main
diagonal: our grid mirrored left to right, (r, c) = (y, D-1-x), so an action maps by mirroring its
column.  Player 0 first; a group with two corners, three sides (corners excluded) or a ring (a
search for a closed chain without sharp turns) wins, a full board draws.  With swap=True the
second player swaps by playing on the first stone's own cell, which becomes theirs, and player 0
moves next; ours is the action D * D with the same effect.  Its D * D actions lack our swap action
(D * D + 1 with us, never legal without swap): the legal sets are compared after mapping.
"""

import functools
import random
from collections import Counter

import numpy as np
import pytest

import zerogym

pyspiel = pytest.importorskip("pyspiel")

SUPERKO = "that move repeats an earlier position (positional superko)"
RESULT = {(1.0, -1.0): 0, (-1.0, 1.0): 1, (0.0, 0.0): -1}  # returns -> winner (-1: a draw)


@functools.cache
def load(name, **params):
    return pyspiel.load_game(name, params)


def char_rows(text, h, w, chars):
    """(h, w) int8 from lines of one character a cell: chars[0] empty, [1] player 0, [2] player 1."""
    lines = text.strip("\n").split("\n")
    assert len(lines) == h and all(len(line) == w for line in lines), text
    return np.array([[chars.index(ch) for ch in line] for line in lines], dtype=np.int8)


class Run:
    """One row of RUNS being played: its random generator and what the games showed."""

    def __init__(self, kw, rng):
        self.kw, self.rng = kw, rng
        self.winners = []
        self.count = Counter()
        self.lengths = []


class Adapter:
    """How a zerogym game is compared with its OpenSpiel twin (the defaults serve every game but Go)."""

    game = None

    def __init__(self, spiel, rng=random.Random, **params):
        """spiel: OpenSpiel's game; params: its parameters, each given the zerogym kwarg of that name;
        rng: the type of random generator the games are drawn with."""
        self.spiel, self.params, self.new_rng = spiel, params, rng

    def spiel_game(self, kw, index):
        return load(self.spiel, **{theirs: kw[ours] for theirs, ours in self.params.items()})

    def ours(self, run, index):
        return zerogym.make_state(self.game, **run.kw)

    def action(self, a, ours):
        """OpenSpiel's action for zerogym's action `a` in position `ours`: the same number in every
        game but Breakthrough."""
        return a

    def legal(self, theirs):
        """OpenSpiel's legal actions as zerogym numbers them."""
        return list(theirs.legal_actions())

    def board(self, theirs, kw):
        raise NotImplementedError

    def pick(self, run, legal, ours):
        return run.rng.choice(legal)

    def check_running(self, run, ours, theirs, legal):
        """Extra checks of a position where the game goes on."""

    def after_step(self, run, ours, a):
        """Extra work after both played `a`."""

    def check_end(self, run, ours, theirs):
        assert ours.is_terminal() and theirs.is_terminal()
        assert ours.returns() == tuple(theirs.returns())
        assert ours.winner == RESULT[ours.returns()]
        assert len(ours.legal_actions()) == 0 and ours.legal_mask().sum() == 0
        assert np.array_equal(ours.board(), self.board(theirs, run.kw))

    def check_sample(self, run, need):
        """What the games of a run must have covered: `need` is a list of sets of winners, each of
        which must have come up (-1 for a draw)."""
        for winners in need:
            assert set(run.winners) & winners, (winners, Counter(run.winners))


class ConnectFour(Adapter):
    game = "connect_four"

    def board(self, theirs, kw):
        return char_rows(str(theirs), kw["rows"], kw["cols"], ".xo")


class TicTacToe(Adapter):
    game = "tictactoe"

    def spiel_game(self, kw, index):
        assert self.spiel == "mnk" or kw == dict(board_size=3, win_length=3)  # tic_tac_toe: 3x3 only
        return super().spiel_game(kw, index)

    def board(self, theirs, kw):
        return char_rows(str(theirs), kw["board_size"], kw["board_size"], ".xo")


class Othello(Adapter):
    game = "othello"

    def spiel_game(self, kw, index):
        assert kw == dict(board_size=8)
        return super().spiel_game(kw, index)

    def board(self, theirs, kw):
        """(8, 8) from OpenSpiel's text: '-' empty, 'x' black, 'o' white; row "1" first."""
        rows = [line.split() for line in str(theirs).splitlines() if line[:1].isdigit()]
        assert [int(r[0]) for r in rows] == list(range(1, 9))
        return np.array([[{"-": 0, "x": 1, "o": 2}[ch] for ch in r[1:9]] for r in rows], dtype=np.int8)

    def pick(self, run, legal, ours):
        a = run.rng.choice(legal)
        run.count["passes"] += a == 64
        return a

    def check_running(self, run, ours, theirs, legal):
        board = self.board(theirs, run.kw)
        assert ours.counts() == (int((board == 1).sum()), int((board == 2).sum()))
        assert list(theirs.legal_actions_mask()) == ours.legal_mask().tolist()

    def check_end(self, run, ours, theirs):
        super().check_end(run, ours, theirs)
        board = self.board(theirs, run.kw)
        assert ours.counts() == (int((board == 1).sum()), int((board == 2).sum()))
        assert ours.move_count == theirs.move_number()
        run.count["before_full"] += sum(ours.counts()) < 64

    def check_sample(self, run, need):
        super().check_sample(run, need)
        assert run.count["passes"] > 0 and run.count["before_full"] > 0  # forced passes, early ends


class Hex(Adapter):
    game = "hex"

    def board(self, theirs, kw):
        """(N, N) from OpenSpiel's text: '.' empty, 'x' player 0, 'o' player 1."""
        n = kw["board_size"]
        rows = [line.split() for line in str(theirs).splitlines() if line.strip()]
        assert len(rows) == n and all(len(r) == n for r in rows), str(theirs)
        return np.array([[{".": 0, "x": 1, "o": 2}[ch] for ch in row] for row in rows], np.int8)

    def pick(self, run, legal, ours):
        n = run.kw["board_size"]
        a = int(run.rng.choice(legal))
        if run.kw["swap"] and ours.move_count == 1 and run.rng.random() < 0.5:
            a = n * n  # the swap, in half of the games
            assert a in legal
            run.count["swaps"] += 1
        return a

    def check_end(self, run, ours, theirs):
        super().check_end(run, ours, theirs)
        assert ours.winner in (0, 1)
        run.lengths.append(ours.move_count)

    def check_sample(self, run, need):
        n = run.kw["board_size"]
        assert min(run.lengths) >= 2 * n - 1  # the winner has at least n stones on the board
        assert (run.count["swaps"] > 0) == run.kw["swap"]


class Go(Adapter):
    game = "go"
    KOMI = (0.0, 0.5, 7.5, 2.0)
    STONE_BIAS = (0.0, 0.9, 0.97)  # how often a game plays a stone when it may

    def spiel_game(self, kw, index):
        n = kw["board_size"]
        game = load(self.spiel, board_size=n, komi=self.KOMI[index % 4])
        assert game.max_game_length() == 2 * n * n
        return game

    def ours(self, run, index):
        """The superko="simple" state compared with OpenSpiel; run.twin is its positional twin."""
        n, komi = run.kw["board_size"], self.KOMI[index % 4]
        ours = zerogym.make_state("go", board_size=n, komi=komi, superko="simple")
        assert ours.spec.kwargs["max_moves"] == 2 * n * n
        run.twin = zerogym.make_state("go", board_size=n, komi=komi, superko="positional")
        run.twin_alive = True  # the positional twin still follows the same moves
        run.history = []
        run.bias = self.STONE_BIAS[index % 3]
        return ours

    def board(self, theirs, kw):
        """(N, N) from OpenSpiel's text: '+' empty, 'X' black, 'O' white."""
        n = kw["board_size"]
        b = np.zeros((n, n), np.int8)
        rows = 0
        for line in theirs.observation_string(0).splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0].isdigit():
                r = int(parts[0]) - 1
                for c, ch in enumerate(parts[1]):
                    b[r, c] = {"+": 0, "X": 1, "O": 2}[ch]
                rows += 1
        assert rows == n
        return b

    @staticmethod
    def ended_by_superko(theirs):
        """True if OpenSpiel's game ended because the last stone move repeated a board."""
        hist, game = theirs.history(), theirs.get_game()
        n2 = game.num_distinct_actions() - 1
        two_passes = len(hist) >= 2 and hist[-1] == n2 and hist[-2] == n2
        return theirs.is_terminal() and not two_passes and len(hist) < game.max_game_length()

    def check_running(self, run, ours, theirs, legal):
        pos = run.twin
        if not run.twin_alive:
            return
        assert np.array_equal(pos.board(), ours.board()) and pos.current_player == ours.current_player
        pos_legal = set(pos.legal_actions().tolist())
        assert pos_legal <= set(legal)
        # moves positional superko forbids = moves that end OpenSpiel's game by superko
        for a in sorted(set(legal) - pos_legal):
            assert pos.illegal_reason(a) == SUPERKO
            child = theirs.child(a)
            assert child.is_terminal() and child.returns() == [0.0, 0.0]
            # (a superko move that is also the last allowed move cannot be told apart)
            assert self.ended_by_superko(child) or len(child.history()) == child.get_game().max_game_length()
            run.count["superko_moves"] += 1
        for a in run.rng.choice(sorted(pos_legal), size=min(3, len(pos_legal)), replace=False):
            assert not self.ended_by_superko(theirs.child(int(a)))

    def pick(self, run, legal, ours):
        stones = legal[:-1]
        if stones and run.rng.random() < run.bias:
            return int(run.rng.choice(stones))
        return int(run.rng.choice(legal))

    def after_step(self, run, ours, a):
        run.history.append(a)
        if run.twin_alive:
            if run.twin.is_legal(a):
                run.twin.step(a)
                assert run.twin.hash == ours.hash
            else:
                run.twin_alive = False

    def check_end(self, run, ours, theirs):
        n = run.kw["board_size"]
        if self.ended_by_superko(theirs):
            run.count["superko"] += 1
            assert not ours.is_over() or ours.move_count == ours.spec.kwargs["max_moves"]
            assert not run.twin_alive
        elif ours.is_truncated():
            run.count["length"] += 1
            assert len(theirs.history()) == theirs.get_game().max_game_length()
            assert ours.returns() == (0.0, 0.0) and ours.winner == -1
        else:
            run.count["passes"] += 1
            super().check_end(run, ours, theirs)
            if run.twin_alive:
                assert run.twin.is_terminal() and run.twin.returns() == ours.returns()
            # the exact score: with komi = our area difference OpenSpiel must call it a draw
            black, white = ours.area()
            if n <= 9:
                replay = load("go", board_size=n, komi=float(black - white)).new_initial_state()
                for a in run.history:
                    replay.apply_action(a)
                assert replay.is_terminal() and replay.returns() == [0.0, 0.0]

    def check_sample(self, run, need):
        assert run.count["passes"] > 0  # games that ended by passes (returns compared) at every size
        if run.kw["board_size"] <= 4:
            assert run.count["superko_moves"] > 0 and run.count["superko"] > 0


class Breakthrough(Adapter):
    game = "breakthrough"

    def ours(self, run, index):
        """Below 6 rows OpenSpiel starts with one row each: ours is set to that position."""
        ours = zerogym.make_state("breakthrough", **run.kw)
        if run.kw["rows"] < 6:
            b = np.zeros((run.kw["rows"], run.kw["cols"]), np.int8)
            b[0], b[-1] = 1, 2
            ours.set_position(b, 0)
        return ours

    def legal(self, theirs):
        """OpenSpiel's action ((r * cols + c) * 6 + dir) * 2 + capture: dir 0..2 for black (down),
        3..5 for white (up), to column c + dir % 3 - 1; ours is (r * cols + c) * 3 + dir % 3."""
        return sorted({a // 12 * 3 + a // 2 % 3 for a in theirs.legal_actions()})

    def action(self, a, ours):
        (r, c), to = ours.move_cells(a)
        capture = int(ours.board()[to] != 0)  # a legal move onto a piece takes it
        return ((a // 3) * 6 + 3 * ours.current_player + a % 3) * 2 + capture

    def board(self, theirs, kw):
        """(rows, cols) from OpenSpiel's text: a row label, then '.' empty, 'b' black, 'w' white."""
        lines = str(theirs).splitlines()[: kw["rows"]]
        return char_rows("\n".join(line[1:] for line in lines), kw["rows"], kw["cols"], ".bw")

    def check_end(self, run, ours, theirs):
        super().check_end(run, ours, theirs)
        run.count["all_taken"] += 0 in ours.counts()

    def check_sample(self, run, need):
        super().check_sample(run, need)
        if run.kw["cols"] == 2:
            assert run.count["all_taken"] > 0  # wins by taking every piece came up too


class Havannah(Adapter):
    game = "havannah"

    def ours(self, run, index):
        run.clumpy = index % 2 == 1  # every other game mostly grows the mover's groups: more rings
        return super().ours(run, index)

    @staticmethod
    def mirror(a, d):
        """Our action <-> OpenSpiel's for a cell: the column mirrored (an involution)."""
        return a // d * d + d - 1 - a % d

    def legal(self, theirs):
        d = 2 * theirs.get_game().get_parameters()["board_size"] - 1
        swap = theirs.history()[:1] if len(theirs.history()) == 1 else []  # the first stone's cell
        return sorted(d * d if [a] == swap else self.mirror(a, d) for a in theirs.legal_actions())

    def action(self, a, ours):
        d = ours.board().shape[0]
        return self.mirror(ours.last_action if a == d * d else a, d)

    def board(self, theirs, kw):
        d = 2 * kw["board_size"] - 1
        planes = np.array(theirs.observation_tensor(0)).reshape(3, d, d)  # player 0, player 1, empty
        return (planes[0] + 2 * planes[1]).astype(np.int8)[:, ::-1]

    def pick(self, run, legal, ours):
        d = ours.board().shape[0]
        if run.kw["swap"] and ours.move_count == 1 and run.rng.random() < 0.5:
            assert d * d in legal
            run.count["swaps"] += 1
            return d * d
        own = ours.observation()[..., 0]
        near = [
            a for a in legal if a < d * d and own[max(0, a // d - 1) : a // d + 2, max(0, a % d - 1) : a % d + 2].any()
        ]
        if run.clumpy and near and run.rng.random() < 0.8:
            return int(run.rng.choice(near))
        return int(run.rng.choice(legal))

    def check_end(self, run, ours, theirs):
        super().check_end(run, ours, theirs)
        run.count.update(ours.winning_shapes())
        run.lengths.append(ours.move_count)

    def check_sample(self, run, need):
        super().check_sample(run, need)
        assert (run.count["swaps"] > 0) == run.kw["swap"]
        if 4 <= run.kw["board_size"] <= 7:  # all three shapes end random games here
            assert min(run.count[shape] for shape in ("ring", "bridge", "fork")) > 0, run.count


NUMPY = np.random.default_rng
ADAPTERS = {
    "connect_four": ConnectFour("connect_four", rows="rows", columns="cols", x_in_row="connect"),
    "tictactoe": TicTacToe("mnk", m="board_size", n="board_size", k="win_length"),
    "tic_tac_toe": TicTacToe("tic_tac_toe"),
    "othello": Othello("othello"),
    "hex": Hex("hex", rng=NUMPY, board_size="board_size", swap="swap"),
    "go": Go("go", rng=NUMPY),
    "breakthrough": Breakthrough("breakthrough", rng=NUMPY, rows="rows", columns="cols"),
    "havannah": Havannah("havannah", rng=NUMPY, board_size="board_size", swap="swap"),
}


def compare_games(adapter, kw, games, seed, need):
    """`games` random games played in both, compared at every position."""
    r = Run(kw, adapter.new_rng(seed))
    for index in range(games):
        theirs, ours = adapter.spiel_game(kw, index).new_initial_state(), adapter.ours(r, index)
        while not theirs.is_terminal():
            legal = adapter.legal(theirs)
            assert not ours.is_over() and ours.current_player == theirs.current_player()
            assert ours.legal_actions().tolist() == legal
            assert ours.returns() == (0.0, 0.0)
            assert np.array_equal(ours.board(), adapter.board(theirs, kw))
            adapter.check_running(r, ours, theirs, legal)
            a = adapter.pick(r, legal, ours)
            theirs.apply_action(adapter.action(a, ours))
            ours.step(a)
            adapter.after_step(r, ours, a)
        adapter.check_end(r, ours, theirs)
        r.winners.append(ours.winner)
    adapter.check_sample(r, need)


# ---- the comparisons: (adapter, kwargs, games, seed, winners that must come up) --------------------
WINS = [{0, 1}]
# (rows, cols, connect) of Connect Four
C4_SHAPES = [(6, 7, 4), (5, 4, 3), (4, 5, 4), (3, 3, 3), (1, 6, 3), (6, 1, 3), (7, 9, 5), (2, 3, 2)]
C4_SHAPES += [(8, 8, 4), (5, 5, 5), (4, 4, 2), (6, 7, 3), (6, 7, 7), (3, 10, 4), (10, 3, 4)]
# (board_size, win_length, games) of tic-tac-toe; (rows, cols, games) of Breakthrough
MNK = [(15, 5, 60), (5, 4, 200), (4, 3, 100), (6, 4, 60), (7, 5, 40), (2, 2, 30), (4, 4, 60), (9, 3, 40)]
BREAKTHROUGH = [(4, 2, 200), (4, 4, 100), (5, 3, 100), (6, 6, 60), (8, 8, 30), (7, 4, 40), (6, 11, 20)]
BREAKTHROUGH += [(12, 5, 20), (16, 16, 4)]
GO = [(2, 600), (3, 600), (4, 400), (5, 300), (7, 80), (9, 30), (13, 6), (19, 3)]
RUNS = (
    # one column fills with alternating pieces: always a draw; elsewhere real endings, wins among them
    [
        ("connect_four", dict(rows=r, cols=c, connect=k), 40, r * 1000 + c * 10 + k, [{-1}] if c == 1 else WINS)
        for r, c, k in C4_SHAPES
    ]
    + [("connect_four", dict(rows=2, cols=3, connect=3), 50, 7, [{-1}])]  # random play often draws here
    + [
        ("tic_tac_toe", dict(board_size=3, win_length=3), 300, 1, [{-1}, {0}, {1}]),
        ("tictactoe", dict(board_size=3, win_length=3), 100, 2, [{0}, {1}]),
    ]  # mnk 3, 3, 3 is tic_tac_toe
    + [
        (
            "tictactoe",
            dict(board_size=n, win_length=k),
            games,
            n * 100 + k,
            WINS + ([{-1}] if (n, k) in ((4, 4), (5, 4)) else []),
        )
        for n, k, games in MNK
    ]
    + [("othello", dict(board_size=8), 300, 20240611, [{0}, {1}, {-1}])]
    + [
        ("hex", dict(board_size=n, swap=swap), 100 if n <= 5 else 25 if n <= 11 else 6, 1000 * n + swap, [])
        for n in range(2, 20)
        for swap in (False, True)
    ]  # every size zerogym allows
    + [("go", dict(board_size=n), games, 1000 + n, []) for n, games in GO]
    + [("breakthrough", dict(rows=r, cols=c), games, 100 * r + c, WINS) for r, c, games in BREAKTHROUGH]
    + [
        ("havannah", dict(board_size=n, swap=swap), 400 if n <= 5 else 100 if n <= 8 else 20, 100 * n + swap, WINS)
        for n in range(3, 14)
        for swap in (False, True)
    ]  # every size zerogym allows
)


@pytest.mark.parametrize(
    "adapter,kw,games,seed,need",
    [
        pytest.param(
            *row, id=f"{row[0]}-" + "-".join(f"{k}{v}" for k, v in row[1].items()) + f"-{row[2]}games-seed{row[3]}"
        )
        for row in RUNS
    ],
)
def test_random_games_agree_with_openspiel(adapter, kw, games, seed, need):
    compare_games(ADAPTERS[adapter], kw, games, seed, need)


def test_the_runs_cover_every_game():
    assert {row[0] for row in RUNS} == set(ADAPTERS)
    assert {ADAPTERS[row[0]].game for row in RUNS} == set(zerogym.GAMES)


# ---- what the adapters rely on -------------------------------------------------------------------
def test_openspiel_othello_definition():
    game = load("othello")
    assert game.get_parameters() == {}  # fixed 8x8: no board size to set
    assert game.num_distinct_actions() == 65 and game.num_players() == 2
    t = game.get_type()
    assert t.short_name == "othello"
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    s = game.new_initial_state()
    ours = zerogym.make_state("othello", board_size=8)
    # same action names: OpenSpiel's action strings are ours
    for a in range(65):
        assert s.action_to_string(0, a) == ours.spec.action_name(a)
    assert s.current_player() == 0 and "Black (x) to play" in str(s)
    assert (ADAPTERS["othello"].board(s, {}) == ours.board()).all()


def test_openspiel_othello_other_sizes_undefined():
    with pytest.raises(pyspiel.SpielError):
        pyspiel.load_game("othello", {"board_size": 6})


def test_othello_forced_pass_agrees():
    # steer both into a position where the mover must pass (play random games until one arises)
    game = load("othello")
    rng = random.Random(7)
    for _ in range(200):
        ours, theirs = zerogym.make_state("othello", board_size=8), game.new_initial_state()
        while not theirs.is_terminal():
            legal = theirs.legal_actions()
            if legal == [64]:
                assert list(ours.legal_actions()) == [64]
                empty = int(np.flatnonzero(ours.board().ravel() == 0)[0])  # a forced pass leaves empties
                assert ours.illegal_reason(empty) == "must pass: no placement is legal"
                ours.step(64)
                theirs.apply_action(64)
                assert ours.current_player == theirs.current_player()
                assert list(ours.legal_actions()) == sorted(theirs.legal_actions())
                return
            a = rng.choice(legal)
            ours.step(a)
            theirs.apply_action(a)
    pytest.fail("no forced pass in 200 random games")


def hex_board(state, n):
    return ADAPTERS["hex"].board(state, {"board_size": n})


def test_openspiel_hex_parameters_and_actions():
    g = load("hex", board_size=5, swap=False)
    params = g.get_parameters()
    assert params["board_size"] == 5 and params["num_rows"] == 5 and params["num_cols"] == 5
    assert params["swap"] is False
    assert g.num_distinct_actions() == 25 and load("hex", board_size=5, swap=True).num_distinct_actions() == 26
    t = g.get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    s = g.new_initial_state()
    s.apply_action(7)  # row 1, column 2
    assert hex_board(s, 5)[1, 2] == 1 and s.current_player() == 1


def test_openspiel_hex_geometry_matches():
    # x on the anti-diagonal (uses the (r+1, c-1) neighbour) wins; on the main diagonal it does not
    g = load("hex", board_size=3, swap=False)
    s = g.new_initial_state()
    for a in (2, 0, 4, 1, 6):
        s.apply_action(a)
    assert s.is_terminal() and s.returns() == [1.0, -1.0]
    s = g.new_initial_state()
    for a in (0, 2, 4, 1, 8):
        s.apply_action(a)
    assert not s.is_terminal()
    # o connects left-right along row 1
    s = g.new_initial_state()
    for a in (0, 3, 1, 4, 8, 5):
        s.apply_action(a)
    assert s.is_terminal() and s.returns() == [-1.0, 1.0]


def test_openspiel_hex_swap_matches():
    s = load("hex", board_size=4, swap=True).new_initial_state()
    s.apply_action(1 * 4 + 3)  # x at (1, 3)
    assert 16 in s.legal_actions() and s.action_to_string(1, 16) == "swap"
    s.apply_action(16)
    b = hex_board(s, 4)
    assert b[3, 1] == 2 and (b != 0).sum() == 1 and s.current_player() == 0
    assert 16 not in s.legal_actions()


def test_go_double_ko_cycle_ends_openspiel_by_superko():
    # the double-ko cycle of tests/zerogym/_core/test_go.py: the last move recreates the start board
    n = 7
    names = [
        "B3",
        "C3",
        "A2",
        "B2",
        "B1",
        "D2",
        "C7",
        "C1",
        "B6",
        "B7",
        "D6",
        "A6",
        "C5",
        "B5",
        "C2",
        "C6",
        "pass",
        "B2",
        "B6",
    ]

    def action(name):
        if name == "pass":
            return n * n
        return (int(name[1:]) - 1) * n + "ABCDEFGHJ".index(name[0])

    sp = load("go", board_size=n, komi=7.5).new_initial_state()
    simple, pos = zerogym.make_state("go", board_size=n, superko="simple"), zerogym.make_state("go", board_size=n)
    for name in names[:-1]:
        for s in (sp, simple, pos):
            s.apply_action(action(name)) if s is sp else s.step(action(name))
    last = action(names[-1])
    assert last in sp.legal_actions() and simple.is_legal(last)
    assert pos.illegal_reason(last) == SUPERKO
    sp.apply_action(last)
    assert sp.is_terminal() and sp.returns() == [0.0, 0.0]
    simple.step(last)
    assert not simple.is_over()
