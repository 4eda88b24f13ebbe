"""Smoke tests of the timing scripts of ``benchmarks/``: each runs end to end at a tiny
size and writes its JSON. Speed is never asserted; only that the scripts work."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.scripts import load_script

pytestmark = pytest.mark.slow

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _run(script: str, *args: str, out: Path, timeout: float = 300) -> dict:
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), *args, "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=timeout,
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
    assert values["random self-play, 2p scopa"] > 0 and values["expert self-play, 2p scopa"] > 0
    assert values["fused loop / HandState"] > 1
    assert values["escoba / scopa, random self-play"] > 0


def test_bench_simulate(tmp_path: Path) -> None:
    doc = _run("bench_simulate.py", "--hands", "20000", "--repeat", "1", out=tmp_path / "s.json")
    assert doc["hands"] == 20000 and len(doc["runs"]["two"]) == 1
    values = _positive(doc["results"])
    assert values["simulate, 2 workers (wall, start-up included)"] > 0


def test_bench_search(tmp_path: Path) -> None:
    doc = _run("bench_search.py", "--quick", out=tmp_path / "q.json")
    values = _positive(doc["results"])
    assert values["pimc, ms per move"] > 0 and values["/ ismcts:iterations=1000 in the same run"]
    assert values["solver positions/s, 2 plays left"] > 0


def test_bench_ab(tmp_path: Path) -> None:
    """The paired A/B runs a revision exported from git against the work tree, each in
    fresh processes on the public API, and finds both give the same results."""
    git = subprocess.run(["git", "-C", str(BENCH), "rev-parse", "HEAD"], capture_output=True)
    if git.returncode != 0:  # pragma: no cover - not a git checkout
        pytest.skip("needs a git checkout")
    doc = _run("bench_ab.py", "--base", "HEAD", "--pairs", "1", "--case", "random",
               "--scale", "0.001", out=tmp_path / "ab.json", timeout=900)  # fmt: skip
    assert doc["pairs"] == 1 and list(doc["results"]) == ["random"]
    res = doc["results"]["random"]
    assert res["pairs"] == 1 and len(res["ratios"]) == 1 and res["same_results"]
    assert all(math.isfinite(res[k]) and res[k] > 0 for k in ("ratio_median", "a_median"))
    (a,), (b,) = res["a"], res["b"]
    assert Path(a["file"]).parts[-3].startswith(doc["base"][1][:12])  # the exported tree's
    assert Path(b["file"]).parent.parent == BENCH.parent  # the work tree's
    assert a["digest"] == b["digest"] and a["warm_cpu"] > 0 and a["run_cpu"] > 0


@pytest.mark.parametrize(
    "args", [("--base", "no-such-revision"), ("--case", "nope"), ("--pairs", "0")]
)
def test_bench_ab_bad_input(args: tuple[str, ...]) -> None:
    """Bad input is a one-line error with exit status 2, before anything runs."""
    proc = subprocess.run([sys.executable, str(BENCH / "bench_ab.py"), *args],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("bench_ab.py: ") and proc.stderr.count("\n") == 1


def test_bench_deals(tmp_path: Path) -> None:
    doc = _run("bench_deals.py", "--hands", "20000", "--workers", "1", out=tmp_path / "d.json")
    values = _positive(doc["results"])
    assert values["deal function, hands/s on one core"] > 0
    assert doc["hands"] == 20000 and doc["settebello_first_deal"]["estimate"] > 0


@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="no Chromium (.ci/run)")
def test_bench_board(tmp_path: Path) -> None:
    doc = _run("bench_board.py", "--quick", out=tmp_path / "b.json")
    assert doc["positions"] == 3 and len(doc["times"]) == 4
    assert 0 < doc["first_median_s"] <= doc["final_median_s"]


def test_bench_cirulla(tmp_path: Path) -> None:
    doc = _run("bench_cirulla.py", "--pairs", "2", "--scale", "0.002", out=tmp_path / "c.json")
    assert doc["machine"]["cpu"] and doc["machine"]["cores"] >= 1
    for policy in ("random", "expert"):
        case = doc["cases"][policy]
        assert len(case["ratios"]) == 2 and min(case["ratios"]) > 0
        assert case["bound"] in (1.5, 2.0)
        low, high = case["ci95"]
        assert low <= case["ratio"] <= high
        assert min(case["ratios"]) <= case["ratio"] <= max(case["ratios"])


@pytest.mark.parametrize(
    ("ratios", "verdict"),
    [([1.40, 1.42, 1.41, 1.43], "met"), ([1.60, 1.62, 1.61], "not met"),
     ([1.30, 1.70, 1.45, 1.55], "inconclusive"), ([1.2], "inconclusive")],
)  # fmt: skip
def test_bench_cirulla_verdict(ratios: list[float], verdict: str) -> None:
    """The verdict reads the whole interval against the bound, not the point estimate."""
    v = load_script(BENCH / "bench_cirulla.py").ratio_verdict(ratios, 1.5)
    assert v["verdict"] == verdict
    assert (v["ci95"] is None) == (len(ratios) == 1)


def test_bench_declare(tmp_path: Path) -> None:
    doc = _run("bench_declare.py", "--hands", "40", out=tmp_path / "d.json")
    assert set(doc["results"]) == {"never", "tris"} and doc["baseline"] == "always"
    never = doc["results"]["never"]
    assert never["declared_points_rule"] == 0 and never["ci95"][0] <= never["gain"]
