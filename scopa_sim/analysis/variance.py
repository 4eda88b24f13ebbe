"""Variance reduction for the dealer margin: duplicate deals and control variates.

*Duplicates*: the mean of a hand's margin and its duplicate's (:mod:`scopa_sim.sim.duplicate`)
estimates the same dealer margin. Against independent hands of the same cost (two hands
per pair), its efficiency is ``Var(m) / (2 Var((m + m') / 2)) = 1 / (1 + rho)``, rho being
the correlation of the two margins.

*Control variates*: features of the deal that the play cannot change and whose mean is
known exactly. Each feature is the dealer's side's count minus the first player's side's
count of some cards among all those the dealing gives them (sevens, denari, the
settebello, sixes, aces, kings): the accepted deck is exchangeable in the positions
after the table, so each has mean exactly 0. The estimate is the mean of the residuals
of the least-squares regression of the margin on the features (plus an intercept), and
its efficiency ``Var(m) / Var(residual)`` (the regression's ``1 / (1 - R^2)``), with the
degrees of freedom of the fit taken off. The features of hand ``u`` of a ``--hands`` run
are recomputed from its deck, dealt from ``derive_seed(seed, u, 0, STREAM_DEAL)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scopa_sim.game.cards import DENARI_MASK, SETTEBELLO, rank_mask
from scopa_sim.game.rules import Rules
from scopa_sim.sim.duplicate import feature_counts
from scopa_sim.stats.estimate import Estimate
from scopa_sim.stats.inference import mean_ci_from_stats

#: Card groups of the features, as 40-bit masks.
FEATURES: tuple[tuple[str, int], ...] = (
    ("sevens", rank_mask(6)),
    ("denari", DENARI_MASK),
    ("settebello", 1 << SETTEBELLO),
    ("sixes", rank_mask(5)),
    ("aces", rank_mask(0)),
    ("kings", rank_mask(9)),
)
#: An estimator is used in place of the plain mean when it is at least this efficient.
WORTH = 1.2


def receiver_roles(rules: Rules) -> np.ndarray:
    """For each deck position: +1 when the dealing gives its card to the dealer's side, -1
    to the first player's side, 0 to the table or to another player (3 or 4 players
    without teams: only the dealer and the first player count)."""
    n = rules.players
    role = np.zeros(rules.deck, dtype=np.int64)
    for j, slot in enumerate(rules.deal_order):
        p = slot % n  # position 0 is the first player, n - 1 the dealer
        if slot < 0:
            continue
        if rules.teams:
            role[j] = -1 if p % 2 == 0 else 1
        else:
            role[j] = -1 if p == 0 else (1 if p == n - 1 else 0)
    return role


def deal_features(rules: Rules, seed: int, first: int, count: int) -> np.ndarray:
    """``[count, len(FEATURES)]`` features of hands ``first ..`` of a ``--hands`` run."""
    masks = np.array([m for _, m in FEATURES], dtype=np.int64)
    return feature_counts(rules, seed, first, count, receiver_roles(rules), masks)


@dataclass(frozen=True)
class Reduced:
    """An estimate of the mean margin by a variance-reducing estimator."""

    method: str  # "duplicates" or "control variates"
    estimate: Estimate  # its t interval, n = pairs or hands used
    factor: float  # efficiency against independent hands of the same cost


def control_variates(margin: np.ndarray, features: np.ndarray) -> Reduced:
    """The regression estimator (see the module docstring)."""
    y = margin.astype(np.float64)
    n, k = features.shape
    if n < k + 3:  # too few hands to fit the regression
        return Reduced("control variates", mean_ci_from_stats(math.nan, math.nan, n), math.nan)
    x = np.column_stack([np.ones(n), features.astype(np.float64)])
    beta, *_ = np.linalg.lstsq(x, y, rcond=None)
    resid = y - x[:, 1:] @ beta[1:]  # the margin less the features' part (mean 0 each)
    var_y = float(y.var(ddof=1))
    var_r = float(((y - x @ beta) ** 2).sum() / (n - k - 1))
    est = mean_ci_from_stats(float(resid.mean()), math.sqrt(var_r), n)
    return Reduced("control variates", est, var_y / var_r if var_r > 0 else math.inf)


def duplicates(margin: np.ndarray, duplicate: np.ndarray) -> Reduced:
    """The pair-mean estimator from the margins of hands and of their duplicates (same
    order, the same hands)."""
    a, b = margin.astype(np.float64), duplicate.astype(np.float64)
    if a.size < 2:
        return Reduced("duplicates", mean_ci_from_stats(math.nan, math.nan, a.size), math.nan)
    pair = (a + b) / 2
    var_single = float(np.concatenate([a, b]).var(ddof=1))
    var_pair = float(pair.var(ddof=1))
    est = mean_ci_from_stats(float(pair.mean()), math.sqrt(var_pair), pair.size)
    return Reduced("duplicates", est, var_single / (2 * var_pair) if var_pair > 0 else math.inf)


__all__ = [
    "FEATURES",
    "WORTH",
    "Reduced",
    "control_variates",
    "deal_features",
    "duplicates",
    "receiver_roles",
]
