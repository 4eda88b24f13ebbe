"""Scoring a hand (RULES.md §5): the items of each side from its pile and scope."""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .layout import (
    ACES,
    DENARI,
    GRANDE,
    I_DECLARATIONS,
    I_GRANDE,
    I_PICCOLA,
    I_TOTAL,
    N_ITEMS,
    PRIM_BEST,
    R_ALL_DENARI_WINS,
    R_CAPPOTTO,
    R_CIRULLA,
    R_FOUR_SEVENS,
    R_MISSING_ZERO,
    R_NAPOLA,
    R_NAPOLA_FIXED3,
    R_PICCOLA_MAX,
    R_PRIMIERA_SEVENS,
    R_RE_BELLO,
    R_SIDES,
    SEVENS,
)

__all__ = [
    "SEVENS_TIE_ORDER",
    "all_denari_wins",
    "item_winners",
    "items_into",
    "items_into_cirulla",
    "items_with",
    "items_with_cirulla",
    "match_winner",
    "piccola_points",
    "primiera_classic",
    "score_into",
    "score_into_cirulla",
    "score_piles",
    "scoring_options",
    "side_items",
    "side_stats",
]


@njit(cache=True)
def primiera_classic(pile, missing_zero):
    """Classic primiera of a pile; -1 when a suit is missing and it cannot compete."""
    total = 0
    for s in range(4):
        best = PRIM_BEST[(pile >> (10 * s)) & 1023]
        if best == 0 and not missing_zero:
            return -1
        total += best
    return total


@njit(cache=True, inline="always")
def _strict_top(x0, x1, x2, x3, ns):
    """The side with strictly the largest of ``x0 .. x[ns - 1]``, or -1 on a tie."""
    xs = (x0, x1, x2, x3)
    top = x0
    best = 0
    tie = False
    for s in range(1, ns):
        x = xs[s]
        if x > top:
            top = x
            best = s
            tie = False
        elif x == top:
            tie = True
    return -1 if tie else best


#: The ranks (0 = ace .. 6 = seven) that decide a primiera by sevens, in order, for each
#: reading (``rules[R_PRIMIERA_SEVENS]``, ``PRIMIERA_*``; row 0, classic, is unused):
#: ``sevens`` (RULES.md §5: sevens, then sixes, fives, fours, threes, twos, aces) and
#: ``escoba_sevens`` (the Escoba *setenta* as most sevens: sevens, then sixes, aces,
#: fives; still tied after the fives, nobody). -1 ends a row.
SEVENS_TIE_ORDER = np.array(
    [
        [-1, -1, -1, -1, -1, -1, -1],
        [6, 5, 4, 3, 2, 1, 0],
        [6, 5, 0, 4, -1, -1, -1],
    ],
    dtype=np.int64,
)


@njit(cache=True, inline="always")
def item_winners(p0, p1, p2, p3, ns, sevens, missing_zero):
    """The sides that win the contested items of a hand (RULES.md §5) from the piles of
    its ``ns`` sides (``p2``, ``p3``: 0 when absent): ``(cards, denari, primiera)``,
    each a side or -1 (a tie at the top, or nobody can compete).  ``sevens``: the
    primiera's reading (``PRIMIERA_*``): by the count of each rank in the order of
    :data:`SEVENS_TIE_ORDER` (only the sides still tied go on), else classic, a side
    missing a suit excluded unless ``missing_zero``."""
    ps = (p0, p1, p2, p3)
    cards = _strict_top(popcount(p0), popcount(p1), popcount(p2), popcount(p3), ns)
    denari = _strict_top(
        popcount(p0 & DENARI), popcount(p1 & DENARI), popcount(p2 & DENARI),
        popcount(p3 & DENARI), ns,
    )  # fmt: skip
    primiera = -1
    if sevens:
        alive = (1 << ns) - 1
        for k in range(7):
            rank = SEVENS_TIE_ORDER[sevens, k]
            if rank < 0:
                break
            rm = ACES << rank
            top = -1
            for s in range(ns):
                if (alive >> s) & 1:
                    top = max(top, popcount(ps[s] & rm))
            for s in range(ns):
                if (alive >> s) & 1 and popcount(ps[s] & rm) != top:
                    alive &= ~(1 << s)
            if alive & (alive - 1) == 0:
                primiera = ctz(alive)
                break
    else:
        primiera = _strict_top(
            primiera_classic(p0, missing_zero),
            primiera_classic(p1, missing_zero),
            primiera_classic(p2, missing_zero),
            primiera_classic(p3, missing_zero),
            ns,
        )  # fmt: skip  (sides that can't compete have -1: a strict top is >= 0)
    return cards, denari, primiera


@njit(cache=True, inline="always")
def side_items(side, pile, scope, winners, re_bello, napola, napola_fixed3, four_sevens):
    """One side's score items in ``I_*`` order (``I_TOTAL`` last) from its pile, its
    scope and the :func:`item_winners` of the hand; ``four_sevens``: the point for all
    four sevens (``four_sevens_point``)."""
    cards, denari, primiera = winners
    it_cards = 1 if side == cards else 0
    it_denari = 1 if side == denari else 0
    settebello = (pile >> 6) & 1  # SETTEBELLO_BIT
    it_primiera = 1 if side == primiera else 0
    rb = (pile >> 9) & 1 if re_bello else 0  # RE_BELLO_BIT
    nap = 0
    if napola and (pile & 7) == 7:
        nap = 3 if napola_fixed3 else ctz(~(pile & DENARI))
    fs = np.int64(four_sevens and (pile & SEVENS) == SEVENS)  # no branch: a select
    total = scope + it_cards + it_denari + settebello + it_primiera + rb + nap + fs
    return scope, it_cards, it_denari, settebello, it_primiera, rb, nap, fs, total


@njit(cache=True)
def score_into(rules, piles, po, scope, so, out):
    """:func:`score_piles` on ``piles[po:po + sides]`` and ``scope[so:so + sides]``:
    ``out[side, I_*]``."""
    items_into(rules, piles, po, scope, so, out)


@njit(cache=True, inline="always")
def scoring_options(rules):
    """The options of the rules vector ``rules`` that :func:`items_with` scores by:
    ``(sides, re_bello, napola, napola_fixed3, four_sevens, primiera reading
    (PRIMIERA_*), missing_zero)``."""
    return (
        rules[R_SIDES], rules[R_RE_BELLO] != 0, rules[R_NAPOLA] != 0,
        rules[R_NAPOLA_FIXED3] != 0, rules[R_FOUR_SEVENS] != 0, rules[R_PRIMIERA_SEVENS],
        rules[R_MISSING_ZERO],
    )  # fmt: skip


@njit(cache=True, inline="always")
def items_into(rules, piles, po, scope, so, out):
    """:func:`score_into` inlined into its caller (for the jitted loops, whose arrays then
    cross no call)."""
    items_with(scoring_options(rules), piles, po, scope, so, out)


@njit(cache=True, inline="always")
def items_with(options, piles, po, scope, so, out):
    """:func:`items_into` under the :func:`scoring_options` ``options`` (a loop that fixes
    them passes constants, which then fold)."""
    ns, re_bello, napola, fixed3, four_sevens, sevens, missing_zero = options
    p0 = piles[po]
    p1 = piles[po + 1]
    p2 = piles[po + 2] if ns > 2 else np.int64(0)
    p3 = piles[po + 3] if ns > 3 else np.int64(0)
    winners = item_winners(p0, p1, p2, p3, ns, sevens, missing_zero)
    ps = (p0, p1, p2, p3)
    for s in range(ns):
        items = side_items(s, ps[s], scope[so + s], winners, re_bello, napola, fixed3,
                           four_sevens)  # fmt: skip
        for k in range(N_ITEMS):
            out[s, k] = items[k]


@njit(cache=True)
def score_piles(rules, piles, scope, out):
    """Score a finished hand: ``out[side, item]`` for the ``I_*`` items."""
    score_into(rules, piles, 0, scope, 0, out)


@njit(cache=True, inline="always")
def match_winner(totals, piles, ns, target, all_denari_wins):
    """The side that has won the match after a hand (RULES.md §6), or -1: with
    ``all_denari_wins`` a side holding all ten denari in its pile, else the one side at
    the top of the ``totals`` once the top reaches ``target`` (a tie at the top plays
    on).  ``totals`` and ``piles`` are 4-tuples by side."""
    if all_denari_wins:
        for s in range(ns):
            if piles[s] & DENARI == DENARI:
                return s
    top = 0
    for s in range(ns):
        top = max(top, totals[s])
    winner = -1
    if top >= target:
        for s in range(ns):
            if totals[s] == top:
                winner = s if winner == -1 else -2
    return max(winner, -1)  # -2: a tie at the top, so play on


@njit(cache=True, inline="always")
def side_stats(pile):
    """A side's row statistics (``C_STATS`` columns) from its final pile: cards
    captured, denari, classic primiera value (missing suits 0) and sevens."""
    return (
        popcount(pile),
        popcount(pile & DENARI),
        primiera_classic(pile, 1),
        popcount(pile & (ACES << 6)),
    )


@njit(cache=True, inline="always")
def piccola_points(pile, most):
    """Cirulla's piccola (RULES.md §10) of a pile: 3 for the A, 2 and 3 of denari, 1 more
    for each further denari of the unbroken run from the 4, at most ``most``
    (``piccola_max``); 0 without the three."""
    if (pile & 7) != 7:
        return 0
    return min(ctz(~(pile & DENARI)), most)


@njit(cache=True)
def score_into_cirulla(rules, piles, po, scope, so, declared, do, out):
    """:func:`score_into` under Cirulla's rules (RULES.md §10): the items of §5 (the
    napola is off), then ``out[side, I_GRANDE]`` (5 for the JD, QD and KD),
    ``I_PICCOLA`` (:func:`piccola_points`) and ``I_DECLARATIONS`` (the side's declared
    points, ``declared[do + side]``), the total counting them; ``out`` has at least
    ``N_ITEMS_CIRULLA`` columns."""
    items_into_cirulla(rules, piles, po, scope, so, declared, do, out)


@njit(cache=True, inline="always")
def items_into_cirulla(rules, piles, po, scope, so, declared, do, out):
    """:func:`score_into_cirulla` inlined into its caller (for the jitted loops, whose
    arrays then cross no call)."""
    items_with_cirulla(scoring_options(rules), rules[R_PICCOLA_MAX], piles, po, scope, so,
                       declared, do, out)  # fmt: skip


@njit(cache=True, inline="always")
def items_with_cirulla(options, most, piles, po, scope, so, declared, do, out):
    """:func:`items_into_cirulla` under the :func:`scoring_options` ``options`` and
    ``piccola_max`` ``most`` (constants where a loop fixes them)."""
    items_with(options, piles, po, scope, so, out)
    for s in range(options[0]):
        pile = piles[po + s]
        grande = 5 if (pile & GRANDE) == GRANDE else 0
        piccola = piccola_points(pile, most)
        points = declared[do + s]
        out[s, I_GRANDE] = grande
        out[s, I_PICCOLA] = piccola
        out[s, I_DECLARATIONS] = points
        out[s, I_TOTAL] += grande + piccola + points


@njit(cache=True)
def all_denari_wins(rules):
    """Whether a side holding all ten denari at the end of a hand wins the match at once
    (the ``all_denari_wins`` argument of :func:`match_winner`): ``napola_all_denari_wins``
    with ``napola`` (RULES.md §6), or Cirulla's ``cappotto`` (§10)."""
    return bool(
        (rules[R_NAPOLA] != 0 and rules[R_ALL_DENARI_WINS] != 0)
        or (rules[R_CIRULLA] != 0 and rules[R_CAPPOTTO] != 0)
    )
