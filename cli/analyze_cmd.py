"""``analyze``, ``compare`` and ``report``: statistics on simulated Parquet datasets."""

from __future__ import annotations

import json
import os
import shlex
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from scopa_sim.analysis.analyze import (
    COMPARE_METRICS,
    GROUP_KEYS,
    SECTIONS,
    Comparison,
    analyze,
    compare,
)
from scopa_sim.data.run import SimConfig
from scopa_sim.errors import ScopaError
from scopa_sim.game.rules import PRESETS
from scopa_sim.sim.deals import FEATURE_HELP
from scopa_sim.sim.executors import local_executor
from scopa_sim.sim.simulate import simulate

from .options import (
    BadInput,
    PathArg,
    make_policies,
    make_rules,
    policy_option,
    seed_option,
    workers_option,
)
from .progress import Progress, progress_option, wanted

DIRS = PathArg(file_okay=True, path_type=Path)


@contextmanager
def _bad_input() -> Iterator[None]:
    """Library errors on the user's input (directories, metrics, runs) are usage errors."""
    try:
        yield
    except ScopaError as e:
        raise BadInput(str(e)) from None


@click.command()
@click.argument("dirs", nargs=-1, required=True, type=DIRS)
@click.option(
    "--by",
    multiple=True,
    metavar="COLUMN",
    help=f"Group by a column (repeatable): {', '.join(GROUP_KEYS)}; or by a feature of "
    "the deal, dealt again from the run's streams (see the guide 'What a deal is worth'): "
    f"{FEATURE_HELP}. Default: one group per run directory.",
)
@click.option(
    "--metric",
    "metrics",
    multiple=True,
    metavar="NAME",
    help=f"Show only these sections (repeatable): {', '.join(SECTIONS)}.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the full result as JSON.")
@progress_option
@click.option(
    "--by-role",
    "by_role_file",
    type=PathArg(dir_okay=False, path_type=Path),
    help="Also write the runs' hands to this .parquet or .csv file as a tidy table by "
    "role: the dealer's side, the first player's side and each seat, one row per hand, "
    "without the always-null columns.",
)
def analyze_cmd(
    dirs: tuple[Path, ...],
    by: tuple[str, ...],
    metrics: tuple[str, ...],
    as_json: bool,
    progress: bool | None,
    by_role_file: Path | None,
) -> None:
    """First-player advantage, score items, points and match statistics of simulated runs.

    DIRS are run directories written by `scopa-sim simulate`. Every number comes with a
    95% confidence interval and its sample size; aggregations run lazily over the shards.
    """
    from scopa_sim.analysis.analyze import check_by, check_sections

    with _bad_input():
        check_by(by)
        sections = check_sections(metrics)
    with _bad_input(), Progress(wanted(progress), "analyze", text=f"reading {len(dirs)} run(s)"):
        result = analyze(dirs, by)
    if "matches" in metrics and all(g.matches is None for g in result.groups):
        raise BadInput(
            "--metric matches: these runs hold no finished match (runs of independent "
            "hands); simulate with --matches N for match statistics"
        )
    if by_role_file is not None:
        from scopa_sim.data.roles import by_role, write_by_role

        with _bad_input():
            write_by_role([by_role(r.scan(), r.config) for r in result.runs], by_role_file)
        hands = sum(r.rows for r in result.runs)
        click.echo(f"wrote {hands:,} hands by role to {by_role_file}", err=True)
    if as_json:
        from scopa_sim.analysis.conclusions import analysis_conclusion

        doc = {"conclusion": analysis_conclusion(result), **result.to_dict()}
        json.dump(doc, sys.stdout, indent=2)
        click.echo()
        return
    from scopa_sim.analysis.report import analysis_text  # matplotlib: imported only when needed

    click.echo(analysis_text(result, sections))


@contextmanager
def _runs_for_presets(
    presets: tuple[str, ...],
    rules: tuple[str, ...],
    policies: tuple[str, ...],
    hands: int | None,
    matches: int | None,
    seed: int,
    out_dir: Path | None,
    workers: int | None,
    bar: Progress,
) -> Iterator[list[Path]]:
    """Simulate each preset with the same seed into ``out_dir`` (or a temporary directory),
    its progress on ``bar``."""
    if (hands is None) == (matches is None):
        raise BadInput("with --preset, give exactly one of --hands N or --matches N")
    count = hands if hands is not None else matches
    assert count is not None
    if count < 2:
        raise BadInput("--hands/--matches must be at least 2 to compare")
    mode = "hands" if hands is not None else "matches"
    configs = []
    for p in presets:
        if p not in PRESETS:
            raise BadInput(f"unknown preset {p!r}; presets: {', '.join(PRESETS)}")
        r = make_rules(p, rules)
        configs.append(SimConfig.make(p, r, make_policies(policies, r.players), mode, count, seed))
    n_workers = workers or os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="scopa-compare-") as tmp:
        base = out_dir if out_dir is not None else Path(tmp)
        dirs = []
        for i, cfg in enumerate(configs):
            name = cfg.preset if presets.count(cfg.preset) == 1 else f"{cfg.preset}-{i}"
            d = base / name
            bar.restart(count, mode, f"simulating {cfg.preset} ({i + 1}/{len(configs)})")
            with _bad_input():
                simulate(d, cfg, local_executor(n_workers), progress=_units(bar))
            click.echo(f"simulated {count:,} {mode} of {cfg.preset}, seed {seed}: {d}", err=True)
            dirs.append(d)
        yield dirs


@click.command()
@click.argument("dirs", nargs=-1, type=DIRS)
@click.option(
    "--metric",
    "metrics",
    multiple=True,
    metavar="NAME",
    help=f"Compare only these metrics (repeatable): {', '.join(COMPARE_METRICS)}.",
)
@click.option("--unpaired", is_flag=True, help="Use unpaired tests even for runs that pair.")
@click.option(
    "--preset",
    "presets",
    multiple=True,
    metavar="NAME",
    help="Simulate these presets (repeat, at least twice) with the same seed, then compare.",
)
@click.option("--rule", "rules", multiple=True, metavar="KEY=VALUE", help="With --preset.")
@policy_option
@click.option("--hands", type=int, help="With --preset: independent hands per preset.")
@click.option("--matches", type=int, help="With --preset: complete matches per preset.")
@seed_option
@click.option(
    "--out-dir",
    type=PathArg(file_okay=False, path_type=Path),
    help="With --preset: keep the runs here (default: a temporary directory, removed).",
)
@workers_option
@click.option("--json", "as_json", is_flag=True, help="Print the full result as JSON.")
@progress_option
def compare_cmd(
    dirs: tuple[Path, ...],
    metrics: tuple[str, ...],
    unpaired: bool,
    presets: tuple[str, ...],
    rules: tuple[str, ...],
    policies: tuple[str, ...],
    hands: int | None,
    matches: int | None,
    seed: int,
    out_dir: Path | None,
    workers: int | None,
    as_json: bool,
    progress: bool | None,
) -> None:
    """Compare runs on every metric: DIR_B (and more) against the baseline DIR_A.

    Runs with the same seed, deck and mode were dealt the same decks, so they are
    paired by (match, hand): paired t-tests for margins and means, exact McNemar
    tests for binary outcomes. Otherwise Welch t-tests and two-proportion z-tests.
    Holm's correction is applied over all the tests reported.
    """
    from scopa_sim.analysis.analyze import check_metrics

    with _bad_input():
        check_metrics(metrics)
    if presets:
        if dirs:
            raise BadInput("give run directories or --preset, not both")
        if len(presets) < 2:
            raise BadInput("give --preset at least twice to compare presets")
        twice = next((p for i, p in enumerate(presets) if p in presets[:i]), None)
        if twice is not None:  # the same rules, policies and seed: the same run twice
            raise BadInput(f"--preset {twice} is given twice: its two runs would be the same")
        with (
            Progress(wanted(progress), "compare") as bar,
            _runs_for_presets(
                presets, rules, policies, hands, matches, seed, out_dir, workers, bar
            ) as made,
        ):
            bar.restart(None, "", f"comparing {len(made)} runs")
            result = _comparison(tuple(made), metrics, unpaired)
        _print_comparison(result, as_json)
        return
    if rules or policies or hands or matches or out_dir:
        raise BadInput("--rule, --policy, --hands, --matches and --out-dir need --preset")
    if len(dirs) < 2:
        raise BadInput("compare needs two or more run directories (or --preset twice)")
    with Progress(wanted(progress), "compare", text=f"comparing {len(dirs)} runs"):
        result = _comparison(dirs, metrics, unpaired)
    _print_comparison(result, as_json)


def _units(bar: Progress) -> Callable[[int, int], None] | None:
    """A simulation's ``progress(units, rows)`` on ``bar`` (None when it is not shown)."""
    return (lambda units, rows: bar.advance(units, rows)) if bar.show else None


def _comparison(dirs: tuple[Path, ...], metrics: tuple[str, ...], unpaired: bool) -> Comparison:
    with _bad_input():
        return compare(dirs, metrics, paired=False if unpaired else None)


def _print_comparison(result: Comparison, as_json: bool) -> None:
    if as_json:
        from scopa_sim.analysis.conclusions import comparison_conclusion

        doc = {"conclusion": comparison_conclusion(result), **result.to_dict()}
        json.dump(doc, sys.stdout, indent=2)
        click.echo()
        return
    from scopa_sim.analysis.report import comparison_text

    click.echo(comparison_text(result))


@click.command()
@click.argument("dirs", nargs=-1, required=True, type=DIRS)
@click.option(
    "--out",
    required=True,
    type=PathArg(path_type=Path),
    help="Report directory (report.md + PNG figures), or a .md file (figures next to it).",
)
@progress_option
def report_cmd(dirs: tuple[Path, ...], out: Path, progress: bool | None) -> None:
    """Write a Markdown report with PNG figures on one or more runs.

    The report states the configuration and seed of each run and the exact commands
    that reproduce it; with several runs it compares each with the first.
    """
    cmd = "scopa-sim report " + " ".join(
        [*(shlex.quote(str(d)) for d in dirs), "--out", shlex.quote(str(out))]
    )
    drawing = f"reading {len(dirs)} run(s), drawing the figures"
    with _bad_input(), Progress(wanted(progress), "report", text=drawing):
        try:
            from scopa_sim.analysis.report import write_report

            files = write_report(dirs, out, cmd)
        except OSError as e:
            raise click.ClickException(f"cannot write the report to {out}: {e.strerror}") from None
    click.echo(f"wrote {files.markdown} and {len(files.figures)} figures")
