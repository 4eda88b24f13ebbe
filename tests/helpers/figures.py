"""Figures as a reader meets them (issue 40): :func:`check_figure` (texts inside the
canvas, at most :data:`LIMIT` series per axes in distinct colours, no legend over the
data) and :func:`unlinked_figures` (the figures no report links)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import Collection
from matplotlib.colors import to_hex
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

#: The most series a reader can tell apart on one axes (the issue's "about 8").
LIMIT = 8

#: A Markdown link or image target: ``[text](target)`` or ``![alt](target)``.
LINK = re.compile(r"\]\(([^)\s]+)\)")


def unlinked_figures(folder: Path) -> list[Path]:
    """The PNG files under ``folder`` that no Markdown file under it links to (a link is
    relative to its Markdown file), sorted."""
    linked: set[Path] = set()
    for md in folder.rglob("*.md"):
        for target in LINK.findall(md.read_text(encoding="utf-8")):
            linked.add((md.parent / target).resolve())
    return sorted(p for p in folder.rglob("*.png") if p.resolve() not in linked)


def _texts(fig: Figure) -> list[Any]:
    """Every visible, non-empty text: titles, axis labels, drawn tick labels, legends,
    annotations."""
    out: list[Any] = list(fig.texts)
    out += [t for t in (fig._suptitle, fig._supxlabel, fig._supylabel) if t is not None]
    for legend in [*fig.legends, *(a.get_legend() for a in fig.axes)]:
        if legend is not None:
            out += legend.get_texts()
    for ax in fig.axes:
        out += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label]
        out += list(ax.texts)  # annotations, values written in cells
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if lo - 1e-9 <= tick.get_loc() <= hi + 1e-9:
                    out += [tick.label1, tick.label2]
    return [t for t in out if t.get_visible() and t.get_text().strip()]


def series_of(ax: Axes) -> list[tuple[Any, str]]:
    """The labelled series of an axes (those a legend lists) with their labels."""
    handles, labels = ax.get_legend_handles_labels()
    return list(zip(handles, labels, strict=True))


def _colour(handle: Any) -> str:
    """The colour a series is drawn in."""
    if isinstance(handle, ErrorbarContainer):
        handle = handle.lines[0]
    elif isinstance(handle, BarContainer):
        return to_hex(handle.patches[0].get_facecolor())
    if isinstance(handle, Line2D):
        return to_hex(handle.get_color())
    if isinstance(handle, Collection):
        return to_hex(handle.get_facecolor()[0])
    return to_hex(handle.get_facecolor())


def _points(ax: Axes) -> np.ndarray:
    """The display coordinates of the data an axes plots (line vertices, bar tops,
    collection offsets and paths), inside its view."""
    pts: list[np.ndarray] = []
    for line in ax.get_lines():
        xy = np.column_stack([np.asarray(line.get_xdata(), float),
                              np.asarray(line.get_ydata(), float)])  # fmt: skip
        pts.append(xy)
    for patch in ax.patches:
        if isinstance(patch, Rectangle):
            x, y, w, h = patch.get_x(), patch.get_y(), patch.get_width(), patch.get_height()
            pts.append(np.array([[x + w / 2, y + h]]))
    for c in ax.collections:
        for path in c.get_paths():
            pts.append(path.vertices)
    if not pts:
        return np.empty((0, 2))
    xy = np.concatenate(pts)
    xy = xy[np.isfinite(xy).all(axis=1)]
    (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
    xy = xy[(xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)]
    return ax.transData.transform(xy) if xy.size else np.empty((0, 2))


def check_figure(fig: Figure) -> None:
    """The figure as a reader meets it: every text inside the canvas; at most
    :data:`LIMIT` labelled series per axes, in distinct colours; no legend
    over a plotted point."""
    canvas = FigureCanvasAgg(fig)  # as savefig draws it
    canvas.draw()
    renderer = canvas.get_renderer()
    box = fig.bbox
    for t in _texts(fig):
        b = t.get_window_extent(renderer)
        inside = b.x0 >= box.x0 - 1 and b.x1 <= box.x1 + 1 and b.y0 >= box.y0 - 1
        assert inside and b.y1 <= box.y1 + 1, f"{t.get_text()!r} leaves the canvas: {b}"
    legends = [*fig.legends, *(a.get_legend() for a in fig.axes)]
    for ax in fig.axes:
        series = series_of(ax)
        assert len(series) <= LIMIT, f"{len(series)} series on one axes"
        colours = [_colour(h) for h, _ in series]
        assert len(set(colours)) == len(colours), f"colours repeat: {colours}"
        pts = _points(ax)
        for legend in legends:
            if legend is None:
                continue
            lb = legend.get_window_extent(renderer)
            over = ((pts[:, 0] > lb.x0) & (pts[:, 0] < lb.x1) & (pts[:, 1] > lb.y0)
                    & (pts[:, 1] < lb.y1))  # fmt: skip
            assert not over.any(), f"the legend covers {over.sum()} plotted points"
