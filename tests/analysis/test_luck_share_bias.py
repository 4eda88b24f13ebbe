"""The luck share where it is unbiased (issue 43, item 3): refused below the size where its
cross-validated R² is shrunk by its own fit, an interval over hands that matches the spread
across independent blocks, and part D printing only the rows it can stand behind, with the
hands each used."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import scopa_sim
from scopa_sim.analysis import deal_analyses as DV
from scopa_sim.analysis.study import part_d as PD
from scopa_sim.errors import ScopaError
from scopa_sim.stats.estimate import Estimate


def _synthetic(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """y = X beta + noise with skewed noise (a margin's is not normal either)."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.ones(n), rng.choice([-1.0, 0.0, 1.0], size=(n, 8))])
    beta = np.array([0.2, 1.0, -0.5, 0.5, 0.25, 0.0, 0.0, 0.3, -0.2])
    y = X @ beta + rng.exponential(1.5, size=n) - 1.5
    return X, y


def _chunks(X: np.ndarray, y: np.ndarray) -> Any:
    return lambda: ((X[i : i + 3000], y[i : i + 3000]) for i in range(0, y.size, 3000))


def test_the_estimate_is_cv_r2_s_and_its_interval_matches_independent_blocks() -> None:
    """The standard error over hands against the spread of the estimate across 40
    independent blocks (of 5,000 rows): they agree within the spread's own noise."""
    X, y = _synthetic(8000, 1)
    got = DV.cv_r2_over_hands(_chunks(X, y))
    r2, folds = DV.cv_r2(_chunks(X, y))
    assert got.r2 == r2 and list(got.folds) == folds and got.n == 8000
    est, ses = [], []
    for b in range(40):
        Xb, yb = _synthetic(5000, 100 + b)
        r = DV.cv_r2_over_hands(_chunks(Xb, yb))
        est.append(r.r2)
        ses.append(r.se)
    spread = float(np.std(est, ddof=1))
    # the sd of 40 draws is within about +-22% of the truth (2 standard errors)
    assert 0.75 < float(np.mean(ses)) / spread < 1.33


def test_a_run_below_the_threshold_is_a_one_line_error(tmp_path: Any) -> None:
    run = scopa_sim.simulate(hands=2000, seed=3, policy="greedy", workers=1, out=tmp_path / "g")
    with pytest.raises(ScopaError, match=r"too few hands for the luck share \(2,000; at least "
                       r"200,000"):  # fmt: skip
        scopa_sim.luck_share(run)
    assert DV.MIN_LUCK_HANDS == 200_000 and f"{DV.MIN_LUCK_HANDS:,}" in DV.LUCK_METHOD


def _share(estimate: float, hands: int) -> DV.LuckShare:
    if not math.isfinite(estimate):
        return DV.LuckShare(Estimate(math.nan, math.nan, math.nan, hands, DV.LUCK_METHOD), (), 0)
    share = Estimate(estimate, estimate - 0.002, estimate + 0.002, hands, DV.LUCK_METHOD)
    return DV.LuckShare(share, (), 165)


def test_part_d_prints_only_the_rows_it_can_stand_behind_with_the_hands_used() -> None:
    d = PD.PartD([], [], [], [("scopa", "expert", _share(0.1753, 1_000_000), 10_000_000),
                              ("scopa", "search", _share(math.nan, 40_000), 40_000),
                              ("scopa-3", "greedy", _share(0.21, 1_000_000), 1_000_000)],
                 [])  # fmt: skip
    text = "\n".join(PD._luck_section(d))
    table = [ln for ln in text.splitlines() if ln.startswith("| `")]
    assert len(table) == 2 and not any("search" in ln or "ismcts" in ln for ln in table)
    assert "Not reported (fewer than 200,000 hands):" in text and "(40,000 hands)" in text
    assert "n=1,000,000 hands: the first of the run's 10,000,000" in text
    heads = "\n".join(PD.headlines(d))
    assert "17.5" in heads and "the first of the run's 10,000,000" in heads
    assert "ismcts" not in heads and "search" not in heads
    assert "the first of the run's 10,000,000" in PD.conclusion(d)
