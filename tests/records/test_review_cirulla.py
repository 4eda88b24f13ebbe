"""``review`` of Cirulla records (RULES.md §10): every decision graded by the evaluator
(rollouts by a kernel policy on worlds that keep the hands shown by declarations), the
deals' luck and the prior from Cirulla's own deals; a matta named any legal value is
graded as the play it stands for; a review with a belief shows it on Cirulla hands."""

from __future__ import annotations

import io
import json

import pytest

from scopa_sim import Rules
from scopa_sim.bots.evaluate import DEALT, PUBLIC, Evaluator
from scopa_sim.bots.registry import seat_policies
from scopa_sim.game.state import HandState
from scopa_sim.records.record import decode_hand, write_records
from scopa_sim.records.review import HandTask, review_tasks
from scopa_sim.sim.match import play_match


def _lines(rules: Rules, seed: int) -> list[str]:
    out = io.StringIO()
    write_records(out, rules, play_match(rules, seat_policies(["greedy"], rules.players), seed, 0))
    return out.getvalue().splitlines()


def _tasks(lines: list[str]) -> list[HandTask]:
    return [HandTask("games.jsonl", n, text) for n, text in enumerate(lines[:2], start=1)]


@pytest.mark.parametrize("overrides", [{"matta": "play"}, {"declare": "auto"}])
def test_a_cirulla_review_grades_every_play_and_splits_the_result(overrides: dict) -> None:
    rules = Rules.make("cirulla", overrides)
    tasks = _tasks(_lines(rules, 2))
    ev = Evaluator(worlds=16)
    review = review_tasks(tasks, ev, seed=1)
    for task, h in zip(tasks, review.hands, strict=True):
        obj = json.loads(task.text)
        assert [d.chosen for d in h.decisions] == [
            str(p) for p in decode_hand(obj)[1]
        ]  # every play, in the record's words
        totals = [s["total"] for s in obj["score"]]
        assert h.result == (totals[0] - totals[1], totals[1] - totals[0])
        for s in range(2):
            assert h.result[s] == pytest.approx(h.luck[s] + h.skill[s])
        assert all(d.loss.estimate >= 0 and not d.exact for d in h.decisions)
    again = review_tasks(tasks, Evaluator(worlds=16), seed=1, workers=2)
    assert [h.decisions for h in again.hands] == [h.decisions for h in review.hands]


def test_a_matta_named_another_legal_value_is_graded_as_its_listed_play() -> None:
    rules = Rules.make("cirulla", {"matta": "play"})
    lines = _lines(rules, 2)
    for line in lines:
        obj = json.loads(line)
        state, plays = decode_hand(obj)
        for i, play in enumerate(plays):
            if play.value and play.take:
                other = next(
                    (v for v in range(play.value + 1, 11)
                     if state.is_legal(type(play)(play.card, play.take, v, play.declaration))),
                    None,
                )  # fmt: skip
                if other is not None:
                    obj["plays"][i]["value"] = other
                    base = review_tasks([HandTask("a", 1, line)], Evaluator(worlds=8), seed=3)
                    text = json.dumps(obj)
                    changed = review_tasks([HandTask("a", 1, text)], Evaluator(worlds=8), seed=3)
                    a, b = base.hands[0].decisions[i], changed.hands[0].decisions[i]
                    assert b.chosen.startswith(f"7H={other} ") and a.loss == b.loss
                    return
            state.push(play)
    pytest.skip("no matta capture with a second legal value in these hands")  # pragma: no cover


def test_a_review_with_a_belief_shows_it_on_cirulla_hands() -> None:
    """``belief_model`` on Cirulla hands: each decision with evidence gets the deciding
    seat's most likely hands of the others, their probabilities adding up to at most 1."""
    tasks = _tasks(_lines(Rules.make("cirulla"), 2))
    review = review_tasks(tasks, Evaluator(worlds=4), seed=0, belief_model="expert")
    shown = [d.belief for h in review.hands for d in h.decisions if d.belief]
    assert shown
    for top in shown:
        for _, hands in top:
            assert 0.0 < sum(p for _, p in hands) <= 1.0 + 1e-9


def test_position_values_of_every_view() -> None:
    state = HandState.deal(Rules.make("cirulla-3"), seed=6)
    ev = Evaluator(worlds=8)
    for view in (DEALT, PUBLIC, 0, 2):
        v = ev.position_values(state, view, seed=1)
        assert v.shape == (8, 3)
    with pytest.raises(ValueError, match="view must be"):
        ev.position_values(state, 7, seed=1)
    prior = ev.prior(state.rules, 0)
    assert prior.shape == (3,) and abs(prior.sum()) < 30
