"""Selections adjusted (issue 43, item 4): the top and bottom of the opening-hand classes
are said to be selected and shown with intervals simultaneous over every class."""

from __future__ import annotations

import math
from pathlib import Path

from scopa_sim.analysis import deal_analyses as DV
from scopa_sim.analysis.study import part_d as PD
from scopa_sim.stats.estimate import Estimate


def _cells(k: int) -> list[DV.ClassCell]:
    return [DV.ClassCell(f"c{i}", "dealer", Estimate(0.5 - i / k, 0.45 - i / k, 0.55 - i / k,
                                                     1000, "t"))
            for i in range(k)]  # fmt: skip


def test_a_selected_class_gets_an_interval_simultaneous_over_all_classes() -> None:
    c = _cells(860)[0]
    lo, hi = PD.simultaneous(c, 860)
    # Bonferroni over 860: z at 1 - 0.05 / 1720 (4.02) against 1.96, about twice as wide
    assert math.isclose((hi - lo) / (c.margin.high - c.margin.low), 4.0202 / 1.9600, rel_tol=0.001)
    one = PD.simultaneous(c, 1)  # one class: the plain interval
    assert math.isclose(one[0], c.margin.low) and math.isclose(one[1], c.margin.high)


def test_the_opening_tables_say_they_are_selected(tmp_path: Path) -> None:
    t = DV.ClassTable("table", "scopa", "expert", 100_000, tuple(_cells(60)))
    d = PD.PartD([], [], [t], [], [])
    text = "\n".join(PD._classes_section(d, tmp_path))
    assert "*selected*" in text and "simultaneous 95% CI over 60" in text
    row = next(ln for ln in text.splitlines() if ln.startswith("| `c0`"))
    assert row.count("[") == 2  # the simultaneous and the plain interval
