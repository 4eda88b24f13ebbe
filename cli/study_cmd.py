"""``advantage`` (the first-player advantage from independent self-play hands) and
``study`` (the embedded study)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import click

import scopa_sim
from scopa_sim.api.choices import MAX_ADVANTAGE_HANDS

from .interrupted import exit_interrupted
from .options import (
    PathArg,
    make_rules,
    policy_option,
    rules_options,
    seed_option,
    usage_errors,
    workers_option,
)
from .progress import Progress, progress_option, wanted


@click.command()
@rules_options
@click.option(
    "--hands",
    type=click.IntRange(min=2, max=MAX_ADVANTAGE_HANDS),
    default=1_000_000,
    show_default=True,
    help="Independent hands (dealer rotates with the hand number), at most 10^15.",
)
@seed_option
@policy_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@progress_option
def advantage(
    preset: str,
    rules: tuple[str, ...],
    hands: int,
    seed: int,
    policies: tuple[str, ...],
    as_json: bool,
    progress: bool | None,
) -> None:
    """Points per hand by playing position and the dealer's margin, with 95% CIs."""
    r = make_rules(preset, rules)
    bar = Progress(wanted(progress), "advantage", hands, "hands", rate="hands")
    with bar, usage_errors():
        res = scopa_sim.advantage(
            preset,
            rules=r,
            hands=hands,
            policy=policies or "random",
            seed=seed,
            progress=bar.advance if bar.show else None,
        )
    if as_json:
        json.dump(res.to_dict(), sys.stdout, indent=2)
        click.echo()
        return
    click.echo(res.text())


@click.command()
@click.option(
    "--scale",
    type=click.Choice(["small", "full"]),
    default="small",
    show_default=True,
    help="small: a few minutes on 2 cores; full: the committed study in reports/study.",
)
@seed_option
@click.option(
    "--out",
    type=PathArg(file_okay=False, path_type=Path),
    default=Path("reports/study-small"),
    show_default=True,
    help="Where the Markdown reports and figures go.",
)
@click.option(
    "--runs-dir",
    type=PathArg(file_okay=False, path_type=Path),
    default=Path("runs/study"),
    show_default=True,
    help="Where the simulated datasets go (finished runs are reused).",
)
@click.option(
    "--part",
    type=click.Choice(["all", "D"]),
    default="all",
    show_default=True,
    help="all: parts A-D; D: part D alone (what a deal is worth), its rows added to OUT's "
    "results.json and its section to OUT's README, parts A-C left as they are.",
)
@workers_option
@progress_option
def study(
    scale: str,
    seed: int,
    out: Path,
    runs_dir: Path,
    part: str,
    workers: int | None,
    progress: bool | None,
) -> None:
    """Run the embedded study (every preset, policies, rule options, what a deal is
    worth) and write reports."""
    bar = Progress(wanted(progress), "study")

    def on_run(text: str, count: int, unit: str) -> Callable[[int, int], None] | None:
        bar.restart(count, unit, text)
        return (lambda units, rows: bar.advance(units, rows)) if bar.show else None

    def say(line: str) -> None:
        click.echo(line)
        bar.status(line if len(line) <= 60 else line[:57] + "...")

    try:
        with bar:
            scopa_sim.study(
                scale,
                seed=seed,
                out=out,
                runs_dir=runs_dir,
                part=part,
                workers=workers,
                say=say,
                on_run=on_run if bar.show else None,
            )
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (see ScopaGroup)
        exit_interrupted(
            e,
            f"finished runs and shards are kept in {runs_dir / scale}; "
            "run the same command again to resume",
        )
