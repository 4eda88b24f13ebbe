"""``warm``: compile the kernels ahead of use, in parallel processes."""

from __future__ import annotations

import time

import click

import scopa_sim

from .options import WORKERS
from .progress import Progress, progress_option, wanted


@click.command()
@click.option(
    "--only",
    "names",
    multiple=True,
    metavar="TASK",
    help=f"Warm only this task (repeatable): {', '.join(t.name for t in scopa_sim.warm_tasks())}.",
)
@click.option(
    "--jobs",
    type=WORKERS,
    default=None,
    help="Processes to compile in  [default: the number of cores, at most the tasks].",
)
@click.option("--list", "list_only", is_flag=True, help="List the tasks and exit.")
@progress_option
def warm_cmd(
    names: tuple[str, ...], jobs: int | None, list_only: bool, progress: bool | None
) -> None:
    """Compile every kernel into numba's on-disk cache, so that later commands, and the
    processes of a run or cluster started together, load them at once instead of each
    compiling them (minutes on a fresh machine). A cached task takes about a second.

    It says first what it compiles and about how long that takes, then one line per task
    as each finishes; the progress (tasks done, time) is on standard error."""
    if list_only:
        for t in scopa_sim.warm_tasks():
            click.echo(f"{t.name:<11} {t.summary}")
        return
    warming = scopa_sim.warm(names, jobs)  # an unknown name: a one-line error before anything
    tasks, n, seconds = warming.tasks, warming.jobs, warming.seconds
    about = f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"
    click.echo(
        f"compiling {len(tasks)} task(s) of kernels in {n} process(es), largest first: "
        f"about {about} on 2 free cores, several times that on a busy machine; "
        "a task whose kernels are cached takes about a second"
    )
    t0 = time.perf_counter()
    left = [t.name for t in tasks]
    running = "compiling " + ", ".join(left[:n])
    with Progress(wanted(progress), "warm", len(tasks), "tasks", text=running) as bar:
        for task, took in warming:
            click.echo(f"{task.name:<11} {took:6.1f} s  {task.summary}")
            left.remove(task.name)
            bar.advance()
            if left:
                bar.status("compiling " + ", ".join(left[:n]))
    click.echo(f"warm in {time.perf_counter() - t0:.1f} s with {n} process(es)")
