"""Smoke tests of the benchmark scripts: each runs end to end at a tiny size and writes
its JSON. Speed is never asserted (see benchmarks/); only that the scripts work."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from scopa_sim.game.rules import PRESETS
from scopa_sim.stats.inference import MIN_SAMPLES

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _run(script: str, *args: str, out: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), *args, "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
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
    assert values["random self-play, 2p scopa"] > 0
    assert values["speed-up over plain Python (self-play)"] > 1


def test_bench_simulate(tmp_path: Path) -> None:
    doc = _run("bench_simulate.py", "--hands", "20000", "--repeat", "1", out=tmp_path / "s.json")
    assert doc["hands"] == 20000 and len(doc["runs"]["two"]) == 1
    values = _positive(doc["results"])
    assert values["simulate, 2 workers (wall, start-up included)"] > 0


def test_bench_search(tmp_path: Path) -> None:
    doc = _run("bench_search.py", "--quick", out=tmp_path / "q.json")
    assert doc["ismcts"] and doc["matches"]


def test_bench_review(tmp_path: Path) -> None:
    doc = _run("bench_review.py", "--quick", out=tmp_path / "r.json")
    assert doc["endgames"]["max_abs_difference"] == 0.0
    assert doc["endgames"]["solver_play_loss_sum"] == 0.0
    assert {r["policy"] for r in doc["policies"]} >= {"strong", "random", "greedy"}
    assert doc["speed"]["median_s"] > 0


def test_bench_engine_expert_row(tmp_path: Path) -> None:
    doc = _run("bench_engine.py", "--hands", "500", "--skip-startup", out=tmp_path / "e.json")
    assert _positive(doc["results"])["expert self-play, 2p scopa"] > 0


def _ladder(tmp_path: Path, *args: str) -> dict:
    png = tmp_path / "l.png"
    doc = _run("bench_ladder.py", "--quick", "--png", str(png), *args, out=tmp_path / "l.json")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return doc


def test_bench_ladder_quick(tmp_path: Path) -> None:
    doc = _ladder(tmp_path, "--workers", "2")
    rows = {r["policy"]: r for r in doc["ladder"]}
    # every shipped family is on the ladder, greedy is the reference at 0
    assert {"random", "greedy", "expert", "pimc", "pimc:leaf=expert"} <= set(rows)
    families = {r["family"] for r in doc["ladder"]}
    assert {"ismcts", "ismcts horizon=4,c=1", "ismcts rollout=greedy"} <= families
    assert {"ismcts rollout=expert", "ismcts horizon=4,c=1,rollout=expert"} <= families
    assert rows["greedy"]["mean_margin"] == 0 and rows["greedy"]["deals"] == 0
    for r in doc["ladder"]:
        if r["deals"] >= MIN_SAMPLES or r["policy"] == "greedy":
            assert r["ci_low"] <= r["mean_margin"] <= r["ci_high"]
        else:  # --quick plays a handful of deal pairs: too few for an interval
            assert math.isnan(r["ci_low"]) and math.isnan(r["ci_high"])
        assert r["cost_ms_per_move"] > 0 and r["hands_per_s_one_core"] > 0
    cheapest = min(doc["ladder"], key=lambda r: r["cost_ms_per_move"])
    assert cheapest["on_frontier"]
    ratings = dict(doc["round_robin"]["ratings"])
    assert set(ratings) == set(doc["round_robin"]["policies"])
    assert abs(sum(ratings.values())) < 1e-6  # least squares anchored at mean 0
    assert set(doc["equal_time"]) == {"ismcts_h4_rollout", "ismcts_plain_rollout", "pimc_leaf"}
    assert len(doc["expert_vs_greedy_fused"]) == len(PRESETS)  # every preset
    speed = doc["selfplay_speed"]["median_hands_per_s"]
    assert speed["expert"] > 0 and speed["greedy"] > 0 and speed["random"] > 0
    assert {"start", "end"} <= set(doc["load"])
    # the deals' results do not depend on the number of worker processes
    one = _ladder(tmp_path / "one", "--workers", "1")
    assert [(r["policy"], r["mean_margin"], r["ci_low"]) for r in one["ladder"]] == [
        (r["policy"], r["mean_margin"], r["ci_low"]) for r in doc["ladder"]
    ]
    assert one["round_robin"]["ratings"] == doc["round_robin"]["ratings"]


def test_bench_ladder_pairing_and_frontier() -> None:
    sys.path.insert(0, str(BENCH))
    import bench_ladder as B

    # hands: a wins 1 and 3, draws 0 and 0, loses -2 and -1
    pr = B.pairing("a", "b", [1, 0, -2], [3, -1, 0])
    assert (pr.wins, pr.draws, pr.losses, pr.deal_pairs) == (2, 2, 2, 3)
    assert pr.score == 0.5 and pr.elo == 0.0
    assert abs(pr.margin.estimate - (2 - 0.5 - 1) / 3) < 1e-12
    pts = [("slow-weak", 10.0, 0.5), ("cheap", 0.1, 0.2), ("mid", 1.0, 1.0), ("dear", 5.0, 1.2)]
    assert B.frontier(pts) == ["cheap", "mid", "dear"]


def test_bench_ladder_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    for args in (
        ["--deals", "3", "--rr-deals", "5"],
        ["--deals", "1"],
        ["--replot", str(bad), "--png", str(tmp_path / "x.png")],
        ["--replot", str(bad)],
        ["--quick", "--json", str(bad / "x.json")],  # a file as the directory
    ):
        proc = subprocess.run(
            [sys.executable, str(BENCH / "bench_ladder.py"), *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode != 0
        lines = proc.stderr.strip().splitlines()
        assert "Traceback" not in proc.stderr and lines[-1].startswith("Error"), proc.stderr


def test_bench_belief(tmp_path: Path) -> None:
    doc = _run("bench_belief.py", "--quick", "--workers", "1", "--opponents", "greedy;expert",
               out=tmp_path / "b.json")  # fmt: skip
    assert doc["fit"]["used"] and doc["calibration"] and len(doc["strength"]) == 4
    assert {q["opponent"] for q in doc["quality"]} == {"greedy", "expert"}


def test_bench_belief_reply(tmp_path: Path) -> None:
    """Part reply: the opponent model in the tree, calibrated per opponent."""
    doc = _run("bench_belief.py", "--quick", "--workers", "1", "--parts", "reply", "--replies",
               "tree", "--reply-models", "fit", "--bases", "ismcts", "--opponents", "greedy",
               out=tmp_path / "r.json")  # fmt: skip
    (row,) = doc["reply"]
    assert row["opponent"] == "greedy" and list(row["beliefs"]) == ["fit,reply=tree"]
    assert "reply=tree" in row["beliefs"]["fit,reply=tree"]["setting"]
    assert any(k.endswith("|reply=tree|vs=greedy") for k in doc["calibration"])


def test_bench_ladder_only(tmp_path: Path) -> None:
    doc = _run("bench_ladder.py", "--quick", "--workers", "1", "--deals", "2", "--only",
               "pimc:belief=fit", out=tmp_path / "l.json")  # fmt: skip
    assert [r["policy"] for r in doc["ladder"]] == ["pimc:belief=fit"]


def test_bench_match_quick(tmp_path: Path) -> None:
    log = tmp_path / "pairs.jsonl"
    doc = _run("bench_match.py", "--quick", "--log", str(log), out=tmp_path / "m.json")
    s = doc["summary"]
    assert s["pairs"] == 2 and s["matches"] == 4 and len(log.read_text().splitlines()) == 2
    assert s["pairs_a_won_both"] + s["pairs_a_lost_both"] + s["pairs_split"] == 2
    assert 0 <= s["a_win_rate"] <= 1 and s["hands"] >= 4
    assert "objective=match" in doc["a"] and "objective" not in doc["b"]
    leaf = _run("bench_match.py", "--quick", "--a-params", "match_leaf=calibrated",
                out=tmp_path / "m3.json")  # fmt: skip
    assert leaf["a"].endswith(",match_leaf=calibrated")
    # the log is resumed: a second run plays nothing new and reports the same pairs
    again = _run("bench_match.py", "--quick", "--log", str(log), out=tmp_path / "m2.json")
    assert again["summary"]["a_match_wins"] == s["a_match_wins"]
    assert len(log.read_text().splitlines()) == 2


def test_bench_match_from_given_totals(tmp_path: Path) -> None:
    doc = _run("bench_match.py", "--quick", "--from-totals", "10,9", out=tmp_path / "t.json")
    assert doc["start_totals"] == [10, 9] and doc["summary"]["pairs"] == 2
    assert doc["summary"]["hands_per_match"] < 3  # one of them needs a point or two
    for bad, says in (("10,11", "each from 0 to 10"), ("9", "give 2 totals"), ("a,b", "integers")):
        proc = subprocess.run(
            [sys.executable, str(BENCH / "bench_match.py"), "--quick", "--from-totals", bad],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert proc.returncode != 0 and says in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_bench_match_leaf_calibration(tmp_path: Path) -> None:
    doc = _run(
        "bench_match.py", "--leaf-matches", "2", "--equity-hands", "500", out=tmp_path / "l.json"
    )
    assert [s["play"] for s in doc["stages"]] == [4, 12, 20, 28]
    assert all(s["positions"] >= 2 and 0 <= s["brier"] <= 1 for s in doc["stages"])
    assert all(0 <= s["calibrated_brier"] <= 1 for s in doc["stages"])
    assert len(doc["leaf_fit"]["slope"]) == 36


def test_bench_ab(tmp_path: Path) -> None:
    """The paired A/B harness loads a git revision's kernels beside the working tree's."""
    git = subprocess.run(["git", "-C", str(BENCH), "rev-parse", "HEAD"], capture_output=True)
    if git.returncode != 0:  # pragma: no cover - not a git checkout
        pytest.skip("needs a git checkout")
    doc = _run("bench_ab.py", "--base", "HEAD", "--pairs", "2", "--case", "solver",
               out=tmp_path / "ab.json")  # fmt: skip
    res = doc["results"]["solver"]
    assert res["pairs"] == 2 and len(res["ratios"]) == 2 and res["same_results"]
    assert res["ratio_median"] > 0


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


def test_bench_reply_min_quick(tmp_path: Path) -> None:
    doc = _run("bench_reply_min.py", "--quick", out=tmp_path / "m.json")
    rows = {r["opponent"]: r for r in doc["rows"]}
    assert set(rows) == {"greedy", "expert"} and doc["x"] == 0.5
    for r in rows.values():
        assert 0.0 <= r["share_at_least_x"] <= 1.0 and r["decisions"] > 0
    # a greedy player's plays make the greedy type likely; the expert's do not
    assert rows["greedy"]["mean_weak_posterior"] > rows["expert"]["mean_weak_posterior"]


def test_bench_roundrobin_quick(tmp_path: Path) -> None:
    """The round robin end to end at a tiny size: every pairing played and logged, the
    standings complete, the gated entrant at the budget of the setting it takes it from
    (``budget_of``); a rerun reads every pairing back from the log; an entrant whose
    budget's source does not play is a one-line error."""
    log = tmp_path / "rr.jsonl"
    args = ("--quick", "--log", str(log), "--table", str(tmp_path / "rr.md"))
    doc = _run("bench_roundrobin.py", *args, out=tmp_path / "rr.json")
    calib = doc["calibration"]
    gated = calib["ismcts robust, reply=weak, reply_gate=0.9"]
    assert gated["budget_of"] == "ismcts robust"
    assert gated["budget"] == calib["ismcts robust"]["budget"]
    want = f"ismcts:iterations={gated['budget']},horizon=4,c=1,belief=robust,reply=weak"
    assert gated["setting"] == want + ",reply_gate=0.9"
    assert len(doc["pairings"]) == 6 and len(doc["standings"]) == 4
    assert doc["best"] == doc["standings"][0]["policy"]
    again = _run("bench_roundrobin.py", *args, out=tmp_path / "rr2.json")
    assert again["pairings"] == doc["pairings"] and again["calibration"] == calib
    proc = subprocess.run(
        [sys.executable, str(BENCH / "bench_roundrobin.py"), "--quick", "--only", "expert",
         "--only", "ismcts robust, reply=weak, reply_gate=0.9"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("Error: 'ismcts robust, reply=weak")


def test_bench_tune_quick(tmp_path: Path) -> None:
    """best's one-knob variants end to end at a tiny size: the variants that do not change
    the cost of an iteration (``c``, ``exact``) keep best's iterations, a calibrated one
    gets its own; a rerun reads every pairing back from the log; a log of another base is
    a one-line error."""
    log = tmp_path / "t.jsonl"
    doc = _run("bench_tune.py", "--quick", "--log", str(log), out=tmp_path / "t.json")
    rows = {v["label"]: v for v in doc["variants"]}
    assert set(rows) == {"c=0.5", "exact=1", "horizon=2"}
    calib = doc["calibration"]
    assert calib["c=0.5"]["budget"] == calib["exact=1"]["budget"] == calib["best"]["budget"] == 40
    assert calib["c=0.5"]["budget_of"] == calib["exact=1"]["budget_of"] == "best"
    assert rows["exact=1"]["setting"] == "ismcts:iterations=40,horizon=4,c=1,belief=robust,exact=1"
    assert "budget_of" not in calib["horizon=2"]
    assert rows["horizon=2"]["setting"].startswith("ismcts:iterations=")
    assert all(v["deal_pairs"] == 10 for v in rows.values())
    again = _run("bench_tune.py", "--quick", "--log", str(log), out=tmp_path / "t2.json")
    assert again["variants"] == doc["variants"]
    best = '"setting": "ismcts:iterations=40,horizon=4,c=1,belief=robust"'
    assert best in log.read_text()
    log.write_text(log.read_text().replace(best, best.replace("=40,", "=41,")))
    proc = subprocess.run(
        [sys.executable, str(BENCH / "bench_tune.py"), "--quick", "--log", str(log)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "another base setting" in proc.stderr.strip().splitlines()[-1]


def _pick(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH / "pick_best.py"), *args],
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_pick_best_from_the_committed_results_is_the_registry_alias(tmp_path: Path) -> None:
    """The documented best bot is what issue 29's rule picks from the committed
    measurements: tied with the standings' first, which it is level with, and meeting
    more targets; with no equivalence margin the rule is the round robin's standings."""
    from scopa_sim.bots.registry import ALIASES

    doc = _run("pick_best.py", out=tmp_path / "b.json")
    assert doc["best"] == ALIASES["best"]
    top = doc["candidates"][0]
    second = doc["candidates"][1]
    assert top["tied"] and second["tied"] and top["level_with"] == [second["policy"]]
    assert (top["targets_met"], second["targets_met"]) == (3, 2)
    low, high = doc["same_pick_for_equivalence"]
    assert low <= doc["equivalence"] and (high is None or doc["equivalence"] < high)
    plain = _run("pick_best.py", "--equivalence", "0", out=tmp_path / "p.json")
    standings = json.loads((BENCH / "results" / "roundrobin.json").read_text())["standings"]
    assert plain["best"] == standings[0]["policy"] != doc["best"]


def _synthetic(tmp_path: Path) -> list[str]:
    """A round robin of A, B, C and the reference R: A and B shown level (their CI within
    ±0.004), A's worst +0.001 above B's -0.001; only B gains 0.15 against greedy; B has a
    confirmation against R."""
    a, b, c, r = (f"ismcts:iterations=9,horizon=4,c=1,belief={x}"
                  for x in ("fit", "robust", "expert", "uniform"))  # fmt: skip

    def row(x: str, y: str, m: float, h: float) -> dict:
        return {"a": x, "b": y, "mean": m, "ci_low": m - h, "ci_high": m + h, "deal_pairs": 100}

    rr = {"reference": r,
          "pairings": [row(a, b, 0.001, 0.003), row(a, c, 0.05, 0.04), row(b, c, 0.04, 0.03),
                       row(a, r, 0.1, 0.05), row(b, r, 0.02, 0.05), row(c, r, 0.01, 0.05)],
          "standings": [{"policy": p, "elo": e, "unbeaten": u}
                        for p, e, u in ((a, 5, True), (b, 4, True), (c, 0, False),
                                        (r, -9, False))],
          "calibration": {"A": {"setting": a}, "B": {"setting": b}, "C": {"setting": c},
                          "R": {"setting": r}}}  # fmt: skip
    confirm = {"pairings": [{"a": r, "b": b, "margin": -0.05, "margin_ci": [-0.08, -0.02],
                             "deal_pairs": 300}]}  # fmt: skip

    def gain(setting: str, g: float) -> dict:
        return {"setting": setting, "minus_uniform": g, "minus_uniform_ci": [g - 0.05, g + 0.05]}

    belief = {"reply": [{"base": "ismcts:iterations=1000,horizon=4,c=1", "opponent": "greedy",
                         "beliefs": {"a": gain(a, 0.05), "b": gain(b, 0.2)}}]}  # fmt: skip
    for name, doc in (("rr", rr), ("confirm", confirm), ("bel", belief)):
        (tmp_path / f"{name}.json").write_text(json.dumps(doc))
    return ["--roundrobin", str(tmp_path / "rr.json"), "--belief", str(tmp_path / "bel.json"),
            "--confirm", str(tmp_path / "confirm.json")]  # fmt: skip


def test_pick_best_breaks_only_shown_ties_by_the_targets(tmp_path: Path) -> None:
    args = _synthetic(tmp_path)
    tied = _run("pick_best.py", *args, "--equivalence", "0.01", out=tmp_path / "t.json")
    assert tied["best"].endswith("belief=robust")  # level with A, meets target 3
    top, second = tied["candidates"]
    assert (top["targets_met"], second["targets_met"]) == (3, 2)
    # B's two samples against R pooled: 100 pairs at +0.02 and 300 at +0.05
    assert top["target2"]["deal_pairs"] == 400 and math.isclose(top["target2"]["margin"], 0.0425)
    half = math.sqrt((100 * 0.05) ** 2 + (300 * 0.03) ** 2) / 400  # the CIs' half-widths
    assert top["target2"]["met"] and math.isclose(top["target2"]["ci"][0], 0.0425 - half)
    low, high = tied["same_pick_for_equivalence"]
    assert math.isclose(low, 0.004) and high is None
    plain = _run("pick_best.py", *args, "--equivalence", "0.003", out=tmp_path / "p.json")
    assert plain["best"].endswith("belief=fit")  # not shown level: the better estimate
    first = plain["candidates"][0]
    assert first["worst"] == 0.001 and not first["level_with"] and first["tied"]
    assert not plain["candidates"][1]["tied"]
    low, high = plain["same_pick_for_equivalence"]
    assert low == 0.0 and math.isclose(high, 0.004)


def test_pick_best_of_a_confirmation_run_takes_its_focus_settings_only(tmp_path: Path) -> None:
    args = _synthetic(tmp_path)
    rr = json.loads((tmp_path / "rr.json").read_text())
    (tmp_path / "rr.json").write_text(json.dumps({**rr, "focus": ["B"]}))
    doc = _run("pick_best.py", *args, "--equivalence", "0", out=tmp_path / "f.json")
    assert [c["label"] for c in doc["candidates"]] == ["B"] and doc["best"].endswith("robust")


@pytest.mark.parametrize(
    ("args", "says"),
    [(["--equivalence", "-0.1"], "-0.1 is not in the range"),
     (["--roundrobin", "nowhere.json"], "does not exist"),
     (["--roundrobin", "{bad}"], "is not JSON"),
     (["--belief", "{binary}"], "is not JSON text"),
     (["--belief", "{rr}"], "not a bench_belief.py result"),
     (["--confirm", "{rr}"], "not the round robin's")],
)  # fmt: skip
def test_pick_best_bad_input_is_one_line(tmp_path: Path, args: list[str], says: str) -> None:
    args = [*_synthetic(tmp_path)[:2], *args]
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00")
    given = [a.format(bad=tmp_path / "bad.json", rr=tmp_path / "rr.json",
                      binary=tmp_path / "binary.json") for a in args]  # fmt: skip
    proc = _pick(*given)
    assert proc.returncode in (1, 2) and "Traceback" not in proc.stderr, proc.stderr
    assert says in proc.stderr.strip().splitlines()[-1]
