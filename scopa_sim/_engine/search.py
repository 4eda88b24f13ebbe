"""Numba kernels of the strategy search: determinization, an alpha-beta solver, ISMCTS.

Everything here works on the engine's int64 state vector (``S_*`` layout of
:mod:`.layout`) and calls the step kernels (:mod:`.step`) for legal plays, applying a
play and scoring, so the search follows the rules exactly.  The Python API is in
:mod:`scopa_sim.search` and :mod:`scopa_sim.infoset`.

Values are hand point margins.  For two sides (two players, or four in teams) the
margin of a side is its points minus the other side's; for three or four sides it is
its points minus the best other side's.  With a match objective (two sides, an ``eq``
table of :data:`EQ_GAINS` layout, built by :mod:`scopa_sim.objective`) the value of a
finished hand is instead read from that table by the points each side scored, and a
depth-limited position is valued by the same table at the estimated points
(:func:`leaf_value`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .capture import (
    BIG_TABLE,
    BIG_TABLE15,
    count_captures,
    list_captures,
    packed_of,
    pick_capture,
    play_on_table,
    remainder_side,
    value_sum,
)
from .layout import (
    ACES,
    DENARI,
    F_SCOPA,
    I_TOTAL,
    MAX_PLAYS,
    N_ITEMS,
    N_STATE,
    N_WORK,
    POLICY_EXPERT,
    POLICY_GREEDY,
    PRIM_BEST,
    R_ACE_SWEEP,
    R_ACE_SWEEP_SCOPA,
    R_CAPTURE_FIFTEEN,
    R_CAPTURE_HAND,
    R_CAPTURE_OPTIONAL,
    R_DECK,
    R_HAND_SIZE,
    R_LAST_PLAY_SCOPA,
    R_NAPOLA,
    R_NAPOLA_FIXED3,
    R_PLAYERS,
    R_PRIMIERA_SEVENS,
    R_RE_BELLO,
    R_REMAINDER_DEALER,
    R_SIDES,
    R_SUM_FEWEST,
    R_TEAMS,
    R_TOTAL_PLAYS,
    RE_BELLO_BIT,
    S_DEALER,
    S_DECK,
    S_DECK_SIZE,
    S_DONE,
    S_HANDS,
    S_LAST_CAPTURER,
    S_PILES,
    S_PLAYS,
    S_SCOPE,
    S_STOCK,
    S_TABLE,
    S_TURN,
    SCRATCH,
    SETTEBELLO_BIT,
    W_HANDS,
    W_PILES,
    W_SCOPE,
    side_of,
)
from .policy import (
    EXPERT_FIX,
    EXPERT_SCRATCH,
    expert_eval,
    expert_flags,
    expert_play_value,
    expert_play_value15,
    expert_view,
    greedy_score,
    to_fixed,
)
from .scoring import score_into
from .step import apply_play, choose_play, greedy_value, legal_plays, score_state, start_hand
from .streams import GOLDEN, RNG_WORDS, below, derive_seed, mix64, rand_below, reseed, shuffle_deal

# --------------------------------------------------------------------------- constants
#: Depth that means "search to the end of the hand".
FULL_DEPTH = 1000
#: Plies of the solver's stacks: a hand never has more plays left than this.
MAX_PLY = 41
INF = 1e9

# solver info vector
V_NODES = 0  # nodes visited
V_ROOT_SIDE = 1  # the deciding side (paranoid mode)
V_PARANOID = 2  # 1: three or four sides, paranoid values
V_SALT = 3  # mixed into every key (one per world)
V_TT_MASK = 4  # table size - 1
V_LEAF = 5  # leaf value of depth-limited search: LEAF_ESTIMATE or LEAF_EXPERT
V_MATCH = 6  # 1: the match objective (values from the ``eq`` table, scope included)
N_INFO = 7

# leaf values of depth-limited search
LEAF_ESTIMATE = 0  # :func:`estimate`
LEAF_EXPERT = 1  # the expert policy's evaluation of the piles (:func:`expert_leaf`)

# play models of the other seats (the belief's channels, :mod:`.belief`; ``reply`` of ISMCTS)
KIND_RANDOM = 0  # uniform over the distinct legal plays
KIND_GREEDY = 1  # the greedy heuristic's values
KIND_EXPERT = 2  # the expert policy's values
KIND_SEARCH = 3  # ISMCTS's reply only: a seat that plays like the search itself (UCB1)

# transposition-table entry flags
TT_EXACT = 1
TT_LOWER = 2
TT_UPPER = 3

# solver frame columns (float frames / int frames)
X_ALPHA = 0
X_BETA = 1
X_ALPHA0 = 2
X_BEST = 3
X_G = 4  # scope scored by the play being searched (two sides)
X_SIGN = 5  # +1: same team to play after it, -1: the other
X_DEPTH = 0
X_K = 1  # position in the play order
X_N = 2  # number of plays
X_BI = 3  # index of the best play so far
X_KEY = 4
X_COLS = 6

# ISMCTS tree pool columns (int64; one row per node, a node being a play)
T_CARD = 0
T_TAKE = 1
T_CHILD = 2  # first child, -1: none
T_NEXT = 3  # next sibling, -1: none
T_VISITS = 4
T_AVAIL = 5  # iterations in which the play was legal when its parent was passed
T_SUM = 6  # sum of the backed-up hand margins (points, for the side that made the play)
T_SQ = 7  # sum of their squares
T_COLS = 8

#: ISMCTS reward = hand point margin * REWARD_SCALE.  Hand margins mostly lie within
#: +-4 points, so scaled rewards mostly lie within +-1 and UCB's exploration constant
#: works around the usual 0.7 (= 1/sqrt(2) for rewards of unit range).
REWARD_SCALE = 0.25

# The match objective's table ``eq`` (float64; an empty array is the margin objective).
# Values are side 0's, in points (side 1's is the negation: one side wins the match); the
# Python side (:mod:`scopa_sim.objective`) fills them from the match-equity table.
EQ_SIZE = 0  # G: the table covers 0..G-1 points per side (more is read as G - 1)
EQ_DENARI = 1  # 1.0: a side that captured all the denari wins the match outright
EQ_DENARI0 = 2  # side 0's value when side 0 captured all the denari
EQ_DENARI1 = 3  # side 0's value when side 1 did
EQ_ITEMS = 4  # points of the items (cards, denari, settebello, primiera, re bello)
EQ_SPREAD = 5  # standard deviation of a whole hand's margin (points)
EQ_CAL = 6  # offset of the leaf's calibration (0: none, the normal model of EQ_SPREAD)
EQ_CAL_N = 7  # P: plays of a hand; eq[EQ_CAL + p] the slope, eq[EQ_CAL + P + p] the spread
EQ_GAINS = 8  # eq[EQ_GAINS + g0 * G + g1]: side 0 scored g0 points in the hand, side 1 g1

#: Gauss-Hermite rule of 5 points for the standard normal (nodes, weights).
GH_NODES = np.array([0.0, -1.3556261799742659, 1.3556261799742659, -2.8569700138728056,
                     2.8569700138728056])  # fmt: skip
GH_WEIGHTS = np.array([0.5333333333333333, 0.2220759220056126, 0.2220759220056126,
                       0.011257411327720691, 0.011257411327720691])  # fmt: skip


# --------------------------------------------------------------------------- determinization
@njit(cache=True)
def _redeal(state, rules, seat, rng, out, shuffle):
    """Copy ``state`` to ``out`` with the cards ``seat`` cannot see dealt anew.

    The unseen cards are those of the other hands and of the stock.  They are laid at
    the end of the deck order (shuffled when ``shuffle``, else in card order), the
    other hands take theirs from the front of that run in seat order by their current
    sizes, and the rest is the stock.  Cards already seen are written before them in
    card order, so ``out`` holds no trace of how the true deal went.
    """
    for i in range(N_STATE):
        out[i] = state[i]
    n = rules[R_PLAYERS]
    size = state[S_DECK_SIZE]
    unseen = np.int64(0)
    for s in range(n):
        if s != seat:
            unseen |= state[S_HANDS + s]
    for i in range(state[S_STOCK], size):
        unseen |= np.int64(1) << state[S_DECK + i]
    everything = np.int64(0)
    for i in range(size):
        everything |= np.int64(1) << state[S_DECK + i]
    pos = S_DECK
    m = everything & ~unseen
    while m:
        out[pos] = ctz(m)
        m &= m - 1
        pos += 1
    start = pos
    m = unseen
    while m:
        out[pos] = ctz(m)
        m &= m - 1
        pos += 1
    if shuffle:
        for i in range(pos - start - 1, 0, -1):
            j = rand_below(rng, i + 1)
            t = out[start + i]
            out[start + i] = out[start + j]
            out[start + j] = t
    for s in range(n):
        if s != seat:
            h = np.int64(0)
            for _ in range(popcount(state[S_HANDS + s])):
                h |= np.int64(1) << out[start]
                start += 1
            out[S_HANDS + s] = h


@njit(cache=True)
def determinize(state, rules, seat, rng, out_state):
    """A world consistent with what ``seat`` knows, into ``out_state``: the cards it
    cannot see (other hands and stock) dealt uniformly at random to the other hands
    (keeping their sizes) and to the stock (keeping its size)."""
    _redeal(state, rules, seat, rng, out_state, True)


@njit(cache=True)
def pick_weighted(cum, lo, hi, x):
    """The first index ``i`` in ``[lo, hi)`` with ``cum[i] > x`` (the last if none): a
    draw from cumulative weights ``cum`` by a uniform ``x`` in [0, 1)."""
    a = lo
    b = hi - 1
    while a < b:
        mid = (a + b) // 2
        if cum[mid] > x:
            b = mid
        else:
            a = mid + 1
    return a


@njit(cache=True)
def unit_draw(z):
    """A uniform double in [0, 1) from the generator state ``z`` already advanced."""
    return float(mix64(z) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def draw_world(state, rules, seat, rng, out_state, parts, cum):
    """A world consistent with what ``seat`` knows, into ``out_state``: with no
    particles (``parts`` of 0 rows) exactly :func:`determinize` (the uniform draw);
    else from a belief (:mod:`.belief`): a particle ``p`` drawn by its
    cumulative weight ``cum``, the other seats holding ``parts[p, s]`` where it is not
    -1, the cards left dealt uniformly to the other hands and to the stock."""
    if parts.shape[0] == 0:
        _redeal(state, rules, seat, rng, out_state, True)
        return
    rng[0] += GOLDEN
    p = pick_weighted(cum, 0, cum.shape[0], unit_draw(rng[0]))
    for i in range(N_STATE):
        out_state[i] = state[i]
    n = rules[R_PLAYERS]
    size = state[S_DECK_SIZE]
    unseen = np.int64(0)
    taken = np.int64(0)
    for s in range(n):
        if s != seat:
            unseen |= state[S_HANDS + s]
            if parts[p, s] >= 0:
                taken |= parts[p, s]
    for i in range(state[S_STOCK], size):
        unseen |= np.int64(1) << state[S_DECK + i]
    everything = np.int64(0)
    for i in range(size):
        everything |= np.int64(1) << state[S_DECK + i]
    pos = S_DECK
    m = everything & ~unseen
    while m:
        out_state[pos] = ctz(m)
        m &= m - 1
        pos += 1
    pool = np.empty(40, dtype=np.int64)
    npool = 0
    m = unseen & ~taken
    while m:
        pool[npool] = ctz(m)
        m &= m - 1
        npool += 1
    for i in range(npool - 1, 0, -1):
        j = rand_below(rng, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    q = 0
    for s in range(n):
        if s == seat:
            continue
        h = np.int64(0)
        if parts[p, s] >= 0:
            h = parts[p, s]
            m = h
            while m:
                out_state[pos] = ctz(m)
                m &= m - 1
                pos += 1
        else:
            for _ in range(popcount(state[S_HANDS + s])):
                h |= np.int64(1) << pool[q]
                out_state[pos] = pool[q]
                q += 1
                pos += 1
        out_state[S_HANDS + s] = h
    while q < npool:
        out_state[pos] = pool[q]
        q += 1
        pos += 1


@njit(cache=True)
def canonical_world(state, rules, seat, out_state):
    """The one world of ``seat``'s information set with the unseen cards in card order:
    a state that depends only on what ``seat`` knows (used as the root of searches)."""
    _redeal(state, rules, seat, np.zeros(RNG_WORDS, dtype=np.uint64), out_state, False)


# --------------------------------------------------------------------------- evaluation
@njit(cache=True)
def _margins(state, rules, score, out):
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
    sevens then sixes (7s count 4, 6s 1) / 4, clipped to [0, 1]; plus the scope so far
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
    _estimate_sides(rules, state, S_PILES, state, S_SCOPE, cards, den, with_scope, work)
    best = -1e9
    for t in range(ns):
        if t != side and work[12 + t] > best:
            best = work[12 + t]
    return work[12 + side] - best


@njit(cache=True)
def _estimate_sides(rules, piles, po, scope, so, cards, den, with_scope, work):
    """The per-side part of :func:`estimate`: ``work[12 + s]`` = the estimated points of
    side ``s`` from ``piles[po + s]`` (and ``scope[so + s]`` with ``with_scope``),
    ``cards`` and ``den`` being the numbers of cards and denari in play."""
    ns = rules[R_SIDES]
    sevens = rules[R_PRIMIERA_SEVENS] != 0
    for s in range(ns):
        p = piles[po + s]
        work[s] = popcount(p)
        work[4 + s] = popcount(p & DENARI)
        if sevens:
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
    return _expert_margin(rules, state, S_PILES, state, S_SCOPE, side, with_scope)


@njit(cache=True)
def _expert_margin(rules, piles, po, scope, so, side, with_scope):
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


# --------------------------------------------------------------------------- solver
@njit(cache=True)
def _pile_key(pile, sevens):
    """What of a pile can still matter to the final score: its size, its denari (settebello,
    re bello, napola, denari count, denari primiera) and per other suit the best primiera
    value (classic) or the count of each rank A..7 (sevens)."""
    f = popcount(pile) | ((pile & DENARI) << 6)
    if sevens:
        for k in range(7):
            f |= np.int64(popcount(pile & (ACES << k) & ~DENARI)) << (16 + 2 * k)
    else:
        for u in range(1, 4):
            f |= PRIM_BEST[(pile >> (10 * u)) & 1023] << (11 + 5 * u)
    return f


@njit(cache=True)
def _hash(h, x):
    return mix64(h ^ np.uint64(x))


@njit(cache=True)
def _key(state, rules, info):
    """Transposition key (never 0) of everything that decides the rest of the hand's value:
    hands, table, stock position (the deck order is fixed within one world, whose salt is
    mixed in), the score-relevant part of each pile, the last capturer and the seat to
    play; in paranoid and match mode also the scope counts, since values there include
    them."""
    h = np.uint64(info[V_SALT])
    for s in range(rules[R_PLAYERS]):
        h = _hash(h, state[S_HANDS + s])
    h = _hash(h, state[S_TABLE])
    h = _hash(h, state[S_STOCK] | (state[S_TURN] << 8) | ((state[S_LAST_CAPTURER] + 1) << 12))
    sevens = rules[R_PRIMIERA_SEVENS] != 0
    paranoid = info[V_PARANOID] != 0 or info[V_MATCH] != 0
    for s in range(rules[R_SIDES]):
        h = _hash(h, _pile_key(state[S_PILES + s], sevens))
        if paranoid:
            h = _hash(h, state[S_SCOPE + s])
    return np.int64(h >> np.uint64(1)) | 1


@njit(cache=True)
def _team(rules, info, state):
    """The "team" of the seat to play: its side with two sides, else 1 for the deciding
    side and 0 for the coalition of the others (paranoid reduction)."""
    side = side_of(rules, state[S_TURN])
    if info[V_PARANOID]:
        return 1 if side == info[V_ROOT_SIDE] else 0
    return side


@njit(cache=True)
def _static(state, rules, info, score, margins, work, exact, eq):
    """Value of a finished (``exact``) or depth-limited position for the seat to play: the
    rest of the hand's margin (two sides: scope already scored left out) or, paranoid,
    the deciding side's whole margin, negated for the coalition; with the match
    objective, the ``eq`` table's value of the hand's points (estimated ones at a depth
    limit, scope so far included)."""
    side = side_of(rules, state[S_TURN])
    if info[V_MATCH]:
        if exact:
            score_state(state, rules, score)
            v = end_value(
                eq, score[0, I_TOTAL], score[1, I_TOTAL], state[S_PILES], state[S_PILES + 1]
            )
        else:
            estimate(state, rules, 0, True, work)
            left = rules[R_TOTAL_PLAYS] - state[S_PLAYS]
            v = leaf_value(eq, work[12], work[13], float(state[S_SCOPE]),
                           float(state[S_SCOPE + 1]), left, rules[R_TOTAL_PLAYS])  # fmt: skip
        return v if side == 0 else -v
    if info[V_PARANOID]:
        root = info[V_ROOT_SIDE]
        if exact:
            _margins(state, rules, score, margins)
            v = float(margins[root])
        elif info[V_LEAF] == LEAF_EXPERT:
            v = expert_leaf(state, rules, root, True)
        else:
            v = estimate(state, rules, root, True, work)
        return v if side == root else -v
    if exact:
        _margins(state, rules, score, margins)
        v = float(margins[side])
        other = 1 - side
        return v - (state[S_SCOPE + side] - state[S_SCOPE + other])
    if info[V_LEAF] == LEAF_EXPERT:
        return expert_leaf(state, rules, side, False)
    return estimate(state, rules, side, False, work)


@njit(cache=True)
def _order(state, rules, bc, bt, n, order, first):
    """Fill ``order[:n]`` with play indices: ``first`` (the table's best play), then by
    descending greedy value (insertion sort; play counts are small)."""
    for i in range(n):
        v = greedy_value(state, rules, bc[i], bt[i])
        if i == first:
            v += 1 << 30
        j = i
        while j > 0 and (order[j - 1] >> 32) < v:
            order[j] = order[j - 1]
            j -= 1
        order[j] = (v << 32) | i
    for i in range(n):
        order[i] &= 0xFFFFFFFF


@njit(cache=True)
def _play(st, rules, info, ply, card, take):
    """Copy ``st[ply]`` to ``st[ply + 1]`` (all but the deck order, which is the same at
    every ply) and make the play there; return the scope it scored (two sides, margin
    objective only: paranoid and match values count scope at the end) and +1 when the
    same team is to play next, -1 when the other one is."""
    s = st[ply]
    child = st[ply + 1]
    for i in range(S_DECK):  # the deck order (S_DECK's 40 words) is the same at every
        child[i] = s[i]  # ply: :func:`_solve` wrote it to each once
    for i in range(S_DECK + 40, N_STATE):
        child[i] = s[i]
    flags = apply_play(child, rules, card, take)
    g = 0.0
    if not info[V_PARANOID] and not info[V_MATCH] and flags & F_SCOPA:
        g = 1.0
    same = _team(rules, info, child) == _team(rules, info, s)
    return g, 1.0 if same else -1.0


@njit(cache=True)
def _negamax(
    rules, st, bc, bt, sc, order, fl, fi, tt_key, tt_val, tt_meta, info, score, margins,
    work, ply0, depth0, alpha0, beta0, eq,
):  # fmt: skip
    """Fail-soft alpha-beta negamax with a transposition table: the value of ``st[ply0]``
    for the seat to play (see :func:`_static`), searched ``depth0`` plies within
    (alpha0, beta0); ``eq`` is the match objective's table (empty: margins).

    Iterative, on explicit per-ply frames (``fl``: float64, ``fi``: int64, ``X_*``
    columns), because numba's cache crashes on recursive functions (numba #6061).  A
    table entry keeps the value, its bound type, the remaining depth it was searched
    to and the index of the best play (legal plays come in a fixed order), tried first
    next time.
    """
    ply = ply0
    fl[ply, X_ALPHA] = alpha0
    fl[ply, X_BETA] = beta0
    fi[ply, X_DEPTH] = depth0
    mask = info[V_TT_MASK]
    while True:
        # ---- enter the node at ply
        info[V_NODES] += 1
        s = st[ply]
        depth = fi[ply, X_DEPTH]
        alpha = fl[ply, X_ALPHA]
        beta = fl[ply, X_BETA]
        done = True
        value = 0.0
        if s[S_DONE]:
            value = _static(s, rules, info, score, margins, work, True, eq)
        elif depth <= 0:
            value = _static(s, rules, info, score, margins, work, False, eq)
        else:
            key = _key(s, rules, info)
            slot = key & mask
            first = -1
            hit = False
            if tt_key[slot] == key:
                meta = tt_meta[slot]  # flag (2 bits) | depth (16 bits) << 2 | best index << 18
                first = meta >> 18
                if ((meta >> 2) & 0xFFFF) >= depth:
                    value = tt_val[slot]
                    flag = meta & 3
                    hit = (
                        flag == TT_EXACT
                        or (flag == TT_LOWER and value >= beta)
                        or (flag == TT_UPPER and value <= alpha)
                    )
            if not hit:
                n = legal_plays(s, rules, bc[ply], bt[ply], sc)
                if n == 0:  # only in hand-made positions: nothing to play
                    value = _static(s, rules, info, score, margins, work, False, eq)
                else:
                    _order(s, rules, bc[ply], bt[ply], n, order[ply], first)
                    fi[ply, X_K] = 0
                    fi[ply, X_N] = n
                    fi[ply, X_BI] = order[ply, 0]
                    fi[ply, X_KEY] = key
                    fl[ply, X_ALPHA0] = alpha
                    fl[ply, X_BEST] = -INF
                    done = False
        # ---- return values up while nodes are finished
        while done:
            if ply == ply0:
                return value
            ply -= 1
            v = fl[ply, X_G] + fl[ply, X_SIGN] * value
            if v > fl[ply, X_BEST]:
                fl[ply, X_BEST] = v
                fi[ply, X_BI] = order[ply, fi[ply, X_K]]
                if v > fl[ply, X_ALPHA]:
                    fl[ply, X_ALPHA] = v
            fi[ply, X_K] += 1
            if fl[ply, X_ALPHA] >= fl[ply, X_BETA] or fi[ply, X_K] >= fi[ply, X_N]:
                value = fl[ply, X_BEST]
                flag = TT_EXACT
                if value <= fl[ply, X_ALPHA0]:
                    flag = TT_UPPER
                elif value >= fl[ply, X_BETA]:
                    flag = TT_LOWER
                key = fi[ply, X_KEY]
                slot = key & mask
                tt_key[slot] = key
                tt_val[slot] = value
                tt_meta[slot] = flag | (min(fi[ply, X_DEPTH], 0xFFFF) << 2) | (fi[ply, X_BI] << 18)
            else:
                done = False
        # ---- descend into the next play
        i = order[ply, fi[ply, X_K]]
        g, sign = _play(st, rules, info, ply, bc[ply, i], bt[ply, i])
        fl[ply, X_G] = g
        fl[ply, X_SIGN] = sign
        a = fl[ply, X_ALPHA]
        b = fl[ply, X_BETA]
        fi[ply + 1, X_DEPTH] = fi[ply, X_DEPTH] - 1
        if sign > 0:
            fl[ply + 1, X_ALPHA] = a - g
            fl[ply + 1, X_BETA] = b - g
        else:
            fl[ply + 1, X_ALPHA] = g - b
            fl[ply + 1, X_BETA] = g - a
        ply += 1


@njit(cache=True)
def _workspace(state, rules):
    """Search stacks sized for the rest of the hand at ``state``: states, play buffers,
    play orders and frames.

    A play buffer holds at most hand size * (C(T, T // 2) + 1) plays, T bounding the
    table size (table now plus every card left to play): the sets of table cards with
    one value sum form an antichain (one inside another would add a zero), so Sperner's
    theorem bounds their number.  Small endgames so get small buffers.
    """
    left = rules[R_TOTAL_PLAYS] - state[S_PLAYS]
    plies = left + 2
    t = popcount(state[S_TABLE]) + left
    sperner = 1
    for i in range(t // 2):
        sperner = sperner * (t - i) // (i + 1)
        if sperner > MAX_PLAYS:
            break
    hand = 0
    for s in range(rules[R_PLAYERS]):
        hand = max(hand, popcount(state[S_HANDS + s]))
    cap = min(MAX_PLAYS, max(hand, rules[R_HAND_SIZE]) * (max(sperner, 4) + 1))
    st = np.empty((plies + 1, N_STATE), dtype=np.int64)
    bc = np.empty((plies, cap), dtype=np.int64)
    bt = np.empty((plies, cap), dtype=np.int64)
    order = np.empty((plies, cap), dtype=np.int64)
    fl = np.zeros((plies + 1, X_COLS), dtype=np.float64)
    fi = np.zeros((plies + 1, X_COLS), dtype=np.int64)
    return st, bc, bt, order, fl, fi


@njit(cache=True)
def _solve(state, rules, depth, tt_key, tt_val, tt_meta, info, ws, out_val, eq):
    """:func:`solve_root` on a given workspace, for the plays already in ``bc[0]``, ``bt[0]``
    (``n`` of them, returned); ``eq`` the match objective's table (empty: margins)."""
    st, bc, bt, order, fl, fi = ws
    sc = np.empty(SCRATCH, dtype=np.int64)
    score = np.zeros((4, N_ITEMS), dtype=np.int64)
    margins = np.zeros(4, dtype=np.int64)
    work = np.zeros(16, dtype=np.float64)
    ns = rules[R_SIDES]
    side = side_of(rules, state[S_TURN])
    info[V_PARANOID] = 1 if ns > 2 else 0
    info[V_ROOT_SIDE] = side
    info[V_MATCH] = 1 if eq.shape[0] > 0 else 0
    for p in range(st.shape[0]):  # every ply's row: :func:`_play` copies all but the deck
        for i in range(N_STATE):
            st[p, i] = state[i]
    n = legal_plays(state, rules, bc[0], bt[0], sc)
    now = 0.0
    if ns == 2 and not info[V_MATCH]:
        now = float(state[S_SCOPE + side] - state[S_SCOPE + 1 - side])
    for i in range(n):
        g, sign = _play(st, rules, info, 0, bc[0, i], bt[0, i])
        v = sign * _negamax(
            rules, st, bc, bt, sc, order, fl, fi, tt_key, tt_val, tt_meta, info, score,
            margins, work, 1, depth - 1, -INF, INF, eq,
        )  # fmt: skip
        out_val[i] = now + g + v
    return n


@njit(cache=True)
def solve_root(
    state, rules, depth, tt_key, tt_val, tt_meta, info, out_card, out_take, out_val, eq=None
):
    """Exact (``depth >= FULL_DEPTH``) or depth-limited value of every legal play at
    ``state`` for the side to play, as the hand's final point margin.

    Two sides: own points minus the other side's, by exact negamax.  Three or four
    sides: the paranoid reduction -- the deciding side maximises its points minus the
    best other side's and all other sides play together to minimise that.  Beyond
    ``depth`` plies positions are valued by :func:`estimate`.  The stock's order is
    part of the state, so deals are deterministic and the search crosses them.

    Writes the plays (in :func:`legal_plays` order) and values to the ``out_*`` arrays
    and returns their number.  The caller sets ``info[V_TT_MASK]`` (table size - 1, a
    power of two less one) and ``info[V_SALT]`` (mixed into every key, so tables can be
    shared between worlds without clearing); the node count is added to
    ``info[V_NODES]``.  With ``eq`` (two sides) the values are the match objective's
    instead of margins (see :data:`EQ_GAINS`).
    """
    e = np.empty(0) if eq is None else eq
    ws = _workspace(state, rules)
    n = _solve(state, rules, depth, tt_key, tt_val, tt_meta, info, ws, out_val, e)
    bc = ws[1]
    bt = ws[2]
    for i in range(n):
        out_card[i] = bc[0, i]
        out_take[i] = bt[0, i]
    return n


@njit(cache=True)
def pimc_values(
    state, rules, worlds, depth, exact_below, seed, tt_key, tt_val, tt_meta, out_card,
    out_take, out_val, leaf=LEAF_ESTIMATE, eq=None, parts=None, cum=None,
):  # fmt: skip
    """Perfect-information Monte Carlo: ``out_val[w, i]`` is the value of legal play ``i``
    (see :func:`solve_root`) in world ``w``, a determinization of ``state`` for the seat
    to play drawn from the stream ``derive_seed(seed, 3, w, 0)`` (:func:`draw_world`:
    uniform, or from the belief particles ``parts``/``cum`` when given).  Each world is
    solved exactly when at most ``exact_below`` cards are left to play, else to
    ``depth`` plies with the heuristic leaf value ``leaf`` (``LEAF_*``); with ``eq`` (an
    empty array: none) the values are the match objective's (:func:`solve_root`).
    Returns the number of plays."""
    e = np.empty(0) if eq is None else eq
    if parts is None:
        bparts = np.empty((0, 4), dtype=np.int64)
        bcum = np.empty(0)
    else:
        bparts = parts
        bcum = cum
    seat = state[S_TURN]
    world = np.empty(N_STATE, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    info = np.zeros(N_INFO, dtype=np.int64)
    info[V_TT_MASK] = tt_key.shape[0] - 1
    info[V_LEAF] = leaf
    ws = _workspace(state, rules)
    bc = ws[1]
    bt = ws[2]
    vals = np.empty(MAX_PLAYS, dtype=np.float64)
    left = rules[R_TOTAL_PLAYS] - state[S_PLAYS]
    d = FULL_DEPTH if left <= exact_below else depth
    n = 0
    for w in range(worlds):
        reseed(rng, derive_seed(seed, 3, w, 0))
        draw_world(state, rules, seat, rng, world, bparts, bcum)
        info[V_SALT] = np.int64(derive_seed(seed, 4, w, 0) >> np.uint64(1))
        n = _solve(world, rules, d, tt_key, tt_val, tt_meta, info, ws, vals, e)
        for i in range(n):
            out_val[w, i] = vals[i]
            out_card[i] = bc[0, i]
            out_take[i] = bt[0, i]
    return n


# --------------------------------------------------------------------------- ISMCTS
# The ISMCTS kernel plays each iteration on locals, as the engine's fused self-play
# loop does (:func:`.fused.fused_hands`): the table's subset counts by
# value sum are kept packed (``GROW``/``SHRINK``) so a card's number of captures is
# a few bit operations, only the chosen play is built, and no array crosses a call in
# the hot loop.  Packed counts are read only for tables of at most 6 cards, where every
# count is below 32 whatever the position (the sets of cards with one value sum form an
# antichain, so there are at most C(6, 3) = 20 of them); larger tables, which a root
# given by hand may hold, fall back to listing the captures (:func:`.capture.list_captures`).
# The packed value itself stays exact through any sequence of joins and leaves (the
# multipliers are inverse modulo 2**55), so it is right again once the table shrinks.

#: Slots of ISMCTS's cache of a modelled seat's expert play values at a tree node (they
#: depend on the node and the seat's hand only), and the most plays a slot keeps.
CACHE = 1 << 12
CACHE_W = 32

#: Fixed-point unit of the tree's sums when rollouts stop at a horizon (heuristic values).
EST_UNIT = 1 << 10

#: Log of one iteration (tests): plays made, the world's hands and stock order, the
#: final margins, then (card, take, number of legal plays) per play.
L_MADE = 0
L_HANDS = 1
L_STOCK_LEN = 5
L_STOCK = 6
L_MARGINS = 46
L_PLAYS = 50
L_SIZE = L_PLAYS + 3 * 64


@njit(cache=True)
def ismcts_init(root, tree):
    """Make the pool hold the root alone; return the node count (1)."""
    for j in range(T_COLS):
        tree[0, j] = 0
    tree[0, T_CARD] = -1
    tree[0, T_CHILD] = -1
    tree[0, T_NEXT] = -1
    return 1


@njit(cache=True, inline="always")
def _add_child(tree, node, new, card, take):
    """Make row ``new`` of the pool an unvisited child ``(card, take)`` of ``node``, first
    in its list of children (the expansion by UCB1 and by a modelled reply); return it."""
    tree[new, T_CARD] = card
    tree[new, T_TAKE] = take
    tree[new, T_CHILD] = -1
    tree[new, T_NEXT] = tree[node, T_CHILD]
    tree[new, T_VISITS] = 0
    tree[new, T_AVAIL] = 1
    tree[new, T_SUM] = 0
    tree[new, T_SQ] = 0
    tree[node, T_CHILD] = new
    return new


def ismcts_run(root, rules, tree, count, iterations, c, policy, horizon, rng, log, leaf=0, eq=None,
               parts=None, cum=None, reply=None):  # fmt: skip
    """Run ``iterations`` of single-observer ISMCTS from ``root`` (the seat to play's
    information set, any world of it) on the node pool ``tree`` (``T_*`` columns)
    holding ``count`` nodes; return the new count.

    Each iteration: a new determinization for the root seat (the cards it cannot see
    shuffled and dealt to the other hands by their sizes, the rest is the stock);
    selection from the root among the children legal in this world, by UCB1 with
    availability counts (mean reward + c * sqrt(ln(availability) / visits)), until a
    node has an untried legal play; expansion of one of them chosen at random (unless
    the pool is full); a rollout with the engine's ``policy`` (``POLICY_RANDOM``:
    uniform over the distinct legal plays; ``POLICY_GREEDY``: the greedy heuristic,
    ``POLICY_EXPERT``: the expert policy, ties at random) for every seat; the final
    hand margins backed up, each node getting the margin of the side that made its play
    (for three or four sides, that side's points minus the best other side's).
    Rewards are margins scaled by ``REWARD_SCALE``.  Availability of every legal child
    is counted at each node passed; a child is legal in a world exactly when its card is
    in the hand of the seat to play (and, for a lay under ``capture_rule=hand`` with
    compulsory captures, no card captures), since the table at a node is the same in
    every world.  The capture rule is the rules' (RULES.md §4, or §9's fifteen rule:
    compiled separately, :func:`_ismcts_run15`).

    With ``horizon < FULL_DEPTH`` a rollout stops after ``horizon`` plays (0: at the
    position of the node just expanded) and that position is valued by the heuristic
    ``leaf`` (``LEAF_ESTIMATE``: :func:`estimate`; ``LEAF_EXPERT``: the expert policy's
    evaluation, :func:`expert_leaf`; scope so far included) instead of the final score; rewards, and
    so the sums in the tree, are then in units of ``1 / EST_UNIT`` points (rounded).
    The default, full rollouts, keeps integer margins.

    With ``eq`` (two sides, :data:`EQ_GAINS` layout) rewards are the match objective's:
    the table's value of the points each side scored in the hand (:func:`end_value`),
    or at a horizon of the points estimated by :func:`estimate` (:func:`leaf_value`);
    side 1 gets the negation of side 0's.  Sums are then in units of ``1 / EST_UNIT``.

    With belief particles ``parts``/``cum`` (:mod:`.belief`; none: the uniform
    draw above) each iteration's world takes the other hands from a particle drawn by
    its weight where the particle holds them (``parts[p, s] >= 0``), and deals the
    cards left uniformly to the other hands and the stock.

    With ``reply = (kinds, taus, eps, post, rollouts)`` (play models, the :data:`KIND_*` channels of
    a belief with ``post[s, m]`` the posterior that seat ``s`` plays like channel ``m``;
    None: every seat by the tree's UCB1 and the rollout ``policy``) each iteration draws
    a channel per seat of the other sides from ``post``, and those seats' plays, in the
    tree and in the rollout, follow it: with probability ``eps[m]`` uniform over the
    legal plays, else (``KIND_RANDOM``: uniform) the best by the greedy or expert values
    (ties uniform) at ``taus[m] = 0``, or a softmax of those values (points) at
    temperature ``taus[m]``, as :func:`.belief.decision_loglik` scores them
    (``KIND_SEARCH``: the seat plays like this search, by UCB1 and ``policy``).  In the
    tree such a play follows (or, untried, expands) its child; in the rollouts (with
    ``rollouts`` true; else those seats roll out by ``policy`` too) it is played; the
    root's side still chooses by UCB1 and the rollout ``policy``.

    ``rng`` (a generator state array, see :func:`.streams.new_rng`) carries the random stream across
    calls in its counter, so a run split into chunks gives the same tree.  With ``log``
    of ``L_SIZE`` entries the last iteration's world and plays are written there (``L_*``
    layout); pass an empty array otherwise.
    """
    kernel = _ismcts_run15 if rules[R_CAPTURE_FIFTEEN] else _ismcts_run_scopa
    # ``float(c)``: one compiled signature whether ``c`` came as ``c=1`` or ``c=0.7`` (an
    # int would compile the whole loop a second time, about 40 s).
    return kernel(
        root, rules, tree, count, iterations, float(c), policy, horizon, rng, log, leaf,
        _NO_EQ if eq is None else eq,
        _NO_PARTS if parts is None else parts, _NO_CUM if cum is None else cum,
        *(_NO_REPLY if reply is None else reply),
    )  # fmt: skip


#: No match objective, no belief: the empty arrays :func:`ismcts_run` passes for them.
_NO_EQ = np.empty(0)
_NO_PARTS = np.empty((0, 4), dtype=np.int64)
_NO_CUM = np.empty(0)
_NO_REPLY = (np.empty(0, dtype=np.int64), np.empty(0), np.empty(0), np.empty((4, 0)), False)


@njit(cache=True)
def _ismcts_run_scopa(root, rules, tree, count, iterations, c, policy, horizon, rng, log, leaf,
                      eq, parts, cum, rkinds, rtaus, reps, rpost, rroll):  # fmt: skip
    """:func:`ismcts_run` under Scopa's capture rule."""
    return _ismcts(root, rules, tree, count, iterations, c, policy, horizon, rng, log, leaf,
                   eq, parts, cum, rkinds, rtaus, reps, rpost, rroll, False)  # fmt: skip


@njit(cache=True)
def _ismcts_run15(root, rules, tree, count, iterations, c, policy, horizon, rng, log, leaf,
                  eq, parts, cum, rkinds, rtaus, reps, rpost, rroll):  # fmt: skip
    """:func:`ismcts_run` under the fifteen rule (capture_mode=fifteen)."""
    return _ismcts(root, rules, tree, count, iterations, c, policy, horizon, rng, log, leaf,
                   eq, parts, cum, rkinds, rtaus, reps, rpost, rroll, True)  # fmt: skip


@njit(cache=True, inline="always")
def _ismcts(root, rules, tree, count, iterations, c, policy, horizon, rng, log, leaf, eqt,
            bparts, bcum, rkinds, rtaus, reps, rpost, rroll, fifteen):  # fmt: skip
    """The body of :func:`ismcts_run`, the capture rule chosen by ``fifteen``; ``eqt`` the
    match objective's table (empty: margins), ``bparts``/``bcum`` the belief's particles
    (none: the uniform draw), ``rkinds``/``rtaus``/``reps``/``rpost`` the other sides'
    play models (no channels: UCB1 and the rollout policy for every seat), followed in
    the rollouts too when ``rroll``."""
    nparts = bparts.shape[0]
    nrc = rkinds.shape[0]
    chans = np.zeros(4, dtype=np.int64)  # this iteration's channel of each modelled seat
    pv = np.empty(MAX_PLAYS)  # a softmax reply's play values, cards and takes
    pc = np.empty(MAX_PLAYS, dtype=np.int64)
    pt = np.empty(MAX_PLAYS, dtype=np.int64)
    # the expert values of a modelled seat's plays at a tree node, by (node, hand)
    c_node = np.full(CACHE if nrc else 1, -1, dtype=np.int64)
    c_hand = np.zeros(CACHE if nrc else 1, dtype=np.int64)
    c_n = np.zeros(CACHE if nrc else 1, dtype=np.int64)
    c_val = np.empty((CACHE if nrc else 1, CACHE_W))
    c_card = np.empty((CACHE if nrc else 1, CACHE_W), dtype=np.int64)
    c_take = np.empty((CACHE if nrc else 1, CACHE_W), dtype=np.int64)
    g = GOLDEN
    z = rng[0]
    cap = tree.shape[0]
    logging = log.shape[0] >= L_SIZE
    players = rules[R_PLAYERS]
    teams = rules[R_TEAMS] != 0
    ns = rules[R_SIDES]
    hand_size = rules[R_HAND_SIZE]
    total = rules[R_TOTAL_PLAYS]
    fewest = rules[R_SUM_FEWEST] != 0
    capture_hand = rules[R_CAPTURE_HAND] != 0
    optional = rules[R_CAPTURE_OPTIONAL] != 0
    ace_rule = rules[R_ACE_SWEEP] != 0
    ace_scopa = rules[R_ACE_SWEEP_SCOPA] != 0
    lps = rules[R_LAST_PLAY_SCOPA] != 0
    remainder_dealer = rules[R_REMAINDER_DEALER] != 0
    greedy = policy == POLICY_GREEDY
    expert = policy == POLICY_EXPERT
    xflags = expert_flags(rules)
    xs = np.empty(EXPERT_SCRATCH)
    size = rules[R_DECK]
    seat = root[S_TURN]
    root_side = (seat & 1) if teams else seat
    dealer = root[S_DEALER]
    # the cards the root seat cannot see, and the other hands' sizes
    unseen = np.int64(0)
    for s in range(players):
        if s != seat:
            unseen |= root[S_HANDS + s]
    for i in range(root[S_STOCK], root[S_DECK_SIZE]):
        unseen |= np.int64(1) << root[S_DECK + i]
    u = np.empty(40, dtype=np.int64)
    pool = np.empty(40, dtype=np.int64)
    nu = 0
    m = unseen
    while m:
        u[nu] = ctz(m)
        m &= m - 1
        nu += 1
    root_table = root[S_TABLE]
    root_packed, root_hi = packed_of(root_table, fifteen)
    big_table = BIG_TABLE15 if fifteen else BIG_TABLE
    w = np.zeros(N_WORK, dtype=np.int64)  # hands, piles, scope (W_* layout)
    sizes = np.zeros(4, dtype=np.int64)
    for s in range(players):
        sizes[s] = popcount(root[S_HANDS + s])
    hc = np.empty(16, dtype=np.int64)  # cards of the hand to play
    kk = np.empty(16, dtype=np.int64)  # their numbers of captures
    cc = np.empty(MAX_PLAYS, dtype=np.int64)  # legal children's plays
    ct = np.empty(MAX_PLAYS, dtype=np.int64)
    cn = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    path = np.empty(2 * MAX_PLY, dtype=np.int64)  # node, side that made its play
    score = np.zeros((4, N_ITEMS), dtype=np.int64)
    margins = np.zeros(4, dtype=np.int64)
    match = eqt.shape[0] > 0
    unit = 1 if horizon >= FULL_DEPTH and not match else EST_UNIT
    scale = REWARD_SCALE / unit
    deck = np.int64(0)
    for i in range(root[S_DECK_SIZE]):
        deck |= np.int64(1) << root[S_DECK + i]
    n_cards = popcount(deck)
    n_den = popcount(deck & DENARI)
    work = np.zeros(16, dtype=np.float64)
    for _ in range(iterations):
        # ---------------------------------------------------------------- determinize
        if nparts:  # from the belief: u laid out as the hands in seat order, then stock
            z += g
            pi = pick_weighted(bcum, 0, nparts, unit_draw(z))
            taken = np.int64(0)
            for s in range(players):
                if s != seat and bparts[pi, s] >= 0:
                    taken |= bparts[pi, s]
            npool = 0
            m = unseen & ~taken
            while m:
                pool[npool] = ctz(m)
                m &= m - 1
                npool += 1
            for i in range(npool - 1, 0, -1):
                z += g
                j = below(z, i + 1)
                t = pool[i]
                pool[i] = pool[j]
                pool[j] = t
            q = 0
            pos = 0
            for s in range(players):
                if s == seat:
                    continue
                if bparts[pi, s] >= 0:
                    m = bparts[pi, s]
                    while m:
                        u[pos] = ctz(m)
                        m &= m - 1
                        pos += 1
                else:
                    for _i in range(sizes[s]):
                        u[pos] = pool[q]
                        q += 1
                        pos += 1
            while q < npool:
                u[pos] = pool[q]
                q += 1
                pos += 1
        else:
            for i in range(nu - 1, 0, -1):
                z += g
                j = below(z, i + 1)
                t = u[i]
                u[i] = u[j]
                u[j] = t
        if nrc:  # each modelled seat's channel for this iteration, by its posterior
            for s in range(players):
                if ((s & 1) if teams else s) != root_side:
                    z += g
                    x = unit_draw(z)
                    acc = 0.0
                    chans[s] = nrc - 1
                    for k in range(nrc):
                        acc += rpost[s, k]
                        if x < acc:
                            chans[s] = k
                            break
        pos = 0
        inhand = 0
        for s in range(players):
            if s == seat:
                h = root[S_HANDS + s]
            else:
                h = np.int64(0)
                for _i in range(sizes[s]):
                    h |= np.int64(1) << u[pos]
                    pos += 1
            w[W_HANDS + s] = h
            inhand += sizes[s]
        for s in range(ns):
            w[W_PILES + s] = root[S_PILES + s]
            w[W_SCOPE + s] = root[S_SCOPE + s]
        if logging:
            for s in range(4):
                log[L_HANDS + s] = w[W_HANDS + s]
            log[L_STOCK_LEN] = nu - pos
            for i in range(pos, nu):
                log[L_STOCK + i - pos] = u[i]
        table = root_table
        packed = root_packed
        packed_hi = root_hi
        last_capturer = root[S_LAST_CAPTURER]
        turn = seat
        plays = root[S_PLAYS]
        node = 0
        plen = 0
        in_tree = True
        made = 0
        rolled = 0  # rollout plays made
        cut = False  # the rollout stopped at the horizon
        while True:
            if inhand == 0:  # deal the next round, or end the hand
                if pos >= nu:
                    break
                k = hand_size
                if nu - pos < players * k:
                    k = (nu - pos) // players
                if k == 0:
                    break
                s = dealer + 1
                for _i in range(players):
                    if s >= players:
                        s -= players
                    h = np.int64(0)
                    for _j in range(k):
                        h |= np.int64(1) << u[pos]
                        pos += 1
                    w[W_HANDS + s] = h
                    s += 1
                inhand = players * k
            if not in_tree and rolled >= horizon:
                cut = True
                break
            hand = w[W_HANDS + turn]
            side = (turn & 1) if teams else turn
            # ------------------------------------------------------------ count plays
            sweep_aces = ACES if ace_rule and table != 0 and (table & ACES) == 0 else 0
            big = popcount(table) > big_table
            nh = 0
            caps = 0
            lays = 0
            m = hand
            while m:
                card = ctz(m)
                m &= m - 1
                if big:
                    k = list_captures(card, table, sweep_aces, fewest, fifteen, bt, sc)
                else:
                    k = count_captures(card, table, packed, packed_hi, sweep_aces, fewest, fifteen)
                hc[nh] = card
                kk[nh] = k
                nh += 1
                caps += k
                lays += k == 0
            lay_ok = optional or not (capture_hand and caps > 0)
            # a card's plays: its captures, then its lay (when it has no capture, or
            # laying is free)
            n = caps + (nh if optional else (lays if lay_ok else 0))
            if n == 0:  # only in hand-made positions: nothing to play
                break
            card = -1
            take = np.int64(0)
            if not in_tree:
                rolled += 1
            # the seat's play model: a modelled seat's channel, else the rollout policy
            modelled = (
                nrc > 0
                and side != root_side
                and (in_tree or rroll)
                and rkinds[chans[turn]] != KIND_SEARCH
            )
            p_greedy = greedy
            p_expert = expert
            p_random = False
            tau = 0.0
            if modelled:
                mc = chans[turn]
                p_greedy = rkinds[mc] == KIND_GREEDY
                p_expert = rkinds[mc] == KIND_EXPERT
                tau = rtaus[mc]
                p_random = rkinds[mc] == KIND_RANDOM
                if not p_random and reps[mc] > 0.0:
                    z += g
                    p_random = unit_draw(z) < reps[mc]
            if in_tree and not modelled:
                # children legal in this world: count their availability
                compat = 0
                ch = tree[node, T_CHILD]
                while ch >= 0:
                    x = tree[ch, T_CARD]
                    if (hand >> x) & 1 and (lay_ok or tree[ch, T_TAKE] != 0):
                        tree[ch, T_AVAIL] += 1
                        cc[compat] = x
                        ct[compat] = tree[ch, T_TAKE]
                        cn[compat] = ch
                        compat += 1
                    ch = tree[ch, T_NEXT]
                if compat < n:  # expand one untried play, chosen at random
                    z += g
                    r = below(z, n - compat)
                    for i in range(nh):
                        x = hc[i]
                        k = kk[i]
                        if k == 0 and not lay_ok:
                            continue
                        if big and k:
                            list_captures(x, table, sweep_aces, fewest, fifteen, bt, sc)
                        for j in range(k + 1 if optional else max(k, 1)):
                            t = np.int64(0)
                            if j < k:
                                t = (
                                    bt[j]
                                    if big
                                    else pick_capture(
                                        x, j, table, packed, packed_hi, sweep_aces, fewest,
                                        fifteen,
                                    )
                                )  # fmt: skip
                            tried = False
                            for q in range(compat):
                                if cc[q] == x and ct[q] == t:
                                    tried = True
                                    break
                            if not tried:
                                if r == 0:
                                    card = x
                                    take = t
                                    break
                                r -= 1
                        if card >= 0:
                            break
                    in_tree = False
                    if count < cap:
                        node = _add_child(tree, node, count, card, take)
                        count += 1
                        path[plen] = node
                        path[plen + 1] = side
                        plen += 2
                else:  # every legal play tried: UCB1 among them
                    best = -INF
                    for q in range(compat):
                        ch = cn[q]
                        v = float(tree[ch, T_VISITS])
                        val = scale * tree[ch, T_SUM] / v + c * math.sqrt(
                            math.log(float(tree[ch, T_AVAIL])) / v
                        )
                        if val > best:
                            best = val
                            node = ch
                    card = tree[node, T_CARD]
                    take = tree[node, T_TAKE]
                    path[plen] = node
                    path[plen + 1] = side
                    plen += 2
            elif (p_greedy or p_expert) and n > 1 and not p_random:
                hit = np.int64(-1)
                slot = np.int64(0)
                cached = modelled and in_tree and p_expert
                if cached:  # the same node and hand: the same expert values
                    slot = np.int64(mix64(np.uint64(hand * 1000003 + node)) & np.uint64(CACHE - 1))
                    if c_node[slot] == node and c_hand[slot] == hand:
                        hit = slot
                if hit >= 0:
                    npv = c_n[hit]
                    for i in range(npv):
                        pv[i] = c_val[hit, i]
                        pc[i] = c_card[hit, i]
                        pt[i] = c_take[hit, i]
                else:
                    table_sum = value_sum(table)
                    not_last = plays + 1 < total
                    # the expert's view of the seat to play (as in the fused loop)
                    pm = np.int64(0)
                    po = np.int64(0)
                    others = np.int64(0)
                    seen_not = np.int64(0)
                    kn = 0
                    lc_rel = 0
                    d_rel = 0
                    if p_expert:
                        pm, po, others, seen_not, kn, lc_rel, d_rel = expert_view(
                            w, W_HANDS, W_PILES, turn, players, teams, ns, table, deck, nu - pos,
                            hand_size, last_capturer, dealer,
                        )  # fmt: skip
                    elif fifteen:  # greedy's unseen cards (the fifteen rule's sweep risk)
                        seen = hand | table
                        for s in range(ns):
                            seen |= w[W_PILES + s]
                        seen_not = deck & ~seen
                    best_v = -(1 << 62)
                    ties = 0
                    npv = 0
                    for i in range(nh):
                        x = hc[i]
                        k = kk[i]
                        if k == 0 and not lay_ok:
                            continue
                        if big and k:
                            list_captures(x, table, sweep_aces, fewest, fifteen, bt, sc)
                        for j in range(k + 1 if optional else max(k, 1)):
                            t = np.int64(0)
                            if j < k:
                                t = (
                                    bt[j]
                                    if big
                                    else pick_capture(
                                        x, j, table, packed, packed_hi, sweep_aces, fewest, fifteen
                                    )
                                )
                            if p_expert and fifteen:
                                val = to_fixed(expert_play_value15(
                                    x, t, hand, table, pm, po, others, seen_not, kn, plays,
                                    total, lc_rel, d_rel, size, xflags, players == 2, xs,
                                ))  # fmt: skip
                            elif p_expert:
                                val = to_fixed(expert_play_value(
                                    x, t, hand, table, pm, po, others, seen_not, kn, plays,
                                    total, lc_rel, d_rel, size, xflags, players == 2, xs,
                                ))  # fmt: skip
                            else:
                                val = greedy_score(
                                    table, table_sum, not_last, lps, x, t, fifteen, seen_not
                                )
                            if modelled:  # kept for the choice below
                                pv[npv] = val / EXPERT_FIX if p_expert else float(val)
                                pc[npv] = x
                                pt[npv] = t
                                npv += 1
                            elif val > best_v:
                                best_v = val
                                ties = 1
                                card = x
                                take = t
                            elif val == best_v:
                                ties += 1
                                z += g
                                if below(z, ties) == 0:  # uniform among the ties
                                    card = x
                                    take = t
                    if cached and npv <= CACHE_W:
                        c_node[slot] = node
                        c_hand[slot] = hand
                        c_n[slot] = npv
                        for i in range(npv):
                            c_val[slot, i] = pv[i]
                            c_card[slot, i] = pc[i]
                            c_take[slot, i] = pt[i]
                if modelled:  # the channel's choice among the values kept
                    top = pv[0]
                    for i in range(1, npv):
                        top = max(top, pv[i])
                    i = 0
                    if tau > 0.0:  # a softmax at temperature tau
                        tot = 0.0
                        for j in range(npv):
                            tot += math.exp((pv[j] - top) / tau)
                        z += g
                        x = unit_draw(z) * tot
                        while i < npv - 1:
                            x -= math.exp((pv[i] - top) / tau)
                            if x < 0.0:
                                break
                            i += 1
                    else:  # uniform among the best
                        ties = 0
                        for j in range(npv):
                            if pv[j] == top:
                                ties += 1
                        z += g
                        r = below(z, ties)
                        for j in range(npv):
                            if pv[j] == top:
                                if r == 0:
                                    i = j
                                    break
                                r -= 1
                    card = pc[i]
                    take = pt[i]
            else:
                z += g
                r = below(z, n)
                for i in range(nh):
                    k = kk[i]
                    if k == 0 and not lay_ok:
                        continue
                    plays_of = k + 1 if optional else max(k, 1)
                    if r < plays_of:
                        card = hc[i]
                        if r < k:
                            if big:
                                list_captures(card, table, sweep_aces, fewest, fifteen, bt, sc)
                                take = bt[r]
                            else:
                                take = pick_capture(
                                    card, r, table, packed, packed_hi, sweep_aces, fewest,
                                    fifteen,
                                )  # fmt: skip
                        break
                    r -= plays_of
            if in_tree and modelled:  # follow the modelled play's child, or expand it
                ch = tree[node, T_CHILD]
                while ch >= 0 and (tree[ch, T_CARD] != card or tree[ch, T_TAKE] != take):
                    ch = tree[ch, T_NEXT]
                if ch >= 0:
                    tree[ch, T_AVAIL] += 1
                    node = ch
                    path[plen] = ch
                    path[plen + 1] = side
                    plen += 2
                else:
                    in_tree = False
                    if count < cap:
                        node = _add_child(tree, node, count, card, take)
                        count += 1
                        path[plen] = node
                        path[plen + 1] = side
                        plen += 2
            if logging:
                log[L_PLAYS + 3 * made] = card
                log[L_PLAYS + 3 * made + 1] = take
                log[L_PLAYS + 3 * made + 2] = n
            made += 1
            # ------------------------------------------------------------ apply the play
            bit = np.int64(1) << card
            w[W_HANDS + turn] = hand ^ bit
            plays += 1
            inhand -= 1
            table, packed, packed_hi, pile, last_capturer, scopa = play_on_table(
                table, packed, packed_hi, w[W_PILES + side], last_capturer, side, card, take,
                sweep_aces, ace_rule, plays == total, lps, ace_scopa, fifteen,
            )  # fmt: skip
            w[W_PILES + side] = pile
            w[W_SCOPE + side] += scopa
            turn += 1
            if turn >= players:
                turn = 0
        # ---------------------------------------------------------------- score, back up
        if cut and match:
            _estimate_sides(rules, w, W_PILES, w, W_SCOPE, n_cards, n_den, True, work)
            s0, s1 = float(w[W_SCOPE]), float(w[W_SCOPE + 1])
            v = leaf_value(eqt, work[12], work[13], s0, s1, total - plays, total)
            margins[0] = np.int64(round(v * unit))
            margins[1] = -margins[0]
        elif cut and leaf == LEAF_EXPERT:
            for s in range(ns):
                e = _expert_margin(rules, w, W_PILES, w, W_SCOPE, s, True)
                margins[s] = np.int64(round(e * unit))
        elif cut:
            _estimate_sides(rules, w, W_PILES, w, W_SCOPE, n_cards, n_den, True, work)
            for s in range(ns):
                best_e = -INF
                for t2 in range(ns):
                    if t2 != s and work[12 + t2] > best_e:
                        best_e = work[12 + t2]
                margins[s] = np.int64(round((work[12 + s] - best_e) * unit))
        else:
            owner = remainder_side(
                remainder_dealer, (dealer & 1) if teams else dealer, last_capturer
            )
            if table and owner >= 0:
                w[W_PILES + owner] |= table
            score_into(rules, w, W_PILES, w, W_SCOPE, score)
            if match:
                v = end_value(eqt, score[0, I_TOTAL], score[1, I_TOTAL], w[W_PILES], w[W_PILES + 1])
                margins[0] = np.int64(round(v * unit))
                margins[1] = -margins[0]
            else:
                for s in range(ns):
                    best_o = -1000
                    for t2 in range(ns):
                        if t2 != s and score[t2, I_TOTAL] > best_o:
                            best_o = score[t2, I_TOTAL]
                    margins[s] = (score[s, I_TOTAL] - best_o) * unit
        if logging:
            log[L_MADE] = made
            for s in range(4):
                log[L_MARGINS + s] = margins[s]
        for q in range(0, plen, 2):
            ch = path[q]
            x = margins[path[q + 1]]
            tree[ch, T_VISITS] += 1
            tree[ch, T_SUM] += x
            tree[ch, T_SQ] += x * x
        tree[0, T_VISITS] += 1
    rng[0] = z
    return count


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


# --------------------------------------------------------------------------- review evaluator
# The game review's evaluator (:mod:`scopa_sim.evaluate`): every legal play of a decision
# valued in the same sampled worlds, each world finished by a rollout policy and, once
# the position is open (two sides, stock empty, at most two hands left: every seat then
# knows every card), by the exact solver.


@njit(cache=True)
def open_endgame(state, rules):
    """True when the rest of the hand is a perfect-information game: two sides, the
    stock empty and at most two seats holding cards (each then sees the other's hand)."""
    if rules[R_SIDES] != 2 or state[S_STOCK] < state[S_DECK_SIZE]:
        return False
    holders = 0
    for s in range(rules[R_PLAYERS]):
        if state[S_HANDS + s]:
            holders += 1
    return holders <= 2


@njit(cache=True)
def single_world(state, rules, seat):
    """True when ``seat``'s information set is one world: the stock is empty and at most
    one other seat holds cards (``seat`` = -1: nobody's hand is known)."""
    if state[S_STOCK] < state[S_DECK_SIZE]:
        return False
    others = 0
    for s in range(rules[R_PLAYERS]):
        if s != seat and state[S_HANDS + s]:
            others += 1
    return others <= 1


@njit(cache=True)
def shuffle_stock(state, rng, out_state):
    """A world in which only the stock is unknown: ``state`` with the order of the cards
    still to deal shuffled into ``out_state`` (every hand kept as it is)."""
    for i in range(N_STATE):
        out_state[i] = state[i]
    lo = S_DECK + state[S_STOCK]
    hi = S_DECK + state[S_DECK_SIZE]
    for i in range(hi - lo - 1, 0, -1):
        j = rand_below(rng, i + 1)
        t = out_state[lo + i]
        out_state[lo + i] = out_state[lo + j]
        out_state[lo + j] = t


@njit(cache=True)
def _eval_finish(cur, rules, policy, rng, exact, bc, bt, sc, score, margins, tt_key, tt_val,
                 tt_meta, info, ws, vals, out):  # fmt: skip
    """Finish the hand in the world ``cur`` (changed in place) and write each side's final
    margin to ``out[side]``: ``policy`` plays every seat until, with ``exact``, the rest
    is an :func:`open_endgame`, which the solver values exactly (both sides playing it
    perfectly)."""
    ns = rules[R_SIDES]
    margin = np.empty(0)  # the margin objective
    while not cur[S_DONE]:
        if exact and open_endgame(cur, rules):
            n = _solve(cur, rules, FULL_DEPTH, tt_key, tt_val, tt_meta, info, ws, vals, margin)
            best = -INF
            for i in range(n):
                if vals[i] > best:
                    best = vals[i]
            mover = side_of(rules, cur[S_TURN])
            out[mover] = best
            out[1 - mover] = -best
            return
        n = legal_plays(cur, rules, bc, bt, sc)
        i = choose_play(cur, rules, policy, rng, bc, bt, n)
        apply_play(cur, rules, bc[i], bt[i])
    _margins(cur, rules, score, margins)
    for s in range(ns):
        out[s] = float(margins[s])


@njit(cache=True, nogil=True)
def eval_values(state, rules, seat, worlds, policy, seed, exact, tt_key, tt_val, tt_meta,
                cards, takes, n, out_val):  # fmt: skip
    """The review evaluator's values: ``out_val[w, i, side]`` is side ``side``'s final
    hand margin after play ``i`` (``cards[i]``, ``takes[i]``; with ``n`` = 0, the
    position as it stands, slot 0) in world ``w``, finished by :func:`_eval_finish`.

    The worlds are determinizations of ``state`` for ``seat`` (-1: every hand unknown,
    as before a deal; -2: only the stock unknown, see :func:`shuffle_stock`) from the
    streams ``derive_seed(seed, 12, w, 0)``; every play is valued in the same worlds,
    and its rollout in world ``w`` draws from the same stream ``derive_seed(seed, 13, w,
    0)``, so differences between plays are paired.  When the information set is a
    single world (two sides, and ``exact``) only one world is used.  The transposition
    table is shared by every world (open endgames have no hidden order left, so an
    entry means the same in all of them); the caller clears it.  Returns the number of
    worlds used.
    """
    ws = _workspace(state, rules)
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    vals = np.empty(MAX_PLAYS, dtype=np.float64)
    score = np.zeros((4, N_ITEMS), dtype=np.int64)
    margins = np.zeros(4, dtype=np.int64)
    info = np.zeros(N_INFO, dtype=np.int64)
    info[V_TT_MASK] = tt_key.shape[0] - 1
    info[V_SALT] = 1
    world = np.empty(N_STATE, dtype=np.int64)
    cur = np.empty(N_STATE, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    roll = np.zeros(RNG_WORDS, dtype=np.uint64)
    used = worlds
    if (
        exact
        and rules[R_SIDES] == 2
        and (
            single_world(state, rules, seat) if seat >= -1 else state[S_STOCK] >= state[S_DECK_SIZE]
        )
    ):
        used = 1
    for w in range(used):
        reseed(rng, derive_seed(seed, 12, w, 0))
        if seat >= -1:
            determinize(state, rules, seat, rng, world)
        else:
            shuffle_stock(state, rng, world)
        for i in range(max(n, 1)):
            for j in range(N_STATE):
                cur[j] = world[j]
            if n > 0:
                apply_play(cur, rules, cards[i], takes[i])
            reseed(roll, derive_seed(seed, 13, w, 0))
            _eval_finish(cur, rules, policy, roll, exact, bc, bt, sc, score, margins, tt_key,
                         tt_val, tt_meta, info, ws, vals, out_val[w, i])  # fmt: skip
    return used


@njit(cache=True, nogil=True)
def eval_prior(rules, dealer, worlds, policy, seed, exact, tt_key, tt_val, tt_meta, out_val):
    """Each side's final margin (``out_val[w, side]``) in ``worlds`` hands dealt at random
    by ``dealer`` (deck from ``derive_seed(seed, 14, w, 0)``, kings redeals included) and
    finished as in :func:`eval_values`: the evaluator's expected margins before a hand's
    first deal."""
    deck = np.empty(40, dtype=np.int64)
    cur = np.empty(N_STATE, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    roll = np.zeros(RNG_WORDS, dtype=np.uint64)
    reseed(rng, derive_seed(seed, 14, 0, 0))
    shuffle_deal(rules, rng, deck)
    start_hand(cur, rules, deck, dealer)
    ws = _workspace(cur, rules)
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    vals = np.empty(MAX_PLAYS, dtype=np.float64)
    score = np.zeros((4, N_ITEMS), dtype=np.int64)
    margins = np.zeros(4, dtype=np.int64)
    info = np.zeros(N_INFO, dtype=np.int64)
    info[V_TT_MASK] = tt_key.shape[0] - 1
    info[V_SALT] = 1
    for w in range(worlds):
        reseed(rng, derive_seed(seed, 14, w, 0))
        shuffle_deal(rules, rng, deck)
        start_hand(cur, rules, deck, dealer)
        reseed(roll, derive_seed(seed, 13, w, 0))
        _eval_finish(cur, rules, policy, roll, exact, bc, bt, sc, score, margins, tt_key,
                     tt_val, tt_meta, info, ws, vals, out_val[w])  # fmt: skip
