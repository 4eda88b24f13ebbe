"""``analyze``, ``compare`` and ``report``: statistics on simulated Parquet datasets."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

import scopa_sim
from scopa_sim.api.choices import COMPARE_METRICS, FEATURE_HELP, GROUP_KEYS, SECTIONS
from scopa_sim.errors import FileError, ScopaError
from scopa_sim.wording import plural

from .options import (
    BadInput,
    PathArg,
    make_overrides,
    policy_option,
    seed_option,
    workers_option,
)
from .progress import Progress, progress_option, wanted

DIRS = PathArg(file_okay=True, path_type=Path)


@contextmanager
def _bad_input(but: type[ScopaError] | None = None) -> Iterator[None]:
    """Errors on the user's input (directories, metrics, runs) are usage errors, except
    those of type ``but`` (a report that cannot be written, say)."""
    try:
        yield
    except ScopaError as e:
        if but is not None and isinstance(e, but):
            raise
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
    with (
        _bad_input(),
        Progress(wanted(progress), "analyze", text=f"reading {plural(len(dirs), 'run')}"),
    ):
        result = scopa_sim.analyze(*dirs, by=by, sections=metrics, by_role_file=by_role_file)
    if by_role_file is not None:
        hands = sum(r.rows for r in result.runs)
        click.echo(f"wrote {hands:,} hands by role to {by_role_file}", err=True)
    if as_json:
        json.dump(result.to_dict(), sys.stdout, indent=2)
        click.echo()
        return
    click.echo(result.text())


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
    if presets:
        if dirs:
            raise BadInput("give run directories or --preset, not both")
        overrides = make_overrides(rules)
        with Progress(wanted(progress), "compare") as bar, _bad_input():

            def on_run(text: str, count: int, unit: str) -> Callable[[int, int], None] | None:
                bar.restart(count or None, unit, text)
                return (lambda units, rows: bar.advance(units, rows)) if bar.show else None

            result = scopa_sim.compare_presets(
                *presets,
                overrides=overrides,
                policy=policies or "random",
                hands=hands,
                matches=matches,
                seed=seed,
                out=out_dir,
                workers=workers,
                metrics=metrics,
                unpaired=unpaired,
                on_run=on_run,
                say=lambda line: click.echo(line, err=True),
            )
        _print_comparison(result, as_json)
        return
    if rules or policies or hands or matches or out_dir:
        raise BadInput("--rule, --policy, --hands, --matches and --out-dir need --preset")
    if len(dirs) < 2:
        raise BadInput("compare needs two or more run directories (or --preset twice)")
    with _bad_input(), Progress(wanted(progress), "compare", text=f"comparing {len(dirs)} runs"):
        result = scopa_sim.compare(*dirs, metrics=metrics, unpaired=unpaired)
    _print_comparison(result, as_json)


def _print_comparison(result: scopa_sim.Comparison, as_json: bool) -> None:
    if as_json:
        json.dump(result.to_dict(), sys.stdout, indent=2)
        click.echo()
        return
    click.echo(result.text())


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
    drawing = f"reading {plural(len(dirs), 'run')}, drawing the figures"
    with _bad_input(but=FileError), Progress(wanted(progress), "report", text=drawing):
        files = scopa_sim.report(*dirs, out=out, command=cmd)
    click.echo(f"wrote {files.markdown} and {plural(len(files.figures), 'figure')}")
