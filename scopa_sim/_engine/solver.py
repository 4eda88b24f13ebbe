"""The exact (and depth-limited) alpha-beta solver of one world.

Iterative fail-soft negamax with a transposition table on the engine's state vector,
calling the step kernels (:mod:`.step`) for legal plays and applying them, so it follows
the rules exactly.  Values are those of :mod:`.values`: hand margins (two sides: own
points minus the other side's; three or four: the paranoid reduction), or with an
``eq`` table the match objective's.  :func:`solve_root` values every legal play of a
position; :func:`solve_world` does it on a reused :func:`workspace` (PIMC, the review's
evaluator).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import popcount
from .layout import (
    ACES,
    DENARI,
    F_SCOPA,
    I_TOTAL,
    MAX_PLAYS,
    N_ITEMS,
    N_STATE,
    PRIM_BEST,
    R_HAND_SIZE,
    R_PLAYERS,
    R_PRIMIERA_SEVENS,
    R_SIDES,
    R_TOTAL_PLAYS,
    S_DECK,
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
    side_of,
)
from .step import apply_play, greedy_value, legal_plays, score_state
from .streams import mix64
from .values import INF, LEAF_EXPERT, end_value, estimate, expert_leaf, hand_margins, leaf_value

#: Depth that means "search to the end of the hand".
FULL_DEPTH = 1000
#: Plies of the solver's stacks: a hand never has more plays left than this.
MAX_PLY = 41
# solver info vector
V_NODES = 0  # nodes visited
V_ROOT_SIDE = 1  # the deciding side (paranoid mode)
V_PARANOID = 2  # 1: three or four sides, paranoid values
V_SALT = 3  # mixed into every key (one per world)
V_TT_MASK = 4  # table size - 1
V_LEAF = 5  # leaf value of depth-limited search: LEAF_ESTIMATE or LEAF_EXPERT
V_MATCH = 6  # 1: the match objective (values from the ``eq`` table, scope included)
N_INFO = 7
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
            hand_margins(state, rules, score, margins)
            v = float(margins[root])
        elif info[V_LEAF] == LEAF_EXPERT:
            v = expert_leaf(state, rules, root, True)
        else:
            v = estimate(state, rules, root, True, work)
        return v if side == root else -v
    if exact:
        hand_margins(state, rules, score, margins)
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
        child[i] = s[i]  # ply: :func:`solve_world` wrote it to each once
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
def workspace(state, rules):
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
def solve_world(state, rules, depth, tt_key, tt_val, tt_meta, info, ws, out_val, eq):
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


@njit(cache=True, nogil=True)
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
    ws = workspace(state, rules)
    n = solve_world(state, rules, depth, tt_key, tt_val, tt_meta, info, ws, out_val, e)
    bc = ws[1]
    bt = ws[2]
    for i in range(n):
        out_card[i] = bc[0, i]
        out_take[i] = bt[0, i]
    return n
