"""Smoke tests of the benchmark scripts: each runs end to end at a tiny size and writes
its JSON. Speed is never asserted (see benchmarks/); only that the scripts work."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _run(script: str, *args: str, out: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), *args, "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(out.read_text())


def _positive(rows: list[dict]) -> dict[str, float]:
    values = {r["measure"]: r["value"] for r in rows}
    assert values and all(v is None or v >= 0 for v in values.values()), values
    return values


def test_bench_engine(tmp_path: Path) -> None:
    doc = _run("bench_engine.py", "--hands", "500", "--skip-startup", out=tmp_path / "e.json")
    values = _positive(doc["results"])
    assert values["random self-play, 2p scopa"] > 0
    assert values["speed-up over plain Python (self-play)"] > 1


def test_bench_simulate(tmp_path: Path) -> None:
    doc = _run("bench_simulate.py", "--hands", "20000", "--repeat", "1", out=tmp_path / "s.json")
    assert doc["hands"] == 20000 and len(doc["runs"]["two"]) == 1
    values = _positive(doc["results"])
    assert values["simulate, 2 workers (wall, start-up included)"] > 0


def test_bench_search(tmp_path: Path) -> None:
    doc = _run("bench_search.py", "--quick", out=tmp_path / "q.json")
    assert doc["ismcts"] and doc["matches"]


def test_bench_review(tmp_path: Path) -> None:
    doc = _run("bench_review.py", "--quick", out=tmp_path / "r.json")
    assert doc["endgames"]["max_abs_difference"] == 0.0
    assert doc["endgames"]["solver_play_loss_sum"] == 0.0
    assert {r["policy"] for r in doc["policies"]} >= {"strong", "random", "greedy"}
    assert doc["speed"]["median_s"] > 0
