"""Every result of the notebook API reads well (issue 40, item 4): a short repr (a few
lines, no 16-digit floats) and an HTML view with a table; runs carry a label, so that a
comparison of two runs made in memory tells its sides apart."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pytest

import scopa_sim
import scopa_sim.api as api
from scopa_sim.analysis import deal_analyses as DV
from scopa_sim.errors import InputError

#: The longest repr, in lines and in characters.
MAX_LINES, MAX_CHARS = 5, 400


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One instance of every public result type, made by the API at a small size."""
    tmp = tmp_path_factory.mktemp("views")
    run = scopa_sim.simulate(hands=3000, seed=1, policy="greedy", workers=1)
    other = scopa_sim.simulate(hands=3000, seed=1, policy="expert", workers=1)
    matches = scopa_sim.simulate(matches=10, seed=1, policy=["expert", "random"], workers=1)
    mp = pytest.MonkeyPatch()
    mp.setattr(DV, "MIN_LUCK_HANDS", 1000)  # the luck share of a small run, for its views
    try:
        luck = scopa_sim.luck_share(run)
    finally:
        mp.undo()
    analysis = scopa_sim.analyze(run)
    cards = scopa_sim.card_values(run)
    hands = scopa_sim.opening_hands(run)
    tournament = scopa_sim.tournament("expert", "random", deals=4)
    advice = scopa_sim.advise("7D 3S KH", "7C 5H 2S AD", policy="pimc:worlds=8", seed=4)
    record = tmp / "games.jsonl"
    out = {
        "Run": run,
        "Analysis": analysis,
        "GroupFigures": analysis.groups[0],
        "Comparison": scopa_sim.compare(run, other),
        "Advantage": scopa_sim.advantage("scopa", hands=1000, seed=2),
        "CardValues": cards,
        "CardValue": cards.value("7D"),
        "ClassTable": hands,
        "ClassCell": hands.cells[0],
        "LuckShare": luck,
        "Estimate": scopa_sim.match_wins(matches),
        "Tournament": tournament,
        "Pairing": tournament.pairings[0],
        "Advice": advice,
        "PlayValue": advice.plays[0],
        "Matches": scopa_sim.play("greedy", matches=1, seed=3, record=record),
        "EquityTableFile": scopa_sim.equity(hands=200, out=tmp / "equity.json"),
        "Variant": scopa_sim.variant("scopa"),
        "Warming": api.Warming(scopa_sim.warm_tasks(), 2),
        "ReportFiles": api.ReportFiles(tmp / "report.md", (tmp / "a.png", tmp / "b.png")),
    }
    out["GameReview"] = scopa_sim.review(record, "1", policy="eval:worlds=2", seed=1, workers=1)
    out["ReplaySummary"] = scopa_sim.replay(record)
    out["WarmTask"] = scopa_sim.warm_tasks()[0]
    return out


def public_result_types() -> set[str]:
    """The classes the API exports (every one a result of some function)."""
    return {name for name in api.__all__ if inspect.isclass(getattr(api, name))}


def test_every_public_result_type_is_covered(results: dict[str, Any]) -> None:
    assert public_result_types() <= set(results)
    for name, value in results.items():
        assert type(value).__name__ == name


#: Results that are not exported classes: rows of a result, and what replay and
#: warm_tasks return.
OTHER_RESULTS = ["CardValue", "ClassCell", "ReplaySummary", "WarmTask"]


@pytest.mark.parametrize("name", sorted([*public_result_types(), *OTHER_RESULTS]))
def test_a_result_has_a_short_repr_and_an_html_table(results: dict[str, Any], name: str) -> None:
    value = results[name]
    text = repr(value)
    assert len(text.splitlines()) <= MAX_LINES and len(text) < MAX_CHARS, text
    assert not re.search(r"\d\.\d{7,}", text), text  # no 16-digit floats
    assert "nan" not in text.lower().replace("nans", ""), text
    page = value._repr_html_()
    assert "<table" in page and "</table>" in page, name


def test_a_run_made_in_memory_is_labelled_by_its_preset_and_policy() -> None:
    a = scopa_sim.simulate(hands=500, seed=2, policy="greedy", workers=1)
    b = scopa_sim.simulate(hands=500, seed=2, policy="expert", workers=1)
    assert (a.label, b.label) == ("scopa greedy", "scopa expert")
    c = scopa_sim.compare(a, b)
    assert "scopa expert - scopa greedy" in repr(c)
    assert "scopa against scopa" not in c.text()
    named = scopa_sim.simulate(hands=500, seed=2, policy="random", workers=1, label="baseline")
    assert named.label == "baseline"
    assert scopa_sim.open_run(named.directory, label="again").label == "again"
    with pytest.raises(InputError, match="label"):
        a.labelled("")
    with pytest.raises(InputError, match="label"):  # refused before any work
        scopa_sim.simulate(hands=10, label=5)  # type: ignore[arg-type]


def test_runs_of_the_same_name_are_told_apart(tmp_path: Path) -> None:
    a = scopa_sim.simulate(hands=500, seed=2, policy="greedy", workers=1, out=tmp_path / "a/scopa")
    b = scopa_sim.simulate(hands=500, seed=2, policy="expert", workers=1, out=tmp_path / "b/scopa")
    assert a.label == b.label == "scopa"
    c = scopa_sim.compare(a, b)
    assert "scopa #2 - scopa #1" in repr(c)
    assert {g.label for g in scopa_sim.analyze(a, b).groups} == {"scopa #1", "scopa #2"}
