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
]


def case_id(case):
    game, kwargs = case
    return game + "".join(f"-{k}{v}" for k, v in kwargs.items())
