"""Where a run's shards are computed: on this machine (in this process, in threads, or in
the process pool of :mod:`scopa_sim.sim.pool`) or as tasks on a Dask cluster. An executor
takes a :class:`~scopa_sim.sim.shards.RunWriter`, the shards to do and a ``done(shard,
units)`` callback (or None), and yields each :class:`~scopa_sim.sim.shards.ShardResult` as
it finishes; ``done`` is told of a shard's units as they are computed, before the shard
finishes, from any thread (the local executor's workers through a queue, a Dask
cluster's through the scheduler's event log: see :func:`dask_executor`)."""

from __future__ import annotations

import contextlib
import functools
import gc
import itertools
import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from scopa_sim.errors import ScopaError, SimulationError
from scopa_sim.sim import pool as P
from scopa_sim.sim.shards import RunWriter, ShardResult, run_shard, run_shard_json

#: ``done(shard, units)``: units of a shard computed, before the shard finishes.
Done = Callable[[int, int], None]
#: An executor: computes the shards ``todo`` of a run, yielding each as it finishes, and
#: tells ``done`` (when not None) of their units as they are computed.
Executor = Callable[[RunWriter, Iterable[int], Done | None], Iterator[ShardResult]]


def local_executor(workers: int) -> Executor:
    """Shards on ``workers`` cores of this machine: in this process when ``workers == 1``;
    else in threads when every policy is a kernel policy (the jitted loop runs without the
    GIL and so does the Parquet writer, so threads scale without starting processes that
    must import and load the kernels), or in processes for search policies (which run
    Python between kernel calls). At most two shards a worker are queued at a time. On an
    interrupt, worker processes are stopped at once (threads finish their shard, a
    fraction of a second). Worker processes tell ``done`` of their units through a queue
    that a thread of this process reads."""

    def execute(run: RunWriter, todo: Iterable[int], done: Done | None) -> Iterator[ShardResult]:
        config, where = run.config, str(run.directory)

        def told(i: int) -> Callable[[int], None] | None:
            return None if done is None else functools.partial(done, i)

        if workers == 1:
            for i in todo:
                yield run_shard(config, i, where, told(i))
            return
        if config.is_kernel:  # threads share the configuration as it is
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="shard") as threads:
                shards = ((config, i, where, told(i)) for i in todo)
                yield from P.stream(threads, run_shard, shards, 2 * workers)
            return
        # worker processes get its JSON form, and report through a queue
        queue = P.progress_queue() if done is not None else None
        stop = threading.Event()
        reader = _read_progress(queue, done, stop) if queue is not None and done else None
        doc, report = config.to_json(), queue is not None
        try:
            with P.process_pool(workers, _set_progress_queue, (queue,)) as pool:
                jobs = ((doc, i, where, report) for i in todo)
                yield from P.stream(pool, _run_shard_reporting, jobs, 2 * workers)
        finally:
            stop.set()
            if reader is not None:
                reader.join(timeout=1)

    return execute


_QUEUE: list[Any] = []  # in a worker process: the queue its shards report to


def _set_progress_queue(queue: Any) -> None:
    """A worker process's initializer: the queue its shards report their units to."""
    _QUEUE[:] = [queue] if queue is not None else []


def _run_shard_reporting(doc: dict[str, Any], index: int, directory: str, report: bool) -> Any:
    """A worker process's task: :func:`run_shard_json`, reporting ``(index, units)`` to
    the queue of :func:`_set_progress_queue` as units are computed when ``report``."""
    done = None
    if report and _QUEUE:
        queue = _QUEUE[0]

        def done(n: int) -> None:
            queue.put((index, n))

    return run_shard_json(doc, index, directory, done)


def _read_progress(queue: Any, done: Done, stop: threading.Event) -> threading.Thread:
    """A thread that passes each ``(shard, units)`` of ``queue`` to ``done`` until
    ``stop`` is set. This process never writes to the queue: a worker stopped while
    writing may hold its lock."""

    def read() -> None:
        while not stop.is_set():
            try:
                if queue.empty():
                    time.sleep(0.05)
                    continue
                item = queue.get()
            except (EOFError, OSError):
                return
            done(*item)

    thread = threading.Thread(target=read, name="shard-progress", daemon=True)
    thread.start()
    return thread


#: The topic of the Dask scheduler's event log that shards report their units under, as
#: ``[token, shard, units so far]``: one topic for every run, so that the scheduler keeps
#: one log of them, whose length it caps; a run tells its own reports by its token.
DASK_PROGRESS_TOPIC = "scopa-sim-progress"
#: Seconds between two reports of a shard on a Dask worker, at least.
DASK_REPORT_SECONDS = 0.2


def _run_shard_dask(doc: dict[str, Any], index: int, directory: str, token: str) -> ShardResult:
    """A Dask task: :func:`run_shard_json`, logging ``[token, index, units so far]`` under
    :data:`DASK_PROGRESS_TOPIC` as units are computed, at most every
    :data:`DASK_REPORT_SECONDS` (the rest is told when the shard finishes). A log is a
    message on the worker's batched stream to the scheduler: it never waits for the
    scheduler, and a report that cannot be sent ends the reports, never the shard. Run
    outside a worker, the shard reports nothing."""
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):
        return run_shard_json(doc, index, directory)
    so_far, last, sending = 0, 0.0, True

    def done(n: int) -> None:
        nonlocal so_far, last, sending
        so_far += n
        now = time.monotonic()
        if sending and now - last >= DASK_REPORT_SECONDS:
            last = now
            try:
                worker.log_event(DASK_PROGRESS_TOPIC, [token, index, so_far])
            except Exception:  # a closing worker: the shard goes on without reports
                sending = False

    return run_shard_json(doc, index, directory, done)


class _DaskReports:
    """The units so far of a run's shards on a Dask cluster, as their tasks log them
    (:func:`_run_shard_dask`), passed on to ``done`` as increments. ``take`` is the
    client's event handler (it runs on the client's event loop and only queues the
    reports of this run's ``token``); ``pass_on`` runs on the executor's thread. A shard
    counts as the most units any report of it gave: a shard that Dask computes again
    (its worker lost) reports from zero again, and those reports add nothing until they
    pass what was told, so that the count never goes back nor exceeds the shard's
    units. Reports of shards not in flight (finished, or of another run) are dropped."""

    def __init__(self, token: str, done: Done) -> None:
        self.token = token
        self.done = done
        self.queued: deque[tuple[int, int]] = deque()
        self.told: dict[int, int] = {}  # shard in flight -> units told so far

    def take(self, event: Any) -> None:
        """The event handler: ``event`` is ``(time, [token, shard, units so far])``."""
        msg = event[1] if isinstance(event, (tuple, list)) and len(event) == 2 else None
        if isinstance(msg, (tuple, list)) and len(msg) == 3 and msg[0] == self.token:
            self.queued.append((int(msg[1]), int(msg[2])))

    def start(self, shard: int) -> None:
        """``shard`` is in flight: its reports count."""
        self.told[shard] = 0

    def finish(self, shard: int) -> None:
        """``shard`` has finished: its later reports are dropped."""
        self.told.pop(shard, None)

    def pass_on(self) -> None:
        """Tell ``done`` of the units the queued reports add."""
        while self.queued:
            shard, so_far = self.queued.popleft()
            before = self.told.get(shard)
            if before is not None and so_far > before:
                self.told[shard] = so_far
                self.done(shard, so_far - before)


#: Seconds the Dask executor waits for a worker by default (``--worker-timeout``).
DEFAULT_WORKER_TIMEOUT = 60.0
#: Seconds between the Dask executor's checks for finished shards and live workers.
DASK_POLL_SECONDS = 0.5
#: Seconds between them when the progress is followed: its reports are passed on then.
DASK_PROGRESS_POLL_SECONDS = 0.25


def dask_executor(
    scheduler: str | None,
    workers: int,
    worker_timeout: float = DEFAULT_WORKER_TIMEOUT,
    notify: Callable[[str], None] | None = None,
) -> Executor:
    """Shards as tasks on a Dask distributed cluster (a LocalCluster when no address), at
    most two a worker thread in flight. With no worker (none has joined, or all have
    gone) it says that it is waiting (``notify``) and gives up with a SimulationError
    after ``worker_timeout`` seconds without one. When ``done`` is given, the tasks log
    their units as they are computed to the scheduler's event log
    (:data:`DASK_PROGRESS_TOPIC`, several times a second), which the client follows
    (``Client.subscribe_topic``); ``done`` is told of them on the executor's thread,
    every :data:`DASK_PROGRESS_POLL_SECONDS` at most (see :class:`_DaskReports`).

    Raises:
        SimulationError: dask is not installed, a bad or unreachable scheduler address, no
            worker within ``worker_timeout`` seconds.
    """
    try:
        from distributed import Client, LocalCluster
        from distributed import wait as dask_wait
    except ImportError:
        raise SimulationError(
            "--executor dask needs the dask[distributed] package (pip install 'dask[distributed]')"
        ) from None
    if scheduler is not None:
        check_scheduler_address(scheduler)
    say = notify or (lambda message: None)

    def connect() -> tuple[Any, Any]:
        if not scheduler:
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                # The workers' own log at ERROR: a run stopped by Ctrl-C or an error
                # cancels its tasks, which they would each report as a warning above the
                # command's one-line message. Their errors still reach the command.
                silence_logs=logging.ERROR,
            )
            return Client(cluster), cluster
        try:
            return Client(scheduler, timeout="3s"), None
        except (OSError, TimeoutError, ValueError, TypeError) as e:
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            del e
            gc.collect()  # the half-made client's clean-up, now rather than at a random point
            raise SimulationError(
                f"cannot reach the Dask scheduler at {scheduler}: {first}"
            ) from None

    def wait_for_workers(client: Any, where: str) -> None:
        if client.nthreads():
            return
        say(f"waiting for Dask workers at {where} (giving up after {worker_timeout:g} s)")
        try:
            client.wait_for_workers(1, timeout=worker_timeout)
        except (TimeoutError, OSError):
            raise SimulationError(
                f"no Dask worker at {where} within {worker_timeout:g} s (--worker-timeout)"
            ) from None

    def execute(run: RunWriter, todo: Iterable[int], told: Done | None) -> Iterator[ShardResult]:
        client, cluster = connect()
        try:
            with client:
                where = scheduler or "the local cluster"
                wait_for_workers(client, where)
                doc, directory = run.config.to_json(), str(run.directory.resolve())
                reports = _DaskReports(uuid.uuid4().hex, told) if told is not None else None
                poll = DASK_POLL_SECONDS if reports is None else DASK_PROGRESS_POLL_SECONDS
                queue = iter(todo)
                pending: set[Any] = set()
                alone_since: float | None = None  # when the cluster was last seen workerless
                if reports is not None:
                    client.subscribe_topic(DASK_PROGRESS_TOPIC, reports.take)
                try:
                    while True:
                        room = 2 * max(1, sum(client.nthreads().values())) - len(pending)
                        for i in itertools.islice(queue, max(0, room)):
                            key = f"shard-{run.config.run_id}-{i}"
                            if reports is None:
                                task = client.submit(run_shard_json, doc, i, directory, key=key)
                            else:
                                reports.start(i)
                                task = client.submit(
                                    _run_shard_dask, doc, i, directory, reports.token, key=key
                                )
                            pending.add(task)
                        if not pending:
                            break
                        try:
                            done, left = dask_wait(
                                pending, timeout=poll, return_when="FIRST_COMPLETED"
                            )
                        except TimeoutError:
                            done, left = set(), pending
                        pending = set(left)
                        if reports is not None:
                            reports.pass_on()
                        for fut in done:
                            res = _dask_result(fut)
                            if res is None:  # lost with its worker: computed again
                                pending.add(fut)
                                continue
                            if reports is not None:
                                reports.finish(res.index)
                            yield res
                        if done or client.nthreads():
                            alone_since = None
                        elif alone_since is None:
                            alone_since = time.monotonic()
                            say(
                                f"no Dask worker left at {where}: waiting for one (giving "
                                f"up after {worker_timeout:g} s)"
                            )
                        elif time.monotonic() - alone_since > worker_timeout:
                            raise SimulationError(
                                f"every Dask worker at {where} has gone and none joined "
                                f"within {worker_timeout:g} s (--worker-timeout)"
                            )
                finally:
                    for fut in pending:
                        fut.cancel()
                    if reports is not None:
                        _unsubscribe(client, DASK_PROGRESS_TOPIC)
        finally:
            if cluster is not None:
                cluster.close()

    return execute


def _unsubscribe(client: Any, topic: str) -> None:
    """Stop following ``topic`` (a message queued for the scheduler, never awaited); a
    client already closed (its scheduler gone) follows nothing."""
    from distributed.client import ClosedClientError

    with contextlib.suppress(ClosedClientError, ValueError):
        client.unsubscribe_topic(topic)


def check_scheduler_address(address: str) -> None:
    """A SimulationError unless ``address`` is a Dask scheduler address that could be
    reached (a known scheme, and a host and port for network schemes); checked before a
    client is made, since a client that fails to start can deadlock when collected.

    Raises:
        SimulationError: an address that is not one of a Dask scheduler.
    """
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    hint = "expected e.g. tcp://host:8786"
    try:
        scheme, where = parse_address(address)
        get_backend(scheme)
        if scheme in ("tcp", "tls", "ws", "wss"):
            host, port = parse_host_port(where)
            if not host:
                raise ValueError("no host")
            if not 0 < int(port) < 65536:
                raise ValueError(f"port {port} is not 1..65535")
    except (ValueError, TypeError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise SimulationError(f"bad Dask scheduler address {address!r}: {first}; {hint}") from None


def _dask_result(fut: Any) -> ShardResult | None:
    """A finished Dask task's shard, or None when its result cannot be fetched at once (the
    worker holding it is gone, and the scheduler computes it again); a task that failed on
    the cluster (its workers killed, say) is a one-line SimulationError, and the library's
    own errors pass as they are."""
    try:
        res: ShardResult = fut.result(timeout=DASK_POLL_SECONDS)
    except TimeoutError:
        return None
    except ScopaError:
        raise
    except Exception as e:
        first = str(e).splitlines()[0] if str(e) else ""
        raise SimulationError(
            f"a shard failed on the Dask cluster ({type(e).__name__}: {first})"
        ) from None
    return res
