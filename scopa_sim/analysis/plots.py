"""PNG figures of analysis results (matplotlib, Agg backend, no pyplot global state).

Each function draws one figure from result objects of :mod:`scopa_sim.analysis.analyze`
and writes it to ``path``; it returns the path.  Figures are built on a bare
:class:`matplotlib.figure.Figure`, so they work in headless processes and
threads and never leak open windows.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np
from matplotlib import ticker
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from scopa_sim.analysis.analyze import Convergence, Distribution, GroupResult
from scopa_sim.stats.estimate import Estimate

DPI = 110
#: Row, tick and legend labels are wrapped at spaces past this many characters: a rule
#: variant's description can be 90 characters long, and unwrapped it squeezed the plot
#: into a strip a tenth of the figure wide.
LABEL_CHARS = 30
LEGEND_CHARS = 44
#: Characters of a title per inch of figure width before it wraps (12 pt text).
TITLE_CHARS_PER_INCH = 11
#: Characters of category tick labels (and one space after each) that fit along an x
#: axis: past it only every k-th category is labelled, k a round step, so they never touch.
CATEGORY_CHARS = 64


def wrap(text: str, width: int = LABEL_CHARS) -> str:
    """``text`` on lines of at most ``width`` characters, broken at spaces.

    A word longer than the width (a rule option such as
    ``opening_fifteen_to=first_player``, a run name such as
    ``escoba+opening_fifteen_to-first_player``) is first split after its ``=``, ``,`` or
    ``+``, then a piece still too long after its ``-``, so that a name and its value stay
    whole; only a piece longer still is cut mid-word.
    """
    lines: list[str] = []
    line = ""
    for word in text.split():
        for i, piece in enumerate(_pieces(word, width)):
            glue = "" if i or not line else " "  # the pieces of a word join without a space
            if line and len(line) + len(glue) + len(piece) <= width:
                line += glue + piece
                continue
            if line:
                lines.append(line)
            while len(piece) > width:
                lines.append(piece[:width])
                piece = piece[width:]
            line = piece
    if line:
        lines.append(line)
    return "\n".join(lines) or text


def _pieces(word: str, width: int, marks: tuple[str, ...] = ("=,+", "-")) -> list[str]:
    """``word``, or when it is longer than ``width`` its parts split after each of the
    first ``marks`` characters, each part still too long split after the next ones."""
    if len(word) <= width or not marks:
        return [word]
    parts = [part for part in re.split(f"(?<=[{re.escape(marks[0])}])", word) if part]
    return [piece for part in parts for piece in _pieces(part, width, marks[1:])]


def _lines(labels: Sequence[str]) -> int:
    """The most lines any of ``labels`` takes."""
    return max((label.count("\n") + 1 for label in labels), default=1)


def _title(fig: Figure, text: str) -> None:
    """The figure's title, centred on the whole figure and wrapped to its width, so that
    it stays inside the canvas however narrow the axes below it."""
    fig.suptitle(wrap(text, max(30, int(fig.get_figwidth() * TITLE_CHARS_PER_INCH))))


def _category_ticks(ax: Axes, labels: Sequence[str]) -> None:
    """Category labels on the x axis, every k-th (k = 1, 2, 5, 10, 20, 50, ...) when there
    are too many to keep apart."""
    width = max((len(label) for label in labels), default=1) + 1
    fit = max(2, CATEGORY_CHARS // width)
    step = next(k * 10**e for e in range(12) for k in (1, 2, 5) if len(labels) <= fit * k * 10**e)
    x = np.arange(len(labels))
    ax.set_xticks(x[::step], [labels[i] for i in range(0, len(labels), step)])


#: The most series (labelled lines, bar groups or point sets) one axes carries: past it a
#: figure is drawn as small multiples, the series split over panels of at most this many.
MAX_SERIES = 8
#: The one palette of every figure: distinct colours (Okabe-Ito without its yellow, which
#: fades on white, and a wine red), series ``k`` of an axes in ``PALETTE[k]``.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000",
           "#882255")  # fmt: skip
#: The marker of series ``k`` of an axes, so that series differ in shape as well as colour.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
#: Grouped bars are readable up to this many series; past it a panel draws one line with
#: markers per series.
MAX_BAR_SERIES = 6
#: Class names written along the x axis of a chart of classes from best to worst.
CLASS_TICKS = 6


def series_style(k: int) -> dict[str, str]:
    """Colour and marker of series ``k`` of an axes (``0 <= k <`` :data:`MAX_SERIES`).

    :raises ValueError: if ``k`` is not a series an axes may carry.
    """
    if not 0 <= k < MAX_SERIES:
        raise ValueError(f"series {k}: an axes carries at most {MAX_SERIES} series")
    return {"color": PALETTE[k], "marker": MARKERS[k]}


def panels_of(count: int) -> list[range]:
    """``range(count)`` split into the fewest runs of at most :data:`MAX_SERIES`, of
    sizes differing by at most one: the series of each panel of a small-multiples figure.

    >>> panels_of(18)
    [range(0, 6), range(6, 12), range(12, 18)]
    >>> panels_of(3)
    [range(0, 3)]
    """
    n = max(1, -(-count // MAX_SERIES))
    bounds = [-(-i * count // n) for i in range(n + 1)]
    return [range(a, b) for a, b in itertools.pairwise(bounds)]


def _legend(ax: Axes, count: int) -> None:
    """The legend beside the axes (never over the data), in columns when it is long."""
    if count == 0:
        return
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(
        handles,
        [wrap(label, LEGEND_CHARS) for label in labels],
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        fontsize="small",
        ncols=1 if count <= 20 else 2,
        frameon=False,
    )


def _plain_log_labels(ax: Axes, largest: int) -> None:
    """Tick labels 3, 10, 1,000 rather than 3x10^0 on a log axis; the minor ticks are
    labelled too when the axis spans less than two decades (a small run)."""
    plain = ticker.FuncFormatter(lambda v, _pos: f"{v:,.0f}" if v >= 1 else f"{v:g}")
    ax.xaxis.set_major_formatter(plain)
    if largest < 100:
        ax.xaxis.set_minor_formatter(plain)
        ax.tick_params(axis="x", which="minor", labelsize="small")
    else:
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())


def _save(fig: Figure, path: str | Path) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, dpi=DPI, format="png")
    return p


def forest_plot(
    rows: Sequence[tuple[str, Estimate]],
    path: str | Path,
    title: str = "Dealer minus first player, points per hand",
    xlabel: str = "points per hand (95% CI)",
) -> Path:
    """One line per run/variant/policy: the estimate and its CI, with a zero reference."""
    labels = [wrap(f"{label} (n={e.n:,})") for label, e in rows]
    per_row = max(0.45, 0.2 * _lines(labels))
    fig = Figure(figsize=(7.5, 1.4 + per_row * len(rows)), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(rows))[::-1]
    est = np.array([e.estimate for _, e in rows])
    err = np.array([[e.estimate - e.low for _, e in rows], [e.high - e.estimate for _, e in rows]])
    ax.errorbar(est, y, xerr=err, fmt="s", color="tab:blue", ecolor="black", capsize=4)
    ax.axvline(0, color="grey", lw=1, ls="--")
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.xaxis.set_major_locator(MaxNLocator(6))
    ax.set_xlabel(xlabel)
    _title(fig, title)
    return _save(fig, path)


def items_plot(
    groups: Sequence[GroupResult],
    path: str | Path,
    title: str = "Score items: dealer minus first player, per hand",
) -> Path:
    """Each score item's margin per group with 95% CIs.

    Up to :data:`MAX_BAR_SERIES` groups: grouped bars with the legend beside them.  More
    groups would make bars a few pixels wide, so then each item gets its own panel with
    one row per group (estimate and CI, as in a forest plot), labelled on the left.
    """
    items = list(dict.fromkeys(i for g in groups for i, _ in g.items))
    if len(groups) > MAX_BAR_SERIES:
        return _items_panels(groups, items, path, title)
    fig = Figure(figsize=(max(6.0, 1.1 * len(items) + 2) + 3.0, 4.2), layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(len(items))
    width = 0.8 / max(1, len(groups))
    for k, g in enumerate(groups):
        got = dict(g.items)
        est = np.array([got[i].estimate if i in got else np.nan for i in items])
        low = np.array([got[i].low if i in got else np.nan for i in items])
        high = np.array([got[i].high if i in got else np.nan for i in items])
        ax.bar(
            x + (k - (len(groups) - 1) / 2) * width,
            est,
            width,
            yerr=[est - low, high - est],
            capsize=3,
            color=series_style(k)["color"],
            label=f"{g.label} (n={g.hands:,})",
        )
    ax.axhline(0, color="grey", lw=1)
    ax.set_xticks(x, [wrap(i, 12) for i in items])
    ax.set_ylabel("points per hand (95% CI)")
    _title(fig, title)
    _legend(ax, len(groups))
    return _save(fig, path)


def _items_panels(
    groups: Sequence[GroupResult], items: list[str], path: str | Path, title: str
) -> Path:
    """One panel per score item, one row per group: readable with many groups."""
    labels = [wrap(f"{g.label} (n={g.hands:,})") for g in groups]
    per_row = max(0.3, 0.18 * _lines(labels))
    fig = Figure(figsize=(2.2 * len(items) + 2.8, 1.5 + per_row * len(groups)),
                 layout="constrained")  # fmt: skip
    axes = fig.subplots(1, max(1, len(items)), sharey=True, squeeze=False)[0]
    y = np.arange(len(groups))[::-1]
    for ax, item in zip(axes, items, strict=False):
        for k, g in enumerate(groups):
            got = dict(g.items)
            if item not in got:
                continue
            e = got[item]
            ax.errorbar(
                [e.estimate],
                [y[k]],
                xerr=[[e.estimate - e.low], [e.high - e.estimate]],
                fmt="o",
                ms=4,
                color=PALETTE[0],  # rows, labelled on the left: one colour
                ecolor="black",
                elinewidth=1,
                capsize=2,
            )
        ax.axvline(0, color="grey", lw=1, ls="--")
        ax.set_title(item, fontsize="medium")
        ax.grid(axis="y", color="0.92")
        ax.tick_params(axis="x", labelsize="small")
        ax.xaxis.set_major_locator(MaxNLocator(4))
    axes[0].set_yticks(y, labels, fontsize="small")
    axes[0].set_ylim(-0.7, len(groups) - 0.3)
    _title(fig, title)
    fig.supxlabel("points per hand (95% CI)", fontsize="medium")
    return _save(fig, path)


def convergence_plot(
    curves: Sequence[Convergence],
    path: str | Path,
    title: str = "Convergence of the dealer margin",
    min_hands: int = 100,
) -> Path:
    """Running mean of the estimate with its 95% CI band against the number of hands.

    Checkpoints before ``min_hands`` are left out of large runs, whose first intervals
    are so wide that they would set the scale of the whole figure; a run of fewer than
    ``4 * min_hands`` units starts at a quarter of its size (at least 2, the first
    point with an interval), so a small run still draws a curve.  Past
    :data:`MAX_SERIES` curves the figure is small multiples: panels one above the other,
    each with at most that many curves and its own legend beside it.
    """
    chunks = panels_of(len(curves))
    fig = Figure(figsize=(10.0, 1.0 + 3.6 * len(chunks)), layout="constrained")
    axes = fig.subplots(len(chunks), 1, squeeze=False)[:, 0]
    for ax, chunk in zip(axes, chunks, strict=True):
        _convergence_axes(ax, [curves[i] for i in chunk], min_hands)
        ax.set_ylabel("running mean, points\nper hand (95% CI)")
        _legend(ax, len(chunk))
    axes[-1].set_xlabel("hands")
    _title(fig, title)
    return _save(fig, path)


def _convergence_axes(ax: Axes, curves: Sequence[Convergence], min_hands: int) -> None:
    """The curves of :func:`convergence_plot` (at most :data:`MAX_SERIES`) on ``ax``."""
    for k, c in enumerate(curves):
        n = np.array(c.hands)
        style = series_style(k)
        if not n.size:
            ax.plot([], [], color=style["color"], label=c.label)
            continue
        start = min(min_hands, max(2, int(n[-1]) // 4))
        keep = n >= min(start, n[-1])
        mean, low, high = (np.array(v)[keep] for v in (c.mean, c.low, c.high))
        ax.plot(
            n[keep],
            mean,
            color=style["color"],
            marker=style["marker"],
            markevery=max(1, int(keep.sum()) // 8),
            ms=4,
            label=f"{c.label} (n={n[-1]:,})",
        )
        ax.fill_between(n[keep], low, high, color=style["color"], alpha=0.15, lw=0)
    ax.axhline(0, color="grey", lw=1, ls="--")
    ax.set_xscale("log")
    _plain_log_labels(ax, max((c.hands[-1] for c in curves if c.hands), default=10))


def distribution_plot(
    series: Sequence[tuple[str, Distribution]],
    path: str | Path,
    xlabel: str,
    title: str,
) -> Path:
    """Relative frequencies of discrete distributions: side-by-side bars for up to
    :data:`MAX_BAR_SERIES` series, one line with markers per series past it; past
    :data:`MAX_SERIES` series, small multiples (panels one above the other, each with at
    most that many series and its own legend beside it, on the same values)."""
    seen = {v for _, d in series for v in d.values}
    # Every integer between the extremes, so that a gap in the data shows as a zero.
    values = list(range(min(seen), max(seen) + 1)) if seen else []
    chunks = panels_of(len(series))
    fig = Figure(figsize=(10.5, 1.0 + 3.6 * len(chunks)), layout="constrained")
    axes = fig.subplots(len(chunks), 1, squeeze=False)[:, 0]
    for ax, chunk in zip(axes, chunks, strict=True):
        _distribution_axes(ax, [series[i] for i in chunk], values)
        ax.set_ylabel("relative frequency")
        _legend(ax, len(chunk))
    axes[-1].set_xlabel(xlabel)
    _title(fig, title)
    return _save(fig, path)


def _distribution_axes(
    ax: Axes, series: Sequence[tuple[str, Distribution]], values: list[int]
) -> None:
    """The series of :func:`distribution_plot` (at most :data:`MAX_SERIES`) on ``ax``."""
    x = np.arange(len(values))
    width = 0.8 / max(1, len(series))
    lines = len(series) > MAX_BAR_SERIES
    for k, (label, d) in enumerate(series):
        got = dict(zip(d.values, d.counts, strict=True))
        freq = np.array([got.get(v, 0) for v in values], dtype=float) / max(1, d.n)
        text = f"{label} (n={d.n:,}, mean {d.mean.estimate:.3f})"
        style = series_style(k)
        if lines:
            ax.plot(x, freq, color=style["color"], marker=style["marker"], ms=4, lw=1.2,
                    label=text)  # fmt: skip
        else:
            ax.bar(x + (k - (len(series) - 1) / 2) * width, freq, width,
                   color=style["color"], label=text)  # fmt: skip
    _category_ticks(ax, [str(v) for v in values])


def _grouped_forest_axes(
    ax: object,
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[tuple[float, float, float] | None]]],
    reference: float | None,
) -> None:
    """Draw the rows of :func:`grouped_forest_plot` on ``ax``."""
    from matplotlib.axes import Axes

    assert isinstance(ax, Axes)
    k = max(1, len(series))
    y = np.arange(len(labels))[::-1].astype(float)
    step = 0.8 / k
    for j, (name, values) in enumerate(series):
        off = (k - 1) / 2 * step - j * step
        pts = [(yy + off, v) for yy, v in zip(y, values, strict=True) if v is not None]
        if not pts:
            continue
        yy = np.array([p for p, _ in pts])
        est = np.array([v[0] for _, v in pts])
        err = np.array([[v[0] - v[1] for _, v in pts], [v[2] - v[0] for _, v in pts]])
        style = series_style(j)
        c = style["color"]
        ax.errorbar(est, yy, xerr=np.abs(err), fmt=style["marker"], color=c, ecolor=c,
                    capsize=3, ms=5, label=name)  # fmt: skip
    if reference is not None:
        ax.axvline(reference, color="grey", lw=1, ls="--")
    ax.set_yticks(y, list(labels))
    ax.set_ylim(-0.7, len(labels) - 0.3)
    for yy in y[:-1]:
        ax.axhline(yy - 0.5, color="#dddddd", lw=0.8)


def grouped_forest_plot(
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[tuple[float, float, float] | None]]],
    path: str | Path,
    title: str,
    xlabel: str,
    reference: float | None = 0.0,
) -> Path:
    """One row per label with one point and CI per series (``(estimate, low, high)`` or
    None when a series has no value there), series offset vertically, legend below.

    :raises ValueError: with more than :data:`MAX_SERIES` series.
    """
    k = max(1, len(series))
    labels = [wrap(label) for label in labels]
    per_row = max(0.22 * k, 0.2 * _lines(labels))
    fig = Figure(figsize=(8.0, 1.9 + per_row * len(labels)), layout="constrained")
    ax = fig.add_subplot()
    _grouped_forest_axes(ax, labels, series, reference)
    ax.xaxis.set_major_locator(MaxNLocator(6))
    ax.set_xlabel(xlabel)
    _title(fig, title)
    _figure_legend(fig, ax, k)
    return _save(fig, path)


def _figure_legend(fig: Figure, ax: Axes, k: int) -> None:
    """The series' legend below the plot, its labels wrapped, at most 4 a row."""
    handles, names = ax.get_legend_handles_labels()
    fig.legend(handles, [wrap(n, LEGEND_CHARS) for n in names], loc="outside lower center",
               ncol=min(k, 4 if max(map(len, names), default=0) < 30 else 2),
               frameon=False)  # fmt: skip


def grouped_forest_panels(
    labels: Sequence[str],
    panels: Sequence[tuple[str, Sequence[tuple[str, Sequence[tuple[float, float, float] | None]]]]],
    path: str | Path,
    title: str,
    xlabel: str,
    reference: float | None = 0.0,
) -> Path:
    """:func:`grouped_forest_plot` side by side, one panel per ``(panel title, series)``
    with the same rows and series, sharing the rows' labels and one legend below.

    :raises ValueError: with more than :data:`MAX_SERIES` series in a panel.
    """
    n = max(1, len(panels))
    k = max(1, max((len(s) for _, s in panels), default=1))
    labels = [wrap(label) for label in labels]
    per_row = max(0.2 * k, 0.2 * _lines(labels))
    fig = Figure(figsize=(3.2 * n + 3.2, 1.9 + per_row * len(labels)), layout="constrained")
    axes = fig.subplots(1, n, squeeze=False, sharey=True)[0]
    for i, (ax, (name, series)) in enumerate(zip(axes, panels, strict=True)):
        _grouped_forest_axes(ax, labels, series, reference)
        ax.set_title(wrap(name, 24), fontsize="medium")
        ax.set_xlabel(xlabel)
        ax.xaxis.set_major_locator(MaxNLocator(5))
        if i:
            ax.tick_params(labelleft=False)
    _figure_legend(fig, axes[0], k)
    _title(fig, title)
    return _save(fig, path)


def equity_heatmap(
    tables: Sequence[tuple[str, np.ndarray]],
    path: str | Path,
    title: str,
    xlabel: str,
    ylabel: str,
) -> Path:
    """Heatmaps of probabilities in [0, 1] (one panel per table, rows = y score, columns
    = x score, the value written in each cell) with one shared colour bar."""
    n = len(tables)
    fig = Figure(figsize=(5.6 * n + 1.0, 5.4), layout="constrained")
    axes = fig.subplots(1, n, squeeze=False)[0]
    im = None
    for ax, (name, t) in zip(axes, tables, strict=True):
        im = ax.imshow(t, origin="lower", cmap="RdBu", vmin=0.0, vmax=1.0, aspect="equal")
        for (i, j), v in np.ndenumerate(t):
            txt = f"{v:.2f}"
            ax.text(j, i, txt[1:] if txt.startswith("0") else txt, ha="center", va="center",
                    fontsize=7, color="white" if abs(v - 0.5) > 0.3 else "black")  # fmt: skip
        ax.set_xticks(range(t.shape[1]))
        ax.set_yticks(range(t.shape[0]))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(wrap(name, 40), fontsize="medium")
    if im is not None:
        fig.colorbar(im, ax=list(axes), shrink=0.8, label="probability of winning the match")
    _title(fig, title)
    return _save(fig, path)


def card_heatmap(
    grids: Sequence[tuple[str, np.ndarray]], path: str | Path, title: str, label: str
) -> Path:
    """Heatmaps of a value per card (one panel per 4 x 10 grid: suits D, H, C, S by ranks
    A..K, the value written in each cell; NaN cells, absent or too few hands, blank and
    marked) on one diverging colour scale centred on 0."""
    from scopa_sim.game.cards import RANKS, SUIT_NAMES

    finite = [np.abs(g[np.isfinite(g)]) for _, g in grids]
    top = max((float(f.max()) for f in finite if f.size), default=1.0) or 1.0
    n = len(grids)
    fig = Figure(figsize=(7.2, 2.6 * n + 0.9), layout="constrained")
    axes = fig.subplots(n, 1, squeeze=False)[:, 0]
    im = None
    for ax, (name, g) in zip(axes, grids, strict=True):
        im = ax.imshow(np.ma.masked_invalid(g), cmap="RdBu", vmin=-top, vmax=top, aspect="auto")
        for (i, j), v in np.ndenumerate(g):
            txt = "—" if not np.isfinite(v) else f"{v:+.2f}"
            dark = np.isfinite(v) and abs(v) > 0.6 * top
            ax.text(j, i, txt, ha="center", va="center", fontsize=8,
                    color="white" if dark else "black")  # fmt: skip
        ax.set_xticks(range(10), list(RANKS))
        ax.set_yticks(range(4), list(SUIT_NAMES))
        ax.set_title(wrap(name, 70), fontsize="medium")
    if im is not None:
        fig.colorbar(im, ax=list(axes), shrink=0.9, label=label)
    _title(fig, title)
    return _save(fig, path)


def class_margin_plot(
    panels: Sequence[tuple[str, Sequence[Any]]], path: str | Path, title: str, ylabel: str
) -> Path:
    """Mean margins with 95% CIs of classes sorted from best to worst (one panel each,
    the x axis the class's rank), with the zero line: the shape of a starting-hand chart
    when there are too many classes to name each.  Each cell has ``key`` (the class's
    name) and ``margin`` (an :class:`~scopa_sim.stats.Estimate`: a
    :class:`~scopa_sim.analysis.deal_analyses.ClassCell`); the best, the worst and
    evenly spaced classes between (:data:`CLASS_TICKS` in all) are named along the x
    axis, their rank below their name, and marked on the curve."""
    n = len(panels)
    fig = Figure(figsize=(8.0, 3.2 * n + 0.8), layout="constrained")
    axes = fig.subplots(n, 1, squeeze=False)[:, 0]
    for ax, (name, cells) in zip(axes, panels, strict=True):
        ax.set_title(wrap(name, 80), fontsize="medium")
        if not cells:
            ax.text(0.5, 0.5, "no class has enough hands for a number", ha="center",
                    va="center", transform=ax.transAxes)  # fmt: skip
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        x = np.arange(1, len(cells) + 1)
        est = np.array([c.margin.estimate for c in cells])
        low = np.array([c.margin.low for c in cells])
        high = np.array([c.margin.high for c in cells])
        ax.fill_between(x, low, high, color=PALETTE[0], alpha=0.25, linewidth=0)
        ax.plot(x, est, color=PALETTE[0], linewidth=1.2)
        ax.axhline(0.0, color="black", linewidth=0.7)
        named = np.unique(np.linspace(0, len(cells) - 1, min(CLASS_TICKS, len(cells))).round())
        named = named.astype(int)
        ax.plot(x[named], est[named], "o", color=PALETTE[1], ms=4)
        ax.set_xticks(x[named], [f"{cells[i].key}\n#{i + 1}" for i in named], fontsize="small")
        ax.set_xlim(0.5 - 0.02 * len(cells), len(cells) + 0.5 + 0.02 * len(cells))
        ax.set_xlabel("class, best to worst (classes with enough hands; rank below the name)")
        ax.set_ylabel(ylabel)
    _title(fig, title)
    return _save(fig, path)


__all__ = [
    "card_heatmap",
    "class_margin_plot",
    "convergence_plot",
    "distribution_plot",
    "equity_heatmap",
    "forest_plot",
    "grouped_forest_panels",
    "grouped_forest_plot",
    "items_plot",
    "panels_of",
    "series_style",
    "wrap",
]
