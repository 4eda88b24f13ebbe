"""A run's shards: computing one shard's rows (the jitted loop for kernel policies, bots
decision by decision otherwise), writing its Parquet file, and the run directory being
filled (:class:`RunWriter`), which records each finished shard in the manifest."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scopa_sim import _engine as K
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.data import dataset as D
from scopa_sim.data.run import SimConfig
from scopa_sim.errors import SimulationError
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import score_points
from scopa_sim.sim.match import HandLog, HandPlayer, play_match
from scopa_sim.sim.pool import parent_gone


@dataclass(frozen=True)
class ShardResult:
    """A shard written by a worker: its index, rows, units, file, size and checksum, and its
    seconds (whole, computing, writing).
    """

    index: int
    rows: int
    units: int
    seconds: float  # the whole shard
    file: str
    compute_seconds: float  # computing its rows (the jitted loop, or the bots)
    write_seconds: float  # encoding and writing its Parquet file
    size: int  # bytes of the file, recorded in the manifest and checked by readers
    crc32: int  # of the file's bytes, likewise


#: Seconds of work per call of the jitted loop, about, when a shard reports its progress
#: as it goes (:func:`compute_rows`' ``done``): a shard that would take longer than 3
#: times :data:`PROGRESS_SECONDS` is computed in blocks of hands, so that the progress
#: moves several times a second; a faster one in one call, as without progress.
PROGRESS_SECONDS = 0.25
#: Hands of the block that measures the loop's speed (on the first shard of given rules
#: and policies in a process); blocks are whole multiples of it.
PROGRESS_HANDS = 4096
_RATES: dict[str, float] = {}  # rules and policies -> hands a second of one thread


def compute_rows(
    config: SimConfig,
    first: int,
    count: int,
    out: np.ndarray | None = None,
    done: Callable[[int], None] | None = None,
) -> np.ndarray:
    """The rows (one per hand) of ``count`` units from ``first``, column-major: ``cols[C_*,
    row]`` in the order of ``dataset.kernel_columns()``, with ``cols[C_MATCH]`` the unit's
    offset from ``first``. Computed in the jitted loop for kernel policies, else hand by
    hand with bots. ``out`` (int32, ``N_ROW_COLS`` rows, zeroed once) is a buffer to reuse
    for ``--hands`` runs; the result is then that buffer. One of another width than
    ``count`` is not used (a slice of it would not be C-contiguous, and the jitted loop
    would compile a second time for that layout). ``done(n)``, when given, is called as
    each ``n`` more units are computed (in blocks of hands of about
    :data:`PROGRESS_SECONDS`, each bot-played unit, each call of the matches loop); the
    rows are the same either way.
    """
    if not config.is_kernel:
        return _bot_rows(config, list(config.specs), first, count, done)
    r = config.rules.loop_array()
    codes = config.kernel_codes
    m = config.kernel_model  # the learned policy's weights, where a seat plays it
    if config.deal == "swapped":
        from scopa_sim.sim.duplicate import swapped_rows

        rows = swapped_rows(config.rules, codes, config.seed, first, count, model=m)
        if done is not None:
            done(count)
        return rows
    if config.mode == "hands":  # one row per unit: fill the caller's buffer
        if out is None or out.shape != (row_width(config.rules), count):
            out = row_buffer(count, row_width(config.rules))
        if done is None:
            fused_rows(r, codes, config.seed, False, first, count, out, model=m)
        else:
            _hand_rows_in_blocks(config, r, codes, first, count, out, done)
        return out
    return _match_rows(config, r, codes, first, count, done)


def _hand_rows_in_blocks(
    config: SimConfig,
    r: np.ndarray,
    codes: np.ndarray,
    first: int,
    count: int,
    out: np.ndarray,
    done: Callable[[int], None],
) -> None:
    """Fill ``out`` with the rows of hands ``first`` to ``first + count - 1``, ``done(n)``
    after each block of ``n``. The loop's speed for these rules and policies (measured
    on the earlier shards of this process, or on a first block of :data:`PROGRESS_HANDS`
    hands, after one hand that may load the loop from numba's cache) decides: a shard
    that takes under 3 times :data:`PROGRESS_SECONDS` is one call straight into ``out``
    (a measuring block is computed again there: cheaper than copying the rest), a
    longer one blocks of about :data:`PROGRESS_SECONDS`, each copied into ``out``. A
    hand's row depends on its number alone, so the rows are those of one call
    (``C_MATCH``, the offset from the block's first hand, is made the offset from
    ``first``)."""
    key = f"{config.rules.digest()}:{codes.tolist()}"
    m = config.kernel_model
    t0 = time.perf_counter()
    rate = _RATES.get(key)
    start = 0
    if rate is None and count > PROGRESS_HANDS:  # measure on a first block
        # after one hand: the loop's first call in a process may load it from numba's cache
        fused_rows(r, codes, config.seed, False, first, 1, out, model=m)
        t0 = t = time.perf_counter()
        _block_into(config, r, codes, first, 0, PROGRESS_HANDS, out)
        rate = PROGRESS_HANDS / max(time.perf_counter() - t, 1e-6)
        start = PROGRESS_HANDS
        done(PROGRESS_HANDS)
    if rate is None or count - start <= 3 * PROGRESS_SECONDS * rate:
        fused_rows(r, codes, config.seed, False, first, count, out, model=m)
        done(count - start)
        start = count
    while start < count and rate is not None:
        size = max(1, round(PROGRESS_SECONDS * rate / PROGRESS_HANDS)) * PROGRESS_HANDS
        n = min(size, count - start)
        t = time.perf_counter()
        _block_into(config, r, codes, first, start, n, out)
        rate = n / max(time.perf_counter() - t, 1e-6)
        start += n
        done(n)
    _RATES[key] = count / max(time.perf_counter() - t0, 1e-6)


def _block_into(
    config: SimConfig,
    r: np.ndarray,
    codes: np.ndarray,
    first: int,
    start: int,
    n: int,
    out: np.ndarray,
) -> None:
    """The rows of hands ``first + start`` to ``first + start + n - 1`` into columns
    ``start`` to ``start + n - 1`` of ``out``: the first block straight into ``out`` (the
    loop fills its first ``n`` columns), the others through this thread's C-contiguous
    block buffer (:func:`_block_buffer`)."""
    m = config.kernel_model
    if start == 0:
        fused_rows(r, codes, config.seed, False, first, n, out, model=m)
        return
    buf = _block_buffer(n, out.shape[0])
    fused_rows(r, codes, config.seed, False, first + start, n, buf, model=m)
    part = out[:, start : start + n]
    part[...] = buf[:, :n]
    K.offset_row_matches(part, start)


def row_buffer(count: int, width: int = K.N_ROW_COLS) -> np.ndarray:
    """A zeroed buffer of ``count`` rows for :func:`compute_rows`'s ``out`` (int32, one
    row per column of ``dataset.kernel_columns()``, C-contiguous; ``width``: their
    number, :func:`row_width`)."""
    return np.zeros((width, count), dtype=np.int32)


def row_width(rules: Rules) -> int:
    """The number of columns of the kernels' rows of a run under ``rules``
    (``dataset.kernel_columns()``): Cirulla's rows have its items besides."""
    return K.N_ROW_COLS_CIRULLA if rules.cirulla else K.N_ROW_COLS


def fused_rows(
    r: np.ndarray,
    codes: np.ndarray,
    seed: int,
    by_match: bool,
    first: int,
    n: int,
    out: np.ndarray,
    model: np.ndarray | None = None,
) -> tuple[int, int]:
    """``K.fused_rows`` (``model``: the learned policy's weights, where a seat plays it),
    or under Cirulla's rules (``K.is_cirulla``) ``K.fused_rows_cirulla``: the jitted
    loop's rows (see there)."""
    if K.is_cirulla(r):
        return K.fused_rows_cirulla(r, codes, seed, by_match, first, n, out, model=model)
    return K.fused_rows(r, codes, seed, by_match, first, n, out, model=model)


def row_points(cols: np.ndarray, sides: int) -> np.ndarray:
    """Each side's points of the hand in rows ``cols`` of :func:`compute_rows`:
    ``points[row, side]`` (int64, ``sides`` columns; the ``s{side}_points`` columns)."""
    return np.stack([K.row_side_points(cols, s) for s in range(sides)], axis=1).astype(np.int64)


#: Rows the jitted loop writes per call in matches mode (a buffer of about 60 MB): a
#: default shard of 25,000 short matches takes one call.
MATCH_BLOCK_ROWS = 1 << 18


def _match_rows(
    config: SimConfig,
    r: np.ndarray,
    codes: np.ndarray,
    first: int,
    count: int,
    report: Callable[[int], None] | None = None,
) -> np.ndarray:
    """The rows of ``count`` whole matches from ``first`` through the jitted loop, in calls
    of about :data:`MATCH_BLOCK_ROWS` rows, however long the matches (the target may be
    1,000). Each call gets as many matches as should fill its buffer with room to spare:
    at first by a third of the bound of ``sides * target`` hands a match (each hand scores
    at least one point; a side scores about one point in three of the hand's), then by
    the hands a match has taken so far. The loop stops before a match
    that could not fit in the last 64 rows of room, but a longer match than the room left
    raises; that call is then made again with fewer matches (or, for one match, more
    room), which gives the same rows since a match's data depend only on its number.
    ``report(n)`` after each call, ``n`` the matches it made."""
    bound = config.rules.sides * config.rules.target + 1
    m = config.kernel_model
    per = bound / 3  # rows a match, until matches have been seen
    parts = []
    done = rows_done = 0
    while done < count:
        n = max(1, min(count - done, int(MATCH_BLOCK_ROWS / per)))
        cap = int(n * per * 1.25) + bound + 64
        while True:
            buf = np.zeros((row_width(config.rules), cap), dtype=np.int32)
            try:
                units, rows = fused_rows(r, codes, config.seed, True, first + done, n, buf, model=m)
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
        K.offset_row_matches(part, done)
        parts.append(part)
        done += int(units)
        rows_done += int(rows)
        per = rows_done / done
        if report is not None:
            report(int(units))
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)


def _bot_rows(
    config: SimConfig,
    specs: list[PolicySpec],
    first: int,
    count: int,
    done: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Rows of units played decision by decision (search policies), same layout;
    ``done(1)`` after each unit."""
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
                        (0,) * rules.sides, tuple(score_points(hp.score)), None,
                        hp.redeals)
            ]  # fmt: skip
        for log in logs:
            row = K.hand_row(
                match=log.match - first,
                hand=log.hand,
                dealer=log.dealer,
                players=rules.players,
                redeals=log.redeals,
                plays=len(log.plays),
                score=log.score,
                piles=log.piles,
                totals=log.totals_after,
                winner=log.winner,
            )
            rows.append(row)
        if done is not None:
            done(1)
    return np.stack(rows, axis=1)


#: Each thread's reusable row buffer (it computes one shard at a time), so that shards do
#: not pay for fresh pages.
_BUFFERS = threading.local()


def _row_buffer(count: int, width: int = K.N_ROW_COLS, name: str = "rows") -> np.ndarray:
    """This thread's reusable buffer ``name`` of ``count`` rows (``width`` columns)."""
    buf = getattr(_BUFFERS, name, None)
    if buf is None or buf.shape != (width, count):
        buf = row_buffer(count, width)
        setattr(_BUFFERS, name, buf)
    return buf


def _block_buffer(n: int, width: int = K.N_ROW_COLS) -> np.ndarray:
    """This thread's block buffer, with room for at least ``n`` rows (the jitted loop
    fills the first ``n`` of a larger one; :func:`_block_into` copies those): made again
    only when a larger one is needed, for a power of two times :data:`PROGRESS_HANDS`
    rows and :data:`_BLOCK_PAD` more, so that blocks of any size (each sized on the speed
    just measured, the last one of a shard what is left) reuse its pages rather than pay
    for fresh ones."""
    buf = getattr(_BUFFERS, "block", None)
    if buf is None or buf.shape[1] < n or buf.shape[0] != width:
        blocks = -(-n // PROGRESS_HANDS)
        buf = row_buffer(PROGRESS_HANDS * (1 << (blocks - 1).bit_length()) + _BLOCK_PAD, width)
        _BUFFERS.block = buf
    return buf


#: Rows a block buffer has beyond a power of two times :data:`PROGRESS_HANDS`, so that
#: its columns (one per field, each a row of the array) do not start a power of two of
#: bytes apart: the loop writes one value into each for every hand, and at such strides
#: those writes fall into the same cache sets (the loop ran measurably slower).
_BLOCK_PAD = 16


def run_shard(
    config: SimConfig, index: int, directory: str, done: Callable[[int], None] | None = None
) -> ShardResult:
    """Compute and write one shard (in this process, in a thread, or in a worker process
    or Dask task through :func:`run_shard_json`).

    Args:
        config: the run's configuration.
        index: the shard's number.
        directory: the run directory.
        done: called with ``n`` as each ``n`` units (hands or matches) are computed
            (see :func:`compute_rows`); None: no report.

    Returns:
        The :class:`ShardResult` (the shard file is written atomically).
    """
    t0 = time.perf_counter()
    first, count = config.units(index)
    buf = _row_buffer(count, row_width(config.rules)) if config.mode == "hands" else None
    cols = compute_rows(config, first, count, buf, done)
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
        cirulla=config.cirulla,
    )
    if parent_gone():  # an orphaned worker process writes nothing
        os._exit(1)
    path, crc = D.write_shard(Path(directory), index, cols.shape[1], columns)
    t2 = time.perf_counter()
    size = path.stat().st_size
    rows = cols.shape[1]
    return ShardResult(index, rows, count, t2 - t0, path.name, t1 - t0, t2 - t1, size, crc)


def run_shard_json(
    config_doc: dict[str, Any],
    index: int,
    directory: str,
    done: Callable[[int], None] | None = None,
) -> ShardResult:
    """:func:`run_shard` of a configuration in its JSON form (:meth:`SimConfig.to_json`):
    the task of a worker process or a Dask worker, which receive the run that way."""
    return run_shard(SimConfig.from_json(config_doc), index, directory, done)


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
class RunWriter:
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
        """Add a finished shard to the manifest and save it."""
        seconds = (res.seconds, res.compute_seconds, res.write_seconds)
        self.manifest["shards"].append(
            _shard_entry(res.index, res.file, res.units, res.rows, res.size, res.crc32, seconds)
        )
        self.manifest["shards"].sort(key=lambda s: s["index"])
        self.save()

    def save(self) -> None:
        """Write the manifest (its row count and completeness updated), atomically."""
        self.manifest["rows"] = sum(s["rows"] for s in self.manifest["shards"])
        self.manifest["complete"] = len(self.manifest["shards"]) == self.config.shards
        D.write_manifest(self.directory, self.manifest)
