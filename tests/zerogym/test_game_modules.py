"""One place per game: everything the Python side knows of a game is in its own module.

A game is named (its registry name as a string, e.g. "go" or "go_v0") only in its compiled core
(zerogym/_core/<game>.pyx), its module (zerogym/envs/<game>.py: the env class and its GameInfo), the
registry, and, on the agents' side, the greedy heuristics' table and two tables of rows per game (the
speed table of `zerogym bench`, the shipped agents' training recipes).  So adding a game touches those
files and no other, and a new branch on a game's name anywhere else fails here.

What counts as naming a game: in zerogym/ (and in every .pyx), any string equal to the name outside
docstrings and comments.  In zerogym_agents/, a string used to decide something (a comparison, a
membership test, a table's key or element, an index); a name passed as a value (a call's argument,
a default, a dict's value: the game a demo or a config starts with, Go for the Go-only GTP
commands) decides nothing and does not count.  The Go Text Protocol, GNU Go and SGF exist for Go
alone: the files that speak them may check that a game is Go.
"""

import ast
import pathlib
import re

import pytest

import zerogym
from zerogym.registry import game_info

ROOT = pathlib.Path(__file__).resolve().parents[2]
GAMES = list(zerogym.GAMES)
# Go-only by nature: the GTP engine, GNU Go (the agent and its spec), SGF records of the arena
GO_PROTOCOLS = {
    "zerogym_agents/cli/gtp.py",
    "zerogym_agents/agents/gnugo.py",
    "zerogym_agents/agents/specs.py",
    "zerogym_agents/arena/report.py",
}
GREEDY = "zerogym_agents/agents/greedy.py"
# a row per game, where a game has one: the speed table of `zerogym bench`, the shipped agents' recipes
ROWS = {"zerogym_agents/cli/bench.py", "zerogym_agents/alphazero/recipes.py"}


def strings(tree, values_count):
    """The string constants of a parsed module, docstrings left out; with values_count=False also
    those passed or stored as a plain value (see the module docstring)."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skip.add(id(node.value))  # docstrings and other bare strings
        if values_count:
            continue
        if isinstance(node, ast.Call):
            skip.update(id(a) for a in node.args)
        elif isinstance(node, ast.keyword):
            skip.add(id(node.value))
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.Return)) and node.value is not None:
            skip.add(id(node.value))
        elif isinstance(node, ast.Dict):
            skip.update(id(v) for v in node.values)
        elif isinstance(node, ast.arguments):
            skip.update(id(d) for d in node.defaults + node.kw_defaults if d is not None)
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
    }


def names_in(path, text):
    """The games `path` (relative to the repository, source `text`) names, by the rules above."""
    if path.endswith(".pyx"):
        quoted = set(re.findall(r"[\"']([a-z_0-9]+)[\"']", text))
    else:
        quoted = strings(ast.parse(text), values_count=path.startswith("zerogym/"))
    return {game for game in GAMES if game in quoted or f"{game}_v0" in quoted}


def mentions():
    """{game: set of files (relative paths) of zerogym/ and zerogym_agents/ that name it}."""
    found = {game: set() for game in GAMES}
    for package in ("zerogym", "zerogym_agents"):
        for path in sorted((ROOT / package).rglob("*")):
            if path.suffix not in (".py", ".pyx") or "__pycache__" in path.parts:
                continue
            rel = path.relative_to(ROOT).as_posix()
            for game in names_in(rel, path.read_text()):
                found[game].add(rel)
    return found


def greedy_games():
    """The games of the greedy heuristics' table (read from the source: the environments' tests
    import nothing from the agents)."""
    tree = ast.parse((ROOT / GREEDY).read_text())
    table = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(getattr(t, "id", None) == "HEURISTICS" for t in node.targets)
        or isinstance(node, ast.AnnAssign)
        and getattr(node.target, "id", None) == "HEURISTICS"
    )
    return {key.value for key in table.keys}


def own_files(game):
    """The files allowed to name `game`: its compiled core, its module, the registry, the greedy
    table if it has a heuristic there, the tables of ROWS where it has a row, and for Go the Go-only
    protocols."""
    files = {f"zerogym/_core/{game}.pyx", f"zerogym/envs/{game}.py", "zerogym/registry.py"}
    files |= {path for path in ROWS if game in names_in(path, (ROOT / path).read_text())}
    if game in greedy_games():
        files.add(GREEDY)
    if game == "go":
        files |= GO_PROTOCOLS
    return files


@pytest.mark.parametrize("game", GAMES)
def test_a_game_is_named_only_in_its_own_files(game):
    assert mentions()[game] == own_files(game)


def test_the_table_of_each_games_files():
    # the table as it stands; own_files says why each file is in it
    table = {game: sorted(files) for game, files in mentions().items()}
    bench, recipes = sorted(ROWS)[::-1]
    core = {
        game: [f"zerogym/_core/{game}.pyx", f"zerogym/envs/{game}.py", "zerogym/registry.py", GREEDY, bench]
        for game in ("othello", "hex", "connect_four", "tictactoe", "breakthrough", "havannah")
    }
    core["tictactoe"].append(recipes)
    core["connect_four"].append(recipes)
    assert table == {
        "go": sorted(
            ["zerogym/_core/go.pyx", "zerogym/envs/go.py", "zerogym/registry.py", GREEDY, bench, *GO_PROTOCOLS]
        ),
        **{game: sorted(files) for game, files in core.items()},
    }


def test_the_rules_find_branches_and_pass_over_docs_and_values():
    source = '''"""The go game."""
def f(spec, game="hex"):
    """Plays "othello"."""
    # "tictactoe" in a comment
    if spec.name == "go":
        return make("connect_four", players={"first": "hex"})
    return {"othello": 1}[game] if game in ("tictactoe_v0",) else None
'''
    assert names_in("zerogym_agents/x.py", source) == {"go", "othello", "tictactoe"}
    assert names_in("zerogym/x.py", source) == {"go", "hex", "othello", "tictactoe", "connect_four"}
    assert names_in("zerogym/_core/x.pyx", 'spec.describe("hex", ...)  # go') == {"hex"}


@pytest.mark.parametrize("game", GAMES)
def test_every_game_module_gives_what_the_shared_code_asks(game):
    info = game_info(game)
    module = zerogym.registry.game_module(game)
    assert info is module.raw_env.game_info and info.name == game
    assert info.title and info.example is not None and len(info.player_words) == 2
    assert info.column_labels in ("letters", "lowercase", "numbers")
    assert info.colours is None or len(info.colours) == 2
    env = zerogym.make(game, **info.example.kwargs)
    assert type(env.unwrapped).__module__ == f"zerogym.envs.{game}"
    assert game_info(env.unwrapped.state.spec) is info


@pytest.mark.parametrize(
    "game,kw",
    [("go", {"board_size": 5}), ("othello", {"board_size": 6}), ("hex", {"board_size": 4}), ("tictactoe", {})],
)
def test_the_defaults_serve_a_new_game_of_cells(game, kw):
    # a game module that sets only its name, title and example gets working coordinates, text,
    # pictures and play lines from GameInfo's defaults
    from zerogym import render
    from zerogym.envs.game_info import Example, GameInfo

    class Plain(GameInfo):
        name, title, example = game, "Plain", Example(kw, "", "")

    info, st = Plain(), zerogym.make_state(game, **kw)
    while not st.is_over():
        st.step(int(st.legal_actions()[0]))
    spec = st.spec
    for a in range(spec.num_actions):
        assert info.parse_action(spec, info.format_action(spec, a)) == a
    assert info.format_action(spec, 0) == "A1" and "a column letter" in info.input_help(spec)
    assert render.text_board(st, **info.text_style).splitlines()[-1].endswith("game over")
    items, background = info.scene_items(st.board(), render.last_point(st), 20.0, True, info.row0_at_bottom)
    assert len(background) == 3 and {item[0] for item in items} >= {"rect", "disc", "text"}
    assert info.rules_line(st).endswith(".") and info.score_lines(st)
    assert info.player_name(0) == "black (X)" and info.swap_line("bot", spec, []) == "bot swaps."
