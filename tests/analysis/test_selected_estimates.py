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


def test_results_json_and_the_csv_carry_the_simultaneous_interval(tmp_path: Path) -> None:
    """Every class's row of results.json and of the CSV file gives its interval made
    simultaneous over the classes of its role with a number, beside the plain one."""
    import polars as pl

    from scopa_sim.analysis.study.parts_a_to_c import Results

    t = DV.ClassTable("table", "scopa", "expert", 100_000, tuple(_cells(60)))
    res = Results()
    PD._class_rows(res, t)
    assert len(res.rows) == 60
    for row, c in zip(res.rows, t.cells, strict=True):
        lo, hi = PD.simultaneous(c, 60)
        assert row["simultaneous_over"] == 60
        assert math.isclose(row["simultaneous_low"], lo) and math.isclose(
            row["simultaneous_high"], hi
        )
        assert row["simultaneous_low"] < row["ci_low"] < row["ci_high"] < row["simultaneous_high"]
    PD._class_csv(tmp_path / "t.csv", t)
    df = pl.read_csv(tmp_path / "t.csv")
    assert df.columns[-2:] == ["simultaneous_low", "simultaneous_high"]
    assert math.isclose(df["simultaneous_low"][0], PD.simultaneous(t.cells[0], 60)[0], rel_tol=1e-5)
