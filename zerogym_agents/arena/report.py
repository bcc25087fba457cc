"""Arena reports: Elo table and pairwise table (markdown), an Elo plot, results and records on disk."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zerogym_agents.arena.elo import EloTable
    from zerogym_agents.arena.match import MatchResult, RoundRobinResult


def _pct(score: float, games: float) -> str:
    return f"{100.0 * score / games:.1f}%" if games else "-"


def elo_markdown(elo: EloTable) -> str:
    """Markdown table of an EloTable, highest rating first: rank, agent, Elo, +- interval, games, score."""
    level = f"{100 * elo.confidence:g}%"
    anchor = f"anchored: {elo.anchor} = 0" if elo.anchor else "anchored: mean = 0"
    prior = "no prior" if elo.prior_sd is None else f"prior sd {elo.prior_sd:g}"
    lines = [f"| rank | agent | Elo | ± {level} | games | score |", "|---:|---|---:|---:|---:|---:|"]
    for rank, i in enumerate(elo.order(), 1):
        lines.append(
            f"| {rank} | {elo.names[i]} | {elo.ratings[i]:.0f} | {elo.halfwidth[i]:.0f} | "
            f"{int(elo.games[i])} | {elo.score[i]:g} ({_pct(elo.score[i], elo.games[i])}) |"
        )
    lines.append("")
    lines.append(
        f"Maximum-likelihood Bradley-Terry Elo ({anchor}, {prior}); intervals from the observed Fisher information."
    )
    return "\n".join(lines) + "\n"


def distinct_games(match: MatchResult) -> int | None:
    """How many different games (move sequences) a MatchResult's records hold; None without records.
    Two agents that both play deterministically replay the same two games over and over unless the
    match starts from random openings."""
    if not match.records:
        return None
    return len({tuple(r["actions"]) for r in match.records})


def pairwise_markdown(result: RoundRobinResult) -> str:
    """Markdown table of a RoundRobinResult: every pair's wins-draws-losses (A's view), split by who
    moved first, A's score and how many of the games differ."""
    lines = [
        "| A | B | A first (W-D-L) | B first (W-D-L) | total (W-D-L) | A score | distinct games |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for m in result.matches:
        f = lambda x: f"{x.wins}-{x.draws}-{x.losses}"  # noqa: E731
        t = m.total
        distinct = distinct_games(m)
        lines.append(
            f"| {m.agent_a} | {m.agent_b} | {f(m.a_first)} | {f(m.b_first)} | {f(t)} | "
            f"{_pct(t.score, t.games)} | {'-' if distinct is None else distinct} |"
        )
    return "\n".join(lines) + "\n"


def match_markdown(match: MatchResult) -> str:
    """One match with a row per first mover, then the total (as Cherif Haouat et al. split their
    AlphaOthelloZero tables); wins, draws, losses from A's point of view, in the W-D-L order of
    every other table."""
    lines = [
        f"**{match.agent_a}** vs {match.agent_b}",
        "",
        "| first to play | win | draw | loss | total |",
        "|---|---:|---:|---:|---:|",
    ]
    for who, x in ((match.agent_a, match.a_first), (match.agent_b, match.b_first), ("total", match.total)):
        lines.append(f"| {who} | {x.wins} | {x.draws} | {x.losses} | {x.games} |")
    return "\n".join(lines) + "\n"


def plot_elo(elo: EloTable, path: str | os.PathLike[str], title: str | None = None) -> str | os.PathLike[str]:
    """Horizontal error bars of the ratings (highest on top) written to `path` (PNG, Agg backend)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    order = elo.order()[::-1]
    names = [elo.names[i] for i in order]
    fig, ax = plt.subplots(figsize=(6.4, 0.45 * len(names) + 1.4))
    ax.errorbar(
        [elo.ratings[i] for i in order], range(len(order)), xerr=[elo.halfwidth[i] for i in order], fmt="o", capsize=4
    )
    ax.set_yticks(range(len(order)), names)
    ax.set_xlabel(f"Elo (± {100 * elo.confidence:g}% interval)")
    ax.axvline(0, color="grey", lw=0.5)
    ax.grid(axis="x", alpha=0.3)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_report(
    result: RoundRobinResult,
    elo: EloTable,
    out_dir: str | os.PathLike[str],
    title: str | None = None,
    command: str | None = None,
    sgf: bool = True,
) -> dict[str, str]:
    """Write into `out_dir`: report.md (Elo table, pairwise table, each match's first-player table),
    elo.png, results.json (everything, records included), games.jsonl (one record a line) and, for
    Go, one SGF file per game under sgf/.  Returns {what: path}."""
    from zerogym_agents.arena.match import save_records, to_sgf

    os.makedirs(out_dir, exist_ok=True)
    kwargs = ", ".join(f"{k}={v}" for k, v in result.kwargs.items())
    title = title or f"Arena: {result.game}" + (f" ({kwargs})" if kwargs else "")
    parts = [f"# {title}", ""]
    if command:
        parts += ["Command:", "", "```", command, "```", ""]
    openings = {m.opening_moves for m in result.matches}
    if openings != {0}:
        parts += [
            f"Each pair of games starts from the same {', '.join(map(str, sorted(openings)))} random "
            f"opening moves, colours swapped.",
            "",
        ]
    parts += ["## Elo", "", elo_markdown(elo), "## Pairs", "", pairwise_markdown(result), "## Matches", ""]
    parts += [match_markdown(m) for m in result.matches]
    paths = {
        "report": os.path.join(out_dir, "report.md"),
        "plot": os.path.join(out_dir, "elo.png"),
        "results": os.path.join(out_dir, "results.json"),
        "games": os.path.join(out_dir, "games.jsonl"),
    }
    with open(paths["report"], "w") as f:
        f.write("\n".join(parts))
    plot_elo(elo, paths["plot"], title)
    with open(paths["results"], "w") as f:
        json.dump({"round_robin": result.to_dict(), "elo": elo.to_dict(), "command": command}, f, indent=1)
    records = [r for m in result.matches for r in m.records]
    save_records(paths["games"], records)
    if sgf and result.game in ("go", "go_v0") and records:
        sgf_dir = os.path.join(out_dir, "sgf")
        os.makedirs(sgf_dir, exist_ok=True)
        n, komi = result.kwargs.get("board_size", 19), result.kwargs.get("komi", 7.5)
        for k, rec in enumerate(records):
            with open(os.path.join(sgf_dir, f"game_{k:05d}.sgf"), "w") as f:
                f.write(to_sgf(rec, n, komi))
        paths["sgf"] = sgf_dir
    return paths
