"""First-player advantage estimates: determinism, consistency with simulate, the CLI."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim.analysis.advantage import first_player_advantage, position_points
from scopa_sim.bots.registry import seat_policies
from scopa_sim.data.run import SimConfig, scan
from scopa_sim.game.rules import Rules
from scopa_sim.sim.executors import local_executor
from scopa_sim.sim.simulate import simulate
from scopa_sim.stats.inference import normal_ci


def test_estimate_ci_covers_a_planted_mean() -> None:
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(400):
        e = normal_ci(rng.normal(0.3, 2.0, size=200))
        hits += e.low <= 0.3 <= e.high
    assert 0.92 <= hits / 400 <= 0.98  # nominal 95% coverage


def test_position_points_with_teams() -> None:
    r = Rules.make("scopa-4")
    points = np.array([[5, 1, 0, 0]] * 4)  # side 0 = seats 0 and 2
    pos = position_points(r, points, first_hand=0)
    # hand 0: dealer 0, first player seat 1 (side 1) ... dealer seat 0 (side 0)
    assert pos[0].tolist() == [1, 5, 1, 5]
    assert pos[1].tolist() == [5, 1, 5, 1]


@pytest.mark.slow
def test_advantage_matches_simulated_dataset(tmp_path) -> None:
    r = Rules.make()
    specs = seat_policies(["random"], 2)
    res = first_player_advantage(r, specs, 3000, seed=9)
    cfg = SimConfig.make("scopa", r, specs, "hands", 3000, 9, 1000)
    simulate(tmp_path / "d", cfg, local_executor(1))
    df = scan(tmp_path / "d").collect()
    dealer_pts = pl.when(pl.col("dealer") == 0).then("s0_points").otherwise("s1_points")
    first_pts = pl.when(pl.col("dealer") == 0).then("s1_points").otherwise("s0_points")
    margin = df.select((dealer_pts.cast(pl.Int32) - first_pts).mean()).item()
    assert abs(margin - res.dealer_margin.estimate) < 1e-12
    assert res.dealer_margin.n == 3000


def test_cli_advantage_json_is_reproducible() -> None:
    args = ["advantage", "--hands", "2000", "--seed", "4", "--json"]
    a = CliRunner().invoke(cli, args)
    b = CliRunner().invoke(cli, args)
    assert a.exit_code == 0, a.output
    da, db = json.loads(a.stdout), json.loads(b.stdout)
    assert da["dealer_margin"] == db["dealer_margin"]
    m = da["dealer_margin"]
    assert m["low"] < m["mean"] < m["high"] and m["n"] == 2000
    assert len(da["points_by_position"]) == 2
    res = CliRunner().invoke(cli, ["advantage", "--hands", "2000", "--preset", "scopa-3"])
    assert res.exit_code == 0 and "position 2" in res.output and "dealer" in res.output
    res = CliRunner().invoke(cli, ["advantage", "--hands", "1"])
    assert res.exit_code == 2
