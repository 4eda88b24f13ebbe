"""The capture module (scopa_sim/_engine/capture.py) against the step kernels.

The loops list, count and pick a card's captures with the capture module's functions,
while ``legal_plays`` and the fused loop keep written-out twins of some of them
(carving those out measured slower, see the notes there).  These tests hold every form
equal on random positions: the same captures, in the same order, and the same table,
pile, last capturer and scopa after a play.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from scopa_sim import CardSet, Rules
from scopa_sim import _engine as K
from scopa_sim.game.state import HandState

RULES = [
    ("scopa", ()),
    ("scopa", ("sum_capture=fewest",)),
    ("asso-piglia-tutto", ()),
    ("asso-piglia-tutto", ("ace_sweep_scopa=false", "last_play_scopa=true")),
    ("scopa-corsa", ()),
    ("scopa-36", ()),
    ("scopa", ("capture_compulsory=false",)),
    ("asso-piglia-tutto", ("capture_compulsory=false", "sum_capture=fewest")),
    ("scopa-15", ()),
    ("scopa-15", ("sum_capture=fewest",)),
    ("scopa-15", ("capture_rule=hand", "deck=36")),
    ("escoba", ()),
]
IDS = [" ".join((p, *o)) for p, o in RULES]


def positions(rules: Rules, seed: int, count: int):
    """Random positions with a table of up to ``BIG_TABLE`` cards (``BIG_TABLE15`` under
    the fifteen rule: the packed subset counts are exact there) and up to 6 cards in the
    hand to play."""
    max_table = K.BIG_TABLE15 if rules.capture_mode == "fifteen" else K.BIG_TABLE
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


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "overrides"), RULES, ids=IDS)
def test_every_form_of_the_capture_rule_lists_the_same_captures(
    preset: str, overrides: tuple[str, ...]
) -> None:
    rules = Rules.make(preset, list(overrides))
    r = rules.to_array()
    fewest = bool(r[K.R_SUM_FEWEST])
    fifteen = rules.capture_mode == "fifteen"
    optional = not rules.capture_compulsory
    bt = np.empty(K.MAX_PLAYS, np.int64)
    sc = np.empty(K.SCRATCH, np.int64)
    seen = 0
    for state in positions(rules, 1, 400):
        table = state.table.mask
        lo, hi = K.packed_of(table, fifteen)
        if not fifteen:
            assert hi == 0 and lo == K.packed_counts(table)
        sa = sweep_aces(r, table)
        plays = [(p.card, p.take) for p in state.legal_plays]
        cards_that_capture = {c for c, t in plays if t}
        for card in state.hand(0):
            legal = [t for c, t in plays if c == card and t]
            laid = optional or not (legal or (r[K.R_CAPTURE_HAND] and cards_that_capture))
            assert ((card, 0) in plays) == laid
            if laid:  # the lay comes after the card's captures
                assert [p for p in plays if p[0] == card][-1] == (card, 0)
            n = K.list_captures(card, table, sa, fewest, fifteen, bt, sc)
            assert [int(t) for t in bt[:n]] == legal  # legal_plays' twin, in order
            assert K.count_captures(card, table, lo, hi, sa, fewest, fifteen) == len(legal)
            assert [
                K.pick_capture(card, j, table, lo, hi, sa, fewest, fifteen)
                for j in range(len(legal))
            ] == legal
            k, fsize, same = K.capture_count(card, table, lo, hi, sa, fewest, fifteen)
            walked = []
            for j in range(k):
                t = K.nth_capture(card, j, table, lo, hi, sa, fsize, fifteen)
                if same:  # the equal cards, as the expert walks them
                    assert t == same & -same
                    same &= same - 1
                else:
                    assert t == K.capture_at(card, j, table, lo, hi, sa, fsize, fifteen)
                if t >= 0:
                    walked.append(t)
            assert walked == legal
            assert (card in cards_that_capture) == bool(legal)
            plays_of = legal + ([0] if optional or not legal else [])
            if fifteen:
                for j, t in enumerate(plays_of):
                    assert K.take_of_play15(card, j, table, lo, hi, fewest) == t
                continue
            assert bool(K.is_capture(card, table, lo, sa)) == bool(legal)
            if not fewest:
                assert K.card_captures(card, table, lo, sa) == len(legal)
            else:
                assert K.card_captures_fewest(card, table, lo, sa) == len(legal)
            # the fused loop's random pick: its "rare" bit and the equal cards
            rare = int(bool(legal) and not table & int(K.SAME_MASK[card])) << card
            same_cards = table & int(K.SAME_MASK[card])
            for j, t in enumerate(plays_of):
                got = K.take_of_play(card, j, table, lo, sa, fewest, rare, same_cards, optional)
                assert got == t
            seen += len(legal)
    assert seen > 500 or fifteen


@pytest.mark.parametrize(("preset", "overrides"), RULES, ids=IDS)
def test_play_on_table_is_apply_play(preset: str, overrides: tuple[str, ...]) -> None:
    rules = Rules.make(preset, list(overrides))
    r = rules.to_array()
    fifteen = rules.capture_mode == "fifteen"
    scopas = 0
    for state in positions(rules, 2, 300):
        table = state.table.mask
        lo, hi = K.packed_of(table, fifteen)
        sa = sweep_aces(r, table)
        for play in state.legal_plays:
            after = state.clone()
            res = after.push(play)
            last = res.last
            lc = -1 if state.last_capturer is None else state.last_capturer
            got = K.play_on_table(
                table, lo, hi, state.piles[0].mask, lc, 0, play.card, play.take, sa,
                bool(r[K.R_ACE_SWEEP]), last, bool(r[K.R_LAST_PLAY_SCOPA]),
                bool(r[K.R_ACE_SWEEP_SCOPA]), fifteen,
            )  # fmt: skip
            new_table, new_lo, new_hi, pile, last_capturer, scopa = got
            if not last:  # (the last play hands the remainder out)
                assert new_table == after.table.mask
                assert pile == after.piles[0].mask
            assert new_table == table & ~play.take if play.take else table | 1 << play.card
            assert (new_lo, new_hi) == K.packed_of(new_table, fifteen)
            assert pile == state.piles[0].mask | (play.take | 1 << play.card if play.take else 0)
            assert last_capturer == (0 if play.take else lc)
            assert scopa == int(res.scopa)
            scopas += scopa
            if play.take:
                assert K.packed_without(lo, hi, play.take, fifteen) == (new_lo, new_hi)
    assert scopas > 0


def _largest_lane(cards: int) -> int:
    """The largest number of sets of one sum 0..14 over every table of ``cards`` cards of
    a deck (at most four of a value): a plain count over the tables' value multisets,
    value by value, carrying the subset counts of the sums 0..14."""

    def best(v: int, left: int, counts: tuple[int, ...]) -> int:
        if v > 10:
            return max(counts) if left == 0 else 0
        top = 0
        for n in range(min(4, left) + 1):
            more = tuple(
                sum(math.comb(n, j) * counts[s - j * v] for j in range(n + 1) if s >= j * v)
                for s in range(15)
            )
            top = max(top, best(v + 1, left - n, more))
        return top

    return best(1, cards, (1,) + (0,) * 14)


@pytest.mark.slow
def test_the_fifteen_rules_packed_counts_fit_their_lanes_up_to_big_table15() -> None:
    """The two-word packed counts keep 8 bits a sum: exact for every table of up to
    BIG_TABLE15 cards, and BIG_TABLE15 is the largest size for which that holds."""
    assert _largest_lane(K.BIG_TABLE15) == 227 < 256
    assert _largest_lane(K.BIG_TABLE15 + 1) == 426 >= 256


def test_the_fifteen_rules_ranking_lists_the_sets_in_sum_captures_order() -> None:
    """sum_take15's three paths give the sets sum_captures lists, in its order, on random
    tables of up to BIG_TABLE15 cards and every sum 1..14: the table of ranks when the
    candidates' values are distinct (RANK15_SETS), the ranking on 4-bit counts (when
    every count up to the sum is below 16) and _set_at on the two-word counts; each path
    is met."""
    rnd = random.Random(5)
    deck = list(range(40))
    buf = np.zeros(K.MAX_PLAYS, np.int64)
    sc = np.zeros(K.SCRATCH, np.int64)
    distinct = fast = slow = 0
    for _ in range(1500):
        rnd.shuffle(deck)
        table = sum(1 << c for c in deck[: rnd.randint(1, K.BIG_TABLE15)])
        lo, hi = K.packed_of(table, True)
        for t in range(1, 15):
            n = K.sum_captures(table, t, 10, False, buf, 0, sc)
            got = [int(K.sum_take15(table, lo, hi, t, r)) for r in range(K.lane(lo, hi, t, True))]
            assert got == [int(x) for x in buf[:n]]
            cand = [c for c in range(40) if (table >> c) & 1 and c % 10 + 1 <= t]
            if len({c % 10 for c in cand}) == len(cand):
                distinct += n > 0
            elif all(K.lane(lo, hi, s, True) < 16 for s in range(t + 1)):
                fast += n > 0
            else:
                slow += n > 0
    assert distinct > 1000 and fast > 1000 and slow > 10


def test_the_one_word_packed_counts_fit_their_lanes_up_to_big_table4() -> None:
    """The one-word packed counts keep 4 bits a sum: exact for every table of up to
    BIG_TABLE4 cards, and BIG_TABLE4 is the largest size for which that holds."""
    assert _largest_lane(K.BIG_TABLE4) == 14 < 16
    assert _largest_lane(K.BIG_TABLE4 + 1) == 24 >= 16


def test_the_one_word_packed_counts_follow_the_cards_and_rank_the_sets() -> None:
    """packed4_of, GROW4 and SHRINK4 (cards joining and leaving, past BIG_TABLE4 cards
    and back) give the two-word counts' lanes on every table of up to BIG_TABLE4 cards,
    and sum_take4 the sets sum_captures lists, in its order, for every sum 1..14; both
    of its paths (one card a value, and the ranking) are met."""
    rnd = random.Random(7)
    deck = list(range(40))
    buf = np.zeros(K.MAX_PLAYS, np.int64)
    sc = np.zeros(K.SCRATCH, np.int64)
    distinct = ranked = 0
    for _ in range(1500):
        rnd.shuffle(deck)
        n = rnd.randint(0, K.BIG_TABLE4 + 3)
        table = sum(1 << c for c in deck[:n])
        p = K.packed4_of(table)
        for c in deck[: min(n, max(0, n - K.BIG_TABLE4) + rnd.randint(0, 2))]:  # back to <= 6
            table &= ~(1 << c)
            p = (int(p) * int(K.SHRINK4[K.VALUE[c]])) % (1 << 64)
        p = p - (1 << 64) if p >> 63 else p
        assert p == K.packed4_of(table)
        lo, hi = K.packed_of(table, True)
        assert [K.lane4(p, s) for s in range(15)] == [K.lane(lo, hi, s, True) for s in range(15)]
        for t in range(1, 15):
            n = K.sum_captures(table, t, 10, False, buf, 0, sc)
            got = [int(K.sum_take4(table, p, t, r)) for r in range(K.lane4(p, t))]
            assert got == [int(x) for x in buf[:n]]
            cand = [c for c in range(40) if (table >> c) & 1 and c % 10 + 1 <= t]
            if len({c % 10 for c in cand}) == len(cand):
                distinct += n > 0
            else:
                ranked += n > 0
    assert distinct > 1000 and ranked > 500


def test_the_fifteen_rules_table_of_ranks_holds_every_set_of_distinct_values() -> None:
    """RANK15_SETS: for every mask of values and sum 1..14, exactly the subsets of the
    mask adding up to the sum, each once, a set holding the lower value where two differ
    first (checked against a plain enumeration)."""
    total = {s: sum(v for v in range(1, 11) if (s >> (v - 1)) & 1) for s in range(1, 1024)}
    for m in range(1024):
        subsets = [s for s in total if s & ~m == 0]
        for t in range(1, 15):
            want = sorted(
                (s for s in subsets if total[s] == t),
                key=lambda s: [-((s >> i) & 1) for i in range(10)],
            )
            a, b = K.RANK15_START[16 * m + t], K.RANK15_START[16 * m + t + 1]
            assert [int(x) for x in K.RANK15_SETS[a:b]] == want
