"""The games fuzzed (every game of zerogym.registry.GAMES, or those of --games) and the kwargs of each."""

import sys

# rule variants fuzzed besides the sizes and switches every game of the registry is probed at
# (game_configs); a game that is not named here is fuzzed at those alone
VARIANTS = (
    ("go", {"board_size": 7, "komi": 0.5}),
    ("go", {"board_size": 9, "superko": "simple"}),
    ("go", {"board_size": 9, "max_moves": 30}),
    ("connect_four", {"rows": 4, "cols": 5, "connect": 3}),
    ("connect_four", {"rows": 1, "cols": 3, "connect": 2}),
    ("connect_four", {"rows": 10, "cols": 12, "connect": 5}),
    ("tictactoe", {"board_size": 4, "win_length": 3}),
    ("tictactoe", {"board_size": 15, "win_length": 5}),
)
GAME_WEIGHT = 12.0  # every game gets the same share of the inputs of a state target
_SELECTED = None  # --games: the games fuzzed (None: every game of zerogym.registry.GAMES)
_CONFIGS = {}  # games() -> (the rows of game_configs(), the board cells of each)


def select_games(text):
    """Fuzz only the games named in `text` (comma-separated; None: every game)."""
    global _SELECTED
    if not text:
        _SELECTED = None
        return
    from zerogym.registry import GAMES

    names = tuple(g.strip() for g in text.split(",") if g.strip())
    bad = [g for g in names if g not in GAMES]
    if bad or not names:
        sys.exit(f"fuzz: unknown games {bad}; choose from {', '.join(GAMES)}")
    _SELECTED = names


def games():
    """The games fuzzed: --games, or every game of zerogym.registry.GAMES (a new game is fuzzed as it is added)."""
    from zerogym.registry import GAMES

    return tuple(g for g in GAMES if _SELECTED is None or g in _SELECTED)


def games_option():
    """The --games text of the games fuzzed now (None: every game), as a finding's info.json keeps it for replay."""
    return ",".join(_SELECTED) if _SELECTED else None


def config_label(game, kwargs):
    return game + ("(" + ", ".join(f"{k}={v}" for k, v in kwargs.items()) + ")" if kwargs else "")


def probed_kwargs(game):
    """Kwargs of `game` found from its make_spec signature alone: the defaults; each int kwarg at its
    smallest, second smallest, a middle and its largest accepted value in 1..40 (with the GameInfo's
    size_probe where the value is refused alone); each bool kwarg flipped, at the defaults and at the
    smallest size."""
    import importlib
    import inspect
    from zerogym.gamedocs import _accepts
    from zerogym.registry import game_info, game_module

    core = importlib.import_module(game_module(game).raw_env.state_class.__module__)
    params = inspect.signature(core.make_spec).parameters.values()
    defaults = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}
    probe = game_info(game).size_probe
    found = [{}]
    smallest = {}
    for name, default in defaults.items():
        if isinstance(default, bool) or not isinstance(default, int):
            continue
        ok = []
        for v in range(1, 41):
            for kw in ({name: v}, {**probe, name: v}):
                if _accepts(game, kw):
                    ok.append(kw)
                    break
        if not ok:
            continue
        smallest = smallest or ok[0]
        for i in sorted({0, 1, len(ok) // 3, len(ok) - 1}):
            if i < len(ok) and ok[i] not in found:
                found.append(ok[i])
    for name, default in defaults.items():
        if isinstance(default, bool):
            for base in ({}, smallest):
                kw = {**base, name: not default}
                if kw not in found and _accepts(game, kw):
                    found.append(kw)
    return found


def game_configs():
    """(game, kwargs, weight) of every game fuzzed: probed_kwargs and VARIANTS; big boards are rarer (their
    blobs are long and their games slow to play out), and the weights of each game add up to GAME_WEIGHT."""
    key = games()
    if key not in _CONFIGS:
        from zerogym.gamedocs import _accepts
        from zerogym.registry import make_state

        out = []
        for game in key:
            kws = probed_kwargs(game) + [kw for g, kw in VARIANTS if g == game and _accepts(game, kw)]
            rows, seen = [], set()
            for kw in kws:
                spec = make_state(game, **kw).spec
                h, w, _ = spec.obs_shape
                if repr(spec.kwargs) not in seen:  # the same game twice (a value that is the default)
                    seen.add(repr(spec.kwargs))
                    rows.append((kw, 3.0 if h * w <= 49 else 2.0 if h * w <= 169 else 1.0, h * w))
            total = sum(r[1] for r in rows)
            out += [(game, kw, GAME_WEIGHT * wt / total, cells) for kw, wt, cells in rows]
        _CONFIGS[key] = tuple((g, kw, wt) for g, kw, wt, _ in out), tuple(c for *_, c in out)
    return _CONFIGS[key][0]


def config_cells(i):
    """The board cells of game_configs()[i]."""
    game_configs()
    return _CONFIGS[games()][1][i]
