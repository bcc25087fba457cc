"""Writes docs/games.md from the game specs, so the documented encodings are the code's.

python -m zerogym.gamedocs > docs/games.md
"""
import importlib

from zerogym.registry import GAMES

EXAMPLE_KWARGS = {"go": {"board_size": 9}, "othello": {"board_size": 8}, "hex": {"board_size": 11},
                  "connect_four": {}, "tictactoe": {}}


def game_section(name):
    module = importlib.import_module(GAMES[name])
    raw = module.raw_env(**EXAMPLE_KWARGS[name])
    st = raw.state
    spec = st.spec
    h, w, c = spec.obs_shape
    n_act = spec.num_actions
    kw = ", ".join(f"{k}={v!r}" for k, v in spec.kwargs.items())
    lines = [f"## `{GAMES[name].split('.')[-1]}`", "", (module.__doc__ or "").strip(), "",
             f"Example below: `{kw}`. Agents: {', '.join(f'`{a}`' for a in spec.agents)} (first moves first).", "",
             f"**Actions** ({n_act}): "
             + ", ".join(f"{a} = {spec.action_name(a)}" for a in sorted({0, 1, w, n_act - 1}) if a < n_act) + ".", "",
             f"**Observation**: int8 `({h}, {w}, {c})` seen from the observing agent; planes:", "",
             "| plane | name | meaning |", "|---|---|---|"]
    lines += [f"| {i} | {p} | {d} |" for i, (p, d) in enumerate(spec.plane_info)]
    lines += ["", "**Illegal-move reasons** (in `IllegalMoveError` messages): "
              + "; ".join(f"*{r}*" for r in spec.reasons[1:]) + ".", "",
              f"**Symmetries** ({len(spec.symmetry_names)}): {', '.join(spec.symmetry_names)}.", ""]
    return "\n".join(lines)


def render():
    head = ["# Games", "", "Generated from the code by `python -m zerogym.gamedocs > docs/games.md`;",
            "a test checks that this page matches the code.", ""]
    return "\n".join(head + [game_section(g) for g in GAMES])


if __name__ == "__main__":
    print(render(), end="")
