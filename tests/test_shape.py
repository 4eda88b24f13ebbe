"""The shape of the code (issue 24): no function over 200 lines, at most 8 modules directly
in ``scopa_sim``; the loops written in steps compile without reference counts in them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 200
#: Functions allowed past ``MAX_LINES``, each with the measurement that keeps it so.
WRITTEN_OUT: set[str] = set()


def _functions() -> list[tuple[int, str]]:
    out = []
    for folder in ("scopa_sim", "cli", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                    out.append((lines, f"{path.relative_to(ROOT)} {node.name}"))
    return out


def test_no_function_is_over_200_lines() -> None:
    functions = _functions()
    assert len(functions) > 500  # the walk found the code
    long = {where for n, where in functions if n > MAX_LINES}
    assert long == WRITTEN_OUT, long


def test_at_most_eight_modules_sit_directly_in_the_package() -> None:
    modules = sorted(p.name for p in (ROOT / "scopa_sim").glob("*.py"))
    assert "__init__.py" in modules
    assert len(modules) <= 8, modules


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
