"""The match objective on Cirulla (RULES.md §10, issue 42): the match-equity table to 51
built from Cirulla's hands (declarations, grande, piccola, the cappotto's outright win),
the searches' values under ``objective=match`` and what stays refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim._engine import values as KV
from scopa_sim.bots import objective as O
from scopa_sim.errors import EquityError
from scopa_sim.game.rules import Rules
from scopa_sim.stats import equity as E

CIRULLA = Rules.make("cirulla")


@pytest.fixture(scope="module")
def table() -> O.EquityTable:
    return O.build_table(CIRULLA, "expert", hands=2000, seed=3)


def run(*args: str):
    res = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in res.output
    return res


# --------------------------------------------------------------------------- the table
def test_table_is_to_51_with_cirulla_points(table: O.EquityTable) -> None:
    """The table covers 0..50 per side; Cirulla's hands give more points than Scopa's can
    (a declaration alone is 3 or 10), and the cappotto is the outright win."""
    assert table.win.shape == (51, 51, 2)
    o = table.outcomes
    assert max(o.dealer_points.max(), o.first_points.max()) > 12
    assert O.outright(CIRULLA) and not O.outright(Rules.make("cirulla", {"cappotto": False}))
    assert O.gains(CIRULLA) > 51 and O.gains(Rules.make("scopa")) == O.GAINS


def test_table_properties(table: O.EquityTable) -> None:
    """Probabilities, more points never hurt, a lead at 50 nearly wins, and the table is
    the programme's over the outcomes (the cappotto counted as an outright win)."""
    w = table.win
    assert np.all((w >= 0) & (w <= 1))
    assert np.all(np.diff(w, axis=0) >= -1e-12)  # side 0's score up: its chance up
    assert np.all(np.diff(w, axis=1) <= 1e-12)  # side 1's up: down
    assert table.after(50, 0, 0) > 0.9 and table.after(0, 50, 1) < 0.1
    win, tie = E.solve(table.outcomes, 51, True)
    assert np.allclose(win[0], w) and np.allclose(tie[0], table.tie)
    assert 0.4 < 1 - table.before((0, 0), 0) < 0.6


def test_rewards_cover_cirulla_hands(table: O.EquityTable) -> None:
    """The rewards' table covers every hand's points (no clipping below the largest
    result) and is centred: mean 0 over the model's hands, the margin's spread."""
    o = table.outcomes
    p = o.counts / o.counts.sum()
    hr = O.hand_rewards(table, (30, 41), 1)
    assert hr.eq[KV.EQ_SIZE] == O.gains(CIRULLA) and hr.eq[KV.EQ_DENARI] == 1.0
    assert int(hr.eq[KV.EQ_SIZE]) > max(o.dealer_points.max(), o.first_points.max())
    g0, g1 = o.first_points, o.dealer_points  # side 1 deals: side 0 plays first
    r = np.array([KV.end_value(hr.eq, a, b, 0, 0) for a, b in zip(g0, g1, strict=True)])
    flags = o.all_denari
    r = np.where(flags == E.NONE, r, np.where(flags == E.FIRST, hr.eq[2], hr.eq[3]))
    assert float(p @ r) == pytest.approx(0.0, abs=1e-9)
    sd = np.sqrt(p @ (g0 - g1 - p @ (g0 - g1)) ** 2)
    assert np.sqrt(p @ r**2) == pytest.approx(sd, rel=1e-9)


def test_three_sides_are_refused() -> None:
    with pytest.raises(EquityError, match="needs two sides"):
        O.build_table(Rules.make("cirulla-3"), "expert", hands=10, seed=0)


# --------------------------------------------------------------------------- the CLI
def test_equity_cli_writes_a_cirulla_table(tmp_path: Path) -> None:
    out = tmp_path / "c4.json"
    res = run("equity", "--preset", "cirulla-4", "--hands", "300", "--out", str(out))
    assert res.exit_code == 0, res.output
    back = O.EquityTable.load(out)
    assert back.rules == Rules.make("cirulla-4") and back.win.shape == (51, 51, 2)
    assert "51-point match equity" in res.output


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--preset", "cirulla-3"), ("needs two sides", "not 3")),
        (("--preset", "cirulla", "--hands", "0"), ("--hands",)),
        (("--preset", "cirulla", "--rule", "piccola_max=9"), ("piccola_max",)),
    ],
)
def test_equity_cli_bad_input_is_one_line(
    args: tuple[str, ...], words: tuple[str, ...], tmp_path: Path
) -> None:
    res = run("equity", *args, "--out", str(tmp_path / "t.json"))
    assert res.exit_code == 2
    errors = [line for line in res.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, res.output
    for w in words:
        assert w in errors[0], errors[0]
    assert not list(tmp_path.iterdir())
