"""The shard Parquet writer: files read back exactly, by polars and by pyarrow."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scopa_sim.data import encoding as E
from scopa_sim.data import parquet as P

pq = pytest.importorskip("pyarrow.parquet")

DTYPES = {
    "int8": pl.Int8,
    "int16": pl.Int16,
    "int32": pl.Int32,
    "int64": pl.Int64,
    "uint64": pl.UInt64,
    "string": pl.String,
}
BOUNDS = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}


def expected(columns: list[P.Column], n: int) -> pl.DataFrame:
    """What a file of ``columns`` must read as, built with polars alone."""
    out = {}
    for c in columns:
        dtype = DTYPES[c.kind]
        if c.data is None:
            out[c.name] = pl.repeat(c.constant, n, dtype=dtype, eager=True)
        else:
            values = [int(v) for v in c.data]
            if c.valid is not None:
                values = [v if ok else None for v, ok in zip(values, c.valid, strict=True)]
            out[c.name] = pl.Series(c.name, values, dtype=dtype)
    return pl.DataFrame(out)


def write(path: Path, n: int, columns: list[P.Column]) -> None:
    with open(path, "wb") as f:
        P.write_table(f, n, columns, created_by="scopa-sim tests")


def assert_round_trip(path: Path, n: int, columns: list[P.Column]) -> None:
    write(path, n, columns)
    want = expected(columns, n)
    assert pl.read_parquet_schema(path) == dict(want.schema)
    got = pl.read_parquet(path)
    assert got.equals(want)
    assert pl.from_arrow(pq.read_table(path)).equals(want)  # an independent reader


@st.composite
def int_columns(draw: st.DrawFn, n: int, name: str) -> P.Column:
    shape = draw(st.sampled_from(["small", "wide", "runs", "consecutive"]))
    wide_kinds = ["int32", "int64"] if shape == "consecutive" else []
    kind = draw(st.sampled_from(wide_kinds or ["int8", "int16", "int32", "int64"]))
    lo, hi = BOUNDS[kind]
    if shape == "small":  # dictionary-encoded, bit-packed
        base = draw(st.integers(lo, hi - 40))
        span = draw(st.integers(1, 40))
        data = [draw(st.integers(base, base + span - 1)) for _ in range(n)]
    elif shape == "wide":  # delta-encoded, deltas may wrap around
        data = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    elif shape == "runs":  # RLE runs and bit-packed groups mixed
        data = []
        while len(data) < n:
            data += [draw(st.integers(0, 3))] * draw(st.integers(1, 30))
        data = data[:n]
    else:  # match numbers
        start = draw(st.integers(lo, hi - n))
        data = list(range(start, start + n))
    arr = np.array(data, dtype=np.int64 if kind == "int64" else np.int32)
    valid = None
    if draw(st.booleans()):
        valid = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=np.bool_)
    return P.Column(name, kind, data=arr, valid=valid)


@st.composite
def tables(draw: st.DrawFn) -> tuple[int, list[P.Column]]:
    n = draw(st.integers(1, 700))
    columns = []
    for i in range(draw(st.integers(1, 6))):
        what = draw(st.sampled_from(["data", "data", "constant", "null"]))
        if what == "data":
            columns.append(draw(int_columns(n, f"c{i}")))
        elif what == "constant":
            kind = draw(st.sampled_from(["int8", "int16", "int32", "int64", "uint64", "string"]))
            if kind == "string":
                value: int | str = draw(st.text(max_size=20))
            elif kind == "uint64":
                value = draw(st.integers(0, 2**64 - 1))
            else:
                value = draw(st.integers(*BOUNDS[kind]))
            columns.append(P.Column(f"c{i}", kind, constant=value))
        else:
            kind = draw(st.sampled_from(list(DTYPES)))
            columns.append(P.Column(f"c{i}", kind))
    return n, columns


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(tables())
def test_any_table_reads_back_exactly(tmp_path_factory: pytest.TempPathFactory, table) -> None:
    n, columns = table
    assert_round_trip(tmp_path_factory.mktemp("pq") / "t.parquet", n, columns)


def test_shard_shapes(tmp_path: Path) -> None:
    """The shapes the shards have: long, mostly narrow, some constant or all null."""
    rng = np.random.default_rng(1)
    n = 100_003  # not a multiple of 8: the last bit-packed group is padded
    scores = rng.integers(0, 11, n).astype(np.int32)
    winner = rng.integers(-1, 2, n).astype(np.int32)
    columns = [
        P.Column("run", "string", constant="abc"),
        P.Column("seed", "uint64", constant=2**64 - 1),
        P.Column("absent", "string"),
        P.Column("match", "int64", data=np.arange(10**12, 10**12 + n, dtype=np.int64)),
        P.Column("scores", "int16", data=scores),
        P.Column("zeros", "int16", data=np.zeros(n, np.int32)),
        P.Column("winner", "int8", data=winner, valid=winner >= 0),
        P.Column("never", "int8", data=winner, valid=np.zeros(n, np.bool_)),
        P.Column("wide", "int32", data=rng.integers(-(2**31), 2**31, n).astype(np.int32)),
        # 12-bit dictionary indices (two-byte RLE values), in runs and not
        P.Column("span", "int16", data=np.repeat(rng.integers(0, 3000, n // 20 + 1), 20)[:n]),
        P.Column("spread", "int16", data=rng.integers(-1500, 1500, n).astype(np.int32)),
    ]
    assert_round_trip(tmp_path / "s.parquet", n, columns)


def test_file_is_compact(tmp_path: Path) -> None:
    """Narrow values are bit-packed and runs collapse: no more bytes than needed."""
    n = 80_000
    rng = np.random.default_rng(2)
    flags = rng.integers(0, 2, n).astype(np.int32)
    rare = (rng.random(n) < 0.01).astype(np.int32)  # long runs of zeros: RLE pays
    write(tmp_path / "a.parquet", n, [P.Column("f", "int8", data=flags)])
    write(tmp_path / "b.parquet", n, [P.Column("z", "int8", data=np.zeros(n, np.int32))])
    write(tmp_path / "c.parquet", n, [P.Column("r", "int8", data=rare)])
    assert (tmp_path / "a.parquet").stat().st_size < n / 8 + 1000  # one bit per value
    assert (tmp_path / "b.parquet").stat().st_size < 1000  # one run
    assert (tmp_path / "c.parquet").stat().st_size < n / 16  # half of one bit per value
    assert_round_trip(tmp_path / "d.parquet", n, [P.Column("r", "int8", data=rare)])


def test_rle_hybrid_layout() -> None:
    """The hybrid encoding, byte by byte: a bit-packed group, then an RLE run."""
    vals = np.array([1, 2, 3, 0, 1, 2, 3, 0] + [2] * 10, dtype=np.int32)
    out = np.zeros(64, np.uint8)
    end = E.rle_hybrid(vals, 0, len(vals), 2, out, 0)
    # header (1 group << 1 | 1), 8 values of 2 bits LSB first, then run (10 << 1), value 2
    assert out[:end].tolist() == [0b11, 0b00111001, 0b00111001, 20, 2]


def test_rle_hybrid_splits_long_bit_packed_runs() -> None:
    """Bit-packed runs stop at 63 groups, so their header always fits one byte."""
    vals = np.tile(np.array([0, 1], dtype=np.int32), 4 * 64)  # 64 groups
    out = np.zeros(2048, np.uint8)
    end = E.rle_hybrid(vals, 0, len(vals), 1, out, 0)
    assert out[0] == (63 << 1) | 1 and out[64] == (1 << 1) | 1 and end == 66


def test_bit_packed_layout() -> None:
    """One bit-packed run: header (2 groups << 1 | 1), values LSB first, zero padding."""
    vals = np.array([1, 2, 3, 0, 1, 2, 3, 0, 1], dtype=np.int32)
    out = np.zeros(64, np.uint8)
    end = E.bit_packed(vals, 0, len(vals), 2, out, 3)
    assert out[3:end].tolist() == [0b101, 0b00111001, 0b00111001, 0b00000001, 0]


def _reference_bit_packing(values: list[int], width: int) -> bytes:
    """Bit packing as the Parquet specification words it: LSB first, in whole groups."""
    groups = (len(values) + 7) // 8
    acc = sum(v << (width * i) for i, v in enumerate(values))
    return acc.to_bytes(groups * width, "little")


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 32).flatmap(
    lambda w: st.tuples(st.just(w), st.lists(st.integers(0, 2**w - 1), min_size=1, max_size=300))
), st.integers(-50, 50))  # fmt: skip
def test_bit_packed_matches_the_specification(case: tuple[int, list[int]], base: int) -> None:
    width, values = case
    vals = np.array([v + base for v in values], dtype=np.int64)
    out = np.zeros(8 * len(values) + 64, np.uint8)
    end = E.bit_packed(vals, base, len(values), width, out, 0)
    header = bytearray()
    P._varint(header, ((len(values) + 7) // 8) << 1 | 1)
    assert out[:end].tobytes() == bytes(header) + _reference_bit_packing(values, width)


def test_write_table_to_any_binary_stream() -> None:
    buf = io.BytesIO()
    P.write_table(buf, 3, [P.Column("x", "int16", data=np.array([5, 6, 5], np.int32))], "t")
    assert pl.read_parquet(io.BytesIO(buf.getvalue()))["x"].to_list() == [5, 6, 5]


def test_column_checks() -> None:
    with pytest.raises(ValueError, match="kind"):
        P.Column("x", "float32")
    with pytest.raises(ValueError, match="constant"):
        P.Column("x", "string", data=np.zeros(3, np.int32))
