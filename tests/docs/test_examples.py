"""Every example of the getting-started page, the user guide and the concepts pages runs
as written, page by page, each page in a fresh empty directory: a page makes the runs and
records its examples read. The shell blocks' `scopa-sim` lines run by bash with the
installed executable first on PATH, the Python blocks in a fresh interpreter, in the
page's order; each must exit with status 0 and no traceback. Examples run as written,
with the documented size variables (``--hands ${HANDS:-10000000}``) set to the values of
:mod:`helpers.docs` (2,000 hands; 200,000 in the deals guide).

Left aside: the board guide (its example is the board's own test) and the API reference
(generated). The README's examples run in ``tests/docs/test_readme.py``, the tutorial in
``tests/docs/test_tutorial.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.docs import SCHEDULER, examples, prepare, sizes

DOCS = Path(__file__).resolve().parents[2] / "docs"

#: The pages whose examples run here.
PAGES = [
    "getting-started",
    *(f"guide/{p.stem}" for p in sorted((DOCS / "guide").glob("*.md")) if p.stem != "board"),
    *(f"concepts/{p.stem}" for p in sorted((DOCS / "concepts").glob("*.md"))),
]


def test_the_pages_have_examples() -> None:
    found = {
        page: list(examples((DOCS / f"{page}.md").read_text(encoding="utf-8"))) for page in PAGES
    }
    assert "guide/notebooks" in found and "guide/board" not in found
    assert all(found[p] for p in ("getting-started", "guide/simulate", "guide/notebooks"))


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_every_example_of_the_page_runs(
    page: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    text = (DOCS / f"{page}.md").read_text(encoding="utf-8")
    scheduler = request.getfixturevalue("scheduler") if SCHEDULER in text else SCHEDULER
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    env = dict(os.environ, PATH=path, **sizes(page))
    env.pop("SCOPA_SIM_PROGRESS", None)
    for kind, example in examples(text):
        if kind == "sh":
            run = prepare(example, scheduler)
            argv = ["bash", "-c", f"set -o pipefail; {run}"]
        else:
            run = example
            argv = [sys.executable, "-c", example]
        done = subprocess.run(
            argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )
        where = f"{page}: {run}"
        assert done.returncode == 0, f"{where}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr, f"{where}\n{done.stderr[-2000:]}"
