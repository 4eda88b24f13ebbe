"""Load a script of the repository (a benchmark, a report's diagnostic) as a module."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_script(path: Path) -> ModuleType:
    """The module of the Python script at ``path``, executed under its file's stem as name
    (not ``__main__``: its command line does not run) and registered in ``sys.modules``
    under it, as an import does (a dataclass of the script looks its module up there)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
