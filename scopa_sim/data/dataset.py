"""The simulated-hands dataset: pinned Parquet schema, atomic shard files, a manifest.

A run directory holds ``manifest.json`` and ``shards/shard-NNNNNN.parquet``; one
row per hand.  :func:`scan` reads exactly the shards the manifest lists, each
checked to belong to the run (:func:`check_shard`), with the column types of
:data:`SCHEMA`, whatever the rules (columns of sides that a game does not have
are null).
"""

from __future__ import annotations

import functools
import json
import os
import re
import threading
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from scopa_sim._version import __version__
from scopa_sim.data.parquet import Column, write_table
from scopa_sim.errors import DatasetError
from scopa_sim.files import check_utf8_path

if TYPE_CHECKING:
    import polars as pl

SHARD_DIR = "shards"
MANIFEST = "manifest.json"
FORMAT = "scopa-sim-dataset/1"
MAX_SIDES = 4
MAX_SEATS = 4
ITEMS = ("scope", "cards", "denari", "settebello", "primiera", "re_bello", "napola", "points")
#: The score items of the kernels' rows (``I_*`` order): :data:`ITEMS` and the four-sevens
#: point, which has no column of its own: a side scored it exactly when the rules have
#: ``four_sevens_point`` and its ``s{k}_sevens`` is 4 (:func:`four_sevens_expr`), so the
#: pinned schema, and every shard of the rule sets without the option, stay as they were.
KERNEL_ITEMS = (*ITEMS[:-1], "four_sevens", "points")
SIDE_STATS = ("captured", "denari_count", "primiera_value", "sevens")
#: Cirulla's items (RULES.md §10), columns ``s{k}_grande``, ``s{k}_piccola`` and
#: ``s{k}_declarations`` (Int16, after every other column) of Cirulla runs' shards only, so
#: that every other run's files stay as they were; ``s{k}_points`` counts them.
CIRULLA_ITEMS = ("grande", "piccola", "declarations")
SHARD_RE = re.compile(r"^shard-(\d{6})\.parquet$")
_SIDE_RE = re.compile(r"^s(\d)_")  # a per-side column, s{k}_...


def _column_types() -> dict[str, str]:
    s = {
        "run_id": "String",
        "preset": "String",
        "rules_hash": "String",
        "players": "Int8",
        "sides": "Int8",
        "seed": "UInt64",
        "match": "Int64",
        "hand": "Int32",
        "dealer": "Int8",
        "first_player": "Int8",
        "redeals": "Int16",
        "plays": "Int16",
    }
    for seat in range(MAX_SEATS):
        s[f"policy_{seat}"] = "String"
    for side in range(MAX_SIDES):
        for item in ITEMS:
            s[f"s{side}_{item}"] = "Int16"
        for stat in SIDE_STATS:
            s[f"s{side}_{stat}"] = "Int16"
        s[f"s{side}_total"] = "Int32"
    s["winner"] = "Int8"
    return s


#: Column name -> pinned type (the name of its polars type), in file order.
COLUMN_TYPES: dict[str, str] = _column_types()


def column_types(cirulla: bool = False) -> dict[str, str]:
    """The pinned column types of a run's shards: :data:`COLUMN_TYPES`, and with
    ``cirulla`` (a run of ``capture_mode=cirulla``) :data:`CIRULLA_ITEMS`' columns after
    them, side by side."""
    if not cirulla:
        return COLUMN_TYPES
    extra = {f"s{side}_{item}": "Int16" for side in range(MAX_SIDES) for item in CIRULLA_ITEMS}
    return COLUMN_TYPES | extra


@functools.cache
def schema(cirulla: bool = False) -> dict[str, pl.DataType]:
    """Column name -> pinned polars type, in file order (:data:`SCHEMA`; with ``cirulla``
    a Cirulla run's, :func:`column_types`)."""
    import polars as pl

    return {name: getattr(pl, type_name) for name, type_name in column_types(cirulla).items()}


def __getattr__(name: str) -> Any:
    """``SCHEMA``, the pinned polars types, built on first use: writing shards does not
    need polars, so ``simulate`` starts without importing it."""
    if name == "SCHEMA":
        return schema()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if TYPE_CHECKING:
    #: Column name -> pinned polars type, in file order.
    SCHEMA: dict[str, pl.DataType]

# Column layout of the kernel's row columns (see _engine.fused.fused_rows).
_KERNEL_COLS = ("match", "hand", "dealer", "first_player", "redeals", "plays")


def kernel_columns(cirulla: bool = False) -> list[str]:
    """Names of the columns of the kernel's row array, in order (with ``cirulla``, of the
    Cirulla loop's: :data:`CIRULLA_ITEMS` by side at the end)."""
    cols = list(_KERNEL_COLS)
    for side in range(MAX_SIDES):
        cols += [f"s{side}_{item}" for item in KERNEL_ITEMS]
    for side in range(MAX_SIDES):
        cols += [f"s{side}_{stat}" for stat in SIDE_STATS]
    cols += [f"s{side}_total" for side in range(MAX_SIDES)]
    cols.append("winner")
    if cirulla:
        cols += [f"s{side}_{item}" for side in range(MAX_SIDES) for item in CIRULLA_ITEMS]
    return cols


def four_sevens_expr(side: int, on: bool) -> pl.Expr:
    """Side ``side``'s four-sevens point of each row (``s{side}_four_sevens``, Int16) as
    an expression on a run's rows: 1 where it holds all four sevens and the run's rules
    have ``four_sevens_point`` (``on``), else 0; null for a side the game does not have."""
    import polars as pl

    sevens = pl.col(f"s{side}_sevens")
    got = (sevens == 4).cast(pl.Int16) if on else pl.lit(0, pl.Int16)
    return pl.when(sevens.is_null()).then(None).otherwise(got).alias(f"s{side}_four_sevens")


#: Pinned type -> the shard writer's column kind.
_KINDS = {
    "Int8": "int8",
    "Int16": "int16",
    "Int32": "int32",
    "Int64": "int64",
    "UInt64": "uint64",
    "String": "string",
}


def shard_columns(
    cols: np.ndarray,
    *,
    first: int,
    run_id: str,
    preset: str,
    rules_hash: str,
    players: int,
    sides: int,
    seed: int,
    policies: Sequence[str],
    cirulla: bool = False,
) -> list[Column]:
    """A shard's columns, in :data:`SCHEMA` order, from the kernel's row columns
    (``cols[C_*, row]``, match numbers counted from ``first``); with ``cirulla`` (a
    Cirulla run's rows, :func:`kernel_columns`) Cirulla's item columns too.

    The run's constants and the absent sides' nulls are single values, not arrays, so
    they cost nothing to build and next to nothing to write.
    """
    n = cols.shape[1]
    index = {name: i for i, name in enumerate(kernel_columns(cirulla))}
    constants: dict[str, Any] = {
        "run_id": run_id,
        "preset": preset,
        "rules_hash": rules_hash,
        "players": players,
        "sides": sides,
        "seed": seed,
    }
    for seat in range(MAX_SEATS):
        constants[f"policy_{seat}"] = policies[seat] if seat < players else None
    out = []
    for name, type_name in column_types(cirulla).items():
        kind = _KINDS[type_name]
        side = _SIDE_RE.match(name)
        if name in constants:
            out.append(Column(name, kind, constant=constants[name]))
        elif side and int(side[1]) >= sides:  # a side the game does not have
            out.append(Column(name, kind))
        elif name == "match":
            match = cols[index[name], :n].astype(np.int64)
            match += first
            out.append(Column(name, kind, data=match))
        elif name == "winner":  # -1 (no winner yet, or hands mode) is null
            data = cols[index[name], :n]
            out.append(Column(name, kind, data=data, valid=data >= 0))
        else:
            out.append(Column(name, kind, data=cols[index[name], :n]))
    return out


def shard_path(directory: Path, index: int) -> Path:
    return directory / SHARD_DIR / f"shard-{index:06d}.parquet"


class _Checksummed:
    """A binary file that keeps the CRC-32 of the bytes written to it."""

    def __init__(self, f: BinaryIO) -> None:
        self.f = f
        self.crc = 0

    def write(self, data: bytes | memoryview) -> int:
        self.crc = zlib.crc32(data, self.crc)
        return self.f.write(data)

    def tell(self) -> int:
        return self.f.tell()


def write_shard(
    directory: Path, index: int, rows: int, columns: Sequence[Column]
) -> tuple[Path, int]:
    """Write a shard atomically: a temporary file in the same folder, then rename; return
    its path and the CRC-32 of its bytes (recorded in the manifest, checked by readers).

    The file is written by :mod:`scopa_sim.data.parquet`, which encodes these columns
    several times faster than a general writer (see that module).
    """
    path = shard_path(directory, index)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with open(tmp, "wb") as f:
        out = _Checksummed(f)
        write_table(out, rows, columns, created_by=f"scopa-sim version {__version__}")  # type: ignore[arg-type]
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path, out.crc


def file_crc32(path: Path) -> int:
    """The CRC-32 of a file's bytes (about 0.5 ms for a shard of 250,000 hands)."""
    crc = 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            crc = zlib.crc32(chunk, crc)
    return crc


def finished_shards(directory: Path) -> set[int]:
    """Indices of the complete shard files present (temporary files are ignored)."""
    d = directory / SHARD_DIR
    if not d.is_dir():
        return set()
    out = set()
    for p in d.iterdir():
        m = SHARD_RE.match(p.name)
        if m:
            out.add(int(m.group(1)))
    return out


@dataclass(frozen=True)
class ShardSpec:
    """What one shard file of a run must be, from the run's configuration and manifest:
    checked by :func:`check_shard` both when a run is read and when it is resumed."""

    path: Path
    run_id: str
    preset: str
    rules_hash: str
    seed: int
    players: int
    sides: int
    policies: tuple[str, ...]  # one per seat
    first: int  # the first unit (match number) of the shard
    units: int
    rows: int | None = None  # None: unknown (a matches shard adopted on resume)
    size: int | None = None  # bytes, None where the manifest predates recording it
    crc32: int | None = None  # of the file's bytes, None likewise
    cirulla: bool = False  # a Cirulla run's shard: its schema has CIRULLA_ITEMS' columns


#: The run constants of a shard, and their column names.
_CONSTANTS = ("run_id", "preset", "rules_hash", "seed", "players", "sides")


def _reraise_interrupts(e: BaseException) -> None:
    """Let Ctrl-C and exits through the handlers of every polars failure on a damaged
    file: its exceptions, and a Rust panic on some bad pages (``PanicException``, which
    derives from BaseException)."""
    if isinstance(e, (KeyboardInterrupt, SystemExit, GeneratorExit)):
        raise e


def check_shard(spec: ShardSpec) -> int:
    """Raise a one-line DatasetError naming the file unless it is the shard ``spec``
    describes: present, of the recorded size, readable Parquet with the pinned schema,
    the expected number of rows, the run's constants (run id, preset, rules, seed,
    players, sides, policies: on its first and last rows) and the units ``first`` to
    ``first + units - 1`` (the least and greatest match numbers). Reads the footer and a few cheap
    aggregates, and its CRC-32 if recorded (about 6 ms for 250,000 rows; without one, every
    page is decoded instead); returns the shard's rows."""
    import polars as pl

    path = spec.path
    if not path.is_file():
        raise DatasetError(f"{path}: listed in the manifest but missing")
    size = path.stat().st_size
    if spec.size is not None and size != spec.size:
        raise DatasetError(
            f"{path}: {size} bytes, the manifest records {spec.size} (truncated or replaced)"
        )
    if spec.crc32 is not None and file_crc32(path) != spec.crc32:
        raise DatasetError(
            f"{path}: its checksum differs from the manifest's (the file was damaged or altered)"
        )
    try:
        found = pl.read_parquet_schema(path)
    except BaseException as e:  # polars raises several error types for foreign files
        _reraise_interrupts(e)
        raise DatasetError(f"{path}: not a readable Parquet file ({type(e).__name__})") from None
    if dict(found) != schema(spec.cirulla):
        types = column_types(spec.cirulla)
        extra = sorted(set(found) - set(types))
        missing = [c for c in types if c not in found]
        what = (
            f"extra column {extra[0]!r}"
            if extra
            else f"no column {missing[0]!r}"
            if missing
            else "column types differ"
        )
        raise DatasetError(f"{path}: not a scopa-sim shard ({what}; the schema is pinned)")
    policies = [f"policy_{k}" for k in range(MAX_SEATS)]
    try:
        # Without a recorded checksum (a manifest from before checksums), every page is
        # decoded once here, so that damage is found now rather than in a later query.
        frame = pl.scan_parquet(path) if spec.crc32 is not None else pl.read_parquet(path).lazy()
        got = (
            frame.select(
                pl.len().alias("__rows"),
                *(pl.col(c).first() for c in (*_CONSTANTS, *policies)),
                *(pl.col(c).last().alias(f"__last_{c}") for c in (*_CONSTANTS, *policies)),
                pl.col("match").min().alias("__lo"),
                pl.col("match").max().alias("__hi"),
            )
            .collect()
            .row(0, named=True)
        )
    except BaseException as e:  # a truncated or damaged file whose footer still parses
        _reraise_interrupts(e)
        raise DatasetError(f"{path}: unreadable shard ({type(e).__name__})") from None
    if spec.rows is not None and got["__rows"] != spec.rows:
        raise DatasetError(f"{path}: {got['__rows']} rows, the manifest records {spec.rows}")
    expected: dict[str, Any] = {c: getattr(spec, c) for c in _CONSTANTS}
    for seat in range(MAX_SEATS):
        expected[f"policy_{seat}"] = spec.policies[seat] if seat < spec.players else None
    for name, value in expected.items():
        if got[name] != value or got[f"__last_{name}"] != value:
            raise DatasetError(
                f"{path}: not a shard of run {spec.run_id} ({name} is {got[name]!r}, "
                f"expected {value!r})"
            )
    last = spec.first + spec.units - 1
    if (got["__lo"], got["__hi"]) != (spec.first, last):
        raise DatasetError(
            f"{path}: holds matches {got['__lo']}..{got['__hi']}, expected {spec.first}..{last}"
            " (a shard of another position in the run)"
        )
    rows: int = got["__rows"]
    return rows


def read_manifest(directory: Path) -> dict[str, Any]:
    """The manifest of a run directory; DatasetError if missing, corrupt or foreign."""
    path = directory / MANIFEST
    check_utf8_path(directory)
    if not directory.exists():
        raise DatasetError(f"{directory}: no such directory")
    if not directory.is_dir():
        raise DatasetError(f"{directory}: not a directory")
    if not path.is_file():
        raise DatasetError(f"{directory}: not a scopa-sim run (no {MANIFEST})")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise DatasetError(f"{path}: corrupt manifest ({e})") from None
    except OSError as e:
        raise DatasetError(f"{path}: cannot read the manifest ({e.strerror})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise DatasetError(f"{path}: not a scopa-sim manifest (format is not {FORMAT!r})")
    return doc


def write_manifest(directory: Path, doc: dict[str, Any]) -> None:
    """Write the manifest atomically."""
    path = directory / MANIFEST
    tmp = path.with_name(f".{MANIFEST}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
