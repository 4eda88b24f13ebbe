"""Each analysis output opens with its conclusion in one sentence that follows the
statistics: resolved when the interval excludes 0 (or the fair chance), else said to be
not resolved at this sample size; with the interval or test, the policy and the size."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim.analysis import conclusions as C
from scopa_sim.analysis.analyze import analyze, compare
from scopa_sim.stats.inference import TestResult


def test_margin_sentence_resolved_both_ways() -> None:
    up = C.margin_sentence(
        0.25, 0.24, 0.26, 1_000_000, interval="95% t interval", policy="under `expert`"
    )
    assert up == (
        "the dealer's side scores 0.250 [0.240, 0.260] points per hand more than the first "
        "player's (95% t interval) under `expert`; 1,000,000 hands"
    )
    down = C.margin_sentence(
        -0.3, -0.4, -0.2, 500, interval="95% t interval", policy="under `random`"
    )
    assert down.startswith(
        "the first player's side scores 0.300 [0.200, 0.400] points per hand more than the dealer's"
    )
    assert down.endswith("under `random`; 500 hands")


def test_margin_sentence_not_resolved() -> None:
    s = C.margin_sentence(
        0.01, -0.02, 0.04, 2000, interval="95% t interval", policy="under `greedy`"
    )
    assert "not resolved at this sample size" in s and "includes 0" in s
    assert "scores" not in s and s.endswith("under `greedy`; 2,000 hands")
    none = C.margin_sentence(1.0, math.nan, math.nan, 1, interval="t", policy="under `x`")
    assert "no interval" in none


def _t(est: float, low: float, high: float, p: float, metric: str = "margin") -> TestResult:
    return TestResult(
        metric, "paired t", True, 0.3, 0.2, est, low, high, 4000, 4000, 2.0, p, 0.1, "dz", p_holm=p
    )


def test_win_and_equity_sentences() -> None:
    kw = {
        "who": "the first mover",
        "target": 11,
        "fair": 0.5,
        "interval": "bootstrap",
        "policy": "under `expert`",
        "n": 10,
    }
    assert "more often than a fair 0.5" in C.win_sentence(0.55, 0.52, 0.58, **kw)
    assert "not resolved at this sample size" in C.win_sentence(0.51, 0.49, 0.53, **kw)
    e = C.equity_conclusion(0.4567, 11, "expert", 2000)
    assert e.startswith("the first mover wins 0.4567 of matches to 11 from 0-0 (less often")
    assert "point estimate without an interval" in e


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """Two paired runs of 3,000 random hands (scopa and scopa-15, seed 0) and one of 40."""
    base = tmp_path_factory.mktemp("runs")
    out = []
    for preset, hands in (("scopa", 3000), ("scopa-15", 3000), ("scopa", 40)):
        d = base / f"{preset}-{hands}"
        args = ["simulate", "--preset", preset, "--hands", str(hands), "--out", str(d)]
        res = CliRunner().invoke(cli, [*args, "--workers", "1"])
        assert res.exit_code == 0, res.output
        out.append(d)
    return out[0], out[1], out[2]


def test_analyze_opens_with_its_conclusion(runs: tuple[Path, Path, Path]) -> None:
    big, _, small = runs
    for d in (big, small):
        a = analyze([d])
        m = a.groups[0].margin
        text = CliRunner().invoke(cli, ["analyze", str(d)]).stdout
        first = text.splitlines()[0]
        assert first == C.analysis_conclusion(a)
        assert f"{m.n:,} hands" in first and "under `random`" in first
        assert ("not resolved" in first) == (m.low <= 0 <= m.high)
        doc = json.loads(CliRunner().invoke(cli, ["analyze", str(d), "--json"]).stdout)
        assert doc["conclusion"] == first
    both = C.analysis_conclusion(analyze([big, small]))
    assert "groups" in both and "3,040 hands in all" in both


def test_compare_opens_with_its_conclusion(runs: tuple[Path, Path, Path]) -> None:
    a, b, _ = runs
    c = compare([a, b])
    first = CliRunner().invoke(cli, ["compare", str(a), str(b)]).stdout.splitlines()[0]
    assert first == C.comparison_conclusion(c)
    r = next(x for x in c.pairs[0].results if x.metric == "margin")
    assert "paired t test, Holm-adjusted p" in first and "3,000 pairs of hands" in first
    resolved = (r.low > 0 or r.high < 0) and (r.p_holm or 1) < C.ALPHA
    assert ("not resolved" in first.split(";")[0]) == (not resolved)
    doc = json.loads(CliRunner().invoke(cli, ["compare", str(a), str(b), "--json"]).stdout)
    assert doc["conclusion"] == first


def test_pair_sentence_branches(runs: tuple[Path, Path, Path]) -> None:
    """The same pair of runs read with a resolved and an unresolved margin result."""
    from dataclasses import replace

    a, b, _ = runs
    pair = compare([a, b]).pairs[0]
    yes = C.pair_sentence(replace(pair, results=(_t(0.1, 0.05, 0.15, 0.001),)))
    assert "0.100 [0.050, 0.150] higher than" in yes and "p = 0.0010" in yes
    no = C.pair_sentence(replace(pair, results=(_t(0.1, -0.05, 0.25, 0.2),)))
    assert "is not resolved at this sample size: +0.100 [-0.050, +0.250]" in no
    assert "0 of 1 metrics differ" in no


def test_advantage_and_report_conclusions(runs: tuple[Path, Path, Path], tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["advantage", "--hands", "2000", "--json"])
    doc = json.loads(res.stdout)
    m = doc["dealer_margin"]
    assert ("not resolved" in doc["conclusion"]) == (m["low"] <= 0 <= m["high"])
    text = CliRunner().invoke(cli, ["advantage", "--hands", "2000"]).stdout
    assert text.splitlines()[0] == doc["conclusion"]
    a, b, _ = runs
    assert (
        CliRunner().invoke(cli, ["report", str(a), str(b), "--out", str(tmp_path / "r")]).exit_code
        == 0
    )
    lines = (tmp_path / "r" / "report.md").read_text(encoding="utf-8").splitlines()
    assert lines[2].startswith("**") and "against the first run" in lines[2]
