"""What the notebook API's results share for their display: the HTML of their
``_repr_html_`` (the cards drawn as on
the review page, :mod:`scopa_sim.records.review_html`, with its style scoped to the
result so that a notebook's own look is left alone).
"""

from __future__ import annotations

import functools
import html
import math
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scopa_sim.stats.estimate import Estimate

_BOX = "scopa-sim"
_EXTRA_CSS = """
.scopa-sim { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  color: #1d2329; }
.scopa-sim caption { text-align: left; font-weight: 600; padding: 4px 0; }
"""


@functools.cache
def scoped_css() -> str:
    """The review page's style with every rule confined to ``.scopa-sim`` boxes (its
    ``body`` rule left out: a notebook keeps its own page style)."""
    from scopa_sim.records.review_html import CSS

    out = []
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", CSS):
        names = [s.strip() for s in selectors.split(",") if s.strip()]
        if names == ["body"]:
            continue
        out.append(", ".join(f".{_BOX} {s}" for s in names) + " {" + body.strip() + "}")
    return "\n".join(out) + _EXTRA_CSS


def esc(x: object) -> str:
    return html.escape(str(x), quote=True)


def box(title: str, *parts: str) -> str:
    """A result's HTML: a titled box with the scoped style."""
    return (
        f"<div class='{_BOX}'><style>{scoped_css()}</style>"
        f"<div class='meta'><b>{esc(title)}</b></div>{''.join(parts)}</div>"
    )


def table(head: Sequence[str], rows: Iterable[Sequence[str]], caption: str = "") -> str:
    """An HTML table: ``head`` escaped, ``rows`` of cells already in HTML (numbers right)."""
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td class='{_cell_class(c)}'>{c}</td>" for c in row) + "</tr>"
        for row in rows
    )
    return f"<table>{cap}<tr>{th}</tr>{body}</table>"


def _cell_class(cell: str) -> str:
    return "num" if re.fullmatch(r"[-+\[\d][-+\d,. \[\]e]*%?", cell) else "nw"


def fmt(x: float, spec: str = "+.4f") -> str:
    return "-" if not math.isfinite(x) else format(x, spec)


def first_few(parts: Sequence[str], shown: int = 3, sep: str = "; ") -> str:
    """``parts`` joined, the first ``shown`` of them and how many more (a short repr)."""
    more = len(parts) - shown
    return sep.join(parts[:shown]) + (f"{sep}... {more} more" if more > 0 else "")


def est_cells(e: Estimate, spec: str = "+.4f") -> list[str]:
    """An estimate as three cells: the estimate, its interval, its sample size."""
    return [fmt(e.estimate, spec), f"[{fmt(e.low, spec)}, {fmt(e.high, spec)}]", f"{e.n:,}"]


__all__ = ["box", "esc", "est_cells", "first_few", "fmt", "scoped_css", "table"]
