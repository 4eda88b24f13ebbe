"""Figures a reader can read (issue 40): each kind of figure, drawn from small synthetic
inputs, keeps every text inside the canvas, carries at most :data:`LIMIT` series on one
axes in distinct colours, keeps its legend off the data, names the classes
of an opening chart; and every figure a report folder holds is linked from a report."""

from __future__ import annotations

import doctest
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from helpers.figures import LIMIT, check_figure, series_of, unlinked_figures
from matplotlib.figure import Figure

from scopa_sim.analysis import plots as P
from scopa_sim.analysis.analyze import Convergence, Distribution
from scopa_sim.analysis.deal_analyses import ClassCell
from scopa_sim.stats import Estimate

REPO = Path(__file__).resolve().parents[2]
SEARCH = "ismcts:iterations=1000,horizon=4,c=1"
#: Run names as the study's parts name them (part B had 18 on one axes).
RUNS = [f"{p}-{t}" for t in ("random", "greedy") for p in (
    "scopa", "scopa-3", "scopa-4", "scopa-4-solo", "asso-piglia-tutto", "scopa-36",
    "scopa-corsa", "scopone", "scopone-scientifico")]  # fmt: skip


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> list[Figure]:
    """The figures the plot functions draw, kept rather than written."""
    got: list[Figure] = []

    def keep(fig: Figure, path: str | Path) -> Path:
        got.append(fig)
        return Path(path)

    monkeypatch.setattr(P, "_save", keep)
    return got


# --------------------------------------------------------------------------- inputs
def curve(label: str, units: int, rng: np.random.Generator, shift: float = 0.0) -> Convergence:
    hands = np.unique(np.geomspace(1, units, 60).astype(int))
    mean = shift + rng.normal(0, 1, hands.size) / np.sqrt(hands)
    half = np.where(hands > 1, 3 / np.sqrt(hands), np.nan)
    return Convergence(label, tuple(int(h) for h in hands), tuple(mean), tuple(mean - half),
                       tuple(mean + half))  # fmt: skip


def ci(x: float, n: int = 1000) -> Estimate:
    return Estimate(x, x - 0.1, x + 0.1, n, "t", 1.0)


def group(label: str, k: int) -> Any:
    items = tuple((i, ci(0.01 * k)) for i in ("scope", "cards", "denari", "primiera", "7D"))
    return SimpleNamespace(label=label, hands=40_000 + k, items=items)


def dist(k: int) -> Distribution:
    values = tuple(range(0, 12))
    counts = tuple(int(c) for c in 1000 * np.exp(-0.5 * ((np.arange(12) - 4 - k % 3) / 2) ** 2))
    return Distribution.of(values, counts)


def cell(key: str, x: float) -> ClassCell:
    return ClassCell(key, "dealer", Estimate(x, x - 0.2, x + 0.2, 500, "t"))


def hand_classes(count: int) -> list[ClassCell]:
    """``count`` opening-hand classes named as part D names them, best first."""
    ranks = ["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"]
    names = [f"{a}-{b}-{c}:{d}d" + ("+7D" if a == "7" and d else "")
             for a in ranks for b in ranks for c in ranks[:3] for d in range(3)]  # fmt: skip
    return [cell(names[i], 1.5 - 3 * i / count) for i in range(count)]


# --------------------------------------------------------------------------- the figures
def test_convergence_of_many_runs_is_small_multiples(figures: list[Figure]) -> None:
    """Part B's convergence figure drew 18 curves on one axes, colours repeating."""
    rng = np.random.default_rng(0)
    P.convergence_plot([curve(r, 40_000, rng, 0.1 * k) for k, r in enumerate(RUNS)],
                       "c.png", "Convergence of the dealer margin, runs under random, greedy "
                       "in turn")  # fmt: skip
    P.convergence_plot([curve(r, 400, rng) for r in RUNS[:9]], "d.png")
    P.convergence_plot([curve("scopa-expert", 12, rng)], "e.png")
    for fig in figures:
        check_figure(fig)
    many, nine, one = figures
    assert len(many.axes) == 3 and len(nine.axes) == 2 and len(one.axes) == 1
    drawn = [label for ax in many.axes for _, label in series_of(ax)]
    assert len(drawn) == 18  # every run is still drawn, in a panel of its own


def test_points_of_many_runs_are_small_multiples(figures: list[Figure]) -> None:
    series = [(r, dist(k)) for k, r in enumerate(RUNS)]
    P.distribution_plot(series, "p.png", "points per hand (all sides)", "Points per hand")
    P.distribution_plot(series[:7], "q.png", "points per hand (all sides)", "Points per hand")
    P.distribution_plot(series[:2], "r.png", "hands per match", "Match length")
    for fig in figures:
        check_figure(fig)
    many, lines, bars = figures
    assert len(many.axes) == 3 and len(lines.axes) == 1 and len(bars.axes) == 1
    assert len(bars.axes[0].patches) == 2 * 12


def test_items_of_many_runs_stay_readable(figures: list[Figure]) -> None:
    P.items_plot([group(r, k) for k, r in enumerate(RUNS)], "i.png",
                 "Score items: dealer minus first player, per hand, under random")  # fmt: skip
    P.items_plot([group(r, k) for k, r in enumerate(RUNS[:4])], "j.png")
    for fig in figures:
        check_figure(fig)


def test_a_forest_title_fits_and_names_the_policy(figures: list[Figure]) -> None:
    """Part C's forest title was cut at "points per han" and did not say who played."""
    rows = [(f"scopa+{o}", ci(0.1 * k, 227_476)) for k, o in enumerate((
        "kings_redeal-false", "capture_rule-hand", "ace_sweep-true+ace_sweep_scopa-false",
        "primiera_missing_suit-zero", "deck-36", "target-21"))]  # fmt: skip
    P.forest_plot(rows, "f.png", f"Dealer minus first player, points per hand, under {SEARCH}")
    P.forest_plot(rows[:1], "g.png", "Dealer minus first player, points per hand, runs under "
                  "random, greedy, expert, " + SEARCH + " in turn")  # fmt: skip
    for fig in figures:
        check_figure(fig)
        assert "under" in fig._suptitle.get_text()


def test_grouped_forests_and_heatmaps_are_readable(figures: list[Figure]) -> None:
    names = ["random", "greedy", "expert", f"search ({SEARCH})"]
    labels = ["scopa", "scopa-3", "scopa-4-solo", "escoba+opening_fifteen_to-first_player"]
    series = [(n, [(0.1 * j, 0.05 * j, 0.15 * j) for j in range(len(labels))]) for n in names]
    P.grouped_forest_plot(labels, series, "a.png", "Dealer minus first player, points per "
                          "hand", "points per hand (95% CI)")  # fmt: skip
    P.grouped_forest_panels(labels, [(f"to {t}", series) for t in (11, 16, 21)], "b.png",
                            "The first mover's probability of winning the match",
                            "probability (95% CI)", reference=0.5)  # fmt: skip
    t = np.random.default_rng(4).random((11, 11))
    P.equity_heatmap([("player deals next", t), ("opponent deals next", t)], "e.png",
                     "scopa to 11 under expert: P(player wins the match)", "player's score",
                     "opponent's score")  # fmt: skip
    grid = np.random.default_rng(5).normal(0, 0.3, (4, 10))
    P.card_heatmap([("first deal (40,000 hands)", grid), ("any deal", grid)], "h.png",
                   "Card values, scopa under expert", "margin points per hand")  # fmt: skip
    for fig in figures:
        check_figure(fig)


def test_a_grouped_forest_refuses_more_series_than_the_limit(figures: list[Figure]) -> None:
    series = [(f"s{k}", [(0.0, -0.1, 0.1)]) for k in range(LIMIT + 1)]
    with pytest.raises(ValueError, match="at most 8 series"):
        P.grouped_forest_plot(["scopa"], series, "x.png", "t", "x")


def test_opening_charts_name_their_classes(figures: list[Figure]) -> None:
    """The opening-hand charts had a class index 0-900 on the x axis and no class names."""
    cells = hand_classes(860)
    P.class_margin_plot([("first player", cells), ("dealer", cells[::-1])], "o.png",
                        "scopa under expert: margin by opening hand class",
                        "margin, points per hand")  # fmt: skip
    P.class_margin_plot([("dealer", cells[:3])], "t.png", "scopa-36 under expert: margin by "
                        "opening table class", "dealer's margin, points per hand")  # fmt: skip
    P.class_margin_plot([("dealer", [])], "u.png", "none", "margin")
    hands, few, _ = figures
    for fig in figures:
        check_figure(fig)
    for ax in hands.axes:
        ticks = [t.get_text() for t in ax.get_xticklabels()]
        named = [t for t in ticks if t.split("\n")[0] in {c.key for c in cells}]
        assert len(named) == len(ticks) >= 5, ticks
    first = [t.get_text() for t in hands.axes[0].get_xticklabels()]
    assert first[0] == f"{cells[0].key}\n#1" and first[-1] == f"{cells[-1].key}\n#860"
    assert len(few.axes[0].get_xticklabels()) == 3


def test_series_styles_are_one_palette_within_the_limit() -> None:
    assert P.MAX_SERIES <= LIMIT
    styles = [P.series_style(k) for k in range(P.MAX_SERIES)]
    assert len({s["color"] for s in styles}) == P.MAX_SERIES == len(P.PALETTE)
    assert len({s["marker"] for s in styles}) == P.MAX_SERIES
    with pytest.raises(ValueError):
        P.series_style(P.MAX_SERIES)
    assert [len(r) for r in P.panels_of(18)] == [6, 6, 6]
    assert [len(r) for r in P.panels_of(9)] == [5, 4]
    assert P.panels_of(0) == [range(0, 0)]
    assert doctest.testmod(P).failed == 0  # panels_of's examples


def test_a_report_title_names_who_played() -> None:
    from scopa_sim.analysis.run_report import who_played

    def run(label: str, *policies: str) -> Any:
        return SimpleNamespace(label=label, config=SimpleNamespace(policies=policies))

    assert who_played([run("a", "expert", "expert"), run("b", "expert", "expert")]) == (
        "under expert"
    )
    assert who_played([run("a", "expert", "greedy")]) == "under expert vs greedy"
    four = [run(f"scopa-{p}", p, p) for p in ("random", "greedy", "expert")]
    assert who_played(four) == "runs under random, greedy, expert in turn"
    many = [run(f"r{k}", f"ismcts:iterations={k}000,horizon=4") for k in range(6)]
    assert who_played(many) == "each run under its policies (table of runs)"


# --------------------------------------------------------------------------- links
def test_unlinked_figures_are_found(tmp_path: Path) -> None:
    (tmp_path / "part-a").mkdir()
    (tmp_path / "part-a" / "report.md").write_text("![x](a.png) [b](../b.png)\n")
    for name in ("part-a/a.png", "b.png", "part-a/c.png"):
        (tmp_path / name).write_bytes(b"")
    assert unlinked_figures(tmp_path) == [tmp_path / "part-a" / "c.png"]


def test_every_committed_study_figure_is_linked() -> None:
    """Nine figures of the committed study were linked from no report."""
    folder = REPO / "reports" / "study"
    assert unlinked_figures(folder) == []
