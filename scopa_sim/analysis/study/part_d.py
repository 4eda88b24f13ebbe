"""Part D of the study: what a deal is worth (issue 27).

From part A's plain runs of every preset under the kernel policies (and under search
where those runs are finished) and part D's own runs (:func:`.plan.part_d_runs`): each
card's value to the side dealt it in the first deal and in any deal, the opening-hand and
opening-table tables of the 2-player presets under ``expert``, the luck share under each
policy and preset, and how often the stronger policy wins a match to 11
(:mod:`scopa_sim.analysis.deal_analyses` has the estimators and their methods). Written as
``part-d/report.md`` with figures and CSV tables, rows of ``results.json`` (part ``D``)
and a section of the study's README between :data:`BEGIN` and :data:`END`, so that it
can be added to (or refreshed in) a study whose parts A-C are already written.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scopa_sim.analysis import deal_analyses as DV
from scopa_sim.analysis import plots as P
from scopa_sim.analysis.study.parts_a_to_c import Results, _ci, _header, _table, _tag_name
from scopa_sim.data.run import Run, open_run
from scopa_sim.errors import AnalysisError
from scopa_sim.files import write_text
from scopa_sim.game.rules import KERNEL_PRESETS, Rules
from scopa_sim.stats import inference as S
from scopa_sim.stats.estimate import Estimate

if TYPE_CHECKING:
    from scopa_sim.analysis.study.plan import Plan, Scale

#: The README section of part D lies between these lines.
BEGIN = "<!-- part D: begin -->"
END = "<!-- part D: end -->"
TITLE = "Part D: what a deal is worth — card values, opening hands, luck and skill"
#: Classes shown at each end of an opening table in the report (all are in the CSV).
SHOWN = 12


@dataclass(frozen=True)
class PartD:
    """Part D's estimates."""

    values: list[DV.CardValues]
    hands: list[DV.ClassTable]
    tables: list[DV.ClassTable]
    luck: list[tuple[str, str, DV.LuckShare, int]]  # (preset, tag, share, the run's hands)
    strength: list[tuple[str, str, Estimate]]  # (stronger tag, weaker tag, wins)


def _finished(path: Path) -> Run | None:
    """The run in ``path`` if it is complete, else None."""
    try:
        return open_run(path)
    except Exception:  # any missing or unfinished run: not read
        return None


def compute(
    plan: Plan, dirs: dict[str, Path], say: Callable[[str], None] = print
) -> tuple[PartD, Results]:
    """Part D's estimates from the runs in ``dirs`` (by run name) and their results.json
    rows."""
    from scopa_sim.analysis.study.plan import (
        DEALS_RUN,
        KERNEL_POLICIES,
        SEARCH,
        STRENGTH_PAIRS,
        strength_run,
    )

    res = Results()
    out = PartD([], [], [], [], [])
    for preset in KERNEL_PRESETS:
        for tag in (*KERNEL_POLICIES, SEARCH):
            name = DEALS_RUN if (preset, tag) == ("scopa", "expert") else f"{preset}-{tag}"
            run = _finished(dirs[name]) if name in dirs else None
            if run is None:
                continue
            say(f"part D: {name}")
            ds = DV.deal_sides(run)
            if tag != SEARCH:
                for deal in ("first", "any"):
                    cv = DV.card_values(ds, deal)
                    out.values.append(cv)
                    _value_rows(res, cv)
            luck = _luck(ds)
            out.luck.append((preset, tag, luck, ds.n))
            res.add("D", preset, {}, run.config.policies[0], "luck_share", luck.share.estimate,
                    luck.share.low, luck.share.high, luck.hands, luck.share.method,
                    features=luck.features,
                    folds=[_num(f) for f in luck.folds],
                    too_few=not luck.reported, run_hands=ds.n,
                    min_hands=DV.MIN_LUCK_HANDS)  # fmt: skip
            if tag == "expert" and Rules.make(preset).players == 2:
                for table in (DV.opening_hands(ds), DV.opening_tables(ds)):
                    (out.hands if table.what == "hand" else out.tables).append(table)
                    _class_rows(res, table)
            del ds
    for strong, weak in STRENGTH_PAIRS:
        name = strength_run(strong, weak)
        run = _finished(dirs[name]) if name in dirs else None
        if run is None:
            continue
        p = DV.match_wins(run, 0)
        out.strength.append((strong, weak, p))
        res.add("D", "scopa", {}, " vs ".join(run.config.policies), "stronger_wins_match",
                p.estimate, p.low, p.high, p.n, "share of matches to 11 won by the stronger "
                "policy (seat 0; each match's first dealer drawn at random); Wilson 95% CI",
                stronger=run.config.policies[0], weaker=run.config.policies[1])  # fmt: skip
    return out, res


def _luck(ds: DV.DealSides) -> DV.LuckShare:
    """The run's luck share, or a share without a number when it has fewer hands than
    :data:`~scopa_sim.analysis.deal_analyses.MIN_LUCK_HANDS` (the search runs; every run of a small
    study), where the cross-validated R² is shrunk by its own fit."""
    if min(ds.n, DV.LUCK_HANDS) < DV.MIN_LUCK_HANDS:
        return DV.LuckShare(Estimate(math.nan, math.nan, math.nan, ds.n, DV.LUCK_METHOD), (), 0)
    return DV.luck_share(ds)


def _num(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _value_rows(res: Results, cv: DV.CardValues) -> None:
    for v in cv.values:
        res.add("D", cv.preset, {}, cv.policy, "card_value",
                v.value.estimate, v.value.low, v.value.high, cv.hands, cv.method, card=v.card,
                deal=cv.deal,
                dealt=v.dealt, too_few=v.too_few)  # fmt: skip


def _class_rows(res: Results, t: DV.ClassTable) -> None:
    metric, key = ("opening_hand_margin", "hand_class") if t.what == "hand" else (
        "opening_table_margin", "table_class")  # fmt: skip
    method = (f"mean margin of the {{role}} over the hands of the class, t 95% CI; fewer "
              f"than {DV.MIN_CELL} hands: too few (null)")  # fmt: skip
    classes = _classes_by_role(t)
    for c in t.cells:
        lo, hi = simultaneous(c, classes[c.role])
        res.add("D", t.preset, {}, t.policy, metric, c.margin.estimate, c.margin.low,
                c.margin.high, c.hands,
                method.format(role="dealer" if c.role == "dealer" else "first player"),
                **{key: c.key}, role=c.role, too_few=c.too_few, simultaneous_low=_num(lo),
                simultaneous_high=_num(hi), simultaneous_over=classes[c.role])  # fmt: skip


def _classes_by_role(t: DV.ClassTable) -> dict[str, int]:
    """How many classes of each role of ``t`` have a number: the family a class's
    simultaneous interval (:func:`simultaneous`) holds over."""
    out: dict[str, int] = {}
    for c in t.cells:
        out[c.role] = out.get(c.role, 0) + (not c.too_few)
    return out


def _class_csv(path: Path, t: DV.ClassTable) -> None:
    """Every class of ``t``: its plain t interval and its interval simultaneous over the
    classes of its role with a number."""
    classes = _classes_by_role(t)
    rows = []
    for c in t.cells:
        lo, hi = simultaneous(c, classes[c.role])
        m = c.margin
        rows.append([c.key, c.role, c.hands, m.estimate, m.low, m.high, lo, hi])
    _csv(path, ["class", "role", "hands", "margin", "ci_low", "ci_high", "simultaneous_low",
                "simultaneous_high"], rows)  # fmt: skip


# --------------------------------------------------------------------------- report


def _pct(x: DV.LuckShare) -> str:
    if not x.reported:
        return f"not reported (fewer than {DV.MIN_LUCK_HANDS:,} hands)"
    return _ci(100 * x.share.estimate, 100 * x.share.low, 100 * x.share.high, 1, False) + " %"


def _used(x: DV.LuckShare, run_hands: int) -> str:
    """The hands a luck share used, against the run's."""
    if x.hands >= run_hands:
        return f"n={x.hands:,} hands"
    return f"n={x.hands:,} hands: the first of the run's {run_hands:,}"


def _v(v: DV.CardValue) -> str:
    return "too few" if v.too_few else _ci(v.value.estimate, v.value.low, v.value.high, 3)


def simultaneous(c: DV.ClassCell, classes: int) -> tuple[float, float]:
    """A class's 95% interval made simultaneous over ``classes`` classes (Bonferroni: each
    at level 1 - 0.05 / classes), which still holds for a class picked for being at the
    top or the bottom of them; its t interval widened by the ratio of the quantiles."""
    if c.too_few or classes < 1:
        return math.nan, math.nan
    wide = S._z_quantile(1 - 0.05 / classes) / S._z_quantile(0.95)
    h = (c.margin.high - c.margin.low) / 2 * wide
    return c.margin.estimate - h, c.margin.estimate + h


def _selected(c: DV.ClassCell, classes: int) -> list[str]:
    """A shown class's row: its key, its simultaneous interval over ``classes``, its plain
    t interval, its hands."""
    lo, hi = simultaneous(c, classes)
    m = c.margin
    return [f"`{c.key}`", _ci(m.estimate, lo, hi, 3), _ci(m.estimate, m.low, m.high, 3),
            f"{c.hands:,}"]  # fmt: skip


def _find(items: Sequence[Any], **want: Any) -> Any:
    for x in items:
        if all(getattr(x, k) == v for k, v in want.items()):
            return x
    return None


def conclusion(d: PartD) -> str:
    """Part D's conclusion in a sentence: the settebello's worth and the luck share in
    `scopa` under `expert`, with what their intervals allow."""
    cv = _find(d.values, preset="scopa", policy="expert", deal="first")
    luck = next(((x, m) for p, t, x, m in d.luck if p == "scopa" and t == "expert"), None)
    parts = []
    if cv is not None:
        sb = cv.value("7D")
        if sb.too_few:
            parts.append("too few hands to value the settebello in `scopa` under `expert`")
        else:
            v = sb.value
            parts.append(f"in `scopa` under `expert` the settebello in the opening hand is worth "
                         f"{_ci(v.estimate, v.low, v.high)} points of margin per hand "
                         f"against an average card (n={cv.hands:,} hands)")  # fmt: skip
    if luck is not None and luck[0].reported:
        parts.append(f"the deal alone explains {_pct(luck[0])} of the variance of a hand's "
                     f"margin ({_used(*luck)})")  # fmt: skip
    return "; ".join(parts) or "no run of part D was finished"


def _values_section(d: PartD, folder: Path) -> list[str]:
    from scopa_sim.game.cards import RANKS, SUITS

    L = ["## Card values", "",
         "What a card is worth to the side dealt it **instead of an average card of the "
         "deck**, in points of margin per hand (its side's points minus the other side's), "
         "all other cards held fixed: from an OLS regression of the dealer margin on an "
         "intercept and, for each card of the deck, +1 when it is dealt to the dealer's "
         "side, -1 to the first player's, 0 otherwise (on the table or, with three players, "
         "to the third seat). Both sides are dealt as many cards, so the indicators sum to "
         "zero in every hand and only contrasts between cards are identified: the fit is "
         "reference-coded and each value is the card's coefficient minus the average of all "
         "(the values sum to zero). A negative value is a card below the average card, not "
         "a card that costs points; the difference of two values is what holding one "
         "instead of the other is worth. 95% CIs from HC1 (heteroscedasticity-robust) "
         "standard errors of these contrasts. **First "
         "deal**: the card is in the side's opening hand; **any deal**: in one of its hands. "
         "A card dealt to a side in fewer than "
         f"{DV.MIN_CELL} hands is reported as too few; the cards a deck lacks are absent (—).",
         ""]  # fmt: skip
    grids = []
    for deal in ("first", "any"):
        cv = _find(d.values, preset="scopa", policy="expert", deal=deal)
        if cv is None:
            continue
        hw = max((v.value.high - v.value.low) / 2 for v in cv.values if not v.too_few) if any(
            not v.too_few for v in cv.values) else math.nan  # fmt: skip
        L += [f"### `scopa` under `expert`, {deal} deal ({cv.hands:,} hands; largest CI "
              f"half-width ±{hw:.3f}; margin with both sides' cards of equal value "
              f"{cv.intercept:+.3f})", ""]  # fmt: skip
        by = {v.card: v for v in cv.values}
        rows = []
        for s in SUITS:
            rows.append([s] + [_v(by[r + s]) if r + s in by else "—" for r in RANKS])
        L += [*_table(["suit", *RANKS], rows), ""]
        grids.append((f"{deal} deal ({cv.hands:,} hands)", cv.grid()))
    if grids:
        png = P.card_heatmap(grids, folder / "card-values-scopa-expert.png",
                             "Card values, scopa under expert",
                             "margin points per hand to the side dealt it, against the "
                             "average card")  # fmt: skip
        L += [f"![card values]({png.name})", ""]
    figs = []
    for preset in dict.fromkeys(cv.preset for cv in d.values):
        panels = [(f"{cv.policy}, first deal ({cv.hands:,} hands)", cv.grid()) for cv in d.values
                  if cv.preset == preset and cv.deal == "first"]  # fmt: skip
        png = P.card_heatmap(panels, folder / f"card-values-{preset}.png",
                             f"Card values, {preset}, first deal",
                             "margin points per hand to the side dealt it, against the "
                             "average card")  # fmt: skip
        figs.append(f"[`{preset}`]({png.name})")
    L += ["### Every preset and kernel policy", "",
          "Heatmaps of the first deal's values under each kernel policy: " + ", ".join(figs)
          + ".", "",
          "The settebello's value, the most and the least valuable card (first deal), and "
          "the largest CI half-width; every card's value is in `card-values.csv` and "
          "`results.json`.", ""]  # fmt: skip
    rows = []
    for cv in d.values:
        ok = [v for v in cv.values if not v.too_few]
        if not ok:
            rows.append([f"`{cv.preset}`", f"`{cv.policy}`", cv.deal, "too few", "", "", "",
                         f"{cv.hands:,}"])  # fmt: skip
            continue
        best = max(ok, key=lambda v: v.value.estimate)
        worst = min(ok, key=lambda v: v.value.estimate)
        hw = max((v.value.high - v.value.low) / 2 for v in ok)
        rows.append([f"`{cv.preset}`", f"`{cv.policy}`", cv.deal, _v(cv.value("7D")),
                     f"{best.card} {best.value.estimate:+.3f}",
                     f"{worst.card} {worst.value.estimate:+.3f}",
                     f"±{hw:.3f}", f"{cv.hands:,}"])  # fmt: skip
    head = ["preset", "policy", "deal", "7D (settebello)", "most", "least", "largest ±", "hands"]
    L += [*_table(head, rows), ""]
    _csv(folder / "card-values.csv", ["preset", "policy", "deal", "card", "value", "ci_low",
         "ci_high", "se", "dealt", "hands"], [[cv.preset, cv.policy, cv.deal, v.card,
         v.value.estimate, v.value.low, v.value.high, v.se, v.dealt, cv.hands] for cv in d.values
         for v in cv.values])  # fmt: skip
    return L


def _csv(path: Path, header: list[str], rows: list[list[Any]]) -> None:
    def cell(x: Any) -> str:
        if isinstance(x, float):
            return "" if not math.isfinite(x) else f"{x:.6g}"
        return str(x)

    lines = [",".join(header)] + [",".join(cell(x) for x in r) for r in rows]
    write_text(path, "\n".join(lines) + "\n")


def _classes_section(d: PartD, folder: Path) -> list[str]:
    L = ["## Opening hands and opening tables (2-player presets, `expert`)", "",
         "The first player's and the dealer's mean margin (their side's points minus the "
         "other's, per hand) by the class of their opening hand: its three ranks (A 2-7 J Q "
         "K), how many denari, `+7D` when the settebello is among them (`7-7-K:1d+7D`), with "
         "t 95% CIs and the hands behind each cell, best first; and the dealer's mean margin "
         "by the class of the opening table (its ranks, `+7D`; the first player's is its "
         f"opposite). Cells of fewer than {DV.MIN_CELL} hands are too few. The "
         f"{SHOWN} best and worst of each are shown: they are *selected* for being at the "
         "top or the bottom of many classes, where a plain 95% interval is too short (the "
         "extremes regress towards the mean on fresh data), so the interval beside each is "
         "**simultaneous over all the classes with a number** (Bonferroni), which holds for "
         "a selected class too; the plain t interval follows for reference. Every class is "
         "in the CSV files and `results.json` with both intervals (`simultaneous_low`, "
         "`simultaneous_high`, over `simultaneous_over` classes).", ""]  # fmt: skip
    for t in d.hands:
        L += [f"### `{t.preset}`: opening hands ({t.hands:,} hands)", ""]
        for role in ("first", "dealer"):
            cells = [c for c in t.role(role) if not c.too_few]
            few = len(t.role(role)) - len(cells)
            shown = cells if len(cells) <= 2 * SHOWN else cells[:SHOWN] + cells[-SHOWN:]
            who = "first player" if role == "first" else "dealer"
            L += [f"**{who}** ({len(cells)} classes with a number, {few} too few):", ""]
            L += _table(["hand class", f"{who}'s margin [simultaneous 95% CI over "
                         f"{len(cells)}]", "plain t 95% CI", "hands"],
                        [_selected(c, len(cells)) for c in shown])  # fmt: skip
            L += [""]
        png = P.class_margin_plot(
            [(f"{'first player' if r == 'first' else 'dealer'}", [c for c in t.role(r)
              if not c.too_few]) for r in ("first", "dealer")],
            folder / f"opening-hands-{t.preset}.png",
            f"{t.preset} under {t.policy}: margin by opening hand class",
            "margin, points per hand",
        )  # fmt: skip
        L += [f"![opening hands]({png.name})", ""]
        _class_csv(folder / f"opening-hands-{t.preset}.csv", t)
    for t in d.tables:
        cells = [c for c in t.cells if not c.too_few]
        few = len(t.cells) - len(cells)
        shown = cells if len(cells) <= 2 * SHOWN else cells[:SHOWN] + cells[-SHOWN:]
        L += [f"### `{t.preset}`: opening tables ({t.hands:,} hands; {len(cells)} classes "
              f"with a number, {few} too few)", ""]  # fmt: skip
        L += _table(
            [
                "table class",
                f"dealer's margin [simultaneous 95% CI over {len(cells)}]",
                "plain t 95% CI",
                "hands",
            ],
            [_selected(c, len(cells)) for c in shown],
        )
        png = P.class_margin_plot([("dealer", cells)],
                                  folder / f"opening-tables-{t.preset}.png",
                                  f"{t.preset} under {t.policy}: margin by opening table class",
                                  "dealer's margin, points per hand")  # fmt: skip
        L += ["", f"![opening tables]({png.name})", ""]
        _class_csv(folder / f"opening-tables-{t.preset}.csv", t)
    return L


def _luck_section(d: PartD) -> list[str]:
    L = ["## Luck and skill", "", f"**Luck share**: {DV.LUCK_METHOD}. A linear predictor is "
         "a lower bound on what the deal determines: the share the best possible deal-only "
         "predictor explains can only be larger. Below "
         f"{DV.MIN_LUCK_HANDS:,} hands the cross-validated R² is shrunk by the noise of its "
         "own fit (the curve measured on subsamples of one run is in the deals guide), so "
         "runs that small are not given a number: a policy's row would differ from "
         "another's by its sample size, not by its play.", ""]  # fmt: skip
    rows = [[f"`{p}`", _tag_name(t), _pct(x), _used(x, m), str(x.features)]
            for p, t, x, m in d.luck if x.reported]  # fmt: skip
    if rows:
        head = ["preset", "policy", "luck share (R²)", "hands used", "features"]
        L += [*_table(head, rows), ""]
    few = [f"`{p}` under {_tag_name(t)} ({m:,} hands)" for p, t, x, m in d.luck
           if not x.reported]  # fmt: skip
    if few:
        L += [f"Not reported (fewer than {DV.MIN_LUCK_HANDS:,} hands): " + "; ".join(few)
              + ".", ""]  # fmt: skip
    L += ["**The stronger policy wins a match to 11** (`scopa`; the stronger at seat 0, each "
          "match's first dealer drawn at random; Wilson 95% CI): a plain measure of how much "
          "skill decides a match.", ""]  # fmt: skip
    rows = [[_tag_name(s), _tag_name(w), _ci(w_.estimate, w_.low, w_.high, 3, False),
             f"{w_.n:,}", _half(w_)]
            for s, w, w_ in d.strength]  # fmt: skip
    L += _table(["stronger", "weaker", "P(stronger wins)", "matches", "against 0.5"], rows)
    return [*L, ""]


def _half(p: Estimate) -> str:
    """What a proportion's interval allows against one half."""
    if not (math.isfinite(p.low) and math.isfinite(p.high)):
        return "no interval"
    if p.low > 0.5:
        return "above 0.5"
    if p.high < 0.5:
        return "below 0.5"
    return "**CI includes 0.5: too wide to conclude**"


def write_report(d: PartD, folder: Path, head: list[str], sizes: str = "") -> Path:
    """``part-d/report.md`` with its figures and CSV tables: the header, the conclusion in
    a sentence, the sample sizes, then each section."""
    folder.mkdir(parents=True, exist_ok=True)
    c = conclusion(d)
    L = [*head, f"**{c[0].upper()}{c[1:]}.**", ""] + ([sizes, ""] if sizes else [])
    L += _values_section(d, folder)
    L += _classes_section(d, folder)
    L += _luck_section(d)
    md = folder / "report.md"
    write_text(md, "\n".join(L) + "\n")
    return md


def headlines(d: PartD) -> list[str]:
    """Part D's main numbers, one bullet each."""
    out = []
    for deal in ("first", "any"):
        cv = _find(d.values, preset="scopa", policy="expert", deal=deal)
        if cv is not None:
            sb = cv.value("7D")
            out.append(f"* the settebello dealt to a side ({deal} deal) instead of an average "
                       f"card is worth {_v(sb)} points of margin per hand in `scopa` under "
                       f"`expert` (n={cv.hands:,} hands, OLS contrast with HC1 CI)")  # fmt: skip
    t = _find(d.hands, preset="scopa")
    if t is not None:
        for role in ("first", "dealer"):
            cells = [c for c in t.role(role) if not c.too_few]
            if cells:
                who = "first player" if role == "first" else "dealer"
                top, low = cells[0], cells[-1]
                a, b = simultaneous(top, len(cells)), simultaneous(low, len(cells))
                out.append(f"* best opening hand for the {who} in `scopa`: `{top.key}` "
                           f"{_ci(top.margin.estimate, *a)} (n={top.hands:,}); worst `{low.key}` "
                           f"{_ci(low.margin.estimate, *b)} (n={low.hands:,}); both selected from "
                           f"{len(cells)} classes, intervals simultaneous over them "
                           "(Bonferroni)")  # fmt: skip
    for p, tag, x, m in d.luck:
        if p == "scopa" and x.reported:
            out.append(f"* the deal alone explains {_pct(x)} of the variance of a hand's "
                       f"margin in `scopa` under {_tag_name(tag)} ({_used(x, m)})")  # fmt: skip
    for s, w, won in d.strength:
        out.append(f"* {_tag_name(s)} beats {_tag_name(w)} in a match to 11 with probability "
                   f"{_ci(won.estimate, won.low, won.high, 3, False)} (n={won.n:,} "
                   "matches)")  # fmt: skip
    return out


def readme_block(d: PartD, report: Path, out: Path) -> list[str]:
    """Part D's section of the study's README (between :data:`BEGIN` and :data:`END`)."""
    return [BEGIN, "", f"## {TITLE}", "", f"* [{TITLE}]({report.relative_to(out)})", "",
            *headlines(d), "",
            "Its `results.json` rows (part `D`): `card_value` (key `card`, e.g. `7D`; the card "
            "against the average card of the deck, the values summing to zero; `deal`: "
            "`first` or `any`; `dealt`: hands with the card dealt to a side), "
            "`opening_hand_margin` (key `hand_class`, `role`: `first` or `dealer`), "
            "`opening_table_margin` (key `table_class`, the dealer's margin), `luck_share` and "
            "`stronger_wins_match` (`stronger`, `weaker`); a cell of too few hands has "
            "`too_few: true` and a null estimate.", "", END]  # fmt: skip


def merge_readme(
    readme: Path, block: list[str], title: str, begin: str = BEGIN, end: str = END
) -> None:
    """Put a part's block (part D's unless ``begin`` and ``end`` mark another's) in the
    README: in place of an earlier one, else at its end (a new README, with ``title``,
    when there is none)."""
    text = readme.read_text() if readme.exists() else f"# {title}\n"
    lines = text.rstrip("\n").split("\n")
    if begin in lines and end in lines:
        i, j = lines.index(begin), lines.index(end)
        lines = lines[:i] + block + lines[j + 1 :]
    else:
        lines = [*lines, "", *block]
    write_text(readme, "\n".join(lines) + "\n")


def merge_results(path: Path, rows: list[dict[str, Any]], part: str = "D") -> None:
    """Replace the rows of ``part`` in ``results.json`` (keeping every other part's) with
    ``rows``."""
    old: list[dict[str, Any]] = []
    if path.exists():
        try:
            old = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise AnalysisError(f"{path}: not a study's results.json ({e})") from None
        if not isinstance(old, list):
            raise AnalysisError(f"{path}: not a study's results.json (not a list)")
    kept = [r for r in old if not (isinstance(r, dict) and r.get("part") == part)]
    write_text(path, json.dumps(kept + rows, indent=1) + "\n")


def write_part_d(
    plan: Plan,
    dirs: dict[str, Path],
    out: Path,
    scale_name: str,
    scale: Scale,
    seed: int,
    say: Callable[[str], None] = print,
) -> list[Path]:
    """Compute part D, write its report, and add its rows to ``out/results.json`` and its
    section to ``out/README.md`` (replacing earlier ones); return the files written."""
    d, res = compute(plan, dirs, say)
    cmd = f"scopa-sim study --part D --scale {scale_name} --seed {seed} --out {out}"
    head = _header(TITLE, scale_name, seed, cmd)
    sizes = (
        f"Sample sizes: {scale.deal_hands:,} hands of `scopa` under `expert` (its own run); "
        "part A's plain runs for the other presets and policies (their hands are given with "
        f"each figure); {scale.strength_matches:,} matches of `expert` against `greedy` and "
        f"{scale.search_strength_matches:,} of search against `expert`."
    )
    md = write_report(d, out / "part-d", head, sizes)
    readme = out / "README.md"
    merge_readme(readme, readme_block(d, md, out), f"scopa-sim study ({scale_name} scale, "
                 f"seed {seed})")  # fmt: skip
    rj = out / "results.json"
    merge_results(rj, res.rows)
    say(f"wrote {md}, part D of {readme} and {rj}")
    return [md, readme, rj]


__all__ = [
    "BEGIN",
    "END",
    "PartD",
    "compute",
    "conclusion",
    "headlines",
    "merge_readme",
    "merge_results",
    "readme_block",
    "write_part_d",
    "write_report",
]
