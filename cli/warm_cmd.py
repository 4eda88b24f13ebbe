"""``warm``: compile the kernels ahead of use, in parallel processes."""

from __future__ import annotations

import os
import time

import click

from scopa_sim.sim.warm import TASKS, warm

from .options import WORKERS


@click.command()
@click.option(
    "--only",
    "names",
    multiple=True,
    metavar="TASK",
    help=f"Warm only this task (repeatable): {', '.join(TASKS)}.",
)
@click.option(
    "--jobs",
    type=WORKERS,
    default=None,
    help="Processes to compile in  [default: the number of cores, at most the tasks].",
)
@click.option("--list", "list_only", is_flag=True, help="List the tasks and exit.")
def warm_cmd(names: tuple[str, ...], jobs: int | None, list_only: bool) -> None:
    """Compile every kernel into numba's on-disk cache, so that later commands, and the
    processes of a run or cluster started together, load them at once instead of each
    compiling them (minutes on a fresh machine). A cached task takes about a second."""
    if list_only:
        for t in TASKS.values():
            click.echo(f"{t.name:<11} {t.summary}")
        return
    n = jobs if jobs is not None else max(1, min(os.cpu_count() or 1, len(names or TASKS)))
    t0 = time.perf_counter()
    for task, seconds in warm(names, n):
        click.echo(f"{task.name:<11} {seconds:6.1f} s  {task.summary}")
    click.echo(f"warm in {time.perf_counter() - t0:.1f} s with {n} process(es)")
