"""Shared test cases: every game at a few sizes (importable: tests/ is on pytest's pythonpath)."""

GAME_CASES = [
    ("go", {"board_size": 5}),
    ("go", {"board_size": 9}),
    ("othello", {"board_size": 6}),
    ("hex", {"board_size": 5}),
    ("hex", {"board_size": 4, "swap": False}),
    ("connect_four", {}),
    ("connect_four", {"rows": 5, "cols": 4, "connect": 3}),
    ("tictactoe", {}),
    ("tictactoe", {"board_size": 7, "win_length": 4}),
    ("havannah", {"board_size": 4}),
    ("havannah", {"board_size": 6, "swap": True}),
    ("breakthrough", {"rows": 6, "cols": 6}),
    ("breakthrough", {"rows": 5, "cols": 4}),
]


def case_id(case):
    game, kwargs = case
    return game + "".join(f"-{k}{v}" for k, v in kwargs.items())


def padding_filled(state, byte):
    """state's blob with every byte that no field of spec.layout covers (alignment gaps, the
    header's spare word) set to `byte`: a valid blob whose padding is not zero."""
    import numpy as np

    used = np.zeros(state.spec.state_bytes, bool)
    for off, dtype, count in state.spec.layout.values():
        used[off : off + np.dtype(dtype).itemsize * count] = True
    blob = np.frombuffer(state.to_bytes(), np.uint8).copy()
    blob[~used] = byte
    return blob.tobytes()


def poke(blob, spec, field, value, index=0):
    """A copy of `blob` with element `index` of `field` (a name in spec.layout) set to `value`;
    for a structured field, `value` is a dict of its members to set."""
    import numpy as np

    off, dtype, count = spec.layout[field]
    assert 0 <= index < count, (field, index, count)
    buf = bytearray(blob)
    arr = np.frombuffer(buf, np.dtype(dtype), count, off)
    arr.flags.writeable = True
    if isinstance(value, dict):
        for k, v in value.items():
            arr[index][k] = v
    else:
        arr[index] = np.array(value).astype(arr.dtype)
    return bytes(buf)


def peek(blob, spec, field):
    """The elements of `field` (a name in spec.layout) in `blob`, as a numpy array."""
    import numpy as np

    off, dtype, count = spec.layout[field]
    return np.frombuffer(blob, np.dtype(dtype), count, off).copy()


# ---- the PettingZoo envs --------------------------------------------------------------------------
def black_plays_d2(env, colour, ones):
    """Plays black's first stone at D2 (row 1, column 3) on a 5x5 board and checks both sides' views:
    white to move, the stone in black's plane 0 and white's plane 1, plane `colour` all 1 for black
    only, plane `ones` all 1 for both, no legal move for black. Returns (black's, white's) observation."""
    env.step(1 * 5 + 3)
    ob, ow = env.observe("black_0"), env.observe("white_0")
    assert env.agent_selection == "white_0"
    assert ob["observation"][1, 3, 0] == 1 and ob["observation"][1, 3, 1] == 0
    assert ow["observation"][1, 3, 1] == 1 and ow["observation"][1, 3, 0] == 0
    assert (ob["observation"][:, :, colour] == 1).all() and (ow["observation"][:, :, colour] == 0).all()
    assert (ob["observation"][:, :, ones] == 1).all() and (ow["observation"][:, :, ones] == 1).all()
    assert ob["action_mask"].sum() == 0
    return ob, ow


# ---- line games (Connect Four, Tic-tac-toe / Gomoku) ------------------------------------------------
def play_moves(state, moves):
    """`state` after `moves`, none of them played after the end."""
    for a in moves:
        assert not state.is_over(), f"game ended before {a} in {moves}"
        state.step(a)
    return state


def lines_of(board, k):
    """Colours (1/2) with k or more in a row anywhere (brute force, independent of the game code)."""
    h, w = board.shape
    found = set()
    for r in range(h):
        for c in range(w):
            v = board[r, c]
            if not v:
                continue
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                n, rr, cc = 0, r, c
                while 0 <= rr < h and 0 <= cc < w and board[rr, cc] == v:
                    n, rr, cc = n + 1, rr + dr, cc + dc
                if n >= k:
                    found.add(int(v))
    return found


def assert_status_matches_lines(s, k):
    """`s`'s status agrees with a brute-force scan of its board for lines of `k`: won by the side that
    just moved exactly when it has such a line, drawn when the board is full without one, going on
    otherwise."""
    board = s.board()
    found, full = lines_of(board, k), bool((board != 0).all())
    if s.is_terminal() and s.winner >= 0:
        assert found == {s.winner + 1} and s.winner == 1 - s.current_player
    else:
        assert found == set() and full == s.is_terminal()


def assert_won(s, winner):
    """`s` is over, won by `winner` (0 or 1): returns, no legal move, the reason an action is refused."""
    assert s.is_terminal() and s.is_over() and not s.is_truncated()
    assert s.winner == winner
    assert s.returns() == ((1.0, -1.0) if winner == 0 else (-1.0, 1.0))
    assert s.legal_mask().sum() == 0 and len(s.legal_actions()) == 0
    assert s.illegal_reason(0) == "the game is over"
