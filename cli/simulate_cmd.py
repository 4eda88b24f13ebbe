"""``simulate``: millions of hands or matches into a Parquet dataset."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import click

from scopa_sim.data import dataset as D
from scopa_sim.data.run import SimConfig, mode_and_count
from scopa_sim.errors import ScopaError
from scopa_sim.sim.executors import DEFAULT_WORKER_TIMEOUT, dask_executor, local_executor
from scopa_sim.sim.pool import Terminated
from scopa_sim.sim.simulate import simulate

from .options import (
    BadInput,
    PathArg,
    make_policies,
    make_rules,
    policy_option,
    rules_options,
    seed_option,
    workers_option,
)
from .progress import Progress, progress_option, wanted


def _run_shard_size(directory: Path) -> int | None:
    """The shard size of the run to resume in ``directory`` (None if there is no readable
    one; resuming then says what is wrong), so that ``--resume`` needs no --shard-size."""
    try:
        size = D.read_manifest(directory).get("config", {}).get("shard_size")
    except (ScopaError, AttributeError):
        return None
    return size if type(size) is int and size >= 1 else None


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
    default=DEFAULT_WORKER_TIMEOUT,
    show_default=True,
    metavar="SECONDS",
    help="With --executor dask: give up when the cluster has had no worker this long.",
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
    worker_timeout: float,
    shard_size: int | None,
    deal: str,
    resume: bool,
    overwrite: bool,
    progress: bool | None,
    quiet: bool,
) -> None:
    """Simulate hands or matches and write one row per hand to a Parquet dataset."""
    try:
        mode, count = mode_and_count(hands, matches)
    except ScopaError as e:
        raise BadInput(str(e)) from None
    if scheduler and executor != "dask":
        raise BadInput("--scheduler needs --executor dask")
    if math.isnan(worker_timeout):
        raise BadInput("--worker-timeout must be a number of seconds > 0 (or inf), not nan")
    if resume and overwrite:
        raise BadInput("--resume and --overwrite exclude each other")
    r = make_rules(preset, rules)
    specs = make_policies(policies, r.players)
    if deal != "plain" and mode != "hands":
        raise BadInput("--deal swapped needs --hands")
    if resume and shard_size is None:
        shard_size = _run_shard_size(out_dir)
    try:
        config = SimConfig.make(preset, r, specs, mode, count, seed, shard_size, deal=deal)
    except ScopaError as e:
        raise BadInput(str(e)) from None
    n_workers = workers or os.cpu_count() or 1
    if executor == "dask":
        say = lambda message: click.echo(message, err=True)  # noqa: E731
        run_exec = dask_executor(scheduler, n_workers, worker_timeout, notify=say)
    else:
        run_exec = local_executor(n_workers)
    bar = Progress(wanted(progress, quiet), "simulate", count, mode, rate="hands")

    def advance(units: int, rows: int) -> None:
        bar.advance(units, rows)

    try:  # SIGTERM arrives as Terminated (see ScopaGroup): the run stops as on Ctrl-C
        with bar:
            summary = simulate(
                out_dir,
                config,
                run_exec,
                resume=resume,
                overwrite=overwrite,
                progress=advance if bar.show else None,
            )
    except KeyboardInterrupt as e:
        what = "terminated (SIGTERM)" if isinstance(e, Terminated) else "interrupted"
        click.echo(
            f"{what}: finished shards are kept in {out_dir}; "
            "run the same command with --resume to complete the run",
            err=True,
        )
        sys.exit(143 if isinstance(e, Terminated) else 130)
    if summary.already_complete:
        click.echo(
            f"the run in {out_dir} is already complete ({config.count:,} {mode}"
            + (f", {summary.total_rows:,} hands" if mode == "matches" else "")
            + f"; run {config.run_id}): nothing to do"
        )
        return
    rate = summary.rows / summary.seconds if summary.seconds > 0 else float("nan")
    click.echo(
        f"{summary.units_done:,} {mode}"
        + (f" ({summary.rows:,} hands)" if mode == "matches" else "")
        + f" in {summary.seconds:.2f} s, "
        f"{rate:,.0f} hands/s; run {config.run_id}, {n_workers} worker(s), {executor} executor"
    )
    click.echo(f"data: {out_dir}/shards/*.parquet (manifest: {out_dir}/manifest.json)")
