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
import gc
import hashlib
import itertools
import json
import os
import platform
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from . import _engine as K
from . import dataset as D
from .errors import ScopaError, SimulationError
from .match import HandLog, HandPlayer, play_match
from .policy import PolicySpec, seat_policies
from .rules import Rules

if TYPE_CHECKING:
    import polars as pl

LOCK = ".lock"
DEFAULT_SHARD_HANDS = 250_000
#: Matches a shard by default, fewer for long matches (:func:`default_shard_size`).
DEFAULT_SHARD_MATCHES = 25_000
#: The most units a run may have: match numbers fill the Int64 ``match`` column (and the
#: 64-bit stream derivation, :func:`_engine.streams.derive_seed`).
MAX_UNITS = 2**63 - 1
#: The most rows a shard may be planned to hold (a shard is computed in memory: about
#: 240 bytes a row; and Parquet page headers count values in 32 bits).
MAX_SHARD_ROWS = 10_000_000
#: Version of the data generator, part of every run's identity: bumped whenever the same
#: configuration and seed give different data (deal shuffle, play streams, bots' draws),
#: so that ``--resume`` and the study never mix the data of two generators. 2: two
#: shuffle draws per hash, the ISMCTS of the locals loop. 3: two draws per hash in the
#: play streams of the random and greedy policies and in determinizations (ISMCTS's own
#: loop still takes one draw per hash).
GENERATOR = 3
#: How the hands of a run are dealt (:attr:`SimConfig.deal`).
DEALS = ("plain", "swapped")


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
        if not 1 <= self.count <= MAX_UNITS:
            raise SimulationError(
                f"the number of {self.mode} must be 1..{MAX_UNITS:,} (2**63 - 1, the range "
                "of the Int64 match column)"
            )
        if not 0 <= self.seed <= MAX_UNITS:
            raise SimulationError(f"the seed must be 0..{MAX_UNITS:,}")
        most = max_shard_size(self.mode, self.rules)
        if not 1 <= self.shard_size <= most:
            raise SimulationError(
                f"the shard size must be 1..{most:,} {self.mode} with these rules (a shard "
                f"is planned to hold at most {MAX_SHARD_ROWS:,} rows)"
            )
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
            shard_size = default_shard_size(mode, rules)
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
    def from_json(cls, doc: Any) -> SimConfig:
        """The configuration of a manifest's ``config`` object, strictly typed: a field
        missing or of another type is a DatasetError (the manifest was damaged or edited)."""
        if not isinstance(doc, dict):
            raise D.DatasetError("manifest config is malformed (not an object)")
        types = {"preset": str, "rules": dict, "policies": list, "mode": str, "count": int}
        types |= {"seed": int, "shard_size": int, "generator": int}
        for key, kind in types.items():
            if key == "generator" and key not in doc:
                continue  # absent before version 2
            if key not in doc:
                raise D.DatasetError(f"manifest config is malformed (no {key!r})")
            value = doc[key]
            if not isinstance(value, kind) or isinstance(value, bool):
                raise D.DatasetError(
                    f"manifest config is malformed ({key!r} is not {_TYPE_NAMES[kind]})"
                )
        if not all(isinstance(p, str) for p in doc["policies"]):
            raise D.DatasetError("manifest config is malformed ('policies' are not strings)")
        try:
            return cls(
                preset=doc["preset"],
                rules=Rules.from_dict(doc["rules"]),
                policies=tuple(doc["policies"]),
                mode=doc["mode"],
                count=doc["count"],
                seed=doc["seed"],
                shard_size=doc["shard_size"],
                generator=doc.get("generator", 1),
                deal=doc.get("deal", "plain"),
            )
        except ScopaError as e:
            raise D.DatasetError(f"manifest config is malformed ({e})") from None

    def shard_spec(self, directory: Path, index: int, entry: dict[str, Any] | None) -> D.ShardSpec:
        """What shard ``index`` must be (:func:`dataset.check_shard`), with the rows and
        size its manifest ``entry`` records (None: a shard not yet in the manifest, whose
        rows are known only in hands mode)."""
        first, units = self.units(index)
        rows = entry["rows"] if entry is not None else (units if self.mode == "hands" else None)
        return D.ShardSpec(
            path=D.shard_path(directory, index),
            run_id=self.run_id,
            preset=self.preset,
            rules_hash=self.rules.digest(),
            seed=self.seed,
            players=self.rules.players,
            sides=self.rules.sides,
            policies=self.policies,
            first=first,
            units=units,
            rows=rows,
            size=entry.get("bytes") if entry is not None else None,
            crc32=entry.get("crc32") if entry is not None else None,
        )


def hands_bound(rules: Rules) -> int:
    """Hands a match takes at most unless the leaders tie: ``sides * target``, since each
    hand scores at least one point (the settebello)."""
    return rules.sides * rules.target


def max_shard_size(mode: str, rules: Rules) -> int:
    """The most units a shard may hold: :data:`MAX_SHARD_ROWS` rows at the bound of
    :func:`hands_bound` hands a match."""
    return MAX_SHARD_ROWS if mode == "hands" else max(1, MAX_SHARD_ROWS // hands_bound(rules))


def default_shard_size(mode: str, rules: Rules) -> int:
    """Units a shard by default: 250,000 hands, or 25,000 matches when they are short (up
    to 44 hands' bound: the presets' target of 11) and fewer for longer ones, so that a
    shard holds about as many rows whatever the target."""
    if mode == "hands":
        return DEFAULT_SHARD_HANDS
    return max(1, min(DEFAULT_SHARD_MATCHES, DEFAULT_SHARD_MATCHES * 44 // hands_bound(rules)))


_TYPE_NAMES = {str: "a string", dict: "an object", list: "a list", int: "an integer"}


@dataclass(frozen=True)
class ShardResult:
    index: int
    rows: int
    units: int
    seconds: float  # the whole shard
    file: str
    compute_seconds: float  # computing its rows (the jitted loop, or the bots)
    write_seconds: float  # encoding and writing its Parquet file
    size: int  # bytes of the file, recorded in the manifest and checked by readers
    crc32: int  # of the file's bytes, likewise


def compute_rows(
    config: SimConfig, first: int, count: int, out: np.ndarray | None = None
) -> np.ndarray:
    """The rows (one per hand) of ``count`` units from ``first``, column-major: ``cols[C_*,
    row]`` in the order of ``dataset.kernel_columns()``, with ``cols[C_MATCH]`` the unit's
    offset from ``first``. Computed in the jitted loop for kernel policies, else hand by
    hand with bots. ``out`` (int32, ``N_ROW_COLS`` rows, zeroed once) is a buffer to reuse
    for ``--hands`` runs; the result is then that buffer. One of another width than
    ``count`` is not used (a slice of it would not be C-contiguous, and the jitted loop
    would compile a second time for that layout).
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
        if out is None or out.shape[1] != count:
            out = np.zeros((K.N_ROW_COLS, count), dtype=np.int32)
        K.fused_rows(r, codes, config.seed, False, first, count, out)
        return out
    return _match_rows(config, r, codes, first, count)


#: Rows the jitted loop writes per call in matches mode (a buffer of about 60 MB): a
#: default shard of 25,000 short matches takes one call.
MATCH_BLOCK_ROWS = 1 << 18


def _match_rows(
    config: SimConfig, r: np.ndarray, codes: np.ndarray, first: int, count: int
) -> np.ndarray:
    """The rows of ``count`` whole matches from ``first`` through the jitted loop, in calls
    of about :data:`MATCH_BLOCK_ROWS` rows, however long the matches (the target may be
    1,000). Each call gets as many matches as should fill its buffer with room to spare:
    at first by a third of the bound of ``sides * target`` hands a match (each hand scores
    at least one point; a side scores about one point in three of the hand's), then by
    the hands a match has taken so far. The loop stops before a match
    that could not fit in the last 64 rows of room, but a longer match than the room left
    raises; that call is then made again with fewer matches (or, for one match, more
    room), which gives the same rows since a match's data depend only on its number."""
    bound = config.rules.sides * config.rules.target + 1
    per = bound / 3  # rows a match, until matches have been seen
    parts = []
    done = rows_done = 0
    while done < count:
        n = max(1, min(count - done, int(MATCH_BLOCK_ROWS / per)))
        cap = int(n * per * 1.25) + bound + 64
        while True:
            buf = np.zeros((K.N_ROW_COLS, cap), dtype=np.int32)
            try:
                units, rows = K.fused_rows(r, codes, config.seed, True, first + done, n, buf)
                break
            except ValueError:  # a match outgrew the buffer, or MAX_HANDS_PER_MATCH
                if n > 1:
                    n //= 2
                elif cap < K.MAX_HANDS_PER_MATCH + 64:
                    cap = min(4 * cap, K.MAX_HANDS_PER_MATCH + 64)
                else:
                    raise SimulationError(
                        f"match {first + done} did not end within {K.MAX_HANDS_PER_MATCH:,} hands"
                    ) from None
        part = buf[:, :rows] if 2 * rows > cap else buf[:, :rows].copy()  # free the rest
        part[K.C_MATCH] += done
        parts.append(part)
        done += int(units)
        rows_done += int(rows)
        per = rows_done / done
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
                row[K.C_STATS + 4 * s : K.C_STATS + 4 * s + 4] = K.side_stats(pile)
                row[K.C_TOTALS + s] = log.totals_after[s]
            row[K.C_WINNER] = -1 if log.winner is None else log.winner
            rows.append(row)
    return np.stack(rows, axis=1)


#: Each thread's reusable row buffer (it computes one shard at a time), so that shards do
#: not pay for fresh pages.
_BUFFERS = threading.local()


def _row_buffer(count: int) -> np.ndarray:
    buf = getattr(_BUFFERS, "rows", None)
    if buf is None or buf.shape[1] != count:
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
    if _parent_gone():  # an orphaned worker process writes nothing
        os._exit(1)
    path, crc = D.write_shard(Path(directory), index, cols.shape[1], columns)
    t2 = time.perf_counter()
    size = path.stat().st_size
    rows = cols.shape[1]
    return ShardResult(index, rows, count, t2 - t0, path.name, t1 - t0, t2 - t1, size, crc)


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("scopa-sim", "numba", "numpy", "polars", "click"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "unknown"
    return out


def _shard_entry(
    index: int,
    name: str,
    units: int,
    rows: int,
    size: int,
    crc32: int,
    seconds: tuple[float, float, float] | None,
) -> dict[str, Any]:
    """A shard's manifest entry; ``seconds`` (whole, computing rows, writing the file) is
    None for a shard adopted on resume, whose timing was lost with the manifest update."""
    whole, compute, write = (round(t, 4) for t in seconds) if seconds else (None, None, None)
    return {
        "index": index,
        "file": f"{D.SHARD_DIR}/{name}",
        "units": units,
        "rows": rows,
        "bytes": size,
        "crc32": crc32,
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

    def todo(self) -> Iterator[int]:
        """The shards still to compute, in order, generated as they are taken: a run of
        10**15 hands plans 4 billion shards, which must not be listed up front."""
        done = {s["index"] for s in self.manifest["shards"]}
        return (i for i in range(self.config.shards) if i not in done)

    def record(self, res: ShardResult) -> None:
        seconds = (res.seconds, res.compute_seconds, res.write_seconds)
        self.manifest["shards"].append(
            _shard_entry(res.index, res.file, res.units, res.rows, res.size, res.crc32, seconds)
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


#: Units of a run made again when it is resumed or reused (runs of kernel policies; a run
#: of bots makes one, a few searches), to check that this scopa-sim still makes its data.
SPOT_UNITS = 4096


def spot_check(directory: Path, config: SimConfig) -> None:
    """Make the first units of shard 0 again and compare them with the stored rows: a
    DatasetError when they differ, so that a resumed or reused run never mixes the data
    of two versions of the engine's play (or data altered after the fact).

    The run's identity covers its configuration, seed and data generator, not every
    change of a policy's play: the study's cache once kept escoba runs of an expert
    whose play had since changed in 1 hand of 3,000."""
    path = D.shard_path(directory, 0)
    first, count = config.units(0)
    kernel = all(PolicySpec.parse(p).is_kernel for p in config.policies)
    cols = compute_rows(config, first, min(count, SPOT_UNITS if kernel else 1))
    n = cols.shape[1]
    columns = D.shard_columns(
        cols, first=first, run_id=config.run_id, preset=config.preset,
        rules_hash=config.rules.digest(), players=config.rules.players,
        sides=config.rules.sides, seed=config.seed, policies=config.policies,
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
                "data were altered; use --overwrite to make it again"
            )


def _resume(directory: Path, config: SimConfig, doc: dict[str, Any]) -> Run:
    old = manifest_config(directory, doc)
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
    check_manifest(directory, old, doc)
    shard_dir = directory / D.SHARD_DIR
    if shard_dir.exists() and not shard_dir.is_dir():
        raise D.DatasetError(f"{shard_dir}: not a directory")
    shard_dir.mkdir(exist_ok=True)  # a missing one: every shard is computed again
    run = Run(directory, old, doc)
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


def manifest_config(directory: Path, doc: dict[str, Any]) -> SimConfig:
    """The configuration of a run's manifest; a DatasetError naming the file if it is
    malformed."""
    try:
        return SimConfig.from_json(doc.get("config"))
    except D.DatasetError as e:
        raise D.DatasetError(f"{directory / D.MANIFEST}: {e}") from None


def check_manifest(directory: Path, config: SimConfig, doc: dict[str, Any]) -> None:
    """A DatasetError unless the manifest's run id is its configuration's and its schema
    is this version's pinned schema (an edited or damaged manifest, or another format)."""
    if doc.get("run_id") != config.run_id:
        raise D.DatasetError(
            f"{directory / D.MANIFEST}: the run id {doc.get('run_id')!r} does not match the "
            f"configuration ({config.run_id}); the manifest was edited or damaged"
        )
    if doc.get("schema") != dict(D.COLUMN_TYPES):
        raise D.DatasetError(f"{directory}: its schema differs from this version's pinned schema")


def manifest_shards(directory: Path, config: SimConfig, doc: dict[str, Any]) -> dict[int, Any]:
    """The shard entries of a run's manifest by index, each checked to be well-formed and
    to agree with the configuration (its file name, units and rows); DatasetError if not."""
    where = directory / D.MANIFEST
    entries = doc.get("shards")
    if not isinstance(entries, list):
        raise D.DatasetError(f"{where}: malformed manifest ('shards' is not a list)")
    out: dict[int, Any] = {}
    for k, e in enumerate(entries):
        bad = f"{where}: malformed manifest (shard entry {k}"
        if not isinstance(e, dict):
            raise D.DatasetError(f"{bad} is not an object)")
        optional = [k for k in ("bytes", "crc32") if k in e]
        for key in ("index", "units", "rows", *optional):
            if type(e.get(key)) is not int:
                raise D.DatasetError(f"{bad}: {key!r} is not an integer)")
        i = e["index"]
        if not 0 <= i < config.shards:
            raise D.DatasetError(f"{bad}: index {i} is not a shard of this run)")
        if i in out:
            raise D.DatasetError(f"{bad}: shard {i} is listed twice)")
        if e.get("file") != f"{D.SHARD_DIR}/{D.shard_path(directory, i).name}":
            raise D.DatasetError(f"{bad}: file {e.get('file')!r} is not shard {i}'s)")
        units = config.units(i)[1]
        if e["units"] != units:
            raise D.DatasetError(f"{bad}: {e['units']} units, shard {i} has {units})")
        if e["rows"] < units or (config.mode == "hands" and e["rows"] != units):
            raise D.DatasetError(f"{bad}: {e['rows']} rows for {units} {config.mode})")
        out[i] = e
    return out


@dataclass(frozen=True)
class RunData:
    """A complete run, checked: its manifest, configuration, and the shard files it lists
    (each checked to belong to it by :func:`dataset.check_shard`)."""

    directory: Path
    manifest: dict[str, Any] = field(repr=False, compare=False)
    config: SimConfig
    files: tuple[Path, ...]
    rows: int

    def scan(self) -> pl.LazyFrame:
        """The run's rows, lazily, with the pinned schema: exactly the listed shards."""
        import polars as pl

        return pl.scan_parquet(list(self.files), schema=D.schema())


def read_run(directory: str | Path) -> RunData:
    """Check a complete run directory without reading its rows: the manifest (format,
    configuration, run id, schema, shard entries), completeness, and every listed shard
    (:func:`dataset.check_shard`). Any mismatch is a one-line DatasetError naming the file;
    files the manifest does not list are ignored."""
    d = Path(directory)
    doc = D.read_manifest(d)
    where = d / D.MANIFEST
    config = manifest_config(d, doc)
    check_manifest(d, config, doc)
    if not (d / D.SHARD_DIR).is_dir():
        raise D.DatasetError(f"{d}: no {D.SHARD_DIR} directory")
    entries = manifest_shards(d, config, doc)
    if doc.get("complete") is not True or len(entries) != config.shards:
        raise D.DatasetError(f"{d}: the run is not complete (use simulate --resume to finish it)")
    rows = 0
    for i in range(config.shards):
        rows += D.check_shard(config.shard_spec(d, i, entries[i]))
    if doc.get("rows") != rows:
        raise D.DatasetError(f"{where}: records {doc.get('rows')!r} rows, its shards hold {rows}")
    files = tuple(D.shard_path(d, i) for i in range(config.shards))
    return RunData(d, doc, config, files, rows)


Executor = Callable[[Run, Iterable[int]], Iterator[ShardResult]]

#: Seconds between a worker process's checks that the simulate that started it is alive.
WATCH_SECONDS = 0.2
_WATCHED: dict[str, int] = {}  # in a worker process: the pids it watches


def _worker_start(parent: int) -> None:
    """Set up a shard worker process: it ignores Ctrl-C (the parent stops its workers
    itself, after saving what is done) and exits as soon as the simulate that started it
    is gone (``kill -9`` included), checked by a watchdog thread and before each shard is
    written, so that no orphan goes on computing and writing shards."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WATCHED.update(parent=parent, ppid=os.getppid())
    threading.Thread(target=_watch_parent, name="parent-watchdog", daemon=True).start()


def _parent_gone() -> bool:
    """In a worker process: whether the simulate that started it has ended: its pid is
    gone, or a zombie (killed, not yet reaped), or the worker was re-parented."""
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
    while not _parent_gone():
        time.sleep(WATCH_SECONDS)
    os._exit(1)


def local_executor(workers: int) -> Executor:
    """Shards on ``workers`` cores of this machine: in this process when ``workers == 1``;
    else in threads when every policy is a kernel policy (the jitted loop runs without the
    GIL and so does the Parquet writer, so threads scale without starting processes that
    must import and load the kernels), or in processes for search policies (which run
    Python between kernel calls). At most two shards a worker are queued at a time. On an
    interrupt, worker processes are stopped at once (threads finish their shard, a
    fraction of a second)."""

    def execute(run: Run, todo: Iterable[int]) -> Iterator[ShardResult]:
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
        processes = not all(PolicySpec.parse(p).is_kernel for p in run.config.policies)
        if not processes:
            pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="shard")
        else:
            ctx = mp.get_context("forkserver" if os.name == "posix" else "spawn")
            pool = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=ctx,
                initializer=_worker_start,
                initargs=(os.getpid(),),
            )
        with pool:
            pending: set[Future[ShardResult]] = set()
            queue = iter(todo)
            try:
                while True:
                    for i in itertools.islice(queue, 2 * workers - len(pending)):
                        pending.add(pool.submit(run_shard, doc, i, where))
                    if not pending:
                        break
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in finished:
                        yield f.result()
            except BaseException:
                for f in pending:
                    f.cancel()
                if processes:  # stop the workers now, not after their shards
                    for proc in list((getattr(pool, "_processes", None) or {}).values()):
                        proc.terminate()
                pool.shutdown(wait=False, cancel_futures=True)
                raise

    return execute


#: Seconds the Dask executor waits for a worker by default (``--worker-timeout``).
DEFAULT_WORKER_TIMEOUT = 60.0
#: Seconds between the Dask executor's checks for finished shards and live workers.
DASK_POLL_SECONDS = 0.5


def dask_executor(
    scheduler: str | None,
    workers: int,
    worker_timeout: float = DEFAULT_WORKER_TIMEOUT,
    notify: Callable[[str], None] | None = None,
) -> Executor:
    """Shards as tasks on a Dask distributed cluster (a LocalCluster when no address), at
    most two a worker thread in flight. With no worker (none has joined, or all have
    gone) it says that it is waiting (``notify``) and gives up with a SimulationError
    after ``worker_timeout`` seconds without one."""
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

    def execute(run: Run, todo: Iterable[int]) -> Iterator[ShardResult]:
        client, cluster = connect()
        try:
            with client:
                where = scheduler or "the local cluster"
                wait_for_workers(client, where)
                doc, directory = run.config.to_json(), str(run.directory.resolve())
                queue = iter(todo)
                pending: set[Any] = set()
                alone_since: float | None = None  # when the cluster was last seen workerless
                try:
                    while True:
                        room = 2 * max(1, sum(client.nthreads().values())) - len(pending)
                        for i in itertools.islice(queue, max(0, room)):
                            key = f"shard-{run.config.run_id}-{i}"
                            pending.add(client.submit(run_shard, doc, i, directory, key=key))
                        if not pending:
                            break
                        try:
                            done, left = dask_wait(
                                pending, timeout=DASK_POLL_SECONDS, return_when="FIRST_COMPLETED"
                            )
                        except TimeoutError:
                            done, left = set(), pending
                        pending = set(left)
                        for fut in done:
                            res = _dask_result(fut)
                            if res is None:  # lost with its worker: computed again
                                pending.add(fut)
                            else:
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
        finally:
            if cluster is not None:
                cluster.close()

    return execute


def check_scheduler_address(address: str) -> None:
    """A SimulationError unless ``address`` is a Dask scheduler address that could be
    reached (a known scheme, and a host and port for network schemes); checked before a
    client is made, since a client that fails to start can deadlock when collected."""
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


@dataclass(frozen=True)
class RunSummary:
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
    """Run (or finish) a simulation into ``directory``; ``progress(units, rows)`` per shard.

    The directory is locked for the run, so a second process cannot write into it. A new
    run that fails before any shard is written (an unreachable Dask scheduler, say) leaves
    nothing behind; an interrupt (KeyboardInterrupt, or SIGTERM turned into one by the
    command) keeps its finished shards, to be resumed, and removes its temporary files.
    """
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


def _execute(
    run: Run, executor: Executor, progress: Callable[[int, int], None] | None
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
    results = executor(run, run.todo())
    try:
        for res in results:
            run.record(res)
            shards += 1
            units += res.units
            rows += res.rows
            if progress is not None:
                progress(res.units, res.rows)
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
    "SimConfig",
    "SimulationError",
    "dask_executor",
    "local_executor",
    "read_run",
    "simulate",
]
