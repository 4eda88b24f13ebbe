"""The capture module (scopa_sim/_engine/capture.py) against the step kernels.

The loops list, count and pick a card's captures with the capture module's functions,
while ``legal_plays`` and the fused loop keep written-out twins of some of them
(carving those out measured slower, see the notes there).  These tests hold every form
equal on random positions: the same captures, in the same order, and the same table,
pile, last capturer and scopa after a play.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from scopa_sim import CardSet, Rules
from scopa_sim import _engine as K
from scopa_sim.state import HandState

RULES = [
    ("scopa", ()),
    ("scopa", ("sum_capture=fewest",)),
    ("asso-piglia-tutto", ()),
    ("asso-piglia-tutto", ("ace_sweep_scopa=false", "last_play_scopa=true")),
    ("scopa-corsa", ()),
    ("scopa-36", ()),
]
IDS = [" ".join((p, *o)) for p, o in RULES]


def positions(rules: Rules, seed: int, count: int, max_table: int = K.BIG_TABLE):
    """Random positions with a table of up to ``max_table`` cards (the packed subset
    counts are exact there) and up to 6 cards in the hand to play."""
    rnd = random.Random(seed)
    deck = list(CardSet(int(rules.to_array()[K.R_DECK_MASK])))
    for _ in range(count):
        rnd.shuffle(deck)
        n_hand = rnd.randint(1, 6)
        n_table = rnd.randint(0, max_table)
        hand, table = deck[:n_hand], deck[n_hand : n_hand + n_table]
        other = deck[n_hand + n_table : n_hand + n_table + n_hand - 1]
        stock = deck[n_hand + n_table + n_hand - 1 :][: 2 * rnd.randint(0, 3)]
        yield HandState.from_position(
            rules, hands=[CardSet(hand), CardSet(other)], table=CardSet(table), turn=0,
            stock=stock,
        )  # fmt: skip


def sweep_aces(r: np.ndarray, table: int) -> int:
    return K.ACES if r[K.R_ACE_SWEEP] and table and not table & K.ACES else 0


@pytest.mark.parametrize(("preset", "overrides"), RULES, ids=IDS)
def test_every_form_of_the_capture_rule_lists_the_same_captures(
    preset: str, overrides: tuple[str, ...]
) -> None:
    rules = Rules.make(preset, list(overrides))
    r = rules.to_array()
    fewest = bool(r[K.R_SUM_FEWEST])
    bt = np.empty(K.MAX_PLAYS, np.int64)
    sc = np.empty(K.SCRATCH, np.int64)
    seen = 0
    for state in positions(rules, 1, 400):
        table = state.table.mask
        packed = K.packed_counts(table)
        sa = sweep_aces(r, table)
        plays = [(p.card, p.take) for p in state.legal_plays]
        cards_that_capture = {c for c, t in plays if t}
        for card in state.hand(0):
            legal = [t for c, t in plays if c == card and t]
            listed = [int(t) for t in bt[: K.list_captures(card, table, sa, fewest, bt, sc)]]
            assert listed == legal  # legal_plays' written-out listing, in order
            assert K.count_captures(card, table, packed, sa, fewest) == len(legal)
            assert [
                K.pick_capture(card, j, table, packed, sa, fewest) for j in range(len(legal))
            ] == legal
            k, fsize, same = K.capture_count(card, table, packed, sa, fewest)
            walked = []
            for j in range(k):
                t = K.nth_capture(card, j, table, packed, sa, fsize)
                if same:  # the equal cards, as the expert walks them
                    assert t == same & -same
                    same &= same - 1
                else:
                    assert t == K.capture_at(card, j, table, packed, sa, fsize)
                if t >= 0:
                    walked.append(t)
            assert walked == legal
            assert bool(K.is_capture(card, table, packed, sa)) == bool(legal)
            assert (card in cards_that_capture) == bool(legal)
            if not fewest:
                assert K.card_captures(card, table, packed, sa) == len(legal)
            else:
                assert K.card_captures_fewest(card, table, packed, sa) == len(legal)
            # the fused loop's random pick: its "rare" bit and the equal cards
            rare = int(bool(legal) and not table & int(K.SAME_MASK[card])) << card
            same_cards = table & int(K.SAME_MASK[card])
            for j, t in enumerate(legal):
                got = K.take_of_play(card, j, table, packed, sa, fewest, rare, same_cards)
                assert got == t
            if not legal:
                assert K.take_of_play(card, 0, table, packed, sa, fewest, rare, same_cards) == 0
            seen += len(legal)
    assert seen > 500


@pytest.mark.parametrize(("preset", "overrides"), RULES, ids=IDS)
def test_play_on_table_is_apply_play(preset: str, overrides: tuple[str, ...]) -> None:
    rules = Rules.make(preset, list(overrides))
    r = rules.to_array()
    scopas = 0
    for state in positions(rules, 2, 300):
        table = state.table.mask
        packed = K.packed_counts(table)
        sa = sweep_aces(r, table)
        for play in state.legal_plays:
            after = state.clone()
            res = after.push(play)
            last = res.last
            lc = -1 if state.last_capturer is None else state.last_capturer
            got = K.play_on_table(
                table, packed, state.piles[0].mask, lc, 0, play.card, play.take, sa,
                bool(r[K.R_ACE_SWEEP]), last, bool(r[K.R_LAST_PLAY_SCOPA]),
                bool(r[K.R_ACE_SWEEP_SCOPA]),
            )  # fmt: skip
            new_table, new_packed, pile, last_capturer, scopa = got
            if not last:  # (the last play hands the remainder out)
                assert new_table == after.table.mask
                assert pile == after.piles[0].mask
            assert new_table == table & ~play.take if play.take else table | 1 << play.card
            assert new_packed == K.packed_counts(new_table)
            assert pile == state.piles[0].mask | (play.take | 1 << play.card if play.take else 0)
            assert last_capturer == (0 if play.take else lc)
            assert scopa == int(res.scopa)
            scopas += scopa
            if play.take:
                assert K.packed_without(packed, play.take) == new_packed
    assert scopas > 0
