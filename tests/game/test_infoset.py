"""Information sets and determinization: resampled worlds keep exactly what a seat knows."""

from __future__ import annotations

import random

import numpy as np
import pytest

from scopa_sim import CardSet, Rules
from scopa_sim import _engine as K
from scopa_sim._engine import determinize as KD
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.state import HandState

P = CardSet.parse

PRESETS = ["scopa", "scopa-3", "scopa-4-solo", "scopone", "scopone-scientifico", "scopa-corsa"]


def partition_ok(state: HandState) -> bool:
    """Hands, table, piles and stock hold every card of the deck exactly once."""
    seen = 0
    total = 0
    parts = [*state.hands, state.table, *state.piles, CardSet(state.stock)]
    for cs in parts:
        if seen & cs.mask:
            return False
        seen |= cs.mask
        total += len(cs)
    return seen == int(state._r[K.R_DECK_MASK]) and total == state.rules.deck


@pytest.mark.parametrize("preset", PRESETS)
def test_resampled_worlds_keep_the_information_state(preset: str) -> None:
    """As OpenSpiel's test of resample_from_infostate: at every decision of random
    hands, worlds drawn for the seat to play give it the same information state string,
    partition the deck and give it the same legal plays."""
    rules = Rules.make(preset)
    rnd = random.Random(preset)
    for game in range(2):
        state = HandState.deal(rules, dealer=game % rules.players, seed=rnd.randrange(2**32))
        while not state.is_over:
            seat = state.turn
            info = InfoSet(state)
            text = info.information_state_string()
            legal = list(state.legal_plays)
            for k in range(2):
                world = info.sample(rnd.randrange(2**32) + k)
                assert InfoSet(world, seat).information_state_string() == text
                assert partition_ok(world)
                assert world.hand(seat) == state.hand(seat)
                assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
                assert list(world.legal_plays) == legal
            state.push(rnd.choice(legal))


def test_infoset_does_not_depend_on_hidden_cards() -> None:
    """Two true states that differ only in cards seat 0 cannot see give the same InfoSet
    vector, byte for byte: nothing downstream can read the hidden cards."""
    rules = Rules.make("scopa")
    kw = dict(table=P("4H 7C"), piles=[P("AD 2D"), P("3C 3H")], turn=0, dealer=1)
    a = HandState.from_position(
        rules, hands=[P("5D QC 6S"), P("KD JS 2C")], stock=P("KC 5S 6H 4S").cards(), **kw
    )
    b = HandState.from_position(
        rules, hands=[P("5D QC 6S"), P("6H 5S KC")], stock=P("2C JS KD 4S").cards(), **kw
    )
    ia, ib = InfoSet(a), InfoSet(b)
    assert np.array_equal(ia.vector, ib.vector)
    assert ia.information_state_string() == ib.information_state_string()
    assert "out_of_play" in ia.information_state_string()
    assert ia.unseen == P("KD JS 2C KC 5S 6H 4S")
    assert InfoSet(a, 1).information_state_string() != InfoSet(b, 1).information_state_string()


def test_sampling_is_uniform() -> None:
    """Each unseen card lands in the opponent's hand with probability 3 / 30."""
    rules = Rules.make("scopa")
    state = HandState.deal(rules, seed=11)
    info = InfoSet(state)
    counts: dict[int, int] = dict.fromkeys(info.unseen, 0)
    n = 3000
    rng = np.random.default_rng(5)
    other = 1 - state.turn
    for _ in range(n):
        for c in info.sample(rng).hand(other):
            counts[c] += 1
    expected = n * 3 / 30
    assert all(abs(v - expected) < 5 * expected**0.5 for v in counts.values())


def test_determinize_kernel_and_seeds() -> None:
    """The kernel is deterministic for its stream and keeps the seat's own hand."""
    rules = Rules.make("scopone")
    state = HandState.deal(rules, seed=3)
    r = rules.to_array()
    out = [np.empty(K.N_STATE, dtype=np.int64) for _ in range(3)]
    for o, s in zip(out, (1, 1, 2), strict=True):
        KD.determinize(state._vec, r, 2, K.new_rng(s), o)
    assert np.array_equal(out[0], out[1])
    assert not np.array_equal(out[0], out[2])
    assert out[0][K.S_HANDS + 2] == state._vec[K.S_HANDS + 2]
    assert InfoSet(state, 2).sample(7).hand(2) == state.hand(2)
    with pytest.raises(ValueError, match="seat"):
        InfoSet(state, 4)
