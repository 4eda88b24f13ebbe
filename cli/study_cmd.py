"""``advantage``: first-player advantage from independent self-play hands."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import click

from scopa_sim.analysis.advantage import MAX_HANDS, first_player_advantage
from scopa_sim.analysis.conclusions import advantage_conclusion
from scopa_sim.files import json_number
from scopa_sim.sim.pool import Terminated
from scopa_sim.stats.estimate import Estimate
from scopa_sim.stats.inference import MIN_SAMPLES

from .options import (
    PathArg,
    make_policies,
    make_rules,
    policy_option,
    rules_options,
    seed_option,
    workers_option,
)
from .progress import Progress, progress_option, wanted


def _position_name(p: int, players: int) -> str:
    if p == players - 1:
        return "dealer"
    return "first player" if p == 0 else f"position {p + 1}"


@click.command()
@rules_options
@click.option(
    "--hands",
    type=click.IntRange(min=2, max=MAX_HANDS),
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
    specs = make_policies(policies, r.players)
    with Progress(wanted(progress), "advantage", hands, "hands", rate="hands") as bar:
        res = first_player_advantage(r, specs, hands, seed, bar.advance if bar.show else None)
    conclusion = advantage_conclusion(res)
    if as_json:
        out = {
            "conclusion": conclusion,
            "preset": preset,
            "rules": r.as_dict(),
            "policies": [str(p) for p in specs],
            "seed": seed,
            "hands": hands,
            "seconds": res.seconds,
            "dealer_margin": _est(res.dealer_margin),
            "points_by_position": [_est(e) for e in res.by_position],
        }
        json.dump(out, sys.stdout, indent=2)
        click.echo()
        return
    pol = ", ".join(str(p) for p in specs) if len(set(specs)) > 1 else str(specs[0])
    click.echo(conclusion)
    click.echo(f"rules {preset} ({r.digest()}), policy {pol}, {hands:,} hands, seed {seed}")
    click.echo("points per hand by position (mean ± 95% CI half-width, normal approximation):")
    for p, e in enumerate(res.by_position):
        spread = f"± {e.half_width:.4f}" if e.estimated else "(no CI)"
        click.echo(f"  {_position_name(p, r.players):<13} {e.estimate:.4f} {spread}")
    m = res.dealer_margin
    ci = f"95% CI [{m.low:+.4f}, {m.high:+.4f}]" if m.estimated else "no CI"
    click.echo(
        f"dealer minus first player: {m.estimate:+.4f} points per hand, {ci} (paired per hand)"
    )
    if not m.estimated:
        click.echo(f"intervals not estimated: from fewer than {MIN_SAMPLES} hands no CI is given")
    click.echo(f"time {res.seconds:.2f} s ({hands / res.seconds:,.0f} hands/s)")


def _est(e: Estimate) -> dict[str, float | int | None]:
    return {
        "mean": e.estimate,
        "se": json_number(e.se),
        "low": json_number(e.low),
        "high": json_number(e.high),
        "n": e.n,
    }


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
    from scopa_sim.analysis.study.run import run_part_d, run_study

    bar = Progress(wanted(progress), "study")

    def on_run(text: str, count: int, unit: str) -> Callable[[int, int], None] | None:
        bar.restart(count, unit, text)
        return (lambda units, rows: bar.advance(units, rows)) if bar.show else None

    def say(line: str) -> None:
        click.echo(line)
        bar.status(line if len(line) <= 60 else line[:57] + "...")

    try:
        with bar:
            (run_part_d if part == "D" else run_study)(
                out,
                runs_dir / scale,
                scale,
                seed,
                workers or os.cpu_count() or 1,
                say,
                on_run if bar.show else None,
            )
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (see ScopaGroup)
        what = "terminated (SIGTERM)" if isinstance(e, Terminated) else "interrupted"
        click.echo(
            f"{what}: finished runs and shards are kept in {runs_dir / scale}; "
            "run the same command again to resume",
            err=True,
        )
        sys.exit(143 if isinstance(e, Terminated) else 130)
