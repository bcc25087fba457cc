"""GreedyAgent: the best move one ply ahead by a simple heuristic per game.

HEURISTICS maps each game's registry name to its heuristic, a function (agent, state, legal actions)
-> action; a game without one gets a random legal move.  The pass and swap actions are the spec's
pass_action and swap_action."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, Union

import numpy as np
import numpy.typing as npt

from zerogym_agents.agents.base import AECEnv, Agent, game_state

if TYPE_CHECKING:
    from zerogym._core.breakthrough import BreakthroughState
    from zerogym._core.connect_four import ConnectFourState
    from zerogym._core.go import GoState
    from zerogym._core.havannah import HavannahState
    from zerogym._core.hex import HexState
    from zerogym._core.othello import OthelloState
    from zerogym._core.tictactoe import TicTacToeState

Board = npt.NDArray[np.int8]
Legal = npt.NDArray[np.int64]  # the legal actions, as State.legal_actions() gives them
Actions = Union[list[int], npt.NDArray[np.integer]]

_LINES = ((0, 1), (1, 0), (1, 1), (1, -1))


def line_length(board: Board, r: int, c: int, colour: int) -> int:
    """Longest run of `colour` through (r, c) along a row, column or diagonal, counting (r, c) as `colour`."""
    h, w = board.shape
    best = 1
    for dr, dc in _LINES:
        n = 1
        for sgn in (1, -1):
            rr, cc = r + sgn * dr, c + sgn * dc
            while 0 <= rr < h and 0 <= cc < w and board[rr, cc] == colour:
                n += 1
                rr += sgn * dr
                cc += sgn * dc
        best = max(best, n)
    return best


class GreedyAgent(Agent):
    """One-ply heuristic baseline (as the Greedy players of Cherif Haouat, Jallouli & Labiausse,
    "AlphaOthelloZero"); every tie is broken uniformly by the agent's seeded generator.

    - Tic-tac-toe / Gomoku and Connect Four: win now if a move completes `win_length` / `connect`;
      else block a cell where the opponent would win now; else the move that makes the longest own
      line through the new stone, nearer the centre on equal length.
    - Othello: a corner if one is legal; else avoid X-squares (the diagonal neighbour of an empty
      corner) when possible; among the rest, the most own discs after the move.  Pass only when forced.
    - Hex: win now; else, if the opponent is one stone from connecting, stop that; else minimize
      (own distance - opponent distance) after the move, where a side's distance is the fewest empty
      cells it still needs to join its edges (0-1 BFS: own stones cost 0, empty cells 1, the
      opponent's stones block); centre preference on ties.  The swap is scored the same way.
    - Go: never fill an own single-point eye (an empty point whose orthogonal neighbours are all
      own stones, with no opponent stone on a diagonal at the edge, at most one in the middle); then
      capture the most stones; else save the most own stones in atari (the chain has >= 2 liberties
      after the move); else a random move that is not self-atari (a non-capturing move leaving the
      new chain one liberty); else a random self-atari; pass only when nothing else is left.
    - Breakthrough: win now (reach the far row or take the last enemy piece); else capture an enemy
      piece that would reach its far row next move; else prefer a capture, then a move that leaves
      the moved piece safe (not attacked, or defended), then the most advanced destination.
    - Havannah: swap a first stone that is off the edge; win now; else stop a cell where the
      opponent would win now; else the cell whose group (the own groups it joins, and itself) is
      nearest a bridge or fork (the larger of corners / 2 and sides / 3), then joins the most own
      groups, then lies nearest the centre.
    - Any other game: a random legal move.
    """

    name = "greedy"

    def act(self, env: AECEnv) -> int:
        st = game_state(env)
        legal = st.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        heuristic = HEURISTICS.get(st.spec.name)
        if heuristic is None:
            return self.choice(legal)
        return heuristic(self, st, legal)

    def choice(self, actions: Actions) -> int:
        """One of `actions`, drawn uniformly by the agent's generator."""
        return int(actions[self.rng.integers(len(actions))])

    def pick(self, actions: Actions, keys: Sequence[Any]) -> int:
        """An action of the largest key (keys compare as tuples), ties broken by the generator."""
        best = max(keys)
        return self.choice([a for a, k in zip(actions, keys) if k == best])


# ---- Tic-tac-toe / Gomoku / Connect Four ---------------------------------------------------------
def _lines(
    agent: GreedyAgent, st: TicTacToeState | ConnectFourState, legal: Legal, win: int, cells: list[tuple[int, int]]
) -> int:
    """Win now, else block the opponent's win, else the longest own line through the new piece at
    cells[i] (row, col) for legal[i], nearer the centre on equal length."""
    board = st.board()
    h, w = board.shape
    me = st.current_player + 1
    opp = 3 - me
    own = [line_length(board, r, c, me) for r, c in cells]
    wins = [a for a, n in zip(legal, own) if n >= win]
    if wins:
        return agent.choice(wins)
    blocks = [a for a, (r, c) in zip(legal, cells) if line_length(board, r, c, opp) >= win]
    if blocks:
        return agent.choice(blocks)
    keys = [(n, -round(float(np.hypot(r - (h - 1) / 2, c - (w - 1) / 2)), 9)) for n, (r, c) in zip(own, cells)]
    return agent.pick(legal, keys)


def tictactoe_move(agent: GreedyAgent, st: TicTacToeState, legal: Legal) -> int:
    """Tic-tac-toe / Gomoku: win now, else block the opponent's win, else the longest own line, nearer the centre."""
    w = st.spec.obs_shape[1]
    return _lines(agent, st, legal, st.spec.kwargs["win_length"], [divmod(int(a), w) for a in legal])


def connect_four_move(agent: GreedyAgent, st: ConnectFourState, legal: Legal) -> int:
    """Connect Four: win now, else block the opponent's win, else the longest own line through the piece."""
    rows = st.spec.kwargs["rows"]
    heights = st.heights()
    cells = [(rows - 1 - int(heights[a]), int(a)) for a in legal]  # where the piece lands
    return _lines(agent, st, legal, st.spec.kwargs["connect"], cells)


# ---- Othello ---------------------------------------------------------------------------------------
def othello_move(agent: GreedyAgent, st: OthelloState, legal: Legal) -> int:
    """Othello: a corner, else no X-square where it can be avoided, then the most own discs after the move."""
    n = st.board_size
    board = st.board()
    me = st.current_player
    corners = {(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1)}
    xsq = {(1, 1): (0, 0), (1, n - 2): (0, n - 1), (n - 2, 1): (n - 1, 0), (n - 2, n - 2): (n - 1, n - 1)}
    actions, keys = [], []
    for a in legal:
        if a == st.spec.pass_action:
            continue  # pass is legal only when nothing else is
        r, c = divmod(int(a), n)
        corner = xsq.get((r, c))
        is_x = corner is not None and board[corner] == 0
        child = st.copy()
        child.step(int(a))
        actions.append(a)
        keys.append(((r, c) in corners, not is_x, child.counts()[me]))
    return agent.pick(actions, keys)


# ---- Hex -------------------------------------------------------------------------------------------
def _hex_distances(board: Board, colour: int, start_side: int, blocked: int = -1) -> list[int]:
    """0-1 BFS cost from `colour`'s first edge (start_side 0) or second edge (1) to every cell,
    counting each cell's own cost (0 own stone, 1 empty); None where unreachable."""
    n = board.shape[0]
    flat = board.ravel().tolist()
    inf = 1 << 30
    dist = [inf] * (n * n)
    dq: deque[int] = deque()
    edge_index = 0 if start_side == 0 else n - 1
    for k in range(n):
        cell = edge_index * n + k if colour == 1 else k * n + edge_index
        v = flat[cell]
        if cell == blocked or (v != 0 and v != colour):
            continue
        d = 0 if v == colour else 1
        if d < dist[cell]:
            dist[cell] = d
            if d == 0:
                dq.appendleft(cell)
            else:
                dq.append(cell)
    while dq:
        cell = dq.popleft()
        d = dist[cell]
        r, c = divmod(cell, n)
        for rr, cc in ((r - 1, c), (r - 1, c + 1), (r, c - 1), (r, c + 1), (r + 1, c - 1), (r + 1, c)):
            if 0 <= rr < n and 0 <= cc < n:
                q = rr * n + cc
                v = flat[q]
                if q == blocked or (v != 0 and v != colour):
                    continue
                nd = d + (0 if v == colour else 1)
                if nd < dist[q]:
                    dist[q] = nd
                    if v == colour:
                        dq.appendleft(q)
                    else:
                        dq.append(q)
    return dist


def _hex_distance(board: Board, colour: int, blocked: int = -1) -> int:
    """Fewest empty cells `colour` still needs to join its two edges (1 << 30 if it cannot)."""
    n = board.shape[0]
    dist = _hex_distances(board, colour, 0, blocked)
    far = [(n - 1) * n + k if colour == 1 else k * n + n - 1 for k in range(n)]
    return min(dist[q] for q in far)


def hex_move(agent: GreedyAgent, st: HexState, legal: Legal) -> int:
    """Hex: win now, else stop a connection one stone away, else the least (own - opponent's) distance to connect."""
    board = st.board()
    n = board.shape[0]
    me = st.current_player + 1
    opp = 3 - me
    ma, mb = _hex_distances(board, me, 0), _hex_distances(board, me, 1)
    oa, ob = _hex_distances(board, opp, 0), _hex_distances(board, opp, 1)
    own_now = _hex_distance(board, me)
    opp_now = _hex_distance(board, opp)
    actions, scores, centre = [], [], []
    for a in legal:
        a = int(a)
        if a == st.spec.swap_action:  # the swap: score the position it makes directly
            child = st.copy()
            child.step(a)
            b = child.board()
            own, other = _hex_distance(b, me), _hex_distance(b, opp)
            dc = float(n)
        else:
            own = min(own_now, ma[a] + mb[a] - 2)
            # blocking cell a changes the opponent's distance only if a lies on one of its shortest paths
            on_path = oa[a] + ob[a] - 1 <= opp_now
            other = _hex_distance(board, opp, blocked=a) if on_path else opp_now
            r, c = divmod(a, n)
            dc = float(np.hypot(r - (n - 1) / 2, c - (n - 1) / 2))
        actions.append(a)
        scores.append((own, other))
        centre.append(dc)
    wins = [a for a, (own, _) in zip(actions, scores) if own == 0]
    if wins:
        return agent.choice(wins)
    keep: Sequence[int] = range(len(actions))
    if opp_now == 1:  # the opponent wins next move unless we stop it
        stops = [i for i in keep if scores[i][1] > 1]
        keep = stops or list(keep)
    acts = [actions[i] for i in keep]
    keys = [(-(scores[i][0] - scores[i][1]), -round(centre[i], 9)) for i in keep]
    return agent.pick(acts, keys)


# ---- Go --------------------------------------------------------------------------------------------
def _go_chains(flat: list[int], n: int) -> tuple[list[int], list[tuple[int, int, set[int]]]]:
    """(chain id per point or -1, [(colour, stones, liberties set)]) by flood fill."""
    label = [-1] * (n * n)
    chains: list[tuple[int, int, set[int]]] = []
    for p in range(n * n):
        if flat[p] == 0 or label[p] >= 0:
            continue
        colour = flat[p]
        cid = len(chains)
        stack, size, libs = [p], 0, set()
        label[p] = cid
        while stack:
            q = stack.pop()
            size += 1
            r, c = divmod(q, n)
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= rr < n and 0 <= cc < n:
                    x = rr * n + cc
                    if flat[x] == 0:
                        libs.add(x)
                    elif flat[x] == colour and label[x] < 0:
                        label[x] = cid
                        stack.append(x)
        chains.append((colour, size, libs))
    return label, chains


def go_move(agent: GreedyAgent, st: GoState, legal: Legal) -> int:
    """Go: never fill an own eye; the biggest capture, else save stones in atari, else a move that is not self-atari."""
    n = st.spec.kwargs["board_size"]
    flat = st.board().ravel().tolist()
    me = st.current_player + 1
    opp = 3 - me
    label, chains = _go_chains(flat, n)
    cand, captures, saves, safe = [], [], [], []
    for a in legal:
        a = int(a)
        if a == st.spec.pass_action:
            continue
        r, c = divmod(a, n)
        nbrs = [
            rr * n + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if 0 <= rr < n and 0 <= cc < n
        ]
        if all(flat[q] == me for q in nbrs):
            diag = [(rr, cc) for rr, cc in ((r - 1, c - 1), (r - 1, c + 1), (r + 1, c - 1), (r + 1, c + 1))]
            on = [rr * n + cc for rr, cc in diag if 0 <= rr < n and 0 <= cc < n]
            bad = sum(flat[q] == opp for q in on)
            if bad <= (0 if len(on) < 4 else 1):
                continue  # an own eye: never fill it
        adj = {label[q] for q in nbrs if flat[q] != 0}
        captured = sum(chains[k][1] for k in adj if chains[k][0] == opp and chains[k][2] == {a})
        libs = {q for q in nbrs if flat[q] == 0}
        for k in adj:
            if chains[k][0] == me:
                libs |= chains[k][2]
        libs.discard(a)
        in_atari = sum(chains[k][1] for k in adj if chains[k][0] == me and chains[k][2] == {a})
        cand.append(a)
        captures.append(captured)
        saves.append(in_atari if (len(libs) >= 2 or captured) else 0)
        safe.append(captured > 0 or len(libs) >= 2)
    if not cand:
        return st.spec.pass_action  # only pass, or only own eyes left
    if max(captures) > 0:
        return agent.pick(cand, captures)
    if max(saves) > 0:
        return agent.pick(cand, saves)
    return agent.choice([a for a, ok in zip(cand, safe) if ok] or cand)


# ---- Breakthrough ----------------------------------------------------------------------------------
def breakthrough_move(agent: GreedyAgent, st: BreakthroughState, legal: Legal) -> int:
    """Breakthrough: win now, else take a piece one step from its goal, else a capture, a safe square, the
    furthest step."""
    board = st.board()
    rows, cols = board.shape
    me = st.current_player
    own, opp, f = me + 1, 2 - me, 1 - 2 * me  # f: the row step toward the opponent
    goal = rows - 1 if me == 0 else 0

    def attacked(b, r, c, by, step):
        """A piece of `by`, moving by `step` rows, can capture on (r, c)."""
        return any(0 <= r - step < rows and 0 <= c + dc < cols and b[r - step, c + dc] == by for dc in (-1, 1))

    # enemy pieces one move from their far row: unless captured, they win next move
    threats = {(r, c) for r, c in zip(*np.nonzero(board == opp)) if r - f == (0 if me == 0 else rows - 1)}
    actions, keys, wins, stops = [], [], [], []
    for a in legal:
        a = int(a)
        (r, c), to = st.move_cells(a)
        assert to is not None  # a move on the board lands on a cell
        rr, cc = to
        captured = board[rr, cc] == opp
        if rr == goal or (captured and st.counts()[1 - me] == 1):
            wins.append(a)
        if captured and (rr, cc) in threats:
            stops.append(a)
        after = board.copy()
        after[r, c], after[rr, cc] = 0, own
        safe = not attacked(after, rr, cc, opp, -f) or attacked(after, rr, cc, own, f)
        actions.append(a)
        keys.append((bool(captured), safe, (rr if me == 0 else rows - 1 - rr)))
    if wins:
        return agent.choice(wins)
    if stops:
        return agent.choice(stops)
    return agent.pick(actions, keys)


# ---- Havannah --------------------------------------------------------------------------------------
def havannah_move(agent: GreedyAgent, st: HavannahState, legal: Legal) -> int:
    """Havannah: win now, else stop the opponent's win, else the group nearest a bridge or fork, then the cell
    joining the most groups."""
    from zerogym._core.havannah import corner_cells, side_of

    board = st.board()
    d = board.shape[0]
    n = (d + 1) // 2
    me = st.current_player
    if st.spec.swap_action in legal:  # take the first stone over when it stands off the edge
        r, c = divmod(int(st.last_action), d)
        rings_out = max(abs(r - (n - 1)), abs(c - (n - 1)), abs(r + c - 2 * (n - 1)))
        if rings_out < n - 1:
            return st.spec.swap_action
        legal = legal[legal != st.spec.swap_action]
    for player in (me, 1 - me):  # win now, else stop the opponent's win
        cells = [a for a in legal if st.winning_cells(player)[a]]
        if cells:
            return agent.choice(cells)
    corners = {cell: k for k, cell in enumerate(corner_cells(n))}
    group = np.full((d, d), -1)  # own groups: label per cell, and the corners and sides each touches
    touches: list[set[tuple[str, int]]] = []
    for start in zip(*np.nonzero(board == me + 1)):
        if group[start] >= 0:
            continue
        group[start], todo, found = len(touches), [start], set()
        while todo:
            r, c = todo.pop()
            found.add(("corner", corners[(r, c)]) if (r, c) in corners else ("side", side_of(n, r, c)))
            for dr, dc in ((-1, 0), (-1, 1), (0, 1), (1, 0), (1, -1), (0, -1)):
                q = (r + dr, c + dc)
                if 0 <= q[0] < d and 0 <= q[1] < d and board[q] == me + 1 and group[q] < 0:
                    group[q] = group[start]
                    todo.append(q)
        touches.append(found)
    keys = []
    for a in legal:
        r, c = divmod(int(a), d)
        joined = {
            group[r + dr, c + dc]
            for dr, dc in ((-1, 0), (-1, 1), (0, 1), (1, 0), (1, -1), (0, -1))
            if 0 <= r + dr < d and 0 <= c + dc < d and group[r + dr, c + dc] >= 0
        }
        found = set().union(*(touches[g] for g in joined)) | {
            ("corner", corners[(r, c)]) if (r, c) in corners else ("side", side_of(n, r, c))
        }
        found.discard(("side", -1))
        corner_count = sum(kind == "corner" for kind, _ in found)
        progress = max(corner_count / 2, (len(found) - corner_count) / 3)  # of a bridge, of a fork
        centre = max(abs(r - (n - 1)), abs(c - (n - 1)), abs(r + c - 2 * (n - 1)))
        keys.append((round(progress, 6), len(joined), -centre))
    return agent.pick(legal, keys)


# the heuristic of each game, by registry name
HEURISTICS: dict[str, Callable[[GreedyAgent, Any, Legal], int]] = {
    "tictactoe": tictactoe_move,
    "connect_four": connect_four_move,
    "othello": othello_move,
    "hex": hex_move,
    "go": go_move,
    "breakthrough": breakthrough_move,
    "havannah": havannah_move,
}
