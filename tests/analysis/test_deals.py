"""What a deal is worth (issue 27): deals dealt again against the records ``play`` writes,
deal features, card values against a direct estimate, the luck share against a synthetic
case with a known answer, opening tables, determinism, and bad input."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

import scopa_sim
from scopa_sim import _engine as K
from scopa_sim.analysis import deal_analyses as DV
from scopa_sim.analysis.analyze import analyze
from scopa_sim.bots.registry import seat_policies
from scopa_sim.data.run import open_run
from scopa_sim.errors import AnalysisError, ScopaError
from scopa_sim.game.cards import card_name, parse_card
from scopa_sim.game.rules import Rules
from scopa_sim.records.record import deals_from_deck, hand_record
from scopa_sim.sim import deals as DL
from scopa_sim.sim.match import HandPlayer, play_match


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    d = tmp_path_factory.mktemp("deals")
    return {
        "greedy": scopa_sim.simulate(hands=20_000, seed=11, policy="greedy", workers=1,
                                     out=d / "greedy"),
        "s36": scopa_sim.simulate("scopa-36", hands=400, seed=2, workers=1, out=d / "s36"),
        "s3": scopa_sim.simulate("scopa-3", hands=300, seed=2, workers=1, out=d / "s3"),
        "tiny": scopa_sim.simulate(hands=40, seed=4, policy="expert", workers=1, out=d / "tiny"),
    }  # fmt: skip


def _record_deals(rec: dict[str, Any]) -> tuple[list[str], list[list[list[str]]]]:
    return rec["deals"][0]["table"], [d["hands"] for d in rec["deals"]]


def _frame_deals(row: dict[str, Any], rules: Rules) -> tuple[list[str], list[list[list[str]]]]:
    rounds = DL.deal_rounds(rules)
    hands = [[row[f"seat{s}_deal{r}_cards"] for s in range(rules.players)]
             for r in range(1, rounds + 1)]  # fmt: skip
    return row["table_cards"], hands


def _sorted(deal: tuple[list[str], list[list[list[str]]]]) -> Any:
    key = parse_card
    table, hands = deal
    return sorted(table, key=key), [[sorted(h, key=key) for h in r] for r in hands]


@pytest.mark.parametrize(
    "preset,policy",
    [("scopa", "random"), ("scopa-36", "greedy"), ("scopa-3", "random"), ("scopa-4", "greedy"),
     ("escoba", "random"), ("scopone-scientifico", "random")],
)  # fmt: skip
def test_deal_columns_equal_the_records_play_writes(
    tmp_path: Path, preset: str, policy: str
) -> None:
    """A --matches run's deals, dealt again (scopa_sim.hands_with_deals), are the deals of the
    records `play` writes for the same seed and matches: every hand, rotation included."""
    run = scopa_sim.simulate(preset, matches=2, seed=9, policy=policy, workers=1,
                             out=tmp_path / "run")  # fmt: skip
    rules = run.config.rules
    frame = scopa_sim.hands_with_deals(run).sort("match", "hand").collect()
    records = [
        hand_record(rules, log)
        for m in range(2)
        for log in play_match(rules, seat_policies([policy], rules.players), 9, m)
    ]
    assert frame.height == len(records)
    for row, rec in zip(frame.iter_rows(named=True), records, strict=True):
        assert (row["match"], row["hand"], row["dealer"]) == (rec["match"], rec["hand"],
                                                             rec["dealer"])  # fmt: skip
        assert _sorted(_frame_deals(row, rules)) == _sorted(_record_deals(rec))
        mask = sum(1 << parse_card(c) for c in row["table_cards"])
        assert row["table"] == mask


def test_the_play_command_s_records_match(tmp_path: Path) -> None:
    """The same through the command line: `play --record` and `simulate --matches`."""
    rec_file = tmp_path / "rec.jsonl"
    res = CliRunner().invoke(cli, ["play", "--matches", "2", "--seed", "5", "--record",
                                   str(rec_file)])  # fmt: skip
    assert res.exit_code == 0, res.output
    run = scopa_sim.simulate(matches=2, seed=5, workers=1, out=tmp_path / "run")
    frame = scopa_sim.hands_with_deals(run).sort("match", "hand").collect()
    records = [json.loads(line) for line in rec_file.read_text().splitlines()]
    assert frame.height == len(records)
    for row, rec in zip(frame.iter_rows(named=True), records, strict=True):
        assert _sorted(_frame_deals(row, run.config.rules)) == _sorted(_record_deals(rec))


@pytest.mark.parametrize("deal", ["plain", "swapped"])
def test_hands_runs_and_duplicates_are_dealt_as_played(tmp_path: Path, deal: str) -> None:
    """A --hands run (dealer = hand index mod players) and its duplicate (the seats'
    cards exchanged) dealt again give the decks the hand player deals."""
    rules = Rules.make("scopa-4")
    run = scopa_sim.simulate("scopa-4", hands=50, seed=3, deal=deal, workers=1,
                             out=tmp_path / deal)  # fmt: skip
    frame = scopa_sim.hands_with_deals(run).sort("match").collect()
    player = HandPlayer(rules, seat_policies(["random"], 4), 3, swapped=deal == "swapped")
    for row in frame.iter_rows(named=True):
        u = row["match"]
        hp = player.play(u, 0, u % 4)
        table, hands = deals_from_deck(rules, hp.deck, u % 4)
        want = ([card_name(c) for c in table],
                [[[card_name(c) for c in h] for h in r] for r in hands])  # fmt: skip
        assert _sorted(_frame_deals(row, rules)) == _sorted(want)


def test_redeal_is_fast_enough_and_deterministic() -> None:
    """One seed gives one deal whatever the chunking; another seed another deal."""
    rules = Rules.make("scopa")
    n = 5000
    m, h, d = np.arange(n), np.zeros(n, np.int64), np.arange(n) % 2
    from scopa_sim.data.run import SimConfig

    c1 = SimConfig.make("scopa", rules, ["random"], "hands", n, 7)
    c2 = SimConfig.make("scopa", rules, ["random"], "hands", n, 8)
    a = DL.redeal(c1, m, h, d)
    b = DL.redeal(c1, m[:1234], h[:1234], d[:1234])
    assert np.array_equal(a.table[:1234], b.table) and np.array_equal(a.hands[:1234], b.hands)
    assert not np.array_equal(a.table, DL.redeal(c2, m, h, d).table)
    # every card dealt exactly once per hand
    union = a.table | np.bitwise_or.reduce(a.hands.reshape(n, -1), axis=1)
    assert (union == (1 << 40) - 1).all()
    assert (DL.popcount(a.hands[:, :, 0].copy()) == 3).all()


def test_card_values_agree_with_the_direct_estimate(runs: dict[str, Any]) -> None:
    """The settebello's regression value (any deal) against the direct estimate: half the
    difference of the mean margin when the dealer's side and when the first player's side
    was dealt it. Given the card, each other card is one place less likely on the holder's
    side (17 of 39 against 18 of 39), so under the regression's model the direct estimate
    is ``v - S / 39`` (``S`` the other cards' values summed): they must agree within the
    intervals, and the effect must be large."""
    ds = DV.deal_sides(open_run(runs["greedy"].directory))
    cv = DV.card_values(ds, "any")
    sb = cv.value("7D")
    direct = DV.direct_value(ds, "7D", "any")
    others = sum(v.value.estimate for v in cv.values if v.card != "7D")
    want = sb.value.estimate - others / 39
    se = math.hypot(sb.se, (direct.high - direct.low) / 2 / 1.96)
    assert sb.value.low > 0.3  # a large effect
    assert abs(direct.estimate - want) < 1.96 * se
    # the plain difference also lies near the value
    assert abs(direct.estimate - sb.value.estimate) < 4 * se + abs(others) / 39
    # first deal: the settebello in the opening hand is worth something too
    first = DV.card_values(ds, "first")
    assert first.value("7D").value.low > 0 and first.hands == 20_000
    assert first.grid().shape == (4, 10) and np.isfinite(first.grid()).all()


def test_one_card_regression_is_the_difference_of_means() -> None:
    """The OLS on an intercept and one ±1/0 regressor reproduces the group means exactly,
    and its HC1 standard error the unequal-variance one (up to n / (n - k))."""
    rng = np.random.default_rng(1)
    x = rng.choice([-1.0, 0.0, 1.0], size=3000, p=[0.3, 0.4, 0.3])
    y = 0.5 * x + rng.normal(0, 1 + (x > 0), size=x.size)
    X = np.column_stack([np.ones_like(x), x])
    fit = DV.ols_hc1(lambda: iter([(X[:1000], y[:1000]), (X[1000:], y[1000:])]))
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    assert np.allclose(fit.beta, beta)
    e = y - X @ beta
    inv = np.linalg.inv(X.T @ X)
    hc0 = inv @ (X.T * e**2) @ X @ inv
    assert np.allclose(fit.se, np.sqrt(np.diag(hc0) * 3000 / 2998))


def test_luck_share_recovers_a_known_r2() -> None:
    """On synthetic data with y = X beta + noise, the cross-validated R² is near the true
    share var(X beta) / var(y); on noise alone near 0."""
    rng = np.random.default_rng(0)
    n, k = 40_000, 6
    X = np.column_stack([np.ones(n), rng.normal(size=(n, k))])
    beta = np.array([0.3, 1.0, -0.5, 0.25, 0.0, 0.0, 0.5])
    signal = X[:, 1:] @ beta[1:]
    y = X @ beta + rng.normal(scale=1.5, size=n)
    true = signal.var() / (signal.var() + 1.5**2)

    def chunks(target: np.ndarray) -> Any:
        return lambda: ((X[i : i + 7000], target[i : i + 7000]) for i in range(0, n, 7000))

    r2, folds = DV.cv_r2(chunks(y))
    assert abs(r2 - true) < 0.015 and len(folds) == DV.FOLDS
    noise, _ = DV.cv_r2(chunks(rng.normal(size=n)))
    assert abs(noise) < 0.005


def test_luck_share_of_a_run(runs: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(DV, "MIN_LUCK_HANDS", 10_000)  # refused below 100,000 otherwise
    share = scopa_sim.luck_share(runs["greedy"], max_hands=10_000)
    assert share.hands == 10_000 and 0.02 < share.share.estimate < 0.6
    s = share.share
    assert s.low < s.estimate < s.high and "cross-validated" in s.method


def test_analysis_is_deterministic(runs: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The same run gives the same card values, whatever the chunk sizes."""
    a = scopa_sim.card_values(runs["greedy"], max_hands=3000).to_polars()
    monkeypatch.setattr(DL, "CHUNK_ROWS", 999)
    monkeypatch.setattr(DV, "CHUNK", 777)
    b = scopa_sim.card_values(runs["greedy"], max_hands=3000).to_polars()
    assert a.equals(b) or np.allclose(a["value"].to_numpy(), b["value"].to_numpy())


def test_opening_tables_and_too_few_cells(runs: dict[str, Any]) -> None:
    t = scopa_sim.opening_hands(runs["greedy"])
    first = t.role("first")
    ok = [c for c in first if not c.too_few]
    assert ok and all(a.margin.estimate >= b.margin.estimate for a, b in itertools.pairwise(ok))
    assert sum(c.hands for c in first) == 20_000
    few = [c for c in first if c.too_few]
    assert few and all(math.isnan(c.margin.estimate) for c in few)  # never a number
    df = t.to_polars()
    assert df.filter(pl.col("hands") < DV.MIN_CELL)["margin"].null_count() == len(
        df.filter(pl.col("hands") < DV.MIN_CELL)
    )
    tiny = scopa_sim.opening_tables(runs["tiny"])
    assert all(c.too_few for c in tiny.cells)  # 40 hands: every cell too few
    assert DL.hand_class(sum(1 << parse_card(c) for c in ("7D", "7H", "KS"))) == "7-7-K:1d+7D"
    assert DL.table_class(sum(1 << parse_card(c) for c in ("AS", "5C", "7H", "KD"))) == "A-5-7-K"


def test_scopa_36_has_no_twos(runs: dict[str, Any]) -> None:
    cv = scopa_sim.card_values(runs["s36"])
    assert len(cv.values) == 36 and not any(v.card.startswith("2") for v in cv.values)
    assert np.isnan(cv.grid()[:, 1]).all()
    with pytest.raises(AnalysisError, match="not in this game's deck"):
        cv.value("2D")


def test_analyze_by_deal_features(runs: dict[str, Any]) -> None:
    a = analyze([open_run(runs["greedy"].directory)], ["has:7D@dealer"])
    by = {g.key[0][1]: g for g in a.groups}
    assert set(by) == {0, 1} and by[0].hands + by[1].hands == 20_000
    assert by[1].margin.low > by[0].margin.high  # the dealer holding it gains
    res = CliRunner().invoke(cli, ["analyze", str(runs["greedy"].directory), "--by", "sevens@first",
                                   "--by", "table_sum", "--metric", "margin"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "sevens@first=3, table_sum=" in res.output and "too few hands" in res.output
    res = CliRunner().invoke(cli, ["analyze", str(runs["s3"].directory), "--by", "settebello",
                                   "--json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    keys = {g["key"][0][1] for g in json.loads(res.output)["groups"]}
    import re

    assert "table" in keys and any(k.startswith("seat") for k in keys)
    assert all(re.fullmatch(r"table|(dealer|first|seat\d):[1-4]", k) for k in keys)


@pytest.mark.parametrize(
    "args,message",
    [
        (["--by", "has:7X"], "unknown suit"),
        (["--by", "luck"], "unknown grouping column"),
        (["--by", "sevens@seat3"], "the run has 2 players"),
        (["--by", "has:7D@captain"], "unknown role"),
        (["--by", "table_sum@dealer"], "takes no card or role"),
    ],
)
def test_bad_features_are_one_line_errors(
    runs: dict[str, Any], args: list[str], message: str
) -> None:
    res = CliRunner().invoke(cli, ["analyze", str(runs["tiny"].directory), *args])
    assert res.exit_code == 2 and message in res.output
    assert "Traceback" not in res.output and len(res.output.strip().splitlines()) == 1


def test_bad_input_of_the_api(runs: dict[str, Any]) -> None:
    with pytest.raises(AnalysisError, match="2D is not in this game's 36-card deck"):
        DL.parse_feature("has:2D", runs["s36"].config.rules)
    with pytest.raises(AnalysisError, match="2-player games"):
        scopa_sim.opening_hands(runs["s3"])
    with pytest.raises(AnalysisError, match="a run of matches is needed"):
        scopa_sim.match_wins(runs["tiny"])
    with pytest.raises(ScopaError, match="unknown deal"):
        scopa_sim.card_values(runs["tiny"], deal="second")
    with pytest.raises(ScopaError, match="max_hands"):
        scopa_sim.card_values(runs["tiny"], max_hands=0)
    with pytest.raises(AnalysisError, match="too few hands"):
        scopa_sim.luck_share(runs["tiny"])


def test_match_wins_of_a_stronger_policy(tmp_path: Path) -> None:
    run = scopa_sim.simulate(matches=300, seed=1, policy=["expert", "greedy"], workers=1,
                             out=tmp_path / "m")  # fmt: skip
    p = scopa_sim.match_wins(run)
    q = scopa_sim.match_wins(run, seat=1)
    assert p.n == q.n == 300 and p.successes + q.successes == 300
    assert p.low > 0.5  # expert beats greedy


def test_deal_masks_kernel_matches_the_step_kernels() -> None:
    """The jitted deal against shuffle_deal + start_hand (the step kernels' deal)."""
    rules = Rules.make("scopa-15")
    r = rules.to_array()
    n = 200
    out = np.zeros((n, 1 + DL.deal_rounds(rules) * 2), np.int64)
    from scopa_sim.sim.duplicate import swap_permutation

    K.deal_masks(r, np.uint64(3), np.arange(n), np.full(n, 2), np.arange(n) % 2,
                 swap_permutation(rules), False, out)  # fmt: skip
    st, deck = np.zeros(K.N_STATE, np.int64), np.empty(40, np.int64)
    for i in range(n):
        K.shuffle_deal(r, K.new_rng(K.derive_seed(3, i, 2, K.STREAM_DEAL)), deck)
        K.start_hand(st, r, deck, i % 2)
        assert out[i, 0] == st[K.S_TABLE]
        assert (out[i, 1], out[i, 2]) == (st[K.S_HANDS], st[K.S_HANDS + 1])
