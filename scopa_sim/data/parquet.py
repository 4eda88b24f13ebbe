"""A small, fast Parquet writer for the shard files: integer and constant columns only.

General writers (polars, pyarrow) spend most of a shard's writing time hashing values
into dictionaries and encoding columns that are constant or entirely null.  The
shards have neither problem's generality: every column is a small-range integer, a
run of consecutive numbers, or one value repeated, so this writer encodes each with
a direct-indexed dictionary, DELTA_BINARY_PACKED or a single run, in jitted kernels
(:mod:`scopa_sim.data.encoding`).  Dictionary indices are bit-packed outright, unless one
value fills most rows, when the hybrid encoding's RLE runs are worth searching for.
The files are plain Parquet (format 1 data pages, Thrift compact metadata, optional
columns with integer and string logical types), and polars and pyarrow read them back
with exactly the types given (both are tested).
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from scopa_sim.data import encoding as E

# Enumerations of parquet.thrift.
_INT32, _INT64, _BYTE_ARRAY = 1, 2, 6
_OPTIONAL = 1
_PLAIN, _RLE, _DELTA, _RLE_DICTIONARY = 0, 3, 5, 8
_DATA_PAGE, _DICTIONARY_PAGE = 0, 2
_UNCOMPRESSED = 0

#: Column kind -> (physical type, converted type, logical IntType (bits, signed) or
#: None for a string, PLAIN width in bytes).
KINDS: dict[str, tuple[int, int, tuple[int, bool] | None, int]] = {
    "int8": (_INT32, 15, (8, True), 4),
    "int16": (_INT32, 16, (16, True), 4),
    "int32": (_INT32, 17, (32, True), 4),
    "int64": (_INT64, 18, (64, True), 8),
    "uint64": (_INT64, 14, (64, False), 8),
    "string": (_BYTE_ARRAY, 0, None, 0),
}
#: Widest value range dictionary-encoded; wider columns are delta-encoded.
MAX_DICT_RANGE = 4096

_MAGIC = b"PAR1"
_BUFFER = threading.local()


@dataclass(frozen=True)
class Column:
    """One column: ``data`` (an integer array, one value per row, null where ``valid``
    is false) or, when ``data`` is None, ``constant`` on every row (None: all null)."""

    name: str
    kind: str
    data: np.ndarray | None = None
    valid: np.ndarray | None = None
    constant: int | str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown column kind {self.kind!r}")
        if (self.kind == "string") and self.data is not None:
            raise ValueError("string columns must be constant")


# --- Thrift compact protocol ---------------------------------------------------------

# A struct is a list of (field id, type, value); types: "i8", "i32", "i64", "bin",
# "bool", "struct", and "list:<type>".
Fields = list[tuple[int, str, Any]]
_TYPE_CODES = {"bool": 1, "i8": 3, "i32": 5, "i64": 6, "bin": 8, "list": 9, "struct": 12}


def _varint(out: bytearray, v: int) -> None:
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)


def _zigzag(v: int) -> int:
    return (v << 1) ^ (v >> 63)


def _value(out: bytearray, kind: str, v: Any) -> None:
    if kind in ("i32", "i64"):
        _varint(out, _zigzag(v))
    elif kind == "i8":
        out.append(v & 0xFF)
    elif kind == "bin":
        b = v.encode() if isinstance(v, str) else v
        _varint(out, len(b))
        out += b
    elif kind == "struct":
        _struct(out, v)
    elif kind.startswith("list:"):
        elem = kind[5:]
        code = _TYPE_CODES[elem]
        if len(v) < 15:
            out.append((len(v) << 4) | code)
        else:
            out.append(0xF0 | code)
            _varint(out, len(v))
        for item in v:
            _value(out, elem, item)
    else:  # pragma: no cover - a programming error
        raise ValueError(kind)


def _struct(out: bytearray, fields: Fields) -> None:
    last = 0
    for fid, kind, v in fields:
        code = (1 if v else 2) if kind == "bool" else _TYPE_CODES[kind.split(":")[0]]
        delta = fid - last
        if 0 < delta <= 15:
            out.append((delta << 4) | code)
        else:
            out.append(code)
            _varint(out, _zigzag(fid))
        last = fid
        if kind != "bool":
            _value(out, kind, v)
    out.append(0)


def thrift(fields: Fields) -> bytes:
    """The compact-protocol encoding of a struct."""
    out = bytearray()
    _struct(out, fields)
    return bytes(out)


# --- pages ---------------------------------------------------------------------------


def _scratch(size: int) -> np.ndarray:
    buf = getattr(_BUFFER, "bytes", None)
    if buf is None or buf.shape[0] < size:
        buf = _BUFFER.bytes = np.empty(max(size, 1 << 20), dtype=np.uint8)
    return buf


def _run(out: bytearray, count: int, value: int, width: int) -> None:
    """One RLE run of the hybrid encoding."""
    _varint(out, count << 1)
    out += value.to_bytes((width + 7) // 8, "little")


def _levels_all(n: int, defined: bool) -> bytes:
    """Definition levels (bit width 1) of ``n`` rows all defined or all null, with the
    4-byte length prefix of format-1 data pages."""
    body = bytearray()
    _run(body, n, int(defined), 1)
    return struct.pack("<i", len(body)) + bytes(body)


def _plain_constant(kind: str, value: int | str) -> bytes:
    if kind == "string":
        b = str(value).encode()
        return struct.pack("<i", len(b)) + b
    return int(value).to_bytes(KINDS[kind][3], "little", signed=kind != "uint64")


#: Rows looked at to choose a column's encoding (its values are alike throughout).
SAMPLE = 4096


def _has_long_runs(values: np.ndarray, lo: int, span: int) -> bool:
    """Whether one value fills nine rows in ten or more (in a sample), so that runs of 8
    are common and the hybrid encoding's RLE runs pay for the search; else the column
    is bit-packed outright, several times faster to write and about as small."""
    counts = np.bincount(values[:SAMPLE] - lo, minlength=span)
    return bool(counts.max() * 10 >= 9 * min(SAMPLE, values.shape[0]))


class _ChunkWriter:
    """Writes one column chunk's pages and returns its ColumnMetaData."""

    def __init__(self, f: IO[bytes], n: int) -> None:
        self.f = f
        self.n = n

    def page(self, kind: int, body: bytes | memoryview, header: Fields, prefix: bytes = b"") -> int:
        """Write a page of ``prefix + body`` (the body may be a view of the scratch buffer,
        written without a copy); return where it starts."""
        sub = 5 if kind == _DATA_PAGE else 7  # data_page_header or dictionary_page_header
        size = len(prefix) + len(body)  # uncompressed and compressed
        head = thrift(
            [(1, "i32", kind), (2, "i32", size), (3, "i32", size), (sub, "struct", header)]
        )
        at = self.f.tell()
        self.f.write(head + prefix)
        self.f.write(body)
        return at

    def data_header(self, encoding: int) -> Fields:
        return [(1, "i32", self.n), (2, "i32", encoding), (3, "i32", _RLE), (4, "i32", _RLE)]

    def write(self, col: Column) -> Fields:
        start = self.f.tell()
        dict_at: int | None = None
        n = self.n
        constant = col.constant
        if col.data is None and constant is not None:  # one value: a one-entry dictionary
            encodings = [_PLAIN, _RLE, _RLE_DICTIONARY]
            dict_at = self.page(
                _DICTIONARY_PAGE,
                _plain_constant(col.kind, constant),
                [(1, "i32", 1), (2, "i32", _PLAIN)],
            )
            idx = bytearray(b"\x01")  # bit width 1
            _run(idx, n, 0, 1)
            body = _levels_all(n, True) + bytes(idx)
            data_at = self.page(_DATA_PAGE, body, self.data_header(_RLE_DICTIONARY))
        elif col.data is None or (col.valid is not None and not col.valid.any()):
            encodings = [_PLAIN, _RLE]  # every row null: definition levels only
            data_at = self.page(_DATA_PAGE, _levels_all(n, False), self.data_header(_PLAIN))
        else:
            encodings, dict_at, data_at = self._write_data(col)
        physical = KINDS[col.kind][0]
        return [
            (1, "i32", physical),
            (2, "list:i32", encodings),
            (3, "list:bin", [col.name]),
            (4, "i32", _UNCOMPRESSED),
            (5, "i64", n),
            (6, "i64", self.f.tell() - start),
            (7, "i64", self.f.tell() - start),
            (9, "i64", data_at),
            *([(11, "i64", dict_at)] if dict_at is not None else []),
        ]

    def _write_data(self, col: Column) -> tuple[list[int], int | None, int]:
        """A data column: dictionary-encoded when its values span a small range (the
        dictionary is the whole range, so indices are values minus the minimum, and no
        hashing or ranking is needed), else delta-encoded."""
        n = self.n
        data = col.data
        assert data is not None and data.shape == (n,)
        buf = _scratch(9 * n + 64)
        if col.valid is None:
            levels = _levels_all(n, True)
            some = data
        else:
            pos = E.rle_hybrid(col.valid.view(np.uint8), 0, n, 1, buf, 4)
            buf[:4] = np.frombuffer(struct.pack("<i", pos - 4), dtype=np.uint8)
            levels = buf[:pos].tobytes()
            some = data[col.valid]
        lo, hi = int(some.min()), int(some.max())
        span = hi - lo + 1
        if span <= MAX_DICT_RANGE and span <= some.shape[0]:
            plain = np.arange(lo, hi + 1, dtype=f"<i{KINDS[col.kind][3]}")
            header = [(1, "i32", span), (2, "i32", _PLAIN)]
            dict_at = self.page(_DICTIONARY_PAGE, plain.tobytes(), header)
            width = max(1, (span - 1).bit_length())
            buf[0] = width
            m = some.shape[0]
            if span == 1:  # one value: one run
                idx = bytearray()
                _run(idx, m, 0, width)
                end = 1 + len(idx)
                buf[1:end] = np.frombuffer(bytes(idx), dtype=np.uint8)
            elif _has_long_runs(some, lo, span):
                end = E.rle_hybrid(some, lo, m, width, buf, 1)
            else:
                end = E.bit_packed(some, lo, m, width, buf, 1)
            data_at = self.page(
                _DATA_PAGE, buf[:end].data, self.data_header(_RLE_DICTIONARY), prefix=levels
            )
            return [_PLAIN, _RLE, _RLE_DICTIONARY], dict_at, data_at
        bits = 8 * KINDS[col.kind][3]
        wide = some if some.dtype == np.int64 else some.astype(np.int64)
        end = E.delta_binary_packed(wide, some.shape[0], bits, buf, 0)
        data_at = self.page(_DATA_PAGE, buf[:end].data, self.data_header(_DELTA), prefix=levels)
        return [_RLE, _DELTA], None, data_at


def _schema_element(col: Column) -> Fields:
    physical, converted, logical = KINDS[col.kind][:3]
    if logical is None:
        logical_fields: Fields = [(1, "struct", [])]  # STRING
    else:
        bits, signed = logical
        logical_fields = [(10, "struct", [(1, "i8", bits), (2, "bool", signed)])]  # INTEGER
    return [
        (1, "i32", physical),
        (3, "i32", _OPTIONAL),
        (4, "bin", col.name),
        (6, "i32", converted),
        (10, "struct", logical_fields),
    ]


def write_table(f: IO[bytes], n: int, columns: Sequence[Column], created_by: str) -> None:
    """Write ``n`` rows of ``columns`` as one Parquet file (one row group) to ``f``."""
    f.write(_MAGIC)
    chunk = _ChunkWriter(f, n)
    chunks: list[Fields] = []
    start = f.tell()
    for col in columns:
        at = f.tell()
        meta = chunk.write(col)
        chunks.append([(2, "i64", at), (3, "struct", meta)])
    size = f.tell() - start
    root: Fields = [(4, "bin", "schema"), (5, "i32", len(columns))]
    footer = thrift(
        [
            (1, "i32", 1),
            (2, "list:struct", [root] + [_schema_element(c) for c in columns]),
            (3, "i64", n),
            (4, "list:struct", [[(1, "list:struct", chunks), (2, "i64", size), (3, "i64", n)]]),
            (6, "bin", created_by),
        ]
    )
    f.write(footer)
    f.write(struct.pack("<i", len(footer)))
    f.write(_MAGIC)
