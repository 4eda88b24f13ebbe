"""Statistics on synthetic data with known answers: intervals, tests, Holm."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as st

from scopa_sim.stats import inference as S


def test_wilson_known_values():
    # 0/10: the upper bound is z^2 / (n + z^2)
    z2 = st.norm.ppf(0.975) ** 2
    p = S.wilson(0, 10)
    assert p.low == pytest.approx(0.0, abs=1e-12)
    assert p.high == pytest.approx(z2 / (10 + z2), rel=1e-9)
    # the closed form for an inner value
    k, n = 81, 263
    ph, z = k / n, math.sqrt(z2)
    centre = (ph + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(ph * (1 - ph) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    w = S.wilson(k, n)
    assert (w.low, w.high) == pytest.approx((centre - half, centre + half), rel=1e-9)
    assert (round(w.low, 4), round(w.high, 4)) == (0.2553, 0.3662)
    assert w.estimate == k / n and w.n == n and w.successes == k
    assert math.isnan(S.wilson(0, 0).estimate)
    with pytest.raises(ValueError):
        S.wilson(5, 4)


def test_holm_known_example():
    adj = S.holm([0.01, 0.04, 0.03, 0.005])
    assert adj == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # monotone, capped at 1, NaN left out of the family
    adj = S.holm([0.5, math.nan, 0.6])
    assert adj[0] == pytest.approx(1.0) and adj[2] == pytest.approx(1.0)
    assert math.isnan(adj[1])
    assert S.holm([]) == []


def test_with_holm_sets_adjusted_p():
    rs = [S.mcnemar("a", 5, 10, 2, 20), S.mcnemar("b", 5, 3, 2, 20)]
    out = S.with_holm(rs)
    assert [r.p_holm for r in out] == pytest.approx(S.holm([r.p_value for r in rs]))
    assert all(r.p_holm is not None and r.p_holm >= r.p_value for r in out)


def test_mcnemar_known_table():
    # discordant pairs 10 vs 2: exact two-sided p = 2 * P(X <= 2), X ~ Bin(12, 1/2)
    r = S.mcnemar("m", both=30, only_a=10, only_b=2, neither=58)
    assert r.p_value == pytest.approx(2 * (1 + 12 + 66) / 4096)
    assert r.test == "McNemar exact" and r.paired and r.n == 100
    assert r.a == pytest.approx(0.40) and r.b == pytest.approx(0.32)
    assert r.estimate == pytest.approx(0.08) and r.effect_name == "risk difference"
    assert r.low < 0.08 < r.high
    assert S.mcnemar("m", 5, 0, 0, 5).p_value == 1.0


def test_paired_and_welch_agree_with_scipy():
    rng = np.random.default_rng(1)
    x = rng.normal(0.2, 1, 500)
    y = x + rng.normal(0.1, 0.5, 500)
    r = S.paired_t("m", y, x)
    ref = st.ttest_rel(y, x)
    assert r.statistic == pytest.approx(ref.statistic) and r.p_value == pytest.approx(ref.pvalue)
    d = y - x
    assert r.effect_size == pytest.approx(d.mean() / d.std(ddof=1))
    ci = ref.confidence_interval()
    assert (r.low, r.high) == pytest.approx((ci.low, ci.high))
    w = S.welch_t("m", y, x)
    ref2 = st.ttest_ind(y, x, equal_var=False)
    assert w.statistic == pytest.approx(ref2.statistic) and w.p_value == pytest.approx(ref2.pvalue)
    ci2 = ref2.confidence_interval()
    assert (w.low, w.high) == pytest.approx((ci2.low, ci2.high))
    assert w.test == "Welch t" and not w.paired and w.n == 1000 and w.effect_name == "d"


def test_two_proportion_z():
    r = S.two_proportion_z("p", 60, 100, 45, 100)
    pool = 105 / 200
    z = 0.15 / math.sqrt(pool * (1 - pool) * 2 / 100)
    assert r.statistic == pytest.approx(z)
    assert r.p_value == pytest.approx(2 * st.norm.sf(z))
    assert r.low < 0.15 < r.high and r.effect_size == pytest.approx(0.15)


def test_planted_advantage_is_found():
    rng = np.random.default_rng(7)
    x = rng.normal(0.1, 1.0, 20_000)
    e = S.mean_ci(x)
    assert e.excludes(0.0) and e.low < 0.1 < e.high and e.n == 20_000
    null = S.mean_ci(rng.normal(0.0, 1.0, 20_000))
    assert null.low < 0.0 < null.high or abs(null.estimate) < 0.03


def test_mean_ci_coverage():
    rng = np.random.default_rng(2026)
    truth = 0.3
    # skewed, discrete data like points per hand: coverage is still about 95%
    hits = 0
    for _ in range(300):
        e = S.mean_ci(rng.poisson(truth, 400).astype(float))
        hits += e.low <= truth <= e.high
    assert 0.90 <= hits / 300 <= 0.99


def test_wilson_coverage():
    rng = np.random.default_rng(11)
    p, n = 0.12, 150
    hits = 0
    for _ in range(300):
        w = S.wilson(int(rng.binomial(n, p)), n)
        hits += w.low <= p <= w.high
    assert 0.90 <= hits / 300 <= 0.99


def test_paired_more_powerful_on_correlated_data():
    rng = np.random.default_rng(5)
    paired = unpaired = 0
    for _ in range(200):
        common = rng.normal(0, 3, 200)  # shared deal: large, common to both runs
        a = common + rng.normal(0, 0.5, 200)
        b = common + 0.15 + rng.normal(0, 0.5, 200)
        paired += S.paired_t("m", b, a).p_value < 0.05
        unpaired += S.welch_t("m", b, a).p_value < 0.05
    assert paired / 200 > 0.6 and unpaired / 200 < 0.2


def test_summary_forms_match_array_forms():
    rng = np.random.default_rng(3)
    x = rng.integers(-3, 4, 1000).astype(float)
    y = x + rng.integers(-1, 2, 1000)
    d = y - x
    a = S.paired_t("m", y, x)
    b = S.paired_t_from_stats("m", y.mean(), x.mean(), d.mean(), d.std(ddof=1), d.size)
    assert (a.estimate, a.low, a.high, a.p_value) == pytest.approx(
        (b.estimate, b.low, b.high, b.p_value)
    )
    e = S.mean_ci(x)
    f = S.mean_ci_from_stats(x.mean(), x.std(ddof=1), x.size)
    assert (e.low, e.high, e.se) == pytest.approx((f.low, f.high, f.se))


def test_degenerate_samples():
    r = S.paired_t("plays", [36, 36, 36], [36, 36, 36])
    assert r.estimate == 0 and r.p_value == 1.0
    assert math.isnan(S.mean_ci([1.0]).low)
    w = S.welch_t_from_stats("m", 1.0, 0.0, 10, 1.0, 0.0, 10)
    assert w.p_value == 1.0


def test_quantiles_from_counts():
    values, counts = [3, 1, 2], [1, 2, 7]  # sample: 1 1 2 2 2 2 2 2 2 3
    assert S.quantiles_from_counts(values, counts, [0.05, 0.2, 0.5, 0.95]) == (1, 1, 2, 3)
    sample = np.repeat([1, 2, 3], [2, 7, 1])
    assert S.quantiles_from_counts(values, counts, [0.5])[0] == np.quantile(
        sample, 0.5, method="inverted_cdf"
    )
