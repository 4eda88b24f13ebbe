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

A command or benchmark that starts processes runs inside :func:`interrupt_on_sigterm`,
so that ``kill PID`` stops it as Ctrl-C does (its pool stopped, a one-line message);
one that starts a program with :mod:`subprocess` passes :func:`dies_with_parent` as
``preexec_fn``, so that the program is sent SIGTERM when its parent is killed.
"""

from __future__ import annotations

import ctypes
import itertools
import multiprocessing as mp
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

from scopa_sim.errors import WorkerError
from scopa_sim.sim import compiling

T = TypeVar("T")

#: Seconds between a worker process's checks that the process that started it is alive.
WATCH_SECONDS = 0.2
_WATCHED: dict[str, int] = {}  # in a worker process: the pids it watches


def watch(parent: int) -> None:
    """In a worker process: exit as soon as ``parent`` is gone (or this process is
    re-parented), checked by a watchdog thread every :data:`WATCH_SECONDS`. Called at
    the fork (:mod:`scopa_sim.sim._forkserver`) and again by the pool's initializer,
    which names the pool's owner; the watchdog starts once."""
    first = not _WATCHED
    _WATCHED.update(parent=parent, ppid=os.getppid())
    if first:
        threading.Thread(target=_watch_parent, name="parent-watchdog", daemon=True).start()


def _worker_start(
    parent: int,
    init: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    notices: compiling.Settings | None = None,
) -> None:
    """Set up a worker process: it ignores Ctrl-C and exits as soon as the process that
    started it is gone (:func:`watch`); it gives the compile notices its parent gives
    (:mod:`scopa_sim.sim.compiling`); then ``init(*initargs)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch(parent)
    if notices is not None:
        compiling.install(notices)
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


def progress_queue() -> Any:
    """A queue that the workers of a :func:`process_pool` started after it can be given
    (through its ``initargs``) to report to this process (``put``; ``get`` here): of the
    pool's start method's context."""
    method = "forkserver" if os.name == "posix" else "spawn"
    return mp.get_context(method).SimpleQueue()


def process_pool(
    workers: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes that die with this one (see the module's notes);
    ``initializer(*initargs)`` runs in each worker after its watchdog starts. Use it as a
    context manager, and pass work through :func:`stream` or :func:`ordered` (or call
    :func:`stop` on an error) so that the workers stop at once on an error or interrupt."""
    method = "forkserver" if os.name == "posix" else "spawn"
    if method == "forkserver":
        _start_forkserver()
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=mp.get_context(method),
        initializer=_worker_start,
        initargs=(os.getpid(), initializer, initargs, compiling.settings()),
    )


#: What the forkserver imports before it forks: the at-fork watchdog, and with it the
#: library (numba, the kernels' modules), which every worker then has from the fork.
FORKSERVER_PRELOAD = ["scopa_sim.sim._forkserver"]


def _start_forkserver() -> None:
    """Start the forkserver (if it is not running), preloading
    :data:`FORKSERVER_PRELOAD`, with Ctrl-C ignored.

    A worker is set up by the pool's initializer only after it has imported what its
    tasks need (a benchmark script's worker runs the whole script's imports first, since
    CPython 3.11's forkserver does not preload ``__main__``): seconds in which it
    would neither ignore Ctrl-C nor watch its parent. So the forkserver and its workers
    inherit SIGINT ignored (a terminal's Ctrl-C reaches the whole process group), and
    each worker starts its watchdog at the fork (:mod:`scopa_sim.sim._forkserver`)."""
    from multiprocessing import forkserver

    if threading.current_thread() is not threading.main_thread():
        forkserver.ensure_running()  # no handler can be set here: as it comes
        return
    mp.get_context("forkserver").set_forkserver_preload(FORKSERVER_PRELOAD)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        forkserver.ensure_running()
    finally:
        signal.signal(signal.SIGINT, previous)


#: Seconds :func:`stop` waits for a stopped process pool's manager thread to end.
STOP_JOIN_SECONDS = 5.0


def stop(pool: Any) -> None:
    """Stop ``pool`` now, its queued work cancelled: a process pool's workers are
    terminated (not left to finish their task); a thread pool's threads finish their
    current task.

    The shutdown comes first and does the cancelling: a process pool's manager thread
    then drops the queued work before it sees the workers end. A future cancelled here,
    before it, could still be queued when the manager marks the pool broken, and
    CPython 3.11 then sets an exception on the cancelled future, which raises
    ``InvalidStateError`` in that thread: a traceback on standard error after the
    one-line message of an interrupted command.

    Then the pool's manager thread is given up to :data:`STOP_JOIN_SECONDS` to end (it
    does within milliseconds once the workers are gone). Left running, it closes its
    wake-up pipe while the interpreter's exit handler of ``concurrent.futures`` writes to
    it (CPython 3.11 checks ``_closed`` and writes without a lock): an ``OSError: Bad file
    descriptor`` traceback after the command's one-line message."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # None once shut
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        proc.terminate()
    if manager is not None:
        manager.join(timeout=STOP_JOIN_SECONDS)


def _result(f: Future[T]) -> T:
    """``f``'s result, waited for in slices of :data:`SLICE_SECONDS` (see :func:`_wait`);
    a worker that died is a :class:`WorkerError`."""
    while not _wait({f}):
        pass
    try:
        return f.result()
    except BrokenProcessPool as e:
        raise WorkerError(f"a worker process died: {e}") from None


def _wait(pending: set[Future[T]]) -> set[Future[T]]:
    """The futures of ``pending`` finished within :data:`SLICE_SECONDS` (maybe none).

    The wait is in slices, never unbounded: a signal sent to the process (a terminal's
    Ctrl-C) is taken by whichever thread the kernel picks, and when that is not the main
    thread, a main thread blocked on a lock without a timeout is not woken: the
    ``KeyboardInterrupt`` waited for the next result (a block of searches: minutes), and
    a command seemed to ignore Ctrl-C. Woken every slice, the main thread raises it."""
    finished, _ = wait(pending, timeout=SLICE_SECONDS, return_when=FIRST_COMPLETED)
    return finished


def stream(
    pool: Any, fn: Callable[..., T], args: Iterable[tuple[Any, ...]], ahead: int
) -> Generator[T, None, None]:
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
            finished = _wait(pending)
            pending -= finished
            for f in finished:
                yield _result(f)
    except BaseException as e:
        _stopping(e)
        stop(pool)
        raise


def ordered(
    pool: Any, fn: Callable[..., T], args: Iterable[tuple[Any, ...]], ahead: int
) -> Generator[T, None, None]:
    """Like :func:`stream`, but the results come in the order of ``args``: ``fn(*a)`` for
    each ``a`` of ``args`` on ``pool``, with at most ``ahead`` tasks submitted and not yet
    yielded."""
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
    except BaseException as e:
        _stopping(e)
        stop(pool)
        raise


#: Whether an interrupt ends this process (set by :func:`end_on_interrupt`: a command
#: line). Only then does a pool stopped by one ignore further interrupts; in a library
#: caller's process (a notebook's kernel) Ctrl-C keeps working after an interrupted call.
_ENDS_ON_INTERRUPT = False


def end_on_interrupt() -> None:
    """Declare this process a front door that ends on an interrupt (the command line): a
    pool stopped by Ctrl-C or SIGTERM then ignores further ones (:func:`ignore_interrupts`)
    while it stops and the command ends, so that a second Ctrl-C cannot print a traceback
    from the clean-up. Without it, the process's signal handlers are never changed."""
    global _ENDS_ON_INTERRUPT
    _ENDS_ON_INTERRUPT = True


def _stopping(e: BaseException) -> None:
    """On an interrupt (Ctrl-C, or SIGTERM as :class:`Terminated`) in a process that ends
    on it (:func:`end_on_interrupt`): ignore further ones while the pool stops."""
    if isinstance(e, KeyboardInterrupt) and _ENDS_ON_INTERRUPT:
        ignore_interrupts()


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread by :func:`interrupt_on_sigterm`, so that a
    command stops as on Ctrl-C (what is finished kept, workers stopped, temporary files
    removed); a ``KeyboardInterrupt``, so that every clean-up for Ctrl-C runs for it too."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # once: let the clean-up finish
    raise Terminated()


@contextmanager
def interrupt_on_sigterm() -> Iterator[None]:
    """Inside: SIGTERM raises :class:`Terminated` in the main thread (the first one; later
    ones are ignored while the clean-up runs). Without it, SIGTERM ends Python at once:
    no ``finally`` runs, so a pool's workers are left to notice on their own and
    temporary files stay. Outside the main thread (where no handler can be set) it does
    nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def ignore_interrupts() -> None:
    """From now on, ignore Ctrl-C and SIGTERM in this process (from the main thread; elsewhere
    nothing): for a command ending after an interrupt, whose clean-up and exit (the
    pool's workers stopped, the interpreter's exit handlers, among them
    ``concurrent.futures``' join of its threads) a second Ctrl-C would otherwise break
    with a traceback."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


#: Seconds between the waiting thread's checks in :func:`interruptible`.
SLICE_SECONDS = 0.1
_ABANDONED: list[threading.Event] = []  # the "finished" flags of interrupted calls


def interruptible(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` on a worker thread while the calling thread waits for it in
    slices of :data:`SLICE_SECONDS`, so that Ctrl-C and SIGTERM (as
    :func:`interrupt_on_sigterm` turns it into :class:`Terminated`) interrupt the wait
    within a slice even while ``fn`` is in a long jitted search.

    A Python thread handles signals only in the main thread, between bytecodes: a search
    kernel called there holds it for the whole search (``advise`` ignored Ctrl-C for as
    long).  The search kernels release the GIL (``nogil=True``), so the worker thread
    runs them while this one keeps waking up.  An error in ``fn`` is raised here; on an
    interrupt the worker, which cannot be stopped inside a kernel, is left running, and
    :func:`abandoned` tells the process to end without waiting for it.

    The worker threads are kept and reused (starting a thread costs about a millisecond,
    more than a small search): a call takes an idle one or starts one; a worker left
    running by an interrupt ends once its call returns and is never reused.

    The wait is on an event the worker sets, not ``Thread.join``: CPython 3.11's join,
    interrupted by a signal, can mark a thread that still runs as stopped (its
    bpo-45274 clean-up), and ``is_alive`` then says False."""
    with _IDLE_LOCK:
        worker = _IDLE.pop() if _IDLE else None
    if worker is None:
        worker = _Worker()
    box: dict[str, Any] = {}
    finished = threading.Event()
    worker.calls.append((fn, args, kwargs, box, finished))
    worker.wake.release()
    try:
        while not finished.wait(SLICE_SECONDS):
            pass
    except BaseException:
        _ABANDONED.append(finished)
        worker.calls.append(None)  # it ends after the call it runs
        worker.wake.release()
        raise
    with _IDLE_LOCK:
        _IDLE.append(worker)
    if "error" in box:
        error: BaseException = box["error"]
        raise error
    value: T = box["value"]
    return value


class _Worker:
    """A daemon thread running the calls :func:`interruptible` hands it, one at a time,
    until it is handed None."""

    def __init__(self) -> None:
        self.calls: deque[Any] = deque()
        self.wake = threading.Semaphore(0)
        threading.Thread(target=self._loop, name="interruptible", daemon=True).start()

    def _loop(self) -> None:
        while True:
            self.wake.acquire()
            call = self.calls.popleft()
            if call is None:
                return
            fn, args, kwargs, box, finished = call
            try:
                box["value"] = fn(*args, **kwargs)
            except BaseException as e:  # raised again in the waiting thread
                box["error"] = e
            finally:
                del fn, args, kwargs, call
                finished.set()


_IDLE: list[_Worker] = []  # the workers waiting for a call
_IDLE_LOCK = threading.Lock()


def abandoned() -> bool:
    """Whether a call of :func:`interruptible` was left running by an interrupt: the
    process must then end at once (``os._exit``), not wait for it, nor tear numba down
    under it."""
    return any(not finished.is_set() for finished in _ABANDONED)


#: ``prctl`` option: the signal a process gets when the thread that started it ends.
_PR_SET_PDEATHSIG = 1


def dies_with_parent() -> Callable[[], None]:
    """A ``preexec_fn`` for :class:`subprocess.Popen` (``subprocess.run``): on Linux the
    program started is sent SIGTERM when the thread that started it ends, ``kill -9`` of
    its parent included, so that a benchmark killed mid-run leaves no ``scopa-sim`` it
    started running (that one then stops its own workers). Elsewhere it does nothing.
    Start the program from the main thread: the signal follows the starting thread."""
    parent = os.getpid()
    try:  # looked up here: no dlopen in the child, forked from a process with threads
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux
        prctl = None

    def preexec() -> None:
        if prctl is None:
            return
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the request was made
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


__all__ = [
    "FORKSERVER_PRELOAD",
    "SLICE_SECONDS",
    "WATCH_SECONDS",
    "Terminated",
    "abandoned",
    "dies_with_parent",
    "end_on_interrupt",
    "ignore_interrupts",
    "interrupt_on_sigterm",
    "interruptible",
    "ordered",
    "parent_gone",
    "process_pool",
    "progress_queue",
    "stop",
    "stream",
    "watch",
]
