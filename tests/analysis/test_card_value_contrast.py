"""Card values with an identified meaning (issue 43, item 1): each value is the card against
the average card of the deck, reproduced here by a direct computation on a small run (the
reference-coded OLS and its HC1 covariance, transformed to the contrasts), and a run too
small to identify every card's value is a one-line error that names the hands needed."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import scopa_sim
from scopa_sim.analysis import deal_analyses as DV
from scopa_sim.data.run import open_run
from scopa_sim.errors import AnalysisError, ScopaError


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Any:
    d = tmp_path_factory.mktemp("contrast")
    return scopa_sim.simulate(hands=4000, seed=43, policy="greedy", workers=1, out=d / "g")


def _direct(ds: DV.DealSides, deal: str) -> tuple[np.ndarray, np.ndarray]:
    """The values and their HC1 standard errors, computed in one piece: the card
    indicators (their sum is 0 in every hand), the OLS with the last card left out, the
    sandwich covariance, then v_c - mean(v) and its covariance."""
    d, f = (ds.d1, ds.f1) if deal == "first" else (ds.dall, ds.fall)
    x = DV.bits(d, ds.cards) - DV.bits(f, ds.cards)
    assert np.all(x.sum(axis=1) == 0)  # the identity that leaves only contrasts identified
    X = np.column_stack([np.ones(ds.n), x[:, :-1]])
    y = ds.margin
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    e = y - X @ beta
    inv = np.linalg.inv(X.T @ X)
    cov = inv @ (X.T * e**2) @ X @ inv * ds.n / (ds.n - X.shape[1])
    k = ds.cards.size
    ref = np.append(beta[1:], 0.0)  # each card against the last one
    values = ref - ref.mean()
    C = np.eye(k)[:, : k - 1] - 1.0 / k
    return values, np.sqrt(np.diag(C @ cov[1:, 1:] @ C.T))


@pytest.mark.parametrize("deal", ["first", "any"])
def test_values_are_the_card_against_the_average_card(run: Any, deal: str) -> None:
    ds = DV.deal_sides(open_run(run.directory))
    cv = DV.card_values(ds, deal)
    want, se = _direct(ds, deal)
    got = np.array([v.value.estimate for v in cv.values])
    assert np.allclose(got, want, atol=1e-9)
    assert np.allclose([v.se for v in cv.values], se, rtol=1e-7)
    assert abs(got.sum()) < 1e-9  # against the average card: the values sum to zero
    # the meaning is stated where the values are shown
    assert "average card" in cv.method and "average card" in (DV.card_values.__doc__ or "")
    doc = " ".join((DV.__doc__ or "").split())
    assert "rather than neither side" not in doc and "sum to zero" in doc


def test_a_swap_is_the_difference_of_two_values_with_its_own_interval(run: Any) -> None:
    cv = scopa_sim.card_values(run, deal="any")
    s = cv.swap("7D", "5S")
    assert s.estimate == pytest.approx(
        cv.value("7D").value.estimate - cv.value("5S").value.estimate
    )
    assert s.low < s.estimate < s.high
    # not the two intervals added: the covariance counts
    a, b = cv.value("7D").value, cv.value("5S").value
    assert s.high - s.low < (a.high - a.low) + (b.high - b.low)
    # the intercept: the margin when both sides' cards are worth the same, which for this
    # symmetric deal is the mean margin less the cards' predicted share
    assert math.isfinite(cv.intercept)


def test_a_card_never_dealt_to_a_side_is_a_one_line_error(run: Any) -> None:
    """Ten hands deal 30 cards to each side: some card of the 40 never reaches one, and its
    value is not identified. The error says how many hands would do."""
    with pytest.raises(AnalysisError, match=r"never dealt to the .* side .* at least 400 hands"):
        DV.card_values(DV.deal_sides(open_run(run.directory), 10), "first")
    with pytest.raises(ScopaError) as err:
        scopa_sim.card_values(run, max_hands=10)
    assert "\n" not in str(err.value)


def test_a_rank_deficient_design_is_refused_not_solved_silently() -> None:
    X = np.column_stack([np.ones(50), np.arange(50.0), 2 * np.arange(50.0)])
    y = np.arange(50.0)
    with pytest.raises(AnalysisError, match="rank"):
        DV.ols_hc1_cov(lambda: iter([(X, y)]))
