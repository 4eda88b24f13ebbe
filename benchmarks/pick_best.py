"""The documented best bot, picked from the committed measurements by issue 29's rule.

The rule: the round robin's standings (``bench_roundrobin.py``,
:func:`scopa_sim.sim.tournament.standings`) put first the setting with the best worst
case among those no other setting beats significantly.  An unbeaten setting the round
robin shows *equal* to that first one (below) is tied with it; of tied settings the one
meeting more of the issue's targets is the documented best bot, then the standings'
order.

*Equal* is an equivalence test, not a failure to find a difference: two settings are
level when the whole 95% CI of their pairing's margin per hand lies within ``[-d, +d]``
(the two one-sided tests at 2.5% each), ``d = --equivalence`` (0.01 points per hand by
default: one point in a hundred hands, under a quarter of the ±0.044 the round robin
resolves per pairing).  A pairing merely not significant (a CI of ±0.05 around a few
hundredths) is not level: settings the round robin cannot tell apart keep the standings'
order, and ``d = 0`` is the standings alone.  The script also prints the range of ``d``
over which the pick stays the same.  In a confirmation run (``--focus``) only the focus
settings are candidates: the others played only them.

The targets, each read from the file that measured it:

1. not significantly worse than any setting of the round robin (its standings);
2. beats the reference (``ismcts:iterations=1000,horizon=4,c=1``) at equal time, 95% CI
   above 0: every sample of the candidate against it, the round robin's and the
   confirmations' on fresh deals (``--confirm``: ``scopa-sim tournament --json`` or
   ``bench_roundrobin.py --json`` files), pooled (the same paired design on different
   deals: means weighted by deal pairs, their variances combined);
3. keeps at least +0.15 points per hand over uniform worlds against ``greedy``
   (``--belief``, ``bench_belief.py --json``: the same search with uniform worlds on the
   same deals at equal time), the estimate.

A setting is matched across the files by its parameters other than ``iterations`` (each
benchmark calibrates those to its own time per move).

    python benchmarks/pick_best.py --json best.json --table best.md

prints the table of the unbeaten settings and the pick, which
``scopa_sim.bots.registry.ALIASES["best"]`` must be (``tests/test_benchmarks.py``).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scopa_sim.bots.base import Z95  # noqa: E402
from scopa_sim.bots.registry import PolicySpec  # noqa: E402
from scopa_sim.errors import ScopaError  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
#: The committed measurements the rule reads by default.
ROUNDROBIN = RESULTS / "roundrobin.json"
CONFIRM = (
    RESULTS / "roundrobin-confirm.json",
    RESULTS / "roundrobin-confirm-3131.json",
    RESULTS / "roundrobin-gate-3030.json",
)
BELIEF = (
    RESULTS / "belief-robust.json",
    RESULTS / "belief-replymin.json",
    RESULTS / "belief-replygate.json",
)
#: The search with uniform worlds a belief setting's gain is measured over (any budget).
UNIFORM = "ismcts:iterations=1000,horizon=4,c=1"
#: Target 3: points per hand over uniform worlds against ``greedy``.
GREEDY_GAIN = 0.15


class PickError(ScopaError):
    """A measurement file the rule cannot read."""


@dataclass(frozen=True)
class Pairing:
    """One pairing's margin per hand from ``a``'s side, with its 95% CI, over ``n`` deal
    pairs of the file ``source``."""

    a: str
    b: str
    mean: float
    low: float
    high: float
    n: int
    source: str

    def side(self, p: str) -> tuple[str, float, float, float]:
        """(opponent, mean, low, high) from ``p``'s side."""
        if p == self.a:
            return self.b, self.mean, self.low, self.high
        return self.a, -self.mean, -self.high, -self.low


@dataclass(frozen=True)
class Candidate:
    """An unbeaten setting: its worst pairing, the settings it is level with, whether it
    is tied with the standings' first, and its targets."""

    policy: str
    label: str
    elo: float
    worst: float
    worst_ci: tuple[float, float]
    worst_opponent: str
    level_with: tuple[str, ...]
    tied: bool
    target2: dict[str, object]
    target3: dict[str, object]

    @property
    def targets_met(self) -> int:
        return 1 + bool(self.target2["met"]) + bool(self.target3["met"])


def _read(path: Path) -> dict:
    try:
        doc = json.loads(Path(path).read_text())
    except OSError as e:
        raise PickError(f"cannot read {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise PickError(f"{path} is not JSON: {e.msg} at line {e.lineno}") from None
    except (UnicodeDecodeError, RecursionError):
        raise PickError(f"{path} is not JSON text") from None
    if not isinstance(doc, dict):
        raise PickError(f"{path} is not a JSON object")
    return doc


def _key(setting: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """A setting's identity across benchmarks: its parameters other than iterations."""
    spec = PolicySpec.parse(setting)
    return spec.name, tuple(sorted((k, v) for k, v in spec.params if k != "iterations"))


def _pairings(doc: dict, path: Path) -> list[Pairing]:
    """The pairings of a round robin (``mean``, ``ci_low``, ``ci_high``) or of a
    ``tournament --json`` (``margin``, ``margin_ci``)."""
    out = []
    try:
        for r in doc["pairings"]:
            if "margin_ci" in r:
                low, high = r["margin_ci"]
                mean = r["margin"]
            else:
                mean, low, high = r["mean"], r["ci_low"], r["ci_high"]
            out.append(Pairing(r["a"], r["b"], mean, low, high, int(r["deal_pairs"]), path.name))
    except (KeyError, TypeError, ValueError):
        raise PickError(f"{path}: a pairing without its margin and CI") from None
    if any(None in (p.low, p.high) for p in out):
        raise PickError(f"{path}: a pairing without a CI (too few deal pairs)")
    return out


def level(low: float, high: float, d: float) -> bool:
    """The pairing is shown equal within ``d``: its 95% CI lies inside [-d, +d]."""
    return d > 0 and -d <= low and high <= d


def sides(p: str, pairings: Sequence[Pairing]) -> list[tuple[str, float, float, float]]:
    """``p``'s pairings, each (opponent, mean, low, high) from its side."""
    out = [r.side(p) for r in pairings if p in (r.a, r.b)]
    if not out:
        raise PickError(f"{p!r} played no pairing of the round robin")
    return out


def worst_case(mine: Sequence[tuple[str, float, float, float]]) -> tuple[str, float, float, float]:
    """The worst of a setting's :func:`sides`, the first opponent by name among equal
    margins."""
    return min(mine, key=lambda t: (t[1], t[0]))


def level_with(mine: Sequence[tuple[str, float, float, float]], d: float) -> tuple[str, ...]:
    """The opponents a setting's :func:`sides` show level with it."""
    return tuple(sorted(o for o, _, lo, hi in mine if level(lo, hi, d)))


def pooled(samples: Sequence[tuple[int, float, float, float]]) -> tuple[float, float, float]:
    """Mean and 95% CI of samples ``(n, mean, low, high)`` of one margin pooled: the
    means weighted by ``n``, the standard errors (from the CIs' half-widths) combined."""
    total = sum(n for n, *_ in samples)
    mean = sum(n * m for n, m, _, _ in samples) / total
    se = math.sqrt(sum((n * (hi - lo) / (2 * Z95)) ** 2 for n, _, lo, hi in samples)) / total
    return mean, mean - Z95 * se, mean + Z95 * se


def target2(p: str, reference: str, samples: Sequence[Pairing]) -> dict:
    """Target 2 from every sample of ``p`` against the reference, pooled."""
    mine = [r for r in samples if {r.a, r.b} == {p, reference}]
    if not mine:
        return {"met": False, "margin": None, "sources": []}
    m, lo, hi = pooled([(r.n, *r.side(p)[1:]) for r in mine])
    return {"met": lo > 0, "margin": m, "ci": [lo, hi], "deal_pairs": sum(r.n for r in mine),
            "sources": [r.source for r in mine]}  # fmt: skip


def greedy_gains(paths: Sequence[Path]) -> dict[tuple, dict]:
    """Each belief setting's gain over uniform worlds against ``greedy``, keyed by
    :func:`_key`, from ``bench_belief.py --json`` files."""
    out: dict[tuple, dict] = {}
    for path in paths:
        doc = _read(path)
        if not {"strength", "reply"} & set(doc):
            raise PickError(f"{path}: not a bench_belief.py result")
        try:
            for part in ("strength", "reply"):
                for row in doc.get(part, []):
                    if row["opponent"] != "greedy" or _key(row["base"]) != _key(UNIFORM):
                        continue
                    for b in row["beliefs"].values():
                        k = _key(b["setting"])
                        if k in out:
                            raise PickError(
                                f"{b['setting']} is measured against greedy twice ({path})"
                            )
                        out[k] = {"gain": b["minus_uniform"], "ci": b["minus_uniform_ci"],
                                  "file": Path(path).name}  # fmt: skip
        except (KeyError, TypeError, AttributeError):
            raise PickError(f"{path}: not a bench_belief.py result") from None
    return out


def labels_of(rr_doc: dict) -> dict[str, str]:
    """The round robin's label of each setting it calibrated."""
    return {v["setting"]: k for k, v in rr_doc.get("calibration", {}).items()}


def candidates(rr_doc: dict, rr: Sequence[Pairing], confirm: Sequence[Pairing],
               gains: dict[tuple, dict], d: float) -> list[Candidate]:  # fmt: skip
    """The unbeaten settings of the round robin (its focus settings, if any), best first
    by the rule."""
    labels = labels_of(rr_doc)
    focus = rr_doc.get("focus") or []
    unbeaten = [s for s in rr_doc["standings"]
                if s["unbeaten"] and (not focus or labels.get(s["policy"]) in focus)]  # fmt: skip
    if not unbeaten:
        raise PickError("no setting of the round robin is unbeaten")
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
        out.append(Candidate(p, labels.get(p, p), s["elo"], worst, (lo, hi), opp, lev, tied,
                             t2, t3))  # fmt: skip
    order = {c.policy: i for i, c in enumerate(out)}
    return sorted(out, key=lambda c: (not c.tied, -c.targets_met * c.tied, order[c.policy]))


def pick(rr_doc: dict, rr: Sequence[Pairing], confirm: Sequence[Pairing],
         gains: dict[tuple, dict], d: float) -> str:  # fmt: skip
    """The documented best bot by the rule at equivalence margin ``d``."""
    return candidates(rr_doc, rr, confirm, gains, d)[0].policy


def same_pick_range(rr_doc: dict, rr: Sequence[Pairing], confirm: Sequence[Pairing],
                    gains: dict[tuple, dict], d: float) -> tuple[float, float]:  # fmt: skip
    """The interval of equivalence margins around ``d`` with the same pick: the pick can
    change only where a pairing becomes level, at ``max(|low|, |high|)`` of its CI."""
    cuts = sorted({0.0, *(max(abs(r.low), abs(r.high)) for r in rr)} | {math.inf})
    chosen = pick(rr_doc, rr, confirm, gains, d)
    i = max(k for k, c in enumerate(cuts) if c <= d)
    lo = i
    while lo > 0 and pick(rr_doc, rr, confirm, gains, cuts[lo - 1]) == chosen:
        lo -= 1
    hi = i + 1
    while hi < len(cuts) - 1 and pick(rr_doc, rr, confirm, gains, cuts[hi]) == chosen:
        hi += 1
    return cuts[lo], cuts[hi]


def _f(x: float | None) -> str:
    return "—" if x is None else f"{x:+.4f}"


def table(cands: Sequence[Candidate], d: float, span: tuple[float, float],
          labels: dict[str, str]) -> str:  # fmt: skip
    """The Markdown table of the candidates in the rule's order and the pick; opponents
    named by their round-robin labels."""
    lines = [
        f"Unbeaten settings of the round robin in the rule's order: the standings' first "
        f"and the settings level with it (their pairing's 95% CI within ±{d:g} points per "
        f"hand) by targets met, then the standings' order.",
        "",
        "| # | setting | worst pairing [95% CI] | level with | tied with the first | "
        "target 2: vs reference | target 3: vs greedy over uniform | targets met | Elo |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for i, c in enumerate(cands, 1):
        t2, t3 = c.target2, c.target3
        two = "—" if t2["margin"] is None else (
            f"{_f(t2['margin'])} [{_f(t2['ci'][0])}, {_f(t2['ci'][1])}], "
            f"{t2['deal_pairs']:,} pairs")  # fmt: skip
        three = "not measured" if t3.get("gain") is None else (
            f"{_f(t3['gain'])} [{_f(t3['ci'][0])}, {_f(t3['ci'][1])}]")  # fmt: skip
        worst = (f"{_f(c.worst)} [{_f(c.worst_ci[0])}, {_f(c.worst_ci[1])}] vs "
                 f"{labels.get(c.worst_opponent, c.worst_opponent)}")  # fmt: skip
        lev = ", ".join(labels.get(o, o) for o in c.level_with) or "—"
        lines.append(
            f"| {i} | `{c.policy}` | {worst} | {lev} | {'yes' if c.tied else 'no'} | {two} | "
            f"{three} | {c.targets_met} of 3 | {c.elo:+.1f} |"
        )
    hi = "∞" if math.isinf(span[1]) else f"{span[1]:.4f}"
    lines += ["", f"Best: `{cands[0].policy}`; the same pick for every equivalence margin "
              f"in [{span[0]:.4f}, {hi})."]  # fmt: skip
    return "\n".join(lines) + "\n"


@click.command()
@click.option("--roundrobin", type=click.Path(dir_okay=False, exists=True),
              default=str(ROUNDROBIN), show_default=True)  # fmt: skip
@click.option("--confirm", multiple=True, type=click.Path(dir_okay=False, exists=True),
              default=[str(p) for p in CONFIRM], show_default=True,
              help="tournament --json files of candidates against the reference.")  # fmt: skip
@click.option("--belief", multiple=True, type=click.Path(dir_okay=False, exists=True),
              default=[str(p) for p in BELIEF], show_default=True,
              help="bench_belief.py --json files (the gain against greedy).")  # fmt: skip
@click.option(
    "--equivalence",
    type=click.FloatRange(0, 1),
    default=0.01,
    show_default=True,
    help="Points per hand within which a pairing's 95% CI shows two settings level.",
)
@click.option("--json", "json_path", type=click.Path(dir_okay=False))
@click.option("--table", "table_path", type=click.Path(dir_okay=False))
def main(roundrobin: str, confirm: tuple[str, ...], belief: tuple[str, ...], equivalence: float,
         json_path: str | None, table_path: str | None) -> None:  # fmt: skip
    """Apply the rule of the documented best bot to the committed measurements."""
    try:
        rr_doc = _read(Path(roundrobin))
        if not {"standings", "pairings", "reference"} <= set(rr_doc):
            raise PickError(f"{roundrobin} is not a bench_roundrobin.py result")
        rr = _pairings(rr_doc, Path(roundrobin))
        given = [Path(p).resolve() for p in confirm]
        if len(set(given)) < len(given) or Path(roundrobin).resolve() in given:
            raise PickError("each --confirm file once, and not the round robin's")
        conf = [r for path in map(Path, confirm) for r in _pairings(_read(path), path)]
        gains = greedy_gains([Path(p) for p in belief])
        cands = candidates(rr_doc, rr, conf, gains, equivalence)
        span = same_pick_range(rr_doc, rr, conf, gains, equivalence)
    except ScopaError as e:  # a PickError, or a setting that does not parse
        raise click.ClickException(str(e)) from None
    text = table(cands, equivalence, span, labels_of(rr_doc))
    print(text, end="")
    if table_path:
        Path(table_path).write_text(text)
    if json_path:
        doc = {
            "roundrobin": Path(roundrobin).name,
            "confirm": [Path(p).name for p in confirm],
            "belief": [Path(p).name for p in belief],
            "equivalence": equivalence,
            "same_pick_for_equivalence": [span[0], None if math.isinf(span[1]) else span[1]],
            "candidates": [
                {
                    **c.__dict__,
                    "worst_ci": list(c.worst_ci),
                    "level_with": list(c.level_with),
                    "targets_met": c.targets_met,
                }
                for c in cands
            ],
            "best": cands[0].policy,
        }
        Path(json_path).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
