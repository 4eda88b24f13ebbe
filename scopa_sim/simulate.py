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
import hashlib
import json
import os
import platform
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import IO, Any

import numpy as np

from . import _kernels as K
from . import dataset as D
from .cards import DENARI_MASK
from .errors import ScopaError
from .match import HandLog, HandPlayer, play_match
from .policy import PolicySpec, seat_policies
from .rules import Rules

LOCK = ".lock"
DEFAULT_SHARD_HANDS = 250_000
DEFAULT_SHARD_MATCHES = 25_000
#: Version of the data generator, part of every run's identity: bumped whenever the same
#: configuration and seed give different data (deal shuffle, play streams, bots' draws),
#: so that ``--resume`` and the study never mix the data of two generators. 2: two
#: shuffle draws per hash, the ISMCTS of the locals loop. 3: two draws per hash in the
#: play streams of the random and greedy policies and in determinizations (ISMCTS's own
#: loop still takes one draw per hash).
GENERATOR = 3
#: How the hands of a run are dealt (:attr:`SimConfig.deal`).
DEALS = ("plain", "swapped")


class SimulationError(ScopaError):
    """A run that cannot start or go on (bad directory, mismatched resume, ...)."""


@dataclass(frozen=True)
class SimConfig:
    """Everything that defines a run's data (not how it is computed)."""

    preset: str
    rules: Rules
    policies: tuple[str, ...]  # one per seat
    mode: str  # "hands" or "matches"
    count: int
    seed: int
    shard_size: int
    generator: int = GENERATOR
    #: "plain", or "swapped": every hand dealt from its deck with the seats' cards exchanged
    #: (:mod:`scopa_sim.duplicate`; ``--hands`` only), the duplicate of the plain run's hand.
    deal: str = "plain"

    def __post_init__(self) -> None:
        if self.mode not in ("hands", "matches"):
            raise SimulationError(f"mode must be 'hands' or 'matches', got {self.mode!r}")
        if self.deal not in DEALS:
            raise SimulationError(f"deal must be one of {', '.join(DEALS)}, got {self.deal!r}")
        if self.deal != "plain" and self.mode != "hands":
            raise SimulationError("swapped deals are for --hands runs only")
        if self.count < 1:
            raise SimulationError(f"the number of {self.mode} must be at least 1")
        if self.shard_size < 1:
            raise SimulationError("the shard size must be at least 1")
        if len(self.policies) != self.rules.players:
            raise SimulationError("one policy per seat is needed")

    @classmethod
    def make(
        cls,
        preset: str,
        rules: Rules,
        policies: list[PolicySpec] | tuple[str, ...],
        mode: str,
        count: int,
        seed: int,
        shard_size: int | None = None,
        deal: str = "plain",
    ) -> SimConfig:
        texts = tuple(str(p) for p in policies)
        specs = seat_policies(texts, rules.players)
        if shard_size is None:
            shard_size = DEFAULT_SHARD_HANDS if mode == "hands" else DEFAULT_SHARD_MATCHES
        return cls(
            preset, rules, tuple(str(p) for p in specs), mode, count, seed, shard_size, deal=deal
        )

    @property
    def shards(self) -> int:
        return -(-self.count // self.shard_size)

    def units(self, shard: int) -> tuple[int, int]:
        """First unit and number of units of a shard."""
        lo = shard * self.shard_size
        return lo, min(self.shard_size, self.count - lo)

    def data_key(self) -> dict[str, Any]:
        """The parts of the configuration that define the data (``deal`` only when it is
        not plain, so that plain runs keep the identity they had before it existed)."""
        key: dict[str, Any] = {
            "preset": self.preset,
            "rules": self.rules.as_dict(),
            "policies": list(self.policies),
            "mode": self.mode,
            "count": self.count,
            "seed": self.seed,
            "generator": self.generator,
        }
        if self.deal != "plain":
            key["deal"] = self.deal
        return key

    @property
    def run_id(self) -> str:
        blob = json.dumps(self.data_key(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:12]

    def to_json(self) -> dict[str, Any]:
        return {**self.data_key(), "shard_size": self.shard_size, "run_id": self.run_id}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> SimConfig:
        try:
            return cls(
                preset=doc["preset"],
                rules=Rules.from_dict(doc["rules"]),
                policies=tuple(doc["policies"]),
                mode=doc["mode"],
                count=int(doc["count"]),
                seed=int(doc["seed"]),
                shard_size=int(doc["shard_size"]),
                generator=int(doc.get("generator", 1)),  # absent before version 2
                deal=str(doc.get("deal", "plain")),
            )
        except (KeyError, TypeError, ValueError, SimulationError) as e:
            raise D.DatasetError(f"manifest config is malformed ({e})") from None


@dataclass(frozen=True)
class ShardResult:
    index: int
    rows: int
    units: int
    seconds: float  # the whole shard
    file: str
    compute_seconds: float  # computing its rows (the jitted loop, or the bots)
    write_seconds: float  # encoding and writing its Parquet file


def compute_rows(
    config: SimConfig, first: int, count: int, out: np.ndarray | None = None
) -> np.ndarray:
    """The rows (one per hand) of ``count`` units from ``first``, column-major: ``cols[C_*,
    row]`` in the order of ``dataset.kernel_columns()``, with ``cols[C_MATCH]`` the unit's
    offset from ``first``. Computed in the jitted loop for kernel policies, else hand by
    hand with bots. ``out`` (int32, ``N_ROW_COLS`` rows, zeroed once) is a buffer to reuse
    for ``--hands`` runs; the result is then a view of it.
    """
    specs = [PolicySpec.parse(p) for p in config.policies]
    if not all(p.is_kernel for p in specs):
        return _bot_rows(config, specs, first, count)
    r = config.rules.to_array()
    codes = np.array(
        [p.code for p in specs] + [0] * (4 - config.rules.players),
        dtype=np.int64,
    )
    if config.deal == "swapped":
        from .duplicate import swapped_rows

        return swapped_rows(config.rules, codes, config.seed, first, count)
    if config.mode == "hands":  # one row per unit: fill the caller's buffer
        if out is None or out.shape[1] < count:
            out = np.zeros((K.N_ROW_COLS, count), dtype=np.int32)
        cols = out[:, :count]
        K.fused_rows(r, codes, config.seed, False, first, count, cols)
        return cols
    parts = []
    done = 0
    while done < count:  # matches: rows as they come, in parts that cannot overflow
        left = count - done
        buf = np.zeros((K.N_ROW_COLS, max(256, left * 8)), dtype=np.int32)
        units, rows = K.fused_rows(r, codes, config.seed, True, first + done, left, buf)
        part = buf[:, :rows]
        part[K.C_MATCH] += done
        parts.append(part)
        done += int(units)
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)


def _bot_rows(config: SimConfig, specs: list[PolicySpec], first: int, count: int) -> np.ndarray:
    """Rows of units played decision by decision (search policies), same layout."""
    rules = config.rules
    player = HandPlayer(rules, specs, config.seed, swapped=config.deal == "swapped")
    rows: list[np.ndarray] = []
    for unit in range(first, first + count):
        if config.mode == "matches":
            logs = list(play_match(rules, specs, config.seed, unit, player=player))
        else:
            hp = player.play(unit, 0, unit % rules.players)
            logs = [
                HandLog(unit, 0, unit % rules.players, hp.deck, hp.plays, hp.score, hp.piles,
                        (0,) * rules.sides, tuple(s[K.I_TOTAL] for s in hp.score), None,
                        hp.redeals)
            ]  # fmt: skip
        for log in logs:
            row = np.zeros(K.N_ROW_COLS, dtype=np.int32)
            row[[K.C_MATCH, K.C_HAND, K.C_DEALER, K.C_FIRST, K.C_REDEALS, K.C_PLAYS]] = (
                log.match - first,
                log.hand,
                log.dealer,
                (log.dealer + 1) % rules.players,
                log.redeals,
                len(log.plays),
            )
            for s in range(rules.sides):
                pile = log.piles[s]
                row[K.C_ITEMS + s * K.N_ITEMS : K.C_ITEMS + (s + 1) * K.N_ITEMS] = log.score[s]
                row[K.C_STATS + 4 * s : K.C_STATS + 4 * s + 4] = (
                    pile.bit_count(),
                    (pile & DENARI_MASK).bit_count(),
                    K.primiera_classic(pile, 1),
                    (pile & (K.ACES << 6)).bit_count(),
                )
                row[K.C_TOTALS + s] = log.totals_after[s]
            row[K.C_WINNER] = -1 if log.winner is None else log.winner
            rows.append(row)
    return np.stack(rows, axis=1)


#: Each thread's reusable row buffer (it computes one shard at a time), so that shards do
#: not pay for fresh pages.
_BUFFERS = threading.local()


def _row_buffer(count: int) -> np.ndarray:
    buf = getattr(_BUFFERS, "rows", None)
    if buf is None or buf.shape[1] < count:
        buf = _BUFFERS.rows = np.zeros((K.N_ROW_COLS, count), dtype=np.int32)
    return buf


def run_shard(config_doc: dict[str, Any], index: int, directory: str) -> ShardResult:
    """Compute and write one shard (runs in a worker process or a Dask task)."""
    config = SimConfig.from_json(config_doc)
    t0 = time.perf_counter()
    first, count = config.units(index)
    cols = compute_rows(
        config, first, count, _row_buffer(count) if config.mode == "hands" else None
    )
    t1 = time.perf_counter()
    columns = D.shard_columns(
        cols,
        first=first,
        run_id=config.run_id,
        preset=config.preset,
        rules_hash=config.rules.digest(),
        players=config.rules.players,
        sides=config.rules.sides,
        seed=config.seed,
        policies=config.policies,
    )
    path = D.write_shard(Path(directory), index, cols.shape[1], columns)
    t2 = time.perf_counter()
    return ShardResult(index, cols.shape[1], count, t2 - t0, path.name, t1 - t0, t2 - t1)


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("scopa-sim", "numba", "numpy", "polars", "click"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "unknown"
    return out


def _shard_entry(
    index: int, name: str, units: int, rows: int, seconds: tuple[float, float, float] | None
) -> dict[str, Any]:
    """A shard's manifest entry; ``seconds`` (whole, computing rows, writing the file) is
    None for a shard adopted on resume, whose timing was lost with the manifest update."""
    whole, compute, write = (round(t, 4) for t in seconds) if seconds else (None, None, None)
    return {
        "index": index,
        "file": f"{D.SHARD_DIR}/{name}",
        "units": units,
        "rows": rows,
        "seconds": whole,
        "compute_seconds": compute,
        "write_seconds": write,
    }


@dataclass
class Run:
    """A run directory being filled: its manifest and the shards still to do."""

    directory: Path
    config: SimConfig
    manifest: dict[str, Any] = field(default_factory=dict)

    @property
    def todo(self) -> list[int]:
        done = {s["index"] for s in self.manifest["shards"]}
        return [i for i in range(self.config.shards) if i not in done]

    def record(self, res: ShardResult) -> None:
        seconds = (res.seconds, res.compute_seconds, res.write_seconds)
        self.manifest["shards"].append(
            _shard_entry(res.index, res.file, res.units, res.rows, seconds)
        )
        self.manifest["shards"].sort(key=lambda s: s["index"])
        self.save()

    def save(self) -> None:
        self.manifest["rows"] = sum(s["rows"] for s in self.manifest["shards"])
        self.manifest["complete"] = len(self.manifest["shards"]) == self.config.shards
        D.write_manifest(self.directory, self.manifest)


def prepare_run(directory: Path, config: SimConfig, resume: bool, overwrite: bool) -> Run:
    """Create, resume or overwrite a run directory; nothing is written on an error."""
    if resume and overwrite:
        raise SimulationError("--resume and --overwrite exclude each other")
    if directory.exists() and not directory.is_dir():
        raise SimulationError(f"{directory} exists and is not a directory")
    existing = directory.is_dir() and any(p.name != LOCK for p in directory.iterdir())
    if existing and (directory / D.MANIFEST).exists():
        doc = D.read_manifest(directory)
        if resume:
            return _resume(directory, config, doc)
        if not overwrite:
            raise SimulationError(
                f"{directory} already holds a run; use --resume to finish it or --overwrite"
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
    run = Run(directory, config)
    run.manifest = {
        "format": D.FORMAT,
        "run_id": config.run_id,
        "config": config.to_json(),
        "versions": _versions(),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "schema": dict(D.COLUMN_TYPES),
        "shards": [],
        "timings": [],
    }
    run.save()
    return run


def _resume(directory: Path, config: SimConfig, doc: dict[str, Any]) -> Run:
    old = SimConfig.from_json(doc.get("config", {}))
    if old.generator != config.generator:
        raise SimulationError(
            f"--resume: the run was made by data generator {old.generator}, this version of "
            f"scopa-sim has generator {config.generator}; use --overwrite to start again"
        )
    if old.data_key() != config.data_key():
        diff = [k for k, v in config.data_key().items() if old.data_key().get(k) != v]
        raise SimulationError(
            f"--resume: the configuration differs from the run's manifest ({', '.join(diff)})"
        )
    if old.shard_size != config.shard_size:
        raise SimulationError(
            f"--resume: the run uses shard size {old.shard_size}, not {config.shard_size}"
        )
    run = Run(directory, old, doc)
    listed = {s["index"]: s for s in doc.get("shards", [])}
    on_disk = D.finished_shards(directory)
    for p in (directory / D.SHARD_DIR).glob(".shard-*.tmp"):
        p.unlink()  # left by an interrupted writer; never renamed, so never complete
    for i in sorted(on_disk):
        if i >= old.shards:
            raise D.DatasetError(f"{D.shard_path(directory, i)}: not a shard of this run")
        expected = old.units(i)[1] if old.mode == "hands" else None
        D.check_shard(D.shard_path(directory, i), expected)
    shards = []
    for i in sorted(on_disk):
        path = D.shard_path(directory, i)
        if i in listed:
            shards.append(listed[i])
        else:  # written, but the manifest update was lost (e.g. kill -9): adopt it
            rows = D.count_rows(path)
            units = old.units(i)[1]
            shards.append(_shard_entry(i, path.name, units, rows, None))
    run.manifest["shards"] = shards
    run.save()
    return run


Executor = Callable[[Run, list[int]], Iterator[ShardResult]]


def local_executor(workers: int) -> Executor:
    """Shards on ``workers`` cores of this machine: in this process when ``workers == 1``;
    else in threads when every policy is a kernel policy (the jitted loop runs without the
    GIL and so does the Parquet writer, so threads scale without starting processes that
    must import and load the kernels), or in processes for search policies (which run
    Python between kernel calls)."""

    def execute(run: Run, todo: list[int]) -> Iterator[ShardResult]:
        doc, where = run.config.to_json(), str(run.directory)
        if workers == 1:
            for i in todo:
                yield run_shard(doc, i, where)
            return
        import multiprocessing as mp
        from concurrent.futures import (
            FIRST_COMPLETED,
            Future,
            ProcessPoolExecutor,
            ThreadPoolExecutor,
            wait,
        )
        from concurrent.futures import Executor as Pool

        pool: Pool
        if all(PolicySpec.parse(p).is_kernel for p in run.config.policies):
            pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="shard")
        else:
            ctx = mp.get_context("forkserver" if os.name == "posix" else "spawn")
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx)
        with pool:
            pending: set[Future[ShardResult]] = set()
            queue = list(todo)
            try:
                while queue or pending:
                    while queue and len(pending) < 2 * workers:
                        pending.add(pool.submit(run_shard, doc, queue.pop(0), where))
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in finished:
                        yield f.result()
            except BaseException:
                for f in pending:
                    f.cancel()
                pool.shutdown(wait=False, cancel_futures=True)
                raise

    return execute


def dask_executor(scheduler: str | None, workers: int) -> Executor:
    """Shards as tasks on a Dask distributed cluster (a LocalCluster when no address)."""
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise SimulationError(
            "--executor dask needs the dask[distributed] package (pip install 'dask[distributed]')"
        ) from None

    def execute(run: Run, todo: list[int]) -> Iterator[ShardResult]:
        cluster = None
        try:
            if scheduler:
                try:
                    client = Client(scheduler, timeout="3s")
                except (OSError, TimeoutError) as e:
                    raise SimulationError(
                        f"cannot reach the Dask scheduler at {scheduler}: {e}"
                    ) from None
            else:
                cluster = LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                )
                client = Client(cluster)
            with client:
                doc, where = run.config.to_json(), str(run.directory.resolve())
                futures = [
                    client.submit(run_shard, doc, i, where, key=f"shard-{run.config.run_id}-{i}")
                    for i in todo
                ]
                try:
                    for fut in as_completed(futures):
                        yield fut.result()
                finally:
                    for fut in futures:
                        fut.cancel()
        finally:
            if cluster is not None:
                cluster.close()

    return execute


@dataclass(frozen=True)
class RunSummary:
    directory: Path
    config: SimConfig
    units_done: int
    rows: int
    seconds: float
    complete: bool


def simulate(
    directory: Path,
    config: SimConfig,
    executor: Executor,
    *,
    resume: bool = False,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> RunSummary:
    """Run (or finish) a simulation into ``directory``; ``progress(units, rows)`` per shard.

    The directory is locked for the run, so a second process cannot write into it. A new
    run that fails before any shard is written (an unreachable Dask scheduler, say) leaves
    nothing behind; an interrupt (KeyboardInterrupt) keeps it, to be resumed.
    """
    made = not directory.exists()
    lock = _lock(directory) if directory.is_dir() else None
    try:
        run = prepare_run(directory, config, resume, overwrite)
        lock = lock or _lock(directory)
        try:
            return _execute(run, executor, progress)
        except Exception:
            if not resume and not D.finished_shards(directory):
                lock.close()
                lock = None
                _discard(directory, made)
            raise
    finally:
        if lock is not None:
            lock.close()


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


def _execute(
    run: Run, executor: Executor, progress: Callable[[int, int], None] | None
) -> RunSummary:
    """Compute the shards a run still lacks, recording each one as it finishes."""
    config, directory = run.config, run.directory
    todo = run.todo
    t0 = time.perf_counter()
    units = 0
    rows = 0
    shards = 0
    try:
        for res in executor(run, todo):
            run.record(res)
            shards += 1
            units += res.units
            rows += res.rows
            if progress is not None:
                progress(res.units, res.rows)
    finally:
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
    return RunSummary(directory, config, units, rows, elapsed, run.manifest["complete"])


__all__ = [
    "SimConfig",
    "SimulationError",
    "dask_executor",
    "local_executor",
    "simulate",
]
