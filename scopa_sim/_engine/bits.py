"""Bit intrinsics of the kernels: population count, count of trailing zeros and a
128-bit multiply.

They compile to LLVM instructions (``ctpop``, ``cttz``, an ``i128`` multiply); with
``NUMBA_DISABLE_JIT=1`` (coverage runs) they are plain Python.
"""

from __future__ import annotations

import numba
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

__all__ = [
    "ctz",
    "popcount",
]


_NO_JIT = getattr(numba.config, "DISABLE_JIT", False)
if _NO_JIT:  # pragma: no cover - plain-Python fallbacks for coverage runs

    def popcount(x):
        return int(x).bit_count()

    def ctz(x):
        return (int(x) & -int(x)).bit_length() - 1

    def mul128(alo, ahi, blo, bhi):
        mask = (1 << 64) - 1
        p = ((int(ahi) & mask) << 64 | (int(alo) & mask)) * (
            (int(bhi) & mask) << 64 | (int(blo) & mask)
        )
        lo, hi = p & mask, (p >> 64) & mask
        return (lo - (1 << 64) if lo >> 63 else lo), (hi - (1 << 64) if hi >> 63 else hi)

else:

    @intrinsic
    def popcount(typingctx, src):
        """Number of set bits (LLVM ctpop)."""
        if not isinstance(src, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return builder.ctpop(args[0])

        return src(src), codegen

    @intrinsic
    def ctz(typingctx, src):
        """Index of the lowest set bit (LLVM cttz); the argument must be non-zero."""
        if not isinstance(src, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return builder.cttz(args[0], context.get_constant(types.boolean, True))

        return src(src), codegen

    @intrinsic
    def mul128(typingctx, alo, ahi, blo, bhi):
        """The product of the 128-bit numbers ``(ahi << 64) | alo`` and ``(bhi << 64) | blo``
        modulo 2**128, as its low and high 64-bit words (int64, two's complement): one
        LLVM ``i128`` multiply (three machine multiplies on x86-64)."""
        i64 = types.int64
        sig = types.UniTuple(i64, 2)(i64, i64, i64, i64)

        def codegen(context, builder, signature, args):
            w = ir.IntType(128)
            sixty_four = ir.Constant(w, 64)

            def wide(lo, hi):
                return builder.or_(
                    builder.zext(lo, w), builder.shl(builder.zext(hi, w), sixty_four)
                )

            p = builder.mul(wide(args[0], args[1]), wide(args[2], args[3]))
            lo = builder.trunc(p, ir.IntType(64))
            hi = builder.trunc(builder.lshr(p, sixty_four), ir.IntType(64))
            return context.make_tuple(builder, signature.return_type, (lo, hi))

        return sig, codegen
