"""The game review as one self-contained HTML page (no scripts, fonts or images fetched):
the summary, then per hand an inline SVG plot of the expected margin after each play and
deal, and every graded position with its cards drawn as styled spans with suit symbols,
the chosen and the best play, the loss and a colour-coded label."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from scopa_sim.game.cards import RANKS, SUITS
from scopa_sim.records.review import LABELS, THRESHOLDS, HandReview, Review, Summary
from scopa_sim.stats.inference import MIN_SAMPLES
from scopa_sim.wording import plural

SYMBOL = {"D": "\u2666", "H": "\u2665", "C": "\u2663", "S": "\u2660"}
SUIT_TITLE = {"D": "denari", "H": "coppe", "C": "bastoni", "S": "spade"}
#: Label colours (also used for the plot's markers).
COLOURS = {None: "#3a8f3a", "inaccuracy": "#d4a017", "mistake": "#e0671b", "blunder": "#c62828"}
SIDE_COLOURS = ("#1f5fa8", "#b03a2e", "#2e7d32", "#6a1b9a")

#: How cards, plays and labels are drawn: the styles the board (``scopa-sim board``)
#: serves too, so that a card looks the same on the review page and on the board.
CARD_CSS = """.c { display: inline-block; min-width: 25px; padding: 3px 3px 2px; margin: 1px;
  border: 1px solid #9aa3ab; border-radius: 4px; background: #fff; text-align: center;
  font-weight: 700; font-size: 13px; line-height: 15px; box-shadow: 0 1px 0 #cfd4d8; }
.c b { font-weight: 400; margin-left: 1px; }
.pile .c { min-width: 17px; font-size: 10px; line-height: 11px; padding: 0 1px;
  margin: 0 1px 1px 0; }
.D { color: #a0700c; } .H { color: #c0262d; } .C { color: #1d7a34; } .S { color: #1b3f8f; }
.x { color: #6b747c; margin: 0 3px; }
.lab { display: inline-block; padding: 1px 7px; border-radius: 9px; color: #fff;
  font-size: 12px; font-weight: 600; }
.empty { color: #9aa3ab; }
"""

CSS = (
    """
body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; margin: 24px;
  color: #1d2329; background: #f6f5f1; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 6px; }
.meta { color: #55606b; font-size: 13px; margin-bottom: 10px; }
table { border-collapse: collapse; background: #fff; font-size: 13px; }
th, td { border-bottom: 1px solid #e3e1da; padding: 4px 7px; text-align: left;
  vertical-align: middle; }
th { background: #ecebe5; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.forced td { color: #8a9199; }
"""
    + CARD_CSS
    + """.pile { white-space: normal; max-width: 300px; min-width: 150px; }
td small { color: #6b747c; font-size: 11px; }
td.cards, td.nw { white-space: nowrap; }
.pile .who { color: #55606b; font-size: 11px; margin-right: 3px; }
.split { margin: 6px 0 10px; font-size: 14px; }
svg { background: #fff; border: 1px solid #e3e1da; }
"""
)


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def card_html(name: str) -> str:
    """One card (``7D``) as a styled span: rank and suit symbol in the suit's colour."""
    rank, suit = name[:-1], name[-1]
    if rank not in RANKS or suit not in SUITS:
        return _e(name)
    return (
        f'<span class="c {suit}" title="{_e(name)} ({SUIT_TITLE[suit]})">{_e(rank)}'
        f"<b>{SYMBOL[suit]}</b></span>"
    )


def cards_html(text: str) -> str:
    """A space-separated card list as cards (an empty list as a dash)."""
    names = text.split()
    return "".join(card_html(n) for n in names) if names else '<span class="empty">-</span>'


def play_html(text: str) -> str:
    """A play (``7D x 5H 2S``) as its card, a cross, and the cards taken."""
    card, _, take = text.partition(" x ")
    out = card_html(card.strip())
    if take:
        out += '<span class="x">\u2715</span>' + cards_html(take)
    return out


def label_html(label: str | None) -> str:
    """A decision's label as a coloured badge (empty for no label)."""
    if label is None:
        return ""
    return f'<span class="lab" style="background:{COLOURS[label]}">{_e(label)}</span>'


def _fmt(x: float | None, spec: str = "+.2f") -> str:
    return "-" if x is None or not math.isfinite(x) else format(x, spec)


def summary_table(rows: Sequence[Summary]) -> str:
    """The summaries of the seats and sides as an HTML table."""
    head = (
        "<tr><th>who</th><th>unforced decisions</th><th>forced</th>"
        "<th>mean loss per decision (95% CI)</th><th>accuracy</th>"
        + "".join(f"<th>{label_html(n)}</th>" for n in LABELS)
        + "<th>band</th><th>result = luck + skill</th></tr>"
    )
    body = []
    for s in rows:
        lo, hi = s.mean_loss.low, s.mean_loss.high
        ci = (
            f"[{_fmt(lo, '.3f')}, {_fmt(hi, '.3f')}]"
            if s.ci_estimated or not s.decisions
            else "<small>interval not estimated</small>"
        )
        split = (
            f"{_fmt(s.result)} = {_fmt(s.luck)} + {_fmt(s.skill)} ({plural(s.hands, 'hand')})"
            if s.luck is not None
            else ""
        )
        body.append(
            f"<tr><td class='nw'>{_e(s.who)}</td><td class='num'>{s.decisions}</td>"
            f"<td class='num'>{s.forced}</td>"
            f"<td class='num'>{_fmt(s.mean_loss.estimate, '.3f')} {ci}"
            f"</td><td class='num'>{_fmt(s.accuracy, '.1f')}%</td>"
            + "".join(f"<td class='num'>{s.counts[n]}</td>" for n in LABELS)
            + f"<td class='nw'>{_e(s.band)}</td><td class='num'>{split}</td></tr>"
        )
    return f"<table>{head}{''.join(body)}</table>"


def margin_plot(h: HandReview, width: int = 900, height: int = 240) -> str:
    """Inline SVG: each side's expected hand margin (every hand known, the stock not)
    after each play and deal; a deal is a vertical step (its luck), a play a marker in
    its label's colour.  With two sides only side 0 is drawn (side 1 is its negative)."""
    left, right, top, bottom = 46, 12, 14, 30
    total = max(x for x, _ in h.curve) or 1
    sides = 1 if h.sides == 2 else h.sides
    ys = [v[s] for _, v in h.curve for s in range(sides)] + [0.0]
    lo, hi = min(ys), max(ys)
    pad = max(0.5, (hi - lo) * 0.08)
    lo, hi = math.floor(lo - pad), math.ceil(hi + pad)

    def px(x: float) -> float:
        return left + (width - left - right) * x / total

    def py(y: float) -> float:
        return top + (height - top - bottom) * (hi - y) / (hi - lo)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="expected margin after each play">'
    ]
    step = max(1, math.ceil((hi - lo) / 8))
    y = lo
    while y <= hi:
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{py(y):.1f}" y2="{py(y):.1f}" '
            f'stroke="{"#8a9199" if y == 0 else "#eceae4"}" stroke-width="1"/>'
            f'<text x="{left - 6}" y="{py(y) + 4:.1f}" font-size="11" text-anchor="end" '
            f'fill="#55606b">{y:+d}</text>'
        )
        y += step
    for x in range(0, total + 1, 6):
        parts.append(
            f'<text x="{px(x):.1f}" y="{height - 12}" font-size="11" text-anchor="middle" '
            f'fill="#55606b">{x}</text>'
        )
    parts.append(
        f'<text x="{width - right}" y="{height - 1}" font-size="11" text-anchor="end" '
        f'fill="#55606b">plays made</text>'
    )
    for deal in h.deals:
        dx = px(deal.after_plays)
        parts.append(
            f'<line x1="{dx:.1f}" x2="{dx:.1f}" y1="{top}" y2="{height - bottom}" '
            f'stroke="#b9c0c6" stroke-dasharray="3,3"/>'
            f'<text x="{dx + 3:.1f}" y="{top + 9}" font-size="10" fill="#8a9199">deal {deal.index}'
            f"</text>"
        )
    for s in range(sides):
        pts = " ".join(f"{px(x):.1f},{py(v[s]):.1f}" for x, v in h.curve)
        parts.append(
            f'<polyline points="{pts}" fill="none" stroke="{SIDE_COLOURS[s]}" stroke-width="2"/>'
        )
    after: dict[int, tuple[float, ...]] = {}
    for x, v in h.curve:  # the first value at each x after a play (before any deal)
        after.setdefault(x, v)
    for d in h.decisions:
        x = d.play + 1
        if x not in after:
            continue
        s = d.side if sides > 1 else 0
        colour = "#b9c0c6" if d.forced else COLOURS[d.label]
        parts.append(
            f'<circle cx="{px(x):.1f}" cy="{py(after[x][s]):.1f}" r="{4 if d.label else 3}" '
            f'fill="{colour}" stroke="#fff" stroke-width="1">'
            f"<title>play {d.play} seat {d.seat}: {_e(d.chosen)}, "
            f"loss {d.loss.estimate:.2f}</title>"
            f"</circle>"
        )
    legend = "side 0's expected margin (side 1: its negative)" if sides == 1 else "sides"
    parts.append(
        f'<text x="{left + 4}" y="{height - bottom - 6}" font-size="11" '
        f'fill="{SIDE_COLOURS[0]}">{_e(legend)}</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def _piles(piles: Sequence[str], scope: Sequence[int]) -> str:
    out = []
    for s, (p, sc) in enumerate(zip(piles, scope, strict=True)):
        n = len(p.split())
        extra = f", {sc} scop{'a' if sc == 1 else 'e'}" if sc else ""
        out.append(f'<div><span class="who">side {s} ({n}{extra})</span>{cards_html(p)}</div>')
    return "".join(out)


def hand_section(h: HandReview, seats: frozenset[int] | None) -> str:
    """One reviewed hand as HTML: its header, luck and skill, the curve of expected margins and
    every decision of the ``seats`` under review (all when None).
    """
    title = (
        f"{h.file} line {h.line}: match {h.match}, hand {h.hand}, dealer seat {h.dealer}, "
        f"{h.players} players"
    )
    split = "; ".join(
        f"side {s}: result {h.result[s]:+.0f} = luck {h.luck[s]:+.2f} + skill {h.skill[s]:+.2f}"
        for s in range(h.sides)
    )
    deals = ", ".join(
        f"deal {d.index}: " + " / ".join(f"{x:+.2f}" for x in d.luck) for d in h.deals
    )
    rows = []
    for d in h.decisions:
        if seats is not None and d.seat not in seats:
            continue
        if d.forced:
            loss = "forced"
        elif d.exact:
            loss = f"{d.loss.estimate:.2f}<br><small>exact</small>"
        elif d.best == d.chosen:
            loss = "0"
        elif d.interval == "not estimated":
            loss = f"{d.loss.estimate:.2f}<br><small>not estimated</small>"
        else:
            m = d.loss
            loss = f"{m.estimate:.2f}<br><small>[{m.low:+.2f}, {m.high:+.2f}]</small>"
        best = (
            "same"
            if d.best == d.chosen
            else play_html(d.best) + f"<br><small>{d.best_value:+.2f}</small>"
        )
        rows.append(
            f"<tr class='{'forced' if d.forced else ''}'><td class='num'>{d.play}</td>"
            f"<td class='num'>{d.seat}</td><td class='cards'>{cards_html(d.hand_cards)}</td>"
            f"<td class='cards'>{cards_html(d.table)}</td>"
            f"<td class='pile'>{_piles(d.piles, d.scope)}</td>"
            f"<td class='cards'>{play_html(d.chosen)}<br><small>{d.chosen_value:+.2f}</small></td>"
            f"<td class='cards'>{best}</td>"
            f"<td class='num'>{loss}</td><td>{label_html(d.label)}</td></tr>"
        )
    head = (
        "<tr><th>#</th><th>seat</th><th>hand</th><th>table</th><th>piles</th>"
        "<th>chosen (value)</th><th>best (value)</th><th>loss (95% CI)</th><th>label</th></tr>"
    )
    return (
        f"<section><h2>{_e(title)}</h2>"
        f"<div class='split'>{_e(split)}</div>"
        f"<div class='meta'>prior {' / '.join(f'{x:+.2f}' for x in h.prior)}; "
        f"luck per deal (side 0 / side 1 ...): {_e(deals)}</div>"
        f"{margin_plot(h)}"
        f"<table>{head}{''.join(rows)}</table></section>"
    )


def to_html(review: Review) -> str:
    """The whole report as one HTML document."""
    legend = " ".join(f"{label_html(k)} loss &ge; {v:g}" for k, v in THRESHOLDS.items())
    body = [
        "<h1>Game review</h1>",
        f"<div class='meta'>evaluator {_e(review.evaluator)}, seed {review.seed}; "
        f"{plural(len(review.hands), 'hand')} from {_e(', '.join(review.files))}. Values are "
        "expected hand point margins of the deciding side; loss = best &minus; chosen, "
        f"95% CI over common worlds (not estimated from fewer than {MIN_SAMPLES} worlds: "
        "no label); a label needs a CI above 0: "
        f"{legend} points.</div>",
        "<h2>Summary</h2>",
        summary_table([*review.seat_summaries(), *review.side_summaries()]),
        *[hand_section(h, review.seats) for h in review.hands],
    ]
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<title>scopa-sim game review</title>"
        f"<style>{CSS}</style></head><body>{''.join(body)}</body></html>\n"
    )


__all__ = ["CARD_CSS", "COLOURS", "SUIT_TITLE", "SYMBOL", "card_html", "margin_plot", "to_html"]
