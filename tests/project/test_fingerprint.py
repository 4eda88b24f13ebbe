"""The outputs of a quick subset of ``tests/fingerprint.py``'s cases are those taken at
0.3.0, before the package's re-layout (``tests/fingerprints.json``): a move of code must
change no record, shard, run id or tournament figure. The whole list, with the small
study, is ``python tests/fingerprint.py --study --check tests/fingerprints.json``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1]  # tests/
QUICK = [
    "play-scopa",
    "play-scopone-scientifico",
    "play-scopa-search",
    "simulate-hands-escoba",
    "simulate-matches-scopa-4",
    "simulate-swapped-scopa",
    "simulate-ismcts-scopa",
    "tournament-scopa",
    "simulate-random-cirulla",
]


def test_the_committed_fingerprints_cover_every_case() -> None:
    import fingerprint  # tests/ is on sys.path (pyproject: pythonpath)

    want = json.loads((HERE / "fingerprints.json").read_text())
    assert set(want) == set(fingerprint.cases(with_study=True))
    assert set(QUICK) <= set(want)


@pytest.mark.slow
@pytest.mark.parametrize("case", QUICK)
def test_outputs_are_those_before_the_move(case: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(HERE / "fingerprint.py"), "--only", case, "--check",
         str(HERE / "fingerprints.json")],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 of 1 fingerprints unchanged" in done.stdout


@pytest.mark.slow
def test_a_changed_output_is_reported(tmp_path: Path) -> None:
    # The check can fail: a fingerprint file with one digest altered is caught.
    want = json.loads((HERE / "fingerprints.json").read_text())
    want["play-scopa"] = {"record": "0" * 64}
    bad = tmp_path / "fingerprints.json"
    bad.write_text(json.dumps(want))
    done = subprocess.run(
        [sys.executable, str(HERE / "fingerprint.py"), "--only", "play-scopa", "--check", str(bad)],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 1 and "CHANGED play-scopa" in done.stdout
