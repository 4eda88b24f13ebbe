"""Part E of the study: Cirulla (issue 42, RULES.md §10).

From part E's runs (:func:`scopa_sim.analysis.study.plan._cirulla_runs`: the presets of
:data:`~scopa_sim.analysis.study.plan.CIRULLA_PRESETS` under each kernel policy and the
search setting :data:`~scopa_sim.analysis.study.plan.CIRULLA_SEARCH_POLICY`, the options of
:data:`~scopa_sim.analysis.study.plan.CIRULLA_OPTIONS` from ``cirulla``, matches to 51):

* the dealer margin (dealer's side minus the first player's, points per hand) and every
  seat's points, plain hands (Cirulla has no duplicate deals yet);
* how often a declaration, the grande, the piccola and the cappotto (a side taking the ten
  denari) happen, and the points they bring a hand;
* each option's effect on the dealer margin, paired on the decks with ``cirulla`` under the
  same policy, and on the first mover's match wins and the match's length under ``expert``;
* the first mover's chance of winning a match to 51: by the dynamic programme over hand
  results for the two-side presets (checked against simulated matches of ``cirulla``),
  from simulated matches for ``cirulla-3`` (the three-side programme at 51 costs minutes a
  bootstrap replicate); ``cirulla``'s match-equity table under ``expert``;
* the cards' values in ``cirulla`` under ``expert`` (:func:`deal_analyses.card_values`);
* what declaring is worth against keeping quiet: ``cirulla`` against ``cirulla`` with
  ``declare=off`` on the same deals, under ``expert`` (which declares every hand that
  qualifies) and under search (which decides), in the hands where one side declared.

Its tests are Holm-adjusted in families of their own (:data:`FAMILIES`). Written as
``part-e/report.md``, rows of ``results.json`` (part ``E``) and a section of the README
between :data:`BEGIN` and :data:`END`, after the other parts' (which it leaves as they
are).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from scopa_sim.analysis import analyze as A
from scopa_sim.analysis import deal_analyses as DV
from scopa_sim.analysis.study.part_d import merge_readme, merge_results
from scopa_sim.analysis.study.parts_a_to_c import (
    ALPHA,
    Data,
    Results,
    _ci,
    _header,
    _num,
    _overrides,
    _table,
    bootstrap_seed,
    t_p_value,
)
from scopa_sim.data.roles import side_value
from scopa_sim.data.run import open_run, scan
from scopa_sim.files import write_text
from scopa_sim.game.rules import Rules
from scopa_sim.stats import equity as E
from scopa_sim.stats import inference as S
from scopa_sim.stats.estimate import Estimate

if TYPE_CHECKING:
    from scopa_sim.analysis.study.plan import Effect, Plan, Scale

#: The README section of part E lies between these lines.
BEGIN = "<!-- part E: begin -->"
END = "<!-- part E: end -->"
TITLE = "Part E: Cirulla — the dealer's edge, options, matches to 51, cards and declarations"
#: Part E's families of tests, Holm-adjusted each on its own (``holm_family``).
FAMILIES = {
    "dealer_margin": "Cirulla: every preset's dealer margin, under every policy",
    "effect:dealer_margin": "Cirulla: every option's per-hand effect on the dealer margin, "
    "under every policy",
    "effect:match": "Cirulla: every option's per-match effect under expert (first mover's "
    "match wins and match length)",
    "first_mover_match_win": "Cirulla: every first mover's chance of winning a match to 51 "
    "against the fair chance, under every policy and preset",
    "declaration_value": "Cirulla: what declaring is worth against keeping quiet, under "
    "every policy",
}
#: The cards part E reports the value of: the matta, the settebello, the piccola's run
#: (A-6 of denari) and the grande (J, Q, K of denari).
NAMED_CARDS = (
    ("7H", "the matta"),
    ("7D", "the settebello (and the piccola's 7 with piccola_max=7)"),
    ("AD", "piccola"),
    ("2D", "piccola"),
    ("3D", "piccola"),
    ("4D", "piccola (its 4th point)"),
    ("5D", "piccola (5th)"),
    ("6D", "piccola (6th)"),
    ("JD", "grande"),
    ("QD", "grande"),
    ("KD", "grande"),
)
#: The events counted per hand: (metric, what it is).
EVENTS = (
    ("declaration_share", "hands in which a side declared"),
    ("grande_share", "hands in which a side scored the grande"),
    ("piccola_share", "hands in which a side scored the piccola"),
    ("cappotto_share", "hands in which a side took all ten denari (a cappotto)"),
)
#: The points per hand of each item (every side's together): (metric, item).
ITEM_POINTS = (
    ("declared_points", "declarations"),
    ("grande_points", "grande"),
    ("piccola_points", "piccola"),
)


@dataclass
class PartE:
    """Part E's estimates, for the report."""

    margins: list[tuple[str, str, Estimate, float]] = field(default_factory=list)
    seats: list[tuple[str, str, list[Estimate]]] = field(default_factory=list)
    events: list[tuple[str, str, dict[str, Estimate]]] = field(default_factory=list)
    hand: list[tuple[Effect, S.TestResult]] = field(default_factory=list)
    match: list[tuple[Effect, list[S.TestResult]]] = field(default_factory=list)
    wins: list[tuple[str, str, Estimate, str, float]] = field(default_factory=list)
    equity: tuple[np.ndarray, np.ndarray, np.ndarray, int] | None = None
    values: list[DV.CardValues] = field(default_factory=list)
    declare: list[tuple[str, str, Estimate, Estimate, float]] = field(default_factory=list)
    cappotto_matches: list[tuple[str, str, Estimate]] = field(default_factory=list)


# --------------------------------------------------------------------------- data


def cirulla_frame(directory: Path, players: int) -> pl.DataFrame:
    """A Cirulla run's hands, sorted by hand: ``match``, ``margin``, ``dp``, ``fp``,
    ``flag`` and ``pos{p}`` (:func:`~scopa_sim.analysis.study.parts_a_to_c.hand_frame`),
    and per hand ``declared``, ``grande``, ``piccola`` (points of every side together),
    ``decl_sides`` (the sides that declared), ``cappotto`` (1 when a side took the ten
    denari), ``d_decl`` and ``f_decl`` (the points the dealer's and the first player's
    sides declared)."""
    from scopa_sim.analysis.study.parts_a_to_c import hand_frame

    base = hand_frame(directory, players)
    sides = range(4)

    def total(item: str) -> pl.Expr:
        return pl.sum_horizontal([pl.col(f"s{s}_{item}").fill_null(0) for s in sides])

    extra = (
        scan(directory)
        .select(
            pl.col("match").cast(pl.Int64),
            total("declarations").cast(pl.Int32).alias("declared"),
            total("grande").cast(pl.Int32).alias("grande"),
            total("piccola").cast(pl.Int32).alias("piccola"),
            pl.sum_horizontal(
                [(pl.col(f"s{s}_declarations").fill_null(0) > 0).cast(pl.Int32) for s in sides]
            ).alias("decl_sides"),
            pl.max_horizontal(
                [(pl.col(f"s{s}_denari_count").fill_null(0) == 10).cast(pl.Int32) for s in sides]
            ).alias("cappotto"),
            side_value(A.DEALER_SIDE, "declarations").cast(pl.Int32).alias("d_decl"),
            side_value(A.FIRST_SIDE, "declarations").cast(pl.Int32).alias("f_decl"),
        )
        .collect()
        .sort("match")
    )
    return base.join(extra, on="match", how="left", maintain_order="left")


class CData(Data):
    """:class:`Data` over part E's runs (Cirulla's frames, :func:`cirulla_frame`)."""

    def hands(self, name: str) -> pl.DataFrame:
        if name not in self._hands:
            self._hands[name] = cirulla_frame(self.dirs[name], self.rules(name).players)
        return self._hands[name]


def _spec(tag: str, preset: str = "cirulla") -> str:
    from scopa_sim.analysis.study.plan import policy_spec

    return policy_spec(tag, preset)


def _tag_name(tag: str) -> str:
    """A policy tag as part E's reports name it (the search tag by its Cirulla setting)."""
    return f"`{_spec(tag)}`"


def _holm(rows: Sequence[dict[str, Any]], p: Sequence[float], family: str) -> list[float]:
    """Holm's adjustment of ``p`` over the family ``family`` (:data:`FAMILIES`), written
    into ``rows`` (``p_holm``, ``holm_family``); returns the adjusted p-values."""
    adj = S.holm(list(p))
    m = sum(1 for x in p if math.isfinite(x))
    for row, q in zip(rows, adj, strict=True):
        row["p_holm"] = _num(q)
        row["holm_family"] = f"{FAMILIES[family]} ({m} tests)"
    return [float(q) for q in adj]


def _z_p(e: Estimate, fair: float) -> float:
    """The two-sided p-value of a proportion against ``fair`` (normal, under the null)."""
    if e.n < 1:
        return math.nan
    se = math.sqrt(fair * (1 - fair) / e.n)
    return float(math.erfc(abs(e.estimate - fair) / se / math.sqrt(2)))


# --------------------------------------------------------------------------- estimates


def _hand_level(data: CData, res: Results, out: PartE) -> None:
    """The dealer margin, every seat's points, the events and the items' points of each
    preset under each policy."""
    from scopa_sim.analysis.study.plan import CIRULLA_PRESETS, CIRULLA_TAGS

    rows, ps = [], []
    for tag in CIRULLA_TAGS:
        for preset in CIRULLA_PRESETS:
            name, pol = f"{preset}-{tag}", _spec(tag, preset)
            if name not in data.dirs:
                continue
            h = data.hands(name)
            m = S.mean_ci(h["margin"].to_numpy().astype(np.float64))
            p = t_p_value(m)
            rows.append(res.add("E", preset, {}, pol, "dealer_margin", m.estimate, m.low, m.high,
                                m.n, "plain hands, t interval", p_value=_num(p)))  # fmt: skip
            ps.append(p)
            out.margins.append((preset, tag, m, math.nan))
            players = data.rules(name).players
            seats = [S.mean_ci(h[f"pos{s}"].to_numpy().astype(np.float64)) for s in range(players)]
            for s, e in enumerate(seats):
                res.add("E", preset, {}, pol, "seat_points", e.estimate, e.low, e.high, e.n,
                        "plain hands, the seat's side's points per hand, t interval",
                        seat=s)  # fmt: skip
            out.seats.append((preset, tag, seats))
            ev: dict[str, Estimate] = {}
            n = h.height
            counts = {
                "declaration_share": int((h["decl_sides"] > 0).sum()),
                "grande_share": int((h["grande"] > 0).sum()),
                "piccola_share": int((h["piccola"] > 0).sum()),
                "cappotto_share": int(h["cappotto"].sum()),
            }
            for metric, what in EVENTS:
                e = S.wilson(counts[metric], n)
                ev[metric] = e
                res.add("E", preset, {}, pol, metric, e.estimate, e.low, e.high, n,
                        f"share of the {what}, Wilson interval")  # fmt: skip
            for metric, item in ITEM_POINTS:
                col = {"declarations": "declared"}.get(item, item)
                e = S.mean_ci(h[col].to_numpy().astype(np.float64))
                ev[metric] = e
                res.add("E", preset, {}, pol, metric, e.estimate, e.low, e.high, n,
                        f"points of the {item} per hand, every side's together, t "
                        "interval")  # fmt: skip
            got = h.filter(pl.col("piccola") > 0)["piccola"].to_numpy().astype(np.float64)
            if got.size >= 2:
                e = S.mean_ci(got)
                ev["piccola_when_scored"] = e
                res.add("E", preset, {}, pol, "piccola_when_scored", e.estimate, e.low,
                        e.high, e.n, "the piccola's points in the hands where it is scored, "
                        "t interval")  # fmt: skip
            out.events.append((preset, tag, ev))
            if preset != "cirulla":  # `cirulla`'s frames are the baselines of what follows
                data.drop(name)
    adj = _holm(rows, ps, "dealer_margin")
    out.margins = [(p, t, m, q) for (p, t, m, _), q in zip(out.margins, adj, strict=True)]


def _effects(data: CData, res: Results, out: PartE) -> None:
    """Each option's per-hand effect (paired on the decks) and per-match effect."""
    rows, tests = [], []
    for e in data.plan.cirulla:
        if e.level != "hand" or e.variant not in data.dirs or e.baseline not in data.dirs:
            continue
        v, b = data.margin(e.variant), data.margin(e.baseline)
        n = min(v.size, b.size)
        d = (v[:n] - b[:n]).astype(np.float64)
        t = S.paired_t_from_stats("dealer_margin", float(v[:n].mean()), float(b[:n].mean()),
                                  float(d.mean()), float(d.std(ddof=1)), n)  # fmt: skip
        tests.append(t)
        rows.append(res.add("E", "cirulla", _overrides(e.option), _spec(e.tag),
                            "effect:dealer_margin", t.estimate, t.low, t.high, n,
                            "paired t on (match, hand)", p_value=t.p_value))  # fmt: skip
        data.drop(e.variant)
    done = S.with_holm(tests)
    _holm(rows, [t.p_value for t in tests], "effect:dealer_margin")
    hand = [e for e in data.plan.cirulla if e.level == "hand" and e.variant in data.dirs
            and e.baseline in data.dirs]  # fmt: skip
    out.hand = list(zip(hand, done, strict=True))
    rows, tests, per = [], [], []
    for e in data.plan.cirulla:
        if e.level != "match" or e.variant not in data.dirs or e.baseline not in data.dirs:
            continue
        pc = A.compare_pair(open_run(data.dirs[e.baseline]), open_run(data.dirs[e.variant]),
                            metrics=("first_mover_wins", "match_length"),
                            strict=False)  # fmt: skip
        per.append((e, len(pc.results)))
        for r in pc.results:
            metric = "first_mover_match_win" if r.metric == "first_mover_wins" else "match_length"
            tests.append(r)
            rows.append(res.add("E", "cirulla", _overrides(e.option), "expert",
                                f"effect:{metric}", r.estimate, r.low, r.high,
                                r.n_a if r.paired else r.n_a + r.n_b, r.test,
                                p_value=r.p_value))  # fmt: skip
    adjusted = iter(S.with_holm(tests))
    _holm(rows, [t.p_value for t in tests], "effect:match")
    out.match = [(e, [next(adjusted) for _ in range(k)]) for e, k in per]


def _match_level(data: CData, res: Results, scale: Scale, out: PartE) -> None:
    """The first mover's match wins to 51 (programme or simulated), the share of matches a
    cappotto ends, and ``cirulla``'s match-equity table under ``expert``."""
    from scopa_sim.analysis.study.plan import CIRULLA_PRESETS, CIRULLA_TAGS, KERNEL_POLICIES

    rows, ps = [], []
    for tag in CIRULLA_TAGS:
        for preset in CIRULLA_PRESETS:
            name, pol = f"{preset}-{tag}", _spec(tag, preset)
            rules = Rules.make(preset)
            mname = f"{preset}-{tag}-matches"
            sim = None
            if mname in data.dirs:
                df = data.matches(mname)
                sim = S.wilson(int(df["fmw"].sum()), df.height)
                _cappotto_matches(data, res, out, preset, tag, mname)
            fair = 1 / rules.sides
            if rules.sides == 2 and name in data.dirs:
                h = data.hands(name)
                o = E.HandOutcomes.of(h["dp"].to_numpy(), h["fp"].to_numpy(),
                                      h["flag"].to_numpy())  # fmt: skip
                seed = bootstrap_seed(data.seed, "cirulla first mover", preset, tag)
                eq = E.first_mover_win(o, rules.target, rules.cappotto, scale.bootstrap, seed)
                p = E.bootstrap_z_p(eq, fair)
                how = (f"dynamic programme over hand results, percentile bootstrap over hands "
                       f"({scale.bootstrap} replicates)")  # fmt: skip
                rows.append(res.add("E", preset, {}, pol, "first_mover_match_win", eq.estimate,
                                    eq.low, eq.high, eq.n, how, p_value=_num(p)))  # fmt: skip
                ps.append(p)
                out.wins.append((preset, tag, eq, "programme", p))
                if sim is not None:
                    res.add("E", preset, {}, pol, "first_mover_match_win:simulated",
                            sim.estimate, sim.low, sim.high, sim.n,
                            "simulated matches, Wilson interval (the programme's "
                            "check)")  # fmt: skip
                    out.wins.append((preset, tag, sim, "simulated check", math.nan))
            elif sim is not None and tag in KERNEL_POLICIES:
                p = _z_p(sim, fair)
                rows.append(res.add("E", preset, {}, pol, "first_mover_match_win", sim.estimate,
                                    sim.low, sim.high, sim.n, "simulated matches, Wilson "
                                    "interval; z test against 1/3", p_value=_num(p)))  # fmt: skip
                ps.append(p)
                out.wins.append((preset, tag, sim, "simulated", p))
            data.drop(name)
    adj = _holm(rows, ps, "first_mover_match_win")
    it = iter(adj)
    out.wins = [(a, b, c, d, next(it) if d != "simulated check" else math.nan)
                for a, b, c, d, _ in out.wins]  # fmt: skip
    if "cirulla-expert" in data.dirs:
        h = data.hands("cirulla-expert")
        o = E.HandOutcomes.of(h["dp"].to_numpy(), h["fp"].to_numpy(), h["flag"].to_numpy())
        seed = bootstrap_seed(data.seed, "cirulla equity")
        est, low, high = E.equity_table(o, 51, True, scale.bootstrap, seed)
        for x in range(51):
            for y in range(51):
                for d, who in ((0, "player"), (1, "opponent")):
                    res.add("E", "cirulla", {}, "expert", "match_equity", est[x, y, d],
                            low[x, y, d], high[x, y, d], o.n,
                            f"dynamic programme, percentile bootstrap over hands "
                            f"({scale.bootstrap} replicates)", score=x, opponent_score=y,
                            deals_next=who)  # fmt: skip
        out.equity = (est, low, high, o.n)


def _cappotto_matches(
    data: CData, res: Results, out: PartE, preset: str, tag: str, name: str
) -> None:
    """The share of a matches run's matches that a cappotto ended (its last hand gave a
    side the ten denari)."""
    lf = scan(data.dirs[name]).filter(pl.col("winner").is_not_null())
    den = pl.max_horizontal([(pl.col(f"s{s}_denari_count").fill_null(0) == 10) for s in range(4)])
    df = lf.select(den.alias("c")).collect()
    e = S.wilson(int(df["c"].sum()), df.height)
    out.cappotto_matches.append((preset, tag, e))
    res.add("E", preset, {}, _spec(tag, preset), "cappotto_match_share", e.estimate, e.low,
            e.high, e.n, "share of simulated matches to 51 whose last hand gave a side the "
            "ten denari (a cappotto ends the match), Wilson interval")  # fmt: skip


def _card_values(data: CData, res: Results, out: PartE) -> None:
    """Every card's value in ``cirulla`` under ``expert`` (first deal and any deal)."""
    if "cirulla-expert" not in data.dirs:
        return
    ds = DV.deal_sides(open_run(data.dirs["cirulla-expert"]))
    for deal in ("first", "any"):
        cv = DV.card_values(ds, deal)
        out.values.append(cv)
        for v in cv.values:
            res.add("E", "cirulla", {}, cv.policy, "card_value", v.value.estimate, v.value.low,
                    v.value.high, cv.hands, cv.method, card=v.card, deal=deal, dealt=v.dealt,
                    too_few=v.too_few)  # fmt: skip


def _declaring(data: CData, res: Results, out: PartE) -> None:
    """What declaring is worth against keeping quiet: ``cirulla`` (declarations as the
    policy plays them) against ``declare=off`` on the same deals, in the hands where
    exactly one side declared: that side's margin (its points minus the other's) with the
    declaration minus without it, paired t; and the same net of the declared points (what
    showing the hand gains or costs in play)."""
    from scopa_sim.analysis.study.plan import CIRULLA_TAGS, option_name

    rows, ps = [], []
    for tag in ("expert", *CIRULLA_TAGS[3:]):
        base, quiet = f"cirulla-{tag}", f"{option_name(('declare=off',), 'cirulla')}-{tag}"
        if base not in data.dirs or quiet not in data.dirs:
            continue
        b, q = data.hands(base), data.hands(quiet)
        n = min(b.height, q.height)
        b, q = b.head(n), q.head(n)
        one = (b["decl_sides"] == 1).to_numpy()
        sign = np.where(b["d_decl"].to_numpy() > 0, 1.0, -1.0)  # the declaring side
        gain = sign * (b["margin"].to_numpy() - q["margin"].to_numpy())
        net = gain - (b["d_decl"].to_numpy() + b["f_decl"].to_numpy())
        g, x = gain[one].astype(np.float64), net[one].astype(np.float64)
        eg, ex = S.mean_ci(g), S.mean_ci(x)
        pol = _spec(tag)
        for metric, e, what in (
            ("declaration_value", eg, "the declaring side's margin (its points minus the "
             "other's) with its declaration minus with none (`declare=off`), same deal"),
            ("declaration_value:net", ex, "the same less the points declared: what showing "
             "the hand gains (+) or costs (-) in play"),
        ):  # fmt: skip
            p = t_p_value(e)
            row = res.add("E", "cirulla", {}, pol, metric, e.estimate, e.low, e.high, e.n,
                          f"{what}; in the hands where exactly one side declared; paired t",
                          p_value=_num(p))  # fmt: skip
            rows.append(row)
            ps.append(p)
        out.declare.append((tag, pol, eg, ex, math.nan))
    adj = _holm(rows, ps, "declaration_value")
    out.declare = [(t, p, g, x, adj[2 * i + 1]) for i, (t, p, g, x, _) in enumerate(out.declare)]


def compute(
    plan: Plan, dirs: dict[str, Path], scale: Scale, seed: int, say: Callable[[str], None] = print
) -> tuple[PartE, Results]:
    """Part E's estimates from the runs in ``dirs`` (by run name; a run missing from it is
    left out) and their results.json rows."""
    data = CData(plan, dirs, seed)
    res, out = Results(), PartE()
    _hand_level(data, res, out)
    say("part E: hands done")
    _effects(data, res, out)
    say("part E: option effects done")
    _declaring(data, res, out)
    _match_level(data, res, scale, out)
    say("part E: matches done")
    _card_values(data, res, out)
    say("part E: card values done")
    return out, res


# --------------------------------------------------------------------------- report


def _sig(q: float, low: float, high: float, fair: float = 0.0) -> str:
    if math.isfinite(q) and q < ALPHA and (low > fair or high < fair):
        return ("above" if low > fair else "below") if fair else (
            "positive" if low > 0 else "negative")  # fmt: skip
    return "**not resolved**"


def _opt(opts: Sequence[str]) -> str:
    return " ".join(f"`{o}`" for o in opts)


def conclusion(d: PartE) -> str:
    """Part E's answer in a sentence."""
    m = next((x for x in d.margins if x[:2] == ("cirulla", "expert")), None)
    if m is None:
        return "part E has no runs of `cirulla` under `expert`"
    e, q = m[2], m[3]
    verdict = _sig(q, e.low, e.high)
    text = (f"in `cirulla` under `expert` the dealer's margin is {_ci(e.estimate, e.low, e.high)} "
            f"points a hand ({verdict} after Holm)")  # fmt: skip
    dv = next((x for x in d.declare if x[0] == "expert"), None)
    if dv is not None:
        text += (f", and declaring is worth {_ci(dv[2].estimate, dv[2].low, dv[2].high)} points "
                 "of margin against keeping quiet on the same deal")  # fmt: skip
    return text


def _sizes(scale: Scale) -> str:
    from scopa_sim.analysis.study.plan import CIRULLA_SEARCH_POLICY

    return (f"Sample sizes: {scale.cirulla_hands:,} hands per preset and kernel policy; "
            f"{scale.cirulla_option_hands:,} per option variant and kernel policy; under search "
            f"(`{CIRULLA_SEARCH_POLICY}`) {scale.cirulla_search_hands:,} hands of `cirulla` and of "
            f"each of its key options, {scale.cirulla_search_hands_multi:,} of `cirulla-3` and "
            f"`cirulla-4`; {scale.cirulla_matches:,} matches to 51 per matches run; "
            f"{scale.bootstrap} bootstrap replicates. Plain hands only: Cirulla has no "
            "duplicate deals yet.")  # fmt: skip


def write_report(d: PartE, folder: Path, head: list[str], sizes: str) -> Path:
    """``part-e/report.md``: the header, the conclusion, the sizes, then each section."""
    folder.mkdir(parents=True, exist_ok=True)
    c = conclusion(d)
    L = [*head, f"**{c[0].upper()}{c[1:]}.**", "", sizes, ""]
    L += ["## The dealer's edge and every seat's points", "",
          "Dealer margin: the dealer's side's points minus the first player's side's, per "
          "hand (t interval; p Holm-adjusted over the table). Seats are counted from the "
          "first player (seat 1) to the dealer.", ""]  # fmt: skip
    rows = []
    for (preset, tag, m, q), (_, _, seats) in zip(d.margins, d.seats, strict=True):
        rows.append([f"`{preset}`", _tag_name(tag), _ci(m.estimate, m.low, m.high),
                     f"{q:.2g}" if math.isfinite(q) else "n/a", _sig(q, m.low, m.high),
                     " / ".join(f"{s.estimate:.2f}" for s in seats), f"{m.n:,}"])  # fmt: skip
    L += _table(["preset", "policy", "dealer margin [95% CI]", "p (Holm)", "verdict",
                 "points per seat (1st .. dealer)", "hands"], rows)  # fmt: skip
    L += ["", "## Declarations, grande, piccola and cappotto", "",
          "Share of hands (Wilson interval) and points a hand (every side's together; t "
          "interval). The grande is worth 5 points, the piccola 3 to 6 (`piccola_max=6`), a "
          "declaration 3 (a hand of 9 or less) or 10 (three of a kind), a cappotto the "
          "match.", ""]  # fmt: skip
    rows = []
    for preset, tag, ev in d.events:
        cell = [f"`{preset}`", _tag_name(tag)]
        for k in (
            "declaration_share",
            "declared_points",
            "grande_share",
            "piccola_share",
            "piccola_when_scored",
            "cappotto_share",
        ):
            e = ev.get(k)
            cell.append(_ci(e.estimate, e.low, e.high, 3, False) if e else "n/a")
        rows.append(cell)
    L += _table(["preset", "policy", "declared (share)", "declared points/hand", "grande",
                 "piccola", "piccola's points when scored", "cappotto"], rows)  # fmt: skip
    if d.cappotto_matches:
        L += ["", "Matches to 51 ended by a cappotto (simulated matches): " + "; ".join(
            f"`{p}` {_tag_name(t)} {_ci(e.estimate, e.low, e.high, 3, False)} (n={e.n:,})"
            for p, t, e in d.cappotto_matches) + "."]  # fmt: skip
    L += ["", "## Each option's effect (paired on the decks with `cirulla`)", "",
          "Per hand: the option's dealer margin minus `cirulla`'s, paired t on the same "
          "hands. Per match (`expert`, to 51): the first mover's match wins (McNemar) and the "
          "match's length (paired t). p Holm-adjusted within each table.", ""]  # fmt: skip
    rows = []
    for eff, t in d.hand:
        rows.append([_opt(eff.option), _tag_name(eff.tag), _ci(t.estimate, t.low, t.high),
                     f"{t.p_holm:.2g}" if t.p_holm is not None else "n/a",
                     _sig(t.p_holm if t.p_holm is not None else math.nan, t.low, t.high),
                     f"{t.n_a:,}"])  # fmt: skip
    L += _table(["option", "policy", "effect on the dealer margin [95% CI]", "p (Holm)",
                 "verdict", "hand pairs"], rows)  # fmt: skip
    rows = []
    for eff, ts in d.match:
        for t in ts:
            what = "first mover's wins" if t.metric == "first_mover_wins" else "match length"
            rows.append([_opt(eff.option), what, _ci(t.estimate, t.low, t.high),
                         f"{t.p_holm:.2g}" if t.p_holm is not None else "n/a",
                         _sig(t.p_holm if t.p_holm is not None else math.nan, t.low, t.high),
                         t.test])  # fmt: skip
    L += ["", *_table(["option", "per match (expert, to 51)", "effect [95% CI]", "p (Holm)",
                       "verdict", "test"], rows)]  # fmt: skip
    L += ["", "## The first mover's match wins to 51", "",
          "From 0-0, the first player of the first hand: the dynamic programme over the "
          "hand results (percentile bootstrap over hands) for the two-side presets, checked "
          "against simulated matches; `cirulla-3` from simulated matches (Wilson). p (Holm) "
          "against the fair chance, 1/2 or 1/3.", ""]  # fmt: skip
    rows = [[f"`{p}`", _tag_name(t), how, _ci(e.estimate, e.low, e.high, 3, False),
             f"{q:.2g}" if math.isfinite(q) else "—",
             _sig(q, e.low, e.high, 1 / Rules.make(p).sides) if how != "simulated check" else "—",
             f"{e.n:,}"] for p, t, e, how, q in d.wins]  # fmt: skip
    L += _table(["preset", "policy", "from", "first mover wins [95% CI]", "p (Holm)", "verdict",
                 "n"], rows)  # fmt: skip
    if d.equity is not None:
        est, _, _, n = d.equity
        L += ["", "## Match equity: `cirulla` to 51 under `expert`", "",
              f"P(win the match) of the player at the row's score against the column's, the "
              f"opponent dealing next (dynamic programme over {n:,} hands; every score in "
              "results.json, `match_equity`, with its bootstrap interval).", ""]  # fmt: skip
        marks = (0, 10, 20, 30, 40, 45, 50)
        L += _table(["score", *(f"vs {y}" for y in marks)],
                    [[str(x), *(f"{est[x, y, 1]:.3f}" for y in marks)] for x in marks])  # fmt: skip
    L += _values_section(d)
    L += _declare_section(d)
    md = folder / "report.md"
    write_text(md, "\n".join(L) + "\n")
    return md


def _values_section(d: PartE) -> list[str]:
    if not d.values:
        return []
    L = ["", "## What the cards are worth (`cirulla`, `expert`)", "",
         f"{DV.CARD_VALUE_CONTRAST.capitalize()}: margin points per hand to the side dealt the "
         "card in the first deal or in any deal (OLS with HC1 intervals; every card in "
         "results.json, `card_value`).", ""]  # fmt: skip
    rows = []
    for card, role in NAMED_CARDS:
        cells = [f"`{card}`", role]
        for cv in d.values:
            v = cv.value(card)
            cells.append("too few" if v.too_few else _ci(v.value.estimate, v.value.low,
                                                         v.value.high))  # fmt: skip
        rows.append(cells)
    L += _table(["card", "what", *(f"{cv.deal} deal" for cv in d.values)], rows)
    return L


def _declare_section(d: PartE) -> list[str]:
    if not d.declare:
        return []
    L = ["", "## What declaring is worth against keeping quiet", "",
         "`cirulla` against `cirulla` with `declare=off`, the same deals, in the hands where "
         "exactly one side declared: that side's margin (its points minus the other's) with "
         "the declaration minus without it (paired t), and the same less the points "
         "declared, what showing the hand gains or costs in play. `expert` declares every "
         "hand that qualifies; the search decides. Both seats play the same policy.",
         ""]  # fmt: skip
    rows = [[_tag_name(t), f"`{p}`", _ci(g.estimate, g.low, g.high), _ci(x.estimate, x.low,
             x.high), f"{q:.2g}" if math.isfinite(q) else "n/a", f"{g.n:,}"]
            for t, p, g, x, q in d.declare]  # fmt: skip
    L += _table(["policy", "spec", "declaring's worth (margin points)", "net of the points "
                 "declared", "p (Holm, net)", "hands"], rows)  # fmt: skip
    return L


def headlines(d: PartE) -> list[str]:
    """Part E's main numbers, one bullet each."""
    out = []
    for preset, tag, m, q in d.margins:
        if tag == "expert":
            out.append(f"* `{preset}` under `expert`: dealer margin "
                       f"{_ci(m.estimate, m.low, m.high)} points a hand ({_sig(q, m.low, m.high)}"
                       f" after Holm, n={m.n:,})")  # fmt: skip
    for preset, tag, e, how, _ in d.wins:
        if tag == "expert" and how != "simulated check":
            out.append(f"* `{preset}` under `expert`: the first mover wins a match to 51 with "
                       f"probability {_ci(e.estimate, e.low, e.high, 3, False)} "
                       f"({how})")  # fmt: skip
    for preset, tag, ev in d.events:
        if preset == "cirulla" and tag == "expert":
            out.append("* `cirulla` under `expert`, share of hands: a declaration "
                       f"{ev['declaration_share'].estimate:.3f}, the grande "
                       f"{ev['grande_share'].estimate:.3f}, the piccola "
                       f"{ev['piccola_share'].estimate:.3f}, a cappotto "
                       f"{ev['cappotto_share'].estimate:.4f}")  # fmt: skip
    sure = [(e, t) for e, t in d.hand if e.tag == "expert" and t.p_holm is not None
            and t.p_holm < ALPHA]  # fmt: skip
    if sure:
        eff, t = max(sure, key=lambda x: abs(x[1].estimate))
        out.append(f"* the largest option effect on `cirulla`'s dealer margin under `expert`: "
                   f"{_opt(eff.option)} {_ci(t.estimate, t.low, t.high)}")  # fmt: skip
    cv = next((c for c in d.values if c.deal == "first"), None)
    if cv is not None:
        for card in ("7H", "7D"):
            v = cv.value(card)
            if not v.too_few:
                out.append(f"* `{card}` dealt in the first hand is worth "
                           f"{_ci(v.value.estimate, v.value.low, v.value.high)} points of "
                           "margin a hand against the average card (`cirulla`, "
                           "`expert`)")  # fmt: skip
    for _, pol, g, x, _ in d.declare:
        out.append(f"* declaring against keeping quiet under `{pol}`: "
                   f"{_ci(g.estimate, g.low, g.high)} points of margin, "
                   f"{_ci(x.estimate, x.low, x.high)} net of the points declared "
                   f"(n={g.n:,} hands)")  # fmt: skip
    return out


def readme_block(d: PartE, report: Path, out: Path, scale: Scale) -> list[str]:
    """Part E's section of the study's README (between :data:`BEGIN` and :data:`END`)."""
    return [BEGIN, "", f"## {TITLE}", "", f"* [{TITLE}]({report.relative_to(out)})", "",
            *headlines(d), "", _sizes(scale), "",
            "Its `results.json` rows (part `E`; `preset` a Cirulla preset, `rules` the "
            "options toggled from `cirulla`): `dealer_margin`, `seat_points`, "
            "`declaration_share`, `grande_share`, `piccola_share`, `cappotto_share`, "
            "`declared_points`, `grande_points`, `piccola_points`, `piccola_when_scored`, "
            "`effect:dealer_margin`, `effect:first_mover_match_win`, `effect:match_length`, "
            "`first_mover_match_win` (and `:simulated`), `cappotto_match_share`, "
            "`match_equity` (`cirulla` to 51), `card_value` (`card`, `deal`), "
            "`declaration_value` and `declaration_value:net`; tests Holm-adjusted in part E's "
            "own families (`holm_family`).", "", END]  # fmt: skip


def write_part_e(
    plan: Plan,
    dirs: dict[str, Path],
    out: Path,
    scale_name: str,
    scale: Scale,
    seed: int,
    say: Callable[[str], None] = print,
) -> list[Path]:
    """Compute part E, write its report, and add its rows to ``out/results.json`` and its
    section to ``out/README.md`` (replacing earlier ones); return the files written."""
    d, res = compute(plan, dirs, scale, seed, say)
    cmd = f"scopa-sim study --scale {scale_name} --seed {seed} --out {out}"
    md = write_report(d, out / "part-e", _header(TITLE, scale_name, seed, cmd), _sizes(scale))
    readme = out / "README.md"
    merge_readme(readme, readme_block(d, md, out, scale),
                 f"scopa-sim study ({scale_name} scale, seed {seed})", BEGIN, END)  # fmt: skip
    rj = out / "results.json"
    merge_results(rj, res.rows, "E")
    say(f"wrote {md}, part E of {readme} and {rj}")
    return [md, readme, rj]


__all__ = [
    "BEGIN",
    "END",
    "FAMILIES",
    "PartE",
    "cirulla_frame",
    "compute",
    "conclusion",
    "headlines",
    "readme_block",
    "write_part_e",
    "write_report",
]
