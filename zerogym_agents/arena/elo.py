"""Elo ratings by maximum likelihood (Bradley-Terry) with 95% intervals from the Fisher information.

Model: agent i scores against agent j with probability p_ij = 1 / (1 + 10**(-(R_i - R_j) / 400));
a draw counts as half a win and half a loss.  The ratings maximize
    sum over games of  s log p_ij + (1 - s) log(1 - p_ij)  -  sum_i (R_i - mean R)**2 / (2 prior_sd**2)
The second term is a weak Gaussian prior pulling every rating toward the others' mean (default
prior_sd = 1000 Elo); it keeps the estimate finite when an agent won or lost every game (the plain
MLE is then infinite) and moves ratings of well-sampled agents very little.  prior_sd=None gives the
plain maximum-likelihood estimate, which exists only when the "scored against" graph is strongly
connected (Zermelo's condition; otherwise ValueError).  Ratings are fixed up to a common shift:
anchor=None puts their mean at 0, anchor=NAME puts that agent at 0.  The 95% intervals are
+-1.96 standard errors from the observed Fisher information (the Hessian of the negative
log-posterior at the optimum, inverted in the anchored coordinates), so they are the uncertainty
of each rating relative to the anchor (the anchor's own interval is 0 when it is named).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

K = math.log(10) / 400  # d log-odds / d Elo
DEFAULT_PRIOR_SD = 1000.0

Outcome = tuple[str, str, float]  # (name_a, name_b, score of A: 1 win, 0.5 draw, 0 loss)


def pair_table(
    outcomes: Iterable[Outcome], names: Sequence[str] | None = None
) -> tuple[list[str], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """From [(name_a, name_b, score_a)] (score 1 / 0.5 / 0) build (names, n, s): n[i, j] games
    between i and j, s[i, j] points of i against j."""
    outcomes = list(outcomes)
    if names is None:
        names = []
        for a, b, _ in outcomes:
            for x in (a, b):
                if x not in names:
                    names.append(x)
    index = {x: i for i, x in enumerate(names)}
    m = len(names)
    n = np.zeros((m, m))
    s = np.zeros((m, m))
    for a, b, score in outcomes:
        if a not in index or b not in index:
            raise ValueError(f"game between {a!r} and {b!r}: both must be in names {names}")
        if a == b:
            raise ValueError(f"an agent cannot play itself in an Elo table (got {a!r})")
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"score must be in [0, 1] (1 win, 0.5 draw, 0 loss), got {score!r}")
        i, j = index[a], index[b]
        n[i, j] += 1
        n[j, i] += 1
        s[i, j] += score
        s[j, i] += 1 - score
    return list(names), n, s


@dataclass
class EloTable:
    """Ratings (Elo points), their standard errors and 95% half-widths, per agent (in `names` order)."""

    names: list[str]
    ratings: np.ndarray
    stderr: np.ndarray
    halfwidth: np.ndarray
    covariance: np.ndarray
    games: np.ndarray  # games played by each agent
    score: np.ndarray  # points scored by each agent
    anchor: str | None = None
    prior_sd: float | None = None
    confidence: float = 0.95

    def rating(self, name: str) -> float:
        return float(self.ratings[self.names.index(name)])

    def interval(self, name: str) -> tuple[float, float]:
        """(low, high) of the confidence interval of `name`'s rating."""
        i = self.names.index(name)
        return float(self.ratings[i] - self.halfwidth[i]), float(self.ratings[i] + self.halfwidth[i])

    def order(self) -> list[int]:
        """Indices of the agents from the highest rating to the lowest."""
        return list(np.argsort(-self.ratings, kind="stable"))

    def to_dict(self) -> dict[str, Any]:
        """The table as JSON-able data: the fit's settings, then each agent's rating, error and results."""
        fit = {"names": self.names, "anchor": self.anchor, "prior_sd": self.prior_sd, "confidence": self.confidence}
        return {
            **fit,
            "agents": {
                x: {
                    "elo": float(self.ratings[i]),
                    "stderr": float(self.stderr[i]),
                    "halfwidth": float(self.halfwidth[i]),
                    "games": int(self.games[i]),
                    "score": float(self.score[i]),
                }
                for i, x in enumerate(self.names)
            },
        }


def _strongly_connected(s: npt.NDArray[np.float64]) -> bool:
    """True if every agent reaches every other along edges i -> j where i scored against j."""
    m = s.shape[0]
    for adj in (s > 0, (s > 0).T):
        seen, todo = {0}, [0]
        while todo:
            i = todo.pop()
            for j in np.flatnonzero(adj[i]):
                if j not in seen:
                    seen.add(int(j))
                    todo.append(int(j))
        if len(seen) < m:
            return False
    return True


def _normal_quantile(confidence: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + confidence / 2)


def fit_elo(
    outcomes: Iterable[Outcome],
    names: Sequence[str] | None = None,
    anchor: str | None = None,
    prior_sd: float | None = DEFAULT_PRIOR_SD,
    confidence: float = 0.95,
    tol: float = 1e-10,
    max_iter: int = 200,
) -> EloTable:
    """Elo ratings of every agent in `outcomes` ([(name_a, name_b, score_a)], e.g.
    RoundRobinResult.outcomes()) by maximum likelihood; see the module docstring.  Returns an EloTable."""
    names, n, s = pair_table(outcomes, names)
    m = len(names)
    if m < 2:
        raise ValueError(f"Elo needs games between at least two agents, got {names}")
    if anchor is not None and anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not one of the agents {names}")
    if prior_sd is not None and not prior_sd > 0:
        raise ValueError(f"prior_sd must be > 0 Elo (or None for no prior), got {prior_sd!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if prior_sd is None and not _strongly_connected(s):
        raise ValueError(
            "without a prior the maximum-likelihood Elo is infinite: some group of agents scored "
            "every point (or none) against the rest, or never met them; pass a prior_sd"
        )
    lam = 0.0 if prior_sd is None else 1.0 / prior_sd**2
    centre = np.eye(m) - 1.0 / m  # centring projector: the prior acts on R - mean R
    r = np.zeros(m)

    def loss(r):  # negative log-posterior (up to a constant)
        d = r[:, None] - r[None, :]
        log_p = -np.logaddexp(0.0, -d * K)  # log of the expected score of i against j
        log_q = -np.logaddexp(0.0, d * K)
        c = centre @ r
        return -0.5 * (s * log_p + (n - s) * log_q).sum() + 0.5 * lam * c @ c

    def grad_hess(r):
        d = r[:, None] - r[None, :]
        p = 1.0 / (1.0 + 10.0 ** (-d / 400))
        g = K * (s - n * p).sum(axis=1) - lam * (centre @ r)
        w = K * K * n * p * (1 - p)
        h = np.diag(w.sum(axis=1)) - w + lam * centre  # Hessian of the negative log-posterior
        return g, h

    free = [i for i in range(m) if i != 0]  # optimize with agent 0 fixed at 0 (a gauge choice)
    current = loss(r)
    for _ in range(max_iter):
        g, h = grad_hess(r)
        step = np.zeros(m)
        step[free] = np.linalg.solve(h[np.ix_(free, free)], g[free])
        size = min(1.0, 400.0 / max(np.abs(step).max(), 1e-300))  # long steps: the curvature far out is tiny
        while True:  # damped Newton: halve until the loss does not rise
            trial = r + size * step
            value = loss(trial)
            if value <= current + 1e-12 or size < 1e-6:
                break
            size *= 0.5
        r, current = trial, value
        if np.abs(size * step).max() < tol:
            break
    else:
        raise RuntimeError("Elo fit did not converge; the results may be degenerate")
    g, h = grad_hess(r)
    cov_ref = np.zeros((m, m))
    cov_ref[np.ix_(free, free)] = np.linalg.inv(h[np.ix_(free, free)])  # covariance of R_i - R_0
    if anchor is None:
        shift = centre
    else:
        k = names.index(anchor)
        shift = np.eye(m)
        shift[:, k] -= 1.0
    ratings = shift @ r
    cov = shift @ cov_ref @ shift.T
    stderr = np.sqrt(np.clip(np.diag(cov), 0, None))
    return EloTable(
        names,
        ratings,
        stderr,
        _normal_quantile(confidence) * stderr,
        cov,
        n.sum(axis=1),
        s.sum(axis=1),
        anchor,
        prior_sd,
        confidence,
    )


def elo_difference(p: float) -> float:
    """The Elo difference that gives expected score p: 400 log10(p / (1 - p))."""
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), got {p!r}")
    return 400 * math.log10(p / (1 - p))


def expected_score(diff: float) -> float:
    """Expected score of the side `diff` Elo points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-diff / 400))
