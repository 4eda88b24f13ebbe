"""HandState's reads are properties and its actions methods, so that a query used in a
condition cannot silently be a bound method (always true)."""

from __future__ import annotations

import inspect

import pytest

from scopa_sim import Rules
from scopa_sim.game.state import HandState

#: The public methods of HandState that take no argument: each acts on the state or
#: makes something new from it. A new query without arguments must be a property.
NO_ARGUMENT_METHODS = {"pop", "clone", "score", "score_array", "with_sorted_stock"}


def test_is_over_is_a_property_and_a_hand_plays_out() -> None:
    s = HandState.deal(Rules.make("scopa"), seed=3, dealer=1)
    plays = 0
    while not s.is_over:  # the pitfall of issue 26: a method here was always true
        s.push(s.legal_plays[0])
        plays += 1
    assert plays == 36 and s.is_over is True and s.plays_left == 0
    assert not s.legal_plays


def test_calling_a_property_fails_loudly() -> None:
    s = HandState.deal(Rules.make("scopa"), seed=3, dealer=1)
    for name in ("is_over", "turn", "legal_plays", "plays_left", "table"):
        with pytest.raises(TypeError):
            getattr(s, name)()


def test_no_argument_queries_are_properties() -> None:
    """Every public callable of HandState without arguments is an action or a copy: a
    boolean query written as a method (``is_over()``) would fail this test."""
    found = set()
    for name, member in inspect.getmembers(HandState):
        if name.startswith("_") or isinstance(inspect.getattr_static(HandState, name), property):
            continue
        if not inspect.isfunction(member):
            continue
        params = list(inspect.signature(member).parameters)
        if params == ["self"]:
            found.add(name)
    assert found == NO_ARGUMENT_METHODS


def test_points_are_the_total_score_item_of_each_side() -> None:
    s = HandState.deal(Rules.make("scopa-3"), seed=5, dealer=2)
    while not s.is_over:
        s.push(s.legal_plays[0])
    assert s.points == [row["total"] for row in s.score()]
