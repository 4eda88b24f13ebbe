"""The engine against the plain-Python reference (tests/reference.py) for the
sum-to-fifteen family (docs/rules.md §9): golden legal-play counts, arbitrary positions,
the opening take on whole hands, and the properties the issue names. The cross-checks of
tests/engine/test_crosscheck.py (every decision, whole hands, fused against step) run for the
presets `scopa-15` and `escoba` too."""

from __future__ import annotations

import random

import pytest
import reference as ref  # tests/ is on sys.path (pyproject: pythonpath)
from helpers import golden
from hypothesis import given, settings
from hypothesis import strategies as st

from scopa_sim import CardSet, Play, Rules
from scopa_sim.game.cards import value_of
from scopa_sim.game.state import HandState

P = CardSet.parse

#: The fifteen rule sets checked here, as presets with overrides.
FIFTEEN = [
    ("scopa-15", ()),
    ("escoba", ()),
    ("scopa-15", ("sum_capture=fewest",)),
    ("scopa-15", ("capture_rule=hand",)),
    ("escoba", ("players=4",)),
    ("escoba", ("players=3", "table_cards=1", "sum_capture=fewest")),
    ("scopa-15", ("deck=36", "opening_fifteen=true", "remainder_to=dealer")),
    ("scopa", ("capture_compulsory=false",)),
    ("scopa", ("capture_compulsory=false", "capture_rule=hand", "sum_capture=fewest")),
]
IDS = [" ".join((p, *o)) for p, o in FIFTEEN]
#: The reference's rules of each column of helpers/golden.py's GOLDEN_FIFTEEN, as Rules.
GOLDEN_RULES = [
    Rules.make("scopa-15"),
    Rules.make("escoba"),
    Rules.make("scopa-15", ["sum_capture=fewest"]),
    Rules.make("scopa-15", ["capture_rule=hand"]),
]


def pairs(plays: object) -> set[tuple[int, frozenset[int]]]:
    return {(p.card, frozenset(p.taken)) for p in plays}  # type: ignore[attr-defined]


def legal_of(rules: Rules, hand: CardSet, table: CardSet) -> set[tuple[int, frozenset[int]]]:
    """The engine's legal plays of seat 0 holding ``hand`` on ``table`` (the other seats'
    hands and the stock from the rest of the deck, which the legal plays do not read)."""
    state = HandState.from_position(
        rules,
        hands=[hand] + [CardSet()] * (rules.players - 1),
        table=table,
        turn=0,
        strict=False,
    )
    return pairs(state.legal_plays)


def test_golden_columns_are_the_references() -> None:
    for rules, cols in zip(GOLDEN_RULES, golden.GOLDEN_RULES, strict=True):
        assert Rules.from_dict(ref.rules_with(**cols)) == rules


@pytest.mark.parametrize(("hand", "table", "counts"), golden.GOLDEN_FIFTEEN)
def test_golden_fifteen_counts_on_the_engine(hand: str, table: str, counts: tuple[int, ...]):
    """Perft-style: the engine's number of distinct legal plays in fixed fifteen
    positions, against the counts the reference gives (helpers/golden.py's GOLDEN_FIFTEEN)."""
    for rules, count in zip(GOLDEN_RULES, counts, strict=True):
        got = legal_of(rules, P(hand), P(table))
        assert len(got) == count, (hand, table, rules.digest())
        assert got == set(ref.legal_plays(P(hand), P(table), rules.complete_dict()))


def test_worked_examples_6_and_7_on_the_engine() -> None:
    r = Rules.make("scopa-15")
    got = legal_of(r, P("5S KH AS"), P("7C 3D 5H"))
    assert got == {(P("5S").cards()[0], frozenset(P("7C 3D"))),
                   (P("KH").cards()[0], frozenset(P("5H"))),
                   (P("AS").cards()[0], frozenset())}  # fmt: skip
    got = legal_of(r, P("3S JC"), P("2C 3D 5H 7S"))
    takes = {(c, frozenset(t)) for c, t in got}
    three, jack = P("3S").cards()[0], P("JC").cards()[0]
    assert takes == {
        (three, frozenset(P("5H 7S"))),
        (three, frozenset(P("2C 3D 7S"))),
        (jack, frozenset(P("7S"))),
        (jack, frozenset(P("2C 5H"))),
    }


@pytest.mark.parametrize(("preset", "overrides"), FIFTEEN, ids=IDS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_legal_plays_on_arbitrary_positions(
    preset: str, overrides: tuple[str, ...], data: st.DataObject
) -> None:
    """Positions no game reaches too (up to 10 cards in hand and 20 on the table), with
    the properties of §9: with capture_compulsory=false every card of the hand is a
    legal lay; in fifteen mode every capture makes fifteen with the card played."""
    rules = Rules.make(preset, list(overrides))
    rd = rules.complete_dict()
    deck = data.draw(st.permutations(ref.make_deck(rd)))
    n_hand = data.draw(st.integers(1, 10))
    n_table = data.draw(st.integers(0, 20))
    hand, table = CardSet(deck[:n_hand]), CardSet(deck[n_hand : n_hand + n_table])
    got = legal_of(rules, hand, table)
    assert got == set(ref.legal_plays(hand, table, rd))
    if not rules.capture_compulsory:
        assert all((c, frozenset()) in got for c in hand)
    if rules.capture_mode == "fifteen":
        for card, take in got:
            assert not take or value_of(card) + sum(value_of(c) for c in take) == 15


#: RULES.md worked example 8: tables that make fifteen, two fifteens, and neither.
OPENINGS = [("AD 2C 5H 7S", 1), ("KD 5C KS 5H", 2), ("KD QC KS AH", 0)]


@pytest.mark.parametrize(
    ("preset", "overrides", "dealer"),
    [("escoba", (), 0), ("escoba", (), 1), ("escoba", ("players=4",), 3),
     ("scopa-15", ("opening_fifteen=true", "capture_rule=hand"), 1)],
)  # fmt: skip
@pytest.mark.parametrize("seed", [1, 2])
def test_whole_hands_with_an_opening_take(
    preset: str, overrides: tuple[str, ...], dealer: int, seed: int
) -> None:
    """Hands dealt from tables that make fifteen, two fifteens or neither, played out by
    the engine and the reference with the same choices: the same opening (cards and
    scope, the dealer's side the last capturer), plays, piles, scope and score."""
    rules = Rules.make(preset, list(overrides))
    rd = rules.complete_dict()
    rng = random.Random(seed)
    for table, scope in OPENINGS:
        first = P(table).cards()
        rest = [c for c in range(40) if c not in first]
        rng.shuffle(rest)
        deck = [*first, *rest]
        state = HandState.deal(rules, dealer=dealer, deck=deck)
        side = rules.side_of(dealer)
        assert state.opening == (P(table) if scope else CardSet())
        assert state.scope[side] == scope and sum(state.scope) == scope
        if scope:
            assert not state.table and state.last_capturer == side
            assert state.piles[side] == P(table)

        def choose(
            legal: list[tuple[int, frozenset[int]]], info: dict, state: HandState = state
        ) -> int:
            assert state.table == CardSet(info["table"])
            assert pairs(state.legal_plays) == set(legal)
            i = rng.randrange(len(legal))
            state.push(Play(legal[i][0], CardSet(legal[i][1]).mask))
            return i

        result = ref.play_hand(rd, deck, dealer, choose)
        assert result["opening"] == frozenset(state.opening)
        assert state.is_over
        assert [set(p) for p in state.piles] == result["piles"]
        assert state.scope == result["scope"]
        assert state.last_capturer == result["last_capturer"]
        assert state.score() == result["score"]
        assert result["remainder"]  # §9: the table is never empty after the last play


def test_opening_needs_the_option() -> None:
    deck = [*P("AD 2C 5H 7S").cards(), *(c for c in range(40) if c not in P("AD 2C 5H 7S"))]
    state = HandState.deal(Rules.make("scopa-15"), dealer=0, deck=deck)
    assert state.opening == CardSet() and state.table == P("AD 2C 5H 7S")
    assert state.scope == [0, 0] and state.last_capturer is None
