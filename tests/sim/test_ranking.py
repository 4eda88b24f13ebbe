"""The documented best bot's rule (:mod:`scopa_sim.sim.ranking`): on the committed
measurements it names the registry's ``best``; on a synthetic round robin it breaks
only the ties a pairing shows, by the targets."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from scopa_sim.bots.registry import ALIASES
from scopa_sim.errors import RankingError
from scopa_sim.sim.ranking import (
    first_of,
    level,
    pick_best,
    pooled,
)
from scopa_sim.sim.tournament import standings

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
CONFIRM = ("roundrobin-confirm.json", "roundrobin-confirm-3131.json", "roundrobin-gate-3030.json")
BELIEF = ("belief-robust.json", "belief-replymin.json", "belief-replygate.json")


def _named(name: str) -> tuple[str, dict]:
    return name, json.loads((RESULTS / name).read_text())


def _committed(equivalence: float = 0.01):
    return pick_best(_named("roundrobin.json"), [_named(n) for n in CONFIRM],
                     [_named(n) for n in BELIEF], equivalence)  # fmt: skip


def test_the_rule_on_the_committed_results_is_the_registry_alias() -> None:
    """The documented best bot is what the rule picks from the committed measurements:
    tied with the standings' first, which it is level with, and meeting more targets;
    with no equivalence margin the rule is the round robin's standings."""
    pick = _committed()
    assert pick.best == ALIASES["best"]
    top, second = pick.candidates[:2]
    assert top.tied and second.tied and top.level_with == (second.policy,)
    assert (top.targets_met, second.targets_met) == (3, 2)
    low, high = pick.same_pick
    assert low <= pick.equivalence < high
    plain = _committed(0.0)
    rr = json.loads((RESULTS / "roundrobin.json").read_text())
    assert plain.best == rr["standings"][0]["policy"] != pick.best


def test_the_committed_standings_are_the_library_standings() -> None:
    """The round robin's committed standings are :func:`standings` of its pairings."""
    from scopa_sim.experiments.common import result_of

    for name in ("roundrobin.json", "roundrobin-confirm-3131.json"):
        doc = json.loads((RESULTS / name).read_text())
        names = [c["setting"] for c in doc["calibration"].values()]
        rank = standings(names, [result_of(r) for r in doc["pairings"]])
        assert [s.to_dict() for s in rank] == doc["standings"]
        focus = {doc["calibration"][f]["setting"] for f in doc["focus"]}
        assert first_of(rank, focus).policy == doc["best"]


#: A round robin of A, B, C and the reference R: A and B shown level (their CI within
#: ±0.004), A's worst +0.001 above B's -0.001; only B gains 0.15 against greedy; B has a
#: confirmation against R (``rr``, ``confirm``, ``belief``).
SYNTHETIC = Path(__file__).resolve().parents[1] / "helpers" / "ranking"


def _synthetic() -> dict[str, tuple[str, dict]]:
    return {k: (f"{k}.json", json.loads((SYNTHETIC / f"{k}.json").read_text()))
            for k in ("rr", "confirm", "belief")}  # fmt: skip


def _pick(d: float, **docs: tuple[str, dict]):
    s = {**_synthetic(), **docs}
    return pick_best(s["rr"], [s["confirm"]], [s["belief"]], d)


def test_only_shown_ties_are_broken_by_the_targets() -> None:
    tied = _pick(0.01)
    assert tied.best.endswith("belief=robust")  # level with A, meets target 3
    top, second = tied.candidates
    assert (top.targets_met, second.targets_met) == (3, 2)
    # B's two samples against R pooled: 100 pairs at +0.02 and 300 at +0.05
    assert top.target2["deal_pairs"] == 400 and math.isclose(top.target2["margin"], 0.0425)
    half = math.sqrt((100 * 0.05) ** 2 + (300 * 0.03) ** 2) / 400  # the CIs' half-widths
    assert top.target2["met"] and math.isclose(top.target2["ci"][0], 0.0425 - half)
    low, high = tied.same_pick
    assert math.isclose(low, 0.004) and math.isinf(high)
    plain = _pick(0.003)
    assert plain.best.endswith("belief=fit")  # not shown level: the better estimate
    first = plain.candidates[0]
    assert first.worst.estimate == 0.001 and not first.level_with and first.tied
    assert not plain.candidates[1].tied
    low, high = plain.same_pick
    assert low == 0.0 and math.isclose(high, 0.004)


def test_a_confirmation_run_ranks_its_focus_settings_only() -> None:
    name, rr = _synthetic()["rr"]
    pick = _pick(0.0, rr=(name, {**rr, "focus": ["B"]}))
    assert [c.label for c in pick.candidates] == ["B"] and pick.best.endswith("robust")


def test_level_and_pooled() -> None:
    assert level(-0.004, 0.003, 0.01) and not level(-0.02, 0.003, 0.01)
    assert not level(0.0, 0.0, 0.0)  # d = 0: nothing is level
    mean, low, high = pooled([(100, 0.02, -0.03, 0.07), (300, 0.05, 0.02, 0.08)])
    assert math.isclose(mean, 0.0425) and low < mean < high


@pytest.mark.parametrize(
    ("which", "doc", "says"),
    [("rr", {"pairings": []}, "is not a round robin's result"),
     ("belief", {"other": 1}, "not a belief experiment's result"),
     ("belief", {"reply": [{"opponent": "greedy"}]}, "not a belief experiment's result"),
     ("confirm", {"pairings": [{"a": "x"}]}, "a pairing without its margin and CI")],
)  # fmt: skip
def test_bad_measurements_raise_ranking_errors(which: str, doc: dict, says: str) -> None:
    with pytest.raises(RankingError, match=says):
        _pick(0.01, **{which: ("bad.json", doc)})


def test_no_unbeaten_setting_and_a_negative_margin_are_errors() -> None:
    name, rr = _synthetic()["rr"]
    beaten = {**rr, "standings": [{**s, "unbeaten": False} for s in rr["standings"]]}
    with pytest.raises(RankingError, match="no setting of the round robin is unbeaten"):
        _pick(0.01, rr=(name, beaten))
    with pytest.raises(RankingError, match="at least 0"):
        _pick(-0.1)
