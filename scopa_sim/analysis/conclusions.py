"""Each analysis's conclusion in one sentence, as its output's first line.

The sentence follows the statistics it summarises: when the confidence interval of a
difference includes 0 (or a probability's includes the fair share) it says that the
difference is not resolved at this sample size instead of naming a winner; it names the
interval or test used, the policy and the sample size. For example::

    the dealer's side scores 0.251 [0.243, 0.259] points per hand more than the first
    player's (95% t interval of the per-hand margin) under `expert`; 1,000,000 hands

Every function takes a result object and returns a ``str``, so the command line (its text
and the ``conclusion`` field of ``--json``), the reports and a notebook say the same.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the sentences read attributes only: no polars or numba to import
    from scopa_sim.analysis.advantage import AdvantageResult
    from scopa_sim.analysis.analyze import (
        Analysis,
        Comparison,
        GroupResult,
        PairComparison,
    )
    from scopa_sim.data.run import Run
    from scopa_sim.stats.inference import TestResult

#: The significance level the sentences read p-values against (the intervals are 95%).
ALPHA = 0.05

DEALER = "the dealer's side"
FIRST = "the first player's side"


def _n(count: int, unit: str) -> str:
    return f"{count:,} {unit}"


def policy_text(policies: Sequence[str]) -> str:
    """``under `expert``` for one policy at every seat, else the seats' policies in order."""
    distinct = list(dict.fromkeys(str(p) for p in policies))
    if len(distinct) == 1:
        return f"under `{distinct[0]}`"
    return "with " + " vs ".join(f"`{p}`" for p in policies) + " (by seat)"


def _interval(estimate: float, low: float, high: float, digits: int = 3) -> str:
    return f"{estimate:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def _size(estimate: float, low: float, high: float) -> str:
    """How big a difference is, whatever its sign: :func:`_interval` of the estimate and
    its interval, negated when the estimate is negative (so ``-0.2 [-0.3, -0.1]`` reads
    ``0.200 [0.100, 0.300]``; the sentence says which way)."""
    if estimate > 0:
        return _interval(estimate, low, high)
    return _interval(-estimate, -high, -low)


def resolved(low: float, high: float, value: float = 0.0) -> bool:
    """Whether an interval lies strictly on one side of ``value`` (finite bounds only)."""
    return math.isfinite(low) and math.isfinite(high) and (low > value or high < value)


def _holm_blocks(holm: tuple[float, int] | None) -> bool:
    """Whether a family's Holm-adjusted p (``holm``: the adjusted p and the family's size;
    None when the figure is not one of a family) stops a claim: not below :data:`ALPHA`."""
    return holm is not None and not (math.isfinite(holm[0]) and holm[0] < ALPHA)


def _holm_words(holm: tuple[float, int]) -> str:
    return f"p = {holm[0]:.3g} after Holm's adjustment over {holm[1]} tests"


def margin_sentence(
    estimate: float,
    low: float,
    high: float,
    n: int,
    *,
    interval: str,
    policy: str,
    unit: str = "hands",
    holm: tuple[float, int] | None = None,
) -> str:
    """The dealer's side's margin over the first player's side, in points per hand, with
    its 95% interval (named by ``interval``), the policy phrase and the sample size. When
    the margin is one of a family of tests, ``holm`` gives its Holm-adjusted p and the
    family's size: a side is named only when that p is below :data:`ALPHA` too."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return (
            f"the dealer's margin over the first player's side is {estimate:+.3f} points per "
            f"hand, with no interval (too few hands) {policy}; {_n(n, unit)}"
        )
    if resolved(low, high) and _holm_blocks(holm):
        assert holm is not None
        return (
            f"the difference between {DEALER} and {FIRST} is not significant after Holm's "
            f"adjustment: {estimate:+.3f} [{low:+.3f}, {high:+.3f}] points per hand "
            f"({interval}; {_holm_words(holm)}) {policy}; {_n(n, unit)}"
        )
    if resolved(low, high):
        ahead, behind = (DEALER, "the first player's") if estimate > 0 else (FIRST, "the dealer's")
        adjusted = f"; {_holm_words(holm)}" if holm is not None else ""
        return (
            f"{ahead} scores {_size(estimate, low, high)} points per hand more than {behind} "
            f"({interval}{adjusted}) {policy}; {_n(n, unit)}"
        )
    return (
        f"the difference between {DEALER} and {FIRST} is not resolved at this sample size: "
        f"{estimate:+.3f} [{low:+.3f}, {high:+.3f}] points per hand, an interval that "
        f"includes 0 ({interval}) {policy}; {_n(n, unit)}"
    )


def advantage_conclusion(res: AdvantageResult) -> str:
    """``scopa-sim advantage``: the dealer's margin over the first player."""
    m = res.dealer_margin
    return margin_sentence(
        m.estimate,
        m.low,
        m.high,
        m.n,
        interval="95% normal interval of the per-hand margin",
        policy=policy_text([str(p) for p in res.policies]),
    )


def _runs_policy(runs: Sequence[Run]) -> str:
    seen = list(dict.fromkeys(r.config.policies for r in runs))
    if len(seen) == 1:
        return policy_text(seen[0])
    return "under each run's policies"


def _group_sentence(g: GroupResult, policy: str) -> str:
    m = g.margin
    return margin_sentence(
        m.estimate,
        m.low,
        m.high,
        m.n,
        interval="95% t interval of the per-hand margin",
        policy=policy,
    )


def analysis_conclusion(a: Analysis) -> str:
    """``scopa-sim analyze`` (and a report): the dealer's margin of the one group, or how
    many of the groups resolve it and which way."""
    policy = _runs_policy(a.runs)
    if len(a.groups) == 1:
        return _group_sentence(a.groups[0], policy)
    ahead = [g for g in a.groups if resolved(g.margin.low, g.margin.high) and g.margin.low > 0]
    behind = [g for g in a.groups if resolved(g.margin.low, g.margin.high) and g.margin.high < 0]
    open_ = len(a.groups) - len(ahead) - len(behind)
    parts = []
    if ahead:
        lo = min(g.margin.estimate for g in ahead)
        hi = max(g.margin.estimate for g in ahead)
        span = f"{lo:.3f}" if lo == hi else f"{lo:.3f} to {hi:.3f}"
        parts.append(
            f"{DEALER} scores more than the first player's in {len(ahead)} of "
            f"{len(a.groups)} groups ({span} points per hand)"
        )
    if behind:
        parts.append(f"{FIRST} scores more in {len(behind)}")
    if open_:
        parts.append(
            f"{'the difference' if not parts else 'it'} is not resolved at its sample size "
            f"in {open_} of {len(a.groups)} groups (95% t interval including 0)"
        )
    hands = sum(g.hands for g in a.groups)
    return (
        "; ".join(parts)
        + f" (95% t intervals of the per-hand margin) {policy}; "
        + _n(hands, "hands in all")
    )


def _headline(results: Sequence[TestResult]) -> TestResult:
    """The result a comparison's sentence is about: the dealer margin when compared."""
    return next((r for r in results if r.metric == "margin"), results[0])


def _metric_text(metric: str) -> str:
    if metric == "margin":
        return "the dealer's margin over the first player (points per hand)"
    if metric.startswith("margin_"):
        return f"the dealer's margin in {metric.removeprefix('margin_')} per hand"
    return metric.replace("_", " ")


def _p(p: float | None) -> str:
    if p is None or not math.isfinite(p):
        return "n/a"
    return "< 0.0001" if p < 1e-4 else f"= {p:.4f}" if p < 0.01 else f"= {p:.3f}"


def pair_sentence(p: PairComparison) -> str:
    """One run against the baseline: its headline metric (the dealer margin), resolved or
    not, with the test, the Holm-adjusted p, the sample and how many metrics differ."""
    if not p.results:
        return f"`{p.b.label}` and `{p.a.label}` have no metric in common to compare"
    r = _headline(p.results)
    # The tests' estimate is B - A (see analyze.compare_pair); r.b is A's value.
    est, low, high = r.estimate, r.low, r.high
    size = _n(r.n_a, "pairs of hands") if r.paired else f"{r.n_b:,} + {r.n_a:,} hands"
    p_holm = r.p_holm if r.p_holm is not None else r.p_value
    test = f"{r.test} test, Holm-adjusted p {_p(p_holm)}"
    differ = sum(
        1
        for x in p.results
        if (x.p_holm if x.p_holm is not None else x.p_value) < ALPHA and resolved(x.low, x.high)
    )
    tail = f"; {differ} of {len(p.results)} metrics differ at Holm-adjusted p < {ALPHA}"
    what = _metric_text(r.metric)
    if resolved(low, high) and p_holm < ALPHA:
        way = "higher" if est > 0 else "lower"
        return (
            f"`{p.b.label}` has {what} {_size(est, low, high)} {way} than `{p.a.label}` "
            f"({test}; {size}){tail}"
        )
    return (
        f"the difference in {what} between `{p.b.label}` and `{p.a.label}` is not resolved "
        f"at this sample size: {est:+.3f} [{low:+.3f}, {high:+.3f}] ({test}; {size}){tail}"
    )


def comparison_conclusion(c: Comparison) -> str:
    """``scopa-sim compare``: each run against the baseline, in one sentence."""
    policy = _runs_policy(c.runs)
    return "; ".join(pair_sentence(p) for p in c.pairs) + f"; {policy}"


def win_sentence(
    estimate: float,
    low: float,
    high: float,
    *,
    who: str,
    target: int,
    fair: float,
    interval: str,
    policy: str,
    n: int,
    holm: tuple[float, int] | None = None,
) -> str:
    """``who`` wins a match to ``target`` with a probability (95% interval named by
    ``interval``; NaN bounds: none), against the fair chance ``fair``. When the chance is
    one of a family of tests, ``holm`` gives its Holm-adjusted p and the family's size: a
    way is named only when that p is below :data:`ALPHA` too."""
    size = _n(n, "hands")
    if not (math.isfinite(low) and math.isfinite(high)):
        return (
            f"{who} wins a match to {target} with probability {estimate:.3f} ({interval}, "
            f"no interval) {policy}; from {size}"
        )
    est = _interval(estimate, low, high)
    if resolved(low, high, fair) and _holm_blocks(holm):
        assert holm is not None
        return (
            f"whether {who} wins a match to {target} more often than a fair {fair:.3g} is not "
            f"significant after Holm's adjustment: {est} ({interval}; {_holm_words(holm)}) "
            f"{policy}; from {size}"
        )
    if resolved(low, high, fair):
        way = "more" if estimate > fair else "less"
        adjusted = f"; {_holm_words(holm)}" if holm is not None else ""
        return (
            f"{who} wins a match to {target} {way} often than a fair {fair:.3g}: with "
            f"probability {est} ({interval}{adjusted}) {policy}; from {size}"
        )
    return (
        f"whether {who} wins a match to {target} more often than a fair {fair:.3g} is not "
        f"resolved at this sample size: {est}, an interval that includes {fair:.3g} "
        f"({interval}) {policy}; from {size}"
    )


def equity_conclusion(
    first_wins: float, target: int, policy: str, hands: int, sides: int = 2
) -> str:
    """``scopa-sim equity``: the first mover's chance from 0-0 of the solved table, a
    point estimate (the table has no interval: it is solved from the hands observed)."""
    fair = 1 / sides
    way = "more" if first_wins > fair else "less" if first_wins < fair else "as"
    return (
        f"the first mover wins {first_wins:.4f} of matches to {target} from 0-0 ({way} "
        f"{'often as' if way == 'as' else 'often than'} a fair {fair:.3g}) "
        f"{policy_text([policy])}; solved exactly from {_n(hands, 'hands')}, a point "
        "estimate without an interval (the study's part C bootstraps one)"
    )
