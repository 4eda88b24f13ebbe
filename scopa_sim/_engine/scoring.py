"""Scoring a hand (RULES.md §5): the items of each side from its pile and scope."""

from __future__ import annotations

from numba import njit

from .bits import ctz, popcount
from .layout import (
    ACES,
    DENARI,
    FULL_DECK,
    I_CARDS,
    I_DENARI,
    I_NAPOLA,
    I_PRIMIERA,
    I_RE_BELLO,
    I_SCOPE,
    I_SETTEBELLO,
    I_TOTAL,
    N_ITEMS,
    PRIM_BEST,
    R_MISSING_ZERO,
    R_NAPOLA,
    R_NAPOLA_FIXED3,
    R_PRIMIERA_SEVENS,
    R_RE_BELLO,
    R_SIDES,
    RE_BELLO_BIT,
    SETTEBELLO_BIT,
)

__all__ = [
    "primiera_classic",
    "score_into",
    "score_piles",
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


@njit(cache=True)
def score_into(rules, piles, po, scope, so, out):
    """:func:`score_piles` on ``piles[po:po + sides]`` and ``scope[so:so + sides]``.

    Allocation-free: ``out[:, I_TOTAL]`` serves as scratch until the totals are written.
    """
    ns = rules[R_SIDES]
    for s in range(ns):
        for i in range(N_ITEMS):
            out[s, i] = 0
        out[s, I_SCOPE] = scope[so + s]
    # cards, then denari: strict majority
    for item in range(I_CARDS, I_DENARI + 1):
        mask = FULL_DECK if item == I_CARDS else DENARI
        top = popcount(piles[po] & mask)
        best = 0
        tie = False
        for s in range(1, ns):
            x = popcount(piles[po + s] & mask)
            if x > top:
                top = x
                best = s
                tie = False
            elif x == top:
                tie = True
        if not tie:
            out[best, item] = 1
    for s in range(ns):
        p = piles[po + s]
        if p & SETTEBELLO_BIT:
            out[s, I_SETTEBELLO] = 1
        if rules[R_RE_BELLO] and p & RE_BELLO_BIT:
            out[s, I_RE_BELLO] = 1
        if rules[R_NAPOLA] and (p & 7) == 7:
            if rules[R_NAPOLA_FIXED3]:
                out[s, I_NAPOLA] = 3
            else:
                out[s, I_NAPOLA] = ctz(~(p & DENARI))
    if rules[R_PRIMIERA_SEVENS]:
        alive = (1 << ns) - 1
        for k in range(7):
            rm = ACES << (6 - k)  # sevens, then sixes, ... aces
            top = -1
            for s in range(ns):
                if (alive >> s) & 1:
                    c = popcount(piles[po + s] & rm)
                    out[s, I_TOTAL] = c
                    if c > top:
                        top = c
            count = 0
            w = -1
            for s in range(ns):
                if (alive >> s) & 1:
                    if out[s, I_TOTAL] != top:
                        alive &= ~(1 << s)
                    else:
                        count += 1
                        w = s
            if count == 1:
                out[w, I_PRIMIERA] = 1
                break
    else:
        mz = rules[R_MISSING_ZERO]
        top = primiera_classic(piles[po], mz)
        best = 0
        tie = False
        for s in range(1, ns):
            x = primiera_classic(piles[po + s], mz)
            if x > top:
                top = x
                best = s
                tie = False
            elif x == top:
                tie = True
        if not tie and top >= 0:
            out[best, I_PRIMIERA] = 1
    for s in range(ns):
        t = 0
        for i in range(I_TOTAL):
            t += out[s, i]
        out[s, I_TOTAL] = t


@njit(cache=True)
def score_piles(rules, piles, scope, out):
    """Score a finished hand: ``out[side, item]`` for the ``I_*`` items."""
    score_into(rules, piles, 0, scope, 0, out)
