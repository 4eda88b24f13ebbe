"""The tutorial notebook, docs/tutorial.ipynb, runs from top to bottom without an error,
and its committed outputs are those it makes.

It is executed in a fresh kernel (nbclient, ipykernel) in an empty directory, every cell
within :data:`CELL_TIMEOUT` seconds. The documentation renders the notebook as committed,
with its outputs (myst-nb, execution off), so the test compares them with this run's
(temporary paths aside): ``make tutorial`` (``SCOPA_SIM_WRITE_TUTORIAL=1 pytest
tests/docs/test_tutorial.py``) writes this run's outputs back into docs/tutorial.ipynb.
An output shown as plain text keeps its lines within :data:`WIDTH` characters, the width
the documentation shows without cutting them off.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "tutorial.ipynb"
CELL_TIMEOUT = 120
#: The longest line of a plain-text output the documentation shows in full.
WIDTH = 100
#: The temporary directories of in-memory runs, which differ from run to run.
_TEMPORARY = re.compile(r"/[^'\"\s<>]*?scopa-sim-run-[^/'\"\s<>]+")


def shown(nb: Any) -> list[list[str]]:
    """Each code cell's outputs as the documentation shows them (its HTML when it has one,
    else its text; a figure as its kind), temporary paths replaced by ``<tmp>``."""
    cells = []
    for cell in (c for c in nb.cells if c.cell_type == "code"):
        out = []
        for o in cell.outputs:
            data = o.get("data", {})
            if o.output_type == "stream":
                text = o.text
            elif "image/png" in data:
                text = "<figure>"
            else:
                text = data.get("text/html") or data.get("text/plain", "")
            out.append(_TEMPORARY.sub("<tmp>", text))
        cells.append(out)
    return cells


def plain_lines(nb: Any) -> list[str]:
    """The lines of the outputs shown as plain text (no HTML view, no figure)."""
    lines = []
    for cell in (c for c in nb.cells if c.cell_type == "code"):
        for o in cell.outputs:
            data = o.get("data", {})
            if o.output_type == "stream":
                lines += o.text.splitlines()
            elif "text/html" not in data and "image/png" not in data:
                lines += data.get("text/plain", "").splitlines()
    return lines


@pytest.mark.slow
def test_the_tutorial_runs(tmp_path: Path) -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
        allow_errors=False,
    )
    client.execute()  # raises CellExecutionError on the first cell that fails
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any('class="c ' in h for h in html), "the cards are drawn in the advice and review"
    assert any(o.get("data", {}).get("image/png") for o in outputs), "the plot is drawn"
    if os.environ.get("SCOPA_SIM_WRITE_TUTORIAL") == "1":
        for cell in nb.cells:  # the kernel's timings would change the file at every run
            cell.metadata.pop("execution", None)
        nbformat.write(nb, NOTEBOOK)
        return
    committed = nbformat.read(NOTEBOOK, as_version=4)
    stale = [
        (n, old, new)
        for n, (old, new) in enumerate(zip(shown(committed), shown(nb), strict=True), 1)
        if old != new
    ]
    assert not stale, (
        "the committed outputs of docs/tutorial.ipynb are stale (run `make tutorial`); "
        f"first in cell [{stale[0][0]}]:\n{stale[0][1]}\nnow:\n{stale[0][2]}"
    )


def test_the_committed_tutorial_has_its_outputs() -> None:
    """The docs show the committed outputs: every code cell has been run, in order, and
    no line of a plain-text output is cut off on the right."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in cells] == list(range(1, len(cells) + 1))
    long = [line for line in plain_lines(nb) if len(line) > WIDTH]
    assert not long, f"plain-text output wider than {WIDTH} characters: {long[0][:120]}..."
