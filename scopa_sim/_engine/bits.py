"""Bit intrinsics of the kernels: population count and count of trailing zeros.

Both compile to one LLVM instruction (``ctpop``, ``cttz``); with ``NUMBA_DISABLE_JIT=1``
(coverage runs) they are plain Python.
"""

from __future__ import annotations

import numba
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
