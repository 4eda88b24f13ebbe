"""The compiler pipeline of the kernels written in named steps.

The big loops (the fused self-play loop, ISMCTS) are written as a short body calling
named steps compiled into it (``inline="always"``).  Numba inlines a step by binding
each of its parameters to a new variable: ``bt_1 = bt``.  For an array that copy is a
new reference: an ``NRT_incref`` where the step starts and an ``NRT_decref`` where the
copy dies, each an atomic operation behind a call.  Numba's reference-count pruner
removes such pairs only within a block or simple diamonds; a step's copies inside the
loop are neither, so they stay, and in a hot loop they cost a large share of its time
(docs/results/benchmarks.md, "Engine design choices").

:class:`ForwardArrayCopies` removes them at their source: after type inference, a copy
``a = b`` of an array variable where ``a`` and ``b`` each have exactly one definition in
the function is dropped and every use of ``a`` reads ``b``.  This is exact: ``b``'s one
definition comes before the copy, which comes before every use of ``a``, so both names
hold the same array wherever ``a`` is read (arrays are references: writing through
either is writing to the same memory), and the copy's reference pair balances out.
Nothing else changes: the same IR is lowered, without the copies.

Use :data:`STEPS` as the ``pipeline_class`` of a kernel that inlines steps taking
arrays (``@njit(cache=True, pipeline_class=STEPS)``); numba's cache keeps working (the
pipeline is not part of the cache key, so a change to this module must change the
package's source stamp, which it does: it lives in the package).
"""

from __future__ import annotations

from typing import Any

from numba.core import ir, types
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.ir_utils import replace_vars
from numba.core.typed_passes import PreLowerStripPhis

__all__ = ["STEPS", "ForwardArrayCopies", "StepsCompiler", "forwardable_copies"]


def forwardable_copies(func_ir: Any, typemap: dict[str, Any]) -> dict[str, ir.Var]:
    """The array copies ``a = b`` of ``func_ir`` that can be forwarded: ``a`` and ``b``
    of the same array type, each defined exactly once; mapped ``a -> b``, chains
    (``a = b``, ``b = c``) resolved to their first variable."""
    defs: dict[str, int] = {}
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if isinstance(stmt, ir.Assign):
                defs[stmt.target.name] = defs.get(stmt.target.name, 0) + 1
    copies: dict[str, ir.Var] = {}
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Var)):
                continue
            a, b = stmt.target.name, stmt.value.name
            ta = typemap.get(a)
            if (
                a != b
                and isinstance(ta, types.Array)
                and ta == typemap.get(b)
                and defs.get(a) == 1
                and defs.get(b) == 1
            ):
                copies[a] = stmt.value

    def first(v: ir.Var) -> ir.Var:
        while v.name in copies:
            v = copies[v.name]
        return v

    return {a: first(b) for a, b in copies.items()}


@register_pass(mutates_CFG=False, analysis_only=False)
class ForwardArrayCopies(FunctionPass):
    """Drop the single-definition array copies (see the module's docstring)."""

    _name = "forward_array_copies"

    def __init__(self) -> None:
        FunctionPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        func_ir = state.func_ir
        copies = forwardable_copies(func_ir, state.typemap)
        if not copies:
            return False
        for block in func_ir.blocks.values():
            block.body = [
                stmt
                for stmt in block.body
                if not (isinstance(stmt, ir.Assign) and stmt.target.name in copies)
                and not (isinstance(stmt, ir.Del) and stmt.value in copies)
            ]
        replace_vars(func_ir.blocks, copies)
        for name in copies:
            func_ir._definitions.pop(name, None)
        return True


class StepsCompiler(CompilerBase):
    """Numba's nopython pipeline with :class:`ForwardArrayCopies` after the phi nodes
    are stripped (the last typed pass before lowering)."""

    def define_pipelines(self) -> list[Any]:
        pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm.add_pass_after(ForwardArrayCopies, PreLowerStripPhis)
        pm.finalize()
        return [pm]


#: The ``pipeline_class`` of the kernels that inline steps taking arrays.
STEPS = StepsCompiler
