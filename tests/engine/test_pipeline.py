"""The compiler pipeline of the loops written in steps (:data:`scopa_sim._engine.pipeline.STEPS`):
the same results as numba's own, without the reference counts of inlined steps."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("calls", [0, 1, 3])
def test_the_steps_pipeline_forwards_array_copies_only(calls: int) -> None:
    """A kernel compiled with :data:`scopa_sim._engine.pipeline.STEPS` gives the same
    results as without it, with fewer reference counts where steps taking arrays are
    inlined into a loop (none to forward without such calls)."""
    import numpy as np
    from numba import njit

    from scopa_sim._engine.pipeline import STEPS

    @njit(inline="always")
    def step(a, b, i):
        if a[i] > 3:
            b[i] += 1
            return 1
        a[i] += 1
        return 0

    def body(a, b, n):
        t = 0
        for i in range(n):
            for _ in range(calls):
                if i % 3:
                    t += step(a, b, i % 5)
                else:
                    t -= step(b, a, i % 5)
        return t

    def refs(kernel: object) -> int:
        (ir,) = kernel.inspect_llvm().values()  # type: ignore[attr-defined]
        return ir.count("call void @NRT_incref") + ir.count("call void @NRT_decref")

    plain = njit(body)
    steps = njit(pipeline_class=STEPS)(body)
    a0, b0 = np.zeros(5, np.int64), np.zeros(5, np.int64)
    a1, b1 = np.zeros(5, np.int64), np.zeros(5, np.int64)
    assert plain(a0, b0, 47) == steps(a1, b1, 47)
    assert np.array_equal(a0, a1) and np.array_equal(b0, b1)
    if calls:
        assert refs(steps) < refs(plain)
    else:
        assert refs(steps) == refs(plain)
