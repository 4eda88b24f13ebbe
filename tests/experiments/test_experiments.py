"""The experiments (:mod:`scopa_sim.experiments`) end to end at tiny sizes: each runs
as ``python -m scopa_sim.experiments.NAME``, writes its JSON, and turns bad input into
a one-line error; the committed tables that can be rewritten from the committed results
come out byte for byte."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from scopa_sim.game.rules import KERNEL_PRESETS
from scopa_sim.stats.inference import MIN_SAMPLES

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
SYNTHETIC = ROOT / "tests" / "helpers" / "ranking"


def _module(name: str) -> list[str]:
    return [sys.executable, "-m", f"scopa_sim.experiments.{name}"]


def _run(name: str, *args: str, out: Path) -> dict:
    proc = subprocess.run([*_module(name), *args, "--json", str(out)],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(out.read_text())


def test_roundrobin_quick(tmp_path: Path) -> None:
    """The round robin end to end at a tiny size: every pairing played and logged, the
    standings complete, the gated entrant at the budget of the setting it takes it from
    (``budget_of``); a rerun reads every pairing back from the log; an entrant whose
    budget's source does not play is a one-line error."""
    log = tmp_path / "rr.jsonl"
    args = ("--quick", "--log", str(log), "--table", str(tmp_path / "rr.md"))
    doc = _run("roundrobin", *args, out=tmp_path / "rr.json")
    calib = doc["calibration"]
    gated = calib["ismcts robust, reply=weak, reply_gate=0.9"]
    assert gated["budget_of"] == "ismcts robust"
    assert gated["budget"] == calib["ismcts robust"]["budget"]
    want = f"ismcts:iterations={gated['budget']},horizon=4,c=1,belief=robust,reply=weak"
    assert gated["setting"] == want + ",reply_gate=0.9"
    assert len(doc["pairings"]) == 6 and len(doc["standings"]) == 4
    assert doc["best"] == doc["standings"][0]["policy"]
    again = _run("roundrobin", *args, out=tmp_path / "rr2.json")
    assert again["pairings"] == doc["pairings"] and again["calibration"] == calib
    proc = subprocess.run(
        [*_module("roundrobin"), "--quick", "--only", "expert",
         "--only", "ismcts robust, reply=weak, reply_gate=0.9"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("Error: 'ismcts robust, reply=weak")


def test_tune_quick(tmp_path: Path) -> None:
    """best's one-knob variants end to end at a tiny size: the variants that do not change
    the cost of an iteration (``c``, ``exact``) keep best's iterations, a calibrated one
    gets its own; a rerun reads every pairing back from the log; a log of another base is
    a one-line error."""
    log = tmp_path / "t.jsonl"
    doc = _run("tune", "--quick", "--log", str(log), out=tmp_path / "t.json")
    rows = {v["label"]: v for v in doc["variants"]}
    assert set(rows) == {"c=0.5", "exact=1", "horizon=2"}
    calib = doc["calibration"]
    assert calib["c=0.5"]["budget"] == calib["exact=1"]["budget"] == calib["best"]["budget"] == 40
    assert calib["c=0.5"]["budget_of"] == calib["exact=1"]["budget_of"] == "best"
    assert rows["exact=1"]["setting"] == "ismcts:iterations=40,horizon=4,c=1,belief=robust,exact=1"
    assert "budget_of" not in calib["horizon=2"]
    assert rows["horizon=2"]["setting"].startswith("ismcts:iterations=")
    assert all(v["deal_pairs"] == 10 for v in rows.values())
    again = _run("tune", "--quick", "--log", str(log), out=tmp_path / "t2.json")
    assert again["variants"] == doc["variants"]
    best = '"setting": "ismcts:iterations=40,horizon=4,c=1,belief=robust"'
    assert best in log.read_text()
    log.write_text(log.read_text().replace(best, best.replace("=40,", "=41,")))
    proc = subprocess.run(
        [*_module("tune"), "--quick", "--log", str(log)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "another base setting" in proc.stderr.strip().splitlines()[-1]


def test_tune_learned_quick(tmp_path: Path) -> None:
    """The learned model's uses in ``best``'s search (``--knobs learned``) end to end at a
    tiny size: each calibrated to the base's time; a base without iterations is a
    one-line error."""
    doc = _run("tune", "--quick", "--knobs", "learned", "--base", "best", out=tmp_path / "l.json")
    rows = {v["label"]: v for v in doc["variants"]}
    assert set(rows) == {"prior_visits=10", "leaf=learned"}
    assert rows["prior_visits=10"]["setting"].endswith(",prior=learned,prior_visits=10")
    assert rows["leaf=learned"]["setting"].endswith(",reply_gate=0.9,leaf=learned")
    assert all("budget_of" not in doc["calibration"][lab] for lab in rows)
    proc = subprocess.run([*_module("tune"), "--quick", "--base", "greedy"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--base" in proc.stderr.strip().splitlines()[-1]


def test_review(tmp_path: Path) -> None:
    doc = _run("review", "--quick", out=tmp_path / "r.json")
    assert doc["endgames"]["max_abs_difference"] == 0.0
    assert doc["endgames"]["solver_play_loss_sum"] == 0.0
    assert {r["policy"] for r in doc["policies"]} >= {"strong", "random", "greedy"}
    assert doc["speed"]["median_s"] > 0


def _ladder(tmp_path: Path, *args: str) -> dict:
    png = tmp_path / "l.png"
    doc = _run("ladder", "--quick", "--png", str(png), *args, out=tmp_path / "l.json")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return doc


def test_the_ladder_figure_of_every_family_is_readable() -> None:
    """A ladder of every family drew 11 families and the frontier on one axes, two of them
    in the same olive (issue 40): now close-up panels of at most 8 series each."""
    from helpers.figures import LIMIT, check_figure, series_of

    from scopa_sim.experiments.ladder import FAMILY_STYLE, figure, ladder_settings

    rows = []
    for k, (family, policy) in enumerate(ladder_settings(quick=False)):
        m = -1.3 + 2.6 * k / 30
        rows.append({"family": family, "policy": policy, "cost_ms_per_move": 1e-5 * 1.5**k,
                     "mean_margin": m, "ci_low": m - 0.1, "ci_high": m + 0.1,
                     "on_frontier": k % 4 == 0})  # fmt: skip
    assert {r["family"] for r in rows} == set(FAMILY_STYLE)
    fig = figure(rows, "Strength against cost, 2-player scopa (1000 paired deals against "
                 "greedy each, seed 2026)")  # fmt: skip
    check_figure(fig)
    shown = {label for ax in fig.axes for _, label in series_of(ax)}
    assert set(FAMILY_STYLE) - {"jitted"} <= shown
    assert all(len(series_of(ax)) <= LIMIT for ax in fig.axes)


def test_ladder_quick(tmp_path: Path) -> None:
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
    assert len(doc["expert_vs_greedy_fused"]) == len(
        KERNEL_PRESETS
    )  # every preset the kernels play
    speed = doc["selfplay_speed"]["median_hands_per_s"]
    assert speed["expert"] > 0 and speed["greedy"] > 0 and speed["random"] > 0
    assert {"start", "end"} <= set(doc["load"])
    # the deals' results do not depend on the number of worker processes
    one = _ladder(tmp_path / "one", "--workers", "1")
    assert [(r["policy"], r["mean_margin"], r["ci_low"]) for r in one["ladder"]] == [
        (r["policy"], r["mean_margin"], r["ci_low"]) for r in doc["ladder"]
    ]
    assert one["round_robin"]["ratings"] == doc["round_robin"]["ratings"]


def test_ladder_pairing_and_frontier() -> None:
    from scopa_sim.experiments import ladder as B
    from scopa_sim.experiments.common import pairing

    # hands: a wins 1 and 3, draws 0 and 0, loses -2 and -1
    pr = pairing("a", "b", [1, 0, -2], [3, -1, 0])
    assert (pr.wins, pr.draws, pr.losses, pr.deal_pairs) == (2, 2, 2, 3)
    assert pr.score == 0.5 and pr.elo.estimate == 0.0
    assert abs(pr.margin.estimate - (2 - 0.5 - 1) / 3) < 1e-12
    pts = [("slow-weak", 10.0, 0.5), ("cheap", 0.1, 0.2), ("mid", 1.0, 1.0), ("dear", 5.0, 1.2)]
    assert B.frontier(pts) == ["cheap", "mid", "dear"]


def test_ladder_bad_input(tmp_path: Path) -> None:
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
            [*_module("ladder"), *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode != 0
        lines = proc.stderr.strip().splitlines()
        assert "Traceback" not in proc.stderr and lines[-1].startswith("Error"), proc.stderr


def test_belief(tmp_path: Path) -> None:
    doc = _run("belief", "--quick", "--workers", "1", "--opponents", "greedy;expert",
               out=tmp_path / "b.json")  # fmt: skip
    assert doc["fit"]["used"] and doc["calibration"] and len(doc["strength"]) == 4
    assert {q["opponent"] for q in doc["quality"]} == {"greedy", "expert"}


def test_belief_reply(tmp_path: Path) -> None:
    """Part reply: the opponent model in the tree, calibrated per opponent."""
    doc = _run("belief", "--quick", "--workers", "1", "--parts", "reply", "--replies",
               "tree", "--reply-models", "fit", "--bases", "ismcts", "--opponents", "greedy",
               out=tmp_path / "r.json")  # fmt: skip
    (row,) = doc["reply"]
    assert row["opponent"] == "greedy" and list(row["beliefs"]) == ["fit,reply=tree"]
    assert "reply=tree" in row["beliefs"]["fit,reply=tree"]["setting"]
    assert any(k.endswith("|reply=tree|vs=greedy") for k in doc["calibration"])


def test_ladder_only(tmp_path: Path) -> None:
    doc = _run("ladder", "--quick", "--workers", "1", "--deals", "2", "--only",
               "pimc:belief=fit", out=tmp_path / "l.json")  # fmt: skip
    assert [r["policy"] for r in doc["ladder"]] == ["pimc:belief=fit"]


def test_match_quick(tmp_path: Path) -> None:
    log = tmp_path / "pairs.jsonl"
    doc = _run("match", "--quick", "--log", str(log), out=tmp_path / "m.json")
    s = doc["summary"]
    assert s["pairs"] == 2 and s["matches"] == 4 and len(log.read_text().splitlines()) == 2
    assert s["pairs_a_won_both"] + s["pairs_a_lost_both"] + s["pairs_split"] == 2
    assert 0 <= s["a_win_rate"] <= 1 and s["hands"] >= 4
    assert "objective=match" in doc["a"] and "objective" not in doc["b"]
    leaf = _run("match", "--quick", "--a-params", "match_leaf=calibrated",
                out=tmp_path / "m3.json")  # fmt: skip
    assert leaf["a"].endswith(",match_leaf=calibrated")
    # the log is resumed: a second run plays nothing new and reports the same pairs
    again = _run("match", "--quick", "--log", str(log), out=tmp_path / "m2.json")
    assert again["summary"]["a_match_wins"] == s["a_match_wins"]
    assert len(log.read_text().splitlines()) == 2


def test_match_from_given_totals(tmp_path: Path) -> None:
    doc = _run("match", "--quick", "--from-totals", "10,9", out=tmp_path / "t.json")
    assert doc["start_totals"] == [10, 9] and doc["summary"]["pairs"] == 2
    assert doc["summary"]["hands_per_match"] < 3  # one of them needs a point or two
    for bad, says in (("10,11", "each from 0 to 10"), ("9", "give 2 totals"), ("a,b", "integers")):
        proc = subprocess.run(
            [*_module("match"), "--quick", "--from-totals", bad],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert proc.returncode != 0 and says in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_match_leaf_calibration(tmp_path: Path) -> None:
    doc = _run("match", "--leaf-matches", "2", "--equity-hands", "500", out=tmp_path / "l.json")
    assert [s["play"] for s in doc["stages"]] == [4, 12, 20, 28]
    assert all(s["positions"] >= 2 and 0 <= s["brier"] <= 1 for s in doc["stages"])
    assert all(0 <= s["calibrated_brier"] <= 1 for s in doc["stages"])
    assert len(doc["leaf_fit"]["slope"]) == 36


def test_reply_min_quick(tmp_path: Path) -> None:
    doc = _run("reply_min", "--quick", out=tmp_path / "m.json")
    rows = {r["opponent"]: r for r in doc["rows"]}
    assert set(rows) == {"greedy", "expert"} and doc["x"] == 0.5
    for r in rows.values():
        assert 0.0 <= r["share_at_least_x"] <= 1.0 and r["decisions"] > 0
    # a greedy player's plays make the greedy type likely; the expert's do not
    assert rows["greedy"]["mean_weak_posterior"] > rows["expert"]["mean_weak_posterior"]


def test_search_quick(tmp_path: Path) -> None:
    doc = _run("search", "--quick", out=tmp_path / "s.json")
    assert len(doc["matches"]) == 6 and doc["ismcts_iterations_at_pimc_time"] >= 1


def _pick(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*_module("pick_best"), *args],
                          capture_output=True, text=True, timeout=120)  # fmt: skip


@pytest.mark.parametrize(
    ("args", "committed"),
    [([], "pick-best"),
     (["--roundrobin", str(RESULTS / "roundrobin-confirm-3131.json"),
       "--confirm", str(RESULTS / "roundrobin-confirm.json"),
       "--confirm", str(RESULTS / "roundrobin.json"),
       "--confirm", str(RESULTS / "roundrobin-gate-3030.json")], "pick-best-3131")],
)  # fmt: skip
def test_pick_best_writes_the_committed_pick(
    tmp_path: Path, args: list[str], committed: str
) -> None:
    proc = _pick(*args, "--json", str(tmp_path / "b.json"), "--table", str(tmp_path / "b.md"))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "b.json").read_bytes() == (RESULTS / f"{committed}.json").read_bytes()
    assert (tmp_path / "b.md").read_bytes() == (RESULTS / f"{committed}.md").read_bytes()


@pytest.mark.parametrize("name", ["roundrobin", "roundrobin-confirm-3131"])
def test_roundrobin_tables_from_the_committed_json(tmp_path: Path, name: str) -> None:
    proc = subprocess.run([*_module("roundrobin"), "--from-json", str(RESULTS / f"{name}.json"),
                           "--table", str(tmp_path / "t.md")],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "t.md").read_bytes() == (RESULTS / f"{name}.md").read_bytes()


def _synthetic(tmp_path: Path) -> list[str]:
    """The options of the synthetic round robin of ``tests/helpers/ranking`` (its ``B`` level
    with ``A`` and meeting more targets), copied to ``tmp_path``."""
    paths = []
    for opt, name in (("--roundrobin", "rr"), ("--confirm", "confirm"), ("--belief", "belief")):
        (tmp_path / f"{name}.json").write_text((SYNTHETIC / f"{name}.json").read_text())
        paths += [opt, str(tmp_path / f"{name}.json")]
    return paths


def test_pick_best_of_given_files(tmp_path: Path) -> None:
    proc = _pick(*_synthetic(tmp_path), "--equivalence", "0.01", "--json", str(tmp_path / "o.json"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "o.json").read_text())["best"].endswith("belief=robust")


@pytest.mark.parametrize(
    ("args", "says"),
    [(["--equivalence", "-0.1"], "-0.1 is not in the range"),
     (["--roundrobin", "nowhere.json"], "does not exist"),
     (["--roundrobin", "{bad}"], "is not JSON"),
     (["--belief", "{binary}"], "is not JSON text"),
     (["--belief", "{rr}"], "not a belief experiment's result"),
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


def test_machine_names_the_processor_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A speed figure names its processor: the model from /proc/cpuinfo where Linux has
    it (platform gives only "x86_64" there), else what platform knows."""
    import builtins

    from scopa_sim.experiments import common

    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B14\n")
    real_open = builtins.open

    def fake_open(path, *a, **k):  # type: ignore[no-untyped-def]
        return real_open(info if path == "/proc/cpuinfo" else path, *a, **k)

    monkeypatch.setattr(builtins, "open", fake_open)
    assert common.cpu_model() == "AMD EPYC 9B14"
    assert common.machine()["cpu"] == "AMD EPYC 9B14"
    info.unlink()  # no /proc/cpuinfo: platform's answer
    monkeypatch.setattr(common.platform, "processor", lambda: "")
    assert common.cpu_model() == common.platform.machine()
