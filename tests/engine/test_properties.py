"""Invariants of the engine that hold for every hand (hypothesis over seeds and rule sets)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scopa_sim import CardSet, Rules
from scopa_sim import _engine as K
from scopa_sim.game.cards import DECK36_MASK, FULL_DECK_MASK, value_of
from scopa_sim.game.state import HandState

RULESETS = [
    ("scopa", ()),
    ("scopa-3", ()),
    ("scopa-4", ()),
    ("scopa-4-solo", ()),
    ("asso-piglia-tutto", ()),
    ("scopa-36", ()),
    ("scopa-corsa", ()),
    ("scopone", ()),
    ("scopone-scientifico", ("re_bello=true",)),
    ("scopa", ("remainder_to=dealer", "last_play_scopa=true", "napola=true")),
    ("scopa-3", ("hand_size=1", "table_cards=1")),
]
IDS = [" ".join((p, *o)) for p, o in RULESETS]
#: The sum-to-fifteen family and free lays (RULES.md §9).
FIFTEEN_RULESETS = [
    ("scopa-15", ()),
    ("escoba", ()),
    ("escoba", ("players=4",)),
    ("escoba", ("players=3", "sum_capture=fewest", "remainder_to=dealer")),
    ("scopa-15", ("capture_rule=hand", "opening_fifteen=true", "deck=36")),
    ("scopa", ("capture_compulsory=false",)),
    ("asso-piglia-tutto", ("capture_compulsory=false", "capture_rule=hand")),
]
FIFTEEN_IDS = [" ".join((p, *o)) for p, o in FIFTEEN_RULESETS]
SEEDS = st.integers(min_value=0, max_value=2**63 - 1)


def make(preset: str, overrides: tuple[str, ...]) -> Rules:
    return Rules.make(preset, list(overrides))


def deck_mask(rules: Rules) -> int:
    return FULL_DECK_MASK if rules.deck == 40 else DECK36_MASK


def plays_per_side(rules: Rules) -> list[int]:
    """Cards each side plays in a hand: every seat plays (deck - table) / players cards."""
    per_seat = (rules.deck - rules.table_cards) // rules.players
    seats = [0] * rules.sides
    for seat in range(rules.players):
        seats[rules.side_of(seat)] += 1
    return [per_seat * n for n in seats]


def max_points(rules: Rules, plays: int) -> int:
    """Most points a side can score in a hand that made ``plays`` plays.

    Every play can be a scopa; then cards, denari, settebello, primiera (1 each), re bello
    (1) and napola (the run length, at most 10; 3 with fixed3)."""
    extra = 4 + int(rules.re_bello)
    if rules.napola:
        extra += 3 if rules.napola_scoring == "fixed3" else 10
    return plays + extra


def partition_ok(state: HandState, full: int) -> None:
    """Hands, table, piles and stock are disjoint and make up the deck."""
    parts = [*state.hands, state.table, *state.piles, CardSet(state.stock)]
    seen = 0
    for part in parts:
        assert seen & part.mask == 0, f"{CardSet(seen & part.mask)} in two places"
        seen |= part.mask
    assert len(state.stock) == len(set(state.stock))
    if state.is_over and state.last_capturer is None and state.rules.remainder_to != "dealer":
        assert seen & ~full == 0  # the table went to nobody
    else:
        assert seen == full


@pytest.mark.parametrize(("preset", "overrides"), RULESETS, ids=IDS)
@settings(max_examples=60, deadline=None)
@given(seed=SEEDS)
def test_invariants_along_a_hand(preset: str, overrides: tuple[str, ...], seed: int) -> None:
    rules = make(preset, overrides)
    full = deck_mask(rules)
    rng = random.Random(seed)
    state = HandState.deal(rules, dealer=seed % rules.players, seed=seed)
    total = rules.deck - rules.table_cards
    plays_by = [0] * rules.sides
    partition_ok(state, full)
    assert len(state.table) == rules.table_cards
    while not state.is_over:
        seat = state.turn
        assert state.plays_made + state.plays_left == total
        legal = list(state.legal_plays)
        assert legal and len(set(legal)) == len(legal)
        table = state.table
        for p in legal:
            assert p.card in state.hand(seat)
            assert p.take & ~table.mask == 0
        play = rng.choice(legal)
        res = state.push(play)
        plays_by[rules.side_of(seat)] += 1
        assert state.turn == (seat + 1) % rules.players
        assert res.last == (state.plays_left == 0)
        if res.capture:
            assert state.last_capturer == rules.side_of(seat)
            assert play.card in state.piles[rules.side_of(seat)]
        else:
            assert state.is_over or play.card in state.table
        partition_ok(state, full)
        for s in range(rules.sides):
            assert 0 <= state.scope[s] <= plays_by[s]
    assert state.plays_made == total and state.table == CardSet()
    assert plays_by == plays_per_side(rules)
    check_score(rules, state.score(), plays_by)


def check_score(
    rules: Rules, score: list[dict[str, int]], plays_by: list[int], opening: list[int] | None = None
) -> None:
    """Bounds of a hand's score; ``opening``: the scope each side took at the deal."""
    assert len(score) == rules.sides
    opening = opening or [0] * rules.sides
    for s, items in enumerate(score):
        assert all(v >= 0 for v in items.values())
        assert items["total"] == sum(v for k, v in items.items() if k != "total")
        assert items["scope"] <= plays_by[s] + opening[s]
        assert 0 <= items["total"] <= max_points(rules, plays_by[s]) + opening[s]
        if not rules.re_bello:
            assert items["re_bello"] == 0
        if not rules.napola:
            assert items["napola"] == 0
        else:
            assert items["napola"] in ((0, 3) if rules.napola_scoring == "fixed3" else range(11))
            assert items["napola"] != 1 and items["napola"] != 2
    for key in ("cards", "denari", "settebello", "primiera", "re_bello"):
        assert sum(items[key] for items in score) <= 1
    assert sum(1 for items in score if items["napola"]) <= 1


@pytest.mark.parametrize(("preset", "overrides"), FIFTEEN_RULESETS, ids=FIFTEEN_IDS)
@settings(max_examples=40, deadline=None)
@given(seed=SEEDS)
def test_fifteen_and_free_lays_along_a_hand(
    preset: str, overrides: tuple[str, ...], seed: int
) -> None:
    """RULES.md §9 through the step kernels: with capture_compulsory=false every card of
    the hand is a legal lay; under the fifteen rule every capture makes fifteen with the
    card played, the opening take is the dealer's side's, and the table is never empty
    after the last play (every capture removes a multiple of 15 from a deck worth 220,
    or 212); the cards are conserved throughout."""
    rules = make(preset, overrides)
    full = deck_mask(rules)
    fifteen = rules.capture_mode == "fifteen"
    rng = random.Random(seed)
    dealer = seed % rules.players
    state = HandState.deal(rules, dealer=dealer, seed=seed)
    opening = [0] * rules.sides
    if state.opening:
        assert rules.opening_fifteen and not state.table
        side = rules.side_of(dealer)
        assert state.piles[side] == state.opening and state.last_capturer == side
        assert sum(value_of(c) for c in state.opening) in (15, 30)
        opening[side] = state.scope[side]
        assert opening[side] in (1, 2)
    else:
        assert len(state.table) == rules.table_cards and sum(state.scope) == 0
    plays_by = [0] * rules.sides
    partition_ok(state, full)
    while not state.is_over:
        seat = state.turn
        legal = list(state.legal_plays)
        if not rules.capture_compulsory:
            assert {p.card for p in legal if not p.take} == set(state.hand(seat))
        for p in legal:
            if fifteen and p.take:
                assert value_of(p.card) + sum(value_of(c) for c in CardSet(p.take)) == 15
        play = rng.choice(legal)
        table = state.table.mask
        res = state.push(play)
        plays_by[rules.side_of(seat)] += 1
        if res.last and fifteen:  # the table after the last play (before the remainder)
            assert (table & ~play.take) if play.take else True
            assert not res.scopa
        partition_ok(state, full)
    assert state.plays_made == rules.deck - rules.table_cards
    assert plays_by == plays_per_side(rules)
    check_score(rules, state.score(), plays_by, opening)


@pytest.mark.parametrize(("preset", "overrides"), RULESETS, ids=IDS)
@settings(max_examples=5, deadline=None)
@given(seed=SEEDS)
def test_selfplay_points_are_bounded(preset: str, overrides: tuple[str, ...], seed: int) -> None:
    rules = make(preset, overrides)
    count = 200
    points = np.full((count, 4), -1, dtype=np.int64)
    for policy in (K.POLICY_RANDOM, K.POLICY_GREEDY, K.POLICY_EXPERT):
        policies = np.full(4, policy, dtype=np.int64)
        K.selfplay_hands(rules.to_array(), policies, seed, count, points)
        bounds = [max_points(rules, n) for n in plays_per_side(rules)]
        for s in range(rules.sides):
            assert points[:, s].min() >= 0
            assert points[:, s].max() <= bounds[s]
        # besides scope, at most 4 points (+ re bello, + napola) are shared out per hand
        assert (points[:, : rules.sides].sum(axis=1) <= sum(bounds)).all()


@pytest.mark.parametrize(("preset", "overrides"), RULESETS, ids=IDS)
@settings(max_examples=10, deadline=None)
@given(seed=SEEDS)
def test_same_seed_same_deal(preset: str, overrides: tuple[str, ...], seed: int) -> None:
    rules = make(preset, overrides)
    dealer = seed % rules.players
    a = HandState.deal(rules, dealer=dealer, seed=seed)
    b = HandState.deal(rules, dealer=dealer, seed=seed)
    assert a.table == b.table and a.hands == b.hands
    assert a.stock == b.stock and a.turn == b.turn
    assert a.dealer == dealer and a.turn == (dealer + 1) % rules.players
    assert all(len(h) == rules.hand_size for h in a.hands)
    if rules.kings_redeal:
        assert sum(1 for c in a.table if c % 10 == 9) < 3
    c = HandState.deal(rules, dealer=dealer, seed=seed + 1 if seed < 2**63 - 1 else 0)
    # not a proof of randomness, just that the seed matters
    assert (c.table, c.hands, c.stock) != (a.table, a.hands, a.stock)


@pytest.mark.parametrize("preset", ["scopa", "scopa-3", "scopone", "scopa-4-solo"])
@settings(max_examples=5, deadline=None)
@given(seed=SEEDS, count=st.integers(1, 60), split=st.integers(0, 60))
def test_selfplay_is_deterministic_and_split_free(
    preset: str, seed: int, count: int, split: int
) -> None:
    """Hand h depends only on (seed, h): a call for the first k hands is a prefix of a call
    for more hands, and repeated calls are identical."""
    r = Rules.make(preset).to_array()
    split = min(split, count)
    policies = np.array([K.POLICY_GREEDY, K.POLICY_RANDOM, K.POLICY_EXPERT, K.POLICY_RANDOM])
    first = np.zeros((count, 4), dtype=np.int64)
    again = np.zeros((count, 4), dtype=np.int64)
    prefix = np.zeros((split, 4), dtype=np.int64)
    K.selfplay_hands(r, policies, seed, count, first)
    K.selfplay_hands(r, policies, seed, count, again)
    K.selfplay_hands(r, policies, seed, split, prefix)
    assert np.array_equal(first, again)
    assert np.array_equal(first[:split], prefix)


def test_selfplay_different_seeds_differ() -> None:
    r = Rules.make("scopa").to_array()
    policies = np.zeros(4, dtype=np.int64)
    a = np.zeros((100, 4), dtype=np.int64)
    b = np.zeros((100, 4), dtype=np.int64)
    K.selfplay_hands(r, policies, 1, 100, a)
    K.selfplay_hands(r, policies, 2, 100, b)
    assert not np.array_equal(a, b)


@pytest.mark.parametrize(("preset", "overrides"), RULESETS[:6], ids=IDS[:6])
@settings(max_examples=10, deadline=None)
@given(seed=SEEDS)
def test_pop_undoes_push_at_every_step(preset: str, overrides: tuple[str, ...], seed: int) -> None:
    rules = make(preset, overrides)
    rng = random.Random(seed)
    state = HandState.deal(rules, dealer=seed % rules.players, seed=seed)
    while not state.is_over:
        before = repr(state), state.piles, state.scope, state.stock, state.last_capturer
        legal = list(state.legal_plays)
        for p in rng.sample(legal, min(3, len(legal))):
            state.push(p)
            assert state.pop() == p
            after = repr(state), state.piles, state.scope, state.stock, state.last_capturer
            assert after == before
            assert list(state.legal_plays) == legal
        state.push(rng.choice(legal))
