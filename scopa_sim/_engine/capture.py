"""The capture rule: counting, enumerating and picking the captures of a card.

This is the one place a game's capture rule lives.  The step kernels (:mod:`.step`)
list captures with :func:`sum_captures` (guarded by the table's subset-sum bitset,
:func:`table_reach`); the jitted loops (:mod:`.fused`, :mod:`.search`) and the expert
(:mod:`.policy`) count and pick them from the table's *packed subset counts* (see
``GROW``), so only the chosen play is ever built.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .layout import ACES, SAME_MASK, VALUE, VALUE_MASK

__all__ = [
    "BIG_TABLE",
    "BY_VALUE_BIT",
    "BY_VALUE_CARD",
    "GROW",
    "GROW_SHRINK",
    "LANES",
    "LANE_BITS",
    "LANE_SHIFT",
    "LOWER_VALUES",
    "SHRINK",
    "add_captures",
    "capture_at",
    "capture_count",
    "card_captures",
    "card_captures_fewest",
    "count_captures",
    "fewest_sums",
    "fewest_take",
    "is_capture",
    "list_captures",
    "nth_capture",
    "packed_counts",
    "packed_without",
    "pick_capture",
    "play_on_table",
    "remainder_side",
    "sum_captures",
    "sum_take",
    "table_reach",
    "take_of_play",
    "value_sum",
]


# --------------------------------------------------------------------------- listing captures
@njit(cache=True)
def sum_captures(table, v, fewest, out_take, n, scratch):
    """Append to ``out_take[n:]`` every set of >= 2 table cards whose values add to ``v``
    (only the smallest sets with ``fewest``); return the new count.

    The sets come in depth-first order over the candidates sorted by (value, card).
    ``scratch`` holds at least ``SCRATCH`` int64 (candidates, their values, the stack).
    """
    k = 0
    for val in range(1, v):  # ascending values, so the search can prune
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
        if i < k and s + scratch[40 + i] <= v:
            scratch[80 + depth] = i
            depth += 1
            s += scratch[40 + i]
            cur |= np.int64(1) << scratch[i]
            if s == v:
                if depth >= 2 and (not fewest or depth <= best):
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


@njit(cache=True)
def table_reach(table):
    """Subset sums (up to 10) of the table's values as a bitset; bit 0 is the empty set."""
    reach = np.int64(1)
    m = table
    while m:
        reach |= reach << VALUE[ctz(m)]
        m &= m - 1
    return reach & 2047


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


@njit(cache=True)
def sum_take(table, packed, v, r):
    """The ``r``-th (from 0) set of >= 2 table cards with values adding to ``v``, in the
    order of :func:`sum_captures`, from the table and its packed subset counts (no table
    card may have value ``v``).

    The order is lexicographic over candidates sorted by (value, card); the sets that go
    on with a candidate are counted from the packed counts of the candidates after it.
    """
    by_value = np.int64(0)
    m = table & LOWER_VALUES[v]
    while m:
        by_value |= BY_VALUE_BIT[ctz(m)]
        m &= m - 1
    cand = by_value
    t = v
    take = np.int64(0)
    while cand:
        i = ctz(cand)
        cand &= cand - 1
        u = (i >> 2) + 1
        packed = (packed * SHRINK[u]) & LANES  # the candidates after this one
        with_it = 1 if u == t else (packed >> (LANE_BITS * (t - u))) & 31
        if r < with_it:
            take |= np.int64(1) << BY_VALUE_CARD[i]
            t -= u
            if t == 0:
                break
        else:
            r -= with_it
    return take


@njit(cache=True)
def fewest_sums(table, packed, v):
    """Number of smallest sum captures of a card of value ``v`` and their size."""
    n = (packed >> (LANE_BITS * v)) & 31
    best = 99
    count = 0
    for r in range(n):
        size = popcount(sum_take(table, packed, v, r))
        if size < best:
            best = size
            count = 0
        if size == best:
            count += 1
    return count, best


@njit(cache=True)
def fewest_take(table, packed, v, r, size):
    """The ``r``-th (from 0) of the sum captures of ``size`` cards (see :func:`sum_take`)."""
    i = 0
    while True:
        t = sum_take(table, packed, v, i)
        if popcount(t) == size:
            if r == 0:
                return t
            r -= 1
        i += 1


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
@njit(cache=True, inline="always")
def add_captures(card, table, reach, sweep_aces, fewest, out_take, n, scratch):
    """Append every capture of ``card`` to ``out_take[n:]``; return the new count (``n``:
    none, the card can only be laid).  ``reach`` is the table's subset-sum bitset
    (:func:`table_reach`; -1 when unknown), which spares the sum search when no subset
    adds up to the card's value."""
    if (sweep_aces >> card) & 1:
        out_take[n] = table
        return n + 1
    v = VALUE[card]
    same = table & VALUE_MASK[v]
    if same:
        while same:
            out_take[n] = same & -same
            same &= same - 1
            n += 1
        return n
    if (reach >> v) & 1:
        return sum_captures(table, v, fewest, out_take, n, scratch)
    return n


@njit(cache=True)
def list_captures(card, table, sweep_aces, fewest, bt, sc):
    """Every capture of ``card`` written to ``bt``; return their number (0: it can only be
    laid).  For tables too big for the packed counts."""
    return add_captures(card, table, -1, sweep_aces, fewest, bt, 0, sc)


@njit(cache=True, inline="always")
def capture_count(card, table, packed, sweep_aces, fewest):
    """``(k, fsize, same)``: ``card``'s captures, from the table and its packed subset
    counts: none when ``k = 0`` (it can only be laid); else the table's cards of its
    value, one capture each, when ``same`` is not 0; else ``capture_at(card, j, ...)``
    for ``j < k`` (an ace sweep, or sum captures: with ``fsize > 0``,
    ``sum_capture=fewest``, only those of ``fsize`` cards are legal and ``capture_at``
    gives -1 for the others)."""
    if (sweep_aces >> card) & 1:
        return 1, 0, np.int64(0)
    v = VALUE[card]
    same = table & VALUE_MASK[v]
    if same:
        return popcount(same), 0, same
    sums = (packed >> (LANE_BITS * v)) & 31
    if sums and fewest:
        return sums, fewest_sums(table, packed, v)[1], same
    return sums, 0, same


@njit(cache=True, inline="always")
def capture_at(card, j, table, packed, sweep_aces, fsize):
    """The ``j``-th capture of ``card`` when it is an ace sweep or sum captures (see
    :func:`capture_count`; -1: a sum capture larger than ``fsize``)."""
    if (sweep_aces >> card) & 1:
        return table
    t = sum_take(table, packed, VALUE[card], j)
    if fsize and popcount(t) != fsize:
        return np.int64(-1)
    return t


@njit(cache=True, inline="always")
def nth_capture(card, j, table, packed, sweep_aces, fsize):
    """The ``j``-th capture of ``card`` in :func:`add_captures` order, the equal cards
    included (see :func:`capture_count`; -1: a sum capture larger than ``fsize``)."""
    same = table & SAME_MASK[card]
    if same and not (sweep_aces >> card) & 1:
        for _ in range(j):
            same &= same - 1
        return same & -same
    return capture_at(card, j, table, packed, sweep_aces, fsize)


@njit(cache=True, inline="always")
def packed_without(packed, cards):
    """The packed subset counts of a table once ``cards`` have left it."""
    m = cards
    while m:
        packed = (packed * SHRINK[VALUE[ctz(m)]]) & LANES
        m &= m - 1
    return packed


@njit(cache=True, inline="always")
def take_of_play(card, r, table, packed, sweep_aces, fewest, rare, same):
    """The take of ``card``'s ``r``-th play (see :func:`add_captures`; a lay is the play
    after its captures, take 0), for the fused loop's random pick: ``rare`` has the
    card's bit set when its captures are an ace sweep or sum captures, and ``same`` is
    its equal cards on the table (picked along with the card)."""
    if (rare >> card) & 1:  # an ace sweep or a sum capture
        if (sweep_aces >> card) & 1:
            return table
        v = VALUE[card]
        if fewest:
            return fewest_take(table, packed, v, r, fewest_sums(table, packed, v)[1])
        return sum_take(table, packed, v, r)
    for _ in range(r):  # a match (the r-th equal card) or a lay (take 0)
        same &= same - 1
    return same & -same


@njit(cache=True)
def count_captures(card, table, packed, sweep_aces, fewest):
    """Number of captures of ``card`` from the packed counts (table of <= 6 cards)."""
    if fewest:
        return card_captures_fewest(card, table, packed, sweep_aces)
    return card_captures(card, table, packed, sweep_aces)


@njit(cache=True)
def pick_capture(card, j, table, packed, sweep_aces, fewest):
    """The ``j``-th legal capture of ``card`` (in :func:`add_captures` order) from the
    packed counts (table of <= 6 cards)."""
    if fewest and not (sweep_aces >> card) & 1 and not table & SAME_MASK[card]:
        v = VALUE[card]
        return fewest_take(table, packed, v, j, fewest_sums(table, packed, v)[1])
    return nth_capture(card, j, table, packed, sweep_aces, 0)


@njit(cache=True, inline="always")
def play_on_table(
    table, packed, pile, last_capturer, side, card, take, sweep_aces, ace_rule, last, lps,
    ace_scopa,
):  # fmt: skip
    """``side`` plays ``card`` taking ``take`` (0: laid): ``(table, packed, pile,
    last_capturer, scopa)`` after it, ``packed`` being the table's packed subset counts,
    ``pile`` the side's and ``scopa`` 1 when the capture empties the table and scores
    (not on the hand's ``last`` play unless ``lps``, last_play_scopa; a sweep by an ace
    only with ``ace_scopa``).

    Without data-dependent branches for a lay or a one-card capture (the common plays):
    the card that leaves or joins the table changes the subset counts by one multiply,
    and without ace sweeps the card taken has the played card's value, so the played
    card's factors serve and the loop's critical path no longer finds the card taken (a
    ctz) nor its value (a load): about 5% faster.
    """
    bit = np.int64(1) << card
    scopa = 0
    if take & (take - 1):  # several cards taken: a sum capture or an ace sweep
        table &= ~take
        pile |= take | bit
        last_capturer = side
        if table == 0:
            packed = np.int64(1)
            if (lps or not last) and (ace_scopa or not (sweep_aces >> card) & 1):
                scopa = 1
        else:
            packed = packed_without(packed, take)
    else:  # a lay or a one-card capture
        captured = take != 0
        x = take if captured else bit  # the card that leaves or joins the table
        table ^= x
        by = ctz(x) if ace_rule else card
        packed = (packed * GROW_SHRINK[np.uint64(by + 64 * captured)]) & LANES
        pile |= (take | bit) * captured
        last_capturer = side if captured else last_capturer
        # A capture that empties the table (tested as one integer, so that the branch
        # is on the rare event and not on whether the card captured); a lone card taken
        # by an ace sweep scores only with ace_sweep_scopa.
        if (table | (take == 0)) == 0 and (
            (lps or not last) and (ace_scopa or not (sweep_aces >> card) & 1)
        ):
            scopa = 1
    return table, packed, pile, last_capturer, scopa


@njit(cache=True, inline="always")
def remainder_side(remainder_dealer, dealer_side, last_capturer):
    """The side that takes the cards left on the table when the hand ends (RULES.md §4):
    the dealer's with ``remainder_to=dealer``, else the last capturer's (-1: nobody)."""
    return dealer_side if remainder_dealer else last_capturer
