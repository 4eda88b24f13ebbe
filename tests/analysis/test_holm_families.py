"""Holm where the docs promise it (issue 43, item 2): each family of tests the study reports
carries its Holm-adjusted p, and a claim of "non-zero" in the reports rests on it, not on
an unadjusted 95% interval."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from scopa_sim.analysis.study import parts_a_to_c as R
from scopa_sim.analysis.study.plan import Effect
from scopa_sim.stats import inference as S
from scopa_sim.stats.estimate import Estimate

OPTIONS = [("napola=true",), ("ace_sweep=true",), ("re_bello=true",), ("sum_capture=fewest",),
           ("remainder_to=dealer",), ("capture_rule=hand",), ("deck=36",),
           ("kings_redeal=false",), ("last_play_scopa=true",), ("primiera=sevens",),
           ("primiera_missing_suit=zero",)]  # fmt: skip
TAGS = ("random", "greedy", "expert", "search")


def _test(t_stat: float) -> S.TestResult:
    """A paired t result of 1,000,000 pairs whose statistic is ``t_stat``."""
    sd, n = 3.0, 1_000_000
    return S.paired_t_from_stats("dealer_margin", 0.0, 0.0, t_stat * sd / math.sqrt(n), sd, n)


def _family() -> tuple[list[R.HandEffect], list[dict]]:
    """44 per-hand effects: clear (t = 8) under every policy but ``random``, whose 11 have
    t = 2.7 (p 0.0069 each: each unadjusted CI excludes 0, but Holm makes them 11 x 0.0069
    = 0.076, as for `sum_capture=fewest` under random in the committed study)."""
    hand, rows = [], []
    for i, opt in enumerate(OPTIONS):
        for tag in TAGS:
            e = Effect(opt, tag, "hand", f"v{i}-{tag}", f"b-{tag}")
            t = _test(2.7 if tag == "random" else 8.0)
            hand.append(R.HandEffect(e, t, True))
            rows.append({"metric": "effect:dealer_margin", "ci_low": t.low, "ci_high": t.high,
                         "p_value": t.p_value})  # fmt: skip
    return hand, rows


def test_each_effect_row_carries_its_holm_p_and_family() -> None:
    hand, rows = _family()
    tests = R.adjust_rows([h.test for h in hand], rows, "effect:dealer_margin")
    want = S.holm([h.test.p_value for h in hand])
    assert [r["p_holm"] for r in rows] == pytest.approx(want)
    assert all("every option" in r["holm_family"] and "(44 tests)" in r["holm_family"]
               for r in rows)  # fmt: skip
    odd = next(t for t, h in zip(tests, hand, strict=True) if h.effect.tag == "random"
               and h.effect.option == ("sum_capture=fewest",))  # fmt: skip
    assert odd.low > 0 and odd.p_value < 0.01  # an unadjusted 95% CI clear of 0 ...
    assert odd.p_holm is not None and odd.p_holm > 0.05  # ... which Holm does not back
    assert not R.significant(odd)


def _claimed_non_zero(cell: str) -> bool:
    return "CI includes 0" not in cell and "not significant" not in cell and "[" in cell


def test_a_cell_called_non_zero_has_a_holm_p_below_005(tmp_path: Path) -> None:
    """Part B's table: every cell that does not say *CI includes 0* or *not significant
    after Holm* must have its Holm p below 0.05 (the unadjusted CI is not enough)."""
    hand, rows = _family()
    tests = R.adjust_rows([h.test for h in hand], rows, "effect:dealer_margin")
    hand = [R.HandEffect(h.effect, t, h.paired) for h, t in zip(hand, tests, strict=True)]
    md = R.write_b(hand, [], [], tmp_path, ["# Part B", ""])
    text = md.read_text()
    table = [ln for ln in text.splitlines() if ln.startswith("| `sum_capture=fewest`")]
    assert len(table) == 1
    cells = table[0].split(" | ")
    random_cell = cells[1]
    assert "[+" in random_cell and "not significant after Holm" in random_cell
    for h in hand:
        cell = R._holm_note(h.test)
        if _claimed_non_zero(f"[{cell}"):
            assert h.test.p_holm is not None and h.test.p_holm < 0.05, cell
    # the conclusion counts the effects non-zero after Holm only
    assert R.conclusion_b(hand, "random").startswith("no rule variant's effect")
    assert R.conclusion_b(hand, "expert").startswith("11 of 11 ")
    for p_holm in re.findall(r"p \(Holm\) ([0-9.e-]+)\)? \(\*\*not significant", text):
        assert float(p_holm) >= 0.05


def test_a_seat_lead_rests_on_its_holm_p() -> None:
    lead = Estimate(0.02, 0.001, 0.039, 10_000, "t")
    seats = [R.Seats("scopa", "expert", 2, False, (lead, lead), 1, lead, 0, 0.04)]
    seats += [R.Seats(f"p{i}", "expert", 2, False, (lead, lead), 1, lead, 0, 0.5)
              for i in range(5)]  # fmt: skip
    res = R.Results()
    out = R._seat_leads(seats, res)
    assert out[0].lead_p_holm == pytest.approx(0.24)  # 6 x 0.04
    assert "not significant after Holm" in R.lead_verdict(out[0])
    rows = [r for r in res.rows if r["metric"] == "seat_lead"]
    assert len(rows) == 6 and rows[0]["p_holm"] == pytest.approx(0.24)
    assert all("(6 tests)" in r["holm_family"] for r in rows)
    clear = R.Seats("scopa", "greedy", 2, False, (lead, lead), 1, lead, 0, 1e-9, 1e-8)
    assert R.lead_verdict(clear).startswith("positive")


def test_the_seat_lead_is_measured_on_hands_that_did_not_pick_the_seat() -> None:
    """The seat is picked on the first half of the hands, its lead measured on the other:
    here the first half favours seat 0 and the second seat 1, so seat 0 is named best and
    its lead comes out negative, where picking and measuring on the same hands would show
    a lead for whichever seat won overall."""
    import polars as pl

    from scopa_sim.game.rules import Rules

    n = 1000
    pos0 = np.r_[np.full(n // 2, 2.0), np.zeros(n // 2)] + np.tile([0.0, 1.0], n // 2)
    pos1 = np.r_[np.zeros(n // 2), np.full(n // 2, 3.0)] + np.tile([1.0, 0.0], n // 2)

    class Fake:
        def rules(self, name: str) -> Rules:
            return Rules.make("scopa")

        def hands(self, name: str) -> pl.DataFrame:
            return pl.DataFrame({"pos0": pos0, "pos1": pos1})

    st = R.seat_points("scopa-expert", "scopa", "expert", Fake())  # type: ignore[arg-type]
    assert st.best == 0 and st.nxt == 1  # seat 0 leads the first half
    assert st.lead is not None and st.lead.n == n // 2
    assert st.lead.estimate == pytest.approx(float((pos0 - pos1)[n // 2 :].mean()))
    assert st.lead.estimate < 0 and st.points[1].estimate > st.points[0].estimate


def test_a_dealer_margin_gets_a_sign_only_after_holm() -> None:
    from types import SimpleNamespace

    e = Estimate(0.02, 0.001, 0.039, 10_000, "t", 0.97)
    assert 0.03 < R.t_p_value(e) < 0.05  # clear of 0 unadjusted ...
    shaky = SimpleNamespace(used=e, p_holm=0.2)
    assert "not significant after Holm" in R.margin_verdict(shaky)  # type: ignore[arg-type]
    sure = SimpleNamespace(used=e, p_holm=0.01)
    assert R.margin_verdict(sure) == "positive"  # type: ignore[arg-type]


def test_part_a_opening_sentence_rests_on_the_holm_p() -> None:
    """Part A's first sentence names the side ahead only when the margin is non-zero after
    Holm over every dealer margin of part A, not from its unadjusted interval alone."""
    from types import SimpleNamespace

    e = Estimate(0.02, 0.001, 0.039, 10_000, "t", 0.97)
    m = SimpleNamespace(preset="scopa", tag="expert", used=e, method="plain", p_holm=0.2)
    others = [SimpleNamespace(preset="x", tag="expert", used=e, method="plain", p_holm=0.2)] * 4
    text = R.conclusion_a([m, *others])  # type: ignore[list-item]
    assert "not significant after Holm's adjustment" in text and "over 5 tests" in text
    assert "scores" not in text
    m.p_holm = 0.001
    assert R.conclusion_a([m, *others]).startswith("the dealer's side scores")  # type: ignore[list-item]


def _win(p: float, est: float = 0.51, lo: float = 0.501, hi: float = 0.519) -> R.MatchWin:
    return R.MatchWin("scopa", "expert", 11, Estimate(est, lo, hi, 10_000, "boot", 0.45), None,
                      2, p)  # fmt: skip


def test_part_c_match_wins_are_one_holm_family(tmp_path: Path) -> None:
    """Each first mover's match win carries a bootstrap z test against the fair chance and
    its Holm p over all of part C's; a cell or headline calls the first mover favoured only
    when that p is below 0.05."""
    wins = [_win(0.03)] + [R.MatchWin(f"p{i}", "expert", 11, _win(0.5).dp, None, 2, 0.5)
                           for i in range(5)]  # fmt: skip
    rows: list[dict] = [{} for _ in wins]
    out = R._adjust_wins(wins, rows)
    assert out[0].p_holm == pytest.approx(0.18)  # 6 x 0.03
    assert rows[0]["p_holm"] == pytest.approx(0.18) and "(6 tests)" in rows[0]["holm_family"]
    assert out[0].dp.excludes(0.5) and not out[0].resolved
    assert "not significant after Holm" in R._win_bullet(out[0])
    assert "not significant after Holm's adjustment" in R.conclusion_c(out)
    md = R.write_c(out, [], tmp_path, ["# Part C", ""]).read_text()
    line = next(ln for ln in md.splitlines() if ln.startswith("| scopa |"))
    assert "not significant after Holm" in line
    sure = dataclasses_replace(out[0], p_holm=0.001)
    assert sure.resolved and R._win_bullet(sure).endswith("]")


def dataclasses_replace(w: R.MatchWin, **kw: float) -> R.MatchWin:
    import dataclasses

    return dataclasses.replace(w, **kw)


def test_the_bootstrap_z_test_reads_the_bootstrap_standard_error() -> None:
    """:func:`equity.bootstrap_z_p` refers the distance from the fair chance to the
    replicates' standard deviation (the estimate's ``se``), checked on a known normal."""
    from scopa_sim.stats import equity as E

    outcomes = E.HandOutcomes.of(np.array([3, 1, 2, 0] * 50), np.array([1, 3, 0, 2] * 50),
                                 np.zeros(200, dtype=np.int64))  # fmt: skip
    w = E.first_mover_win(outcomes, 11, False, 200, 7)
    assert math.isfinite(w.se) and w.se > 0 and w.low <= w.estimate <= w.high
    z = (w.estimate - 0.5) / w.se
    assert E.bootstrap_z_p(w, 0.5) == pytest.approx(math.erfc(abs(z) / math.sqrt(2)))
    e = Estimate(0.53, 0.51, 0.55, 100, "boot", 0.01 * math.sqrt(100))  # se 0.01: z = 3
    assert E.bootstrap_z_p(e, 0.5) == pytest.approx(0.0027, abs=1e-4)
    assert math.isnan(E.bootstrap_z_p(Estimate(0.5, 0.4, 0.6, 10, "boot"), 0.5))
