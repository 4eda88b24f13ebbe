"""The rules and record documents ship in the package (``scopa-sim rules``), one copy:
the documentation site's pages include the package's files."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim.errors import FileError
from scopa_sim.files import DOCUMENTS, document

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DOCS = ROOT / "scopa_sim" / "documents"


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_the_docs_page_is_the_package_file(name: str) -> None:
    """docs/NAME.md holds nothing but the include of the package's copy."""
    page = (ROOT / "docs" / DOCUMENTS[name]).read_text(encoding="utf-8")
    assert page == f"```{{include}} ../scopa_sim/documents/{DOCUMENTS[name]}\n```\n"
    text = (PACKAGE_DOCS / DOCUMENTS[name]).read_text(encoding="utf-8")
    assert document(name) == text
    for target in re.findall(r"\]\(([^)#]+)", text):  # links hold in both places
        if not target.startswith("http"):
            assert (PACKAGE_DOCS / target).exists() and (ROOT / "docs" / target).exists()


def test_rules_command_prints_the_documents() -> None:
    runner = CliRunner()
    rules = runner.invoke(cli, ["rules"])
    assert rules.exit_code == 0 and rules.stdout == document("rules")
    assert rules.stdout.startswith("# Scopa rules as scopa-sim plays them")
    record = runner.invoke(cli, ["rules", "--record"])
    assert record.exit_code == 0 and record.stdout == document("record")
    path = runner.invoke(cli, ["rules", "--record", "--path"])
    assert Path(path.stdout.strip()).read_text(encoding="utf-8") == document("record")
    with pytest.raises(FileError, match="unknown document 'spec'"):
        document("spec")


@pytest.mark.slow
def test_the_wheel_ships_the_documents(tmp_path: Path) -> None:
    """A wheel built from the tree (as pip installs it) holds both documents, equal to
    the files the documentation includes."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = tmp_path.glob("scopa_sim-*.whl")
    with zipfile.ZipFile(wheel) as z:
        for name in DOCUMENTS.values():
            shipped = z.read(f"scopa_sim/documents/{name}").decode("utf-8")
            assert shipped == (PACKAGE_DOCS / name).read_text(encoding="utf-8")
