"""The evaluator on Cirulla decisions (RULES.md §10, ``advise --policy eval``): every legal
play (named value, declaration) valued on common worlds of the deciding seat's
information set, the hands shown by a declaration kept, the hidden cards never read,
each world finished by a kernel policy."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.positions import played

from scopa_sim import CardSet, Play, Rules
from scopa_sim import _engine as K
from scopa_sim.bots.evaluate import Evaluator, cirulla_world
from scopa_sim.game.state import HandState

P = CardSet.parse


def _played(rules: Rules, seed: int, plays: int) -> HandState:
    return played(rules, seed, plays, dealer=1, first=True)


def _swap_hidden(state: HandState) -> HandState:
    """The same position as seat ``turn`` knows it, the other (unshown) hands and the
    stock dealt differently."""
    vec = state._vec.copy()
    seat = state.turn
    other = (seat + 1) % state.players
    lo, hi = int(vec[K.S_STOCK]), int(vec[K.S_DECK_SIZE])
    stock = [int(c) for c in vec[K.S_DECK + lo : K.S_DECK + hi]]
    shown = other in state.shown  # a declared hand is known: only the stock moves
    theirs = [] if shown else CardSet(int(vec[K.S_HANDS + other])).cards()
    k = len(theirs)
    pool = sorted(theirs + stock, reverse=True)
    if not shown:
        vec[K.S_HANDS + other] = CardSet(pool[:k]).mask
    dealt = [int(c) for c in vec[K.S_DECK : K.S_DECK + hi] if int(c) not in pool[k:]]
    vec[K.S_DECK : K.S_DECK + hi] = dealt + pool[k:]
    return HandState(state.rules, vec)


@pytest.mark.parametrize(
    ("overrides", "plays"), [({}, 0), ({"matta": "play"}, 3), ({"declare": "auto"}, 7)]
)
def test_values_are_paired_deterministic_and_blind_to_the_hidden_cards(overrides, plays):
    rules = Rules.make("cirulla", overrides)
    state = _played(rules, 21, plays)
    ev = Evaluator(worlds=32)
    e = ev.evaluate(state, seed=4)
    assert list(e.plays) == list(state.legal_plays)
    assert e.values.shape == (32, len(e.plays)) and not e.exact
    assert np.array_equal(e.values, ev.evaluate(state, seed=4).values)
    assert not np.array_equal(e.values, ev.evaluate(state, seed=5).values)
    other = _swap_hidden(state)
    assert other.hand(other.turn) == state.hand(state.turn)
    assert np.array_equal(ev.evaluate(other, seed=4).values, e.values)
    ranked = e.play_stats()
    assert ranked[0].chosen and ranked[0].play == e.plays[e.best]
    assert ranked[0].margin.n == 32


def test_worlds_keep_the_shown_hands_and_deal_the_hidden_cards() -> None:
    """A seat that declared shows its hand: every world keeps it; the other hidden cards
    are dealt again, each hand keeping its size, the cards a partition of the deck."""
    rules = Rules.make("cirulla-3", {"declare": "auto"})
    for seed in range(200):
        state = HandState.deal(rules, dealer=2, seed=seed)
        state.push(state.legal_plays[0])
        if state.shown:
            break
    else:  # pragma: no cover - the seeds above hold a declaring first seat
        raise AssertionError("no declaration")
    seat, shown = state.turn, state.shown[0]
    gen = np.random.default_rng(1)
    hidden = [s for s in range(3) if s not in (seat, shown)]
    moved = False
    for _ in range(20):
        world = HandState(rules, cirulla_world(state, seat, gen))
        assert world.hand(seat) == state.hand(seat)
        assert world.hand(shown) == state.hand(shown)
        assert world.table == state.table and world.piles == state.piles
        for s in hidden:
            assert len(world.hand(s)) == len(state.hand(s))
        cards = [*world.hands, world.table, *world.piles, CardSet(world.stock)]
        assert sum(len(c) for c in cards) == 40
        moved |= any(world.hand(s) != state.hand(s) for s in hidden)
    assert moved


def test_a_sweep_that_scores_is_valued_above_a_lay() -> None:
    """Sanity: with the matta named 1 sweeping the table (a scopa) or laying a card, the
    sweep is worth more."""
    rules = Rules.make("cirulla", {"matta": "play", "declare": "off"})
    hands, table = [P("7H 2S KC"), P("3C 4D 5S")], P("6C 4C JS")
    rest = rules.deck_cards - hands[0] - hands[1] - table
    state = HandState.from_position(rules, hands=hands, table=table, stock=rest.cards()[:24],
                                    strict=False)  # fmt: skip
    e = Evaluator(worlds=64).evaluate(state, seed=0)
    means = dict(zip(e.plays, e.means, strict=True))
    assert means[Play.parse("7H=1 x 6C 4C JS")] > means[Play.parse("2S")] + 0.5


@pytest.mark.parametrize("declare", ["auto", "choice"])
def test_worlds_under_auto_declarations_respect_a_quiet_fresh_hand(declare: str) -> None:
    """Under ``declare=auto`` a seat that played the first card of a deal without
    declaring held a hand that does not qualify: every world deals it such a hand. Under
    ``choice`` keeping quiet says nothing, and some worlds give it a qualifying hand."""
    rules = Rules.make("cirulla", {"declare": declare})
    gen = np.random.default_rng(3)
    qualifying = checked = 0
    for seed in range(40):
        state = HandState.deal(rules, dealer=0, seed=seed)
        first = state.legal_plays[0]
        if first.declaration:
            continue
        state.push(first)  # seat 1 played without declaring; seat 0 to play
        for _ in range(10):
            world = HandState(rules, cirulla_world(state, 0, gen))
            dealt = world.hand(1).mask | 1 << first.card
            points = int(K.declaration_points(dealt, True))
            qualifying += points > 0
            checked += 1
    assert checked > 100
    assert (qualifying == 0) if declare == "auto" else (qualifying > 0)
