"""The kernels compiled ahead of use: :func:`warm` (the ``warm`` command) and
:func:`warm_tasks`; and :func:`compile_notices`, which says when a kernel compiles on
first use instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scopa_sim.api.display import box, esc, first_few, table
from scopa_sim.api.inputs import one_line_errors
from scopa_sim.errors import WarmError

if TYPE_CHECKING:
    from scopa_sim.sim.warm import WarmTask


@dataclass(frozen=True, repr=False)
class Warming:
    """The kernels :func:`warm` compiles: ``tasks`` largest first, in ``jobs`` processes;
    iterate to compile them, each task with its seconds as it finishes. ``cached``: the
    tasks whose kernels numba's cache already holds (read from its index when the
    warming is made), which only load them; when every task is cached they run in this
    process (starting processes would take longer than the loading)."""

    tasks: tuple[WarmTask, ...]
    jobs: int
    cached: tuple[WarmTask, ...] = ()

    @property
    def to_compile(self) -> tuple[WarmTask, ...]:
        """The tasks whose kernels are not all cached, largest first."""
        return tuple(t for t in self.tasks if t not in self.cached)

    @property
    def processes(self) -> int:
        """The processes the tasks run in: 1 when every kernel is cached, else ``jobs``
        (at most the tasks)."""
        return 1 if not self.to_compile else min(self.jobs, len(self.tasks))

    @property
    def seconds(self) -> float:
        """About how long the warming takes on 2 free cores: the compile times of the
        tasks not cached, shared among the processes, and about a second for each
        cached one."""
        from scopa_sim.sim.warm import LOAD_SECONDS

        costs = [LOAD_SECONDS if t in self.cached else t.cost for t in self.tasks]
        return max(sum(costs) / self.processes, max(costs))

    def __iter__(self) -> Iterator[tuple[WarmTask, float]]:
        from scopa_sim.sim.warm import warm as compile_tasks

        return compile_tasks([t.name for t in self.tasks], self.processes)

    def __repr__(self) -> str:
        """``Warming(14 tasks in 2 processes, about 130 s: ismcts, ismcts15, ...)``."""
        names = first_few([t.name for t in self.tasks], 4, ", ")
        return (f"Warming({len(self.tasks)} task(s) in {self.jobs} process(es), about "
                f"{self.seconds:.0f} s: {names})")  # fmt: skip

    def _repr_html_(self) -> str:
        """The tasks as a table: name, what it compiles, its cost."""
        rows = [[esc(t.name), esc(t.summary), f"{t.cost:.0f}"] for t in self.tasks]
        title = f"scopa-sim warm-up: {len(self.tasks)} task(s) in {self.jobs} process(es)"
        return box(title, table(["task", "compiles", "seconds"], rows))


def warm_tasks() -> tuple[WarmTask, ...]:
    """Every warm-up task (name, what it compiles, its cost), in the order of
    :data:`scopa_sim.sim.warm.TASKS`."""
    from scopa_sim.sim.warm import TASKS

    return tuple(TASKS.values())


def compile_notices(
    write: Callable[[str], None] | None = None,
) -> AbstractContextManager[None]:
    """A context in which a kernel compiled on first use is announced in one line (with
    ``write``, default standard error), in this process and in the workers of the process
    pools started inside it, each group of kernels once (:mod:`scopa_sim.sim.compiling`)."""
    from scopa_sim.sim.compiling import notices

    return notices(write)


@one_line_errors
def warm(tasks: Iterable[str] = (), jobs: int | None = None) -> Warming:
    """The kernels of ``tasks`` (task names, default all: :func:`warm_tasks`) to compile
    into numba's on-disk cache in ``jobs`` processes (default: the cores, at most the
    tasks), as ``scopa-sim warm`` does; iterate the result to compile them. The result
    says which tasks are cached already (:attr:`Warming.cached`) and about how long the
    whole takes (:attr:`Warming.seconds`).

    Raises WarmError (an unknown task, a number of processes below 1)."""
    from scopa_sim.sim.warm import cached, select

    if isinstance(tasks, str):  # one name, not its letters
        tasks = (tasks,)
    chosen = tuple(select(tuple(tasks)))
    if jobs is not None and (type(jobs) is not int or jobs < 1):
        raise WarmError(f"the number of processes must be at least 1, got {jobs!r}")
    n = jobs if jobs is not None else max(1, min(os.cpu_count() or 1, len(chosen)))
    return Warming(chosen, n, tuple(t for t in chosen if cached(t)))


__all__ = ["Warming", "compile_notices", "warm", "warm_tasks"]
