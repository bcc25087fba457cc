"""The transfer experiment's report: Elo curves (a table and a plot) and a data-driven summary."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np


def board(game: str, n: int) -> str:
    """How a board_size reads: "9x9", or "side 8" for a game whose board_size is not its grid's width
    (Havannah)."""
    import zerogym

    return f"{n}x{n}" if zerogym.make_state(game, board_size=n).spec.obs_shape[1] == n else f"side {n}"


START = {
    "scratch": "a fresh net of the source's shape",
    "finetune": "the source net",
    "composite": "ZetaGo composite around the frozen source net",
    "grown": "the source net grown by {g} blocks",
    "curriculum": "the source net, trained on {sizes} then {big}",
}

Data = dict[str, Any]  # the experiment's results (zerogym_agents.experiment.transfer)
Curves = dict[str, list[dict[str, Any]]]  # method -> its evaluation points (curves)


def _e(x: float) -> str:
    """An Elo figure with its sign ("+0", never "-0")."""
    return f"{round(x) + 0:+d}" if np.isfinite(x) else "nan"


def wdl(d: dict[str, int]) -> str:
    return f"{d['wins']}-{d['draws']}-{d['losses']}"


def score(d: dict[str, int]) -> float:
    games = d["wins"] + d["draws"] + d["losses"]
    return (d["wins"] + 0.5 * d["draws"]) / games if games else float("nan")


def curves(data: Data) -> Curves:
    """method -> its evaluation points, each with name, minutes, steps, board, elo, lo, hi, matches."""
    agents = (data.get("elo") or {}).get("agents", {})
    out: Curves = {}
    for method in [m for m in data["settings"]["methods"] if m in data["methods"]]:
        prog, points = data["methods"][method], []
        for ev in prog["evals"]:
            a = agents.get(ev["name"], {"elo": float("nan"), "halfwidth": float("nan")})
            points.append(
                {
                    "name": ev["name"],
                    "minutes": ev["seconds"] / 60,
                    "steps": ev["total_steps"],
                    "board": ev["board_size"],
                    "elo": a["elo"],
                    "lo": a["elo"] - a["halfwidth"],
                    "hi": a["elo"] + a["halfwidth"],
                    "final": ev["final"],
                    "matches": {m["agent_b"]: m for m in ev["matches"]},
                }
            )
        out[method] = points
    return out


def _compute(data: Data) -> str:
    b = data["budget"]
    if "parallel" not in b:
        return ""
    together = f"{b['parallel']} methods trained at once" if b["parallel"] > 1 else "one method at a time"
    n = b.get("torch_threads")
    return f"; {together}" + ("" if n is None else f", each on {n} torch thread{'s' if n > 1 else ''}")


def cpu_share(prog: dict[str, Any]) -> str:
    """CPU seconds the training process got per wall-clock second of training, as a percentage of one
    core ('-' for runs that did not measure it)."""
    wall = sum(st.get("cpu_wall_seconds", 0.0) for st in prog["stages"])
    return f"{100 * sum(st.get('cpu_seconds', 0.0) for st in prog['stages']) / wall:.0f}%" if wall else "-"


def _budget(data: Data) -> tuple[float, str]:
    s = data["settings"]
    return (s["steps"], "search steps") if s["steps"] is not None else (s["minutes"], "minutes")


def _where(point: dict[str, Any], data: Data) -> str:
    """'after X min of training (Y% of the compute)' for an evaluation point."""
    budget, unit = _budget(data)
    used = point["steps"] if unit == "search steps" else point["minutes"]
    if used == 0:
        return "at the start, before any training on the big board"
    what = f"{used} search steps" if unit == "search steps" else f"{used:.1f} min"
    return f"after {what} of training ({100 * used / budget:.0f}% of the compute)"


def reading(data: Data, cv: Curves) -> list[str]:
    """A list of sentences read off the data (nothing here is written by hand)."""
    s, lines = data["settings"], []
    big, small = board(data["game"], s["big_size"]), board(data["game"], data["small_size"])
    zs = data["zero_shot"]
    if zs:
        t = zs["match"]["total"]
        met = "met" if zs["score"] >= 0.9 else "**missed**"
        lines.append(
            f"Zero-shot: the {small} source net, unchanged, scored {100 * zs['score']:.0f}% against "
            f"Random on {big} ({wdl(t)} in {zs['games']} games, {zs['simulations']} simulations per "
            f"move); the target of at least 90% is {met}."
        )
    finals = {m: pts[-1] for m, pts in cv.items() if pts}
    if "scratch" in finals:
        target = finals["scratch"]["elo"]
        budget, unit = _budget(data)
        lines.append(f"Scratch went from {_e(cv['scratch'][0]['elo'])} at the start to {_e(target)} at the end.")
        fast = []
        for m, pts in cv.items():
            if m == "scratch" or not pts:
                continue
            hit = next((p for p in pts if p["elo"] >= target), None)
            if hit is not None:
                lines.append(f"**{m}** reached the scratch run's final Elo ({_e(target)}) {_where(hit, data)}.")
                used = hit["steps"] if unit == "search steps" else hit["minutes"]
                if used <= 0.5 * budget:
                    fast.append(m)
            else:
                lines.append(
                    f"**{m}** never reached the scratch run's final Elo ({_e(target)}) within the budget; "
                    f"it ended at {_e(pts[-1]['elo'])}."
                )
        lines.append(
            "Target, a transfer method at the scratch run's final strength in at most half its compute: "
            + (f"met ({', '.join(fast)})." if fast else "**missed**.")
        )
    if len(finals) >= 2:
        order = sorted(finals, key=lambda m: -finals[m]["elo"])
        a, b = finals[order[0]], finals[order[1]]
        overlap = a["lo"] <= b["hi"]
        lines.append(
            f"Strongest at the end: **{order[0]}** ({_e(a['elo'])}, 95% interval {_e(a['lo'])} .. "
            f"{_e(a['hi'])}); runner-up {order[1]} ({_e(b['elo'])}). "
            + (
                "Their intervals overlap, so these games do not separate them."
                if overlap
                else "Their intervals do not overlap."
            )
        )
    agents = (data.get("elo") or {}).get("agents", {})
    refs = [r for r in s["references"] if r in agents]
    if refs and finals:
        hardest = max(refs, key=lambda r: agents[r]["elo"])
        best = max(finals, key=lambda m: score(finals[m]["matches"][hardest]["total"]))
        t = finals[best]["matches"][hardest]["total"]
        if t["wins"] + t["draws"] == 0:
            lines.append(f"No method took a point from {hardest}, the strongest reference, in its final games.")
        else:
            lines.append(
                f"Against {hardest}, the strongest reference, the best final result is {best}'s "
                f"{wdl(t)} ({100 * score(t):.0f}%)."
            )
        if "gnugo:1" in refs:
            top = max(finals, key=lambda m: finals[m]["elo"])
            t = finals[top]["matches"]["gnugo:1"]["total"]
            lines.append(
                f"Target, the best {big} agent (highest final Elo: {top}) winning at least 50% against "
                f"GNU Go level 1, colours alternated: {t['wins']} of "
                f"{t['wins'] + t['draws'] + t['losses']} won, "
                f"{'met' if t['wins'] >= 0.5 * (t['wins'] + t['draws'] + t['losses']) else '**missed**'}."
            )
        if "random" in refs:
            weak = [m for m in finals if score(finals[m]["matches"]["random"]["total"]) < 0.9]
            if weak:
                lines.append(f"Below 90% against Random at the end: {', '.join(weak)}.")
    widths = [p["hi"] - p["lo"] for pts in cv.values() for p in pts if np.isfinite(p["hi"] - p["lo"])]
    if widths:
        lines.append(
            f"Each point played {s['eval_games']} games per reference ({s['final_games']} at the end), so a "
            f"single point's 95% interval is about ±{np.median(widths) / 2:.0f} Elo: read the curves' "
            f"trends, not single points."
        )
    if s["steps"] is not None and finals:
        lines.append(
            "The budget was counted in search steps, which cost differently per method: training took "
            + ", ".join(f"{m} {finals[m]['minutes']:.1f} min" for m in finals)
            + "."
        )
    return lines


def plot(data: Data, cv: Curves, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for method, pts in cv.items():
        x = [p["minutes"] for p in pts]
        (line,) = ax.plot(x, [p["elo"] for p in pts], marker="o", label=method)
        ax.fill_between(x, [p["lo"] for p in pts], [p["hi"] for p in pts], color=line.get_color(), alpha=0.12)
        stages = data["methods"][method]["stages"]
        for i in range(1, len(stages)):  # where a curriculum moves to the next board size
            switch = sum(st["seconds"] for st in stages[:i]) / 60
            ax.axvline(switch, color=line.get_color(), lw=0.8, ls=":")
            ax.annotate(
                board(data["game"], stages[i]["board_size"]),
                (switch, 0.02),
                fontsize=7,
                xycoords=("data", "axes fraction"),
                color=line.get_color(),
                xytext=(2, 0),
                textcoords="offset points",
            )
    agents = (data.get("elo") or {}).get("agents", {})
    for ref in data["settings"]["references"]:
        if ref in agents:
            ax.axhline(agents[ref]["elo"], color="grey", lw=0.8, ls="--")
            ax.annotate(
                ref,
                (1.0, agents[ref]["elo"]),
                xycoords=("axes fraction", "data"),
                fontsize=8,
                color="grey",
                xytext=(3, 0),
                textcoords="offset points",
                va="center",
            )
    s = data["settings"]
    ax.set_xlabel("training wall-clock minutes (evaluation not counted)")
    ax.set_ylabel(f"Elo ({data['anchor']} = 0)")
    ax.set_title(
        f"{data['game']} {board(data['game'], data['small_size'])} -> {board(data['game'], s['big_size'])}: "
        f"strength on {board(data['game'], s['big_size'])}"
    )
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _source_training(src: dict[str, Any]) -> str:
    t = (src.get("card") or {}).get("training") or {}
    parts = [
        f"{t[k]} {what}" for k, what in (("steps", "search steps"), ("self_play_games", "self-play games")) if k in t
    ]
    if "seconds" in t:
        parts.append(f"{t['seconds'] / 60:.0f} min")
    return f" ({', '.join(parts)})" if parts else ""


def markdown(data: Data, cv: Curves, plot_name: str) -> str:
    s = data["settings"]
    game = data["game"]
    big, small = board(game, s["big_size"]), board(game, data["small_size"])
    budget, unit = _budget(data)
    refs = s["references"]
    cur = data["curriculum"]
    lines = [f"# Board-size transfer: {game} {small} -> {big}", ""]
    if data.get("command"):
        lines += ["Command:", "", "```", data["command"], "```", ""]
    src = data["source"]
    lines += [
        "## Setup",
        "",
        f"- Source: `{s['source']}` ({src['describe']}), trained on {small}{_source_training(src)}.",
        f"- Budget: {budget:g} {unit} of training per method (wall clock of the trainer only; evaluation "
        f"games are not counted), the same AlphaZero config for every method (below)"
        + _compute(data)
        + ". *CPU share*: the CPU time each training process got per second of its "
        "budget (100% = one whole core), so that other load on the machine during a run shows.",
        f"- Methods: {', '.join(cv)}. Curriculum: "
        + (
            " -> ".join(board(game, n) for n in [data["small_size"], *cur["sizes"], s["big_size"]])
            + ", budget split "
            + " / ".join(f"{100 * x:.0f}%" for x in cur["split"])
            + " (the big board last)"
            if cur["sizes"]
            else "not run"
        )
        + ".",
        f"- Evaluation on {big}: AlphaZeroAgent with {s['simulations']} simulations per move (moves "
        f"sampled in proportion to visits before move {s['opening_moves']}, then the most visited) against "
        f"{', '.join(refs)}; {s['eval_games']} games per reference at the start, every "
        + (
            f"{s['eval_every_steps']} search steps"
            if s["steps"] is not None
            else f"{s['eval_every_minutes']:g} minutes of training"
        )
        + f" and at the end of every stage ({s['final_games']} at the very end); colours alternate.",
        "- Elo: maximum likelihood (Bradley-Terry) over every evaluation game of every run pooled"
        + (f" and {s['reference_games']} games per pair of references" if s["reference_games"] else "")
        + f", {data['anchor']} = 0, 95% intervals.",
        "",
    ]
    zs = data["zero_shot"]
    if zs:
        t = zs["match"]["total"]
        lines += [
            "## Zero-shot",
            "",
            f"The source net on {big} without training, against Random: **{wdl(t)}** "
            f"({100 * zs['score']:.0f}%, {zs['games']} games; first {wdl(zs['match']['a_first'])}, second "
            f"{wdl(zs['match']['b_first'])}). Target: at least 90%: "
            f"{'met' if zs['score'] >= 0.9 else 'missed'}.",
            "",
        ]
    lines += [
        "## Final results",
        "",
        "| method | start | net | training min | CPU share | search steps | self-play games | final Elo | "
        "95% interval | " + " | ".join(f"vs {r} (W-D-L)" for r in refs) + " |",
        "|---|---|---|---:|---:|---:|---:|---:|---|" + "---:|" * len(refs),
    ]
    for m, pts in cv.items():
        if not pts:
            continue
        prog, f = data["methods"][m], pts[-1]
        start = START[m].format(g=s["grow_blocks"], sizes=", ".join(board(game, n) for n in cur["sizes"]), big=big)
        games = sum(p["games"] for p in prog["stages"])
        lines.append(
            f"| {m} | {start} | {prog.get('net', '')} | {f['minutes']:.1f} | {cpu_share(prog)} | "
            f"{f['steps']} | {games} | "
            f"{_e(f['elo'])} | {_e(f['lo'])} .. {_e(f['hi'])} | "
            + " | ".join(wdl(f["matches"][r]["total"]) if r in f["matches"] else "-" for r in refs)
            + " |"
        )
    agents = (data.get("elo") or {}).get("agents", {})
    lines += ["", "References: " + ", ".join(f"{r} {_e(agents[r]['elo'])}" for r in refs if r in agents) + ".", ""]
    lines += [
        "## Elo over training",
        "",
        f"![Elo curves]({plot_name})",
        "",
        "| method | point | training min | search steps | last trained on | Elo | 95% interval |",
        "|---|---|---:|---:|---|---:|---|",
    ]
    for m, pts in cv.items():
        for p in pts:
            trained_on = board(game, p["board"]) if p["board"] else "nothing yet"
            lines.append(
                f"| {m} | {p['name']} | {p['minutes']:.1f} | {p['steps']} | {trained_on} | "
                f"{_e(p['elo'])} | {_e(p['lo'])} .. {_e(p['hi'])} |"
            )
    lines += ["", "## Reading", ""] + [f"- {x}" for x in reading(data, cv)] + [""]
    timed = (
        ""
        if s["steps"] is not None
        else (
            "; max_steps is no cap: the time budget ends a run, and the learning rate follows the cosine schedule "
            "over the share of the run's (curriculum: the stage's) budget used"
        )
    )
    lines += [
        "## Config",
        "",
        "AlphaZero, the same for every method (`net` is the scratch net, the other methods start from the "
        f"source's weights; curriculum stages change board_size and split the budget{timed}):",
        "",
        "```json",
        json.dumps(data["config"], indent=2, sort_keys=True),
        "```",
        "",
        "Experiment:",
        "",
        "```json",
        json.dumps(s, indent=2, sort_keys=True),
        "```",
        "",
    ]
    return "\n".join(lines)


def write_report(data: Data, path: str) -> dict[str, str]:
    """Write the markdown report to `path` and the Elo plot beside it (same name, .png)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    png = os.path.splitext(path)[0] + ".png"
    cv = curves(data)
    plot(data, cv, png)
    with open(path, "w") as f:
        f.write(markdown(data, cv, os.path.basename(png)))
    return {"report": path, "plot": png}
