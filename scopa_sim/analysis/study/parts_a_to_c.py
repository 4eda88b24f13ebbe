"""The study's estimates, ``results.json`` and Markdown reports (the plan is
:mod:`scopa_sim.analysis.study.plan`).

Every estimate is computed here from the runs' per-hand (or per-match) rows and written
both to a report table (with its interval, sample size, policy and test) and to
``results.json``, one object per estimate.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from scopa_sim._version import __version__
from scopa_sim.analysis import analyze as A
from scopa_sim.analysis import conclusions as C
from scopa_sim.analysis import plots as P
from scopa_sim.analysis import variance as V
from scopa_sim.bots.registry import POLICIES
from scopa_sim.data.run import open_run, scan
from scopa_sim.files import write_text
from scopa_sim.game.rules import KERNEL_PRESETS, PRESETS, Rules
from scopa_sim.stats import equity as E
from scopa_sim.stats import inference as S
from scopa_sim.stats.estimate import Estimate

if TYPE_CHECKING:
    from scopa_sim.analysis.study.plan import Effect, Plan, Scale, StudyRun

#: The normal quantile of the 95% intervals computed here.
Z = 1.959963984540054


# --------------------------------------------------------------------------- data


def bootstrap_seed(seed: int, *identity: object) -> int:
    """The seed of one estimate's bootstrap, from the study's seed and what it estimates
    (not from its place in the study), so that its interval stays put when the study
    gains other estimates."""
    digest = hashlib.blake2b(repr((seed, *identity)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def _overrides(opts: Sequence[str]) -> dict[str, Any]:
    """The rule overrides as an object of typed values (``{"napola": true}``)."""
    from scopa_sim.game.rules import parse_overrides

    return dict(parse_overrides(tuple(opts)))


def hand_frame(directory: Path, positions: int = 0) -> pl.DataFrame:
    """The hands of a run, sorted by hand: ``match`` (the hand's index in a --hands run),
    ``margin`` (dealer's side minus first side), ``dp`` and ``fp`` (the dealer's and the
    first side's points) and ``flag`` (which side took all ten denari, :mod:`equity`);
    with ``positions`` = the number of players, also ``pos{p}`` (the points of position
    p's side) and ``den_pos`` (the position whose side took all the denari, or -1)."""
    hm = A.hand_metrics()
    extra: list[pl.Expr] = []
    if positions:
        extra = [hm[f"position_{p}"].cast(pl.Int32).alias(f"pos{p}") for p in range(positions)]
        den_pos: Any = pl.lit(-1)
        for p in reversed(range(positions)):
            side = A._side_of(A._position_seat(p))
            den_pos = (
                pl.when(A._side_value(side, "denari_count") == 10)
                .then(pl.lit(p))
                .otherwise(den_pos)
            )
        extra.append(den_pos.cast(pl.Int32).alias("den_pos"))
    den = 10  # all denari: only the 40-card deck has them all
    flag = (
        pl.when(A._side_value(A.DEALER_SIDE, "denari_count") == den)
        .then(pl.lit(E.DEALER))
        .when(A._side_value(A.FIRST_SIDE, "denari_count") == den)
        .then(pl.lit(E.FIRST))
        .otherwise(pl.lit(E.NONE))
    )
    return (
        scan(directory)
        .select(
            pl.col("match").cast(pl.Int64),
            hm["margin"].cast(pl.Int32).alias("margin"),
            hm["dealer_points"].cast(pl.Int32).alias("dp"),
            hm["first_points"].cast(pl.Int32).alias("fp"),
            flag.cast(pl.Int32).alias("flag"),
            *extra,
        )
        .collect()
        .sort("match")
    )


class Data:
    """The runs' rows, loaded on demand (per-hand margins by hand index, match rows)."""

    def __init__(self, plan: Plan, dirs: dict[str, Path], seed: int) -> None:
        self.plan, self.dirs, self.seed = plan, dirs, seed
        self._hands: dict[str, pl.DataFrame] = {}

    def run(self, name: str) -> StudyRun:
        return self.plan.run(name)

    def rules(self, name: str) -> Rules:
        r = self.run(name)
        return Rules.make(r.preset, r.rules)

    def hands(self, name: str) -> pl.DataFrame:
        """match (the hand's index in a --hands run), margin, dealer/first points, the
        all-denari flag and each position's points (:func:`hand_frame`), sorted by hand;
        read once per run and kept until :meth:`drop`."""
        if name not in self._hands:
            self._hands[name] = hand_frame(self.dirs[name], self.rules(name).players)
        return self._hands[name]

    def margin(self, name: str) -> np.ndarray:
        return self.hands(name)["margin"].to_numpy()

    def drop(self, name: str) -> None:
        self._hands.pop(name, None)

    def matches(self, name: str) -> pl.DataFrame:
        """One row per match: first_mover_wins (0/1) and match_length."""
        mm = A.match_metrics()
        return (
            scan(self.dirs[name])
            .filter(pl.col("winner").is_not_null())
            .select(
                pl.col("match"),
                mm["first_mover_wins"].alias("fmw"),
                mm["match_length"].alias("length"),
            )
            .collect()
            .sort("match")
        )


# --------------------------------------------------------------------------- results


@dataclass
class Results:
    """The estimates, in the order computed."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    def add(
        self,
        part: str,
        preset: str,
        rules: dict[str, Any],
        policy: str,
        metric: str,
        estimate: float,
        low: float,
        high: float,
        n: int,
        method: str,
        **extra: Any,
    ) -> dict[str, Any]:
        row = {
            "part": part,
            "preset": preset,
            "rules": rules,
            "policy": policy,
            "metric": metric,
            "estimate": _num(estimate),
            "ci_low": _num(low),
            "ci_high": _num(high),
            "n": int(n),
            "method": method,
            **extra,
        }
        self.rows.append(row)
        return row


def _num(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


#: Keys every object of results.json has.
RESULT_KEYS = ("part", "preset", "rules", "policy", "metric", "estimate", "ci_low", "ci_high",
               "n", "method")  # fmt: skip


# --------------------------------------------------------------------------- formatting


def _ci(est: float, low: float, high: float, digits: int = 3, signed: bool = True) -> str:
    s = "+" if signed else ""
    if not math.isfinite(low):
        return f"{est:{s}.{digits}f} [n/a]"
    return f"{est:{s}.{digits}f} [{low:{s}.{digits}f}, {high:{s}.{digits}f}]"


def _m(e: Estimate, digits: int = 3) -> str:
    return _ci(e.estimate, e.low, e.high, digits)


def _verdict(low: float, high: float) -> str:
    """What the interval lets one conclude about the sign."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return "no interval"
    if low == high == 0:
        return "no difference in any hand"
    if low > 0:
        return "positive"
    if high < 0:
        return "negative"
    return "**CI includes 0: too wide to conclude**"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _opt_text(opts: Sequence[str], base: str = "scopa") -> str:
    """An option variant as the reports name it: its options, the preset it is toggled
    from when that is not ``scopa``, and the preset its rules equal when they do."""
    from scopa_sim.analysis.study.plan import same_preset

    text = " ".join(f"`{o}`" for o in opts) or "none (baseline)"
    same = same_preset(base, tuple(opts)) if opts else None
    if base != "scopa":
        text = f"{text} from `{base}`"
    if same is not None and base != "scopa":
        text = f"`{same}` = {text}"
    elif same is not None and same in FIFTEEN_PRESETS:
        text = f"{text} (= `{same}`)"
    return text


def _opt_label(opts: Sequence[str], base: str = "scopa") -> str:
    """The same without Markdown, for a figure's axis."""
    return _opt_text(opts, base).replace("`", "")


#: The presets of the sum-to-fifteen family (docs/rules.md §9).
FIFTEEN_PRESETS = ("scopa-15", "escoba")


# --------------------------------------------------------------------------- part A


#: The share of a part A cell's hand pairs kept aside as its pilot, which chooses the
#: estimator, and the fewest pairs a pilot may have: a cell with fewer than
#: ``MIN_PILOT / PILOT_SHARE`` pairs uses plain hands. The reported estimate never comes from
#: the hands that chose it (an estimator picked for looking best on the data it reports
#: would make its interval too narrow).
PILOT_SHARE = 0.1
MIN_PILOT = 1_000


@dataclass(frozen=True)
class Margin:
    """The dealer margin of one preset under one policy, by every estimator, and the one
    used: chosen on the pilot (the first :data:`PILOT_SHARE` of the pairs) and computed on
    the other hands."""

    preset: str
    tag: str
    plain: Estimate  # every plain hand
    swapped: Estimate
    dup: V.Reduced  # every pair: descriptive only (its factor was measured on these hands)
    cv: V.Reduced
    method: str  # "duplicates", "control variates" or "plain hands"
    used: Estimate  # the estimate reported, from the hands after the pilot
    factor: float  # the used estimator's efficiency, as measured on the pilot (1 if plain)
    pilot: int  # pairs in the pilot (0: too few hands for one, plain hands used)
    p_holm: float = math.nan  # the used estimate's t test against 0, Holm over part A's

    @property
    def chosen(self) -> tuple[str, Estimate, float]:
        return self.method, self.used, self.factor


def pilot_pairs(n: int) -> int:
    """The pairs of a cell's pilot: :data:`PILOT_SHARE` of ``n``, or 0 when that is fewer
    than :data:`MIN_PILOT` (the cell then uses plain hands, fixed by its size)."""
    k = int(n * PILOT_SHARE)
    return k if k >= MIN_PILOT else 0


def choose_margin(
    preset: str, tag: str, rules: Rules, seed: int, m: np.ndarray, sw: np.ndarray
) -> Margin:
    """Every estimator of a cell's dealer margin, and the one chosen on its pilot: the
    most efficient of duplicates and control variates whose pilot factor is at least
    :data:`V.WORTH`, else plain hands; the estimate is computed on the hands after it."""
    n = min(m.size, sw.size)
    feats = V.deal_features(rules, seed, 0, m.size)
    dup, cv = V.duplicates(m[:n], sw[:n]), V.control_variates(m, feats)
    k = pilot_pairs(n)
    method, factor, used = "plain hands", 1.0, S.mean_ci(m)
    if k:
        trial = [V.duplicates(m[:k], sw[:k]), V.control_variates(m[:k], feats[:k])]
        usable = [r for r in trial if math.isfinite(r.factor) and r.factor >= V.WORTH]
        best = max(usable, key=lambda r: r.factor, default=None)
        if best is None:
            used = S.mean_ci(m[k:])
        else:
            method, factor = best.method, best.factor
            rest = (V.duplicates(m[k:n], sw[k:n]) if method == "duplicates"
                    else V.control_variates(m[k:], feats[k:]))  # fmt: skip
            used = rest.estimate
    return Margin(preset, tag, S.mean_ci(m), S.mean_ci(sw), dup, cv, method, used, factor, k)


@dataclass(frozen=True)
class Seats:
    """Each seat's points per hand (its side's points) in one preset under one policy,
    seat 0 = the first player .. the last = the dealer, from the plain hands; ``best`` is
    the seat with the most on the first half of the hands, ``nxt`` the next best seat of
    another side there, and ``lead`` the best's paired margin over ``nxt`` on the *other*
    half (per hand, the same hands), so that the hands that chose the seat do not measure
    its lead; ``lead_p`` its paired t p-value, ``lead_p_holm`` adjusted over every seat
    lead of the study."""

    preset: str
    tag: str
    players: int
    teams: bool
    points: tuple[Estimate, ...]
    best: int
    lead: Estimate | None  # None when the best and the next are the same side (teams)
    nxt: int | None = None
    lead_p: float = math.nan
    lead_p_holm: float = math.nan


def seat_points(name: str, preset: str, tag: str, data: Data) -> Seats:
    """The :class:`Seats` of a part A run, from its plain hands."""
    rules = data.rules(name)
    pos = data.hands(name)
    cols = [pos[f"pos{p}"].to_numpy().astype(np.float64) for p in range(rules.players)]
    points = tuple(S.mean_ci(c) for c in cols)
    half = cols[0].size // 2  # the first half picks the seat, the other measures its lead
    pick = [float(c[:half].mean()) if half else float(c.mean()) for c in cols]
    order = sorted(range(rules.players), key=lambda p: -pick[p])
    best = order[0]
    # positions alternate between the sides (partners are 2 apart in team games)
    nxt = next((p for p in order[1:] if p % rules.sides != best % rules.sides), None)
    if nxt is None:
        return Seats(preset, tag, rules.players, rules.teams, points, best, None)
    lead = S.mean_ci(cols[best][half:] - cols[nxt][half:])  # paired t, the held-out half
    p = t_p_value(lead)
    return Seats(preset, tag, rules.players, rules.teams, points, best, lead, nxt, p)


def lead_verdict(st: Seats) -> str:
    """What a seat lead lets one conclude: non-zero only when its Holm-adjusted p is below
    :data:`ALPHA` (and its interval clear of 0)."""
    e = st.lead
    if e is None or not (math.isfinite(e.low) and math.isfinite(e.high)):
        return "no interval"
    q = st.lead_p_holm
    p = f"p (Holm) {A_fmt_p(q)}"
    if math.isfinite(q) and q < ALPHA and (e.low > 0 or e.high < 0):
        return f"{'positive' if e.low > 0 else 'negative'}, {p}"
    if e.low > 0 or e.high < 0:
        return f"**not significant after Holm**, {p}"
    return f"**CI includes 0: too wide to conclude**, {p}"


def seat_name(seat: int, players: int) -> str:
    """A seat counted from the first player: "first player", "seat 2", ..., "dealer"."""
    if seat == 0:
        return "first player"
    if seat == players - 1:
        return "dealer"
    return f"seat {seat + 1}"


def best_name(st: Seats) -> str:
    """The best seat of a :class:`Seats`, or its side in team games (partners share it)."""
    if not st.teams:
        return seat_name(st.best, st.players)
    dealer = st.best % 2 == (st.players - 1) % 2
    seats = ", ".join(str(p + 1) for p in range(st.players) if p % 2 == st.best % 2)
    return f"{'the dealer' if dealer else 'the first player'}'s side (seats {seats})"


def part_a(
    data: Data, res: Results, say: Callable[[str], None]
) -> tuple[list[Margin], list[Seats]]:
    from scopa_sim.analysis.study.plan import (
        KERNEL_POLICIES,
        POLICY_TAGS,
        READINGS_A,
        option_name,
        policy_spec,
        presets_of,
    )

    out: list[Margin] = []
    seats: list[Seats] = []
    rows: list[dict[str, Any]] = []
    for tag in POLICY_TAGS:
        for preset in presets_of(tag):
            name = f"{preset}-{tag}"
            out.append(_margin_cell(data, res, name, preset, preset, (), tag, rows))
            st = seat_points(name, preset, tag, data)
            seats.append(st)
            for p, e in enumerate(st.points):
                res.add("A", preset, {}, policy_spec(tag), "seat_points", e.estimate, e.low,
                        e.high, e.n,
                        "plain hands, the seat's side's points per hand, t interval",
                        seat=p)  # fmt: skip
            data.drop(f"{name}-swapped")
            data.drop(name)
        for preset, opts in READINGS_A if tag in KERNEL_POLICIES else ():  # other readings
            label = option_name(opts, preset)
            out.append(_margin_cell(data, res, f"{label}-{tag}", label, preset, opts, tag, rows))
            data.drop(f"{label}-{tag}-swapped")
            data.drop(f"{label}-{tag}")
        say(f"part A: {tag} done")
    adj = _holm_apart([t_p_value(m.used) for m in out], [m.tag for m in out])
    for row, m, (q, size) in zip(rows, out, adj, strict=True):
        fam = f"{_family('dealer_margin', m.tag)} ({size} tests)"
        row["p_holm"], row["holm_family"] = _num(q), fam
    out = [dataclasses.replace(m, p_holm=q) for m, (q, _) in zip(out, adj, strict=True)]
    return out, _seat_leads(seats, res)


def _holm_apart(p: Sequence[float], groups: Sequence[str]) -> list[tuple[float, int]]:
    """Holm's adjustment of the p-values ``p``, the tests of ``learned`` (``groups``, a
    policy tag each: :data:`~scopa_sim.analysis.study.plan.LEARNED`) in a family of their
    own and the others in theirs, so that the other policies' adjusted p-values are what
    they were before ``learned`` joined the study: each test's adjusted p-value and the
    size (finite p-values) of its family."""
    from scopa_sim.analysis.study.plan import LEARNED

    out: list[tuple[float, int]] = [(math.nan, 0)] * len(p)
    for apart in (False, True):
        idx = [i for i, g in enumerate(groups) if (g == LEARNED) == apart]
        adj = S.holm([p[i] for i in idx])
        size = sum(1 for i in idx if math.isfinite(p[i]))
        for i, q in zip(idx, adj, strict=True):
            out[i] = (q, size)
    return out


def _family(key: str, tag: str) -> str:
    """The description of the Holm family ``key`` (:data:`HOLM_FAMILIES`) of a test under
    the policy ``tag``: ``learned``'s tests are a family of their own (:func:`_holm_apart`)."""
    from scopa_sim.analysis.study.plan import LEARNED

    return f"{HOLM_FAMILIES[key]}{LEARNED_FAMILY}" if tag == LEARNED else HOLM_FAMILIES[key]


def _seat_leads(seats: list[Seats], res: Results) -> list[Seats]:
    """The seats with their leads Holm-adjusted over every lead of the study (one family),
    each lead added to ``res`` as a ``seat_lead`` row."""
    from scopa_sim.analysis.study.plan import policy_spec

    led = [i for i, st in enumerate(seats) if st.lead is not None]
    adj = _holm_apart([seats[i].lead_p for i in led], [seats[i].tag for i in led])
    out = list(seats)
    for i, (q, m) in zip(led, adj, strict=True):
        st = out[i] = dataclasses.replace(seats[i], lead_p_holm=q)
        e = st.lead
        assert e is not None
        res.add("A", st.preset, {}, policy_spec(st.tag), "seat_lead", e.estimate, e.low,
                e.high, e.n, "the best seat's points per hand minus the next best seat's "
                "(of another side): the seats picked on the first half of the plain hands, "
                "the lead measured on the other half, paired t interval",
                seat=st.best, next_seat=st.nxt, p_value=_num(st.lead_p), p_holm=_num(q),
                holm_family=f"{_family('seat_lead', st.tag)} ({m} tests)")  # fmt: skip
    return out


def t_p_value(e: Estimate) -> float:
    """The two-sided p-value of a mean's t test against 0, from its t interval."""
    if e.n < 2 or not (math.isfinite(e.low) and math.isfinite(e.high)):
        return math.nan
    h = (e.high - e.low) / 2
    if h <= 0:
        return 1.0 if e.estimate == 0 else 0.0
    t = e.estimate / (h / S._t_quantile(e.level, e.n - 1))
    return float(2 * S.st.t.sf(abs(t), e.n - 1))


def margin_verdict(m: Margin) -> str:
    """What a dealer margin lets one conclude: a sign only when its Holm-adjusted p (over
    every dealer margin of part A) is below :data:`ALPHA` and its interval clear of 0."""
    e = m.used
    v = _verdict(e.low, e.high)
    if v in ("positive", "negative") and not (math.isfinite(m.p_holm) and m.p_holm < ALPHA):
        return f"**not significant after Holm** (p (Holm) {A_fmt_p(m.p_holm)})"
    return v


def _margin_cell(
    data: Data, res: Results, name: str, label: str, preset: str, opts: tuple[str, ...],
    tag: str, rows: list[dict[str, Any]] | None = None,
) -> Margin:  # fmt: skip
    """The dealer margin of part A's run ``name`` and its swapped twin by every estimator,
    added to ``res`` (under ``preset`` with the rule overrides ``opts``); ``label`` names
    the cell in the report (the preset, or ``escoba+opening_fifteen_to-first_player``)."""
    from scopa_sim.analysis.study.plan import policy_spec

    rules = data.rules(name)
    mg = choose_margin(label, tag, rules, data.seed, data.margin(name),
                       data.margin(f"{name}-swapped"))  # fmt: skip
    pol, over = policy_spec(tag), _overrides(opts)
    plain, swapped, est = mg.plain, mg.swapped, mg.used
    how = (f"{mg.method}, t interval, on the hands after a pilot of {mg.pilot:,} "
           f"pairs that chose it" if mg.pilot else
           f"plain hands (fewer than {int(MIN_PILOT / PILOT_SHARE):,} pairs: no "
           "pilot), t interval")  # fmt: skip
    row = res.add("A", preset, over, pol, "dealer_margin", est.estimate, est.low, est.high,
                  est.n, how, factor=mg.factor, pilot_pairs=mg.pilot,
                  p_value=_num(t_p_value(est)))  # fmt: skip
    if rows is not None:
        rows.append(row)
    res.add("A", preset, over, pol, "dealer_margin:plain", plain.estimate, plain.low,
            plain.high, plain.n, "plain hands, t interval")  # fmt: skip
    res.add("A", preset, over, pol, "dealer_margin:swapped", swapped.estimate,
            swapped.low, swapped.high, swapped.n,
            "duplicate deals alone (seats' cards exchanged), t interval")  # fmt: skip
    for r in (mg.dup, mg.cv):
        e = r.estimate
        key = "duplicates" if r.method == "duplicates" else "control_variates"
        res.add("A", preset, over, pol, f"dealer_margin:{key}", e.estimate, e.low,
                e.high, e.n, f"{r.method}, t interval (every hand; descriptive)",
                factor=r.factor)  # fmt: skip
    return mg


# --------------------------------------------------------------------------- part B


#: The families of tests whose p-values are Holm-adjusted together (``holm_family`` in
#: results.json): every option's per-hand effect on the dealer margin under every policy;
#: every per-match effect under ``expert`` (first mover's wins and match length); every
#: difference of an option's effect between two policies; every seat lead (part A).
HOLM_FAMILIES = {
    "effect:dealer_margin": "every option's per-hand effect on the dealer margin, under "
    "every policy",
    "effect:match": "every option's per-match effect under expert (first mover's match "
    "wins and match length)",
    "effect_difference:dealer_margin": "every option's difference of effects between two policies",
    "seat_lead": "every best seat's lead over the next, under every policy and preset",
    "dealer_margin": "every preset's (and reading's) dealer margin, under every policy",
    "first_mover_match_win": "every first mover's chance of winning the match against the "
    "fair chance (bootstrap z test), under every policy, preset and target",
}
#: Added to a family's description for the tests under ``learned``, a family of their own.
LEARNED_FAMILY = "; under learned only, a family apart from the other policies'"
#: The family-wise error rate a "non-zero" claim is held to.
ALPHA = 0.05


def significant(t: S.TestResult) -> bool:
    """Whether a test of a family is non-zero after Holm's adjustment (``p_holm`` <
    :data:`ALPHA`, and its interval on one side of 0)."""
    q = t.p_holm
    return q is not None and math.isfinite(q) and q < ALPHA and (t.low > 0 or t.high < 0)


def adjust_rows(
    tests: Sequence[S.TestResult],
    rows: Sequence[dict[str, Any]],
    family: str,
    tags: Sequence[str] | None = None,
) -> tuple[S.TestResult, ...]:
    """The ``tests`` of one family with ``p_holm`` set (:func:`S.with_holm`), and the same
    ``p_holm`` and ``holm_family`` (with the family's size) written into their ``rows``
    of results.json (in the same order). With ``tags`` (each test's policy tag), the tests
    under ``learned`` are adjusted in a family of their own (:func:`_holm_apart`)."""
    tags = tags if tags is not None else [""] * len(tests)
    adjusted: list[S.TestResult] = list(tests)
    for apart in sorted({_family(family, t) for t in tags}):
        idx = [i for i, t in enumerate(tags) if _family(family, t) == apart]
        done = S.with_holm([tests[i] for i in idx])
        m = sum(1 for i in idx if math.isfinite(tests[i].p_value))
        for i, t in zip(idx, done, strict=True):
            adjusted[i] = t
            rows[i]["p_holm"] = _num(t.p_holm if t.p_holm is not None else math.nan)
            rows[i]["holm_family"] = f"{apart} ({m} tests)"
    return tuple(adjusted)


@dataclass(frozen=True)
class HandEffect:
    effect: Effect
    test: S.TestResult
    paired: bool


def _hand_effect(data: Data, e: Effect) -> tuple[S.TestResult, bool, np.ndarray | None]:
    v, b = data.margin(e.variant), data.margin(e.baseline)
    paired = data.rules(e.variant).deck == data.rules(e.baseline).deck
    if paired:
        n = min(v.size, b.size)
        d = (v[:n] - b[:n]).astype(np.float64)
        t = S.paired_t_from_stats(
            "dealer_margin", float(v[:n].mean()), float(b[:n].mean()), float(d.mean()),
            float(d.std(ddof=1)), n,
        )  # fmt: skip
        return t, True, d
    t = S.welch_t_from_stats(
        "dealer_margin", float(v.mean()), float(v.std(ddof=1)), v.size, float(b.mean()),
        float(b.std(ddof=1)), b.size,
    )  # fmt: skip
    return t, False, None


def _nested_var(x1: np.ndarray, x2: np.ndarray) -> float:
    """Var(mean of x1 - mean of x2) for per-hand series over hands 0 .. n1 - 1 and 0 ..
    n2 - 1 of runs dealt the same decks: the covariance of their common hands counts."""
    n1, n2 = x1.size, x2.size
    m = min(n1, n2)
    c = float(np.cov(x1[:m], x2[:m])[0, 1]) if m > 1 else 0.0
    return float(x1.var(ddof=1)) / n1 + float(x2.var(ddof=1)) / n2 - 2 * c / max(n1, n2)


@dataclass(frozen=True)
class Dependence:
    option: tuple[str, ...]
    a: str
    b: str
    diff: float  # effect under a minus effect under b
    se: float
    p: float
    p_holm: float = math.nan
    base: str = "scopa"  # the preset the option is toggled from

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        return self.base, self.option

    @property
    def low(self) -> float:
        return self.diff - Z * self.se

    @property
    def high(self) -> float:
        return self.diff + Z * self.se


@dataclass(frozen=True)
class MatchEffect:
    """An option's effect on complete matches, and the variant's first mover's wins as
    simulated and as the dynamic programme predicts them from the variant's hands."""

    effect: Effect
    results: list[S.TestResult]
    simulated: Estimate
    dp: Estimate | None


def part_b(
    data: Data, res: Results, bootstrap: int, say: Callable[[str], None]
) -> tuple[list[HandEffect], list[Dependence], list[MatchEffect]]:
    from scopa_sim.analysis.study.plan import LEARNED, option_name, policy_spec

    hand: list[HandEffect] = []
    hand_rows: list[dict[str, Any]] = []
    deps: list[Dependence] = []
    by_option: dict[tuple[str, tuple[str, ...]], list[Effect]] = {}
    for e in data.plan.effects:
        if e.level == "hand":
            by_option.setdefault(e.key, []).append(e)
    for (base, opt), effects in by_option.items():
        # per-hand series of each policy's effect: the paired differences, or (decks
        # differ) the variant's and the baseline's margins
        series: dict[str, tuple[np.ndarray, ...]] = {}
        est: dict[str, float] = {}
        for e in effects:
            t, paired, d = _hand_effect(data, e)
            hand.append(HandEffect(e, t, paired))
            est[e.tag] = t.estimate
            pol = policy_spec(e.tag)
            test = "paired t on (match, hand)" if paired else "Welch t (decks differ: unpaired)"
            hand_rows.append(res.add("B", e.base, _overrides(e.option), pol,
                             "effect:dealer_margin", t.estimate, t.low, t.high,
                             t.n_a if paired else t.n_a + t.n_b, test,
                             p_value=t.p_value))  # fmt: skip
            vm = S.mean_ci(data.margin(e.variant))
            res.add("B", e.base, _overrides(e.option), pol, "dealer_margin", vm.estimate,
                    vm.low, vm.high, vm.n, "plain hands, t interval")  # fmt: skip
            if d is not None:
                series[e.tag] = (d,)
            else:
                series[e.tag] = (
                    data.margin(e.variant).astype(np.float64),
                    data.margin(e.baseline).astype(np.float64),
                )
            data.drop(e.variant)
        for a, b in combinations(list(series), 2):
            var = sum(_nested_var(x, y) for x, y in zip(series[a], series[b], strict=True))
            diff = est[a] - est[b]
            se = math.sqrt(max(var, 0.0))
            p = float(2 * S.st.norm.sf(abs(diff / se))) if se > 0 else math.nan
            deps.append(Dependence(opt, a, b, diff, se, p, base=base))
    say("part B: per-hand effects done")
    tests = adjust_rows([h.test for h in hand], hand_rows, "effect:dealer_margin",
                        [h.effect.tag for h in hand])  # fmt: skip
    hand = [HandEffect(h.effect, t, h.paired) for h, t in zip(hand, tests, strict=True)]
    learned = [LEARNED if LEARNED in (d.a, d.b) else "" for d in deps]
    adj = _holm_apart([d.p for d in deps], learned)
    deps = [
        Dependence(x.option, x.a, x.b, x.diff, x.se, x.p, q, x.base)
        for x, (q, _) in zip(deps, adj, strict=True)
    ]
    for dep, group, (_, size) in zip(deps, learned, adj, strict=True):
        d_ = dep
        res.add("B", d_.base, _overrides(d_.option),
                f"{policy_spec(d_.a)} vs {policy_spec(d_.b)}",
                "effect_difference:dealer_margin", d_.diff, d_.low, d_.high,
                0, "z test of the difference of two paired effects (common decks' covariance "
                "included), Holm-adjusted over the table", p_value=d_.p,
                p_holm=_num(d_.p_holm),
                holm_family=f"{_family('effect_difference:dealer_margin', group)} "
                f"({size} tests)")  # fmt: skip
    matches: list[MatchEffect] = []
    match_rows: list[dict[str, Any]] = []
    rates: dict[str, Estimate] = {}
    for e in data.plan.effects:
        if e.level != "match":
            continue
        pc = A.compare_pair(
            open_run(data.dirs[e.baseline]),
            open_run(data.dirs[e.variant]),
            metrics=("first_mover_wins", "match_length"),
            strict=False,
        )
        pol = policy_spec(e.tag)
        for name, opts in ((e.baseline, ()), (e.variant, e.option)):
            if name not in rates:
                rates[name] = _match_rates(data, res, name, opts, pol, e.base)[0]
        # the variant's hands (the baseline's when the option changes only the match)
        hands = e.hands or f"{option_name(e.option)}-{e.tag}"
        if hands not in data.dirs:
            hands = f"{e.base}-{e.tag}"
        rules = data.rules(e.variant)
        dp = None
        if rules.sides == 2:
            h = data.hands(hands)
            out = E.HandOutcomes.of(h["dp"].to_numpy(), h["fp"].to_numpy(),
                                    h["flag"].to_numpy())  # fmt: skip
            denari = rules.napola and rules.napola_all_denari_wins
            seed = bootstrap_seed(data.seed, "effect", e.variant, e.baseline)
            dp = E.first_mover_win(out, rules.target, denari, bootstrap, seed)
            data.drop(hands)
        matches.append(MatchEffect(e, list(pc.results), rates[e.variant], dp))
        for r in pc.results:
            metric = "first_mover_match_win" if r.metric == "first_mover_wins" else "match_length"
            match_rows.append(res.add("B", e.base, _overrides(e.option), pol,
                              f"effect:{metric}", r.estimate, r.low, r.high,
                              r.n_a if r.paired else r.n_a + r.n_b, r.test,
                              p_value=r.p_value))  # fmt: skip
    say("part B: per-match effects done")
    done = iter(adjust_rows([r for me in matches for r in me.results], match_rows,
                            "effect:match"))  # fmt: skip
    matches = [MatchEffect(me.effect, [next(done) for _ in me.results], me.simulated, me.dp)
               for me in matches]  # fmt: skip
    return hand, deps, matches


def _match_rates(
    data: Data, res: Results, name: str, opts: Sequence[str], pol: str, base: str = "scopa"
) -> tuple[Estimate, Estimate]:
    df = data.matches(name)
    fmw = S.wilson(int(df["fmw"].sum()), df.height)
    length = S.mean_ci(df["length"].to_numpy())
    part = data.run(name).part
    res.add(part, base, _overrides(opts), pol, "first_mover_match_win", fmw.estimate,
            fmw.low, fmw.high, fmw.n, "simulated matches, Wilson interval")  # fmt: skip
    res.add(part, base, _overrides(opts), pol, "match_length", length.estimate, length.low,
            length.high, length.n, "simulated matches, t interval")  # fmt: skip
    return fmw, length


# --------------------------------------------------------------------------- part C


@dataclass(frozen=True)
class MatchWin:
    preset: str
    tag: str
    target: int
    dp: Estimate
    simulated: Estimate | None
    sides: int = 2
    p_value: float = math.nan  # bootstrap z test of dp against the fair chance
    p_holm: float = math.nan  # the same, Holm over every first mover's match win of part C

    @property
    def fair(self) -> float:
        """The probability of a match with no first-mover effect."""
        return 1 / self.sides

    @property
    def resolved(self) -> bool:
        """Whether the first mover's chance differs from the fair one: Holm-adjusted p
        below :data:`ALPHA` and the interval clear of the fair chance."""
        return math.isfinite(self.p_holm) and self.p_holm < ALPHA and self.dp.excludes(self.fair)


def _adjust_wins(wins: list[MatchWin], rows: list[dict[str, Any]]) -> list[MatchWin]:
    """``wins`` with ``p_holm`` set (Holm over all of them: family ``first_mover_match_win``)
    and the same ``p_holm`` and ``holm_family`` written into their ``rows`` of results.json
    (in the same order)."""
    adj = S.holm([w.p_value for w in wins])
    m = sum(1 for w in wins if math.isfinite(w.p_value))
    for row, q in zip(rows, adj, strict=True):
        row["p_holm"] = _num(q)
        row["holm_family"] = f"{HOLM_FAMILIES['first_mover_match_win']} ({m} tests)"
    return [dataclasses.replace(w, p_holm=q) for w, q in zip(wins, adj, strict=True)]


#: Bootstrap replicates of the three-side programme at most (it costs 27 times the
#: two-side one per replicate at the target 21).
BOOTSTRAP_3 = 100


@dataclass(frozen=True)
class EquityTable:
    """P(win the match) of a preset under ``expert`` to its own target, by score
    (``est[x, y, d]``: the player at x against y, d = 0 if the player deals next)."""

    preset: str
    target: int
    est: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n: int


def part_c(
    data: Data, res: Results, scale: Scale, say: Callable[[str], None]
) -> tuple[list[MatchWin], list[EquityTable]]:
    from scopa_sim.analysis.study.plan import (
        EQUITY_TABLES,
        MATCH_CHECKS,
        MATCH_TAGS,
        option_name,
        policy_spec,
        targets_of,
    )

    wins: list[MatchWin] = []
    win_rows: list[dict[str, Any]] = []
    for tag in MATCH_TAGS:
        for preset in KERNEL_PRESETS:
            name = f"{preset}-{tag}"
            rules = data.rules(name)
            if rules.sides not in (2, 3):
                continue
            denari = rules.napola and rules.napola_all_denari_wins
            if rules.sides == 2:
                h = data.hands(name)
                out2 = E.HandOutcomes.of(h["dp"].to_numpy(), h["fp"].to_numpy(),
                                         h["flag"].to_numpy())  # fmt: skip
            else:
                h = data.hands(name)
                out3 = E.PositionOutcomes.of(h.select(["pos0", "pos1", "pos2"]).to_numpy(),
                                             h["den_pos"].to_numpy())  # fmt: skip
            del h
            for target in targets_of(preset):
                seed = bootstrap_seed(data.seed, "first mover", preset, tag, target)
                if rules.sides == 2:
                    reps = scale.bootstrap
                    eq = E.first_mover_win(out2, target, denari, reps, seed)
                    by_side = [eq, Estimate(1 - eq.estimate, 1 - eq.high, 1 - eq.low, eq.n,
                                            eq.method)]  # fmt: skip
                else:
                    reps = min(scale.bootstrap, BOOTSTRAP_3)
                    by_side = E.side_wins3(out3, target, denari, reps, seed)
                    eq = by_side[0]
                over = {} if target == rules.target else {"target": target}
                for seat in range(rules.players):
                    w = by_side[seat % rules.sides]
                    res.add("C", preset, over, policy_spec(tag), "seat_match_win", w.estimate,
                            w.low, w.high, w.n, "the seat's side's match wins, dynamic "
                            f"programme over hand results, percentile bootstrap over hands "
                            f"({reps} replicates); seat 0 plays first in the first "
                            "hand", seat=seat)  # fmt: skip
                sim = None
                if target in MATCH_CHECKS.get(preset, ()) and tag != "search":
                    opts = () if target == rules.target else (f"target={target}",)
                    mname = (f"{option_name(opts, preset)}-{tag}-matches" if opts
                             else f"{preset}-{tag}-matches")  # fmt: skip
                    if mname in data.dirs:
                        df = data.matches(mname)
                        sim = S.wilson(int(df["fmw"].sum()), df.height)
                p = E.bootstrap_z_p(eq, 1 / rules.sides)
                wins.append(MatchWin(preset, tag, target, eq, sim, rules.sides, p))
                win_rows.append(res.add(
                    "C", preset, over, policy_spec(tag), "first_mover_match_win",
                    eq.estimate, eq.low, eq.high, eq.n,
                    f"dynamic programme over hand results, percentile bootstrap over "
                    f"hands ({reps} replicates)", p_value=_num(p)))  # fmt: skip
            data.drop(name)
    wins = _adjust_wins(wins, win_rows)
    tables = []
    for preset in EQUITY_TABLES:
        rules = data.rules(f"{preset}-expert")
        h = data.hands(f"{preset}-expert")
        out = E.HandOutcomes.of(h["dp"].to_numpy(), h["fp"].to_numpy(), h["flag"].to_numpy())
        denari = rules.napola and rules.napola_all_denari_wins
        seed = bootstrap_seed(data.seed, "equity", preset)
        est, low, high = E.equity_table(out, rules.target, denari, scale.bootstrap, seed)
        data.drop(f"{preset}-expert")
        t = rules.target
        for x in range(t):
            for y in range(t):
                for d, who in ((0, "player"), (1, "opponent")):
                    res.add("C", preset, {}, "expert", "match_equity", est[x, y, d],
                            low[x, y, d], high[x, y, d], out.n,
                            f"dynamic programme, percentile bootstrap over hands "
                            f"({scale.bootstrap} replicates)", score=x, opponent_score=y,
                            deals_next=who)  # fmt: skip
        tables.append(EquityTable(preset, t, est, low, high, out.n))
    say("part C done")
    return wins, tables


# --------------------------------------------------------------------------- reports


def _header(title: str, scale_name: str, seed: int, cmd: str) -> list[str]:
    return [f"# {title}", "", f"_Study scale `{scale_name}`, seed {seed}; scopa-sim "
            f"{__version__}; reproduce with `{cmd}`._", ""]  # fmt: skip


def _legend(tag: str) -> str:
    """A policy's name in a figure's legend (the search setting spelt out)."""
    from scopa_sim.analysis.study.plan import SEARCH, policy_spec

    return f"search ({policy_spec(tag)})" if tag == SEARCH else tag


def _tag_name(tag: str) -> str:
    from scopa_sim.analysis.study.plan import policy_spec

    return f"`{policy_spec(tag)}`"


def _sentence(text: str) -> list[str]:
    """A section's opening conclusion, as a bold sentence and a blank line."""
    return [f"**{text[0].upper()}{text[1:]}.**", ""]


def _pick(items: Sequence[Any], preset: str = "scopa", tag: str = "expert") -> Any:
    """The headline item (a :class:`Margin` or :class:`MatchWin`): ``preset`` under ``tag``
    if there is one, else the first."""
    return next((x for x in items if x.preset == preset and x.tag == tag), items[0])


def conclusion_a(margins: Sequence[Margin]) -> str:
    """Part A's conclusion: the dealer margin of `scopa` under `expert` (the estimator used)."""
    m = _pick(margins)
    e = m.used
    family = sum(1 for x in margins if math.isfinite(t_p_value(x.used)))
    return C.margin_sentence(
        e.estimate, e.low, e.high, e.n,
        interval=f"95% t interval, {m.method}",
        policy=f"in `{m.preset}` under {_tag_name(m.tag)}",
        unit="pairs of hands" if m.method == "duplicates" else "hands",
        holm=(m.p_holm, family),
    )  # fmt: skip


def conclusion_b(hand: Sequence[HandEffect], tag: str = "expert") -> str:
    """Part B's conclusion: how many rule variants resolve an effect on the dealer margin
    per hand under ``tag``, and the largest."""
    tag = tag if any(h.effect.tag == tag for h in hand) else hand[0].effect.tag
    mine = [h for h in hand if h.effect.tag == tag]
    sure = [h for h in mine if significant(h.test)]
    n = min(h.test.n_a for h in mine)
    size = f"at least {n:,} hands per variant"
    family = f"Holm-adjusted over the {len(hand)} per-hand effects of every policy"
    if not sure:
        return (
            f"no rule variant's effect on the dealer margin per hand is resolved at this "
            f"sample size under {_tag_name(tag)}: none of the {len(mine)} tested (paired t, "
            f"or Welch t for `deck=36`) has p < {ALPHA} {family}; {size}"
        )
    top = max(sure, key=lambda h: abs(h.test.estimate))
    t = top.test
    return (
        f"{len(sure)} of {len(mine)} rule variants change the dealer margin per hand under "
        f"{_tag_name(tag)} (paired t, or Welch t for `deck=36`, p < {ALPHA} {family}), "
        f"the most {_opt_text(top.effect.option, top.effect.base)}: "
        f"{_ci(t.estimate, t.low, t.high)} points per hand; the other "
        f"{len(mine) - len(sure)} are not resolved at this sample size; {size}"
    )


def conclusion_c(wins: Sequence[MatchWin]) -> str:
    """Part C's conclusion: the first mover's chance of winning a match to 11 of `scopa`
    under `expert`, against the fair chance."""
    w = _pick([x for x in wins if x.target == 11] or list(wins))
    d = w.dp
    family = sum(1 for x in wins if math.isfinite(x.p_value))
    return C.win_sentence(
        d.estimate, d.low, d.high,
        who="the first mover", target=w.target, fair=w.fair,
        interval=f"95% {d.method}",  # "percentile bootstrap, R replicates"
        policy=f"in `{w.preset}` under {_tag_name(w.tag)}", n=d.n,
        holm=(w.p_holm, family),
    )  # fmt: skip


def write_a(
    margins: list[Margin],
    seats: list[Seats],
    folder: Path,
    head: list[str],
    details: Path | None = None,
) -> Path:
    from scopa_sim.analysis.study.plan import POLICY_TAGS

    folder.mkdir(parents=True, exist_ok=True)
    L = list(head) + (_sentence(conclusion_a(margins)) if margins else [])
    L += [
        "The dealer margin is the dealer's side's points minus the first player's side's, per "
        "hand (positive: dealing is an advantage, i.e. the first player is at a disadvantage). "
        "Each preset and policy was played on plain deals and on their duplicates (the same "
        "decks with the seats' cards exchanged). Estimators, each with a 95% t interval:",
        "",
        "* **plain**: the mean over the plain hands (n hands);",
        "* **duplicates**: the mean of each hand and its duplicate (n pairs = 2n hands); its "
        "factor is the efficiency against independent hands of the same cost, "
        "1 / (1 + correlation of the two margins);",
        "* **control variates**: the mean less the regression on the deal's features (dealer's "
        "side minus first side: sevens, denari, settebello, sixes, aces, kings dealt; each of "
        "mean exactly 0), plain hands only; factor = Var(margin) / Var(residual);",
        f"* **used**: chosen before it is computed. The first {PILOT_SHARE:.0%} of a cell's "
        f"pairs are its pilot: the most efficient of duplicates and control variates whose "
        f"factor on the pilot is at least {V.WORTH} is used, else plain hands, and the "
        f"estimate is computed on the other hands only, so that its interval does not come "
        f"from the estimator that looked best on the same data. A cell with fewer than "
        f"{int(MIN_PILOT / PILOT_SHARE):,} pairs has no pilot and uses plain hands (all of "
        "them). The plain, duplicates and control-variates columns use every hand: they "
        "describe the data, they do not choose. A factor f means the interval is as narrow "
        "as f times as many plain hands would give.",
        "",
        "**sign**: positive or negative only when the used estimate's t test against 0, "
        "Holm-adjusted over every dealer margin of this table (one family; `learned`'s "
        "margins a family of their own), has p < 0.05.",
        "",
        "`escoba+opening_fifteen_to-first_player` is `escoba` under the other reading of its "
        "opening take: an opening table of fifteen goes to the first player's side instead of "
        "the dealer's (docs/rules.md §9); under the kernel policies only.",
        "",
    ]
    rows = []
    for m in margins:
        pilot = f"pilot {m.pilot:,}, ×{m.factor:.2f}" if m.pilot else "no pilot"
        rows.append([
            m.preset, _tag_name(m.tag), f"{_m(m.plain)} (n={m.plain.n:,})",
            f"{_m(m.dup.estimate)} (n={m.dup.estimate.n:,} pairs) ×{m.dup.factor:.2f}",
            f"{_m(m.cv.estimate)} ×{m.cv.factor:.2f}",
            f"{_m(m.used)} ({m.method}, n={m.used.n:,}; {pilot})",
            margin_verdict(m),
        ])  # fmt: skip
    L += _table(["preset", "policy", "plain", "duplicates", "control variates", "used",
                 "sign"], rows)  # fmt: skip
    labels = list(dict.fromkeys([*KERNEL_PRESETS, *(m.preset for m in margins)]))  # then readings
    series = []
    for tag in POLICY_TAGS:
        vals: list[tuple[float, float, float] | None] = []
        for p in labels:
            got = [m for m in margins if m.preset == p and m.tag == tag]
            e = got[0].used if got else None
            vals.append((e.estimate, e.low, e.high) if e else None)
        series.append((_legend(tag), vals))
    f = P.grouped_forest_plot(labels, series, folder / "margins.png",
                              "Dealer minus first player, points per hand",
                              "points per hand (95% CI, estimator used)")  # fmt: skip
    L += ["", f"![dealer margin by preset and policy]({f.name})", ""]
    L += ["Variance reduction (efficiency factor against plain hands of the same cost, "
          "measured on every hand):", ""]  # fmt: skip
    L += _table(
        ["preset", "policy", "duplicates", "control variates"],
        [[m.preset, _tag_name(m.tag), f"×{m.dup.factor:.2f}", f"×{m.cv.factor:.2f}"]
         for m in margins],
    )  # fmt: skip
    L += _write_seats(seats, folder)
    if details is not None:
        L += ["", f"Which score items drive the margin in `scopa` under each policy, with the "
              f"points by position and more: [{details.name}]({details.name}).", ""]  # fmt: skip
    md = folder / "report.md"
    write_text(md, "\n".join(L) + "\n")
    return md


def _write_seats(seats: list[Seats], folder: Path) -> list[str]:
    """Part A's section on every seat: a table of each seat's points per hand, the best
    seat with its paired lead over the next, and one figure per policy."""
    from scopa_sim.analysis.study.plan import POLICY_TAGS

    width = max((s.players for s in seats), default=2)
    L = ["", "## Every seat", "",
         "Each seat's points per hand (its side's points; in team games partners share them), "
         "from the first player to the dealer, from the plain hands, with 95% t intervals; "
         "**best** is the seat with the most points on the first half of the hands, and "
         "**lead** its margin over the next best seat of another side there, measured per "
         "hand on the *other* half (paired t interval), so that the hands that picked the "
         "seat do not measure its lead; a lead is called non-zero only when its p-value, "
         "Holm-adjusted over every lead of this table (`learned`'s leads a family of their "
         "own), is below 0.05.", ""]  # fmt: skip
    rows = []
    for st in seats:
        cells = [f"{_m(e)}" for e in st.points] + [""] * (width - st.players)
        lead = f"{_m(st.lead)} ({lead_verdict(st)})" if st.lead else "partners only"
        rows.append([st.preset, _tag_name(st.tag), *cells, best_name(st), lead])
    head = ["preset", "policy", *[f"seat {i + 1}" for i in range(width)], "best", "lead"]
    head[2], head[1 + width] = "seat 1 (first)", f"seat {width} (dealer if {width} players)"
    L += _table(head, rows)
    for tag in POLICY_TAGS:
        got = [s for s in seats if s.tag == tag]
        if not got:
            continue
        labels = [s.preset for s in got]
        series = []
        for i in range(width):
            vals = [(s.points[i].estimate, s.points[i].low, s.points[i].high)
                    if i < s.players else None for s in got]  # fmt: skip
            series.append(("first player" if i == 0 else f"seat {i + 1}", vals))
        f = P.grouped_forest_plot(labels, series, folder / f"seats-{tag}.png",
                                  f"Points per hand by seat, {_legend(tag)}",
                                  "points per hand (95% CI); the last seat deals",
                                  reference=None)  # fmt: skip
        L += ["", f"![points per hand by seat, {tag}]({f.name})"]
    return [*L, ""]


def write_b(
    hand: list[HandEffect],
    deps: list[Dependence],
    matches: list[MatchEffect],
    folder: Path,
    head: list[str],
) -> Path:
    from scopa_sim.analysis.study.plan import POLICY_TAGS

    folder.mkdir(parents=True, exist_ok=True)
    L = list(head) + (_sentence(conclusion_b(hand)) if hand else [])
    L += [
        "Each option is toggled from `scopa` and played on the same decks as the baseline "
        "(same seed): per hand the effect on the dealer margin is the paired mean difference "
        "variant − baseline over (match, hand) (paired t; `deck=36` deals other decks, so "
        "Welch t, unpaired). `target=21` changes nothing within a hand (matches only).",
        "",
        "The options of the sum-to-fifteen family (Scopa a quindici and Escoba) are measured "
        "the same way: `capture_mode=fifteen` from `scopa` (that is the `scopa-15` preset), "
        "`capture_compulsory=false` from `scopa` and from `scopa-15`, `opening_fifteen=true` "
        "from `scopa-15`, and the `escoba` preset against `scopa-15` (its four options at "
        "once; `target=15` acts on matches only). The variants that are presets reuse their "
        "part A runs, so `capture_mode=fifteen` and `escoba` are measured under search too. "
        "`escoba` has `kings_redeal=false`: the hands that `scopa-15` redeals for three or "
        "four kings on the table (about 1 in 600) are dealt other cards, which the pairing "
        "by (match, hand) keeps as pairs.",
        "",
        "## Effect on the dealer margin, per hand, by policy (policy dependence)",
        "",
        "The last column lists the pairs of policies between which the effect differs: in "
        "*sign* (both effects non-zero after Holm, on opposite sides) or in *size* (the "
        "difference is significant after Holm's correction; test and details in the next "
        "section).",
        "",
    ]
    options = list(dict.fromkeys(h.effect.key for h in hand))
    cell: dict[tuple[tuple[str, tuple[str, ...]], str], HandEffect] = {
        (h.effect.key, h.effect.tag): h for h in hand
    }
    rows = []
    for opt in options:
        r = [_opt_text(opt[1], opt[0])]
        for tag in POLICY_TAGS:
            h = cell.get((opt, tag))
            if h is None:
                r.append("—")
                continue
            t = h.test
            n = t.n_a if h.paired else t.n_a + t.n_b
            r.append(f"{_ci(t.estimate, t.low, t.high)} n={n:,}{_holm_note(t)}")
        r.append(_differs(opt, deps, cell))
        rows.append(r)
    L += _table(["option", *(_tag_name(t) for t in POLICY_TAGS), "differs between policies"],
                rows)  # fmt: skip
    L += ["", f"n: paired hands (unpaired: hands of both runs). p (Holm): the p-value adjusted "
          f"over the effects of this table (every option under every policy, one family; "
          f"`learned`'s effects a family of their own); an effect is called non-zero only "
          f"when it is below {ALPHA} (an unadjusted "
          "95% CI that excludes 0 is not enough: such cells say *not significant after "
          "Holm*).", ""]  # fmt: skip
    series = []
    for tag in POLICY_TAGS:
        vals: list[tuple[float, float, float] | None] = []
        for opt in options:
            h = cell.get((opt, tag))
            vals.append((h.test.estimate, h.test.low, h.test.high) if h else None)
        series.append((_legend(tag), vals))
    f = P.grouped_forest_plot([_opt_label(o, b) for b, o in options], series,
                              folder / "effects.png",
                              "Effect of each option on the dealer margin (variant − scopa)",
                              "points per hand (95% CI)")  # fmt: skip
    L += [f"![effects by policy]({f.name})", ""]
    L += [
        "## Policy dependence",
        "",
        "For each option and each pair of policies, the difference of the two effects with a "
        "95% normal interval; its variance counts the covariance of the two effect estimates "
        "over their common decks (the runs share the seed), so this is a z test on the "
        "difference of two paired estimates. p-values are Holm-adjusted over the "
        f"{len(deps)} tests of the table. **sign** marks effects non-zero after Holm on "
        "opposite sides; **size** marks a difference significant after Holm (p < 0.05).",
        "",
    ]
    drows = []
    for d in deps:
        mark = ", ".join(f"**{x}**" for x in _marks(d, cell)) or "—"
        drows.append([_opt_text(d.option, d.base), f"{d.a} − {d.b}", _ci(d.diff, d.low, d.high),
                      A_fmt_p(d.p), A_fmt_p(d.p_holm), mark])  # fmt: skip
    L += _table(["option", "policies", "difference of effects [95% CI]", "p", "p (Holm)",
                 "differs in"], drows)  # fmt: skip
    L += ["", "## Per match, under `expert`", ""]
    L += [
        "Complete matches to the target (11 unless the option says otherwise), paired on the "
        "match number (same seed: the same decks hand by hand while both matches last). The "
        "first mover is the side that plays first in the match's first hand. Tests: McNemar "
        "exact (first mover's wins, paired), paired t (match length); unpaired for `deck=36` "
        "(two-proportion z, Welch t). The sum-to-fifteen variants are compared with their own "
        "baseline (`scopa` or `scopa-15`, as named); `escoba` plays to 15. p (Holm): adjusted "
        "over every test of this table (one family); a difference is called non-zero only "
        f"below {ALPHA}.",
        "",
    ]
    mrows = []
    for me in matches:
        e, results = me.effect, me.results
        got = {x.metric: x for x in results}
        fm, ln = got.get("first_mover_wins"), got.get("match_length")
        mrows.append([
            _opt_text(e.option, e.base),
            f"{fm.a:.4f} vs {fm.b:.4f}: {_ci(fm.estimate, fm.low, fm.high, 4)} ({fm.test}, "
            f"p {A_fmt_p(fm.p_value)}){_holm_note(fm)}" if fm else "—",
            f"{ln.a:.3f} vs {ln.b:.3f}: {_ci(ln.estimate, ln.low, ln.high)} ({ln.test}, "
            f"p {A_fmt_p(ln.p_value)}){_holm_note(ln)}" if ln else "—",
            f"{fm.n_a:,}" if fm else "—",
            _ci(me.simulated.estimate, me.simulated.low, me.simulated.high, 4, False),
            _ci(me.dp.estimate, me.dp.low, me.dp.high, 4, False) if me.dp else "—",
        ])  # fmt: skip
    L += _table(["option", "first mover wins: variant vs baseline, difference [95% CI]",
                 "hands per match: variant vs baseline, difference", "matches",
                 "variant's first mover wins (Wilson)",
                 "the same by dynamic programme from the variant's hands"],
                mrows)  # fmt: skip
    L += ["", "The last two columns check the Markov model of part C on every variant: the "
          "first mover's match wins predicted from the variant's own hands (under `expert`, "
          "bootstrap CI) against the simulated matches.", ""]  # fmt: skip
    md = folder / "report.md"
    write_text(md, "\n".join(L) + "\n")
    return md


def _marks(
    d: Dependence, cell: dict[tuple[tuple[str, tuple[str, ...]], str], HandEffect]
) -> list[str]:
    ha, hb = cell[(d.key, d.a)].test, cell[(d.key, d.b)].test
    sign = significant(ha) and significant(hb) and (ha.estimate > 0) != (hb.estimate > 0)
    size = d.p_holm < ALPHA
    return [x for x, on in (("sign", sign), ("size", size)) if on]


def _differs(
    opt: tuple[str, tuple[str, ...]],
    deps: list[Dependence],
    cell: dict[tuple[tuple[str, tuple[str, ...]], str], HandEffect],
) -> str:
    out = []
    for d in deps:
        if d.key == opt:
            m = _marks(d, cell)
            if m:
                out.append(f"{' and '.join(m)}: {d.a}/{d.b}")
    return "; ".join(out) or "—"


def _holm_note(t: S.TestResult) -> str:
    """A table cell's verdict on an effect of a Holm family: its adjusted p, and a note
    when it is not called non-zero."""
    if t.low == t.high == 0:
        return " (no difference in any hand)"
    q = t.p_holm if t.p_holm is not None else math.nan
    if significant(t):
        return f", p (Holm) {A_fmt_p(q)}"
    if t.low > 0 or t.high < 0:
        return f", p (Holm) {A_fmt_p(q)} (**not significant after Holm**)"
    return f", p (Holm) {A_fmt_p(q)} (CI includes 0)"


def A_fmt_p(p: float) -> str:
    from scopa_sim.analysis.run_report import fmt_p

    return fmt_p(p)


def _win_mark(w: MatchWin) -> str:
    """What a first mover's match win lets one conclude, as a suffix of its cell: nothing
    when it differs from the fair chance after Holm, else why not."""
    if w.resolved:
        return ""
    if w.dp.excludes(w.fair):
        return f" (not significant after Holm: p (Holm) {A_fmt_p(w.p_holm)})"
    return f" (includes {'0.5' if w.sides == 2 else '1/3'})"


def _win_bullet(w: MatchWin) -> str:
    """A headline's words for a first mover's match win: the chance, its interval and
    what it lets one conclude (after Holm)."""
    d = w.dp
    return (
        f"the first mover wins a match to {w.target} under {_tag_name(w.tag)} with "
        f"probability {_ci(d.estimate, d.low, d.high, 4, False)}"
        + _win_mark(w).replace("(includes", "(CI includes")
    )


def write_c(
    wins: list[MatchWin],
    equity: list[EquityTable],
    folder: Path,
    head: list[str],
) -> Path:
    from scopa_sim.analysis.study.plan import POLICY_TAGS, TARGETS

    folder.mkdir(parents=True, exist_ok=True)
    L = list(head) + (_sentence(conclusion_c(wins)) if wins else [])
    L += [
        "No policy looks at the match totals and each hand is dealt from its own stream, so a "
        "match is a Markov chain on (score, score, side dealing next) driven by i.i.d. hand "
        "results. The probabilities below are solved exactly by dynamic programming from the "
        "observed distribution of (dealer's side's points, first side's points, which side "
        "took all the denari) of the preset's plain hands in part A, with the rules of the "
        "match: a side with all the denari wins at once under `napola_all_denari_wins`, the "
        "leader wins at or above the target, a tie at the top plays on, a 0-0 hand only passes "
        "the deal. 95% percentile bootstrap intervals (the hands resampled). With three "
        "players (`scopa-3`) the chain has three scores and three dealers, and a tie at the "
        "top above the target is solved by value iteration over the trailing side's deficit "
        f"({BOOTSTRAP_3} replicates at most; a fair chance is 1/3). `scopa-4-solo` (four "
        "sides) is left out: its chain is too large to bootstrap. The figure shows the "
        "2-sided presets at 11, 16 and 21; the table also gives each preset's own target "
        "when it is another (15 for `escoba`). In `escoba` the opening take of the "
        "sum-to-fifteen rules is part of each hand's result (it scores for the dealer's "
        "side at the deal), so the chain is the same.",
        "",
        "## The first mover's probability of winning the match",
        "",
    ]
    presets = list(dict.fromkeys(w.preset for w in wins))
    presets2 = list(dict.fromkeys(w.preset for w in wins if w.sides == 2))
    columns = sorted({w.target for w in wins})
    rows = []
    for p in presets:
        for tag in POLICY_TAGS:
            got = {w.target: w for w in wins if w.preset == p and w.tag == tag}
            if not got:
                continue
            n = next(iter(got.values())).dp.n
            rows.append([p, _tag_name(tag), f"{n:,}"] + [
                "—" if t not in got else
                _ci(got[t].dp.estimate, got[t].dp.low, got[t].dp.high, 4, signed=False)
                + _win_mark(got[t])
                for t in columns
            ])  # fmt: skip
    family = sum(1 for w in wins if math.isfinite(w.p_value))
    L += _table(["preset", "policy", "hands", *(f"to {t}" for t in columns)], rows)
    L += ["", "(includes 0.5), or 1/3 with three players: the interval cannot tell whether "
          "the first mover is favoured. (not significant after Holm): the interval excludes "
          "the fair chance but the bootstrap z test against it (the estimate over its "
          f"bootstrap standard error) is not significant after Holm's adjustment over the "
          f"{family} chances of this table (p (Holm) ≥ {ALPHA}). Every other cell differs "
          "from the fair chance after that adjustment.", ""]  # fmt: skip
    panels = []
    for t in TARGETS:
        series = []
        for tag in POLICY_TAGS:
            vals: list[tuple[float, float, float] | None] = []
            for p in presets2:
                g = [w for w in wins if w.preset == p and w.tag == tag and w.target == t]
                vals.append((g[0].dp.estimate, g[0].dp.low, g[0].dp.high) if g else None)
            series.append((_legend(tag), vals))
        panels.append((f"to {t}", series))
    f = P.grouped_forest_panels(presets2, panels, folder / "first-mover.png",
                                "The first mover's probability of winning the match",
                                "probability (95% CI)", reference=0.5)  # fmt: skip
    L += ["", f"![first mover's match wins]({f.name})", ""]
    L += [
        "## Check against simulated matches",
        "",
        "The same probabilities from complete simulated matches of `scopa` to 11, 16 and 21 "
        "and of `escoba` to its own 15 (kernel policies; Wilson intervals) and the difference "
        "DP − simulated with a normal interval (bootstrap sd and binomial sd combined; the two "
        "share some decks, which the interval ignores).",
        "",
    ]
    crows = []
    for w in wins:
        if w.simulated is None:
            continue
        s = w.simulated
        se_dp = (w.dp.high - w.dp.low) / (2 * Z)
        se_s = math.sqrt(s.estimate * (1 - s.estimate) / s.n)
        diff = w.dp.estimate - s.estimate
        h = Z * math.hypot(se_dp, se_s)
        ok = "within" if abs(diff) <= h else "**outside**"
        crows.append([w.preset, _tag_name(w.tag), str(w.target),
                      _ci(w.dp.estimate, w.dp.low, w.dp.high, 4, False),
                      f"{_ci(s.estimate, s.low, s.high, 4, False)} ({s.n:,} matches)",
                      _ci(diff, diff - h, diff + h, 4), ok])  # fmt: skip
    L += _table(["preset", "policy", "target", "DP", "simulated", "DP − simulated",
                 "0 in the CI"], crows)  # fmt: skip
    L += ["", f"With {len(crows)} checks at 95%, one outside by chance is not unusual; the "
          "targets of a preset share their matches' first hands, so their checks are "
          "correlated.", ""]  # fmt: skip
    for tab in equity:
        est, low, high, n = tab.est, tab.low, tab.high, tab.n
        title = f"`{tab.preset}` to {tab.target} under `expert`"
        L += [
            "",
            f"## Match equity: {title}",
            "",
            f"P(win the match) for a player with score x (columns) against y (rows), from "
            f"{n:,} hands; 95% bootstrap intervals below the figure.",
            "",
        ]
        png = "equity.png" if tab.preset == "scopa" else f"equity-{tab.preset}.png"
        f2 = P.equity_heatmap(
            [("player deals next", est[:, :, 0].T), ("opponent deals next", est[:, :, 1].T)],
            folder / png,
            f"{tab.preset} to {tab.target} under expert: P(player wins the match)",
            "player's score",
            "opponent's score",
        )
        L += [f"![match equity of {tab.preset}]({f2.name})", ""]
        for d, who in ((0, "the player deals next"), (1, "the opponent deals next")):
            L += [f"### {tab.preset}: {who}", ""]
            trows = []
            for y in range(est.shape[1]):
                trows.append([f"**{y}**"] + [
                    f"{est[x, y, d]:.3f} [{low[x, y, d]:.3f}, {high[x, y, d]:.3f}]"
                    for x in range(est.shape[0])
                ])  # fmt: skip
            L += _table(["opponent \\ player", *(str(x) for x in range(est.shape[0]))], trows)
            L.append("")
    md = folder / "report.md"
    write_text(md, "\n".join(L) + "\n")
    return md


def headlines(margins: list[Margin], hand: list[HandEffect], wins: list[MatchWin]) -> list[str]:
    """The study's main numbers for `scopa`, one bullet each, with what they allow."""
    from scopa_sim.analysis.study.plan import KEY_OPTIONS, POLICY_TAGS

    out = []
    for tag in POLICY_TAGS:
        got = [m for m in margins if m.preset == "scopa" and m.tag == tag]
        if not got:
            continue
        method, e, factor = got[0].chosen
        how = f"{method}, ×{factor:.2f}" if factor != 1 else method
        out.append(f"* dealer margin under {_tag_name(tag)}: {_m(e)} points per hand "
                   f"(n={e.n:,}, {how}): {margin_verdict(got[0])}")  # fmt: skip
    for opts in KEY_OPTIONS:
        cells = []
        for tag in POLICY_TAGS:
            h = [x for x in hand if x.effect.key == ("scopa", opts) and x.effect.tag == tag]
            if h:
                t = h[0].test
                cells.append(f"{tag} {_ci(t.estimate, t.low, t.high)}{_holm_note(t)}")
        out.append(f"* effect of {_opt_text(opts)} on the dealer margin: " + "; ".join(cells))
    for tag in POLICY_TAGS:
        w = [x for x in wins if x.preset == "scopa" and x.tag == tag and x.target == 11]
        if w:
            out.append(f"* {_win_bullet(w[0])}")
    return out


def _se(low: float, high: float) -> float:
    """The standard error behind a 95% normal or t interval (NaN without one)."""
    return (high - low) / (2 * Z) if math.isfinite(low) and math.isfinite(high) else math.nan


def _strongest_pair(
    cells: dict[str, tuple[float, float, float]],
    paired: Callable[[str, str], tuple[float, float, float] | None] | None = None,
) -> str:
    """Whether the answer has settled as play gets stronger: the difference between the
    two strongest policies measured (the last two of
    :data:`~scopa_sim.analysis.study.plan.POLICY_TAGS` with a cell) with its 95% CI, from
    ``paired`` (a paired difference, stronger minus weaker) where it gives one, else from
    the two intervals as independent estimates, and what it allows."""
    from scopa_sim.analysis.study.plan import POLICY_TAGS

    tags = [t for t in POLICY_TAGS if t in cells]
    if len(tags) < 2:
        return "—"
    a, b = tags[-2], tags[-1]
    got = paired(a, b) if paired is not None else None
    if got is None:
        (ea, la, ha), (eb, lb, hb) = cells[a], cells[b]
        se = math.hypot(_se(la, ha), _se(lb, hb))
        got = (eb - ea, eb - ea - Z * se, eb - ea + Z * se)
    d, lo, hi = got
    names = f"{_tag_name(b)} − {_tag_name(a)}"
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{names} {d:+.3f} [n/a]"
    word = "not told apart (CI includes 0)" if lo <= 0 <= hi else "**differ**"
    return f"{names} {_ci(d, lo, hi)}: {word}"


def strength_table(
    margins: list[Margin], hand: list[HandEffect], deps: list[Dependence]
) -> list[str]:
    """The index's table of the answer against the strength of play: the dealer margin
    of `scopa` and the effects of the options measured under every policy
    (:data:`~scopa_sim.analysis.study.plan.KEY_OPTIONS`, largest under `expert` first),
    one column per policy with its 95% CI, and whether the two strongest agree."""
    from scopa_sim.analysis.study.plan import KEY_OPTIONS, POLICY_TAGS

    rows = []
    cells = {m.tag: (m.used.estimate, m.used.low, m.used.high)
             for m in margins if m.preset == "scopa"}  # fmt: skip
    if cells:
        rows.append(["dealer margin", *(_ci(*cells[t]) if t in cells else "—"
                                        for t in POLICY_TAGS), _strongest_pair(cells)])  # fmt: skip

    def effect(opts: tuple[str, ...]) -> dict[str, tuple[float, float, float]]:
        return {h.effect.tag: (h.test.estimate, h.test.low, h.test.high)
                for h in hand if h.effect.key == ("scopa", opts)}  # fmt: skip

    def size(opts: tuple[str, ...]) -> float:
        e = effect(opts).get("expert")
        return -abs(e[0]) if e else 0.0

    for opts in sorted(KEY_OPTIONS, key=size):
        got = effect(opts)
        if not got:
            continue

        def paired(
            a: str, b: str, opts: tuple[str, ...] = opts
        ) -> tuple[float, float, float] | None:
            for x in deps:
                if x.key == ("scopa", opts) and {x.a, x.b} == {a, b}:
                    sign = 1 if x.a == b else -1
                    lo, hi = sorted((sign * x.low, sign * x.high))
                    return sign * x.diff, lo, hi
            return None

        rows.append([f"effect of {_opt_text(opts)}",
                     *(_ci(*got[t]) if t in got else "—" for t in POLICY_TAGS),
                     _strongest_pair(got, paired)])  # fmt: skip
    if not rows:
        return []
    L = ["", "## The answer against the strength of play (`scopa`, 95% CIs)", "",
         "The dealer margin and the effects of the options measured under every policy "
         "(largest under `expert` first), points per hand, policies weakest first. The last "
         "column asks whether the answer has settled: the difference between the two "
         "strongest policies measured (paired on the decks for an effect; for the margin "
         "the two runs' intervals combined as independent), and whether its CI includes "
         "0. A cell `—`: not measured under that policy (`learned` plays only the presets "
         "whose weights ship and the options that derive from them).", ""]  # fmt: skip
    L += _table(["answer", *(_tag_name(t) for t in POLICY_TAGS), "strongest two"], rows)
    return L


#: The table sizes of the "best seat" headline, each by the preset that stands for it.
TABLE_SIZES = (
    ("2 players", "scopa"),
    ("3 players", "scopa-3"),
    ("4 players, no teams", "scopa-4-solo"),
    ("4 players in teams", "scopa-4"),
)


def seat_headlines(seats: list[Seats]) -> list[str]:
    """For each table size, the best seat under each policy (picked on the first half of
    the hands), with its paired lead over the next best seat measured on the other half
    and whether that lead is non-zero after Holm."""
    out = []
    for size, preset in TABLE_SIZES:
        cells = []
        for st in (s for s in seats if s.preset == preset):
            best = best_name(st)
            lead = f"by {_m(st.lead)} ({lead_verdict(st)})" if st.lead else ""
            cells.append(f"{_tag_name(st.tag)} {best} {lead}".rstrip())
        if cells:
            out.append(f"* best seat at {size} (`{preset}`): " + "; ".join(cells)
                       + " (each seat picked on half the hands, its lead measured on the "
                       "other half)")  # fmt: skip
    return out


def fifteen_headlines(
    margins: list[Margin], hand: list[HandEffect], wins: list[MatchWin]
) -> list[str]:
    """The main numbers of the sum-to-fifteen presets: their dealer margins, the effects
    of the §9 options measured under search, and the first mover's match wins to each
    preset's own target, under the strong policies."""
    from scopa_sim.analysis.study.plan import KEY_FIFTEEN_EFFECTS, SEARCH

    strong = ("expert", SEARCH)
    out = []
    readings = [m.preset for m in margins if m.preset not in PRESETS]
    for preset in (*FIFTEEN_PRESETS, *dict.fromkeys(readings)):
        for tag in strong:
            got = [m for m in margins if m.preset == preset and m.tag == tag]
            if got:
                method, e, _ = got[0].chosen
                out.append(f"* `{preset}`: dealer margin under {_tag_name(tag)} {_m(e)} "
                           f"points per hand (n={e.n:,}, {method}): "
                           f"{margin_verdict(got[0])}")  # fmt: skip
    for key in KEY_FIFTEEN_EFFECTS:
        cells = []
        for tag in strong:
            h = [x for x in hand if x.effect.key == key and x.effect.tag == tag]
            if h:
                t = h[0].test
                cells.append(f"{tag} {_ci(t.estimate, t.low, t.high)}{_holm_note(t)}")
        out.append(f"* effect of {_opt_text(key[1], key[0])} on the dealer margin: "
                   + "; ".join(cells))  # fmt: skip
    for preset in FIFTEEN_PRESETS:
        target = Rules.make(preset).target
        for tag in strong:
            w = [x for x in wins if x.preset == preset and x.tag == tag and x.target == target]
            if w:
                out.append(f"* `{preset}`: {_win_bullet(w[0])}")
    return out


def write_index(
    plan: Plan,
    dirs: dict[str, Path],
    out: Path,
    scale_name: str,
    scale: Scale,
    seed: int,
    cmd: str,
    parts: list[tuple[str, Path]],
    headlines: list[str] | None = None,
    fifteen: list[str] | None = None,
    strength: list[str] | None = None,
) -> Path:
    from scopa_sim.analysis.study.plan import SEARCH_POLICY

    L = [f"# scopa-sim study ({scale_name} scale, seed {seed})", ""]
    L += [
        f"Reproduce: `{cmd}` (finished runs are reused, so an interrupted study resumes).",
        "",
        "**Strong play.** The strong-play parts use two bots: `expert` (jitted: "
        f"{POLICIES['expert'].summary}) and the search setting `{SEARCH_POLICY}` "
        "(information-set MCTS, played decision by decision). Weak play: `random`, `greedy`. "
        "Parts A and B per hand also play `learned` (the learned policy, jitted, about as "
        "strong as the search setting) where its weights ship.",
        "",
        f"Sample sizes: {scale.fast_hands:,} plain + {scale.fast_hands:,} duplicate hands per "
        f"preset and kernel policy; under search {scale.search_hands_scopa:,} + "
        f"{scale.search_hands_scopa:,} hands for `scopa`, {scale.search_hands_2p:,} + "
        f"{scale.search_hands_2p:,} for the other 2-player presets and "
        f"{scale.search_hands_multi:,} + {scale.search_hands_multi:,} for the 3- and 4-player "
        f"presets; {scale.option_hands:,} hands per option under `random` and `greedy`, "
        f"{scale.expert_option_hands:,} under `expert`, "
        f"{scale.search_option_hands:,} under search; {scale.matches:,} matches per match "
        f"run; {scale.bootstrap} bootstrap replicates.",
        "",
    ]
    for title, md in parts:
        L.append(f"* [{title}]({md.relative_to(out)})")
    if headlines:
        L += ["", "## Headlines (`scopa`, 95% CIs)", "", *headlines]
    if fifteen:
        L += ["", "## The sum-to-fifteen family (`scopa-15`, `escoba`; 95% CIs)", "", *fifteen]
    L += strength or []
    L += [
        "",
        "## results.json",
        "",
        "A list of objects, one per estimate, with keys `part`, `preset`, `rules` (the rule "
        "overrides, an object), `policy`, `metric`, `estimate`, `ci_low`, `ci_high` (95%), "
        "`n` (hands, pairs or matches behind it) and `method` (estimator and interval or "
        "test); some have `factor` (variance reduction), `p_value`, and with it `p_holm` "
        "(Holm-adjusted over the family named by `holm_family`, whose tests are adjusted "
        'together; a "non-zero" in the reports means `p_holm` < 0.05). Metrics:',
        "",
        "* `dealer_margin`: dealer's side minus first player's side, points per hand (part A: "
        "the estimator used, chosen on a pilot of `pilot_pairs` pairs and computed on the "
        "other hands, or plain hands when `pilot_pairs` is 0; `dealer_margin:plain`, "
        "`:swapped`, `:duplicates`, `:control_variates` are all of them, on every hand);",
        "* `seat_points`: each seat's points per hand (its side's), `seat` counted from the "
        "first player (0) to the dealer, plain hands (part A);",
        "* `seat_lead`: the best seat (`seat`, picked on the first half of the plain hands) "
        "minus the next best of another side (`next_seat`), measured on the other half "
        "(part A);",
        "* `seat_match_win`: each seat's side's probability of winning the match, `seat` "
        "counted from the first player of the first hand (part C, 2 and 3 sides);",
        "* `effect:dealer_margin`: variant minus baseline, paired on (match, hand);",
        "* `effect_difference:dealer_margin`: the effect under one policy minus under another "
        "(`policy` is `a vs b`, `n` is 0);",
        "* `first_mover_match_win`, `match_length` and their `effect:` forms: simulated "
        "matches (part B), or the dynamic programme (part C, `rules.target` for the targets "
        "other than the preset's own; its `p_value` is a bootstrap z test against the fair "
        "chance, 1/2 or 1/3);",
        "* `match_equity`: P(win the match) under `expert` in `scopa` and `scopa-15` to 11 "
        "and in `escoba` to 15 (each preset's own target; `preset` says which) at `score` "
        "against `opponent_score`, `deals_next` `player` or `opponent`.",
        "",
        "Part B's rows have `preset` = the preset an option is toggled from (`scopa`, or "
        "`scopa-15` for the sum-to-fifteen options) and `rules` = the options toggled.",
        "",
        "## Runs",
        "",
    ]
    rows = []
    for r in plan.runs:
        c = r.config(seed)
        rows.append([r.name, r.part, r.preset, " ".join(r.rules) or "—", f"`{r.policy}`",
                     f"{r.count:,} {r.mode}", r.deal, c.run_id])  # fmt: skip
    L += _table(["run", "part", "preset", "overrides", "policy", "units", "deal", "run id"], rows)
    L += ["", "Each run is `scopa-sim simulate --preset P [--rule ...] --policy POLICY --hands N "
          f"(or --matches N) [--deal swapped] --seed {seed}`.", ""]  # fmt: skip
    md = out / "README.md"
    write_text(md, "\n".join(L) + "\n")
    return md


def write_study(
    plan: Plan,
    dirs: dict[str, Path],
    out: Path,
    scale_name: str,
    scale: Scale,
    seed: int,
    say: Callable[[str], None] = print,
) -> list[Path]:
    """Every estimate, the three part reports, the index and results.json."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = f"scopa-sim study --scale {scale_name} --seed {seed} --out {out}"
    data = Data(plan, dirs, seed)
    res = Results()
    margins, seats = part_a(data, res, say)
    hand, deps, matches = part_b(data, res, scale.bootstrap, say)
    wins, equity = part_c(data, res, scale, say)
    titles = {
        "A": "first-player advantage in every preset, weak and strong play",
        "B": "effect of each rule option, per hand and per match, and its policy dependence",
        "C": "match level: the first mover's match wins and the match-equity table",
    }
    from scopa_sim.analysis.run_report import write_report
    from scopa_sim.analysis.study.plan import POLICY_TAGS

    details = write_report(
        [dirs[f"scopa-{t}"] for t in POLICY_TAGS], out / "part-a" / "scopa-details.md", cmd
    ).markdown
    parts = [
        (f"Part A: {titles['A']}", write_a(margins, seats, out / "part-a",
                                            _header(f"Part A: {titles['A']}", scale_name, seed,
                                                    cmd), details)),
        (f"Part B: {titles['B']}", write_b(hand, deps, matches, out / "part-b",
                                            _header(f"Part B: {titles['B']}", scale_name, seed,
                                                    cmd))),
        (f"Part C: {titles['C']}", write_c(wins, equity, out / "part-c",
                                            _header(f"Part C: {titles['C']}", scale_name, seed,
                                                    cmd))),
    ]  # fmt: skip
    index = write_index(plan, dirs, out, scale_name, scale, seed, cmd, parts,
                        headlines(margins, hand, wins) + seat_headlines(seats),
                        fifteen_headlines(margins, hand, wins),
                        strength_table(margins, hand, deps))  # fmt: skip
    rj = out / "results.json"
    write_text(rj, json.dumps(res.rows, indent=1) + "\n")
    for _, md in parts:
        say(f"wrote {md}")
    say(f"wrote {index} and {rj}")
    return [md for _, md in parts] + [index, rj]
