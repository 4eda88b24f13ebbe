"""Packaging: what ``pip install`` puts on the path.

The command-line app lives in the ``cli/`` folder but installs as ``scopa_sim_cli`` (a
top-level ``cli`` package would collide with any other distribution that ships one), and
the package list is explicit, so a new subpackage must be added to it or a wheel would
silently miss it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parents[2]


def _config() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def test_every_package_folder_is_installed() -> None:
    tool = _config()["tool"]["setuptools"]
    dirs = {"scopa_sim_cli": "cli", **tool.get("package-dir", {})}
    on_disk = {
        ".".join(p.parent.relative_to(ROOT / "scopa_sim").parts)
        .join(["scopa_sim.", ""])
        .rstrip(".")
        for p in (ROOT / "scopa_sim").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    on_disk.add("scopa_sim_cli")
    data = set(tool.get("package-data", {}))  # folders of data only (scopa_sim.documents)
    assert all((ROOT / d.replace(".", "/")).is_dir() for d in data)
    assert set(tool["packages"]) == on_disk | data
    assert dirs["scopa_sim_cli"] == "cli" and (ROOT / "cli" / "__init__.py").exists()


def test_the_command_is_the_project_named_package() -> None:
    assert _config()["project"]["scripts"]["scopa-sim"] == "scopa_sim_cli.main:main"
    spec = importlib.util.find_spec("scopa_sim_cli.main")
    assert spec is not None and spec.origin is not None
    assert Path(spec.origin).resolve() == ROOT / "cli" / "main.py"


def test_the_learned_weights_are_package_data() -> None:
    """Every file of the learned policy's weights directory (the model vectors and their
    manifest) is matched by a package-data pattern of ``scopa_sim.bots``: an installed
    wheel has them."""
    patterns = _config()["tool"]["setuptools"]["package-data"]["scopa_sim.bots"]
    bots = ROOT / "scopa_sim" / "bots"
    files = {p for p in (bots / "weights").iterdir() if p.is_file()}
    assert any(p.name == "manifest.json" for p in files)
    assert all(any(p.relative_to(bots).match(g) for g in patterns) for p in files)
