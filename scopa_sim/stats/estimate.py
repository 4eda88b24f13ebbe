"""The one interval type: :class:`Estimate`, a figure with its confidence interval, its
sample size and the method that gave the interval.

Every result of the project that states a figure with an interval holds an
:class:`Estimate` (the analyses, the deal analyses, the advantage, the tournament's
margins, the notebook API's results); the functions of :mod:`scopa_sim.stats.inference`
compute them (``mean_ci``: a Student-t interval of a mean, ``wilson``: a Wilson interval
of a proportion, ``normal_ci``: a normal interval of a mean).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from dataclasses import dataclass, replace

#: The confidence level of every interval of the project.
LEVEL = 0.95


def _num(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


@dataclass(frozen=True, repr=False)
class Estimate:
    """A figure with its confidence interval and the sample it is estimated from.

    ``estimate`` is the point estimate (a mean, a proportion, a difference), ``low`` and
    ``high`` the bounds of its interval at ``level`` (NaN when the interval is not
    estimated: too few observations, see :data:`scopa_sim.stats.inference.MIN_SAMPLES`),
    ``n`` the number of observations (hands, matches, deal pairs), ``method`` how the
    interval was made (``"t"``, ``"wilson"``, ``"normal"``, ``"paired t"``...), ``sd`` the
    standard deviation of the observations where the figure is their mean (NaN for a
    proportion, or when unknown).
    """

    estimate: float
    low: float
    high: float
    n: int
    method: str
    sd: float = math.nan
    level: float = LEVEL

    @property
    def se(self) -> float:
        """The standard error of a mean: ``sd / sqrt(n)`` (NaN when ``sd`` is unknown)."""
        return self.sd / math.sqrt(self.n) if self.n > 0 else math.nan

    @property
    def half_width(self) -> float:
        """Half the width of the interval (NaN when it is not estimated)."""
        return (self.high - self.low) / 2

    @property
    def estimated(self) -> bool:
        """Whether the interval is given (both bounds finite)."""
        return math.isfinite(self.low) and math.isfinite(self.high)

    @property
    def successes(self) -> int:
        """For a proportion: the count of successes behind it (``estimate * n``)."""
        return round(self.estimate * self.n) if self.n else 0

    def excludes(self, value: float = 0.0) -> bool:
        """True when the interval lies strictly on one side of ``value``."""
        return self.low > value or self.high < value

    def negated(self) -> Estimate:
        """The estimate of minus the figure (the other side's view of a margin)."""
        return replace(self, estimate=-self.estimate, low=-self.high, high=-self.low)

    def to_dict(self) -> dict[str, float | int | str | None]:
        """JSON-ready: estimate, low, high, n, method (an undefined number is None)."""
        return {
            "estimate": _num(self.estimate),
            "low": _num(self.low),
            "high": _num(self.high),
            "n": self.n,
            "method": self.method,
        }

    def text(self, spec: str = "+.4f") -> str:
        """The estimate and its interval, each formatted with ``spec``: ``+0.2460 [+0.2300,
        +0.2620]`` (an interval not estimated reads ``[-, -]``)."""
        f = _formatter(spec)
        return f"{f(self.estimate)} [{f(self.low)}, {f(self.high)}]"

    def __repr__(self) -> str:
        """``+0.2460 [+0.2300, +0.2620] (n=100,000, paired t)``."""
        return f"{self.text()} (n={self.n:,}, {self.method})"

    def _repr_html_(self) -> str:
        """A one-row table: the estimate, its interval, ``n`` and the method."""
        f = _formatter("+.4f")
        cells = [f(self.estimate), f"[{f(self.low)}, {f(self.high)}]", f"{self.n:,}", self.method]
        head = ["estimate", f"{self.level:.0%} CI", "n", "method"]
        return (
            "<table class='scopa-sim-estimate'><tr>"
            + "".join(f"<th>{html.escape(h)}</th>" for h in head)
            + "</tr><tr>"
            + "".join(f"<td>{html.escape(c)}</td>" for c in cells)
            + "</tr></table>"
        )


def _formatter(spec: str) -> Callable[[float], str]:
    return lambda x: format(x, spec) if math.isfinite(x) else "-"


__all__ = ["LEVEL", "Estimate"]
