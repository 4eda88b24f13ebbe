"""Text and Markdown renderings of analyses and comparisons, and the ``report`` writer.

:func:`analysis_text` and :func:`comparison_text` are what ``scopa-sim analyze``
and ``compare`` print; :func:`write_report` writes a self-contained Markdown
report with its PNG figures next to it (relative links), stating for each run
the configuration, the seed and the exact command that reproduces it.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from scopa_sim._version import __version__
from scopa_sim.analysis import plots as P
from scopa_sim.analysis.analyze import (
    GROUP_KEYS,
    SECTIONS,
    Analysis,
    Comparison,
    Distribution,
    GroupResult,
    analyze,
    compare,
    convergence,
    open_runs,
)
from scopa_sim.analysis.conclusions import analysis_conclusion, comparison_conclusion
from scopa_sim.analysis.deal_analyses import MIN_CELL
from scopa_sim.data.run import Run
from scopa_sim.stats.estimate import Estimate
from scopa_sim.stats.inference import TestResult

METRIC_NAMES = {
    "margin": "dealer − first player, points",
    "dealer_wins": "hand won by the dealer side",
    "draws": "hand drawn (dealer vs first player)",
    "first_wins": "hand won by the first player's side",
    "scopa": "hand with at least one scopa",
    "total_points": "points per hand, all sides",
    "plays": "plays per hand",
    "first_mover_wins": "match won by the first mover",
    "match_length": "hands per match",
}


def metric_name(m: str) -> str:
    """A metric's name for humans (``margin_X``: the dealer's side minus the first player's in the
    score item X).
    """
    if m.startswith("margin_"):
        return f"dealer − first player, {m.removeprefix('margin_')}"
    return METRIC_NAMES.get(m, m)


def position_name(p: int, players: int) -> str:
    """The name of playing position ``p`` of ``players``: first player, position p, dealer."""
    if p == players - 1:
        return "dealer"
    return "first player" if p == 0 else f"position {p}"


def fmt_p(p: float | None) -> str:
    """A p-value for humans: 2 significant digits, tiny values as an upper bound."""
    if p is None or math.isnan(p):
        return "n/a"
    if p < 1e-300:
        return "<1e-300"
    if p < 1e-4:
        return f"{p:.1e}"
    return f"{p:.4f}" if p < 0.1 else f"{p:.3f}"


def fmt_mean(e: Estimate, signed: bool = True, digits: int = 4) -> str:
    """An estimate and its interval, ``digits`` decimals (signed unless ``signed`` is False)."""
    s = "+" if signed else ""
    return f"{e.estimate:{s}.{digits}f} [{e.low:{s}.{digits}f}, {e.high:{s}.{digits}f}]"


def fmt_prop(p: Estimate) -> str:
    """A proportion with its interval and its count (``0.5123 [0.50, 0.52] (512/1,000)``)."""
    return f"{p.estimate:.4f} [{p.low:.4f}, {p.high:.4f}] ({p.successes:,}/{p.n:,})"


def fmt_test(r: TestResult) -> str:
    """A test's estimate (``b - a``) and its interval."""
    return f"{r.estimate:+.4f} [{r.low:+.4f}, {r.high:+.4f}]"


def _quantiles(d: Distribution) -> str:
    return ", ".join(f"{int(q * 100)}% {v:g}" for q, v in d.quantiles)


# --------------------------------------------------------------------------- text


def run_line(r: Run) -> str:
    """One line on a run: its label, preset and overrides, policies, size, seed, run id and
    directory.
    """
    c = r.config
    pols = ",".join(c.policies)
    over = " " + " ".join(r.rule_overrides()) if r.rule_overrides() else ""
    return (
        f"{r.label}: {c.preset}{over}, policies {pols}, {c.count:,} {c.mode} "
        f"({r.rows:,} hands), seed {c.seed}, run {r.run_id} [{r.directory}]"
    )


def group_text(g: GroupResult, sections: Sequence[str] = SECTIONS) -> list[str]:
    """The lines of one group's analysis (95% CIs; n with every number)."""
    out = [f"== {g.label} == ({g.hands:,} hands, {g.players} players)"]
    if "margin" in sections:
        out.append(
            f"dealer minus first player, points per hand: {fmt_mean(g.margin)} "
            f"(n={g.margin.n:,}; paired per hand, t 95% CI)"
        )
    if "outcome" in sections:
        out.append("hand outcome, dealer side vs first player's side (Wilson 95% CI):")
        out.append(f"  dealer side scores more  {fmt_prop(g.dealer_wins)}")
        out.append(f"  draw                     {fmt_prop(g.draws)}")
        out.append(f"  first side scores more   {fmt_prop(g.first_wins)}")
    if "items" in sections:
        out.append("score items, dealer minus first player per hand (t 95% CI):")
        for item, e in g.items:
            out.append(f"  {item:<11} {fmt_mean(e)} (n={e.n:,})")
    if "positions" in sections:
        out.append("points per hand by position (t 95% CI):")
        for p, e in enumerate(g.positions):
            name = f"{p} {position_name(p, g.players)}"
            out.append(f"  {name:<16} {fmt_mean(e, signed=False)} (n={e.n:,})")
    if "seats" in sections:
        out.append("points per hand by seat (t 95% CI):")
        for s, e in enumerate(g.seats):
            out.append(f"  seat {s:<11} {fmt_mean(e, signed=False)} (n={e.n:,})")
    if "points" in sections:
        out.append("points per hand (mean [95% CI], sd; quantiles):")
        for name, d in (
            ("dealer side", g.dealer_points),
            ("first side", g.first_points),
            ("all sides", g.total_points),
        ):
            out.append(
                f"  {name:<11} {fmt_mean(d.mean, signed=False)}, sd {d.mean.sd:.3f} "
                f"(n={d.n:,}); {_quantiles(d)}"
            )
        counts = " ".join(f"{v}:{c}" for v, c in zip(d.values, d.counts, strict=True))
        out.append(f"  counts, all sides: {counts}")
    if "scopa" in sections:
        out.append(f"hands with at least one scopa: {fmt_prop(g.scopa)}")
    if "matches" in sections and g.matches is not None:
        m = g.matches
        out.append(f"matches ({m.matches:,}; one observation per match, Wilson 95% CI):")
        out.append(f"  won by the side that played first in hand 1: {fmt_prop(m.first_mover_wins)}")
        for p, pr in enumerate(m.by_position):
            out.append(
                f"  won by position {p} of hand 1 ({position_name(p, g.players)}): {fmt_prop(pr)}"
            )
        d = m.length
        out.append(
            f"  hands per match: mean {fmt_mean(d.mean, signed=False, digits=3)}, "
            f"sd {d.mean.sd:.3f} (n={d.n:,}); {_quantiles(d)}"
        )
    return out


def analysis_text(a: Analysis, sections: Sequence[str] = SECTIONS) -> str:
    """``analyze``'s text: its conclusion in a sentence, the runs, then each group."""
    lines = [analysis_conclusion(a), ""]
    lines += ["runs:"] + [f"  {run_line(r)}" for r in a.runs]
    if a.by:
        lines.append(f"grouped by: {', '.join(a.by)}")
    by_deal = any(b not in GROUP_KEYS for b in a.by)  # a deal feature: cells can be tiny
    for g in a.groups:
        lines.append("")
        if by_deal and g.hands < MIN_CELL:
            lines.append(f"== {g.label} == ({g.hands:,} hands, {g.players} players): too few "
                         f"hands for a number (fewer than {MIN_CELL})")  # fmt: skip
            continue
        lines += group_text(g, sections)
    return "\n".join(lines)


def comparison_text(c: Comparison) -> str:
    """``compare``'s text: its conclusion in a sentence, the runs, then each comparison."""
    lines = [comparison_conclusion(c), ""]
    lines += ["runs:"] + [
        f"  {'A' if i == 0 else 'B' + str(i)}  {run_line(r)}" for i, r in enumerate(c.runs)
    ]
    n_tests = sum(len(p.results) for p in c.pairs)
    for i, p in enumerate(c.pairs, start=1):
        lines.append("")
        how = f"paired on {p.n_pairs:,} common deals" if p.paired else "unpaired"
        lines.append(f"== B{i} {p.b.label} minus A {p.a.label}: {how} ({p.why}) ==")
        if p.note:
            lines.append(f"  note: {p.note}")
        lines.append(
            f"  {'metric':<36} {'test':<17} {'B':>8} {'A':>8} {'B − A [95% CI]':<27} "
            f"{'effect':<24} {'p':>8} {'p Holm':>8}  n"
        )
        for r in p.results:
            eff = f"{r.effect_name} {r.effect_size:+.4f}"
            n = f"{r.n_a:,} pairs" if r.paired else f"{r.n_b:,} + {r.n_a:,}"
            lines.append(
                f"  {metric_name(r.metric):<36} {r.test:<17} {r.a:8.4f} {r.b:8.4f} "
                f"{fmt_test(r):<27} {eff:<24} {fmt_p(r.p_value):>8} {fmt_p(r.p_holm):>8}  {n}"
            )
    lines.append("")
    lines.append(
        f"Holm correction over the {n_tests} tests above; effect sizes: dz = mean difference / "
        "sd of the paired differences, d = difference / pooled sd, risk difference = B − A."
    )
    return "\n".join(lines)


# --------------------------------------------------------------------------- Markdown report


@dataclass(frozen=True, repr=False)
class ReportFiles:
    """What :func:`write_report` wrote: the ``markdown`` report and its ``figures``."""

    markdown: Path
    figures: tuple[Path, ...]

    def __repr__(self) -> str:
        """``ReportFiles(out/report.md, 6 figures)``."""
        return f"ReportFiles({self.markdown}, {len(self.figures)} figure(s))"

    def _repr_html_(self) -> str:
        """The files written, as a table."""
        import html

        rows = [("report", self.markdown), *(("figure", f) for f in self.figures)]
        body = "".join(f"<tr><td>{k}</td><td>{html.escape(str(f))}</td></tr>" for k, f in rows)
        return (f"<div class='scopa-sim'><b>scopa-sim report</b><table><tr><th>file</th>"
                f"<th>path</th></tr>{body}</table></div>")  # fmt: skip


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def write_report(
    directories: Sequence[str | Path], out: str | Path, command: str | None = None
) -> ReportFiles:
    """Write a Markdown report on the runs (and their comparison with the first run).

    ``out`` ending in ``.md`` is the report file, its figures go next to it
    prefixed with its stem; otherwise ``out`` is a directory that receives
    ``report.md`` and the figures. ``command`` is the command line to state (default:
    the ``scopa-sim report`` command that writes this report).
    """
    runs = open_runs(directories)
    out = Path(out)
    if out.suffix == ".md":
        md, folder, prefix, title = out, out.parent, out.stem + "-", out.stem
    else:
        md, folder, prefix, title = out / "report.md", out, "", out.name
    folder.mkdir(parents=True, exist_ok=True)
    an = analyze(runs, by=("run",))
    groups = an.groups
    cmp = compare(runs, strict=False) if len(runs) > 1 else None
    figs = _Figures.draw(runs, groups, folder, prefix)
    cmd = command or "scopa-sim report " + " ".join(
        [*(shlex.quote(str(r.directory)) for r in runs), "--out", shlex.quote(str(out))]
    )
    lines = _preamble(title, cmd, report_conclusion(an, cmp))
    lines += _runs_section(runs, cmd)
    lines += _advantage_section(groups, figs)
    lines += _items_section(groups, figs)
    lines += _points_section(groups, figs)
    lines += _matches_section(groups, figs)
    if cmp is not None:
        lines += _comparison_section(runs, cmp)
    md.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ReportFiles(md, figs.files)


@dataclass(frozen=True)
class _Figures:
    """The report's figures, drawn into its folder (names prefixed with ``prefix``)."""

    forest: Path
    items: Path
    convergence: Path
    points: Path
    match_length: Path | None  # only when some run has matches
    files: tuple[Path, ...]  # every figure, in the order drawn

    @classmethod
    def draw(
        cls, runs: Sequence[Run], groups: Sequence[GroupResult], folder: Path, prefix: str
    ) -> _Figures:
        """Draw every figure of the report of ``runs`` into ``folder``, each file named ``prefix``
        and the figure's name.
        """

        def path(name: str) -> Path:
            return folder / f"{prefix}{name}.png"

        under = who_played(runs)
        forest = P.forest_plot(
            [(g.label, g.margin) for g in groups],
            path("forest"),
            f"Dealer minus first player, points per hand, {under}",
        )
        items = P.items_plot(
            groups, path("items"), f"Score items: dealer minus first player, per hand, {under}"
        )
        conv = P.convergence_plot(
            [convergence(r) for r in runs], path("convergence"),
            f"Convergence of the dealer margin, {under}",
        )  # fmt: skip
        points = P.distribution_plot(
            [(g.label, g.total_points) for g in groups],
            path("points"),
            "points per hand (all sides)",
            f"Points per hand, {under}",
        )
        length = None
        if any(g.matches is not None for g in groups):
            length = P.distribution_plot(
                [(g.label, g.matches.length) for g in groups if g.matches is not None],
                path("match-length"),
                "hands per match",
                f"Match length, {under}",
            )
        drawn = (forest, items, conv, points) + ((length,) if length is not None else ())
        return cls(forest, items, conv, points, length, drawn)


#: A figure's title lists each run's policy up to this many characters; past it, it
#: points to the runs table.
WHO_CHARS = 90


def who_played(runs: Sequence[Run]) -> str:
    """Which policies played the runs, for a figure's title: ``under expert`` when every
    run has the same (``under expert vs greedy`` when the seats differ), else the runs'
    policies in turn, or when that is too long (:data:`WHO_CHARS`), a pointer to the
    report's table of runs."""

    def policy(r: Run) -> str:
        return " vs ".join(dict.fromkeys(r.config.policies))

    names = list(dict.fromkeys(policy(r) for r in runs))
    if len(names) == 1:
        return f"under {names[0]}"
    how = "in turn" if len(names) == len(runs) else "(see the table of runs)"
    text = f"runs under {', '.join(names)} {how}"
    return text if len(text) <= WHO_CHARS else "each run under its policies (table of runs)"


def _link(p: Path, alt: str) -> str:
    """A figure of the report, linked relative to it (the figures sit beside it)."""
    return f"![{alt}]({p.name})"


def report_conclusion(an: Analysis, cmp: Comparison | None) -> str:
    """A report's opening sentence: the runs' dealer margin, then (with several runs) each
    run against the first."""
    text = analysis_conclusion(an)
    if cmp is not None and cmp.pairs:
        text += "; against the first run: " + comparison_conclusion(cmp)
    return text[0].upper() + text[1:] + "."


def _preamble(title: str, cmd: str, conclusion: str) -> list[str]:
    """The title, the conclusion in a sentence, when and how the report was made, and what
    its intervals are."""
    when = datetime.now(timezone.utc).isoformat(timespec="seconds")
    lines = [f"# scopa-sim report: {title}", "", f"**{conclusion}**", ""]
    lines.append(f"Generated {when} by scopa-sim {__version__} with `{cmd}`.")
    lines.append("")
    lines.append(
        "All intervals are 95%: t intervals for means, Wilson intervals for proportions; "
        "n is the number of hands (or matches) behind each number. The *margin* of a hand is "
        "the dealer's side's points minus the first player's side's points."
    )
    return lines


def _runs_section(runs: Sequence[Run], cmd: str) -> list[str]:
    """Each run's configuration, effective rules and the commands that reproduce it."""
    lines = ["", "## Runs and how to reproduce them", ""]
    rows = []
    for r in runs:
        c = r.config
        rows.append(
            [
                r.label,
                c.preset,
                " ".join(r.rule_overrides()) or "none",
                ", ".join(c.policies),
                f"{c.count:,} {c.mode}",
                f"{r.rows:,}",
                str(c.seed),
                r.run_id,
                str(r.manifest.get("versions", {}).get("scopa-sim", "?")),
            ]
        )
    header = ["run", "preset", "rule overrides", "policies", "units", "hands", "seed"]
    lines += _md_table([*header, "run id", "version"], rows)
    lines += ["", "Effective rules of each run (from its manifest):", ""]
    for r in runs:
        opts = ", ".join(f"{k}={_t(v)}" for k, v in r.config.rules.as_dict().items())
        lines.append(f"* `{r.label}`: {opts}")
    lines += [
        "",
        "Commands (the data depend only on the configuration and the seed):",
        "",
        "```sh",
    ]
    lines += [r.command() for r in runs]
    dirs = " ".join(shlex.quote(str(r.directory)) for r in runs)
    lines.append(f"scopa-sim analyze {dirs}")
    if len(runs) > 1:
        lines.append(f"scopa-sim compare {dirs}")
    lines.append(cmd)
    lines += ["```", ""]
    return lines


def _advantage_section(groups: Sequence[GroupResult], figs: _Figures) -> list[str]:
    """The dealer's margin and who wins the hand, then the points by position and seat."""
    lines = ["## First-player advantage per hand", ""]
    lines += _md_table(
        ["run", "hands", "dealer − first (points)", "dealer side wins", "draw", "first side wins"],
        [
            [
                g.label,
                f"{g.hands:,}",
                fmt_mean(g.margin),
                fmt_prop(g.dealer_wins),
                fmt_prop(g.draws),
                fmt_prop(g.first_wins),
            ]
            for g in groups
        ],
    )
    lines += ["", _link(figs.forest, "forest plot of the dealer margin"), ""]
    lines += ["", "Points per hand by playing position (0 = first player, last = dealer):", ""]
    width = max(g.players for g in groups)
    lines += _md_table(
        ["run", *(f"position {p}" for p in range(width))],
        [
            [g.label, *(fmt_mean(e, signed=False) for e in g.positions)]
            + ["—"] * (width - g.players)
            for g in groups
        ],
    )
    lines += ["", "Points per hand by seat (policies may differ by seat):", ""]
    lines += _md_table(
        ["run", *(f"seat {s}" for s in range(width))],
        [
            [g.label, *(fmt_mean(e, signed=False) for e in g.seats)] + ["—"] * (width - g.players)
            for g in groups
        ],
    )
    return lines


def _items_section(groups: Sequence[GroupResult], figs: _Figures) -> list[str]:
    """The score items behind the margin, and the convergence of the margin."""
    lines = ["", "## Which score items drive it", ""]
    items = list(dict.fromkeys(i for g in groups for i, _ in g.items))
    lines += _md_table(
        ["item", *(g.label for g in groups)],
        [
            [i, *(fmt_mean(dict(g.items)[i]) if i in dict(g.items) else "—" for g in groups)]
            for i in items
        ],
    )
    lines += ["", _link(figs.items, "score items"), ""]
    lines += [
        "## Convergence",
        "",
        _link(figs.convergence, "running mean of the dealer margin"),
        "",
    ]
    return lines


def _points_section(groups: Sequence[GroupResult], figs: _Figures) -> list[str]:
    """The distribution of the points per hand, and how often a hand has a scopa."""
    lines = ["## Points per hand", ""]
    lines += _md_table(
        ["run", "side", "mean [95% CI]", "sd", "quantiles", "n"],
        [
            [
                g.label,
                name,
                fmt_mean(d.mean, signed=False),
                f"{d.mean.sd:.3f}",
                _quantiles(d),
                f"{d.n:,}",
            ]
            for g in groups
            for name, d in (
                ("dealer", g.dealer_points),
                ("first player", g.first_points),
                ("all sides", g.total_points),
            )
        ],
    )
    lines += ["", _link(figs.points, "points per hand"), ""]
    lines += [
        "Hands with at least one scopa: "
        + "; ".join(f"{g.label} {fmt_prop(g.scopa)}" for g in groups),
        "",
    ]
    return lines


def _matches_section(groups: Sequence[GroupResult], figs: _Figures) -> list[str]:
    """The runs of whole matches: the first mover's wins and the length of a match (no
    section when no run has matches)."""
    with_matches = [g for g in groups if g.matches is not None]
    if not with_matches or figs.match_length is None:
        return []
    lines = ["## Matches", ""]
    lines.append(
        "The *first mover* is the side that played first in the match's first hand; "
        "one observation per match."
    )
    lines.append("")
    mrows = []
    for g in with_matches:
        m = g.matches
        assert m is not None
        mrows.append(
            [
                g.label,
                f"{m.matches:,}",
                fmt_prop(m.first_mover_wins),
                fmt_mean(m.length.mean, signed=False, digits=3),
                f"{m.length.mean.sd:.3f}",
                _quantiles(m.length),
            ]
        )
    lines += _md_table(
        ["run", "matches", "first mover wins", "hands per match", "sd", "quantiles"], mrows
    )
    lines += ["", _link(figs.match_length, "hands per match"), ""]
    return lines


def _comparison_section(runs: Sequence[Run], cmp: Comparison) -> list[str]:
    """Each run against the first: the tests of every metric, Holm-corrected."""
    lines = ["## Comparison with the first run", ""]
    lines.append(
        f"Each run B against A = `{runs[0].label}`; estimates are B − A. Holm's correction is "
        f"applied over all {sum(len(p.results) for p in cmp.pairs)} tests."
    )
    for p in cmp.pairs:
        how = f"paired on {p.n_pairs:,} common deals" if p.paired else "unpaired"
        lines += ["", f"### {p.b.label} − {p.a.label}: {how}", "", f"Pairing: {p.why}."]
        if p.note:
            lines += ["", f"Note: {p.note}."]
        lines.append("")
        lines += _md_table(
            ["metric", "test", "B", "A", "B − A [95% CI]", "effect size", "p", "p (Holm)", "n"],
            [
                [
                    metric_name(r.metric),
                    r.test,
                    f"{r.a:.4f}",
                    f"{r.b:.4f}",
                    fmt_test(r),
                    f"{r.effect_name} {r.effect_size:+.4f}",
                    fmt_p(r.p_value),
                    fmt_p(r.p_holm),
                    f"{r.n_a:,} pairs" if r.paired else f"{r.n_b:,} + {r.n_a:,}",
                ]
                for r in p.results
            ],
        )
    lines.append("")
    return lines


def _t(v: object) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


__all__ = [
    "ReportFiles",
    "analysis_text",
    "comparison_text",
    "fmt_p",
    "group_text",
    "metric_name",
    "write_report",
]
