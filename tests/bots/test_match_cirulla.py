"""The match objective on Cirulla (RULES.md §10, issue 42): the match-equity table to 51
built from Cirulla's hands (declarations, grande, piccola, the cappotto's outright win),
the searches' values under ``objective=match`` and what stays refused."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim import _engine as K
from scopa_sim._engine import policy as KPO
from scopa_sim._engine import policy_cirulla as KPC
from scopa_sim._engine import values as KV
from scopa_sim._engine import values_cirulla as KVC
from scopa_sim.bots import objective as O
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.bots.search import (
    ISMCTSBot,
    PIMCBot,
    SolverBot,
)
from scopa_sim.errors import EquityError
from scopa_sim.game.cards import CardSet
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
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


# --------------------------------------------------------------------------- the searches
@pytest.fixture(scope="module")
def table_file(table: O.EquityTable, tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("equity") / "cirulla.json"
    table.save(path)
    return str(path)


def late(seed: int, totals: tuple[int, int], left: int = 4) -> HandState:
    """A ``cirulla`` hand at match totals ``totals`` dealt from ``seed`` after random plays
    until ``left`` plays remain (the stock played out: one world for the solver)."""
    state = HandState.deal(CIRULLA, seed=seed, match_totals=totals)
    rng = random.Random(seed)
    while state.plays_left > left:
        state.push(rng.choice(state.legal_plays))
    return state


def brute(state: HandState, hr: O.HandRewards) -> float:
    """Side 0's match value of ``state`` under perfect play (minimax over the plays, the
    finished hand valued by :meth:`HandRewards.reached`)."""
    if state.is_over:
        return hr.reached(state)
    best = None
    for p in state.legal_plays:
        child = state.clone()
        child.push(p)
        v = brute(child, hr)
        if state.rules.side_of(state.turn) != 0:
            v = -v
        best = v if best is None else max(best, v)
    assert best is not None
    return best if state.rules.side_of(state.turn) == 0 else -best


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_solver_match_values_are_the_tables_under_perfect_play(seed: int, table_file: str):
    """The Cirulla solver's match values of an endgame are the table's values of the
    hand's Cirulla points (declarations, grande, piccola, the cappotto) under perfect
    play, as a minimax over the reference's plays finds them."""
    state = late(seed, (38, 44))
    bot = SolverBot(objective="match", equity=table_file)
    bot.prepare(CIRULLA)
    hr = bot._rewards(state)
    assert hr is not None
    side = CIRULLA.side_of(state.turn)
    for s in bot.analyse(state, 0):
        child = state.clone()
        child.push(s.play)
        v = brute(child, hr)
        assert s.mean == pytest.approx(v if side == 0 else -v, abs=1e-9)
        assert 0.0 <= bot.win_probability(state, s.mean) <= 1.0


def test_match_objective_chooses_differently_than_margin_near_51(table_file: str) -> None:
    """Near 51 the match objective tells apart what the margin does not: in this endgame
    (the last three plays each, dealt from seed 4) at 29-44, side 1 seven points from the
    target, the solver's first best play for the margin captures with the queen, its
    best for the match with the seven: the same margin, but not the same points, and
    near the target the points each side ends with matter, not only their difference."""
    margin, match = SolverBot(), SolverBot(objective="match", equity=table_file)
    match.prepare(CIRULLA)
    state = late(4, (29, 44), left=6)
    a, b = margin.analyse(state, 0), match.analyse(state, 0)
    assert str(a[0].play) == "QH x 3H 6S" and str(b[0].play) == "7C x AC 6S"
    by_margin = {s.play: s.mean for s in a}
    by_match = {s.play: s.mean for s in b}
    assert by_margin[b[0].play] <= by_margin[a[0].play]
    assert by_match[b[0].play] > by_match[a[0].play]
    p = [match.win_probability(state, by_match[x.play]) for x in (a[0], b[0])]
    assert p[1] > p[0]


def test_ismcts_match_values_are_in_points(table_file: str) -> None:
    """ISMCTS's reported values are in the documented units: the match objective's points
    (win probabilities in [0, 1]) with and without a horizon, and whole hand points for a
    hand ``match_close`` leaves to the margin (the margin bot's own stats, bit for bit)."""
    state = late(5, (0, 0), left=20)
    for horizon in (None, 4):
        bot = ISMCTSBot(iterations=300, horizon=horizon, objective="match", equity=table_file)
        bot.prepare(CIRULLA)
        hr = bot._rewards(state)
        assert hr is not None
        stats = bot.analyse(state, 1)
        side = CIRULLA.side_of(state.turn)
        lo, hi = (-hr.k * hr.w0, hr.k * (1 - hr.w0))
        if side:
            lo, hi = -hi, -lo
        assert all(lo - 1e-6 <= s.mean <= hi + 1e-6 for s in stats)
        assert all(0.0 <= bot.win_probability(state, s.mean) <= 1.0 for s in stats)
    lopsided = late(5, (50, 0), left=20)  # decided: match_close leaves it to the margin
    close = ISMCTSBot(iterations=300, objective="match", equity=table_file, match_close=0.2)
    close.prepare(CIRULLA)
    assert close._rewards(lopsided) is None
    got = [(str(s.play), s.n, s.mean) for s in close.analyse(lopsided, 1)]
    want = [(str(s.play), s.n, s.mean) for s in ISMCTSBot(iterations=300).analyse(lopsided, 1)]
    assert got == want
    assert any(abs(m) >= 1 for _, _, m in got)  # whole points, not 1 / EST_UNIT of them


def test_pimc_match_values_on_cirulla(table_file: str) -> None:
    """PIMC on Cirulla for the match: every legal play valued, within the table's range,
    at a depth limit (the leaf) and solved to the end."""
    state = late(7, (30, 41), left=12)
    for depth, exact in ((2, 0), (5, 12)):
        bot = PIMCBot(worlds=4, depth=depth, exact_below=exact, objective="match",
                      equity=table_file)  # fmt: skip
        bot.prepare(CIRULLA)
        stats = bot.analyse(state, 2)
        assert sorted(map(str, (s.play for s in stats))) == sorted(map(str, state.legal_plays))
        assert all(0.0 <= bot.win_probability(state, s.mean) <= 1.0 for s in stats)


@pytest.mark.parametrize(
    "policy",
    [
        "pimc:worlds=4,belief=expert,objective=match,equity={t}",
        "pimc:worlds=4,belief=robust,leaf=expert",
        "ismcts:iterations=60,belief=expert,objective=match,equity={t}",
        "ismcts:iterations=60,belief=fit,horizon=3,leaf=expert",
    ],
)
def test_a_belief_plays_with_the_match_objective_and_the_expert_leaf(
    policy: str, table_file: str
) -> None:
    """Belief models on Cirulla with the match objective or leaf=expert: every legal play
    valued."""
    bot = PolicySpec.parse(policy.format(t=table_file)).bot()
    bot.prepare(CIRULLA)
    state = late(1, (0, 0), left=10)
    stats = bot.analyse(state, 1)
    assert sorted(map(str, (s.play for s in stats))) == sorted(map(str, state.legal_plays))


def test_cirulla_3_match_is_refused(table_file: str) -> None:
    bot = ISMCTSBot(objective="match")
    with pytest.raises(EquityError, match="needs two sides"):
        bot.prepare(Rules.make("cirulla-3"))
    res = run("tournament", "--preset", "cirulla-3", "--policy", "pimc:objective=match",
              "--policy", "expert", "--deals", "2")  # fmt: skip
    assert res.exit_code != 0 and "two sides" in res.output
    assert len([x for x in res.output.splitlines() if x.startswith("Error")]) == 1


def test_tournament_takes_the_match_objective_on_cirulla(table_file: str) -> None:
    res = run("tournament", "--preset", "cirulla", "--policy",
              f"solver:depth=2,objective=match,equity={table_file}", "--policy", "greedy",
              "--deals", "2", "--seed", "1")  # fmt: skip
    assert res.exit_code == 0, res.output


# --------------------------------------------------------------------------- leaf=expert
def test_expert_leaf_cirulla_counts_cirulla_scoring() -> None:
    """The Cirulla leaf is the expert's evaluation of the piles with Cirulla's grande and
    piccola (a held grande is worth its 5, a run from the ace of denari to the four its
    4), plus the scope and the declared points already scored."""
    r = CIRULLA.loop_array()
    v = late(2, (0, 0), left=20)._vec.copy()
    pm, po = CardSet.parse("JD QD KD AD 2D 3D 4D").mask, CardSet.parse("7D 7C 5S").mask
    v[K.S_PILES], v[K.S_PILES + 1] = pm, po
    v[K.S_SCOPE], v[K.S_SCOPE + 1] = 2, 1
    v[K.S_DECLARED], v[K.S_DECLARED + 1] = 0, 10
    xf = KPO.expert_flags(r)
    e = KPC.expert_eval_cirulla(pm, po, 0, 40, xf, CIRULLA.piccola_max)
    assert e - KPO.expert_eval(pm, po, 0, 40, xf) == pytest.approx(5.0 + 4.0)
    assert KVC.expert_leaf_cirulla(v, r, 0) == pytest.approx(e + 1 - 10)


def test_pimc_expert_leaf_on_cirulla_is_the_leaf_of_each_play() -> None:
    """PIMC one ply deep with ``leaf=expert`` values each play by the Cirulla leaf of the
    position it leaves (for the side to play there, negated for the other side)."""
    r = CIRULLA.loop_array()
    state = late(3, (0, 0), left=20)
    side = CIRULLA.side_of(state.turn)
    plays, vals = PIMCBot(worlds=1, depth=1, exact_below=0, leaf="expert").values(state, 1)
    assert sorted(map(str, plays)) == sorted(map(str, state.legal_plays))
    for p, got in zip(plays, vals[0], strict=True):
        child = state.clone()
        child.push(p)
        there = CIRULLA.side_of(child.turn)
        want = KVC.expert_leaf_cirulla(child._vec, r, there)
        assert got == pytest.approx(want if there == side else -want)


def test_ismcts_expert_leaf_on_cirulla() -> None:
    """ISMCTS with ``horizon=4,leaf=expert`` on Cirulla: every legal play searched, values
    in points (the leaf's, not 1 / EST_UNIT of them), not the estimate's."""
    state = late(4, (0, 0), left=24)
    a = ISMCTSBot(iterations=400, horizon=4, leaf="expert").analyse(state, 1)
    b = ISMCTSBot(iterations=400, horizon=4).analyse(state, 1)
    assert sorted(map(str, (s.play for s in a))) == sorted(map(str, state.legal_plays))
    assert all(abs(s.mean) < 60 for s in a) and any(abs(s.mean) > 0.5 for s in a)
    assert [(s.play, s.mean) for s in a] != [(s.play, s.mean) for s in b]


# --------------------------------------------------------------------------- match_leaf
def test_leaf_calibration_is_fitted_on_cirulla_hands() -> None:
    """``match_leaf=calibrated`` on Cirulla: the leaf's data are Cirulla's (the declared
    points in the estimated margin from the first play, the final margin's spread
    Cirulla's), the fit shrinks early estimates and trusts late ones."""
    d, m = O.leaf_data(CIRULLA, "expert", hands=400, seed=1)
    assert d.shape == (400, CIRULLA.total_plays)
    assert np.abs(m).max() > 12  # a declaration, grande or piccola: beyond Scopa's hands
    fit = O.fit_leaf(CIRULLA, "expert", hands=400, seed=1)
    assert 0.0 < fit.slope[4] < fit.slope[-1] <= 1.5
    assert fit.spread[4] > fit.spread[-1] > 0.0


def test_match_leaf_calibrated_plays_cirulla(table_file: str) -> None:
    state = late(6, (20, 30), left=24)
    for bot in (
        ISMCTSBot(iterations=200, horizon=4, objective="match", equity=table_file,
                  match_leaf="calibrated"),
        PIMCBot(worlds=3, depth=2, objective="match", equity=table_file,
                match_leaf="calibrated"),
    ):  # fmt: skip
        bot.prepare(CIRULLA)
        stats = bot.analyse(state, 1)
        assert sorted(map(str, (s.play for s in stats))) == sorted(map(str, state.legal_plays))
        assert all(0.0 <= bot.win_probability(state, s.mean) <= 1.0 for s in stats)
