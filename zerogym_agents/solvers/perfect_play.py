"""A perfect-play yardstick: how often an agent keeps the game-theoretic value of solved positions.

A position set is a JSON file (benchmarks/data/connect_four_positions.json) whose "positions" each
give the moves from the start ("4453...": columns 1..7), the value for the player to move
(+1 / 0 / -1) and the value of every move for that player (null where the column is full).  An
agent keeps the value when its move has the position's value: a won position stays won, a drawn
one is not lost.  Lost positions are counted but not scored (every move keeps a loss).
decisive_mistake() finds, in a whole game, the move with which a player gave its result away.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

import zerogym
from zerogym_agents.solvers.connect_four import STANDARD, ConnectFourSolver

Position = dict[str, Any]  # one position of a set: {"moves", "value", "move_values"}


class Player(Protocol):
    """What keeps_value plays: an agent's act(env) -> its move (reset(), when it has one, is called first)."""

    def act(self, env: Any) -> int: ...


def load_positions(path: str | os.PathLike[str]) -> list[Position]:
    """The list of positions of a position-set file, checked."""
    with open(path) as f:
        data = json.load(f)
    positions = data.get("positions") if isinstance(data, dict) else None
    if not isinstance(positions, list) or not positions:
        raise ValueError(f"{path}: a position set is a JSON object with a non-empty list 'positions'")
    for i, p in enumerate(positions):
        values = p.get("move_values") if isinstance(p, dict) else None
        if (
            not isinstance(p.get("moves"), str)
            or p.get("value") not in (-1, 0, 1)
            or not isinstance(values, list)
            or len(values) != STANDARD.num_actions
            or max(v for v in values if v is not None) != p["value"]
        ):
            raise ValueError(
                f"{path}: position {i} needs 'moves' (column digits 1..7), 'value' in -1/0/1 and "
                f"'move_values' ({STANDARD.num_actions} values or null, the best equal to 'value')"
            )
    return positions


def keeps_value(
    agent: Player,
    positions: Sequence[Position],
    seed: int = 0,
    progress: Callable[[Sequence[Position]], Iterable[Position]] | None = None,
) -> dict[str, Any]:
    """Play `agent` once in every position; returns {"won": {...}, "drawn": {...}, "lost": n, "moves": [...]}.

    "won" and "drawn" hold n (positions), kept (moves that keep the value), critical (positions where
    some legal move gives the value away) and kept_critical.  "moves" lists the agent's column per
    position (None in lost ones, where it does not play).  progress: an optional wrapper of the iteration (e.g. tqdm).
    """
    counts = {name: {"n": 0, "kept": 0, "critical": 0, "kept_critical": 0} for name in ("won", "drawn")}
    lost = 0
    moves: list[int | None] = []
    env = zerogym.make(STANDARD.name, **STANDARD.kwargs)
    items = positions if progress is None else progress(positions)
    for i, p in enumerate(items):
        if p["value"] < 0:  # nothing to keep: the agent does not play there
            lost += 1
            moves.append(None)
            continue
        env.reset(seed=seed + i)
        for ch in p["moves"]:
            env.step(int(ch) - 1)
        if hasattr(agent, "reset"):
            agent.reset()
        a = int(agent.act(env))
        moves.append(a)
        c = counts["won" if p["value"] > 0 else "drawn"]
        kept = p["move_values"][a] == p["value"]
        critical = any(v is not None and v != p["value"] for v in p["move_values"])
        c["n"] += 1
        c["kept"] += kept
        c["critical"] += critical
        c["kept_critical"] += kept and critical
    return {**counts, "lost": lost, "moves": moves}


def decisive_mistake(solver: ConnectFourSolver, actions: Sequence[int], side: int, start: int = 0) -> int | None:
    """Where `side` (0: the first player, 1: the second) gave its result away in a finished game of
    standard Connect Four, `actions` (columns 0..6) from the empty board.

    Returns the index in `actions` of the side's last move made from a position worth more to it,
    with perfect play, than the game's result (a drawn or won position in a lost game, a won one in
    a drawn game); None when there is none (a won game, or one whose result the side could not
    improve on from its first move).  Moves before `start` (an opening) are not the side's choices.
    The opponent's moves can only raise a position's value, so that move is the one that lowered it
    for the last time.  `solver`: a ConnectFourSolver (positions after only a few moves take minutes).
    """
    from zerogym_agents.solvers.connect_four import state_from_moves

    if side not in (0, 1):
        raise ValueError(f"side must be 0 (the first player) or 1, got {side!r}")
    final = state_from_moves(actions)
    if not final.is_over():
        raise ValueError(f"the game is not over after its {len(actions)} moves")
    result = 0 if final.winner < 0 else (1 if final.winner == side else -1)
    if result == 1:
        return None
    for i in reversed(range(start, len(actions))):
        if i % 2 == side and solver.value(state_from_moves(actions[:i])) > result:
            return i
    return None
