"""Jitted Parquet value encoders for the shard writer (:mod:`scopa_sim.data.parquet`).

Each kernel appends one encoded stream to a byte buffer and returns the new end, so
the writer builds a column's pages without Python loops over rows.  The encodings
are those of the Parquet specification (``Encodings.md``): the RLE / bit-packed
hybrid (dictionary indices and definition levels) and DELTA_BINARY_PACKED.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Longest bit-packed run written (63 groups of 8 keeps the run header in one byte).
MAX_GROUPS = 63
DELTA_BLOCK = 128  # values per DELTA_BINARY_PACKED block
DELTA_MINIBLOCKS = 4  # miniblocks per block (32 values each)


@njit(cache=True, nogil=True, inline="always")
def _uleb(out: np.ndarray, pos: int, value: np.uint64) -> int:
    """ULEB128 varint of ``value``."""
    while value >= np.uint64(0x80):
        out[pos] = (value & np.uint64(0x7F)) | np.uint64(0x80)
        value >>= np.uint64(7)
        pos += 1
    out[pos] = value
    return pos + 1


@njit(cache=True, nogil=True)
def _zigzag(v: np.int64) -> np.uint64:
    return np.uint64(v << 1) ^ np.uint64(v >> 63)


@njit(cache=True, nogil=True)
def _pack(
    out: np.ndarray, pos: int, vals: np.ndarray, base: int, start: int, n: int, width: int
) -> int:
    """Bit-pack ``vals[start:start + 8] - base`` LSB first with ``width`` (<= 32) bits each;
    values past ``n`` are zero padding (a group always takes ``width`` bytes).  The
    general case; :func:`rle_hybrid` packs full groups of narrow values itself."""
    acc = np.uint64(0)
    bits = 0
    for k in range(8):
        i = start + k
        acc |= (np.uint64(vals[i] - base) if i < n else np.uint64(0)) << np.uint64(bits)
        bits += width
        while bits >= 8:
            out[pos] = acc & np.uint64(0xFF)
            acc >>= np.uint64(8)
            bits -= 8
            pos += 1
    return pos


@njit(cache=True, nogil=True)
def rle_hybrid(vals: np.ndarray, base: int, n: int, width: int, out: np.ndarray, pos: int) -> int:
    """The RLE / bit-packed hybrid of ``vals[:n] - base`` (each in ``[0, 2**width)``),
    without a length prefix.  Values go in groups of 8: a group of 8 equal values starts
    an RLE run (extended as far as the value repeats), any other is bit-packed."""
    nbytes = (width + 7) // 8
    w = np.uint64(width)
    i = 0
    header = -1  # where the open bit-packed run's header byte is, -1 if none
    groups = 0
    while i + 8 <= n:  # full groups
        v = vals[i]
        differ = (
            (vals[i + 1] ^ v) | (vals[i + 2] ^ v) | (vals[i + 3] ^ v) | (vals[i + 4] ^ v)
            | (vals[i + 5] ^ v) | (vals[i + 6] ^ v) | (vals[i + 7] ^ v)
        )  # fmt: skip
        if differ == 0:  # a run
            j = i + 8
            while j < n and vals[j] == v:
                j += 1
            header = -1
            pos = _uleb(out, pos, np.uint64((j - i) << 1))
            for b in range(nbytes):
                out[pos] = ((v - base) >> (8 * b)) & 0xFF
                pos += 1
            i = j
            continue
        if header < 0 or groups == MAX_GROUPS:
            header = pos
            groups = 0
            pos += 1
        if width <= 8:  # the 8 values fit one 64-bit word
            acc = np.uint64(0)
            shift = np.uint64(0)
            for k in range(8):
                acc |= np.uint64(vals[i + k] - base) << shift
                shift += w
            for b in range(width):
                out[pos + b] = (acc >> np.uint64(8 * b)) & np.uint64(0xFF)
            pos += width
        else:
            pos = _pack(out, pos, vals, base, i, n, width)
        groups += 1
        out[header] = (groups << 1) | 1
        i += 8
    if i < n:  # the last, partial group (zero padding)
        if header < 0 or groups == MAX_GROUPS:
            header = pos
            groups = 0
            pos += 1
        pos = _pack(out, pos, vals, base, i, n, width)
        groups += 1
        out[header] = (groups << 1) | 1
    return pos


@njit(cache=True, nogil=True)
def bit_packed(vals: np.ndarray, base: int, n: int, width: int, out: np.ndarray, pos: int) -> int:
    """``vals[:n] - base`` (each in ``[0, 2**width)``, ``width <= 32``) as one bit-packed
    run of the hybrid encoding, without a length prefix: the run's header, then the
    values LSB first, the last group of 8 padded with zeros.  No search for repeats, so
    it costs a few instructions per value: the writer's choice for columns without long
    runs (see :func:`rle_hybrid`)."""
    groups = (n + 7) // 8
    pos = _uleb(out, pos, np.uint64((groups << 1) | 1))
    end = pos + groups * width
    w = np.uint64(width)
    acc = np.uint64(0)
    bits = np.uint64(0)
    for i in range(n):
        v = np.uint64(vals[i] - base)
        acc |= v << bits
        bits += w
        if bits >= np.uint64(64):  # a full word: its 8 bytes out, the value's rest kept
            for b in range(8):
                out[pos + b] = (acc >> np.uint64(8 * b)) & np.uint64(0xFF)
            pos += 8
            bits -= np.uint64(64)
            acc = v >> (w - bits) if bits > np.uint64(0) else np.uint64(0)
    b = 0
    while pos < end:  # the bits left, then zero padding to the group boundary
        out[pos] = (acc >> np.uint64(8 * b)) & np.uint64(0xFF) if b < 8 else 0
        pos += 1
        b += 1
    return pos


@njit(cache=True, nogil=True)
def delta_binary_packed(values: np.ndarray, n: int, bits: int, out: np.ndarray, pos: int) -> int:
    """DELTA_BINARY_PACKED of ``values[:n]`` (int64 holding a physical type of ``bits``,
    32 or 64): blocks of 128 deltas in four miniblocks of 32, each bit-packed at its own
    width above the block's minimum.  Deltas wrap around at ``bits``, as readers of 32-bit
    columns expect (so no width exceeds 32 there)."""
    narrow = bits == 32
    pos = _uleb(out, pos, np.uint64(DELTA_BLOCK))
    pos = _uleb(out, pos, np.uint64(DELTA_MINIBLOCKS))
    pos = _uleb(out, pos, np.uint64(n))
    pos = _uleb(out, pos, _zigzag(values[0] if n > 0 else np.int64(0)))
    per = DELTA_BLOCK // DELTA_MINIBLOCKS
    deltas = np.zeros(DELTA_BLOCK, dtype=np.int64)
    packed = np.zeros(DELTA_BLOCK, dtype=np.uint64)
    i = 1
    while i < n:
        m = min(DELTA_BLOCK, n - i)
        lo = np.int64(0)
        for k in range(m):
            d = values[i + k] - values[i + k - 1]
            if narrow:
                d = np.int64(np.int32(d))  # wrap around at 32 bits
            deltas[k] = d
            if k == 0:
                lo = d
            lo = min(lo, d)
        pos = _uleb(out, pos, _zigzag(lo))
        widths = pos
        pos += DELTA_MINIBLOCKS
        for mb in range(DELTA_MINIBLOCKS):
            a = mb * per
            if a >= m:
                out[widths + mb] = 0
                continue
            top = np.uint64(0)
            for k in range(per):
                u = np.uint64(deltas[a + k] - lo) if a + k < m else np.uint64(0)
                if narrow:
                    u &= np.uint64(0xFFFFFFFF)
                packed[k] = u
                top |= u
            width = 0
            while top > np.uint64(0):
                width += 1
                top >>= np.uint64(1)
            out[widths + mb] = width
            acc = 0
            bits = 0
            for k in range(per if width else 0):
                u = packed[k]
                w = width
                while w > 0:  # in chunks of at most 8 bits, so acc never overflows
                    take = min(w, 8)
                    acc |= int(u & np.uint64((1 << take) - 1)) << bits
                    u >>= np.uint64(take)
                    bits += take
                    w -= take
                    if bits >= 8:
                        out[pos] = acc & 0xFF
                        acc >>= 8
                        bits -= 8
                        pos += 1
        i += m
    return pos
