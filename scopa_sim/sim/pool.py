"""The one process pool: worker processes that die with their parent.

Every command and benchmark that computes in several processes (``simulate``, ``warm``,
``tournament``, ``review --workers``, the benchmarks) takes its processes from
:func:`process_pool` and hands work to them through :func:`stream` or :func:`ordered`, so
that they all behave alike:

* a worker ignores Ctrl-C (its parent stops it, after saving what is done) and exits as
  soon as the process that started it is gone, ``kill -9`` included: a watchdog thread
  checks every :data:`WATCH_SECONDS`, and work that writes files asks :func:`parent_gone`
  before it writes;
* an error, Ctrl-C or SIGTERM (which the commands turn into ``KeyboardInterrupt``) in the
  parent cancels the queued work and terminates the workers at once, not after their
  current task;
* processes start from a ``forkserver`` (``spawn`` where there is none), never by a fork
  of a parent that holds threads.
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, TypeVar

from scopa_sim.errors import WorkerError

T = TypeVar("T")

#: Seconds between a worker process's checks that the process that started it is alive.
WATCH_SECONDS = 0.2
_WATCHED: dict[str, int] = {}  # in a worker process: the pids it watches


def _worker_start(
    parent: int, init: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()
) -> None:
    """Set up a worker process: it ignores Ctrl-C and exits as soon as the process that
    started it is gone, checked by a watchdog thread; then ``init(*initargs)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WATCHED.update(parent=parent, ppid=os.getppid())
    threading.Thread(target=_watch_parent, name="parent-watchdog", daemon=True).start()
    if init is not None:
        init(*initargs)


def parent_gone() -> bool:
    """In a worker process: whether the process that started it has ended: its pid is
    gone, or a zombie (killed, not yet reaped), or the worker was re-parented. Always
    False outside a worker of this pool."""
    if not _WATCHED:
        return False
    if os.getppid() != _WATCHED["ppid"]:
        return True
    parent = _WATCHED["parent"]
    try:  # Linux: a killed parent is a zombie until its own parent reaps it
        state = Path(f"/proc/{parent}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state in ("Z", "X")
    except FileNotFoundError:
        return True
    except (OSError, IndexError):  # no /proc: whether the pid exists
        pass
    try:
        os.kill(parent, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's (a reused pid): not ours, but alive
        pass
    return False


def _watch_parent() -> None:
    while not parent_gone():
        time.sleep(WATCH_SECONDS)
    os._exit(1)


def process_pool(
    workers: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes that die with this one (see the module's notes);
    ``initializer(*initargs)`` runs in each worker after its watchdog starts. Use it as a
    context manager, and pass work through :func:`stream` or :func:`ordered` (or call
    :func:`stop` on an error) so that the workers stop at once on an error or interrupt."""
    ctx = mp.get_context("forkserver" if os.name == "posix" else "spawn")
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=ctx,
        initializer=_worker_start,
        initargs=(os.getpid(), initializer, initargs),
    )


def stop(pool: Any, pending: Iterable[Future[Any]] = ()) -> None:
    """Cancel ``pending`` and stop ``pool`` now: a process pool's workers are terminated
    (not left to finish their task); a thread pool's threads finish their current task."""
    for f in pending:
        f.cancel()
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def _result(f: Future[T]) -> T:
    try:
        return f.result()
    except BrokenProcessPool as e:
        raise WorkerError(f"a worker process died: {e}") from None


def stream(
    pool: Any, fn: Callable[..., T], args: Iterable[tuple[Any, ...]], ahead: int
) -> Iterator[T]:
    """``fn(*a)`` for each ``a`` of ``args`` on ``pool``, yielded as they finish, with at
    most ``ahead`` tasks submitted and not yet yielded (``args`` is read lazily, so it may
    be endless). Closing the iterator, an error or an interrupt stops the pool."""
    pending: set[Future[T]] = set()
    queue = iter(args)
    try:
        while True:
            for a in itertools.islice(queue, max(0, ahead - len(pending))):
                pending.add(pool.submit(fn, *a))
            if not pending:
                return
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                yield _result(f)
    except BaseException:
        stop(pool, pending)
        raise


def ordered(
    pool: Any, fn: Callable[..., T], args: Iterable[tuple[Any, ...]], ahead: int
) -> Iterator[T]:
    """Like :func:`stream`, but the results come in the order of ``args``."""
    pending: deque[Future[T]] = deque()
    queue = iter(args)
    try:
        for a in itertools.islice(queue, ahead):
            pending.append(pool.submit(fn, *a))
        while pending:
            done = _result(pending.popleft())
            for a in itertools.islice(queue, 1):
                pending.append(pool.submit(fn, *a))
            yield done
    except BaseException:
        stop(pool, pending)
        raise


__all__ = ["WATCH_SECONDS", "ordered", "parent_gone", "process_pool", "stop", "stream"]
