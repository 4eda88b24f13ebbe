"""Figures stay readable: curves from small runs, legends beside the data, no two series
drawn alike, a panel layout for many groups (issue 14)."""

from __future__ import annotations

import itertools
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from matplotlib.figure import Figure

from scopa_sim.analysis import plots as P
from scopa_sim.analysis.analyze import Convergence, Distribution
from scopa_sim.stats import Estimate


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


def ci(x: float) -> Estimate:
    return Estimate(x, x - 0.1, x + 0.1, 100, "t", 1.0)


def group(k: int) -> Any:
    items = tuple((i, ci(0.01 * k)) for i in ("scope", "cards", "denari"))
    return SimpleNamespace(label=f"run-{k}", hands=1000 + k, items=items)


def legend_is_outside(fig: Figure) -> bool:
    ax = fig.axes[0]
    legend = ax.get_legend()
    assert legend is not None
    return not legend.get_window_extent().overlaps(ax.get_window_extent())


def test_convergence_of_a_small_run_is_a_curve(figures: list[Figure]) -> None:
    """Part B's convergence plot (12 hands per run) was empty: it started at 100 hands."""
    rng = np.random.default_rng(0)
    P.convergence_plot([curve(f"p{k}", 12, rng) for k in range(9)], "x.png")
    P.convergence_plot([curve("big", 40_000, rng)], "y.png")
    small, big = figures
    curves = [ln for ax in small.axes for ln in ax.get_legend_handles_labels()[0]]
    assert len(curves) == 9  # in two panels (issue 40)
    for line in curves:
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
    assert len(conv.axes) == len(lines.axes) == 2  # small multiples of 7 (issue 40)
    for ax in [*conv.axes, *lines.axes]:
        drawn = ax.get_legend_handles_labels()[0]
        assert len(drawn) == 7
        assert len({(ln.get_color(), ln.get_marker()) for ln in drawn}) == 7
        assert len({ln.get_color() for ln in drawn}) == 7
    drawn = lines.axes[0].get_lines()
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


# --------------------------------------------------------------------------- readable layout
def _drawn_tick_labels(axis: Any) -> list[Any]:
    """The tick labels an axis draws: visible, non-empty, at a tick inside its view."""
    lo, hi = sorted(axis.get_view_interval())
    out = []
    for tick in axis.get_major_ticks():
        if lo - 1e-9 <= tick.get_loc() <= hi + 1e-9:
            out += [t for t in (tick.label1, tick.label2) if t.get_visible() and t.get_text()]
    return out


def _texts(fig: Figure) -> list[Any]:
    """Every visible, non-empty text of a figure: titles, axis and tick labels, legends."""
    out: list[Any] = [t for t in fig.texts]
    for sup in (fig._suptitle, fig._supxlabel, fig._supylabel):
        if sup is not None:
            out.append(sup)
    for legend in [*fig.legends, *(a.get_legend() for a in fig.axes)]:
        if legend is not None:
            out += legend.get_texts()
    for ax in fig.axes:
        out += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label]
        out += _drawn_tick_labels(ax.xaxis) + _drawn_tick_labels(ax.yaxis)
    return [t for t in out if t.get_visible() and t.get_text().strip()]


def check_readable(fig: Figure) -> None:
    """The plot area takes at least half the figure's width and height; every text lies
    inside the canvas; no two tick labels of an axis touch (issue 26)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

    canvas = FigureCanvasAgg(fig)  # as savefig draws it
    canvas.draw()
    renderer = canvas.get_renderer()
    box = fig.bbox
    plots = [a for a in fig.axes if a.get_label() != "<colorbar>"]
    area = Bbox.union([a.get_window_extent(renderer) for a in plots])
    assert area.width >= 0.5 * box.width, (area.width, box.width)
    assert area.height >= 0.5 * box.height, (area.height, box.height)
    for t in _texts(fig):
        b = t.get_window_extent(renderer)
        inside = b.x0 >= box.x0 - 1 and b.x1 <= box.x1 + 1 and b.y0 >= box.y0 - 1
        assert inside and b.y1 <= box.y1 + 1, f"{t.get_text()!r} leaves the canvas: {b}"
    for ax in plots:
        for ticks, lo, hi in (
            (ax.get_xticklabels(), "x0", "x1"),
            (ax.get_yticklabels(), "y0", "y1"),
        ):
            spans = sorted(
                (getattr(b, lo), getattr(b, hi))
                for b in (t.get_window_extent(renderer) for t in ticks)
            )  # fmt: skip
            for (_, end), (start, _) in itertools.pairwise(spans):
                assert end <= start + 0.5, f"tick labels overlap on {ax.get_title()!r}"


def study_option_labels() -> list[str]:
    """The row labels of the study's effects figure: every option and sum-to-fifteen
    effect it measures, as the study writes them (the longest is 90 characters)."""
    from scopa_sim.analysis.study import plan as SP
    from scopa_sim.analysis.study.parts_a_to_c import _opt_label

    labels = [_opt_label(o) for o in SP.OPTION_EFFECTS]
    labels += [_opt_label(o, b) for b, o in SP.FIFTEEN_EFFECTS]
    assert max(map(len, labels)) >= 80
    return labels


SEARCH_LEGEND = "search (ismcts:iterations=1000,horizon=4,c=1)"


def test_the_effects_figure_with_the_study_s_longest_labels_is_readable(
    figures: list[Figure],
) -> None:
    # reports/study/part-b/effects.png drew its plot in a strip a tenth of the figure wide
    labels = study_option_labels()
    names = ["random", "greedy", "expert", SEARCH_LEGEND]
    series = [(n, [(0.1 * j, 0.05 * j, 0.15 * j) for j in range(len(labels))]) for n in names]
    P.grouped_forest_plot(labels, series, "x.png", "Effect of each option on the dealer "
                          "margin, points per hand, paired on the same deals, by policy",
                          "points per hand (95% CI)")  # fmt: skip
    P.grouped_forest_panels(labels, [(f"{n} policy", series) for n in ("hands", "matches")],
                            "y.png", "Effects by policy, per hand and per match, of every "
                            "option the study measures", "points (95% CI)")  # fmt: skip
    P.forest_plot([(lab, ci(0.1)) for lab in labels], "z.png")
    for fig in figures:
        check_readable(fig)


@pytest.mark.slow
def test_every_other_kind_of_figure_is_readable(figures: list[Figure]) -> None:
    rng = np.random.default_rng(3)
    long = study_option_labels()[-1]
    P.convergence_plot([curve(f"{long} {k}", 10**5, rng) for k in range(3)], "c.png",
                       title="Convergence of the dealer margin of " + long)  # fmt: skip
    dist = Distribution(tuple(range(1, 120)), tuple(int(x) for x in rng.integers(1, 50, 119)),
                        ci(3.0), 3000)  # fmt: skip
    P.distribution_plot([(long, dist), ("scopa-expert", dist)], "d.png", "match length "
                        "(hands)", "Match length of every run of the study, " + long)  # fmt: skip
    P.items_plot([SimpleNamespace(label=f"{long}-{k}", hands=10**6, items=group(k).items)
                  for k in range(3)], "i.png", title="Score items of " + long)  # fmt: skip
    P.items_plot([SimpleNamespace(label=f"{long}-{k}", hands=10**6, items=group(k).items)
                  for k in range(9)], "j.png", title="Score items of " + long)  # fmt: skip
    t = rng.random((21, 21))
    P.equity_heatmap([("scopa to 21 under expert, player to deal", t),
                      ("escoba to 21 under expert, opponent to deal", t)], "e.png",
                     "Match equity: P(win the match) from each score, " + long,
                     "your score", "their score")  # fmt: skip
    assert len(figures) == 5
    for fig in figures:
        check_readable(fig)


def test_wrap_keeps_an_option_name_and_its_value_whole() -> None:
    """A long ``name=value`` word is split after its ``=``, never inside a word."""
    from scopa_sim.analysis.plots import wrap

    text = "escoba = opening_fifteen_to=first_player primiera=escoba_sevens"
    lines = wrap(text, 24).split("\n")
    assert "opening_fifteen_to=" in lines and "first_player" in lines
    assert all(len(line) <= 24 for line in lines)
    assert wrap("a b", 30) == "a b"
    # a run name: split after its '+', then the option after its '-'
    run = wrap("escoba+opening_fifteen_to-first_player").split("\n")
    assert run == ["escoba+opening_fifteen_to-", "first_player"], run
    assert wrap("scopa-4-solo") == "scopa-4-solo"  # short words are never split
    # a piece with nothing to split at is still cut to the width
    assert max(len(line) for line in wrap("x" * 50, 20).split("\n")) == 20
