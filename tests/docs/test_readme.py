"""Every example of README.md runs as written, and the rules reference is complete.

The `scopa-sim` commands of the README's shell code blocks are run in order, by bash,
in one empty directory with the installed executable first on PATH, so that each finds
what the ones before it made (``games.jsonl``, ``runs/...``); then its Python code
blocks are run there. Each must exit with status 0 and no traceback.

They run as written, with the documented size variables of :mod:`helpers.docs` set
(``--hands ${HANDS:-1000000}`` runs 2,000 hands). The documentation pages' examples run
page by page in ``tests/docs/test_examples.py``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from helpers.docs import SIZES, VARIABLE, code_blocks, commands, prepare
from scopa_sim_cli.main import cli

from scopa_sim.game.rules import DEFAULTS, OPTION_NAMES, PRESETS, _allowed

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
RULES_DOC = ROOT / "scopa_sim" / "documents" / "rules.md"  # docs/rules.md includes it
DOCS = ROOT / "docs"


def doc_pages() -> list[Path]:
    """README.md, then every page of the documentation site in its table of contents'
    order (``docs/index.md``'s toctrees), then any page the toctrees leave out."""
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    order = [DOCS / "index.md"]
    for block in re.findall(r"^```\{toctree\}\n(.*?)^```", index, re.M | re.S):
        for line in block.splitlines():
            name = line.strip()
            if name and not line.startswith(":") and not (DOCS / f"{name}.ipynb").exists():
                order.append(DOCS / f"{name}.md")  # a notebook runs in tests/docs/test_tutorial.py
    rest = sorted(p for p in DOCS.rglob("*.md") if p not in order and "_build" not in p.parts)
    return [README, *order, *rest]


def test_readme_starts_with_the_two_setup_commands() -> None:
    text = README.read_text(encoding="utf-8")
    first = code_blocks(text, ("sh",))[0]
    assert [line.split("#")[0].strip() for line in first.splitlines()] == [
        "make study",
        "make test",
    ]
    assert text.index("```sh") < text.index(". .venv/bin/activate") < text.index("## ")
    assert ".venv/bin/scopa-sim" in text.split("## ")[0]


def test_the_extraction_finds_every_example() -> None:
    found = [c for p in doc_pages() for c in commands(p.read_text(encoding="utf-8"))]
    names = {c.split("scopa-sim ")[1].split()[0] for c in found}
    assert names >= {"variants", "play", "replay", "advantage", "advise", "tournament"}
    assert names >= {"simulate", "analyze", "compare", "report"}
    assert not [c for c in found if " ... " in c], "an example with a placeholder"


def test_long_examples_read_their_size_from_a_documented_variable() -> None:
    """The size variables of the examples are the three documented ones, each with its
    documented size as the default, and the long runs of the guide use them."""
    found = [c for p in doc_pages() for c in commands(p.read_text(encoding="utf-8"))]
    uses = [m.groups() for c in found for m in VARIABLE.finditer(c)]
    assert {name for name, _ in uses} == set(SIZES)
    assert all(int(default) > int(SIZES[name]) for name, default in uses)
    assert "$" not in VARIABLE.sub("", " ".join(found)), "a variable without a default"
    for c in found:  # ten million hands or a hundred thousand matches: minutes, not seconds
        assert not re.search(r"--hands \d{7}|--matches \d{6}", c), c
    play = (DOCS / "guide" / "play.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in play for name in SIZES)


def test_the_readme_is_short_and_every_page_is_in_the_site() -> None:
    assert len(README.read_bytes()) <= 10_000
    pages = doc_pages()
    assert all(p.exists() for p in pages), [p for p in pages if not p.exists()]
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    listed = {line.strip() for line in index.splitlines()}
    for page in DOCS.rglob("*.md"):
        rel = page.relative_to(DOCS).with_suffix("").as_posix()
        if "_build" not in page.parts and rel != "index":
            assert rel in listed, f"{rel} is not in a toctree of docs/index.md"


@pytest.mark.slow
def test_every_readme_example_runs(tmp_path: Path, scheduler: str) -> None:
    """The README's examples, in order, in one directory (a command may read what an
    earlier one made)."""
    text = README.read_text(encoding="utf-8")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    env = dict(os.environ, PATH=path, **SIZES)
    for command in commands(text):
        run = prepare(command, scheduler)
        done = subprocess.run(
            ["bash", "-c", f"set -o pipefail; {run}"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"{run}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr, run
    for block in code_blocks(text, ("python",)):
        done = subprocess.run(
            [sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, f"{block}\n{done.stderr[-2000:]}"


# --------------------------------------------------------------------------- docs/rules.md
def table_rows(text: str, header: str) -> dict[str, list[str]]:
    """The rows of the Markdown table whose header row starts with ``| header |``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {header} |"))
    rows = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_rules_doc_lists_every_option_as_implemented() -> None:
    options = table_rows(RULES_DOC.read_text(encoding="utf-8"), "option")
    assert list(options) == list(OPTION_NAMES)
    for name, (values, default) in options.items():
        assert values == _allowed(name), name
        if name == "teams":
            assert default == "true with 4 players, else false"
        else:
            want = DEFAULTS[name]
            assert default == (str(want).lower() if isinstance(want, bool) else str(want)), name


def test_rules_doc_lists_every_preset_as_implemented() -> None:
    presets = table_rows(RULES_DOC.read_text(encoding="utf-8"), "preset")
    assert list(presets) == list(PRESETS)
    for name, (options, _source) in presets.items():
        want = [
            f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in PRESETS[name].items()
        ]
        assert options == (", ".join(want) or "none"), name


def test_user_facing_text_needs_nothing_outside_the_repository() -> None:
    """The README pointed at ../shared/spec/RULES.md, which a clone does not have."""
    for doc in doc_pages():
        text = doc.read_text(encoding="utf-8")
        assert "../shared" not in text and "RULES.md" not in text, doc
        assert "RECORD.md" not in text, doc
        for target in re.findall(r"\]\(([^)#]+)", text):
            if not target.startswith("http"):
                target = target.removeprefix("path:")
                assert (doc.parent / target).exists(), (doc, target)
    assert "docs/rules.md" in README.read_text(encoding="utf-8")
    for name in [None, *cli.list_commands(click.Context(cli))]:
        res = CliRunner().invoke(cli, [name, "--help"] if name else ["--help"])
        assert res.exit_code == 0, name
        assert "shared" not in res.output and "RULES.md" not in res.output, name
