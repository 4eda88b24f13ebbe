"""The view of a run's hands by role (scopa_sim.data.roles), checked against the raw
columns of the pinned schema, row by row, and its export by ``analyze --by-role``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

import scopa_sim
from scopa_sim.data.dataset import ITEMS, SIDE_STATS
from scopa_sim.data.roles import by_role, write_by_role
from scopa_sim.errors import DatasetError

CASES = {
    "2p-hands": {"preset": "scopa", "hands": 600},
    "3p-hands": {"preset": "scopa-3", "hands": 600, "policy": "greedy"},
    "4-teams-matches": {"preset": "scopa-4", "matches": 3, "policy": "expert"},
    "napola-matches": {"preset": "scopa", "matches": 3, "overrides": {"napola": True}},
}


@pytest.fixture(scope="module", params=list(CASES))
def run(request: pytest.FixtureRequest) -> scopa_sim.Run:
    return scopa_sim.simulate(**CASES[request.param], seed=9, workers=1)


def side(seat: int, players: int, sides: int) -> int:
    return seat % sides if sides < players else seat


def test_by_role_follows_the_raw_columns(run: scopa_sim.Run) -> None:
    raw = run.scan().collect()
    tidy = run.by_role().collect()
    assert tidy.height == raw.height == run.rows
    players, sides = run.config.rules.players, run.config.rules.sides
    for r, t in zip(raw.iter_rows(named=True), tidy.iter_rows(named=True), strict=True):
        ds, fs = side(r["dealer"], players, sides), side(r["first_player"], players, sides)
        assert (t["dealer_side"], t["first_side"]) == (ds, fs)
        assert t["dealer"] == r["dealer"] and t["match"] == r["match"]
        for item in (*ITEMS, *SIDE_STATS):
            if f"dealer_{item}" in t:
                assert t[f"dealer_{item}"] == r[f"s{ds}_{item}"], item
                assert t[f"first_{item}"] == r[f"s{fs}_{item}"], item
        assert t["margin"] == r[f"s{ds}_points"] - r[f"s{fs}_points"]
        for s in range(players):
            k = side(s, players, sides)
            assert t[f"seat{s}_side"] == k
            assert t[f"seat{s}_points"] == r[f"s{k}_points"]
            assert t[f"seat{s}_policy"] == r[f"policy_{s}"]
        if run.config.mode == "matches":
            assert (t["dealer_total"], t["winner"]) == (r[f"s{ds}_total"], r["winner"])


def test_by_role_has_no_always_null_column(run: scopa_sim.Run) -> None:
    tidy = run.by_role().collect()
    empty = [c for c in tidy.columns if tidy[c].null_count() == tidy.height]
    assert empty == []
    raw = run.scan().collect()
    assert any(raw[c].null_count() == raw.height for c in raw.columns)  # what it removes
    players = run.config.rules.players
    assert f"seat{players - 1}_points" in tidy.columns
    assert f"seat{players}_points" not in tidy.columns
    assert ("dealer_napola" in tidy.columns) == run.config.rules.napola
    assert ("winner" in tidy.columns) == (run.config.mode == "matches")


def test_by_role_margin_is_the_analyses_dealer_margin(run: scopa_sim.Run) -> None:
    tidy = run.by_role().collect()
    assert tidy["margin"].mean() == pytest.approx(scopa_sim.analyze(run).dealer_margin.estimate)


def test_analyze_exports_the_view(tmp_path: Path) -> None:
    a = scopa_sim.simulate(hands=500, seed=1, out=tmp_path / "a")
    b = scopa_sim.simulate("scopa-3", hands=300, seed=1, out=tmp_path / "b")
    out = tmp_path / "hands.parquet"
    args = ["analyze", str(a.directory), str(b.directory), "--by-role", str(out), "--json"]
    result = CliRunner().invoke(cli, args, prog_name="scopa-sim")
    assert result.exit_code == 0, result.output
    assert "wrote 800 hands by role" in result.stderr
    got = pl.read_parquet(out)
    assert got.height == 800
    assert got.head(500).select(a.by_role().collect_schema().names()).equals(a.by_role().collect())
    assert got.tail(300)["seat2_points"].null_count() == 0
    csv = tmp_path / "hands.csv"
    result = CliRunner().invoke(cli, ["analyze", str(a.directory), "--by-role", str(csv)])
    assert result.exit_code == 0, result.output
    want = a.by_role().collect()
    assert pl.read_csv(csv, schema=want.schema).equals(want)


def test_bad_export_paths_are_one_line_errors(tmp_path: Path) -> None:
    frame: Any = pl.LazyFrame({"x": [1]})
    with pytest.raises(DatasetError, match=r"\.parquet or a \.csv"):
        write_by_role([frame], tmp_path / "hands.xlsx")
    with pytest.raises(scopa_sim.ScopaError, match="cannot write"):
        write_by_role([frame], tmp_path / "missing" / "hands.parquet")
    assert not list(tmp_path.iterdir())
    assert by_role  # the function the API's Run.by_role wraps
