"""Figures stay readable: curves from small runs, legends beside the data, no two series
drawn alike, a panel layout for many groups (issue 14)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from matplotlib.figure import Figure

from scopa_sim.analysis import plots as P
from scopa_sim.analysis.analyze import Convergence, Distribution
from scopa_sim.stats.inference import MeanCI


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> list[Figure]:
    """The figures the plot functions draw, drawn but not written."""
    got: list[Figure] = []

    def keep(fig: Figure, path: str | Path) -> Path:
        fig.canvas.draw()
        got.append(fig)
        return Path(path)

    monkeypatch.setattr(P, "_save", keep)
    return got


def curve(label: str, units: int, rng: np.random.Generator) -> Convergence:
    hands = np.unique(np.geomspace(1, units, 60).astype(int))
    mean = rng.normal(0, 1, hands.size) / np.sqrt(hands)
    half = np.where(hands > 1, 3 / np.sqrt(hands), np.nan)
    return Convergence(label, tuple(int(h) for h in hands), tuple(mean), tuple(mean - half),
                       tuple(mean + half))  # fmt: skip


def ci(x: float) -> MeanCI:
    return MeanCI(x, x - 0.1, x + 0.1, 100, 1.0)


def group(k: int) -> Any:
    items = tuple((i, ci(0.01 * k)) for i in ("scope", "cards", "denari"))
    return SimpleNamespace(label=f"run-{k}", hands=1000 + k, items=items)


def legend_is_outside(fig: Figure) -> bool:
    ax = fig.axes[0]
    legend = ax.get_legend()
    assert legend is not None
    return not legend.get_window_extent().overlaps(ax.get_window_extent())


def test_series_styles_differ_past_ten() -> None:
    styles = [P.series_style(k) for k in range(40)]
    assert len({(s["color"], s["hatch"]) for s in styles}) == 40
    assert len({(s["color"], str(s["linestyle"])) for s in styles}) == 40


def test_convergence_of_a_small_run_is_a_curve(figures: list[Figure]) -> None:
    """Part B's convergence plot (12 hands per run) was empty: it started at 100 hands."""
    rng = np.random.default_rng(0)
    P.convergence_plot([curve(f"p{k}", 12, rng) for k in range(9)], "x.png")
    P.convergence_plot([curve("big", 40_000, rng)], "y.png")
    small, big = figures
    for line in small.axes[0].get_lines()[:9]:
        x = np.asarray(line.get_xdata())
        assert x.size >= 5 and x.min() <= 3 and x.max() == 12
    x = np.asarray(big.axes[0].get_lines()[0].get_xdata())
    assert x.min() >= 100 and x.max() == 40_000  # a large run still hides its first points
    assert legend_is_outside(small)


def test_many_series_have_distinct_looks_and_the_legend_outside(figures: list[Figure]) -> None:
    rng = np.random.default_rng(1)
    P.convergence_plot([curve(f"c{k}", 5000, rng) for k in range(14)], "c.png")
    dist = [(f"d{k}", Distribution.of([2, 3, 5], [k + 1, 3, 2])) for k in range(14)]
    P.distribution_plot(dist, "d.png", "points", "Points")
    P.distribution_plot(dist[:2], "e.png", "points", "Points")
    conv, lines, bars = figures
    looks = {(ln.get_color(), ln.get_linestyle()) for ln in conv.axes[0].get_lines()[:14]}
    assert len(looks) == 14
    drawn = lines.axes[0].get_lines()
    assert len({(ln.get_color(), ln.get_linestyle(), ln.get_marker()) for ln in drawn}) == 14
    assert list(np.asarray(drawn[0].get_xdata())) == [0, 1, 2, 3]  # 2..5, 4 shown as 0
    assert [t.get_text() for t in lines.axes[0].get_xticklabels()] == ["2", "3", "4", "5"]
    assert len(bars.axes[0].patches) == 2 * 4
    for fig in (conv, lines, bars):
        assert legend_is_outside(fig)


def test_items_plot_uses_panels_for_many_groups(figures: list[Figure]) -> None:
    P.items_plot([group(k) for k in range(3)], "a.png")
    P.items_plot([group(k) for k in range(12)], "b.png")
    few, many = figures
    assert len(few.axes) == 1 and legend_is_outside(few)
    assert len(many.axes) == 3  # one panel per item
    assert all(ax.get_legend() is None for ax in many.axes)
    labels = [t.get_text() for t in many.axes[0].get_yticklabels()]
    assert labels[0] == "run-0 (n=1,000)" and len(labels) == 12


def test_figures_are_written(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    out = P.convergence_plot([curve("a", 12, rng)], tmp_path / "sub" / "c.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
