"""The board's background work: jobs of stages run in a worker process of the project's
one pool (:func:`scopa_sim.sim.pool.process_pool`), so that the server never waits for an
evaluation and a cancel stops one at once.

* A **job** belongs to a page and has a kind (``analyse``, ``holdings``, ``review``,
  ``bot``, ``puzzles``); a page has at most one job of each kind: a new one replaces
  (cancels) the one before, so one analysis at a time runs per page.  Jobs of different
  pages queue in the pool, first come first served.
* A job is a list of **stages** (:class:`Stage`), each a function of
  :mod:`scopa_sim.board.work` run in the worker; the page polls the job and shows the
  latest stage's result (:meth:`Job.as_dict`) with the progress, so the first values
  are on screen as soon as the first stage ends.
* **Cancel** drops a job's stages not started; a stage already running in the worker is
  stopped by terminating the worker (:func:`scopa_sim.sim.pool.stop`). A *cheap* one (the
  first, small stage of an analysis) is given :data:`CHEAP_GRACE` seconds to end by
  itself, its result dropped (a new worker must load the kernels again, which costs more
  than such a stage), and stopped as any other if it runs on: every cancel stops its
  stage within a second.  Stages of other jobs caught by a terminated worker are
  submitted again on the new one; a worker that dies by itself (out of memory, killed)
  fails the job with a one-line message.
* **Bounds**: a job is stopped (an error on its page) after :data:`MAX_JOB_SECONDS`, and
  cancelled when its page has not asked for it for :data:`ABANDON_SECONDS` (the page was
  closed).
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from scopa_sim.errors import BoardError, ScopaError
from scopa_sim.sim import pool as P

log = logging.getLogger("scopa_sim.board")

#: Jobs queued or running at once (all pages); more is a 429 until some finish.
MAX_ACTIVE = 32
#: Finished jobs kept for the pages to read.
KEEP_FINISHED = 200
#: Times a stage is submitted again after the worker was replaced under it.
RETRIES = 3
#: Seconds a cancelled cheap stage may run on before its worker is stopped.
CHEAP_GRACE = 0.5
#: The longest a job may run (seconds), and how long it runs on once its page has
#: stopped asking for it (seconds without a poll).
MAX_JOB_SECONDS = 300.0
ABANDON_SECONDS = 20.0
#: The longest the shutdown waits for the pool to release its queues (seconds).
CLOSE_SECONDS = 2.0
#: How often the running jobs are checked against those bounds (seconds).
SWEEP_SECONDS = 1.0


class Busy(BoardError):
    """Too many jobs queued: the server answers 429."""


@dataclass(frozen=True)
class Stage:
    """One step of a job: ``fn(*args)`` in the worker; ``weight`` its share of the
    progress; ``label`` what the page says it computes; ``cheap``: let it finish on a
    cancel rather than stop the worker."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]
    weight: float = 1.0
    label: str = ""
    cheap: bool = False


@dataclass(eq=False)
class Job:
    """A job and what the page reads of it (:meth:`as_dict`)."""

    id: str
    page: str
    kind: str
    stages: list[Stage]
    merge: Callable[[Any, Any], Any] | None = None
    status: str = "queued"  # queued, running, done, cancelled, error
    stage: int = 0
    done_weight: float = 0.0
    result: Any = None
    error: str | None = None
    started: float = field(default_factory=time.monotonic)
    first: float | None = None  # seconds from start to the first stage's result
    future: Future[Any] | None = None
    running: Stage | None = None
    seen: float = field(default_factory=time.monotonic)  # the page's last poll

    @property
    def finished(self) -> bool:
        return self.status in ("done", "cancelled", "error")

    def as_dict(self) -> dict[str, Any]:
        total = sum(s.weight for s in self.stages) or 1.0
        return {
            "id": self.id,
            "kind": self.kind,
            "status": self.status,
            "final": self.finished,
            "progress": 1.0 if self.status == "done" else self.done_weight / total,
            "stage": self.stage + (self.status == "done"),
            "stages": len(self.stages),
            "label": self.stages[min(self.stage, len(self.stages) - 1)].label,
            "result": self.result,
            "error": self.error,
            "first_seconds": self.first,
        }


class Jobs:
    """The jobs of one server and the worker pool they run in (``workers`` processes)."""

    def __init__(self, workers: int = 1, warm: Callable[[], Any] | None = None) -> None:
        self.workers = workers
        self._warm = warm
        self._pool: Any = None
        self._generation = 0
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._current: dict[tuple[str, str], Job] = {}
        self._ids = itertools.count(1)
        self.restarts = 0
        self.max_seconds, self.abandon_seconds = MAX_JOB_SECONDS, ABANDON_SECONDS
        self._sweeping = False
        self._tasks: set[asyncio.Task[None]] = set()

    # -- the pool --------------------------------------------------------------------
    def pool(self) -> Any:
        """The worker pool, started (and warmed) on first use or after a restart."""
        if self._pool is None:
            self._pool = P.process_pool(self.workers)
            if self._warm is not None:
                self._pool.submit(self._warm).add_done_callback(_quiet)
        return self._pool

    def _restart(self) -> None:
        """Terminate the workers (their stages with them) and start new ones."""
        if self._pool is not None:
            P.stop(self._pool)
        self._pool = None
        self._generation += 1
        self.restarts += 1
        self.pool()

    def close(self) -> None:
        """Stop everything: the jobs' tasks and the workers (the server's shutdown)."""
        for job in self._jobs.values():
            if not job.finished:
                job.status = "cancelled"
        pool, self._pool = self._pool, None
        if pool is not None:
            P.stop(pool)
            # its manager thread closes the pool's queues once the workers are gone: waited
            # for, so that their semaphores are released before the process ends
            manager = getattr(pool, "_executor_manager_thread", None)
            if manager is not None:
                manager.join(CLOSE_SECONDS)
            del pool, manager
            gc.collect()  # the queues' semaphores are unregistered as they are collected

    # -- jobs ------------------------------------------------------------------------
    def start(
        self,
        page: str,
        kind: str,
        stages: list[Stage],
        merge: Callable[[Any, Any], Any] | None = None,
    ) -> Job:
        """A new job of ``page`` (replacing its job of the same kind), started at once
        (call from the event loop)."""
        previous = self._current.get((page, kind))
        if previous is not None and not previous.finished:
            self.cancel(previous.id)
        if sum(1 for j in self._jobs.values() if not j.finished) >= MAX_ACTIVE:
            raise Busy(f"the board is busy: {MAX_ACTIVE} jobs are queued; try again shortly")
        job = Job(f"{kind}-{next(self._ids)}", page, kind, stages, merge)
        self._jobs[job.id] = job
        self._current[(page, kind)] = job
        self._forget()
        loop = asyncio.get_running_loop()
        task = loop.create_task(self._run(job))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if not self._sweeping:
            self._sweeping = True
            loop.call_later(SWEEP_SECONDS, self._sweep)
        return job

    def get(self, job_id: str) -> Job:
        """A job by its id (the page's poll: it keeps the job alive)."""
        job = self._jobs.get(job_id)
        if job is None:
            shown = job_id if len(job_id) <= 40 and job_id.isprintable() else "of that name"
            raise BoardError(f"no job {shown} (finished jobs are kept a while only)")
        job.seen = time.monotonic()
        return job

    def _sweep(self) -> None:
        """Stop the jobs over :data:`MAX_JOB_SECONDS` and those no page polls any more;
        again every :data:`SWEEP_SECONDS` while jobs run."""
        now = time.monotonic()
        active = [j for j in self._jobs.values() if not j.finished]
        for job in active:
            if now - job.started > self.max_seconds:
                self.cancel(job.id)
                job.status = "error"
                job.error = (
                    f"stopped after {self.max_seconds:.0f} s, the board's limit for a job: "
                    "give a smaller budget (or use the command line)"
                )
            elif now - job.seen > self.abandon_seconds:
                self.cancel(job.id)
                job.error = "cancelled: its page stopped asking for it"
        if any(not j.finished for j in self._jobs.values()):
            asyncio.get_running_loop().call_later(SWEEP_SECONDS, self._sweep)
        else:
            self._sweeping = False

    def cancel(self, job_id: str) -> Job:
        """Cancel a job: its stages not started are dropped, a running one stopped (see
        the module docstring)."""
        job = self.get(job_id)
        if job.finished:
            return job
        job.status = "cancelled"
        fut = job.future
        running = fut is not None and not fut.done() and not fut.cancel()
        if running and job.running is not None and job.running.cheap:
            generation = self._generation
            asyncio.get_running_loop().call_later(CHEAP_GRACE, self._stop_if, fut, generation)
        elif running:
            self._restart()
        return job

    def _stop_if(self, fut: Future[Any] | None, generation: int) -> None:
        """Stop the workers if the cancelled stage ``fut`` still runs on them."""
        if fut is not None and not fut.done() and generation == self._generation:
            self._restart()

    def _forget(self) -> None:
        finished = [k for k, j in self._jobs.items() if j.finished]
        for key in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            job = self._jobs.pop(key)
            if self._current.get((job.page, job.kind)) is job:
                del self._current[(job.page, job.kind)]

    async def _run(self, job: Job) -> None:
        total = 0.0
        for i, stage in enumerate(job.stages):
            if job.finished:
                return
            job.stage = i
            ok, value = await self._stage(job, stage)
            if not ok or job.finished:
                return
            job.result = job.merge(job.result, value) if job.merge else value
            if job.first is None:
                job.first = time.monotonic() - job.started
            total += stage.weight
            job.done_weight = total
        job.status = "done"

    async def _stage(self, job: Job, stage: Stage) -> tuple[bool, Any]:
        """Run one stage; ``(False, None)`` when the job ended (cancelled or failed)."""
        for _attempt in range(RETRIES):
            generation = self._generation
            try:
                fut = self.pool().submit(stage.fn, *stage.args)
            except RuntimeError:  # the pool was shut down under us: a new one
                self._pool = None
                continue
            job.future, job.running = fut, stage
            if job.status == "queued":
                job.status = "running"
            try:
                return True, await asyncio.wrap_future(fut)
            except (BrokenProcessPool, FutureCancelled, asyncio.CancelledError) as e:
                if isinstance(e, asyncio.CancelledError) and not fut.cancelled():
                    raise  # this task itself is cancelled (the server stops)
                if job.finished:
                    return False, None
                if generation == self._generation:  # the worker died by itself
                    self._restart()
                    job.status, job.error = "error", "the worker process died; try again"
                    return False, None
                continue  # the workers were replaced for another job: again on the new
            except ScopaError as e:
                job.status, job.error = "error", str(e)
                return False, None
            except MemoryError:
                job.status, job.error = "error", "not enough memory for this analysis"
                return False, None
            except Exception as e:  # a bug: one line on the page, the traceback logged
                log.exception("job %s failed", job.id)
                job.status, job.error = "error", f"internal error: {type(e).__name__}: {e}"
                return False, None
            finally:
                job.future = job.running = None
        job.status, job.error = "error", "the worker was restarted too often; try again"
        return False, None


def _quiet(fut: Future[Any]) -> None:
    """Read a warm-up's outcome (a terminated pool's error is expected)."""
    if not fut.cancelled():
        fut.exception()


__all__ = ["Busy", "Job", "Jobs", "Stage"]
