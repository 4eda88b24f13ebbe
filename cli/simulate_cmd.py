"""``simulate``: millions of hands or matches into a Parquet dataset."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from cli.options import (
    BadInput,
    make_policies,
    make_rules,
    policy_option,
    rules_options,
    seed_option,
    workers_option,
)
from scopa_sim.simulate import SimConfig, dask_executor, local_executor, simulate


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
    type=click.Path(file_okay=False, path_type=Path),
    help="Run directory (manifest.json + shards/*.parquet).",
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
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
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
    shard_size: int | None,
    deal: str,
    resume: bool,
    overwrite: bool,
    quiet: bool,
) -> None:
    """Simulate hands or matches and write one row per hand to a Parquet dataset."""
    if (hands is None) == (matches is None):
        raise BadInput("give exactly one of --hands N or --matches N")
    count = hands if hands is not None else matches
    assert count is not None
    if count < 1:
        raise BadInput(f"the number of {'hands' if hands is not None else 'matches'} must be >= 1")
    if scheduler and executor != "dask":
        raise BadInput("--scheduler needs --executor dask")
    if resume and overwrite:
        raise BadInput("--resume and --overwrite exclude each other")
    r = make_rules(preset, rules)
    specs = make_policies(policies, r.players)
    mode = "hands" if hands is not None else "matches"
    if deal != "plain" and mode != "hands":
        raise BadInput("--deal swapped needs --hands")
    config = SimConfig.make(preset, r, specs, mode, count, seed, shard_size, deal=deal)
    n_workers = workers or os.cpu_count() or 1
    run_exec = (
        dask_executor(scheduler, n_workers) if executor == "dask" else local_executor(n_workers)
    )
    show = not quiet and sys.stderr.isatty()
    if show:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        bar = Progress(
            TextColumn(f"[bold]{mode}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            transient=True,
        )
        task = bar.add_task(mode, total=count, rate="")
        rows_seen = [0]

        def progress(units: int, rows: int) -> None:
            rows_seen[0] += rows
            elapsed = bar.tasks[task].elapsed or 1e-9
            bar.update(task, advance=units, rate=f"{rows_seen[0] / elapsed:,.0f} hands/s")

    try:
        if show:
            with bar:
                summary = simulate(
                    out_dir, config, run_exec, resume=resume, overwrite=overwrite, progress=progress
                )
        else:
            summary = simulate(out_dir, config, run_exec, resume=resume, overwrite=overwrite)
    except KeyboardInterrupt:
        click.echo(
            f"interrupted: finished shards are kept in {out_dir}; "
            "run the same command with --resume to complete the run",
            err=True,
        )
        sys.exit(130)
    rate = summary.rows / summary.seconds if summary.seconds > 0 else float("nan")
    click.echo(
        f"{summary.units_done:,} {mode}"
        + (f" ({summary.rows:,} hands)" if mode == "matches" else "")
        + f" in {summary.seconds:.2f} s, "
        f"{rate:,.0f} hands/s; run {config.run_id}, {n_workers} worker(s), {executor} executor"
    )
    click.echo(f"data: {out_dir}/shards/*.parquet (manifest: {out_dir}/manifest.json)")
