"""SearchConfig: the settings of the PUCT and Gumbel searches, each declared once with its default, bounds
and meaning.

BatchedMCTS and AlphaZeroAgent take these names as keywords and check them here; AlphaZeroConfig inherits
the fields, so a run's JSON and `--set c_puct=1.25` keep the same flat names. The compiled core keeps
its own last-line checks. How many simulations a search runs is the caller's budget, not a setting of
the search (BatchedMCTS, AlphaZeroAgent and AlphaZeroConfig each take `simulations`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from zerogym_agents.core.config_io import Flag, Integer, JsonConfig, Maybe, Number, OneOf, setting

SEARCHES = ("puct", "gumbel")
MAX_LEAVES_PER_TREE = 1024  # the compiled core's limit on descents per tree per batch
MAX_GUMBEL_M = 32767  # root candidates of the Gumbel search (int16 in the core)
MAX_THREADS = 1024  # the compiled core's limit on search threads
MAX_PIPELINE = 64  # groups of trees in a pipelined search


@dataclass
class SearchConfig(JsonConfig):
    """The search's settings (see zerogym_agents.mcts.search for the formulas they enter)."""

    search: str = setting(
        "puct",
        OneOf(SEARCHES),
        "'puct' (AlphaZero) or 'gumbel' (Gumbel root search, "
        "Danihelka et al. 2022; in self-play its improved policy is the policy target)",
    )
    c_puct: float = setting(1.5, Number(0), "PUCT: weight of the prior in Q + c_puct * P * sqrt(N) / (1 + n)")
    dirichlet_alpha: float = setting(0.3, Number(above=0), "PUCT: concentration of the root's Dirichlet noise")
    dirichlet_epsilon: float = setting(
        0.25,
        Number(0, 1),
        "PUCT: share of the Dirichlet noise in the root "
        "priors (0: none; an AlphaZeroAgent adds noise only with dirichlet=True)",
    )
    fpu_reduction: float = setting(
        0.25, Number(-2, 2), "first-play urgency: an unvisited child's Q is its parent's Q minus this"
    )
    virtual_loss: float = setting(
        1.0,
        Number(0),
        "lost visits a descent in flight counts on its path, so that several leaves of one tree go into one batch",
    )
    leaves_per_tree: int = setting(
        1,
        Integer(1, MAX_LEAVES_PER_TREE),
        "descents per tree per evaluator call (with virtual loss; AlphaZeroAgent, one tree, defaults to 8)",
    )
    gumbel_m: int = setting(16, Integer(1, MAX_GUMBEL_M), "Gumbel search: most root moves it considers")
    c_visit: float = setting(50.0, Number(0), "Gumbel search: sigma(q) = (c_visit + max N) * c_scale * q")
    c_scale: float = setting(1.0, Number(0), "Gumbel search: see c_visit")
    forced_playouts: float = setting(
        0.0,
        Number(0),
        "KataGo's k for forced playouts at the root, with policy target pruning (0: off; 2 in the paper; PUCT only)",
    )
    decisive_moves: bool = setting(
        False,
        Flag(),
        "score a position where the player to move can win at once as "
        "won, without the net (Teytaud and Teytaud 2010); for games won by one move",
    )
    solver: bool = setting(
        False,
        Flag(),
        "MCTS-Solver (Winands et al. 2008): carry exact wins, draws and losses up the tree, "
        "never choose a proven loss and play a proven win",
    )
    threads: int | None = setting(
        None,
        Maybe(Integer(1, MAX_THREADS)),
        "threads the compiled search runs its trees "
        "on (None: every core this process may use; 1: one); results are the same for "
        "every value",
    )
    pipeline: int = setting(
        1,
        Integer(1, MAX_PIPELINE),
        "groups of trees: while the net evaluates one group's "
        "leaves (on another thread), the search works on the next (1: no pipeline); the same "
        "value gives the same results, another can differ in the net's last bits",
    )

    def check_rules(self) -> None:
        if self.forced_playouts and self.search != "puct":
            raise ValueError(
                f"{type(self).__name__}.forced_playouts is for search='puct'; the Gumbel search has "
                f"no root noise to force (set forced_playouts=0)"
            )

    def search_settings(self) -> SearchConfig:
        """The SearchConfig part of this config (of a subclass too, e.g. AlphaZeroConfig)."""
        return SearchConfig(**{name: getattr(self, name) for name in SEARCH_SETTINGS})

    @classmethod
    def from_keywords(cls, who: str, keywords: Mapping[str, Any], **defaults: Any) -> SearchConfig:
        """A SearchConfig from keyword arguments `keywords` over `defaults`; a name that is no setting
        raises TypeError naming `who` and the settings there are."""
        unknown = sorted(set(keywords) - set(SEARCH_SETTINGS))
        if unknown:
            raise TypeError(f"{who} got unknown search settings {unknown}; known: {', '.join(SEARCH_SETTINGS)}")
        return cls(**{**defaults, **keywords})


SEARCH_SETTINGS = tuple(f.name for f in fields(SearchConfig))
