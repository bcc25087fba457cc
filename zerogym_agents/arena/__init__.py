"""Arena: matches with alternating colours, round robins, maximum-likelihood Elo, reports."""

from zerogym_agents.arena.elo import EloTable, elo_difference, expected_score, fit_elo
from zerogym_agents.arena.match import (
    MatchResult,
    RoundRobinResult,
    WDL,
    from_sgf,
    load_records,
    play_game,
    play_match,
    replay,
    round_robin,
    save_records,
    to_sgf,
)
from zerogym_agents.arena.report import elo_markdown, match_markdown, pairwise_markdown, plot_elo, write_report

__all__ = [
    "EloTable",
    "MatchResult",
    "RoundRobinResult",
    "WDL",
    "elo_difference",
    "elo_markdown",
    "expected_score",
    "fit_elo",
    "from_sgf",
    "load_records",
    "match_markdown",
    "pairwise_markdown",
    "play_game",
    "play_match",
    "plot_elo",
    "replay",
    "round_robin",
    "save_records",
    "to_sgf",
    "write_report",
]
