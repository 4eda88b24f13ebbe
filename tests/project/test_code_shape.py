"""The shape of the code: no function over 200 lines, at most 8 modules directly in
``scopa_sim``. (That the loops written in steps compile without reference counts in
them: engine/test_pipeline.py.)"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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
