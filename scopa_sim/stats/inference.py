"""Confidence intervals and two-sample tests for simulation results (scipy.stats based).

Everything here works from *summaries* (counts, means, standard deviations, 2x2
tables) so that the analysis layer can push the aggregation down into polars
and never hold a run's rows in memory; the array forms (:func:`mean_ci`,
:func:`paired_t`, :func:`welch_t`) call the matching scipy functions and exist
for small samples and to cross-check the summary forms.

An interval is an :class:`~scopa_sim.stats.estimate.Estimate` (estimate, bounds, sample
size, method); a two-sample test is a :class:`TestResult` carrying the estimate, its
confidence interval, the sample sizes, the test's name, its p-value and an effect size,
so a report can print every number with where it came from.  :func:`holm` adjusts a family
of p-values (Holm's step-down procedure, which controls the family-wise error
rate under any dependence between the tests).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from scopa_sim.stats.estimate import LEVEL, Estimate


class _ScipyStats:
    """``scipy.stats``, imported on first use: it costs a second of CLI start-up."""

    def __getattr__(self, name: str) -> Any:
        from scipy import stats

        return getattr(stats, name)


st = _ScipyStats()

#: The fewest samples (hands, deal pairs, worlds, visits) a normal 95% interval is
#: estimated from, here and for the bots' play values (:mod:`scopa_sim.bots.base`).  The
#: intervals are ``mean +- z * sd / sqrt(n)`` with ``sd`` estimated from the same ``n``
#: samples: from 1 sample there is no spread at all, and from few the estimated spread is
#: itself so uncertain that the interval is too narrow (for normal data it covers 70% at 2
#: samples, 88% at 5, 92% at 10, instead of 95%), and a spread of 0 -- two worlds where a
#: play lost the same 2 points -- is no evidence of none.  So below this the interval is
#: *not estimated* (NaN bounds, shown as such) and labels nothing.
MIN_SAMPLES = 10


def _t_quantile(level: float, df: float) -> float:
    return float(st.t.ppf(0.5 + level / 2, df)) if df > 0 else math.nan


def _z_quantile(level: float) -> float:
    return float(st.norm.ppf(0.5 + level / 2))


def mean_ci_from_stats(mean: float, sd: float, n: int, level: float = LEVEL) -> Estimate:
    """The Student-t interval (method ``"t"``) of a mean from its summary (``sd`` with
    ddof=1); not estimated (NaN bounds) from fewer than 2 observations."""
    n = int(n)
    if n < 2 or not math.isfinite(sd):
        return Estimate(float(mean) if n else math.nan, math.nan, math.nan, n, "t", math.nan, level)
    h = _t_quantile(level, n - 1) * sd / math.sqrt(n)
    return Estimate(float(mean), float(mean) - h, float(mean) + h, n, "t", float(sd), level)


def mean_ci(x: np.ndarray | Sequence[float], level: float = LEVEL) -> Estimate:
    """The Student-t interval of the mean of a sample."""
    a = np.asarray(x, dtype=np.float64)
    sd = float(a.std(ddof=1)) if a.size > 1 else math.nan
    return mean_ci_from_stats(float(a.mean()) if a.size else math.nan, sd, a.size, level)


def wilson(successes: int, n: int, level: float = LEVEL) -> Estimate:
    """The Wilson score interval (method ``"wilson"``) of a binomial proportion, as
    scipy's ``binomtest(...).proportion_ci(method='wilson')``; a ValueError if
    ``successes`` is not in 0..n."""
    k, n = int(successes), int(n)
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, "wilson", level=level)
    if not 0 <= k <= n:
        raise ValueError(f"successes must be in 0..{n}, got {k}")
    ci = st.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    return Estimate(k / n, float(ci.low), float(ci.high), n, "wilson", level=level)


@dataclass(frozen=True)
class TestResult:
    """A two-sample comparison of one metric: ``estimate`` is ``a - b``.

    ``test`` names the test (``paired t``, ``Welch t``, ``McNemar exact``,
    ``two-proportion z``); ``effect_name`` names the effect size (``dz`` for
    paired means, Cohen's ``d`` for unpaired ones, ``risk difference`` for
    proportions).  ``p_holm`` is filled in by :func:`with_holm`.
    """

    __test__ = False  # not a pytest class

    metric: str
    test: str
    paired: bool
    a: float  # mean or proportion of the first sample
    b: float  # ... of the second
    estimate: float
    low: float
    high: float
    n_a: int
    n_b: int
    statistic: float
    p_value: float
    effect_size: float
    effect_name: str
    level: float = LEVEL
    p_holm: float | None = None

    @property
    def n(self) -> int:
        """Pairs for a paired test, else the two sample sizes added."""
        return self.n_a if self.paired else self.n_a + self.n_b


def paired_t_from_stats(
    metric: str,
    mean_a: float,
    mean_b: float,
    mean_d: float,
    sd_d: float,
    n: int,
    level: float = LEVEL,
) -> TestResult:
    """Paired t-test from the per-pair differences' mean and sd (same as ``ttest_rel``)."""
    n = int(n)
    se = sd_d / math.sqrt(n) if n > 0 else math.nan
    if n < 2 or not se > 0:
        # all differences equal: no variance, the difference is exact
        t, p = (0.0, 1.0) if mean_d == 0 else (math.copysign(math.inf, mean_d), 0.0)
        low = high = mean_d
        dz = 0.0 if mean_d == 0 else math.copysign(math.inf, mean_d)
        if n < 2:
            t, p, low, high, dz = math.nan, math.nan, math.nan, math.nan, math.nan
    else:
        t = mean_d / se
        p = float(2 * st.t.sf(abs(t), n - 1))
        h = _t_quantile(level, n - 1) * se
        low, high = mean_d - h, mean_d + h
        dz = mean_d / sd_d
    return TestResult(
        metric, "paired t", True, mean_a, mean_b, mean_d, low, high, n, n, t, p, dz, "dz", level
    )


def paired_t(
    metric: str, a: np.ndarray | Sequence[float], b: np.ndarray | Sequence[float]
) -> TestResult:
    """Paired t-test of ``a - b`` with ``scipy.stats.ttest_rel``."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError("paired samples must have the same length")
    d = x - y
    res = paired_t_from_stats(metric, x.mean(), y.mean(), d.mean(), d.std(ddof=1), d.size)
    if d.size > 1 and d.std() > 0:
        r = st.ttest_rel(x, y)
        res = dataclasses.replace(res, statistic=float(r.statistic), p_value=float(r.pvalue))
    return res


def welch_t_from_stats(
    metric: str,
    mean_a: float,
    sd_a: float,
    n_a: int,
    mean_b: float,
    sd_b: float,
    n_b: int,
    level: float = LEVEL,
) -> TestResult:
    """Welch's unequal-variance t-test from two summaries, with Cohen's d (pooled sd)."""
    diff = mean_a - mean_b
    va, vb = sd_a**2 / n_a, sd_b**2 / n_b
    se = math.sqrt(va + vb)
    pooled = math.sqrt(((n_a - 1) * sd_a**2 + (n_b - 1) * sd_b**2) / (n_a + n_b - 2))
    if not se > 0:
        t, p = (0.0, 1.0) if diff == 0 else (math.copysign(math.inf, diff), 0.0)
        low = high = diff
        d = 0.0 if diff == 0 else math.copysign(math.inf, diff)
    else:
        r = st.ttest_ind_from_stats(mean_a, sd_a, n_a, mean_b, sd_b, n_b, equal_var=False)
        t, p = float(r.statistic), float(r.pvalue)
        df = (va + vb) ** 2 / (va**2 / (n_a - 1) + vb**2 / (n_b - 1))
        h = _t_quantile(level, df) * se
        low, high = diff - h, diff + h
        d = diff / pooled if pooled > 0 else math.copysign(math.inf, diff)
    return TestResult(
        metric, "Welch t", False, mean_a, mean_b, diff, low, high, n_a, n_b, t, p, d, "d", level
    )


def welch_t(
    metric: str, a: np.ndarray | Sequence[float], b: np.ndarray | Sequence[float]
) -> TestResult:
    """Welch's t-test of two independent samples (``ttest_ind(equal_var=False)``)."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    res = welch_t_from_stats(
        metric, x.mean(), x.std(ddof=1), x.size, y.mean(), y.std(ddof=1), y.size
    )
    if x.std() > 0 or y.std() > 0:
        r = st.ttest_ind(x, y, equal_var=False)
        res = dataclasses.replace(res, statistic=float(r.statistic), p_value=float(r.pvalue))
    return res


def mcnemar(
    metric: str, both: int, only_a: int, only_b: int, neither: int, level: float = LEVEL
) -> TestResult:
    """Exact McNemar test of paired binary outcomes (a binomial test on the discordant pairs).

    The effect size is the risk difference ``P(a) - P(b) = (only_a - only_b) / n``,
    with a Wald interval that uses the paired variance.
    """
    n = both + only_a + only_b + neither
    if n == 0:
        raise ValueError("McNemar needs at least one pair")
    pa, pb = (both + only_a) / n, (both + only_b) / n
    diff = (only_a - only_b) / n
    m = only_a + only_b
    p = float(st.binomtest(only_a, m, 0.5).pvalue) if m > 0 else 1.0
    var = (m - (only_a - only_b) ** 2 / n) / n**2
    h = _z_quantile(level) * math.sqrt(max(var, 0.0))
    return TestResult(
        metric,
        "McNemar exact",
        True,
        pa,
        pb,
        diff,
        diff - h,
        diff + h,
        n,
        n,
        float(only_a),
        p,
        diff,
        "risk difference",
        level,
    )


def two_proportion_z(
    metric: str, k_a: int, n_a: int, k_b: int, n_b: int, level: float = LEVEL
) -> TestResult:
    """Pooled two-proportion z-test; the risk difference gets Newcombe's hybrid score interval."""
    a, b = wilson(k_a, n_a, level), wilson(k_b, n_b, level)
    diff = a.estimate - b.estimate
    pool = (k_a + k_b) / (n_a + n_b)
    se = math.sqrt(pool * (1 - pool) * (1 / n_a + 1 / n_b))
    if se > 0:
        z = diff / se
        p = float(2 * st.norm.sf(abs(z)))
    else:
        z, p = 0.0, 1.0
    low = diff - math.sqrt((a.estimate - a.low) ** 2 + (b.high - b.estimate) ** 2)
    high = diff + math.sqrt((a.high - a.estimate) ** 2 + (b.estimate - b.low) ** 2)
    return TestResult(
        metric,
        "two-proportion z",
        False,
        a.estimate,
        b.estimate,
        diff,
        low,
        high,
        n_a,
        n_b,
        z,
        p,
        diff,
        "risk difference",
        level,
    )


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values, in the input order (NaN stays NaN, not counted)."""
    idx = [i for i, p in enumerate(p_values) if not math.isnan(p)]
    m = len(idx)
    out = [math.nan] * len(p_values)
    running = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


def with_holm(results: Sequence[TestResult]) -> tuple[TestResult, ...]:
    """The results with ``p_holm`` set, the family being exactly these results."""
    adj = holm([r.p_value for r in results])
    return tuple(dataclasses.replace(r, p_holm=q) for r, q in zip(results, adj, strict=True))


def quantiles_from_counts(
    values: Sequence[int], counts: Sequence[int], probs: Sequence[float]
) -> tuple[float, ...]:
    """Quantiles (inverse empirical CDF, lower) of a discrete sample given as value counts."""
    order = np.argsort(np.asarray(values))
    v = np.asarray(values)[order]
    c = np.cumsum(np.asarray(counts)[order])
    if c.size == 0 or c[-1] == 0:
        return tuple(math.nan for _ in probs)
    out = []
    for q in probs:
        i = int(np.searchsorted(c, q * c[-1], side="left"))
        out.append(float(v[min(i, v.size - 1)]))
    return tuple(out)


def normal_ci_from_stats(mean: float, se: float, n: int, level: float = LEVEL) -> Estimate:
    """The two-sided normal interval (method ``"normal"``) of a mean from its standard
    error; not estimated (NaN bounds) from fewer than :data:`MIN_SAMPLES` observations or
    an undefined ``se``, since a normal interval from a handful of samples covers far less
    than its level."""
    n = int(n)
    sd = se * math.sqrt(n) if n > 0 else math.nan
    return _normal(mean, se, sd, n, level)


def _normal(mean: float, se: float, sd: float, n: int, level: float) -> Estimate:
    if n < MIN_SAMPLES or not math.isfinite(se):
        return Estimate(mean, math.nan, math.nan, n, "normal", sd, level)
    h = NormalDist().inv_cdf(0.5 + level / 2) * se
    return Estimate(mean, mean - h, mean + h, n, "normal", sd, level)


def normal_ci(x: np.ndarray, level: float = LEVEL) -> Estimate:
    """The normal interval of the mean of a sample (see :func:`normal_ci_from_stats`)."""
    n = int(x.size)
    sd = float(x.std(ddof=1)) if n > 1 else math.nan
    return _normal(float(x.mean()), sd / math.sqrt(n), sd, n, level)


def normal_ci_from_sums(n: int, s1: int, s2: int, level: float = LEVEL) -> Estimate:
    """The normal interval of the mean of ``n`` integer values from their exact sum and
    sum of squares."""
    var = (n * s2 - s1 * s1) / (n * (n - 1)) if n > 1 else math.nan
    sd = math.sqrt(max(var, 0.0))
    return _normal(s1 / n, sd / math.sqrt(n), sd, n, level)


__all__ = [
    "LEVEL",
    "MIN_SAMPLES",
    "TestResult",
    "holm",
    "mcnemar",
    "mean_ci",
    "mean_ci_from_stats",
    "normal_ci",
    "normal_ci_from_stats",
    "normal_ci_from_sums",
    "paired_t",
    "paired_t_from_stats",
    "quantiles_from_counts",
    "two_proportion_z",
    "welch_t",
    "welch_t_from_stats",
    "wilson",
]
