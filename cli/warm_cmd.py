"""``warm``: compile the kernels ahead of use, in parallel processes."""

from __future__ import annotations

import time

import click

import scopa_sim
from scopa_sim.wording import plural

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
    compiling them (minutes on a fresh machine).

    It says first what it compiles and about how long that takes (or, when numba's cache
    holds every kernel, that it only loads them: a few seconds), then one line per task as
    each finishes; the progress (tasks done, time) is on standard error."""
    if list_only:
        for t in scopa_sim.warm_tasks():
            click.echo(f"{t.name:<11} {t.summary}")
        return
    warming = scopa_sim.warm(names, jobs)  # an unknown name: a one-line error before anything
    click.echo(announcement(warming))
    tasks, n = warming.tasks, warming.processes
    t0 = time.perf_counter()
    left = [t.name for t in tasks]
    verb = "compiling" if warming.to_compile else "loading"
    with Progress(wanted(progress), "warm", len(tasks), "tasks", text=f"{verb} {left[0]}") as bar:
        for task, took in warming:
            click.echo(f"{task.name:<11} {took:6.1f} s  {task.summary}")
            left.remove(task.name)
            bar.advance()
            if left:
                bar.status(f"{verb} " + ", ".join(left[:n]))
    click.echo(f"warm in {time.perf_counter() - t0:.1f} s with {plural(n, 'process', 'processes')}")


def announcement(warming: scopa_sim.Warming) -> str:
    """The first line of ``warm``: what it compiles and about how long that takes, or that
    every kernel is cached (numba's cache index) and only loads."""
    tasks, n, seconds = warming.tasks, warming.processes, warming.seconds
    about = (
        "a second"
        if seconds < 1.5
        else f"{seconds:.0f} s"
        if seconds < 90
        else f"{seconds / 60:.0f} min"
    )
    if not warming.to_compile:
        return (
            f"the kernels of {plural(len(tasks), 'task')} are in numba's cache: "
            f"loading them to check, about {about}"
        )
    compiling, cached = warming.to_compile, len(warming.cached)
    names = f" ({', '.join(t.name for t in compiling)})" if cached else ""
    return (
        f"compiling {plural(len(compiling), 'task')} of kernels{names} in "
        f"{plural(n, 'process', 'processes')}, largest first: about {about} on 2 free cores, "
        "several times that on a busy machine"
        + (f"; {plural(cached, 'other task')} cached, loading" if cached else "")
    )
