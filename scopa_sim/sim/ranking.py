"""The rule that names the documented best bot, applied to measured round robins.

A round robin's standings (:func:`scopa_sim.sim.tournament.standings`) put first the
setting with the best worst case among those no other setting beats significantly.
The rule then ties that first setting with every unbeaten setting a pairing shows
*level* with it, and of tied settings names the one meeting more of the best bot's
targets, then the standings' order:

1. not significantly worse than any setting of the round robin (its standings);
2. beats the reference search at equal time, 95% CI above 0: every sample of the
   candidate against it (the round robin's and the confirmations' on fresh deals)
   pooled (:func:`pooled`);
3. keeps at least :data:`GREEDY_GAIN` points per hand over the same search with
   uniform worlds against ``greedy`` (the belief experiment's estimate).

*Level* is an equivalence test, not a failure to find a difference: two settings are
level within ``d`` when the whole 95% CI of their pairing's margin per hand lies in
``[-d, +d]`` (:func:`level`); ``d = 0`` leaves the standings alone.  A setting is
matched across measurements by its parameters other than ``iterations`` (each
measurement calibrates those to its own time per move).

The measurements are the JSON documents the experiments write
(``python -m scopa_sim.experiments.roundrobin --json``, ``scopa-sim tournament --json``,
``python -m scopa_sim.experiments.belief --json``), each given with the name it is
reported under.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scopa_sim.bots.base import Z95
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.errors import RankingError
from scopa_sim.sim.tournament import Standing
from scopa_sim.stats.estimate import Estimate

#: The search with uniform worlds a belief setting's gain is measured over (any budget).
UNIFORM = "ismcts:iterations=1000,horizon=4,c=1"
#: Target 3: points per hand over uniform worlds against ``greedy``.
GREEDY_GAIN = 0.15
#: The default equivalence margin, points per hand: one point in a hundred hands.
EQUIVALENCE = 0.01

#: One side of a pairing: (opponent, mean, CI low, CI high) from one setting's side.
Side = tuple[str, float, float, float]


@dataclass(frozen=True)
class PairingMargin:
    """One pairing's margin per hand from ``a``'s side, with its 95% CI over its deal
    pairs (``margin.n``), of the measurement named ``source``."""

    a: str
    b: str
    margin: Estimate
    source: str

    def side(self, p: str) -> Side:
        """(opponent, mean, low, high) from ``p``'s side (``p`` is ``a`` or ``b``)."""
        m = self.margin if p == self.a else self.margin.negated()
        return (self.b if p == self.a else self.a), m.estimate, m.low, m.high


@dataclass(frozen=True)
class Candidate:
    """An unbeaten setting: its worst pairing, the settings it is level with, whether it
    is tied with the standings' first, and its targets (``target2``: ``met``,
    ``margin``, ``ci``, ``deal_pairs``, ``sources``; ``target3``: ``met``, ``gain``,
    ``ci``, ``file``)."""

    policy: str
    label: str
    elo: float
    worst: Estimate  # the margin of its worst pairing, from its side
    worst_opponent: str
    level_with: tuple[str, ...]
    tied: bool
    target2: dict[str, Any]
    target3: dict[str, Any]

    @property
    def targets_met(self) -> int:
        """How many of the three targets the setting meets (target 1 always)."""
        return 1 + bool(self.target2["met"]) + bool(self.target3["met"])

    def to_dict(self) -> dict[str, Any]:
        """The candidate as the pick's JSON holds it."""
        d = dict(self.__dict__)
        worst = d.pop("worst")
        head = {k: d.pop(k) for k in ("policy", "label", "elo")}
        return {
            **head,
            "worst": worst.estimate,
            "worst_ci": [worst.low, worst.high],
            **d,
            "level_with": list(self.level_with),
            "targets_met": self.targets_met,
        }


@dataclass(frozen=True)
class Pick:
    """The rule's outcome: the unbeaten settings in the rule's order (the first is the
    best bot), the equivalence margin used, the interval ``[low, high)`` of margins
    that give the same pick (``high`` infinite when no larger margin changes it), and
    the round robin's label of each setting."""

    candidates: tuple[Candidate, ...]
    equivalence: float
    same_pick: tuple[float, float]
    labels: dict[str, str]

    @property
    def best(self) -> str:
        """The documented best bot's policy text."""
        return self.candidates[0].policy


def _key(setting: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """A setting's identity across measurements: its parameters other than iterations."""
    spec = PolicySpec.parse(setting)
    return spec.name, tuple(sorted((k, v) for k, v in spec.params if k != "iterations"))


def pairings_of(doc: Mapping[str, Any], source: str) -> list[PairingMargin]:
    """The pairings of a round robin's JSON (``mean``, ``ci_low``, ``ci_high``) or of a
    ``tournament --json`` (``margin``, ``margin_ci``).

    Args:
        doc: the measurement's JSON object.
        source: the name it is reported under (a file's name).

    Returns:
        Its pairings, in its order.

    Raises:
        RankingError: a pairing lacks its margin, its CI or its deal pairs.
    """
    out = []
    try:
        for r in doc["pairings"]:
            if "margin_ci" in r:
                low, high = r["margin_ci"]
                mean = r["margin"]
            else:
                mean, low, high = r["mean"], r["ci_low"], r["ci_high"]
            if None in (low, high):
                raise RankingError(f"{source}: a pairing without a CI (too few deal pairs)")
            margin = Estimate(float(mean), float(low), float(high), int(r["deal_pairs"]), "normal")
            out.append(PairingMargin(r["a"], r["b"], margin, source))
    except (KeyError, TypeError, ValueError):
        raise RankingError(f"{source}: a pairing without its margin and CI") from None
    return out


def level(low: float, high: float, d: float) -> bool:
    """Whether a pairing is shown equal within ``d``: ``d > 0`` and its 95% CI
    ``[low, high]`` lies inside ``[-d, +d]``."""
    return d > 0 and -d <= low and high <= d


def sides(p: str, pairings: Sequence[PairingMargin]) -> list[Side]:
    """``p``'s pairings, each (opponent, mean, low, high) from its side.

    Raises:
        RankingError: ``p`` played none of ``pairings``.
    """
    out = [r.side(p) for r in pairings if p in (r.a, r.b)]
    if not out:
        raise RankingError(f"{p!r} played no pairing of the round robin")
    return out


def worst_case(mine: Sequence[Side]) -> Side:
    """The worst of a setting's :func:`sides`: the lowest mean, the first opponent by
    name among equal means."""
    return min(mine, key=lambda t: (t[1], t[0]))


def level_with(mine: Sequence[Side], d: float) -> tuple[str, ...]:
    """The opponents, sorted, that a setting's :func:`sides` show :func:`level` with it
    within ``d``."""
    return tuple(sorted(o for o, _, lo, hi in mine if level(lo, hi, d)))


def pooled(samples: Sequence[tuple[int, float, float, float]]) -> tuple[float, float, float]:
    """Samples ``(n, mean, low, high)`` of one margin pooled: the means weighted by
    ``n``, the standard errors (from the 95% CIs' half-widths) combined.

    Returns:
        (mean, low, high): the pooled mean and its 95% CI.
    """
    total = sum(n for n, *_ in samples)
    mean = sum(n * m for n, m, _, _ in samples) / total
    se = math.sqrt(sum((n * (hi - lo) / (2 * Z95)) ** 2 for n, _, lo, hi in samples)) / total
    return mean, mean - Z95 * se, mean + Z95 * se


def target2(p: str, reference: str, samples: Sequence[PairingMargin]) -> dict[str, Any]:
    """Target 2 for ``p``: every sample of ``p`` against ``reference``, pooled.

    Returns:
        ``met`` (the pooled CI above 0), ``margin``, ``ci``, ``deal_pairs`` and
        ``sources`` (the samples' names); ``margin`` None when there is no sample.
    """
    mine = [r for r in samples if {r.a, r.b} == {p, reference}]
    if not mine:
        return {"met": False, "margin": None, "sources": []}
    m, lo, hi = pooled([(r.margin.n, *r.side(p)[1:]) for r in mine])
    return {"met": lo > 0, "margin": m, "ci": [lo, hi], "deal_pairs": sum(r.margin.n for r in mine),
            "sources": [r.source for r in mine]}  # fmt: skip


def greedy_gains(docs: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[tuple, dict]:
    """Each belief setting's gain over uniform worlds against ``greedy``.

    Args:
        docs: (name, JSON object) of each belief experiment's result (its ``strength``
            and ``reply`` parts are read; only rows of the uniform search
            :data:`UNIFORM` at any budget).

    Returns:
        By setting identity (its parameters other than ``iterations``): ``gain``,
        ``ci`` and ``file`` (the name it was read from).

    Raises:
        RankingError: a document is not a belief experiment's result, or measures a
            setting against greedy twice.
    """
    out: dict[tuple, dict] = {}
    for name, doc in docs:
        if not {"strength", "reply"} & set(doc):
            raise RankingError(f"{name}: not a belief experiment's result")
        try:
            for part in ("strength", "reply"):
                for row in doc.get(part, []):
                    if row["opponent"] != "greedy" or _key(row["base"]) != _key(UNIFORM):
                        continue
                    for b in row["beliefs"].values():
                        k = _key(b["setting"])
                        if k in out:
                            raise RankingError(
                                f"{b['setting']} is measured against greedy twice ({name})"
                            )
                        out[k] = {"gain": b["minus_uniform"], "ci": b["minus_uniform_ci"],
                                  "file": name}  # fmt: skip
        except (KeyError, TypeError, AttributeError):
            raise RankingError(f"{name}: not a belief experiment's result") from None
    return out


def labels_of(rr_doc: Mapping[str, Any]) -> dict[str, str]:
    """The round robin's label of each setting it calibrated (policy text -> label)."""
    return {v["setting"]: k for k, v in rr_doc.get("calibration", {}).items()}


def candidates(rr_doc: Mapping[str, Any], rr: Sequence[PairingMargin],
               confirm: Sequence[PairingMargin], gains: Mapping[tuple, dict],
               d: float) -> list[Candidate]:  # fmt: skip
    """The unbeaten settings of a round robin (its focus settings, if it has any), best
    first by the rule at equivalence margin ``d``.

    Args:
        rr_doc: the round robin's JSON (``standings``, ``reference``, ``calibration``,
            optionally ``focus``).
        rr: its pairings (:func:`pairings_of`).
        confirm: pairings of confirmation runs (target 2's further samples).
        gains: :func:`greedy_gains`.
        d: the equivalence margin, points per hand.

    Raises:
        RankingError: no setting is unbeaten, or an unbeaten one played no pairing.
    """
    labels = labels_of(rr_doc)
    focus = rr_doc.get("focus") or []
    unbeaten = [s for s in rr_doc["standings"]
                if s["unbeaten"] and (not focus or labels.get(s["policy"]) in focus)]  # fmt: skip
    if not unbeaten:
        raise RankingError("no setting of the round robin is unbeaten")
    first = unbeaten[0]["policy"]
    out = []
    for s in unbeaten:
        p = s["policy"]
        mine = sides(p, rr)
        opp, worst, lo, hi = worst_case(mine)
        lev = level_with(mine, d)
        g = gains.get(_key(p))
        t3 = {"met": False, "gain": None} if g is None else {"met": g["gain"] >= GREEDY_GAIN, **g}
        t2 = target2(p, rr_doc["reference"], [*rr, *confirm])
        tied = p == first or first in lev
        n = next(r.margin.n for r in rr if {r.a, r.b} == {p, opp})
        out.append(Candidate(p, labels.get(p, p), s["elo"], Estimate(worst, lo, hi, n, "normal"),
                             opp, lev, tied, t2, t3))  # fmt: skip
    order = {c.policy: i for i, c in enumerate(out)}
    return sorted(out, key=lambda c: (not c.tied, -c.targets_met * c.tied, order[c.policy]))


def same_pick_range(rr_doc: Mapping[str, Any], rr: Sequence[PairingMargin],
                    confirm: Sequence[PairingMargin], gains: Mapping[tuple, dict],
                    d: float) -> tuple[float, float]:  # fmt: skip
    """The interval ``[low, high)`` of equivalence margins around ``d`` that give the
    same pick as ``d`` (arguments as :func:`candidates`): the pick can change only where
    a pairing becomes level, at ``max(|low|, |high|)`` of its CI; ``high`` is infinite
    when no larger margin changes it."""

    def pick(m: float) -> str:
        return candidates(rr_doc, rr, confirm, gains, m)[0].policy

    cuts = sorted({0.0, *(max(abs(r.margin.low), abs(r.margin.high)) for r in rr)} | {math.inf})
    chosen = pick(d)
    i = max(k for k, c in enumerate(cuts) if c <= d)
    lo = i
    while lo > 0 and pick(cuts[lo - 1]) == chosen:
        lo -= 1
    hi = i + 1
    while hi < len(cuts) - 1 and pick(cuts[hi]) == chosen:
        hi += 1
    return cuts[lo], cuts[hi]


def pick_best(
    roundrobin: tuple[str, Mapping[str, Any]],
    confirm: Sequence[tuple[str, Mapping[str, Any]]] = (),
    belief: Sequence[tuple[str, Mapping[str, Any]]] = (),
    equivalence: float = EQUIVALENCE,
) -> Pick:
    """The documented best bot by the rule, from measured results.

    Args:
        roundrobin: (name, JSON) of the round robin whose standings are ranked.
        confirm: (name, JSON) of further runs of candidates against the reference
            (round robins or ``tournament --json``), pooled into target 2.
        belief: (name, JSON) of belief experiments' results (target 3).
        equivalence: the margin ``d`` within which a pairing's CI shows two settings
            level, points per hand, at least 0.

    Returns:
        The :class:`Pick`.

    Raises:
        RankingError: a document is not the kind of result its argument takes, a
            pairing lacks its CI, a setting is measured twice against greedy, no
            setting is unbeaten, or ``equivalence`` is negative.
    """
    if not equivalence >= 0:
        raise RankingError(f"the equivalence margin must be at least 0, not {equivalence}")
    name, rr_doc = roundrobin
    if not {"standings", "pairings", "reference"} <= set(rr_doc):
        raise RankingError(f"{name} is not a round robin's result")
    rr = pairings_of(rr_doc, name)
    conf = [r for n, doc in confirm for r in pairings_of(doc, n)]
    gains = greedy_gains(belief)
    cands = candidates(rr_doc, rr, conf, gains, equivalence)
    span = same_pick_range(rr_doc, rr, conf, gains, equivalence)
    return Pick(tuple(cands), equivalence, span, labels_of(rr_doc))


def first_of(rank: Sequence[Standing], focus: Collection[str] = ()) -> Standing:
    """The best setting of a round robin: the first of its standings
    (:func:`scopa_sim.sim.tournament.standings`), or the first of the ``focus`` policies
    when given (a confirmation run, in which the others played only them, so that their
    standings are partial).

    Raises:
        RankingError: ``rank`` is empty.
    """
    if not rank:
        raise RankingError("a round robin without standings")
    return next((x for x in rank if x.policy in focus), rank[0])
