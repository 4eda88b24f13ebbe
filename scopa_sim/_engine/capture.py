"""The capture rule: counting, enumerating and picking the captures of a card.

This is the one place a game's capture rule lives: Scopa's (RULES.md §4: an ace sweep,
else a match, else sums of two or more cards) and the sum-to-fifteen family's
(``capture_mode=fifteen``, §9: any set of one or more table cards adding up to fifteen
with the card played).  The step kernels (:mod:`.step`) list captures with
:func:`sum_captures` (guarded by the table's subset-sum bitset, :func:`table_reach`);
the jitted loops (:mod:`.fused`, :mod:`.ismcts`) and the expert (:mod:`.policy`) count
and pick them from the table's *packed subset counts* (see ``GROW`` and ``GROW15``), so
only the chosen play is ever built.  Functions that serve both rules take ``fifteen``,
a compile-time constant in the loops, so that each rule compiles to its own code.
Cirulla's rule (``capture_mode=cirulla``, §10: the ace sweep, the match, sums and
fifteens, the matta's named value) has functions of its own at the end, for its own step
kernels (:func:`.step.legal_plays_cirulla`), so that the others compile as before.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz, mul128, popcount
from .layout import ACES, MATTA_BIT, SAME_MASK, VALUE, VALUE_MASK

__all__ = [
    "BIG_TABLE",
    "BIG_TABLE4",
    "BIG_TABLE15",
    "BY_VALUE_BIT",
    "BY_VALUE_CARD",
    "GROW",
    "GROW4",
    "GROW15_HI",
    "GROW15_LO",
    "GROW_SHRINK",
    "HI15",
    "LANE15_BITS",
    "LANES",
    "LANE_BITS",
    "LANE_SHIFT",
    "LOWER_VALUES",
    "RANK15_SETS",
    "RANK15_START",
    "REACH10",
    "REACH15",
    "SHRINK",
    "SHRINK4",
    "SHRINK15_HI",
    "SHRINK15_LO",
    "UP_TO_VALUE",
    "add_captures",
    "add_captures_cirulla",
    "add_matta_captures",
    "capture_at",
    "capture_count",
    "card_captures",
    "card_captures_fewest",
    "cirulla_scores",
    "count_captures",
    "declaration_points",
    "fewest_sums",
    "fewest_sums15",
    "fewest_take",
    "fewest_take15",
    "is_capture",
    "lane",
    "lane4",
    "list_captures",
    "nth_capture",
    "opening_count",
    "opening_take",
    "packed4_of",
    "packed_counts",
    "packed_join",
    "packed_leave",
    "packed_of",
    "packed_without",
    "pick_capture",
    "play_on_table",
    "reach_mask",
    "remainder_side",
    "subset_sums",
    "sum_captures",
    "sum_take",
    "sum_take4",
    "sum_take15",
    "table_reach",
    "take_of_play",
    "take_of_play15",
    "value_sum",
]


# --------------------------------------------------------------------------- listing captures
@njit(cache=True)
def sum_captures(table, target, top, fewest, out_take, n, scratch):
    """Append to ``out_take[n:]`` every set of table cards of value at most ``top`` whose
    values add to ``target`` (only the smallest sets with ``fewest``); return the new
    count.  Scopa's sum captures of a card of value ``v`` are ``(target, top) = (v, v -
    1)`` (so two or more cards), the fifteen rule's ``(15 - v, 10)``.

    The sets come in depth-first order over the candidates sorted by (value, card).
    ``scratch`` holds at least ``SCRATCH`` int64 (candidates, their values, the stack).
    """
    k = 0
    for val in range(1, top + 1):  # ascending values, so the search can prune
        m = table & VALUE_MASK[val]
        while m:
            scratch[k] = ctz(m)
            scratch[40 + k] = val
            m &= m - 1
            k += 1
    start = n
    best = 99
    depth = 0
    i = 0
    s = 0
    cur = np.int64(0)
    while True:
        if i < k and s + scratch[40 + i] <= target:
            scratch[80 + depth] = i
            depth += 1
            s += scratch[40 + i]
            cur |= np.int64(1) << scratch[i]
            if s == target:
                if not fewest or depth <= best:
                    if fewest and depth < best:
                        best = depth
                        n = start
                    out_take[n] = cur
                    n += 1
                depth -= 1
                j = scratch[80 + depth]
                s -= scratch[40 + j]
                cur ^= np.int64(1) << scratch[j]
                i = j + 1
            else:
                i += 1
        else:
            if depth == 0:
                break
            depth -= 1
            j = scratch[80 + depth]
            s -= scratch[40 + j]
            cur ^= np.int64(1) << scratch[j]
            i = j + 1
    return n


#: The bits of the subset-sum bitset that Scopa's rule reads (sums 0..10) and that the
#: fifteen rule reads (sums 0..14).
REACH10 = (1 << 11) - 1
REACH15 = (1 << 15) - 1


@njit(cache=True)
def subset_sums(table):
    """Every subset sum of the table's values below 64 as a bitset (bit 0 the empty set);
    a capture rule reads it through its mask (:data:`REACH10`, :data:`REACH15`)."""
    reach = np.int64(1)
    m = table
    while m:
        reach |= reach << VALUE[ctz(m)]
        m &= m - 1
    return reach


@njit(cache=True)
def reach_mask(fifteen):
    """The subset sums a capture rule reads (``S_REACH``): up to 10 under Scopa's (a sum
    capture takes a card's value, at most 10), up to 14 under the fifteen rule (the
    table's part of a fifteen)."""
    return REACH15 if fifteen else REACH10


@njit(cache=True)
def table_reach(table, fifteen):
    """The table's subset sums under the capture rule (:func:`reach_mask`) as a bitset;
    bit 0 is the empty set."""
    return subset_sums(table) & reach_mask(fifteen)


# --------------------------------------------------------------------------- packed subset counts
# The fused kernel keeps, for the table, the number of its subsets with each value sum
# s = 0..10 packed in one int64, 5 bits per sum ("lanes"): the coefficients of the
# polynomial prod(1 + x**value) over the table cards, evaluated at x = 2**5.  A card
# joining the table multiplies it by (1 + x**v), a card leaving by the inverse series
# 1 - x**v + x**2v - ... (mod x**11); both are one wrapping integer multiply and a mask,
# exact as long as every true count fits its lane.  They do in any position reached by
# play from a deal: only the (at most 4) cards dealt to the table can repeat a value, a
# laid card's value is neither on the table nor a subset sum of it (else it would have
# to capture), and an exhaustive search of the tables so reachable (allowing any card to
# leave at any time) gives at most 26 subsets for any sum.  The count of sum captures of
# a card of value v with no equal card on the table is then simply lane v.
LANE_BITS = 5
LANES = (1 << (11 * LANE_BITS)) - 1


def _wrap64(x: int) -> int:
    x %= 1 << 64
    return x - (1 << 64) if x >= 1 << 63 else x


#: GROW[v]: multiplier of the packed subset counts for a card of value v joining the table.
GROW = np.array([0] + [1 + (1 << (LANE_BITS * v)) for v in range(1, 11)], dtype=np.int64)
#: SHRINK[v]: multiplier for a card of value v leaving the table (inverse of GROW[v]).
SHRINK = np.array(
    [0]
    + [
        _wrap64(sum((-1) ** k << (LANE_BITS * v * k) for k in range(10 // v + 1)))
        for v in range(1, 11)
    ],
    dtype=np.int64,
)
#: GROW then SHRINK by card: ``GROW_SHRINK[card + 64 * leaving]`` (one load, not two).
GROW_SHRINK = np.array(
    [GROW[c % 10 + 1] if c < 40 else 0 for c in range(64)]
    + [SHRINK[c % 10 + 1] if c < 40 else 0 for c in range(64)],
    dtype=np.int64,
)
#: LANE_SHIFT[card]: shift of its value's lane in the packed counts.
LANE_SHIFT = np.array([LANE_BITS * (c % 10 + 1) for c in range(40)], dtype=np.int64)
#: Bit of each card in a table mask ordered by (value, card): bit 4 * rank + suit.
BY_VALUE_BIT = np.array([1 << (4 * (c % 10) + c // 10) for c in range(40)], dtype=np.int64)
#: LOWER_VALUES[v]: the cards of value below v.
LOWER_VALUES = np.array(
    [sum(ACES << (u - 1) for u in range(1, v)) for v in range(11)], dtype=np.int64
)
#: The card of each bit of such a mask.
BY_VALUE_CARD = np.array([10 * (i % 4) + i // 4 for i in range(40)], dtype=np.int64)


@njit(cache=True, inline="always")
def value_sum(cards):
    """Sum of the capture values of a card mask (branch-free)."""
    total = 0
    for v in range(1, 11):
        total += v * popcount(cards & VALUE_MASK[v])
    return total


@njit(cache=True, inline="always")
def card_captures(card, table, packed, sweep_aces):
    """Number of distinct captures of ``card`` (0: it can only be laid) with
    ``sum_capture=any``, from the table, its packed subset counts and ``sweep_aces``
    (``ACES`` when an ace would sweep the table, else 0); branch-free."""
    same = table & SAME_MASK[card]
    sums = (packed >> LANE_SHIFT[card]) & 31
    return popcount(same) + sums * (same == 0) + ((sweep_aces >> card) & 1)


@njit(cache=True, inline="always")
def is_capture(card, table, packed, sweep_aces):
    """Whether ``card`` can capture (see :func:`card_captures`)."""
    return (
        ((table & SAME_MASK[card]) != 0)
        | (((packed >> LANE_SHIFT[card]) & 31) != 0)
        | (((sweep_aces >> card) & 1) != 0)
    )


@njit(cache=True)
def card_captures_fewest(card, table, packed, sweep_aces):
    """:func:`card_captures` with ``sum_capture=fewest``."""
    v = VALUE[card]
    if (sweep_aces >> card) & 1:
        return 1
    same = table & VALUE_MASK[v]
    if same:
        return popcount(same)
    if (packed >> (LANE_BITS * v)) & 31:
        return fewest_sums(table, packed, v)[0]
    return 0


@njit(cache=True, inline="always")
def packed_counts(table):
    """The table's packed subset counts (see ``GROW``) computed from scratch."""
    packed = np.int64(1)
    m = table
    while m:
        packed = (packed * GROW[VALUE[ctz(m)]]) & LANES
        m &= m - 1
    return packed


# --------------------------------------------------------------------------- packed counts, fifteen
# The fifteen rule needs the subset counts of the sums 0..14 (a card of value v takes
# the sets adding up to 15 - v >= 5) and, with no match priority, larger counts: they
# are kept in 8-bit lanes over two words, ``lo`` holding the sums 0..7 and ``hi`` the
# sums 8..14, i.e. prod(1 + x**value) at x = 2**8 modulo 2**120, joined and left by
# 128-bit multiplies (``mul128``).  The value stays exact modulo 2**120 through any
# sequence of joins and leaves (the multipliers are inverse), and its lanes are the true
# counts whenever each is below 256, which holds for any table of at most
# ``BIG_TABLE15`` = 11 cards: over every table of 11 cards of a deck (at most four cards
# of a value), the largest count of sets with one sum up to 14 is 227 (four aces, four
# twos, three threes); with 12 cards it is 426 (``tests/engine/test_capture.py`` enumerates both).
# Larger tables (possible with capture_compulsory=false) list their captures instead.
LANE15_BITS = 8
#: The bits of ``hi`` that hold lanes (sums 8..14).
HI15 = (1 << 56) - 1
BIG_TABLE15 = 11


def _words(x: int) -> tuple[int, int]:
    """A number below 2**120 as (lo, hi) int64 words of the two-word packed counts."""
    x %= 1 << 120
    return _wrap64(x & ((1 << 64) - 1)), x >> 64


#: GROW15_LO/HI[v]: the multiplier (lo and hi words) for a card of value v joining.
GROW15_LO = np.array([0] + [_words(1 + (1 << (8 * v)))[0] for v in range(1, 11)], np.int64)
GROW15_HI = np.array([0] + [_words(1 + (1 << (8 * v)))[1] for v in range(1, 11)], np.int64)
#: SHRINK15_LO/HI[v]: its inverse modulo 2**120, for a card of value v leaving.
SHRINK15_LO = np.array(
    [0] + [_words(pow(1 + (1 << (8 * v)), -1, 1 << 120))[0] for v in range(1, 11)], np.int64
)
SHRINK15_HI = np.array(
    [0] + [_words(pow(1 + (1 << (8 * v)), -1, 1 << 120))[1] for v in range(1, 11)], np.int64
)
#: UP_TO_VALUE[t]: the cards of value at most t (t = 0..14).
UP_TO_VALUE = np.array(
    [sum(ACES << (u - 1) for u in range(1, min(t, 10) + 1)) for t in range(15)], dtype=np.int64
)


@njit(cache=True, inline="always")
def lane(lo, hi, s, fifteen):
    """The number of subsets of the table adding up to ``s`` from its packed counts
    (``hi``: the second word, fifteen rule only)."""
    if fifteen:
        return ((hi if s >= 8 else lo) >> (8 * (s & 7))) & 255
    return (lo >> (LANE_BITS * s)) & 31


@njit(cache=True, inline="always")
def packed_join(lo, hi, v, fifteen):
    """The packed counts once a card of value ``v`` joins the table."""
    if fifteen:
        lo, hi = mul128(lo, hi, GROW15_LO[v], GROW15_HI[v])
        return lo, hi & HI15
    return (lo * GROW[v]) & LANES, hi


@njit(cache=True, inline="always")
def packed_leave(lo, hi, v, fifteen):
    """The packed counts once a card of value ``v`` leaves the table."""
    if fifteen:
        lo, hi = mul128(lo, hi, SHRINK15_LO[v], SHRINK15_HI[v])
        return lo, hi & HI15
    return (lo * SHRINK[v]) & LANES, hi


@njit(cache=True, inline="always")
def packed_of(table, fifteen):
    """The packed counts ``(lo, hi)`` of a table computed from scratch."""
    lo = np.int64(1)
    hi = np.int64(0)
    m = table
    while m:
        lo, hi = packed_join(lo, hi, VALUE[ctz(m)], fifteen)
        m &= m - 1
    return lo, hi


@njit(cache=True, inline="always")
def packed_without(lo, hi, cards, fifteen):
    """The packed counts of a table once ``cards`` have left it."""
    m = cards
    while m:
        lo, hi = packed_leave(lo, hi, VALUE[ctz(m)], fifteen)
        m &= m - 1
    return lo, hi


@njit(cache=True, inline="always")
def _set_at(table, lo, hi, cand, t, r, fifteen):
    """The ``r``-th (from 0) set of the candidates ``cand`` (table cards) with values
    adding to ``t``, in :func:`sum_captures` order, from the table's packed counts.

    The order is lexicographic over candidates sorted by (value, card); the sets that go
    on with a candidate are counted from the packed counts of the candidates after it
    (the table's other cards add nothing to the sums that matter).
    """
    by_value = np.int64(0)
    m = cand
    while m:
        by_value |= BY_VALUE_BIT[ctz(m)]
        m &= m - 1
    take = np.int64(0)
    while by_value:
        i = ctz(by_value)
        by_value &= by_value - 1
        u = (i >> 2) + 1
        lo, hi = packed_leave(lo, hi, u, fifteen)  # the candidates after this one
        if fifteen and u > t:  # no set goes on (never reached for a valid r)
            break
        with_it = 1 if u == t else lane(lo, hi, t - u, fifteen)
        if r < with_it:
            take |= np.int64(1) << BY_VALUE_CARD[i]
            t -= u
            if t == 0:
                break
        else:
            r -= with_it
    return take


@njit(cache=True)
def sum_take(table, packed, v, r):
    """The ``r``-th (from 0) set of >= 2 table cards with values adding to ``v``, in the
    order of :func:`sum_captures`, from the table and its packed subset counts (no table
    card may have value ``v``)."""
    return _set_at(table, packed, np.int64(0), table & LOWER_VALUES[v], v, r, False)


#: The fifteen rule's ranking on one word (:func:`sum_take15`): SHRINK4[v], the inverse of
#: 1 + 16**v modulo 2**64 (a card of value v leaving counts kept 4 bits a sum).
SHRINK4 = np.array(
    [0] + [_wrap64(pow(1 + (1 << (4 * v)), -1, 1 << 64)) for v in range(1, 11)], np.int64
)
#: NIBBLE_HIGH_LO/HI[t]: the high 4 bits of the lanes of the sums 0..t in the two words.
NIBBLE_HIGH_LO = np.array(
    [_wrap64(sum(0xF0 << (8 * s) for s in range(min(t, 7) + 1))) for t in range(15)], np.int64
)
NIBBLE_HIGH_HI = np.array(
    [_wrap64(sum(0xF0 << (8 * (s - 8)) for s in range(8, t + 1))) for t in range(15)], np.int64
)
#: BY_VALUE_OF_SUIT[m]: the (value, card) order bits (``BY_VALUE_BIT``) of the cards of
#: suit 0 in the 10-bit mask m; suit k's are these shifted by k.
BY_VALUE_OF_SUIT = np.array(
    [sum(1 << (4 * i) for i in range(10) if (m >> i) & 1) for m in range(1024)], np.int64
)


def _distinct_ranks() -> tuple[np.ndarray, np.ndarray]:
    """The sets :func:`sum_take15` ranks on a table whose candidates have distinct values,
    by their values: ``RANK15_SETS[RANK15_START[16 * m + t] + r]`` is the ``r``-th (from 0)
    set (a mask of values, bit ``v - 1`` for value ``v``) of the values in the mask ``m``
    adding up to ``t`` (1..14), in :func:`sum_captures` order: a set that holds the lowest
    value where two sets differ comes first."""
    masks = np.arange(1024)
    bits = (masks[:, None] >> np.arange(10)) & 1
    sums = bits @ np.arange(1, 11)
    keys = bits @ (1 << (9 - np.arange(10)))  # value 1 the most significant
    small = masks[(sums <= 14) & (masks > 0)]
    start = np.zeros(1024 * 16, np.int16)
    sets: list[np.ndarray] = []
    n = 0
    for m in range(1024):
        sub = small[(small & ~m) == 0]
        sub = sub[np.lexsort((-keys[sub], sums[sub]))]
        start[16 * m : 16 * m + 16] = n + np.searchsorted(sums[sub], np.arange(16))
        sets.append(sub)
        n += sub.shape[0]
    return start, np.concatenate(sets).astype(np.int16)


RANK15_START, RANK15_SETS = _distinct_ranks()


@njit(cache=True, inline="always")
def _nibbles(x):
    """The low 4 bits of each of the 8 bytes of ``x``, packed into 32 bits."""
    x &= 0x0F0F0F0F0F0F0F0F
    x = (x | (x >> 4)) & 0x00FF00FF00FF00FF
    x = (x | (x >> 8)) & 0x0000FFFF0000FFFF
    return (x | (x >> 16)) & 0xFFFFFFFF


@njit(cache=True, inline="always")
def _candidates(table, t):
    """The cards of ``table`` a set adding up to ``t`` can hold (those worth at most
    ``t``), the mask of their values (bit ``v - 1`` for value ``v``) and whether they hold
    one card a value."""
    cand = table & UP_TO_VALUE[t]
    values = (cand | (cand >> 10) | (cand >> 20) | (cand >> 30)) & 1023
    return cand, values, popcount(values) == popcount(cand)


@njit(cache=True, inline="always")
def _distinct_take(cand, values, t, r):
    """The ``r``-th set adding up to ``t`` of the candidates ``cand``, which hold one card
    a value (``values``: the mask of their values), read from :data:`RANK15_SETS`."""
    s = np.int64(RANK15_SETS[RANK15_START[(values << 4) | t] + r])
    return cand & (s | (s << 10) | (s << 20) | (s << 30))


@njit(cache=True, inline="always")
def _rank4(cand, p, t, r):
    """The ``r``-th set adding up to ``t`` of the candidates ``cand`` from the counts
    ``p`` of the sums 0..t kept 4 bits a sum in one word (each below 16)."""
    order = (
        BY_VALUE_OF_SUIT[cand & 1023]
        | (BY_VALUE_OF_SUIT[(cand >> 10) & 1023] << 1)
        | (BY_VALUE_OF_SUIT[(cand >> 20) & 1023] << 2)
        | (BY_VALUE_OF_SUIT[(cand >> 30) & 1023] << 3)
    )
    shift = 4 * t
    take = np.int64(0)
    while order:
        i = ctz(order)
        order &= order - 1
        u = (i >> 2) + 1
        p = p * SHRINK4[u]  # the candidates after this one
        with_it = ((p << (4 * u)) >> shift) & 15
        taken = r < with_it
        take |= np.int64(taken) << BY_VALUE_CARD[i]
        shift = shift - 4 * u if taken else shift
        r = r if taken else r - with_it
    return take


@njit(cache=True)
def sum_take15(table, lo, hi, t, r):
    """The ``r``-th (from 0) set of one or more table cards with values adding to ``t``,
    in :func:`sum_captures` order, from the table and its two-word packed counts (the
    fifteen rule's :func:`sum_take`).

    When every count of a sum up to ``t`` is below 16 (all but about 1 call in 2,000 of
    random escoba), the ranking runs on those counts kept 4 bits a sum in one word: a card
    leaving is one 64-bit multiply, and the sets that go on with a candidate are read at
    the fixed lane ``t`` of the counts shifted up by its value (which gives 1 for a
    candidate worth what is left and 0 for one worth more, with no branch), so a step of
    the loop's chain is a shift, a compare and a select.  Modulo 2**(4 (t + 1)) the
    product only depends on the lanes 0..t, so the larger lanes do not matter.  Measured
    0.58 of :func:`_set_at`'s time on the ranking calls of random escoba self-play.

    When the candidates (the table's cards worth at most ``t``) hold one card a value,
    the set is read from :data:`RANK15_SETS` by the mask of their values (72 KB of
    tables): random Cirulla self-play 1.04 times as fast [95% CI 1.00, 1.08] (12 paired
    runs in fresh processes; random escoba unchanged).
    """
    cand, values, distinct = _candidates(table, t)
    if distinct:  # one card a value: the set from the table
        return _distinct_take(cand, values, t, r)
    if (lo & NIBBLE_HIGH_LO[t]) | (hi & NIBBLE_HIGH_HI[t]):
        return _set_at(table, lo, hi, cand, t, r, True)
    return _rank4(cand, _nibbles(lo) | (_nibbles(hi) << 32), t, r)


# ------------------------------------------------------------------------ packed counts, one word
# Tables of at most ``BIG_TABLE4`` = 6 cards (nearly all of Cirulla's) keep the subset
# counts of the sums 0..14 in 4-bit lanes of one word, prod(1 + x**value) at x = 2**4
# modulo 2**64: a card joins or leaves by one 64-bit multiply (``GROW4``, ``SHRINK4``).
# As with the two words, the value stays exact modulo 2**64 through any sequence of
# joins and leaves, and its lanes of the sums 0..14 are the true counts whenever each is
# below 16, which holds for every table of at most 6 cards of a deck (the largest count
# is 14: four aces and two twos); with 7 cards it is 24 (``tests/engine/test_capture.py``).
BIG_TABLE4 = 6
#: GROW4[v]: the multiplier of the one-word counts for a card of value v joining.
GROW4 = np.array([0] + [_wrap64(1 + (1 << (4 * v))) for v in range(1, 11)], np.int64)


@njit(cache=True, inline="always")
def packed4_of(table):
    """The one-word packed counts (4 bits a sum) of a table, computed from scratch."""
    p = np.int64(1)
    m = table
    while m:
        p = p * GROW4[VALUE[ctz(m)]]
        m &= m - 1
    return p


@njit(cache=True, inline="always")
def lane4(p, s):
    """The number of subsets adding up to ``s`` (0..14) of a table of at most
    :data:`BIG_TABLE4` cards, from its one-word packed counts ``p``."""
    return (p >> (4 * s)) & 15


@njit(cache=True, inline="always")
def sum_take4(table, p, t, r):
    """:func:`sum_take15` from the one-word packed counts ``p`` of a table of at most
    :data:`BIG_TABLE4` cards: the ``r``-th (from 0) set of one or more table cards with
    values adding to ``t`` (1..14), in :func:`sum_captures` order. Inlined into its caller
    (Cirulla's loop: 1.015 times as fast as the call)."""
    cand, values, distinct = _candidates(table, t)
    if distinct:  # one card a value: the set from the table
        return _distinct_take(cand, values, t, r)
    return _rank4(cand, p, t, r)


@njit(cache=True, inline="always")
def _fewest(table, lo, hi, t, fifteen):
    """Number of the smallest sets adding up to ``t`` (a card's sum captures) and their
    size."""
    n = lane(lo, hi, t, fifteen)
    best = 99
    count = 0
    for r in range(n):
        x = sum_take15(table, lo, hi, t, r) if fifteen else sum_take(table, lo, t, r)
        size = popcount(x)
        if size < best:
            best = size
            count = 0
        if size == best:
            count += 1
    return count, best


@njit(cache=True, inline="always")
def _fewest_at(table, lo, hi, t, r, size, fifteen):
    """The ``r``-th (from 0) of the sets of ``size`` cards adding up to ``t``."""
    i = 0
    while True:
        x = sum_take15(table, lo, hi, t, i) if fifteen else sum_take(table, lo, t, i)
        if popcount(x) == size:
            if r == 0:
                return x
            r -= 1
        i += 1


@njit(cache=True)
def fewest_sums(table, packed, v):
    """Number of smallest sum captures of a card of value ``v`` and their size."""
    return _fewest(table, packed, np.int64(0), v, False)


@njit(cache=True)
def fewest_take(table, packed, v, r, size):
    """The ``r``-th (from 0) of the sum captures of ``size`` cards (see :func:`sum_take`)."""
    return _fewest_at(table, packed, np.int64(0), v, r, size, False)


@njit(cache=True)
def fewest_sums15(table, lo, hi, t):
    """Number of smallest sets adding up to ``t`` and their size (fifteen rule)."""
    return _fewest(table, lo, hi, t, True)


@njit(cache=True)
def fewest_take15(table, lo, hi, t, r, size):
    """The ``r``-th (from 0) of the sets of ``size`` cards adding up to ``t``."""
    return _fewest_at(table, lo, hi, t, r, size, True)


#: Tables of more cards than this may hold more than 31 sum captures of one value (the
#: sets of cards with one value sum form an antichain: at most C(6, 3) = 20 for 6 cards),
#: so loops that may meet them list the captures (:func:`list_captures`) instead of
#: reading the packed counts.
BIG_TABLE = 6


# --------------------------------------------------------------------------- the capture rule
# RULES.md §4 rules 1-3, once: an ace sweep (``sweep_aces``: ``ACES`` when an ace played
# now would sweep the table, else 0), else one capture per table card of the played
# card's value, else the sets of two or more table cards adding to its value (with
# ``sum_capture=fewest`` only the smallest).  Every loop lists them in the same order:
# the sweep, the equal cards by card index, then the sums in :func:`sum_captures` order.
# With ``fifteen`` (§9): the sets of one or more table cards adding up to 15 - v, in
# :func:`sum_captures` order (no sweeps: ace_sweep is not allowed with it).
@njit(cache=True, inline="always")
def add_captures(card, table, reach, sweep_aces, fewest, fifteen, out_take, n, scratch):
    """Append every capture of ``card`` to ``out_take[n:]``; return the new count (``n``:
    none, the card can only be laid).  ``reach`` is the table's subset-sum bitset
    (:func:`table_reach`; -1 when unknown), which spares the sum search when no subset
    adds up to the card's value."""
    v = VALUE[card]
    if fifteen:
        if (reach >> (15 - v)) & 1:
            return sum_captures(table, 15 - v, 10, fewest, out_take, n, scratch)
        return n
    if (sweep_aces >> card) & 1:
        out_take[n] = table
        return n + 1
    same = table & VALUE_MASK[v]
    if same:
        while same:
            out_take[n] = same & -same
            same &= same - 1
            n += 1
        return n
    if (reach >> v) & 1:
        return sum_captures(table, v, v - 1, fewest, out_take, n, scratch)
    return n


@njit(cache=True)
def list_captures(card, table, sweep_aces, fewest, fifteen, bt, sc):
    """Every capture of ``card`` written to ``bt``; return their number (0: it can only be
    laid).  For tables too big for the packed counts."""
    return add_captures(card, table, -1, sweep_aces, fewest, fifteen, bt, 0, sc)


@njit(cache=True, inline="always")
def capture_count(card, table, lo, hi, sweep_aces, fewest, fifteen):
    """``(k, fsize, same)``: ``card``'s captures, from the table and its packed subset
    counts ``(lo, hi)``: none when ``k = 0`` (it can only be laid); else the table's
    cards of its value, one capture each, when ``same`` is not 0 (Scopa's matches); else
    ``capture_at(card, j, ...)`` for ``j < k`` (an ace sweep, or sets adding up: with
    ``fsize > 0``, ``sum_capture=fewest``, only those of ``fsize`` cards are legal and
    ``capture_at`` gives -1 for the others)."""
    v = VALUE[card]
    if fifteen:
        k = lane(lo, hi, 15 - v, True)
        if k and fewest:
            return k, fewest_sums15(table, lo, hi, 15 - v)[1], np.int64(0)
        return k, 0, np.int64(0)
    if (sweep_aces >> card) & 1:
        return 1, 0, np.int64(0)
    same = table & VALUE_MASK[v]
    if same:
        return popcount(same), 0, same
    sums = (lo >> (LANE_BITS * v)) & 31
    if sums and fewest:
        return sums, fewest_sums(table, lo, v)[1], same
    return sums, 0, same


@njit(cache=True, inline="always")
def capture_at(card, j, table, lo, hi, sweep_aces, fsize, fifteen):
    """The ``j``-th capture of ``card`` when it is an ace sweep or sets adding up (see
    :func:`capture_count`; -1: a set larger than ``fsize``)."""
    if fifteen:
        t = sum_take15(table, lo, hi, 15 - VALUE[card], j)
    else:
        if (sweep_aces >> card) & 1:
            return table
        t = sum_take(table, lo, VALUE[card], j)
    if fsize and popcount(t) != fsize:
        return np.int64(-1)
    return t


@njit(cache=True, inline="always")
def nth_capture(card, j, table, lo, hi, sweep_aces, fsize, fifteen):
    """The ``j``-th capture of ``card`` in :func:`add_captures` order, the equal cards
    included (see :func:`capture_count`; -1: a set larger than ``fsize``)."""
    if not fifteen:
        same = table & SAME_MASK[card]
        if same and not (sweep_aces >> card) & 1:
            for _ in range(j):
                same &= same - 1
            return same & -same
    return capture_at(card, j, table, lo, hi, sweep_aces, fsize, fifteen)


@njit(cache=True, inline="always")
def take_of_play(card, r, table, packed, sweep_aces, fewest, rare, same, optional):
    """The take of ``card``'s ``r``-th play (see :func:`add_captures`; a lay is the play
    after its captures, take 0), for the fused loop's random pick under Scopa's rule:
    ``rare`` has the card's bit set when its captures are an ace sweep or sum captures,
    ``same`` is its equal cards on the table (picked along with the card), and with
    ``optional`` (capture_compulsory=false) every card also has its lay."""
    if (rare >> card) & 1:  # an ace sweep or a sum capture
        v = VALUE[card]
        if (sweep_aces >> card) & 1:
            return table if r == 0 else np.int64(0)  # (r = 1: the lay, optional only)
        if fewest:
            count, size = fewest_sums(table, packed, v)
            if optional and r == count:
                return np.int64(0)
            return fewest_take(table, packed, v, r, size)
        if optional and r == (packed >> (LANE_BITS * v)) & 31:
            return np.int64(0)
        return sum_take(table, packed, v, r)
    for _ in range(r):  # a match (the r-th equal card) or a lay (take 0)
        same &= same - 1
    return same & -same


@njit(cache=True, inline="always")
def take_of_play15(card, r, table, lo, hi, fewest):
    """The take of ``card``'s ``r``-th play under the fifteen rule (its captures in
    :func:`sum_captures` order, then its lay, take 0)."""
    t = 15 - VALUE[card]
    k = lane(lo, hi, t, True)
    if k == 0:
        return np.int64(0)
    if fewest:
        count, size = fewest_sums15(table, lo, hi, t)
        return fewest_take15(table, lo, hi, t, r, size) if r < count else np.int64(0)
    return sum_take15(table, lo, hi, t, r) if r < k else np.int64(0)


@njit(cache=True, inline="always")
def count_captures(card, table, lo, hi, sweep_aces, fewest, fifteen):
    """Number of captures of ``card`` from the packed counts (a table of at most
    ``BIG_TABLE`` cards, ``BIG_TABLE15`` with ``fifteen``)."""
    if fifteen:
        t = 15 - VALUE[card]
        if fewest and lane(lo, hi, t, True):
            return fewest_sums15(table, lo, hi, t)[0]
        return lane(lo, hi, t, True)
    if fewest:
        return card_captures_fewest(card, table, lo, sweep_aces)
    return card_captures(card, table, lo, sweep_aces)


@njit(cache=True, inline="always")
def pick_capture(card, j, table, lo, hi, sweep_aces, fewest, fifteen):
    """The ``j``-th legal capture of ``card`` (in :func:`add_captures` order) from the
    packed counts (tables as for :func:`count_captures`)."""
    if fifteen:
        t = 15 - VALUE[card]
        if fewest:
            return fewest_take15(table, lo, hi, t, j, fewest_sums15(table, lo, hi, t)[1])
        return sum_take15(table, lo, hi, t, j)
    if fewest and not (sweep_aces >> card) & 1 and not table & SAME_MASK[card]:
        v = VALUE[card]
        return fewest_take(table, lo, v, j, fewest_sums(table, lo, v)[1])
    return nth_capture(card, j, table, lo, hi, sweep_aces, 0, False)


@njit(cache=True, inline="always")
def play_on_table(
    table, lo, hi, pile, last_capturer, side, card, take, sweep_aces, ace_rule, last, lps,
    ace_scopa, fifteen,
):  # fmt: skip
    """``side`` plays ``card`` taking ``take`` (0: laid): ``(table, lo, hi, pile,
    last_capturer, scopa)`` after it, ``(lo, hi)`` being the table's packed subset
    counts, ``pile`` the side's and ``scopa`` 1 when the capture empties the table and
    scores (not on the hand's ``last`` play unless ``lps``, last_play_scopa; a sweep by
    an ace only with ``ace_scopa``).

    Scopa's rule without data-dependent branches for a lay or a one-card capture (the
    common plays): the card that leaves or joins the table changes the subset counts by
    one multiply, and without ace sweeps the card taken has the played card's value, so
    the played card's factors serve and the loop's critical path no longer finds the
    card taken (a ctz) nor its value (a load) (docs/results/benchmarks.md, "Engine
    design choices").
    """
    bit = np.int64(1) << card
    scopa = 0
    if fifteen:  # no sweeps, and a card taken has another value than the card played
        if take:
            table &= ~take
            pile |= take | bit
            last_capturer = side
            if table == 0:
                lo = np.int64(1)
                hi = np.int64(0)
                if lps or not last:
                    scopa = 1
            else:
                lo, hi = packed_without(lo, hi, take, True)
        else:
            table |= bit
            lo, hi = packed_join(lo, hi, VALUE[card], True)
    elif take & (take - 1):  # several cards taken: a sum capture or an ace sweep
        table &= ~take
        pile |= take | bit
        last_capturer = side
        if table == 0:
            lo = np.int64(1)
            if (lps or not last) and (ace_scopa or not (sweep_aces >> card) & 1):
                scopa = 1
        else:
            lo = packed_without(lo, hi, take, False)[0]
    else:  # a lay or a one-card capture
        captured = take != 0
        x = take if captured else bit  # the card that leaves or joins the table
        table ^= x
        by = ctz(x) if ace_rule else card
        lo = (lo * GROW_SHRINK[np.uint64(by + 64 * captured)]) & LANES
        pile |= (take | bit) * captured
        last_capturer = side if captured else last_capturer
        # A capture that empties the table (tested as one integer, so that the branch
        # is on the rare event and not on whether the card captured); a lone card taken
        # by an ace sweep scores only with ace_sweep_scopa.
        if (table | (take == 0)) == 0 and (
            (lps or not last) and (ace_scopa or not (sweep_aces >> card) & 1)
        ):
            scopa = 1
    return table, lo, hi, pile, last_capturer, scopa


@njit(cache=True, inline="always")
def opening_take(table):
    """What ``opening_fifteen`` (RULES.md §9) takes from the accepted first table and the
    scope it scores: ``(table, 1)`` when its values add up to 15, ``(table, 2)`` when it
    splits into two sets of 15 each (it adds up to 30 and some of its cards to 15), else
    ``(0, 0)``.  Tables hold at most four cards: their 16 subsets are tried."""
    total = value_sum(table)
    if total == 15:
        return table, 1
    if total == 30:
        sub = (table - 1) & table  # every proper non-empty subset, in turn
        while sub:
            if value_sum(sub) == 15:
                return table, 2
            sub = (sub - 1) & table
    return np.int64(0), 0


@njit(cache=True, inline="always")
def remainder_side(remainder_dealer, dealer_side, last_capturer):
    """The side that takes the cards left on the table when the hand ends (RULES.md §4):
    the dealer's with ``remainder_to=dealer``, else the last capturer's (-1: nobody)."""
    return dealer_side if remainder_dealer else last_capturer


# --------------------------------------------------------------------------- Cirulla (§10)
# RULES.md §10, ``capture_mode=cirulla``: a card of capture value v (the value named for
# the matta with ``matta=play``) takes, on a table without an ace, the whole table when it
# is an ace and ``ace_sweep`` holds; else (a) one table card of value v, (b) a set of two
# or more cards adding up to v (unless (a) has a card and ``cirulla_match_priority``
# holds), (c) a set of one or more cards adding up to 15 - v. (a), (b) and (c) are
# disjoint. The step kernels list them in that order (the sweep, (a) by card index, (b)
# and (c) in :func:`sum_captures` order), with ``sum_capture=fewest`` applied to (b) and
# (c) apart. The table's subset-sum bitset holds the sums up to 14 (:data:`REACH15`).
@njit(cache=True)
def add_captures_cirulla(v, table, reach, ace_sweep, priority, fewest, out_take, n, scratch):
    """Append every capture of a card of capture value ``v`` under Cirulla's rule to
    ``out_take[n:]``; return the new count (``n``: none). ``reach``: the table's subset
    sums (:func:`table_reach` with the fifteen mask, or -1 when unknown); ``ace_sweep``,
    ``priority`` and ``fewest``: the options ``ace_sweep``, ``cirulla_match_priority`` and
    ``sum_capture=fewest``."""
    if table == 0:
        return n
    if v == 1 and ace_sweep and (table & ACES) == 0:
        out_take[n] = table
        return n + 1
    same = table & VALUE_MASK[v]
    m = same
    while m:
        out_take[n] = m & -m
        m &= m - 1
        n += 1
    if not (same and priority) and (reach >> v) & 1:
        n = sum_captures(table, v, v - 1, fewest, out_take, n, scratch)
    if (reach >> (15 - v)) & 1:
        n = sum_captures(table, 15 - v, 10, fewest, out_take, n, scratch)
    return n


@njit(cache=True, inline="always")
def cirulla_scores(take, value, table, ace_sweep, ace_scopa):
    """Whether a capture of ``take`` by a card of capture value ``value`` would score a
    scopa if it emptied the table (the play's *effect* besides its take): always, unless
    it is an ace sweep and ``ace_scopa`` (``ace_sweep_scopa``) is off."""
    sweep = ace_sweep and value == 1 and take == table and (table & ACES) == 0
    return take == table and (ace_scopa or not sweep)


@njit(cache=True)
def add_matta_captures(table, reach, ace_sweep, ace_scopa, priority, fewest, out_take,
                       out_meta, n, scratch):  # fmt: skip
    """Append the captures of the matta played with a named value (``matta=play``, RULES.md
    §10) to ``out_take[n:]`` with the value in ``out_meta``; return the new count. The
    values 1..10 are tried in turn and each distinct effect (the take, and whether it would
    score a scopa: :func:`cirulla_scores`) is kept once, with the smallest value that has
    it."""
    n0 = n
    for u in range(1, 11):
        k = add_captures_cirulla(u, table, reach, ace_sweep, priority, fewest, out_take, n,
                                 scratch)  # fmt: skip
        for i in range(n, k):
            take = out_take[i]
            flag = cirulla_scores(take, u, table, ace_sweep, ace_scopa)
            seen = False
            for j in range(n0, n):
                if (
                    out_take[j] == take
                    and cirulla_scores(take, out_meta[j], table, ace_sweep, ace_scopa) == flag
                ):
                    seen = True
                    break
            if not seen:
                out_take[n] = take
                out_meta[n] = u
                n += 1
    return n


@njit(cache=True, inline="always")
def declaration_points(hand, wild):
    """The points a hand may declare (RULES.md §10): 10 for three cards of a rank, else 3
    for values adding up to 9 or less, else 0, and 0 for a hand of other than three
    cards. ``wild``: the matta (7H) stands for the value that helps most (``matta`` not
    ``none``): the others' rank, or an ace."""
    if popcount(hand) != 3:
        return 0
    joker = wild and (hand & MATTA_BIT) != 0
    others = hand & ~MATTA_BIT if joker else hand
    rank = ctz(others) % 10
    same = True
    m = others
    while m:
        if ctz(m) % 10 != rank:
            same = False
        m &= m - 1
    if same:
        return 10
    return 3 if value_sum(others) + joker <= 9 else 0


@njit(cache=True, inline="always")
def opening_count(table, wild):
    """What Cirulla's opening count (``opening_count``, RULES.md §10) takes from the
    accepted first table and the scope it scores: ``(table, 1)`` when its values add up
    to 15, ``(table, 2)`` when they add up to 30, else ``(0, 0)``. ``wild``: the matta
    (7H), when on the table, counts whichever value from 1 to 10 makes 15 or 30 (the
    ``matta`` option is not ``none``)."""
    if wild and table & MATTA_BIT:
        base = value_sum(table & ~MATTA_BIT)
        if 20 <= base <= 29:
            return table, 2
        if 5 <= base <= 14:
            return table, 1
        return np.int64(0), 0
    total = value_sum(table)
    if total == 30:
        return table, 2
    if total == 15:
        return table, 1
    return np.int64(0), 0
