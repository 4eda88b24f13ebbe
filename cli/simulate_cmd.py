"""``simulate``: millions of hands or matches into a Parquet dataset."""

from __future__ import annotations

import os
from pathlib import Path

import click

import scopa_sim
from scopa_sim.wording import plural

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


def mode_of(hands: int | None, matches: int | None) -> str:
    """What the progress counts: hands, unless only matches are given."""
    return "matches" if matches is not None and hands is None else "hands"


@click.command()
@rules_options
@policy_option
@click.option("--hands", type=int, help="Independent hands (the dealer rotates with the hand).")
@click.option("--matches", type=int, help="Complete matches to the target.")
@seed_option
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=PathArg(file_okay=False, path_type=Path),
    help="Run directory (manifest.json, and the Parquet shards in shards/).",
)
@workers_option
@click.option(
    "--executor",
    type=click.Choice(["local", "dask"]),
    default="local",
    show_default=True,
    help="Run shards on this machine, or as tasks on a Dask cluster.",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Dask scheduler, e.g. tcp://host:8786 (default: start a LocalCluster).",
)
@click.option(
    "--worker-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="With --executor dask: give up when the cluster has had no worker this long  "
    "[default: 60].",
)
@click.option(
    "--shard-size",
    type=click.IntRange(min=1),
    default=None,
    help="Units per shard file (default 250000 hands or 25000 matches).",
)
@click.option(
    "--deal",
    type=click.Choice(["plain", "swapped"]),
    default="plain",
    show_default=True,
    help="swapped: each hand's deck dealt with the seats' cards exchanged (the duplicate "
    "deal of the plain run's hand with the same seed); --hands only.",
)
@click.option("--resume", is_flag=True, help="Finish an interrupted run in --out.")
@click.option("--overwrite", is_flag=True, help="Replace the run already in --out.")
@progress_option
@click.option("-q", "--quiet", is_flag=True, help="No progress (as --no-progress).")
def simulate_cmd(
    preset: str,
    rules: tuple[str, ...],
    policies: tuple[str, ...],
    hands: int | None,
    matches: int | None,
    seed: int,
    out_dir: Path,
    workers: int | None,
    executor: str,
    scheduler: str | None,
    worker_timeout: float | None,
    shard_size: int | None,
    deal: str,
    resume: bool,
    overwrite: bool,
    progress: bool | None,
    quiet: bool,
) -> None:
    """Simulate hands or matches and write one row per hand to a Parquet dataset."""
    r = make_rules(preset, rules)
    bar = Progress(wanted(progress, quiet), "simulate", hands or matches, mode_of(hands, matches),
                   rate="hands")  # fmt: skip
    done = [0, 0]  # units and rows this command computed

    def advance(units: int, rows: int) -> None:
        done[0] += units
        done[1] += rows
        bar.advance(units, rows)

    try:  # SIGTERM arrives as Terminated (see ScopaGroup): the run stops as on Ctrl-C
        with bar, usage_errors():
            run = scopa_sim.simulate(
                preset,
                rules=r,
                hands=hands,
                matches=matches,
                policy=policies or "random",
                seed=seed,
                deal=deal,
                out=out_dir,
                workers=workers,
                executor=executor,
                scheduler=scheduler,
                worker_timeout=worker_timeout,
                shard_size=shard_size,
                resume=resume,
                overwrite=overwrite,
                progress=advance,
                notify=lambda message: click.echo(message, err=True),
            )
    except KeyboardInterrupt as e:
        exit_interrupted(
            e,
            f"finished shards are kept in {out_dir}; "
            "run the same command with --resume to complete the run",
        )
    c = run.config
    if done[0] == 0:
        click.echo(
            f"the run in {out_dir} is already complete ({plural(c.count, c.mode[:-1], c.mode)}"
            + (f", {run.rows:,} hands" if c.mode == "matches" else "")
            + f"; run {run.run_id}): nothing to do"
        )
        return
    seconds = run.manifest["timings"][-1]["seconds"]  # this command's computing time
    rate = done[1] / seconds if seconds > 0 else float("nan")
    n_workers = workers or os.cpu_count() or 1
    click.echo(
        plural(done[0], c.mode[:-1], c.mode)
        + (f" ({done[1]:,} hands)" if c.mode == "matches" else "")
        + f" in {seconds:.2f} s, "
        f"{rate:,.0f} hands/s; run {run.run_id}, {plural(n_workers, 'worker')}, {executor} executor"
    )
    click.echo(f"data: {out_dir}/shards/*.parquet (manifest: {out_dir}/manifest.json)")
