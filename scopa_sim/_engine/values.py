"""Values of hands and positions for the searches: final margins, the match
objective's table (``eq``, :data:`EQ_GAINS` layout) and the heuristic values of a
depth-limited position (:func:`estimate`, :func:`expert_leaf`, :func:`leaf_value`).

Values are hand point margins.  For two sides (two players, or four in teams) the
margin of a side is its points minus the other side's; for three or four sides it is
its points minus the best other side's.  With a match objective (two sides, an ``eq``
table built by :mod:`scopa_sim.bots.objective`) the value of a finished hand is instead
read from that table by the points each side scored, and a depth-limited position is
valued by the same table at the estimated points (:func:`leaf_value`, calibrated on
self-play by :func:`leaf_samples`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .layout import (
    ACES,
    DENARI,
    I_TOTAL,
    MAX_PLAYS,
    N_ITEMS,
    N_STATE,
    PRIM_BEST,
    PRIMIERA_ESCOBA,
    R_DECK,
    R_FOUR_SEVENS,
    R_NAPOLA,
    R_NAPOLA_FIXED3,
    R_PLAYERS,
    R_PRIMIERA_SEVENS,
    R_RE_BELLO,
    R_SIDES,
    R_TOTAL_PLAYS,
    RE_BELLO_BIT,
    S_DECK,
    S_DECK_SIZE,
    S_DONE,
    S_HANDS,
    S_PILES,
    S_SCOPE,
    S_STOCK,
    S_TABLE,
    SCRATCH,
    SETTEBELLO_BIT,
    SEVENS,
)
from .policy import expert_eval, expert_flags
from .step import apply_play, choose_play, legal_plays, score_state, start_hand
from .streams import RNG_WORDS, derive_seed, reseed, shuffle_deal

#: Above the magnitude of any value (margins, match values, estimates).
INF = 1e9


# leaf values of depth-limited search
LEAF_ESTIMATE = 0  # :func:`estimate`
LEAF_EXPERT = 1  # the expert policy's evaluation of the piles (:func:`expert_leaf`)


# The match objective's table ``eq`` (float64; an empty array is the margin objective).
# Values are side 0's, in points (side 1's is the negation: one side wins the match); the
# Python side (:mod:`scopa_sim.objective`) fills them from the match-equity table.
EQ_SIZE = 0  # G: the table covers 0..G-1 points per side (more is read as G - 1)
EQ_DENARI = 1  # 1.0: a side that captured all the denari wins the match outright
EQ_DENARI0 = 2  # side 0's value when side 0 captured all the denari
EQ_DENARI1 = 3  # side 0's value when side 1 did
EQ_ITEMS = 4  # points of the items (cards, denari, settebello, primiera, re bello, four sevens)
EQ_SPREAD = 5  # standard deviation of a whole hand's margin (points)
EQ_CAL = 6  # offset of the leaf's calibration (0: none, the normal model of EQ_SPREAD)
EQ_CAL_N = 7  # P: plays of a hand; eq[EQ_CAL + p] the slope, eq[EQ_CAL + P + p] the spread
EQ_GAINS = 8  # eq[EQ_GAINS + g0 * G + g1]: side 0 scored g0 points in the hand, side 1 g1


#: Gauss-Hermite rule of 5 points for the standard normal (nodes, weights).
GH_NODES = np.array([0.0, -1.3556261799742659, 1.3556261799742659, -2.8569700138728056,
                     2.8569700138728056])  # fmt: skip
GH_WEIGHTS = np.array([0.5333333333333333, 0.2220759220056126, 0.2220759220056126,
                       0.011257411327720691, 0.011257411327720691])  # fmt: skip


@njit(cache=True)
def hand_margins(state, rules, score, out):
    """``out[side]``: that side's final points minus the best other side's."""
    score_state(state, rules, score)
    ns = rules[R_SIDES]
    for s in range(ns):
        best = -1000
        for t in range(ns):
            if t != s and score[t, I_TOTAL] > best:
                best = score[t, I_TOTAL]
        out[s] = score[s, I_TOTAL] - best


@njit(cache=True)
def end_value(eq, g0, g1, pile0, pile1):
    """Side 0's match-objective value of a finished hand in which side 0 scored ``g0``
    points and side 1 ``g1``, their final piles being ``pile0`` and ``pile1``."""
    if eq[EQ_DENARI] != 0.0:
        if pile0 & DENARI == DENARI:
            return eq[EQ_DENARI0]
        if pile1 & DENARI == DENARI:
            return eq[EQ_DENARI1]
    size = np.int64(eq[EQ_SIZE])
    i = min(max(g0, 0), size - 1)
    j = min(max(g1, 0), size - 1)
    return eq[EQ_GAINS + i * size + j]


@njit(cache=True)
def match_value(eq, e0, e1):
    """Side 0's match-objective value at estimated (fractional) points ``e0`` and ``e1``
    for the hand: the table interpolated bilinearly between whole points (exact at whole
    points; all-denari wins are not estimated)."""
    size = np.int64(eq[EQ_SIZE])
    x = min(max(e0, 0.0), size - 1.0)
    y = min(max(e1, 0.0), size - 1.0)
    i = min(np.int64(x), size - 2)
    j = min(np.int64(y), size - 2)
    fx = x - i
    fy = y - j
    b = EQ_GAINS
    v00 = eq[b + i * size + j]
    v01 = eq[b + i * size + j + 1]
    v10 = eq[b + (i + 1) * size + j]
    v11 = eq[b + (i + 1) * size + j + 1]
    return (1.0 - fx) * ((1.0 - fy) * v00 + fy * v01) + fx * ((1.0 - fy) * v10 + fy * v11)


@njit(cache=True)
def leaf_value(eq, e0, e1, s0, s1, left, total):
    """Side 0's match-objective value of an unfinished hand from :func:`estimate`'s points
    per side (``e0``, ``e1``, scope so far ``s0``, ``s1`` included), ``left`` of ``total``
    plays still to make.

    The estimate credits an item only to a side that leads it, so its points fall short
    of a whole hand's; the item points credited to neither side are shared equally
    (the estimated margin is kept), and the rest of the hand is a normal error on the
    margin with variance ``eq[EQ_SPREAD]**2 * left / total``, integrated by a 5-point
    Gauss-Hermite rule over :func:`match_value`.  Scope still to come and all-denari wins
    are not estimated.

    With a calibration (``eq[EQ_CAL] > 0``, fitted on self-play by
    :func:`scopa_sim.objective.fit_leaf`) the estimated margin after ``p = total - left``
    plays is shrunk by the slope fitted for ``p`` (the sum of both sides' points kept)
    and the error's standard deviation is the residual one fitted for ``p``."""
    free = max(0.0, eq[EQ_ITEMS] - (e0 - s0) - (e1 - s1))
    g0 = e0 + free / 2.0
    g1 = e1 + free / 2.0
    cal = np.int64(eq[EQ_CAL])
    if cal > 0:
        n = np.int64(eq[EQ_CAL_N])
        p = min(max(total - left, 0), n - 1)
        both = g0 + g1
        d = eq[cal + p] * (g0 - g1)
        g0 = (both + d) / 2.0
        g1 = (both - d) / 2.0
        sd = eq[cal + n + p] if left > 0 else 0.0
    else:
        sd = eq[EQ_SPREAD] * math.sqrt(max(0.0, left / total))
    if sd <= 0.0:
        return match_value(eq, g0, g1)
    v = 0.0
    for q in range(GH_NODES.shape[0]):
        r = sd * GH_NODES[q] / 2.0
        v += GH_WEIGHTS[q] * match_value(eq, g0 + r, g1 - r)
    return v


@njit(cache=True)
def _lead(x, s, ns, decided, k):
    """Credit in [0, 1] for side ``s`` leading an item worth one point: 1 if decided
    (``x[s] > decided``), else its lead over the best other side divided by ``k``."""
    if x[s] > decided:
        return 1.0
    best = -1.0
    for t in range(ns):
        if t != s and x[t] > best:
            best = x[t]
    return min(1.0, max(0.0, (x[s] - best) / k))


@njit(cache=True)
def estimate(state, rules, side, with_scope, work):
    """Heuristic margin of ``side`` (its estimated points minus the best other side's)
    from the piles, for depth-limited search.

    Per side: settebello and re bello held; the napola run held; cards and denari: 1 if
    more than half of those in play are already held, else the lead over the best
    other side / 8 (cards) or / 3 (denari), clipped to [0, 1]; primiera: the lead in
    the classic sum over suits (missing suits 0) / 20, or with ``primiera=sevens`` in
    sevens then sixes (7s count 4, 6s 1) / 4 (``escoba_sevens``: aces count 1/5 more),
    clipped to [0, 1]; the point for all four sevens held (``four_sevens_point``); plus
    the scope so far
    with ``with_scope`` (two-side searches add scope along the path instead).
    ``work`` holds at least 16 float64.
    """
    ns = rules[R_SIDES]
    cards = 0
    den = 0
    for s in range(ns):
        p = state[S_PILES + s]
        cards += popcount(p)
        den += popcount(p & DENARI)
    left = state[S_TABLE]
    for s in range(rules[R_PLAYERS]):
        left |= state[S_HANDS + s]
    for i in range(state[S_STOCK], state[S_DECK_SIZE]):
        left |= np.int64(1) << state[S_DECK + i]
    cards += popcount(left)
    den += popcount(left & DENARI)
    estimate_sides(rules, state, S_PILES, state, S_SCOPE, cards, den, with_scope, work)
    best = -1e9
    for t in range(ns):
        if t != side and work[12 + t] > best:
            best = work[12 + t]
    return work[12 + side] - best


@njit(cache=True)
def estimate_sides(rules, piles, po, scope, so, cards, den, with_scope, work):
    """The per-side part of :func:`estimate`: ``work[12 + s]`` = the estimated points of
    side ``s`` from ``piles[po + s]`` (and ``scope[so + s]`` with ``with_scope``),
    ``cards`` and ``den`` being the numbers of cards and denari in play."""
    ns = rules[R_SIDES]
    sevens = rules[R_PRIMIERA_SEVENS] != 0
    escoba = rules[R_PRIMIERA_SEVENS] == PRIMIERA_ESCOBA
    for s in range(ns):
        p = piles[po + s]
        work[s] = popcount(p)
        work[4 + s] = popcount(p & DENARI)
        if escoba:  # sevens, then sixes, then aces
            work[8 + s] = (
                4 * popcount(p & (ACES << 6)) + popcount(p & (ACES << 5)) + popcount(p & ACES) / 5
            )
        elif sevens:
            work[8 + s] = 4 * popcount(p & (ACES << 6)) + popcount(p & (ACES << 5))
        else:
            t = 0
            for u in range(4):
                t += PRIM_BEST[(p >> (10 * u)) & 1023]
            work[8 + s] = t
    for s in range(ns):
        p = piles[po + s]
        e = 0.0
        if p & SETTEBELLO_BIT:
            e += 1.0
        if rules[R_RE_BELLO] and p & RE_BELLO_BIT:
            e += 1.0
        if rules[R_NAPOLA] and (p & 7) == 7:
            e += 3.0 if rules[R_NAPOLA_FIXED3] else ctz(~(p & DENARI))
        if rules[R_FOUR_SEVENS] and (p & SEVENS) == SEVENS:
            e += 1.0
        e += _lead(work[0:4], s, ns, cards / 2, 8.0)
        e += _lead(work[4:8], s, ns, den / 2, 3.0)
        e += _lead(work[8:12], s, ns, 1e9, 4.0 if sevens else 20.0)
        if with_scope:
            e += scope[so + s]
        work[12 + s] = e


@njit(cache=True)
def expert_leaf(state, rules, side, with_scope):
    """Heuristic margin of ``side`` from the piles by the expert policy's evaluation
    (:func:`.policy.expert_eval`): against the other side, or with three or
    four sides against the best of the others; plus the scope so far with
    ``with_scope``."""
    return expert_margin(rules, state, S_PILES, state, S_SCOPE, side, with_scope)


@njit(cache=True)
def expert_margin(rules, piles, po, scope, so, side, with_scope):
    """:func:`expert_leaf` on ``piles[po + s]`` and ``scope[so + s]``."""
    ns = rules[R_SIDES]
    xflags = expert_flags(rules)
    pm = piles[po + side]
    worst = INF
    for t in range(ns):
        if t == side:
            continue
        others = np.int64(0)
        for q in range(ns):
            if q != side and q != t:
                others |= piles[po + q]
        v = expert_eval(pm, piles[po + t], others, rules[R_DECK], xflags)
        if with_scope:
            v += scope[so + side] - scope[so + t]
        if v < worst:
            worst = v
    return worst


# --------------------------------------------------------------------------- leaf calibration
@njit(cache=True)
def leaf_samples(rules, policy, hands, seed, out_d, out_m):
    """Self-play data for the match leaf's calibration: ``hands`` hands (deck from
    ``derive_seed(seed, 17, h, 0)``, dealer ``h % players``) played by the kernel
    ``policy`` at every seat; ``out_d[h, p]`` is the margin side 0 - side 1 that
    :func:`leaf_value` starts from before play ``p`` (:func:`estimate`'s points, scope so
    far included) and ``out_m[h]`` the hand's final margin (points, two sides)."""
    deck = np.empty(40, dtype=np.int64)
    cur = np.empty(N_STATE, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    score = np.zeros((4, N_ITEMS), dtype=np.int64)
    work = np.zeros(16)
    total = rules[R_TOTAL_PLAYS]
    for h in range(hands):
        reseed(rng, derive_seed(seed, 17, h, 0))
        shuffle_deal(rules, rng, deck)
        start_hand(cur, rules, deck, h % rules[R_PLAYERS])
        p = 0
        while not cur[S_DONE]:
            if p < total:
                estimate(cur, rules, 0, True, work)
                out_d[h, p] = work[12] - work[13]
            n = legal_plays(cur, rules, bc, bt, sc)
            i = choose_play(cur, rules, policy, rng, bc, bt, n)
            apply_play(cur, rules, bc[i], bt[i])
            p += 1
        score_state(cur, rules, score)
        out_m[h] = score[0, I_TOTAL] - score[1, I_TOTAL]
