"""The match objective of the search bots (``objective=match``): the equity table, its
lookup at the end of a hand, its scale, the totals reaching the bots, margin play
unchanged, and bad input."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim import _engine as K
from scopa_sim._engine import ismcts as KI
from scopa_sim._engine import values as KV
from scopa_sim.bots import objective as O
from scopa_sim.bots.registry import PolicyError, PolicySpec, make_bot
from scopa_sim.bots.search import move_seed
from scopa_sim.errors import EquityError
from scopa_sim.game.cards import CardSet
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.sim.match import play_match

P = CardSet.parse
SCOPA = Rules.make("scopa")


@pytest.fixture(scope="module")
def table() -> O.EquityTable:
    return O.build_table(SCOPA, "expert", hands=3000, seed=1)


@pytest.fixture(scope="module")
def table_file(table: O.EquityTable, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("equity") / "scopa.json"
    table.save(path)
    return path


def run(*args: str):
    res = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in res.output
    return res


# --------------------------------------------------------------------------- the table
def test_table_file_round_trip(table: O.EquityTable, table_file: Path) -> None:
    back = O.EquityTable.load(table_file)
    assert back.rules == SCOPA and back.hands == 3000 and back.seed == 1
    assert np.allclose(back.win, table.win, atol=1e-12) and np.allclose(back.tie, table.tie)
    assert np.array_equal(back.outcomes.counts, table.outcomes.counts)
    assert back.outcomes.n == 3000


def test_table_reads_the_match_state(table: O.EquityTable) -> None:
    t = SCOPA.target
    assert table.after(t, t - 1, 0) == 1.0 and table.after(t + 3, t + 4, 1) == 0.0
    assert table.after(t + 2, t + 2, 1) == table.tie[1]  # a tie at the top plays on
    assert table.after(3, 4, 0) == table.win[3, 4, 0]
    # from 0-0 the first mover's chance is that of the study's table (side 1 plays first)
    assert 0.4 < 1 - table.before((0, 0), 0) < 0.6


def test_rewards_scale_and_centre(table: O.EquityTable) -> None:
    """Rewards k (W - w0): over the model's hand results their mean is 0 and their spread
    the hand margin's, and w0 is the equity before the hand (the Bellman identity)."""
    o = table.outcomes
    p = o.counts / o.counts.sum()
    for totals, dealer_side in (((0, 0), 0), ((9, 7), 1), ((10, 10), 0), ((10, 2), 1)):
        hr = O.hand_rewards(table, totals, dealer_side)
        assert hr.w0 == pytest.approx(table.before(totals, dealer_side), abs=1e-12)
        g0 = o.dealer_points if dealer_side == 0 else o.first_points
        g1 = o.first_points if dealer_side == 0 else o.dealer_points
        r = np.array([KV.end_value(hr.eq, a, b, 0, 0) for a, b in zip(g0, g1, strict=True)])
        m = (g0 - g1).astype(float)
        sd_m = math.sqrt(p @ (m - p @ m) ** 2)
        assert p @ r == pytest.approx(0.0, abs=1e-9)
        assert math.sqrt(p @ r**2) == pytest.approx(sd_m, rel=1e-9)
        # a value stands for the win probability after the hand, for either side
        w = np.array([table.after(totals[0] + a, totals[1] + b, 1 - dealer_side)
                      for a, b in zip(g0, g1, strict=True)])  # fmt: skip
        assert np.allclose([hr.probability(float(v), 0) for v in r], w)
        assert np.allclose([hr.probability(-float(v), 1) for v in r], 1 - w)
    # near the end one point decides far more than at the start: rewards are rescaled
    assert O.hand_rewards(table, (10, 10), 0).k < O.hand_rewards(table, (0, 0), 0).k


def test_end_value_is_the_table_after_the_hand(table: O.EquityTable) -> None:
    hr = O.hand_rewards(table, (9, 8), 0)  # side 0 deals: side 1 deals next
    k, w0 = hr.k, hr.w0
    assert KV.end_value(hr.eq, 2, 0, 0, 0) == pytest.approx(k * (1.0 - w0))  # 11-8: won
    assert KV.end_value(hr.eq, 0, 3, 0, 0) == pytest.approx(-k * w0)  # 9-11: lost
    assert KV.end_value(hr.eq, 1, 1, 0, 0) == pytest.approx(k * (table.win[10, 9, 1] - w0))
    assert KV.end_value(hr.eq, 3, 4, 0, 0) == pytest.approx(k * (table.tie[1] - w0))  # 12-12
    # between whole points the table is interpolated, exact at them
    assert KV.match_value(hr.eq, 1.0, 1.0) == pytest.approx(KV.end_value(hr.eq, 1, 1, 0, 0))
    mid = KV.match_value(hr.eq, 1.5, 1.0)
    lo, hi = sorted([KV.end_value(hr.eq, 1, 1, 0, 0), KV.end_value(hr.eq, 2, 1, 0, 0)])
    assert lo < mid < hi
    # all denari count only under napola_all_denari_wins
    den = int(np.int64(K.DENARI))
    assert KV.end_value(hr.eq, 0, 3, den, 0) == KV.end_value(hr.eq, 0, 3, 0, 0)
    napola = Rules.make("scopa", ["napola=true", "napola_all_denari_wins=true"])
    t2 = O.build_table(napola, "expert", hands=500, seed=1)
    h2 = O.hand_rewards(t2, (9, 8), 0)
    assert KV.end_value(h2.eq, 0, 3, den, 0) == pytest.approx(h2.k * (1.0 - h2.w0))
    assert KV.end_value(h2.eq, 5, 0, 0, den) == pytest.approx(-h2.k * h2.w0)


def test_leaf_value_shares_the_open_points_and_spreads_by_plays_left(
    table: O.EquityTable,
) -> None:
    hr = O.hand_rewards(table, (9, 9), 0)
    eq = hr.eq
    # no play left: the estimate's points with the open item points shared equally
    assert KV.leaf_value(eq, 2.0, 1.0, 0.0, 0.0, 0, 36) == pytest.approx(
        KV.match_value(eq, 2.5, 1.5)
    )
    # the whole hand left: an average over the margin's spread, so less extreme
    ahead = KV.leaf_value(eq, 3.0, 0.0, 0.0, 0.0, 30, 36)
    assert KV.leaf_value(eq, 3.0, 0.0, 0.0, 0.0, 0, 36) > ahead > 0


def test_calibration_of_fits_the_slope_and_the_residual_spread() -> None:
    """The final margin regressed on the estimated one, through the origin, per play;
    a play where every estimate is 0 gets slope 0 and the margins' own spread."""
    rnd = np.random.default_rng(3)
    d = rnd.normal(0.0, 2.0, size=(40_000, 3))
    d[:, 0] = 0.0
    m = 0.5 * d[:, 1] + rnd.normal(0.0, 1.5, size=40_000)
    slope, spread = O.calibration_of(d, m)
    assert slope[0] == 0.0 and spread[0] == pytest.approx(math.sqrt((m * m).mean()))
    assert slope[1] == pytest.approx(0.5, abs=0.01) and spread[1] == pytest.approx(1.5, rel=0.02)
    assert abs(slope[2]) < 0.02  # unrelated to the margin


def test_fit_leaf_from_self_play() -> None:
    """The fit reads self-play hands: before the first play nothing is estimated, the
    final margins are whole points, the fit is the calibration of that data, and the same
    seed gives the same data."""
    d, m = O.leaf_data(SCOPA, "expert", hands=60, seed=2)
    assert d.shape == (60, 36) and np.all(d[:, 0] == 0.0) and np.any(d[:, 20] != 0.0)
    assert np.array_equal(m, np.round(m)) and np.abs(m).max() < 20
    d2, m2 = O.leaf_data(SCOPA, "expert", hands=60, seed=2)
    assert np.array_equal(d, d2) and np.array_equal(m, m2)
    fit = O.fit_leaf(SCOPA, "expert", hands=60, seed=2)
    slope, spread = O.calibration_of(d, m)
    assert np.array_equal(fit.slope, slope) and np.array_equal(fit.spread, spread)
    with pytest.raises(EquityError, match="two sides"):
        O.leaf_data(Rules.make("scopa-3"))
    with pytest.raises(EquityError, match="at least 2 hands"):
        O.leaf_data(SCOPA, hands=1)


def test_calibrated_leaf_value(table: O.EquityTable) -> None:
    """The calibrated leaf shrinks the estimated margin by the play's slope (the points'
    sum kept) and spreads by the play's residual: slope 1 with the normal model's
    spread is the normal model; slope 0 values a lead like the opposite lead."""
    hr = O.hand_rewards(table, (9, 8), 0)
    assert hr.eq[KV.EQ_CAL] == 0.0  # no calibration: the normal model, as before
    sd = hr.eq[KV.EQ_SPREAD]
    left = np.arange(36, 0, -1)
    same = O.LeafFit(SCOPA, "expert", 0, 0, np.ones(36), sd * np.sqrt(left / 36))
    hs = O.hand_rewards(table, (9, 8), 0, same)
    assert np.array_equal(hs.eq[: KV.EQ_CAL], hr.eq[: KV.EQ_CAL])
    for e0, e1, lft in ((3.0, 0.5, 30), (1.0, 2.0, 10), (2.0, 1.0, 0)):
        assert KV.leaf_value(hs.eq, e0, e1, 0.0, 0.0, lft, 36) == pytest.approx(
            KV.leaf_value(hr.eq, e0, e1, 0.0, 0.0, lft, 36)
        )
    flat = O.LeafFit(SCOPA, "expert", 0, 0, np.zeros(36), np.full(36, 2.0))
    hf = O.hand_rewards(table, (9, 8), 0, flat)
    assert KV.leaf_value(hf.eq, 3.0, 0.0, 0.0, 0.0, 20, 36) == pytest.approx(
        KV.leaf_value(hf.eq, 0.0, 3.0, 0.0, 0.0, 20, 36)
    )
    assert KV.leaf_value(hr.eq, 3.0, 0.0, 0.0, 0.0, 20, 36) > KV.leaf_value(
        hr.eq, 0.0, 3.0, 0.0, 0.0, 20, 36
    )


def test_match_close_plays_lopsided_matches_for_the_margin(table_file: Path) -> None:
    """match_close=x: the match objective in hands whose equity before the hand is in
    [x, 1 - x], the margin objective (the same values) in the others."""
    base = f"ismcts:iterations=120,horizon=4,c=1,objective=match,equity={table_file}"
    close = PolicySpec.parse(base + ",match_close=0.2").bot()
    match, margin = (
        PolicySpec.parse(base).bot(),
        PolicySpec.parse("ismcts:iterations=120,horizon=4,c=1").bot(),
    )
    assert close.name.endswith(",match_close=0.2")
    for totals, lopsided in (((10, 1), True), ((8, 8), False)):
        state = HandState.deal(SCOPA, seed=6, match_totals=totals)
        got = [(x.play, x.n, x.mean) for x in close.analyse(state, 2)]
        ref = match if not lopsided else margin
        assert got == [(x.play, x.n, x.mean) for x in ref.analyse(state, 2)]
        assert (close.win_probability(state, 0.0) is None) == lopsided


@pytest.mark.slow
def test_match_leaf_parameter(table_file: Path) -> None:
    """match_leaf=normal is the default (same name, same values); calibrated changes the
    values of depth-limited searches and names itself; it needs objective=match."""
    state = HandState.deal(SCOPA, seed=4, match_totals=(8, 9))
    for _ in range(5):
        state.push(state.legal_plays[0])
    base = f"ismcts:iterations=150,horizon=4,c=1,objective=match,equity={table_file}"
    a, b = PolicySpec.parse(base).bot(), PolicySpec.parse(base + ",match_leaf=normal").bot()
    c = PolicySpec.parse(base + ",match_leaf=calibrated").bot()
    assert a.name == b.name and c.name == a.name + ",match_leaf=calibrated"
    va, vb, vc = ([(x.play, x.n, x.mean) for x in bot.analyse(state, 3)] for bot in (a, b, c))
    assert va == vb and va != vc
    for text in (
        "ismcts:match_leaf=calibrated",
        "pimc:objective=match,match_leaf=fitted",
        "ismcts:match_close=0.1",
        "ismcts:objective=match,match_close=0.5",
        "solver:objective=match,match_close=-1",
    ):
        with pytest.raises(PolicyError, match=r"match_leaf|match_close") as e:
            PolicySpec.parse(text).bot()
        assert "\n" not in str(e.value)


def test_solver_values_finished_hands_by_the_table(table_file: Path) -> None:
    """The last play of a hand: each play's value is the table's at the final score."""
    rules = SCOPA
    state = HandState.from_position(
        rules,
        hands=[P("7D"), P("")],
        table=P("7C 3S"),
        piles=[P("AD 2D 3D 4D 5D 6D JD QD KD QS QH QC JS"), P("7S 7H 6S 6H")],
        scope=[2, 1],
        turn=0,
        dealer=1,
        last_capturer=1,
        match_totals=(8, 7),
    )
    bot = make_bot("solver", {"objective": "match", "equity": str(table_file)})
    hr = O.hand_rewards(O.EquityTable.load(table_file), (8, 7), 1)
    (st,) = bot.analyse(state, 1)
    after = state.clone()
    after.push(st.play)
    g = after.score_array()[:, -1]
    assert st.mean == pytest.approx(KV.end_value(hr.eq, int(g[0]), int(g[1]), 0, 0))
    # ISMCTS at the last play sees one world: its mean is the same value (fixed point)
    ism = make_bot("ismcts", {"iterations": "20", "objective": "match", "equity": str(table_file)})
    (s2,) = ism.analyse(state, 1)
    assert s2.mean == pytest.approx(st.mean, abs=1 / KI.EST_UNIT)


# --------------------------------------------------------------------------- totals
def test_match_totals_reach_the_bots(table_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = HandState.deal(SCOPA, dealer=1, seed=4, match_totals=(6, 9))
    assert state.clone().match_totals == (6, 9) and InfoSet(state).match_totals == (6, 9)
    assert "match=6-9" in InfoSet(state).information_state_string()
    assert HandState.deal(SCOPA, seed=4).match_totals == (0, 0)
    with pytest.raises(ValueError, match="match totals"):
        HandState.deal(SCOPA, seed=4, match_totals=(1, 2, 3))
    seen: list[tuple[tuple[int, ...], int]] = []
    real = O.MatchObjective.rewards

    def spy(self, rules, totals, dealer):  # type: ignore[no-untyped-def]
        seen.append((totals, dealer))
        return real(self, rules, totals, dealer)

    monkeypatch.setattr(O.MatchObjective, "rewards", spy)
    a = PolicySpec.parse(f"ismcts:iterations=20,objective=match,equity={table_file}")
    logs = list(play_match(SCOPA, [a, PolicySpec("greedy")], seed=3, match=0))
    expected = {(log.totals_before, log.dealer) for log in logs}
    assert len(logs) > 1 and set(seen) == expected


# --------------------------------------------------------------------------- margin
#: Plays and values of whole hands under the margin objective, recorded on main before
#: the objective existed (commit 0c4ac90): sha1 of "play:mean" per decision.
MARGIN_DIGESTS = {
    ("pimc", (("worlds", "4"), ("depth", "3"))): "b5c18b7e13743e8f",
    ("ismcts", (("iterations", "200"),)): "ca2f81ea04f04663",
    ("ismcts", (("iterations", "200"), ("horizon", "4"), ("c", "1"))): "4ea219b652516037",
    ("ismcts", (("iterations", "100"), ("exact", "1"))): "bcfa41ce11eb21e1",
    ("solver", (("depth", "2"),)): "a1062f21a8f679c3",
}


@pytest.mark.parametrize("totals", [(0, 0), (9, 10)])
@pytest.mark.parametrize("objective", [None, "margin"])
@pytest.mark.parametrize("key", list(MARGIN_DIGESTS))
def test_margin_objective_plays_as_before(key, objective, totals) -> None:
    name, params = key
    kw = dict(params) | ({"objective": objective} if objective else {})
    bots = [make_bot(name, kw) for _ in range(2)]
    state = HandState.deal(SCOPA, dealer=1, seed=11, match_totals=totals)
    plays = []
    while not state.is_over:
        seat = state.turn
        st = bots[seat].analyse(state, move_seed(11, state.plays_made, seat))
        plays.append(f"{st[0].play}:{st[0].mean:.6f}")
        state.push(st[0].play)
    assert hashlib.sha1(" ".join(plays).encode()).hexdigest()[:16] == MARGIN_DIGESTS[key]


def test_match_objective_names_and_values(table_file: Path) -> None:
    bot = make_bot("ismcts", {"horizon": "4", "objective": "match", "equity": str(table_file)})
    assert bot.name.endswith(f",objective=match,equity={table_file}")
    assert make_bot("pimc", {"objective": "match"}).name.endswith(",objective=match")
    assert make_bot("solver", {"objective": "match"}).name == "solver:objective=match"
    assert make_bot("ismcts", {"objective": "margin"}).name == make_bot("ismcts", {}).name
    state = HandState.deal(SCOPA, dealer=0, seed=2, match_totals=(10, 10))
    stats = bot.analyse(state, 3)
    assert bot.win_probability(state, stats[0].mean) is not None  # type: ignore[attr-defined]
    assert 0.0 <= bot.win_probability(state, stats[0].mean) <= 1.0  # type: ignore[attr-defined]


def test_default_table_is_built_once_from_expert(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(O, "DEFAULT_HANDS", 400)
    O._cached_table.cache_clear()
    obj = O.MatchObjective()
    t = obj.table(SCOPA)
    assert t.hands == 400 and t.policy == "expert" and obj.table(SCOPA) is t
    O._cached_table.cache_clear()


# --------------------------------------------------------------------------- bad input
def test_bad_objective_and_table(table_file: Path, tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match=r"objective='win'.*margin, match"):
        PolicySpec.parse("ismcts:objective=win")
    with pytest.raises(PolicyError, match="no such equity table file"):
        PolicySpec.parse(f"pimc:objective=match,equity={tmp_path / 'none.json'}")
    with pytest.raises(PolicyError, match="equity= is the table of objective=match"):
        PolicySpec.parse(f"ismcts:equity={table_file}")
    with pytest.raises(PolicyError, match="leaf=estimate"):
        PolicySpec.parse("ismcts:horizon=4,leaf=expert,objective=match")
    bad = tmp_path / "bad.json"
    for text, message in (
        ("not json", "is not JSON"),
        (json.dumps({"format": "other"}), "is not a scopa-sim-equity/1 file"),
        (json.dumps({"format": O.FORMAT}), "is malformed"),
    ):
        bad.write_text(text)
        with pytest.raises(EquityError, match=message):
            O.EquityTable.load(bad)
    doc = json.loads(table_file.read_text())
    doc["win"] = doc["win"][:-1]
    bad.write_text(json.dumps(doc))
    with pytest.raises(EquityError, match="wrong shape"):
        O.EquityTable.load(bad)
    t = O.EquityTable.load(table_file)
    with pytest.raises(EquityError, match="is for target 11, the rules' is 16"):
        t.check(SCOPA.replace(target=16))
    with pytest.raises(EquityError, match="is for 2 sides, the rules have 3"):
        t.check(Rules.make("scopa-3"))
    with pytest.raises(EquityError, match="capture_rule=card in the table, hand in the rules"):
        t.check(SCOPA.replace(capture_rule="hand"))
    with pytest.raises(EquityError, match="needs two sides"):
        O.MatchObjective().table(Rules.make("scopa-3"))


def test_bad_input_on_the_command_line(table_file: Path, tmp_path: Path) -> None:
    cases = [
        (["--policy", "ismcts:objective=points", "--policy", "greedy"], "objective='points'"),
        (
            ["--policy", f"ismcts:objective=match,equity={tmp_path}/x.json", "--policy", "greedy"],
            "no such equity table file",
        ),
        (
            [
                *("--rule", "target=16", "--policy"),
                *(f"ismcts:objective=match,equity={table_file}", "--policy", "greedy"),
            ],
            "is for target 11, the rules' is 16",
        ),
    ]
    for args, message in cases:
        res = run("tournament", "--deals", "2", "-q", *args)
        assert res.exit_code != 0 and message in res.output, res.output
        assert len(res.output.strip().splitlines()) == 1, res.output
    res = run("play", "--preset", "scopa-3", "--policy", "pimc:objective=match", "--matches", "1")
    assert res.exit_code != 0 and "needs two sides" in res.output, res.output
    assert len(res.output.strip().splitlines()) == 1
    res = run("advise", "--hand", "7D", "--table", "7C", "--totals", "9", "--policy", "pimc")
    assert res.exit_code == 2 and "--totals '9'" in res.output


def test_equity_command_writes_a_table_the_bots_take(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    res = run("equity", "--hands", "300", "--seed", "2", "--out", str(out))
    assert res.exit_code == 0, res.output
    assert O.EquityTable.load(out).hands == 300
    spec = f"ismcts:iterations=50,horizon=4,c=1,objective=match,equity={out}"
    args = ["advise", "--hand", "7D 3S KH", "--table", "7C 5H 2S AD", "--totals", "9,10"]
    res = run(*args, "--policy", spec, "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["values"] == "match_win_points" and doc["match_totals"] == [9, 10]
    assert all(0 <= p["p_win"] <= 1 for p in doc["plays"] if p["n"])
    res = run("equity", "--preset", "scopa-3", "--out", str(out))
    assert res.exit_code == 2 and "two sides" in res.output


def test_advise_takes_the_totals_from_a_record(tmp_path: Path, table_file: Path) -> None:
    rec = tmp_path / "g.jsonl"
    assert run("play", "--seed", "1", "--record", str(rec)).exit_code == 0
    lines = rec.read_text().splitlines()
    assert len(lines) > 1  # a match of several hands: later ones start from a score
    before = json.loads(lines[-1])["totals_before"]
    assert any(before)
    spec = f"ismcts:iterations=30,objective=match,equity={table_file}"
    res = run("advise", "--position", f"{rec}:{len(lines)}:0", "--policy", spec, "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["match_totals"] == before
    res = run("advise", "--position", f"{rec}:1:0", "--totals", "3,4", "--policy", spec)
    assert res.exit_code == 2 and "drop totals" in res.output


def test_a_match_can_start_from_given_totals() -> None:
    from scopa_sim.errors import MatchError

    spec = [PolicySpec("greedy")] * 2
    logs = list(play_match(SCOPA, spec, seed=5, match=0, start=(9, 10)))
    assert logs[0].totals_before == (9, 10)
    first = logs[0]
    after = tuple(t + first.score[s][-1] for s, t in enumerate((9, 10)))
    assert first.totals_after == after
    assert logs[-1].winner is not None and max(logs[-1].totals_after) >= SCOPA.target
    # from 0-0 explicitly: the match of the default start, hand for hand
    same = list(play_match(SCOPA, spec, seed=5, match=0, start=(0, 0)))
    assert [h.plays for h in same] == [h.plays for h in play_match(SCOPA, spec, 5, 0)]
    for bad in ((9,), (9, 9, 9), (-1, 3), (11, 0), (3, 40)):
        with pytest.raises(MatchError, match="starting totals"):
            list(play_match(SCOPA, spec, seed=5, match=0, start=bad))


def test_a_table_is_built_in_short_blocks_whatever_their_size(monkeypatch) -> None:
    """``equity``'s progress moved every 65,536 hands (3 s of expert play): the blocks are
    now 8,192 hands, and the outcomes do not depend on them."""
    told: list[int] = []
    small = O.hand_outcomes(SCOPA, "expert", 3000, 1, told.append)
    assert O._BLOCK <= 8192 and sum(told) == 3000
    monkeypatch.setattr(O, "_BLOCK", 700)
    told.clear()
    blocks = O.hand_outcomes(SCOPA, "expert", 3000, 1, told.append)
    assert told == [700] * 4 + [200]
    for a, b in zip(
        (small.dealer_points, small.first_points, small.all_denari, small.counts),
        (blocks.dealer_points, blocks.first_points, blocks.all_denari, blocks.counts),
        strict=True,
    ):
        assert (a == b).all()
