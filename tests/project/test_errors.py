"""The one error hierarchy: every error class lives in ``scopa_sim/errors.py`` and
subclasses :class:`ScopaError` (so the command line can print any of them as one line)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import scopa_sim.errors as E

PACKAGE = Path(E.__file__).resolve().parent


def test_error_classes_are_defined_only_in_errors_py() -> None:
    elsewhere = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and node.name.endswith(("Error", "Exception")):
                elsewhere.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}")
    assert elsewhere == []


def test_every_error_is_a_scopa_error_and_a_value_error() -> None:
    classes = [c for _, c in inspect.getmembers(E, inspect.isclass) if c.__module__ == E.__name__]
    assert len(classes) >= 12
    for c in classes:
        assert issubclass(c, E.ScopaError) and issubclass(c, ValueError), c
