"""Statistics in a notebook: :func:`analyze` and :func:`compare` runs, :func:`advantage`
(the first-player advantage of independent hands, in memory).

Thin wrappers over the library functions the ``analyze``, ``compare`` and ``advantage``
commands call, so they give the command's numbers for the same input: each result keeps
the library's own (``result``), and ``to_dict()`` is what the command prints with
``--json``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scopa_sim.api.display import (
    box,
    esc,
    est_cells,
    fmt,
    make_rules,
    one_line_errors,
    policy_texts,
    table,
)
from scopa_sim.api.runs import Run, as_library_run
from scopa_sim.errors import AnalysisError
from scopa_sim.stats.estimate import Estimate

if TYPE_CHECKING:
    import polars as pl

    from scopa_sim.analysis.advantage import AdvantageResult
    from scopa_sim.analysis.analyze import Analysis as LibraryAnalysis
    from scopa_sim.analysis.analyze import Comparison as LibraryComparison
    from scopa_sim.analysis.analyze import GroupResult

RunLike = Run | str | os.PathLike[str]
_ESTIMATE_COLUMNS = ("estimate", "low", "high", "n", "method")
_FIGURE_COLUMNS = ("group", "metric", *_ESTIMATE_COLUMNS)


def _cells(e: Estimate) -> dict[str, Any]:
    """An estimate as the columns of a result's ``to_polars()`` rows."""
    return {k: getattr(e, k) for k in _ESTIMATE_COLUMNS}


def _frame(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> pl.DataFrame:
    import polars as pl

    return pl.DataFrame([dict(r) for r in rows], schema=list(columns), orient="row")


@dataclass(frozen=True)
class GroupFigures:
    """The figures of one group of hands (one run, unless grouped with ``by``), each an
    :class:`Estimate`. The *margin* of a hand is the dealer's side's points minus the first
    player's side's; ``positions`` are in playing order (0 the first player, the last the
    dealer), ``seats`` by seat number; ``items`` the margin of each score item."""

    label: str
    hands: int
    dealer_margin: Estimate
    dealer_wins: Estimate
    draws: Estimate
    first_wins: Estimate
    positions: tuple[Estimate, ...]
    seats: tuple[Estimate, ...]
    items: Mapping[str, Estimate]
    scopa: Estimate
    first_mover_wins: Estimate | None  # runs of matches only

    @classmethod
    def of(cls, g: GroupResult) -> GroupFigures:
        return cls(
            label=g.label,
            hands=g.hands,
            dealer_margin=g.margin,
            dealer_wins=g.dealer_wins,
            draws=g.draws,
            first_wins=g.first_wins,
            positions=g.positions,
            seats=g.seats,
            items=dict(g.items),
            scopa=g.scopa,
            first_mover_wins=g.matches.first_mover_wins if g.matches else None,
        )

    def figures(self) -> list[tuple[str, Estimate]]:
        """Every figure by metric name, in the order of the ``analyze`` command's text."""
        out: list[tuple[str, Estimate]] = [
            ("dealer_margin", self.dealer_margin),
            ("dealer_wins", self.dealer_wins),
            ("draws", self.draws),
            ("first_wins", self.first_wins),
        ]
        out += [(f"margin_{k}", v) for k, v in self.items.items()]
        out += [(f"position_{p}", e) for p, e in enumerate(self.positions)]
        out += [(f"seat_{s}", e) for s, e in enumerate(self.seats)]
        out.append(("scopa", self.scopa))
        if self.first_mover_wins is not None:
            out.append(("first_mover_wins", self.first_mover_wins))
        return out


@dataclass(frozen=True, repr=False)
class Analysis:
    """The analysis of one or more runs (the ``analyze`` command).

    With one group (one run, no ``by``) its figures are attributes of the analysis itself:
    ``dealer_margin``, ``seats``, ``positions``, ``items``...; with several, read
    ``groups``. ``to_polars()`` gives every figure as a row, ``to_dict()`` the command's
    ``--json``."""

    groups: tuple[GroupFigures, ...]
    result: LibraryAnalysis = field(compare=False)

    def _one(self) -> GroupFigures:
        if len(self.groups) != 1:
            raise AnalysisError(
                f"this analysis has {len(self.groups)} groups: read .groups (or to_polars())"
            )
        return self.groups[0]

    @property
    def hands(self) -> int:
        return self._one().hands

    @property
    def dealer_margin(self) -> Estimate:
        """Points per hand of the dealer's side minus the first player's side's."""
        return self._one().dealer_margin

    @property
    def dealer_wins(self) -> Estimate:
        return self._one().dealer_wins

    @property
    def positions(self) -> tuple[Estimate, ...]:
        """Points per hand by playing position: 0 the first player, the last the dealer."""
        return self._one().positions

    @property
    def seats(self) -> tuple[Estimate, ...]:
        """Points per hand by seat (the dealer rotates, so seats are alike in the long run)."""
        return self._one().seats

    @property
    def items(self) -> Mapping[str, Estimate]:
        """The dealer's margin in each score item, per hand."""
        return self._one().items

    def to_polars(self) -> pl.DataFrame:
        """One row per group and figure: group, metric, estimate, low, high, n, method."""
        rows = [
            {"group": g.label, "metric": m, **_cells(e)}
            for g in self.groups
            for m, e in g.figures()
        ]
        return _frame(rows, _FIGURE_COLUMNS)

    def to_dict(self) -> dict[str, Any]:
        """What ``scopa-sim analyze --json`` prints."""
        d: dict[str, Any] = self.result.to_dict()
        return d

    def __repr__(self) -> str:
        parts = [
            f"{g.label}: dealer margin {g.dealer_margin} points per hand, {g.hands:,} hands"
            for g in self.groups
        ]
        return "Analysis(" + "; ".join(parts) + ")"

    def _repr_html_(self) -> str:
        tables = []
        for g in self.groups:
            rows = [[esc(m), *est_cells(e)] for m, e in g.figures()]
            tables.append(table(["metric", "estimate", "95% CI", "n"], rows, g.label))
        return box("scopa-sim analysis (margins: dealer's side minus first player's)", *tables)


@one_line_errors
def analyze(run: RunLike, *more: RunLike, by: Iterable[str] = ()) -> Analysis:
    """Analyse one or more runs (a :class:`Run` or a run directory each), grouped by the
    columns ``by`` (as ``analyze --by``; default: one group per run)."""
    from scopa_sim.analysis.analyze import analyze as library_analyze

    by = (by,) if isinstance(by, str) else tuple(by)
    runs = [as_library_run(r) for r in (run, *more)]
    result = library_analyze(runs, by)
    return Analysis(tuple(GroupFigures.of(g) for g in result.groups), result)


# --------------------------------------------------------------------------- compare
@dataclass(frozen=True, repr=False)
class Comparison:
    """Runs compared with the first (the ``compare`` command): each result's estimate is
    the other run's figure minus the baseline's, with Holm-adjusted p-values."""

    result: LibraryComparison = field(compare=False)

    def to_polars(self) -> pl.DataFrame:
        """One row per compared run and metric."""
        rows = []
        for p in self.result.pairs:
            for r in p.results:
                rows.append(
                    {
                        "baseline": p.a.label,
                        "run": p.b.label,
                        "metric": r.metric,
                        "test": r.test,
                        "paired": p.paired,
                        "baseline_value": r.b,  # the tests take run b as their first sample
                        "run_value": r.a,
                        "estimate": r.estimate,
                        "low": r.low,
                        "high": r.high,
                        "p_value": r.p_value,
                        "p_holm": r.p_holm,
                        "n": r.n_a,
                    }
                )
        cols = ["baseline", "run", "metric", "test", "paired", "baseline_value", "run_value"]
        return _frame(rows, [*cols, "estimate", "low", "high", "p_value", "p_holm", "n"])

    def difference(self, metric: str = "margin", run: int = 1) -> Estimate:
        """The difference (run ``run`` minus the baseline) in ``metric``."""
        pair = self.result.pairs[run - 1]
        for r in pair.results:
            if r.metric == metric:
                n = max(r.n_a, r.n_b)
                return Estimate(float(r.estimate), float(r.low), float(r.high), int(n), r.test)
        raise AnalysisError(f"metric {metric!r} was not compared")

    def to_dict(self) -> dict[str, Any]:
        """What ``scopa-sim compare --json`` prints."""
        d: dict[str, Any] = self.result.to_dict()
        return d

    def __repr__(self) -> str:
        parts = []
        for p in self.result.pairs:
            d = next((r for r in p.results if r.metric == "margin"), p.results[0])
            p_value = d.p_holm if d.p_holm is not None else d.p_value
            parts.append(
                f"{p.b.label} - {p.a.label}: {d.metric} {fmt(d.estimate)} "
                f"[{fmt(d.low)}, {fmt(d.high)}], p={p_value:.3g} (Holm; "
                f"{'paired' if p.paired else 'unpaired'})"
            )
        return "Comparison(" + "; ".join(parts) + ")"

    def _repr_html_(self) -> str:
        tables = []
        for p in self.result.pairs:
            rows = [
                [
                    esc(r.metric),
                    fmt(r.b),
                    fmt(r.a),
                    fmt(r.estimate),
                    f"[{fmt(r.low)}, {fmt(r.high)}]",
                    fmt(r.p_holm if r.p_holm is not None else r.p_value, ".3g"),
                ]
                for r in p.results
            ]
            head = ["metric", p.a.label, p.b.label, "difference", "95% CI", "p (Holm)"]
            tables.append(table(head, rows, f"{p.b.label} against {p.a.label}: {p.why}"))
        return box("scopa-sim comparison", *tables)


@one_line_errors
def compare(
    a: RunLike, b: RunLike, *more: RunLike, metric: Iterable[str] = (), unpaired: bool = False
) -> Comparison:
    """Compare run ``b`` (and ``more``) with the baseline ``a``, as ``compare`` does: runs
    dealt the same decks (same seed, deck and mode) are paired by deal."""
    from scopa_sim.analysis.analyze import compare as library_compare

    metrics = (metric,) if isinstance(metric, str) else tuple(metric)
    runs = [as_library_run(r) for r in (a, b, *more)]
    return Comparison(library_compare(runs, metrics, paired=False if unpaired else None))


# --------------------------------------------------------------------------- advantage
@dataclass(frozen=True, repr=False)
class Advantage:
    """The first-player advantage of independent hands (the ``advantage`` command):
    ``by_position`` are points per hand in playing order (0 the first player, the last
    the dealer), ``dealer_margin`` the dealer's side minus the first player's side."""

    dealer_margin: Estimate
    by_position: tuple[Estimate, ...]
    result: AdvantageResult = field(compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The figures of ``scopa-sim advantage --json``."""
        r = self.result
        return {
            "rules": r.rules.as_dict(),
            "policies": [str(p) for p in r.policies],
            "seed": r.seed,
            "hands": r.hands,
            "dealer_margin": self.dealer_margin.to_dict(),
            "points_by_position": [e.to_dict() for e in self.by_position],
        }

    def to_polars(self) -> pl.DataFrame:
        names = [_position(p, len(self.by_position)) for p in range(len(self.by_position))]
        rows = [{"metric": n, **_cells(e)} for n, e in zip(names, self.by_position, strict=True)]
        rows.append({"metric": "dealer_margin", **_cells(self.dealer_margin)})
        return _frame(rows, ["metric", *_ESTIMATE_COLUMNS])

    def __repr__(self) -> str:
        return (
            f"Advantage(dealer margin {self.dealer_margin} points per hand; "
            f"policy {', '.join(dict.fromkeys(str(p) for p in self.result.policies))})"
        )

    def _repr_html_(self) -> str:
        n = len(self.by_position)
        rows = [[_position(p, n), *est_cells(e)] for p, e in enumerate(self.by_position)]
        rows.append(["dealer minus first player", *est_cells(self.dealer_margin)])
        return box(
            "scopa-sim first-player advantage: points per hand",
            table(["position", "points per hand", "95% CI", "hands"], rows),
        )


def _position(p: int, players: int) -> str:
    if p == players - 1:
        return "dealer"
    return "first player" if p == 0 else f"position {p + 1}"


@one_line_errors
def advantage(
    preset: str = "scopa",
    *,
    hands: int = 1_000_000,
    policy: str | Iterable[str] = "random",
    rules: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> Advantage:
    """Points per hand by playing position and the dealer's margin, with 95% CIs, from
    ``hands`` independent hands played in memory (``scopa-sim advantage``)."""
    from scopa_sim.analysis.advantage import first_player_advantage
    from scopa_sim.bots.registry import seat_policies

    r = make_rules(preset, rules)
    specs = seat_policies(policy_texts(policy), r.players)
    res = first_player_advantage(r, specs, hands, seed)
    return Advantage(res.dealer_margin, res.by_position, res)


__all__ = [
    "Advantage",
    "Analysis",
    "Comparison",
    "GroupFigures",
    "advantage",
    "analyze",
    "compare",
]
