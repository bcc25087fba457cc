"""The pages of docs/games/, generated from the code: an index (README.md) and one page per game with
its rules (the env module's docstring), an AEC loop, the action names, observation planes, illegal-move
reasons and symmetries of the game spec, and a picture (img/<game>.png, render_mode="rgb_array") of the
example its GameInfo gives (zerogym.envs.game_info.Example).

This module makes the text and the pictures and writes nothing; scripts/gamedocs.py of a source checkout
writes them into its docs/games/, or checks that they match.
"""

from __future__ import annotations

import importlib
import inspect
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from zerogym.coords import format_action, input_help, parse_action
from zerogym.registry import GAMES, game_info, game_module, make_state

if TYPE_CHECKING:
    from zerogym._core.spec import GameSpec
    from zerogym._types import Example
    from zerogym.envs.base import ClassicWrapper

SIZE_KWARGS = ("board_size", "rows", "cols")
WRITER = "python scripts/gamedocs.py"  # the command that writes the pages, as they name it


def example(game: str) -> Example:
    """The game's docs example (its GameInfo's Example)."""
    return game_info(game).example


# ---- what the code says ------------------------------------------------------------------------
def module_name(game: str) -> str:
    return GAMES[game].split(".")[-1]


def _docstring(game: str) -> str:
    """The docstring of the game's env module (zerogym.<game>_v0): its rules."""
    return game_module(game).__doc__ or ""


def title(game: str) -> str:
    """The game's name, from the first line of its module docstring ("Tic-tac-toe / Gomoku")."""
    return _docstring(game).split(" AEC environment")[0]


# the same for every game (zerogym.envs.base): appended to each page's rules
ILLEGAL_MOVES = """Illegal moves: `raw_env()` raises `IllegalMoveError` (a `ValueError` naming the move, the player and
the reason) and changes nothing. `env()` follows PettingZoo's classic convention: an illegal move
ends the game with -1 for the offender and 0 for the other agent, and info `illegal_move` says why;
`env(illegal="raise")` raises instead. An action that is not an int in range always raises."""


def rules(game: str) -> str:
    """The page's rules: the env module's docstring, and what an illegal move does."""
    return inspect.cleandoc(_docstring(game)) + "\n\n" + ILLEGAL_MOVES


def signature(game: str) -> inspect.Signature:
    """The game's keyword arguments with their defaults, as in its make_spec."""
    core = importlib.import_module(game_module(game).raw_env.state_class.__module__)
    return inspect.signature(core.make_spec)


def example_env(game: str, **options: Any) -> ClassicWrapper:
    """The example's env (its GameInfo's Example kwargs), with `options` (render_mode=...)."""
    return game_module(game).env(**example(game).kwargs, **options)


def spec_of(game: str) -> GameSpec:
    """The GameSpec of the example's env."""
    return example_env(game).unwrapped.state.spec


def _accepts(game: str, kwargs: dict[str, Any]) -> bool:
    try:
        make_state(game, **kwargs)
    except ValueError:
        return False
    return True


def _span(values: list[int]) -> str:
    """ "2..25", "4..16, even" for a sorted run of ints."""
    if values == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}..{values[-1]}"
    parity = "even" if values[0] % 2 == 0 else "odd"
    return f"{values[0]}..{values[-1]}, {parity}"


def board_sizes(game: str) -> str:
    """The sizes each size kwarg accepts, one at a time, e.g. "`board_size` 2..25"."""
    probe = game_info(game).size_probe
    parts = []
    for name in signature(game).parameters:
        if name in SIZE_KWARGS:
            ok = [v for v in range(1, 41) if _accepts(game, {**probe, name: v})]
            parts.append(f"`{name}` {_span(ok)}")
    return ", ".join(parts)


def action_count(spec: GameSpec) -> str:
    """How many actions, as a formula of the board, e.g. "`N*N + 1` (the last: pass)"."""
    h, w, _ = spec.obs_shape
    if spec.action_kind == "cell_moves":
        return f"`rows * cols * {spec.actions_per_cell}` ({spec.actions_per_cell} moves from each cell)"
    if spec.num_actions == h * w + 1:
        return f"`N*N + 1` (the last: {format_action(spec, h * w)})"
    if spec.num_actions == h * w:
        return "`N*N`"
    return "`cols` (one per column)"


def example_actions(spec: GameSpec) -> list[int]:
    """A few actions to show: the first two, the start of row 2, the last point, pass/swap, the last."""
    h, w, _ = spec.obs_shape
    n = spec.num_actions
    if spec.action_kind == "cell_moves":  # the first mover's first moves, then the last action
        return sorted({0, *make_state(spec.name, **spec.kwargs).legal_actions()[:4].tolist(), n - 1})
    return sorted(a for a in {0, 1, w, h * w - 1, h * w, n - 1} if a < n)


def _code(value: object) -> str:
    """`value` as Python source, strings in double quotes."""
    return f'"{value}"' if isinstance(value, str) else repr(value)


def _call(game: str, **options: Any) -> str:
    """The example's env() call as Python source, e.g. 'go_v0.env(board_size=9, render_mode="ansi")'."""
    kwargs = {**example(game).kwargs, **options}
    return f"{module_name(game)}.env({', '.join(f'{k}={_code(v)}' for k, v in kwargs.items())})"


def example_code(game: str) -> str:
    """The page's AEC loop: a random legal game of `game` to the end."""
    return "\n".join(
        [
            f"from zerogym import {module_name(game)}",
            "",
            f"env = {_call(game, render_mode='ansi')}",
            "env.reset(seed=0)",
            "for agent in env.agent_iter():",
            "    obs, reward, termination, truncation, info = env.last()",
            '    action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])',
            "    env.step(action)",
            example(game).result,
        ]
    )


def picture(game: str) -> npt.NDArray[np.uint8]:
    """The page's picture: the example moves played in an env(render_mode="rgb_array"), rendered."""
    env = example_env(game, render_mode="rgb_array")
    env.reset()
    for move in example(game).moves.split():
        env.step(parse_action(env, move))
    return env.render()


# ---- pages --------------------------------------------------------------------------------------
def actions_section(game: str, spec: GameSpec) -> list[str]:
    """The page's Actions section, line by line."""
    lines = [
        "## Actions",
        "",
        f"`{_call(game)}` has {spec.num_actions} actions: {action_count(spec)}. A person types a move as "
        f"{input_help(spec)}: `zerogym.coords.format_action(env, action)` gives that name and "
        "`parse_action(env, text)` the action; error messages use `spec.action_name(action)`.",
        "",
        "| action | `format_action` | `spec.action_name` |",
        "|---|---|---|",
    ]
    lines += [f"| {a} | {format_action(spec, a)} | {spec.action_name(a)} |" for a in example_actions(spec)]
    return lines


def observation_section(spec: GameSpec) -> list[str]:
    """The page's Observation section, line by line."""
    h, w, c = spec.obs_shape
    lines = [
        "## Observation",
        "",
        f'`obs["observation"]` is int8 `({h}, {w}, {c})`, seen from the agent it is for; '
        f'`obs["action_mask"]` is int8 `({spec.num_actions},)`, all zero for an agent that is not to move. '
        "`env.unwrapped.state.encode()` gives the mover's planes as float32 `(C, H, W)` for a network.",
        "",
        "| plane | name | meaning |",
        "|---|---|---|",
    ]
    lines += [f"| {i} | `{name}` | {meaning} |" for i, (name, meaning) in enumerate(spec.plane_info)]
    return lines


def render_game(game: str) -> str:
    """The markdown page of `game`."""
    spec = spec_of(game)
    lines = [
        f"# {title(game)} (`{module_name(game)}`)",
        "",
        f"[All games](README.md) · generated from the code by `{WRITER}`.",
        "",
        "## Rules",
        "",
        rules(game),
        "",
        "## An AEC loop",
        "",
        "A random legal game to the end (`env.action_space(agent).sample(mask)` draws a legal action):",
        "",
        "```python",
        example_code(game),
        "```",
        "",
    ]
    lines += actions_section(game, spec) + [""] + observation_section(spec) + [""]
    lines += [
        "## Illegal-move reasons",
        "",
        "The reasons `IllegalMoveError` messages (and `state.illegal_reason(action)`) give:",
        "",
    ]
    lines += [f"- {reason}" for reason in spec.reasons[1:]]
    lines += [
        "",
        "## Symmetries",
        "",
        f"{len(spec.symmetry_names)} board transforms keep the rules (`env.unwrapped.state.symmetries()`, "
        f"for data augmentation): {', '.join(f'`{n}`' for n in spec.symmetry_names)}.",
        "",
        "## Picture",
        "",
        f"The position after `{example(game).moves}` (each move played by `env.step(parse_action(env, move))`), "
        f"drawn by `env.render()` of `{_call(game, render_mode='rgb_array')}`:",
        "",
        f"![{title(game)} after {example(game).moves}](img/{game}.png)",
        "",
    ]
    return "\n".join(lines)


def render_index() -> str:
    """The markdown index of docs/games/: a table of every game."""
    lines = [
        "# Games",
        "",
        "Every game is a PettingZoo AEC environment, `zerogym.<game>_v0.env(**kwargs)` or "
        "`zerogym.make(game, **kwargs)`, for two agents that take turns. Rewards are 0 until the end, "
        "then +1 for the winner, -1 for the loser and 0 for a draw. Each page gives the rules, an AEC loop, "
        "the actions, observation planes, illegal-move reasons, symmetries and a picture.",
        "",
        f"Generated from the code by `{WRITER}`; `{WRITER} --check` and the tests check that the pages match it.",
        "",
        "| game | `make` name | keyword arguments (defaults) | board sizes | actions | page |",
        "|---|---|---|---|---|---|",
    ]
    for game in GAMES:
        kwargs = ", ".join(f"`{p.name}={_code(p.default)}`" for p in signature(game).parameters.values())
        spec = make_state(game).spec
        lines.append(
            f"| {title(game)} | `{game}` | {kwargs} | {board_sizes(game)} | "
            f"{action_count(spec)}; {spec.num_actions} at the defaults | [{game}.md]({game}.md) |"
        )
    return "\n".join(lines + [""])


def pages() -> dict[str, str]:
    """{file name under docs/games/: markdown} of the index and of every game's page."""
    out = {"README.md": render_index()}
    out.update({f"{game}.md": render_game(game) for game in GAMES})
    return out


def pictures() -> dict[str, npt.NDArray[np.uint8]]:
    """{file name under docs/games/: RGB array} of every game's picture."""
    return {f"img/{game}.png": picture(game) for game in GAMES}
