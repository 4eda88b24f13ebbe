"""Batch simulation: many hands or matches into a sharded Parquet dataset.

A run is defined by :class:`SimConfig`; shard ``k`` holds units (hands or
matches) ``[k * shard_size, (k + 1) * shard_size)`` and its content depends only
on the configuration and ``k``, so the data are the same whatever the number of
workers or the executor.  Finished shards are renamed into place atomically and
listed in the manifest, so an interrupted run loses nothing and ``resume``
completes it.
"""

from __future__ import annotations

import fcntl
import os
import platform
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import IO, Any

import numpy as np

from scopa_sim.data import dataset as D
from scopa_sim.data.run import SimConfig, check_manifest, manifest_config, manifest_shards
from scopa_sim.errors import InputError, SimulationError
from scopa_sim.files import check_utf8_path
from scopa_sim.sim.executors import Executor
from scopa_sim.sim.shards import RunWriter, ShardResult, _shard_entry, compute_rows

LOCK = ".lock"


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("scopa-sim", "numba", "numpy", "polars", "click"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "unknown"
    return out


def prepare_run(directory: Path, config: SimConfig, resume: bool, overwrite: bool) -> RunWriter:
    """Create, resume or overwrite a run directory; nothing is written on an error.

    Raises:
        InputError: both ``resume`` and ``overwrite``.
        SimulationError: as :func:`simulate` says, before anything is written.
        DatasetError: the run to resume is damaged.
    """
    if resume and overwrite:
        raise InputError("resuming a run and overwriting it exclude each other")
    check_utf8_path(directory)  # or the run could be written and never read back
    if directory.exists() and not directory.is_dir():
        raise SimulationError(f"{directory} exists and is not a directory")
    existing = directory.is_dir() and any(p.name != LOCK for p in directory.iterdir())
    if existing and (directory / D.MANIFEST).exists():
        doc = D.read_manifest(directory)
        if resume:
            return _resume(directory, config, doc)
        if not overwrite:
            raise SimulationError(
                f"{directory} already holds a run: resume it to finish it, or overwrite it"
            )
        shutil.rmtree(directory / D.SHARD_DIR, ignore_errors=True)
        (directory / D.MANIFEST).unlink()
    elif existing:
        raise SimulationError(
            f"{directory} is not empty and is not a scopa-sim run; choose another"
        )
    elif resume:
        raise SimulationError(f"{directory} holds no run to resume")
    try:
        (directory / D.SHARD_DIR).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SimulationError(f"cannot create {directory}: {e.strerror}") from None
    if not os.access(directory, os.W_OK):
        raise SimulationError(f"{directory} is not writable")
    run = RunWriter(directory, config)
    run.manifest = {
        "format": D.FORMAT,
        "run_id": config.run_id,
        "config": config.to_json(),
        "versions": _versions(),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "schema": dict(D.column_types(config.cirulla)),
        "shards": [],
        "timings": [],
    }
    run.save()
    return run


#: Units of a run made again when it is resumed or reused (runs of kernel policies; a run
#: of bots makes one, a few searches), to check that this scopa-sim still makes its data.
SPOT_UNITS = 4096


def spot_check(directory: Path, config: SimConfig) -> None:
    """Make the first units of shard 0 again and compare them with the stored rows: a
    DatasetError when they differ, so that a resumed or reused run never mixes the data
    of two versions of the engine's play (or data altered after the fact).

    The run's identity covers its configuration, seed and data generator, not every
    change of a policy's play, which this check catches.

    Raises:
        DatasetError: the rows made again differ from the stored ones.
    """
    path = D.shard_path(directory, 0)
    first, count = config.units(0)
    cols = compute_rows(config, first, min(count, SPOT_UNITS if config.is_kernel else 1))
    n = cols.shape[1]
    columns = D.shard_columns(
        cols, first=first, run_id=config.run_id, preset=config.preset,
        rules_hash=config.rules.digest(), players=config.rules.players,
        sides=config.rules.sides, seed=config.seed, policies=config.policies,
        cirulla=config.cirulla,
    )  # fmt: skip
    import polars as pl

    names = [c.name for c in columns if c.data is not None]
    stored = pl.read_parquet(path, columns=names, n_rows=n)  # only the rows made again
    for c in columns:
        if c.data is None:
            continue
        want = c.data[:n].astype(np.int64)
        if c.valid is not None:
            want = np.where(c.valid[:n], want, -1)
        got = stored[c.name].fill_null(-1).to_numpy().astype(np.int64)
        if not np.array_equal(got, want):
            raise D.DatasetError(
                f"{directory}: its first {n} rows come out differently with this "
                f"scopa-sim ({c.name}): the play changed since the run was made, or the "
                "data were altered; overwrite it to make it again"
            )


def _resume(directory: Path, config: SimConfig, doc: dict[str, Any]) -> RunWriter:
    old = manifest_config(directory, doc)
    if old.generator != config.generator:
        raise SimulationError(
            f"cannot resume: the run was made by data generator {old.generator}, this version of "
            f"scopa-sim has generator {config.generator}; overwrite it to start again"
        )
    if old.data_key() != config.data_key():
        diff = [k for k, v in config.data_key().items() if old.data_key().get(k) != v]
        raise SimulationError(
            f"cannot resume: the configuration differs from the run's manifest ({', '.join(diff)})"
        )
    if old.shard_size != config.shard_size:
        raise SimulationError(
            f"cannot resume: the run uses shard size {old.shard_size}, not {config.shard_size}"
        )
    check_manifest(directory, old, doc)
    shard_dir = directory / D.SHARD_DIR
    if shard_dir.exists() and not shard_dir.is_dir():
        raise D.DatasetError(f"{shard_dir}: not a directory")
    shard_dir.mkdir(exist_ok=True)  # a missing one: every shard is computed again
    run = RunWriter(directory, old, doc)
    listed = manifest_shards(directory, old, doc)
    on_disk = D.finished_shards(directory)
    for p in (directory / D.SHARD_DIR).glob(".shard-*.tmp"):
        p.unlink()  # left by an interrupted writer; never renamed, so never complete
    shards = []
    for i in sorted(on_disk):
        if i >= old.shards:
            raise D.DatasetError(f"{D.shard_path(directory, i)}: not a shard of this run")
        entry = listed.get(i)
        rows = D.check_shard(old.shard_spec(directory, i, entry))
        if entry is None:  # written, but the manifest update was lost (e.g. kill -9): adopt it
            path = D.shard_path(directory, i)
            size, crc = path.stat().st_size, D.file_crc32(path)
            entry = _shard_entry(i, path.name, old.units(i)[1], rows, size, crc, None)
        shards.append(entry)
    if 0 in on_disk:
        spot_check(directory, old)
    run.manifest["shards"] = shards
    run.save()
    return run


@dataclass(frozen=True)
class RunSummary:
    """What a call of :func:`simulate` did: the run, the units and rows this call added, its
    seconds, whether the run is complete and its rows in all.
    """

    directory: Path
    config: SimConfig
    units_done: int
    rows: int
    seconds: float
    complete: bool
    total_rows: int  # the run's, this call's and earlier calls'
    already_complete: bool = False  # a --resume of a finished run: nothing was done


def simulate(
    directory: Path,
    config: SimConfig,
    executor: Executor,
    *,
    resume: bool = False,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> RunSummary:
    """Run (or finish) a simulation into ``directory``; ``progress(units, rows)`` as units
    are computed (within a shard too: its rows are then counted when it finishes, but for
    ``--hands`` runs, one row a unit), the counts adding up to the units and rows done.

    The directory is locked for the run, so a second process cannot write into it. A new
    run that fails before any shard is written (an unreachable Dask scheduler, say) leaves
    nothing behind; an interrupt (KeyboardInterrupt, or SIGTERM turned into one by the
    command) keeps its finished shards, to be resumed, and removes its temporary files.

    Args:
        directory: the run directory (made if missing).
        config: what to simulate (:class:`~scopa_sim.data.run.SimConfig`).
        executor: where the shards are computed (:mod:`scopa_sim.sim.executors`).
        resume: finish the interrupted run in ``directory`` (a finished one is returned as
            it is).
        overwrite: replace the run in ``directory``.
        progress: called with ``(units, rows)`` as units are computed, as above.

    Returns:
        A :class:`RunSummary` of what this call did.

    Raises:
        InputError: both ``resume`` and ``overwrite``.
        RulesError: a Cirulla run with a policy that does not play Cirulla
            (:func:`scopa_sim.sim.match.check_cirulla_policies`), before any work.
        SimulationError: the directory is not a directory, already holds a run (neither
            resumed nor overwritten), holds something else, has no run to resume, differs
            from the run to resume, cannot be written, is locked by another simulation, or
            a worker failed writing it.
        DatasetError: the run to resume is damaged or its rows come out differently.
    """
    if config.cirulla:  # refused before any work
        from scopa_sim.sim.match import check_cirulla_policies

        check_cirulla_policies(config.specs)
    made = not directory.exists()
    lock = _lock(directory) if directory.is_dir() else None
    try:
        run = prepare_run(directory, config, resume, overwrite)
        lock = lock or _lock(directory)
        try:
            try:
                return _execute(run, executor, progress)
            except OSError as e:  # the disk is full, the directory was removed, ...
                where = e.filename or directory
                raise SimulationError(
                    f"the run in {directory} failed: {e.strerror or e} ({where})"
                ) from None
        except BaseException as e:
            for tmp in _glob(directory / D.SHARD_DIR, ".shard-*.tmp"):
                tmp.unlink(missing_ok=True)  # the lock is held: no other writer's files
            if isinstance(e, Exception) and not resume and not D.finished_shards(directory):
                lock.close()
                lock = None
                _discard(directory, made)
            raise
    finally:
        if lock is not None:
            lock.close()


def _glob(directory: Path, pattern: str) -> list[Path]:
    """The files of ``directory`` matching ``pattern``; none if it cannot be listed."""
    try:
        return list(directory.glob(pattern))
    except OSError:
        return []


def _discard(directory: Path, made: bool) -> None:
    """Remove a new run that wrote no shard: the directory if this run made it, else the
    files the run put in it."""
    if made:
        shutil.rmtree(directory, ignore_errors=True)
        return
    shutil.rmtree(directory / D.SHARD_DIR, ignore_errors=True)
    for name in (D.MANIFEST, LOCK):
        (directory / name).unlink(missing_ok=True)


def _lock(directory: Path) -> IO[str]:
    """An exclusive lock on a run directory, held while the file stays open."""
    f = open(directory / LOCK, "w")  # noqa: SIM115 - held open for the whole run
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        raise SimulationError(f"another simulate is writing to {directory}") from None
    return f


class _Told:
    """``progress(units, rows)`` of a run's units as the executor reports them within
    shards (from any thread) and as shards finish: a finished shard adds what was not
    yet reported of it, and a report that comes after its shard finished is dropped, so
    that the counts add up to the run's. Calls are serialized."""

    def __init__(self, progress: Callable[[int, int], None], rows_per_unit: int) -> None:
        self.progress = progress
        self.rows_per_unit = rows_per_unit
        self.lock = threading.Lock()
        self.reported: dict[int, int] = {}
        self.over: set[int] = set()

    def done(self, shard: int, units: int) -> None:
        with self.lock:
            if shard in self.over:
                return
            self.reported[shard] = self.reported.get(shard, 0) + units
            self.progress(units, units * self.rows_per_unit)

    def finished(self, res: ShardResult) -> None:
        with self.lock:
            self.over.add(res.index)
            early = self.reported.pop(res.index, 0)
            self.progress(res.units - early, res.rows - early * self.rows_per_unit)


def _execute(
    run: RunWriter, executor: Executor, progress: Callable[[int, int], None] | None
) -> RunSummary:
    """Compute the shards a run still lacks, recording each one as it finishes. The
    executor is closed before this returns or raises, so that its workers have stopped."""
    config, directory = run.config, run.directory
    if run.manifest["complete"]:
        rows = run.manifest["rows"]
        return RunSummary(directory, config, 0, 0, 0.0, True, rows, already_complete=True)
    t0 = time.perf_counter()
    units = 0
    rows = 0
    shards = 0
    told = _Told(progress, 1 if config.mode == "hands" else 0) if progress else None
    results = executor(run, run.todo(), told.done if told else None)
    try:
        for res in results:
            run.record(res)
            shards += 1
            units += res.units
            rows += res.rows
            if told is not None:
                told.finished(res)
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()
        elapsed = time.perf_counter() - t0
        run.manifest["timings"].append(
            {
                "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "seconds": round(elapsed, 3),
                "shards": shards,
                "units": units,
                "rows": rows,
            }
        )
        run.save()
    complete, total = run.manifest["complete"], run.manifest["rows"]
    return RunSummary(directory, config, units, rows, elapsed, complete, total)


__all__ = [
    "RunSummary",
    "prepare_run",
    "simulate",
    "spot_check",
]
