"""The embedded study: its plan at each scale, and a tiny run end to end (reports, figures,
results.json, reuse of finished runs)."""

from __future__ import annotations

import json

import matplotlib.image as mpimg
import numpy as np
import pytest
from helpers.figures import unlinked_figures

from scopa_sim.analysis.study import plan as S
from scopa_sim.analysis.study import runner as RUN
from scopa_sim.analysis.study.parts_a_to_c import RESULT_KEYS, bootstrap_seed
from scopa_sim.game.rules import KERNEL_PRESETS, Rules

#: Search cost assumed by the full scale's budget: ms per move on each of 2 cores.
MS_PER_MOVE = 0.7


def _search_minutes(p: S.Plan) -> float:
    moves = 0
    for r in p.runs:
        if r.tag == S.SEARCH and r.part != "E":  # part E's search is PIMC: its own budget
            rules = Rules.make(r.preset, r.rules)
            moves += r.count * (rules.deck - rules.table_cards)
    return moves * MS_PER_MOVE / 1000 / 2 / 60


@pytest.mark.parametrize("scale", ["full", "small"])
def test_plan_covers_every_preset_policy_and_option(scale: str) -> None:
    sc = S.SCALES[scale]
    p = S.plan(sc)
    names = [r.name for r in p.runs]
    assert len(set(names)) == len(names)
    for r in p.runs:
        Rules.make(r.preset, r.rules)  # every variant is valid
        r.config(0)
    a = {(r.preset, r.tag, r.deal) for r in p.runs if r.part == "A"}
    assert a == {
        (pr, t, d) for t in S.POLICY_TAGS for pr in S.presets_of(t) for d in ("plain", "swapped")
    }
    for r in p.runs:
        if r.part == "A" and r.tag in S.KERNEL_POLICIES:
            assert r.count == sc.fast_hands and r.mode == "hands"
    # every option of part B under every kernel policy per hand, and under expert per match
    toggled = {o.split("=")[0] for opts in S.OPTION_EFFECTS for o in opts}
    defaults = Rules.make().as_dict()
    assert toggled == set(defaults) - {"players", "teams", "hand_size", "table_cards",
                                       "napola_scoring", "napola_all_denari_wins"}  # fmt: skip
    by = {(e.option, e.tag, e.level): e for e in p.effects if e.base == "scopa"}
    for opts in S.OPTION_EFFECTS:
        assert (opts, "expert", "match") in by
        for tag in S.KERNEL_POLICIES:
            assert ((opts, tag, "hand") in by) == (opts not in S.MATCH_ONLY_OPTIONS)
    for opts in S.KEY_OPTIONS:
        e = by[(opts, S.SEARCH, "hand")]
        assert p.run(e.variant).count >= sc.search_option_hands
        assert p.run(e.baseline).count >= sc.search_option_hands
        v, b = p.run(e.variant), p.run(e.baseline)
        assert Rules.make(v.preset, v.rules) == Rules.make("scopa", opts)
        assert v.tag == b.tag == S.SEARCH and b.rules == () and b.preset == "scopa"
    for e in p.effects:
        v, b = p.run(e.variant), p.run(e.baseline)
        assert v.mode == b.mode == ("hands" if e.level == "hand" else "matches")
        assert v.deal == b.deal == "plain"
    # the match runs that check the dynamic programme: scopa to 11, 16 and 21, escoba to 15
    checks = [("scopa", t) for t in S.TARGETS] + [("escoba", 15)]
    for tag in S.KERNEL_POLICIES:
        for preset, t in checks:
            assert any(r.part in "BC" and r.tag == tag and r.mode == "matches"
                       and Rules.make(r.preset, r.rules) == Rules.make(preset, [f"target={t}"])
                       for r in p.runs)  # fmt: skip


@pytest.mark.parametrize("scale", ["full", "small"])
def test_plan_plays_learned_per_hand_where_its_weights_ship(scale: str) -> None:
    """`learned` in part A under the presets with weights, in part B per hand under every
    option whose rules derive from one of them (its base preset's weights), never in the
    match-level parts C and D."""
    sc = S.SCALES[scale]
    p = S.plan(sc)
    assert S.LEARNED in S.POLICY_TAGS and S.LEARNED not in S.MATCH_TAGS
    assert S.presets_of(S.LEARNED) == S.LEARNED_PRESETS == S.KERNEL_PRESETS
    learned = [r for r in p.runs if r.tag == S.LEARNED]
    assert all(r.mode == "hands" and r.part in "AB" for r in learned)
    assert {r.preset for r in learned if r.part == "A"} == set(S.LEARNED_PRESETS)
    by = {e.key for e in p.effects if e.tag == S.LEARNED}
    assert all(e.level == "hand" for e in p.effects if e.tag == S.LEARNED)
    options = [("scopa", o) for o in S.OPTION_EFFECTS if o not in S.MATCH_ONLY_OPTIONS]
    for base, opts in [*options, *S.FIFTEEN_EFFECTS]:
        assert ((base, opts) in by) == S.learned_plays(base, opts)
    assert ("scopa", ("napola=true",)) in by and ("scopa", ("deck=36",)) in by
    assert ("scopa", ("capture_compulsory=false",)) in by
    for e in p.effects:
        if e.tag == S.LEARNED:
            v, b = p.run(e.variant), p.run(e.baseline)
            # a variant that is a preset (deck=36: scopa-36) reuses that preset's part A run
            assert v.count == sc.expert_option_hands or (v.part == "A" and v.count >= b.count)
            assert b.name == f"{e.base}-learned"


@pytest.mark.parametrize("scale", ["full", "small"])
def test_plan_measures_the_sum_to_fifteen_options(scale: str) -> None:
    """docs/rules.md §9 in part B: every option of the family toggled from the preset it
    belongs to, per hand under every kernel policy and per match under expert, paired
    with its baseline; the variants that are presets reuse part A's runs."""
    sc = S.SCALES[scale]
    p = S.plan(sc)
    toggled = {o.split("=")[0] for _, opts in S.FIFTEEN_EFFECTS for o in opts}
    assert {"capture_mode", "capture_compulsory", "opening_fifteen"} <= toggled
    assert Rules.make("scopa", S.FIFTEEN_EFFECTS[0][1]) == Rules.make("scopa-15")
    assert Rules.make(*S.FIFTEEN_EFFECTS[4]) == Rules.make("escoba")
    by = {(e.key, e.tag, e.level): e for e in p.effects}
    for base, opts in S.FIFTEEN_EFFECTS:
        same = S.same_preset(base, opts)
        for tag, level in [(t, "hand") for t in S.KERNEL_POLICIES] + [("expert", "match")]:
            e = by[((base, opts), tag, level)]
            v, b = p.run(e.variant), p.run(e.baseline)
            assert Rules.make(v.preset, v.rules) == Rules.make(base, opts)
            assert Rules.make(b.preset, b.rules) == Rules.make(base)
            assert v.tag == b.tag == tag and v.deal == b.deal == "plain"
            assert v.config(0).seed == b.config(0).seed  # paired on the decks
            if level == "hand" and same is not None:
                assert v.part == "A" and v.name == f"{same}-{tag}"
            if level == "match":
                assert v.mode == b.mode == "matches" and v.count == b.count == sc.matches
                h = p.run(e.hands)
                assert (h.mode, h.tag) == ("hands", "expert")
                assert Rules.make(h.preset, h.rules) == Rules.make(base, opts)
    for key in S.KEY_FIFTEEN_EFFECTS:
        e = by[(key, S.SEARCH, "hand")]
        v, b = p.run(e.variant), p.run(e.baseline)
        assert v.part == b.part == "A" and v.tag == b.tag == S.SEARCH
        assert Rules.make(v.preset, v.rules) == Rules.make(*key)
        assert min(v.count, b.count) >= sc.search_option_hands
    # part C: the escoba hands give its own target too
    assert S.targets_of("escoba") == (11, 15, 16, 21) and S.targets_of("scopa") == S.TARGETS
    for preset in S.EQUITY_TABLES:
        assert p.run(f"{preset}-expert").mode == "hands"


@pytest.mark.parametrize("scale", ["full", "small"])
def test_plan_measures_the_escoba_readings(scale: str) -> None:
    """Issue 25: part B measures each Escoba reading from `escoba` under random, greedy
    and expert (per hand; per match under expert); part A plays `escoba` under the other
    opening reading on plain and swapped deals under each kernel policy, and part B's
    effect of that reading reuses those runs."""
    sc = S.SCALES[scale]
    p = S.plan(sc)
    by = {(e.key, e.tag, e.level): e for e in p.effects}
    readings = [("opening_fifteen_to=first_player",), ("primiera=escoba_sevens",),
                ("four_sevens_point=true",)]  # fmt: skip
    for opts in readings:
        for tag, level in [(t, "hand") for t in S.KERNEL_POLICIES] + [("expert", "match")]:
            e = by[(("escoba", opts), tag, level)]
            v, b = p.run(e.variant), p.run(e.baseline)
            assert Rules.make(v.preset, v.rules) == Rules.make("escoba", opts)
            assert Rules.make(b.preset, b.rules) == Rules.make("escoba")
    assert S.READINGS_A == (("escoba", ("opening_fifteen_to=first_player",)),)
    assert not any(r.name.startswith("escoba+opening") for r in p.runs if r.tag == S.SEARCH)
    for tag in S.KERNEL_POLICIES:
        for deal in ("plain", "swapped"):
            name = "escoba+opening_fifteen_to-first_player-" + tag
            r = p.run(name if deal == "plain" else f"{name}-swapped")
            assert (r.part, r.deal, r.count) == ("A", deal, sc.hands("escoba", tag))
            assert Rules.make(r.preset, r.rules).opening_fifteen_to == "first_player"
        e = by[(("escoba", readings[0]), tag, "hand")]
        assert e.variant == f"escoba+opening_fifteen_to-first_player-{tag}"


#: Run ids of the committed full study (read from the manifests of its runs, made
#: before the sum-to-fifteen options existed): the plan must keep them, so that those
#: runs are reused as they are.
COMMITTED_RUN_IDS = {
    "scopa-random": "f207d5a9c244",
    "scopa-search-swapped": "d791dbb5ccb4",
    "scopa+napola-true-expert-matches": "ffbfe0b53f6a",
    "scopa+target-16-greedy-matches": "7b95b06e31bf",
    "asso-piglia-tutto-search": "29ada5ffc6f2",
    "scopone-scientifico-expert-swapped": "25a26f931b9c",
}


def test_runs_of_the_committed_study_keep_their_ids() -> None:
    p = S.plan(S.SCALES["full"])
    assert {n: p.run(n).config(0).run_id for n in COMMITTED_RUN_IDS} == COMMITTED_RUN_IDS


def test_full_scale_meets_the_sample_sizes_within_the_budget() -> None:
    sc = S.SCALES["full"]
    p = S.plan(sc)
    assert sc.fast_hands >= 1_000_000 and sc.option_hands >= 1_000_000
    assert sc.expert_option_hands >= 500_000
    for preset in KERNEL_PRESETS:
        n = sc.hands(preset, S.SEARCH)
        if Rules.make(preset).players == 2:
            assert 2 * n >= 40_000  # plain and duplicate hands
        else:  # as many as fit
            assert 2 * n >= 2_000
    assert sc.search_option_hands >= 20_000
    # scopa's margin: sd about 3 points per hand under search, no variance reduction
    assert 1.96 * 3.0 / (2 * sc.search_hands_scopa) ** 0.5 <= 0.035
    assert 55 <= _search_minutes(p) <= 80  # plus about 20 minutes of kernel runs
    assert _search_minutes(S.plan(S.SCALES["small"])) <= 1.5


TINY = S.Scale(
    fast_hands=300,
    option_hands=300,
    expert_option_hands=200,
    matches=60,
    search_hands_scopa=3,
    search_hands_2p=2,
    search_hands_multi=2,
    search_option_hands=2,
    bootstrap=20,
    deal_hands=3000,
    strength_matches=60,
    search_strength_matches=2,
    cirulla_hands=300,
    cirulla_option_hands=200,
    cirulla_matches=40,
    cirulla_search_hands=3,
    cirulla_search_hands_multi=2,
)
#: Part E's search in the tiny study: PIMC, small.
TINY_CIRULLA_SEARCH = "pimc:worlds=2,depth=2"


@pytest.mark.slow
def test_tiny_study_writes_reports_and_results(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(S.SCALES, "tiny", TINY)
    monkeypatch.setattr(S, "SEARCH_POLICY", "ismcts:iterations=8")
    monkeypatch.setattr(S, "CIRULLA_SEARCH_POLICY", TINY_CIRULLA_SEARCH)
    out = tmp_path / "rep"
    files = RUN.run_study(out, tmp_path / "runs", "tiny", 1, 1, say=lambda _: None)
    assert [f.name for f in files] == ["report.md"] * 5 + ["README.md", "results.json"]
    index = (out / "README.md").read_text()
    assert "ismcts:iterations=8" in index and "`expert`" in index
    b = (out / "part-b" / "report.md").read_text()
    assert b.startswith("# Part B") and "`deck=36`" in b and "Holm" in b
    assert "CI includes 0" in b  # 300 hands cannot settle every option
    c = (out / "part-c" / "report.md").read_text()
    assert "Match equity" in c and "simulated" in c
    assert "## Match equity: `escoba` to 15 under `expert`" in c and "| to 15 |" in c
    assert (out / "part-c" / "equity-escoba.png").is_file()
    assert "`scopa-15` = `capture_mode=fifteen`" not in b  # scopa is not named as a base
    assert "`capture_mode=fifteen` (= `scopa-15`)" in b
    assert "`opening_fifteen=true` from `scopa-15`" in b
    assert "`escoba` = `capture_compulsory=false` `opening_fifteen=true`" in b
    assert "## The sum-to-fifteen family" in index
    assert "## The answer against the strength of play" in index
    assert "| answer | `random` | `greedy` | `expert` | `learned` |" in index
    for png in out.glob("part-*/*.png"):
        assert mpimg.imread(png).ndim == 3
    assert unlinked_figures(out) == []  # every figure written is linked (issue 40)
    rows = json.loads((out / "results.json").read_text())
    assert all(set(RESULT_KEYS) <= set(r) for r in rows)
    assert all(isinstance(r["rules"], dict) and isinstance(r["n"], int) for r in rows)
    metrics = {r["metric"] for r in rows}
    assert {"dealer_margin", "effect:dealer_margin", "first_mover_match_win",
            "match_equity"} <= metrics  # fmt: skip
    for r in rows:
        if r["estimate"] is not None and r["ci_low"] is not None:
            assert r["ci_low"] <= r["estimate"] <= r["ci_high"]
    napola = [r for r in rows if r["metric"] == "effect:dealer_margin"
              and r["rules"] == {"napola": True}]  # fmt: skip
    assert {r["policy"] for r in napola} == {
        "random", "greedy", "expert", "learned", "ismcts:iterations=8"
    }  # fmt: skip
    # learned's tests are Holm-adjusted in families of their own
    for r in rows:
        if "holm_family" in r:
            assert ("under learned only" in r["holm_family"]) == ("learned" in r["policy"])
    eq = [r for r in rows if r["metric"] == "match_equity" and r["part"] == "C"]
    assert len(eq) == 11 * 11 * 2 * 2 + 15 * 15 * 2
    assert {r["preset"] for r in eq} == {"scopa", "scopa-15", "escoba"}
    # the §9 effects: from their base preset, under every policy where measured
    optional = [
        r
        for r in rows
        if r["metric"] == "effect:dealer_margin"
        and r["preset"] == "scopa-15"
        and r["rules"] == {"capture_compulsory": False}
    ]
    assert {r["policy"] for r in optional} == {"random", "greedy", "expert", "learned"}
    fifteen = [
        r
        for r in rows
        if r["metric"] == "effect:dealer_margin"
        and r["preset"] == "scopa"
        and r["rules"] == {"capture_mode": "fifteen"}
    ]
    assert {r["policy"] for r in fifteen} == {
        "random", "greedy", "expert", "learned", "ismcts:iterations=8"
    }  # fmt: skip
    assert all(r["method"] == "paired t on (match, hand)" for r in fifteen + optional)
    escoba = [
        r
        for r in rows
        if r["part"] == "B"
        and r["preset"] == "scopa-15"
        and r["metric"] == "effect:first_mover_match_win"
        and r["rules"].get("target") == 15
    ]
    assert len(escoba) == 1 and "McNemar" in escoba[0]["method"]  # paired matches
    own = [
        r
        for r in rows
        if r["part"] == "C" and r["preset"] == "escoba" and r["metric"] == "first_mover_match_win"
    ]
    assert {r["rules"].get("target", 15) for r in own} == {11, 15, 16, 21}
    # every seat's points per hand and match wins (issue 25)
    from scopa_sim.game.rules import KERNEL_PRESETS, Rules

    seat = [r for r in rows if r["metric"] == "seat_points" and r["part"] == "A"]
    assert len(seat) == 4 * sum(Rules.make(p).players for p in KERNEL_PRESETS) + sum(
        Rules.make(p).players for p in S.LEARNED_PRESETS
    )
    s4 = {r["seat"]: r for r in seat if r["preset"] == "scopa-4" and r["policy"] == "expert"}
    assert sorted(s4) == [0, 1, 2, 3] and s4[0]["estimate"] == s4[2]["estimate"]  # partners
    won = [r for r in rows if r["metric"] == "seat_match_win" and r["preset"] == "scopa-3"
           and r["policy"] == "expert" and not r["rules"]]  # fmt: skip
    assert sorted(r["seat"] for r in won) == [0, 1, 2]
    assert abs(sum(r["estimate"] for r in won) - 1) < 1e-9
    first = [r for r in rows if r["metric"] == "first_mover_match_win" and r["part"] == "C"
             and r["preset"] == "scopa-3" and r["policy"] == "expert"
             and not r["rules"]]  # fmt: skip
    assert first[0]["estimate"] == next(r["estimate"] for r in won if r["seat"] == 0)
    a = (out / "part-a" / "report.md").read_text()
    assert "## Every seat" in a and "seats-expert.png" in a
    assert "* best seat at 3 players (`scopa-3`):" in index
    assert "* best seat at 4 players in teams (`scopa-4`):" in index
    assert "'s side (seats " in index  # partners share a side: the side is named
    used = [r for r in rows if r["metric"] == "dealer_margin" and r["part"] == "A"]
    assert all(r["pilot_pairs"] == 0 and r["method"].startswith("plain hands") for r in used)
    # each part opens with its conclusion in a sentence (issue 26), true to its intervals
    opening = {part: (out / f"part-{part}" / "report.md").read_text().splitlines()[4]
               for part in "abc"}  # fmt: skip
    assert all(line.startswith("**") and line.endswith(".**") for line in opening.values())
    m = next(r for r in used if r["preset"] == "scopa" and r["policy"] == "expert")
    assert "in `scopa` under `expert`" in opening["a"]
    assert ("not resolved" in opening["a"]) == (m["ci_low"] <= 0 <= m["ci_high"])
    effects = [r for r in rows if r["metric"] == "effect:dealer_margin" and r["policy"] == "expert"
               and r["part"] == "B"]  # fmt: skip
    sure = [
        r
        for r in effects
        if (r["ci_low"] > 0 or r["ci_high"] < 0) and r["p_holm"] is not None and r["p_holm"] < 0.05
    ]  # non-zero after Holm
    assert opening["b"].startswith(f"**{len(sure)} of " if sure else "**No rule variant")
    assert "a match to 11" in opening["c"] and "bootstrap" in opening["c"]
    _check_part_d(out, rows, index)
    _check_part_e(out, rows, index)
    # a second call reuses the finished runs (it would print each run it simulates)
    said: list[str] = []
    again = RUN.run_study(out, tmp_path / "runs", "tiny", 1, 1, say=said.append)
    assert again == files and not any(m.startswith("[") for m in said)


def test_study_command_interrupted_says_how_to_resume(tmp_path, monkeypatch) -> None:
    from click.testing import CliRunner
    from scopa_sim_cli.main import cli

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(RUN, "run_study", interrupted)
    res = CliRunner().invoke(cli, ["study", "--runs-dir", str(tmp_path), "--out",
                                   str(tmp_path / "rep")])  # fmt: skip
    assert res.exit_code == 130
    assert "run the same command again to resume" in res.output


def test_difference_of_nested_paired_effects() -> None:

    import numpy as np

    from scopa_sim.analysis.study.parts_a_to_c import _nested_var

    rng = np.random.default_rng(1)
    common = rng.normal(0, 1, 4000)
    x1 = common + rng.normal(0, 1, 4000)
    x2 = common + rng.normal(0, 1, 4000)
    # equal sizes: exactly the variance of the mean of the per-hand differences
    assert _nested_var(x1, x2) == pytest.approx((x1 - x2).var(ddof=1) / 4000)
    # nested sizes: what many replicates of the two means say
    reps = []
    for _ in range(400):
        c = rng.normal(0, 1, 2000)
        a, b = c + rng.normal(0, 1, 2000), c[:500] + rng.normal(0, 1, 500)
        reps.append(a.mean() - b.mean())
    c = rng.normal(0, 1, 2000)
    a, b = c + rng.normal(0, 1, 2000), c[:500] + rng.normal(0, 1, 500)
    assert _nested_var(a, b) == pytest.approx(float(np.var(reps)), rel=0.25)


def test_a_bootstrap_seed_depends_on_what_is_estimated_only() -> None:
    """Each bootstrap of the report is seeded from the study's seed and the estimate's
    identity: adding presets to the study (escoba's targets, issue 15) used to move the
    intervals of the estimates after them, whose seed was their place in a loop. The
    value is the same in every process (no dependence on Python's hash seed)."""
    seed = bootstrap_seed(0, "first mover", "scopa", "random", 11)
    assert seed == 16430380547483453720
    assert seed != bootstrap_seed(1, "first mover", "scopa", "random", 11)
    assert seed != bootstrap_seed(0, "first mover", "scopa", "random", 16)
    assert seed != bootstrap_seed(0, "first mover", "scopa", "greedy", 11)


def test_a_cell_s_estimator_is_chosen_on_its_pilot_and_computed_on_the_rest() -> None:
    # Issue 25: the estimator of a part A cell is chosen on the first PILOT_SHARE of its
    # pairs and the estimate comes from the other hands, so that a CI never comes from the
    # estimator that looked best on the same data.
    from scopa_sim.analysis import variance as V
    from scopa_sim.analysis.study import parts_a_to_c as SR
    from scopa_sim.game.rules import Rules

    rules, rng = Rules.make("scopa"), np.random.default_rng(5)
    n = 20_000
    k = SR.pilot_pairs(n)
    assert k == int(n * SR.PILOT_SHARE) and SR.pilot_pairs(k) == 0  # small cells: no pilot
    m = rng.normal(0.3, 2.0, n)
    sw = rng.normal(0.3, 2.0, n)
    sw[:k] = -m[:k] + rng.normal(0.6, 0.3, k)  # the pilot says: duplicates, by far
    cell = SR.choose_margin("scopa", "expert", rules, 0, m, sw)
    assert cell.method == "duplicates" and cell.pilot == k and cell.factor > 5
    rest = V.duplicates(m[k:], sw[k:]).estimate  # no gain on these hands: still chosen
    assert cell.used == rest and cell.used.n == n - k
    assert cell.dup.estimate.n == n  # the descriptive column uses every pair
    plain = SR.choose_margin("scopa", "expert", rules, 0, m[:5000], sw[:5000])
    assert plain.method == "plain hands" and plain.pilot == 0 and plain.used.n == 5000


def test_each_side_s_match_wins_of_three_sides_sum_to_one() -> None:
    # seat_match_win of scopa-3: each side's win probability by its seat in the first
    # hand, from one programme; the first mover's is first_mover_win3's, draw for draw.
    from scopa_sim.stats import equity as E

    rng = np.random.default_rng(1)
    outcomes = E.PositionOutcomes.of(rng.integers(0, 4, (3000, 3)), rng.integers(-1, 3, 3000))
    sides = E.side_wins3(outcomes, 11, False, 20, 7)
    assert sides[0] == E.first_mover_win3(outcomes, 11, False, 20, 7)
    assert sum(s.estimate for s in sides) == pytest.approx(1, abs=1e-12)
    assert all(s.low <= s.estimate <= s.high for s in sides)


def _check_part_d(out, rows, index) -> None:
    """Part D (issue 27): its metrics in results.json, its section in the README, its
    report with the card heatmap and the opening tables."""
    d = [r for r in rows if r["part"] == "D"]
    assert {r["metric"] for r in d} == {"card_value", "opening_hand_margin",
                                        "opening_table_margin", "luck_share",
                                        "stronger_wins_match"}  # fmt: skip
    cards = [r for r in d if r["metric"] == "card_value" and r["preset"] == "scopa"
             and r["policy"] == "expert"]  # fmt: skip
    assert {r["deal"] for r in cards} == {"first", "any"} and len(cards) == 80
    assert all(r["n"] == 3000 for r in cards)  # part D's own run of scopa under expert
    s36 = [r for r in d if r["metric"] == "card_value" and r["preset"] == "scopa-36"]
    assert s36 and not any(r["card"].startswith("2") for r in s36)  # removed rank: absent
    hands = [r for r in d if r["metric"] == "opening_hand_margin"]
    assert {r["role"] for r in hands} == {"first", "dealer"} and all(
        "hand_class" in r for r in hands
    )
    assert {r["preset"] for r in hands} == {p for p in KERNEL_PRESETS if Rules.make(p).players == 2}
    few = [r for r in hands if r["too_few"]]
    assert few and all(r["estimate"] is None for r in few)  # too few: never a number
    luck = {(r["preset"], r["policy"]) for r in d if r["metric"] == "luck_share"}
    assert ("scopa-3", "greedy") in luck and ("scopa", "ismcts:iterations=8") in luck
    strong = {r["policy"] for r in d if r["metric"] == "stronger_wins_match"}
    assert strong == {"expert vs greedy", "ismcts:iterations=8 vs expert"}
    assert index.count("<!-- part D: begin -->") == 1 and "## Part D" in index
    report = (out / "part-d" / "report.md").read_text()
    assert report.startswith("# Part D") and report.splitlines()[4].startswith("**")
    assert (out / "part-d" / "card-values-scopa-expert.png").is_file()
    assert (out / "part-d" / "opening-hands-scopa.csv").is_file()


def _check_part_e(out, rows, index) -> None:
    """Part E (issue 42): Cirulla's rows in results.json, in Holm families of their own,
    its section in the README and its report."""
    e = [r for r in rows if r["part"] == "E"]
    metrics = {r["metric"] for r in e}
    assert {"dealer_margin", "seat_points", "declaration_share", "grande_share",
            "piccola_share", "cappotto_share", "declared_points", "effect:dealer_margin",
            "effect:first_mover_match_win", "effect:match_length", "first_mover_match_win",
            "match_equity", "card_value", "declaration_value",
            "declaration_value:net"} <= metrics  # fmt: skip
    assert {r["preset"] for r in e} == set(S.CIRULLA_PRESETS)
    margins = {(r["preset"], r["policy"]) for r in e if r["metric"] == "dealer_margin"}
    assert margins == {(p, t if t != S.SEARCH else TINY_CIRULLA_SEARCH)
                       for p in S.CIRULLA_PRESETS for t in S.CIRULLA_TAGS}  # fmt: skip
    for r in e:
        if "holm_family" in r:
            assert r["holm_family"].startswith("Cirulla: ")
    # parts A-C's families do not count part E's tests
    assert not any("Cirulla" in r.get("holm_family", "") for r in rows if r["part"] != "E")
    decl = [r for r in e if r["metric"] == "effect:dealer_margin"
            and r["rules"] == {"declare": "off"}]  # fmt: skip
    assert {r["policy"] for r in decl} == {"random", "greedy", "expert", TINY_CIRULLA_SEARCH}
    value = {r["policy"] for r in e if r["metric"] == "declaration_value"}
    assert value == {"expert", TINY_CIRULLA_SEARCH}
    assert len([r for r in e if r["metric"] == "match_equity"]) == 51 * 51 * 2
    cards = {r["card"] for r in e if r["metric"] == "card_value"}
    assert {"7H", "7D", "AD", "JD", "QD", "KD"} <= cards and len(cards) == 40
    assert index.count("<!-- part E: begin -->") == 1 and "## Part E" in index
    report = (out / "part-e" / "report.md").read_text()
    assert report.startswith("# Part E") and report.splitlines()[4].startswith("**")
    assert "## What declaring is worth against keeping quiet" in report
    assert "`7H` | the matta" in report


@pytest.mark.parametrize("scale", ["full", "small"])
def test_plan_studies_cirulla_in_part_e(scale: str) -> None:
    """Part E (issue 42): the Cirulla presets under each kernel policy and PIMC, every
    option of RULES.md §10 toggled from `cirulla` and paired on its decks, matches to 51,
    after every other part's runs; search a few thousand hands at most."""
    sc = S.SCALES[scale]
    p = S.plan(sc)
    e = [r for r in p.runs if r.part == "E"]
    assert [r.part for r in p.runs[-len(e) :]] == ["E"] * len(e)  # the other parts' order kept
    assert {(r.preset, r.tag) for r in e if r.mode == "hands" and not r.rules} == {
        (pr, t) for pr in S.CIRULLA_PRESETS for t in S.CIRULLA_TAGS
    }
    assert all(r.deal == "plain" for r in e)
    for r in e:
        if r.tag == S.SEARCH:
            assert r.policy == S.CIRULLA_SEARCH_POLICY and r.count <= 4_000
    toggled = {o.split("=")[0] for opts in S.CIRULLA_OPTIONS for o in opts}
    from scopa_sim.game.rules import CIRULLA_DEFAULTS

    assert set(CIRULLA_DEFAULTS) | {"ace_sweep"} == toggled
    by = {(x.option, x.tag, x.level): x for x in p.cirulla}
    assert not set(p.cirulla) & set(p.effects)  # part B's effects are not part E's
    for opts in S.CIRULLA_OPTIONS:
        assert (opts, "expert", "match") in by
        for tag in S.KERNEL_POLICIES:
            assert ((opts, tag, "hand") in by) == (opts not in S.CIRULLA_MATCH_ONLY)
    for opts in S.CIRULLA_KEY_OPTIONS:
        assert (opts, S.SEARCH, "hand") in by
    for x in p.cirulla:
        v, b = p.run(x.variant), p.run(x.baseline)
        assert Rules.make(v.preset, v.rules) == Rules.make("cirulla", x.option)
        assert (b.preset, b.rules, b.tag) == ("cirulla", (), v.tag)
        assert v.count <= b.count and v.config(0).seed == b.config(0).seed  # paired hands
    if scale == "full":
        kernel = sum(r.count for r in e if r.tag != S.SEARCH and r.mode == "hands")
        search = sum(r.count for r in e if r.tag == S.SEARCH)
        assert kernel <= 30_000_000 and search <= 20_000


@pytest.mark.slow
def test_part_d_alone_adds_to_a_finished_study(tmp_path, monkeypatch) -> None:
    """`study --part D` adds part D's rows and README section to an existing study,
    keeping the other parts' rows and text, and replaces them when run again."""
    tiny = S.Scale(**{**TINY.__dict__, "fast_hands": 200})
    monkeypatch.setitem(S.SCALES, "tiny", tiny)
    monkeypatch.setattr(S, "SEARCH_POLICY", "ismcts:iterations=8")
    out = tmp_path / "rep"
    out.mkdir()
    (out / "README.md").write_text("# study\n\nparts A-C\n")
    (out / "results.json").write_text(json.dumps([{"part": "A", "metric": "dealer_margin"}]))
    RUN.run_part_d(out, tmp_path / "runs", "tiny", 1, 1, say=lambda _: None)
    rows = json.loads((out / "results.json").read_text())
    assert rows[0] == {"part": "A", "metric": "dealer_margin"} and len(rows) > 100
    n = len(rows)
    RUN.run_part_d(out, tmp_path / "runs", "tiny", 1, 1, say=lambda _: None)
    assert len(json.loads((out / "results.json").read_text())) == n  # replaced, not added
    text = (out / "README.md").read_text()
    assert text.startswith("# study\n\nparts A-C\n") and text.count("## Part D") == 1
    # part A's search runs are not simulated for part D alone
    assert not (tmp_path / "runs" / "scopa-search").exists()
    assert not any(r["metric"] == "luck_share" and "ismcts" in r["policy"] for r in
                   json.loads((out / "results.json").read_text()))  # fmt: skip
