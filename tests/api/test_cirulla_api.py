"""The notebook API on Cirulla (RULES.md §10): the functions the tutorial and the board
use take Cirulla rule sets, positions and games (play writes records that replay and
review read, advise ranks a position's plays by the evaluator and ISMCTS, tournament pairs
the kernel policies and ISMCTS, simulate and analyze), every result's views included; what does not
play Cirulla yet is a one-line error."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

import scopa_sim
from scopa_sim.errors import ScopaError


def _views(result: Any) -> None:
    """Every view a notebook shows of ``result`` renders."""
    assert repr(result)
    for name in ("to_text", "_repr_html_", "to_dict", "to_polars"):
        if hasattr(result, name):
            assert getattr(result, name)() is not None, name


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    buf = io.StringIO()
    matches = scopa_sim.play(["expert", "greedy"], preset="cirulla", seed=7, record=buf)
    assert matches.hands == len(buf.getvalue().splitlines()) and matches.wins
    path = tmp_path_factory.mktemp("cirulla") / "games.jsonl"
    path.write_text(buf.getvalue())
    return path


def test_play_writes_what_replay_reads(games: Path) -> None:
    summary = scopa_sim.replay(str(games))
    assert "valid" in repr(summary)
    assert scopa_sim.record_lines(games) == games.read_text().splitlines()


def test_advise_ranks_a_cirulla_position_by_the_evaluator() -> None:
    advice = scopa_sim.advise(
        "AD 3C 3S", "7H 5C 2D QS", preset="cirulla", policy="eval:worlds=32", seed=0
    )
    _views(advice)
    plays = [p.play for p in advice.plays]
    assert any(p.endswith(" +3") for p in plays)  # a declaration is a play to rank
    assert "+3" in advice.to_text()


def test_ismcts_advises_plays_and_meets_expert_on_cirulla() -> None:
    advice = scopa_sim.advise(
        "AD 3C 3S", "7H 5C 2D QS", preset="cirulla", policy="ismcts:iterations=300", seed=0
    )
    _views(advice)
    assert any(p.play.endswith(" +3") for p in advice.plays)
    matches = scopa_sim.play(["ismcts:iterations=50", "greedy"], preset="cirulla", seed=2)
    _views(matches)
    _views(scopa_sim.tournament("ismcts:iterations=50", "expert", preset="cirulla-4", deals=2))


def test_review_grades_a_cirulla_hand(games: Path) -> None:
    game = scopa_sim.review(str(games), "1", policy="eval:worlds=16", seed=0)
    _views(game)
    assert game.to_polars().height > 0


def test_tournament_and_simulate_take_cirulla() -> None:
    _views(scopa_sim.tournament("expert", "greedy", preset="cirulla", deals=4, seed=1))
    run = scopa_sim.simulate("cirulla", hands=2_000, policy="greedy", seed=1)
    analysis = scopa_sim.analyze(run)
    _views(analysis)
    assert analysis.dealer_margin.low <= analysis.dealer_margin.high


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: scopa_sim.advise("AD 3C 3S", "7H 5C 2D QS", preset="cirulla",
                                  policy="pimc:belief=joker"), "expected one of"),
        (lambda: scopa_sim.advise("AD 3C 3S", "7H 5C 2D QS", preset="cirulla", policy="eval",
                                  belief="uniform"), "belief"),
        (lambda: scopa_sim.play("eval", preset="cirulla"), "does not play"),
        (lambda: scopa_sim.tournament("ismcts:belief=fit", "greedy", preset="cirulla-3",
                                      deals=2), "two sides"),
        (lambda: scopa_sim.play("greedy", preset="cirulla", overrides={"matta": "joker"}),
         "allowed"),
    ],
)  # fmt: skip
def test_what_does_not_play_cirulla_yet_is_one_line(call: Any, words: str) -> None:
    with pytest.raises(ScopaError) as e:
        call()
    assert words in str(e.value) and "\n" not in str(e.value)
