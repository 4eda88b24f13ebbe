"""Statistics in a notebook: :func:`analyze` and :func:`compare` runs, :func:`advantage`
(the first-player advantage of independent hands, in memory).

Thin wrappers over the library functions the ``analyze``, ``compare`` and ``advantage``
commands call, so they give the command's numbers for the same input: each result keeps
the library's own (``result``), and ``to_dict()`` is what the command prints with
``--json``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from scopa_sim.api.display import box, esc, est_cells, first_few, fmt, table
from scopa_sim.api.inputs import (
    one_line_errors,
    policy_texts,
    resolve_rules,
    run_path,
    search_budget,
    whole,
)
from scopa_sim.api.runs import as_run
from scopa_sim.errors import AnalysisError, InputError, RulesError
from scopa_sim.stats.estimate import Estimate

if TYPE_CHECKING:
    import polars as pl

    from scopa_sim.analysis.advantage import AdvantageResult
    from scopa_sim.analysis.analyze import Analysis as LibraryAnalysis
    from scopa_sim.analysis.analyze import Comparison as LibraryComparison
    from scopa_sim.analysis.analyze import GroupResult
    from scopa_sim.data.run import Run
    from scopa_sim.game.rules import Rules

RunLike: TypeAlias = "Run | str | os.PathLike[str]"
_ESTIMATE_COLUMNS = ("estimate", "low", "high", "n", "method")
_FIGURE_COLUMNS = ("group", "metric", *_ESTIMATE_COLUMNS)


def _cells(e: Estimate) -> dict[str, Any]:
    """An estimate as the columns of a result's ``to_polars()`` rows."""
    return {k: getattr(e, k) for k in _ESTIMATE_COLUMNS}


def _frame(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> pl.DataFrame:
    import polars as pl

    return pl.DataFrame([dict(r) for r in rows], schema=list(columns), orient="row")


@dataclass(frozen=True, repr=False)
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

    def __repr__(self) -> str:
        """``GroupFigures(scopa: dealer margin +0.1450 [...] (n=1,000, t), 1,000 hands)``."""
        return (f"GroupFigures({self.label}: dealer margin {self.dealer_margin}, "
                f"{self.hands:,} hands)")  # fmt: skip

    def _repr_html_(self) -> str:
        """A table of every figure."""
        rows = [[esc(m), *est_cells(e)] for m, e in self.figures()]
        return box(f"scopa-sim figures of {self.label}",
                   table(["metric", "estimate", "95% CI", "n"], rows))  # fmt: skip


@dataclass(frozen=True, repr=False)
class Analysis:
    """The analysis of one or more runs (the ``analyze`` command).

    With one group (one run, no ``by``) its figures are attributes of the analysis itself:
    ``dealer_margin``, ``seats``, ``positions``, ``items``...; with several, read
    ``groups``. ``to_polars()`` gives every figure as a row, ``to_dict()`` the command's
    ``--json``."""

    groups: tuple[GroupFigures, ...]
    result: LibraryAnalysis = field(compare=False)
    #: The sections :meth:`text` shows (every one by default).
    sections: tuple[str, ...] = ()

    @property
    def runs(self) -> tuple[Run, ...]:
        """The runs analysed."""
        return self.result.runs

    def text(self) -> str:
        """The analysis as ``scopa-sim analyze`` prints it (its sections)."""
        from scopa_sim.analysis.analyze import SECTIONS
        from scopa_sim.analysis.run_report import analysis_text

        return analysis_text(self.result, self.sections or SECTIONS)

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
        """What ``scopa-sim analyze --json`` prints: a conclusion in words, then every
        figure with its interval and sample size."""
        from scopa_sim.analysis.conclusions import analysis_conclusion

        return {"conclusion": analysis_conclusion(self.result), **self.result.to_dict()}

    def __repr__(self) -> str:
        parts = [
            f"{g.label}: dealer margin {g.dealer_margin} points per hand, {g.hands:,} hands"
            for g in self.groups
        ]
        return "Analysis(" + first_few(parts) + ")"

    def _repr_html_(self) -> str:
        tables = []
        for g in self.groups:
            rows = [[esc(m), *est_cells(e)] for m, e in g.figures()]
            tables.append(table(["metric", "estimate", "95% CI", "n"], rows, g.label))
        return box("scopa-sim analysis (margins: dealer's side minus first player's)", *tables)


@one_line_errors
def analyze(
    run: RunLike,
    *more: RunLike,
    by: Iterable[str] = (),
    sections: Iterable[str] = (),
    by_role_file: str | os.PathLike[str] | None = None,
) -> Analysis:
    """Analyse one or more runs (a :class:`Run` or a run directory each), as ``scopa-sim
    analyze`` does.

    ``by`` groups the hands by columns or deal features (default: one group per run);
    ``sections`` are the parts :meth:`Analysis.text` shows (default all:
    :data:`scopa_sim.analysis.analyze.SECTIONS`); ``by_role_file`` (a ``.parquet`` or
    ``.csv`` path) also writes the runs' hands there as a tidy table by role.

    Raises AnalysisError (an unknown grouping or section, the section of matches for runs
    without any, the same run twice), DatasetError (a run directory that is missing or
    damaged), FileError (a file that cannot be written)."""
    from scopa_sim.analysis.analyze import analyze as analyze_runs
    from scopa_sim.analysis.analyze import check_by, check_sections

    keys = check_by((by,) if isinstance(by, str) else tuple(by))
    shown = check_sections((sections,) if isinstance(sections, str) else tuple(sections))
    runs = [as_run(r) for r in (run, *more)]
    result = analyze_runs(runs, keys)
    if "matches" in sections and all(g.matches is None for g in result.groups):
        raise AnalysisError(
            "the section of matches needs runs of matches: these runs hold no finished "
            "match (runs of independent hands)"
        )
    if by_role_file is not None:
        from scopa_sim.data.roles import write_by_role

        write_by_role([r.by_role() for r in result.runs], run_path(by_role_file))
    return Analysis(tuple(GroupFigures.of(g) for g in result.groups), result, shown)


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
        """What ``scopa-sim compare --json`` prints: a conclusion in words, then every
        test."""
        from scopa_sim.analysis.conclusions import comparison_conclusion

        return {"conclusion": comparison_conclusion(self.result), **self.result.to_dict()}

    def text(self) -> str:
        """The comparison as ``scopa-sim compare`` prints it."""
        from scopa_sim.analysis.run_report import comparison_text

        return comparison_text(self.result)

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
        return "Comparison(" + first_few(parts) + ")"

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
    a: RunLike, b: RunLike, *more: RunLike, metrics: Iterable[str] = (), unpaired: bool = False
) -> Comparison:
    """Compare run ``b`` (and ``more``) with the baseline ``a``, as ``scopa-sim compare``
    does: runs dealt the same decks (same seed, deck and mode) are paired by deal, unless
    ``unpaired``; ``metrics`` (default all:
    :data:`scopa_sim.analysis.analyze.COMPARE_METRICS`) are compared with Holm's
    correction over every test.

    Raises AnalysisError (an unknown metric, runs that cannot be compared or paired, the
    same run twice), DatasetError (a run directory that is missing or damaged)."""
    from scopa_sim.analysis.analyze import check_metrics
    from scopa_sim.analysis.analyze import compare as compare_runs

    chosen = check_metrics((metrics,) if isinstance(metrics, str) else tuple(metrics))
    runs = [as_run(r) for r in (a, b, *more)]
    return Comparison(compare_runs(runs, chosen, paired=False if unpaired else None))


@one_line_errors
def compare_presets(
    *presets: str,
    overrides: Mapping[str, Any] | None = None,
    policy: str | Iterable[str] = "random",
    hands: int | None = None,
    matches: int | None = None,
    seed: int = 0,
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    metrics: Iterable[str] = (),
    unpaired: bool = False,
    on_run: Callable[[str, int, str], Callable[[int, int], None] | None] | None = None,
    say: Callable[[str], None] | None = None,
) -> Comparison:
    """Simulate each of ``presets`` (two at least, each once) with the same ``overrides``,
    ``policy`` and ``seed``, ``hands`` or ``matches`` each (two at least), into ``out``
    (default: a temporary directory, removed), then :func:`compare` them with the first,
    as ``scopa-sim compare --preset A --preset B`` does. ``on_run(text, count, unit)``
    is told of each simulation as it starts and may return its ``progress(units, rows)``;
    ``say`` gets one line for each finished simulation.

    Raises InputError (too few or repeated presets, a bad count), RulesError,
    PolicyError, AnalysisError, SimulationError."""
    from scopa_sim.analysis.analyze import check_metrics
    from scopa_sim.analysis.analyze import compare as compare_runs
    from scopa_sim.data.run import SimConfig, mode_and_count
    from scopa_sim.game.rules import PRESETS
    from scopa_sim.sim.executors import local_executor
    from scopa_sim.sim.simulate import simulate as simulate_run

    chosen = check_metrics((metrics,) if isinstance(metrics, str) else tuple(metrics))
    if len(presets) < 2:
        raise InputError("give at least two presets to compare presets")
    twice = next((p for i, p in enumerate(presets) if p in presets[:i]), None)
    if twice is not None:  # the same rules, policies and seed: the same run twice
        raise InputError(f"preset {twice} is given twice: its two runs would be the same")
    if (hands is None) == (matches is None):
        raise InputError("to compare presets, give exactly one of a number of hands or matches")
    mode, count = mode_and_count(hands, matches)
    if count < 2:
        raise InputError(f"the number of {mode} must be at least 2 to compare")
    seed = whole("the seed", seed, 0)
    n_workers = whole("the number of workers", workers, 1) if workers is not None else None
    configs = []
    for p in presets:
        if p not in PRESETS:
            raise RulesError(f"unknown preset {p!r}; presets: {', '.join(PRESETS)}")
        r = resolve_rules(p, overrides=overrides)
        configs.append(SimConfig.make(p, r, policy_texts(policy), mode, count, seed))
    with tempfile.TemporaryDirectory(prefix="scopa-compare-") as tmp:
        base = run_path(out) if out is not None else Path(tmp)
        dirs = []
        for i, cfg in enumerate(configs):
            name = cfg.preset if presets.count(cfg.preset) == 1 else f"{cfg.preset}-{i}"
            d = base / name
            what = f"simulating {cfg.preset} ({i + 1}/{len(configs)})"
            progress = on_run(what, count, mode) if on_run is not None else None
            executor = local_executor(n_workers or os.cpu_count() or 1)
            simulate_run(d, cfg, executor, progress=progress)
            if say is not None:
                say(f"simulated {count:,} {mode} of {cfg.preset}, seed {seed}: {d}")
            dirs.append(d)
        if on_run is not None:
            on_run(f"comparing {len(dirs)} runs", 0, "")
        return Comparison(compare_runs(dirs, chosen, paired=False if unpaired else None))


# --------------------------------------------------------------------------- advantage
@dataclass(frozen=True, repr=False)
class Advantage:
    """The first-player advantage of independent hands (the ``advantage`` command):
    ``by_position`` are points per hand in playing order (0 the first player, the last
    the dealer), ``dealer_margin`` the dealer's side minus the first player's side."""

    dealer_margin: Estimate
    by_position: tuple[Estimate, ...]
    result: AdvantageResult = field(compare=False)
    preset: str = "scopa"

    def to_dict(self) -> dict[str, Any]:
        """What ``scopa-sim advantage --json`` prints: a conclusion in words, the
        configuration, and each figure's ``mean``, ``se``, ``low``, ``high`` and ``n``."""
        from scopa_sim.analysis.conclusions import advantage_conclusion

        r = self.result
        return {
            "conclusion": advantage_conclusion(r),
            "preset": self.preset,
            "rules": r.rules.as_dict(),
            "policies": [str(p) for p in r.policies],
            "seed": r.seed,
            "hands": r.hands,
            "seconds": r.seconds,
            "dealer_margin": _normal_dict(self.dealer_margin),
            "points_by_position": [_normal_dict(e) for e in self.by_position],
        }

    def text(self) -> str:
        """The advantage as ``scopa-sim advantage`` prints it."""
        from scopa_sim.analysis.conclusions import advantage_conclusion
        from scopa_sim.stats.inference import MIN_SAMPLES

        r = self.result
        specs = r.policies
        pol = ", ".join(str(p) for p in specs) if len(set(specs)) > 1 else str(specs[0])
        lines = [
            advantage_conclusion(r),
            f"rules {self.preset} ({r.rules.digest()}), policy {pol}, {r.hands:,} hands, "
            f"seed {r.seed}",
            "points per hand by position (mean ± 95% CI half-width, normal approximation):",
        ]
        for p, e in enumerate(self.by_position):
            spread = f"± {e.half_width:.4f}" if e.estimated else "(no CI)"
            lines.append(f"  {_position(p, r.rules.players):<13} {e.estimate:.4f} {spread}")
        m = self.dealer_margin
        ci = f"95% CI [{m.low:+.4f}, {m.high:+.4f}]" if m.estimated else "no CI"
        lines.append(
            f"dealer minus first player: {m.estimate:+.4f} points per hand, {ci} (paired per hand)"
        )
        if not m.estimated:
            lines.append(
                f"intervals not estimated: from fewer than {MIN_SAMPLES} hands no CI is given"
            )
        lines.append(f"time {r.seconds:.2f} s ({r.hands / r.seconds:,.0f} hands/s)")
        return "\n".join(lines)

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


def _normal_dict(e: Estimate) -> dict[str, float | int | None]:
    """A normal interval in the advantage JSON's terms (an undefined number is None)."""
    from scopa_sim.files import json_number

    return {
        "mean": e.estimate,
        "se": json_number(e.se),
        "low": json_number(e.low),
        "high": json_number(e.high),
        "n": e.n,
    }


@one_line_errors
def advantage(
    preset: str = "scopa",
    *,
    rules: Rules | None = None,
    overrides: Mapping[str, Any] | None = None,
    hands: int = 1_000_000,
    policy: str | Iterable[str] = "random",
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> Advantage:
    """Points per hand by playing position and the dealer's margin, with 95% normal
    intervals, from ``hands`` independent hands played in memory, as ``scopa-sim
    advantage`` does. ``rules`` default to the preset's with ``overrides``; ``policy`` is
    one policy text for every seat or one per seat; ``progress(hands)`` is called as
    hands are played.

    Raises InputError (a number of hands outside 2..10^15, a bad seed), RulesError,
    PolicyError."""
    from scopa_sim.analysis.advantage import MAX_HANDS, first_player_advantage
    from scopa_sim.bots.registry import seat_policies

    if type(hands) is not int or not 2 <= hands <= MAX_HANDS:
        raise InputError(
            f"the number of hands must be a whole number 2..10^15 (two at least for a "
            f"confidence interval), not {hands!r}"
        )
    seed = whole("the seed", seed, 0)
    r = resolve_rules(preset, rules, overrides)
    specs = seat_policies(policy_texts(policy), r.players)
    for spec in specs:
        search_budget(spec)
    res = first_player_advantage(r, specs, hands, seed, progress)
    return Advantage(res.dealer_margin, res.by_position, res, preset)


__all__ = [
    "Advantage",
    "Analysis",
    "Comparison",
    "GroupFigures",
    "advantage",
    "analyze",
    "compare",
    "compare_presets",
]
