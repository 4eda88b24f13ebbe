"""The alpha-beta solver of one Cirulla world (RULES.md §10), beside :mod:`.solver` so that
the Scopa solver compiles as it did.

A decision is ``(card, take, meta)`` (:func:`.step.legal_plays_cirulla`: the matta's named
value and the declaration are part of the play), so the solver chooses them as it chooses
captures. Values are the hand's final point margin under Cirulla's scoring
(:func:`.step.score_state_cirulla`: scope, declarations, grande, piccola and cappotto
included): own points minus the other side's, or with three or four sides the paranoid
reduction of :mod:`.solver`. Beyond a depth limit a position is valued by
:func:`.values.estimate` (scope included) plus the declared points' margin, or with
``info[V_LEAF]`` ``LEAF_EXPERT`` by :func:`.values_cirulla.expert_leaf_cirulla`.

With the match objective (two sides, an ``eq`` table of :mod:`scopa_sim.bots.objective`
built from Cirulla's hands) values are instead side 0's match value of the hand's Cirulla
points (:func:`.values.end_value`: a cappotto, all ten denari in a final pile, wins
outright when the table says so) or, at a depth limit, of the estimated points with the
declared points counted as certain (:func:`.values.leaf_value`), negated for side 1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import (
    I_TOTAL,
    MAX_PLAYS,
    N_ITEMS_CIRULLA,
    N_STATE,
    R_PLAYERS,
    R_SIDES,
    R_TOTAL_PLAYS,
    S_DECK,
    S_DECLARED,
    S_DONE,
    S_HANDS,
    S_LAST_CAPTURER,
    S_PILES,
    S_PLAYS,
    S_SCOPE,
    S_SHOWN,
    S_STOCK,
    S_TABLE,
    S_TURN,
    SCRATCH,
    side_of,
)
from .solver import (
    TT_EXACT,
    TT_LOWER,
    TT_UPPER,
    V_LEAF,
    V_MATCH,
    V_NODES,
    V_PARANOID,
    V_ROOT_SIDE,
    V_SALT,
    V_TT_MASK,
    X_ALPHA,
    X_ALPHA0,
    X_BEST,
    X_BETA,
    X_BI,
    X_COLS,
    X_DEPTH,
    X_K,
    X_KEY,
    X_N,
    X_SIGN,
)
from .step import apply_play_cirulla, legal_plays_cirulla, score_state_cirulla
from .streams import mix64
from .values import INF, LEAF_EXPERT, end_value, estimate, leaf_value
from .values_cirulla import expert_leaf_cirulla


@njit(cache=True)
def _hash(h, x):
    return mix64(h ^ np.uint64(x))


@njit(cache=True)
def _key_cirulla(state, rules, info):
    """Transposition key (never 0) of a Cirulla position: hands, table, stock position, the
    last capturer and the seat to play, and per side its whole pile, scope and declared
    points (all of them enter the value); the shown hands (``S_SHOWN``) too."""
    h = np.uint64(info[V_SALT])
    for s in range(rules[R_PLAYERS]):
        h = _hash(h, state[S_HANDS + s])
    h = _hash(h, state[S_TABLE])
    h = _hash(h, state[S_STOCK] | (state[S_TURN] << 8) | ((state[S_LAST_CAPTURER] + 1) << 12)
              | (state[S_SHOWN] << 16))  # fmt: skip
    for s in range(rules[R_SIDES]):
        h = _hash(h, state[S_PILES + s])
        h = _hash(h, state[S_SCOPE + s] | (state[S_DECLARED + s] << 16))
    return np.int64(h >> np.uint64(1)) | 1


@njit(cache=True)
def _margin(rules, totals, side):
    """``totals[side]`` minus the best other side's."""
    best = -INF
    for t in range(rules[R_SIDES]):
        if t != side and totals[t] > best:
            best = totals[t]
    return totals[side] - best


@njit(cache=True)
def match_static_cirulla(state, rules, score, work, exact, eq):
    """Side 0's match-objective value of a finished (``exact``) or depth-limited Cirulla
    position (two sides): the ``eq`` table's value of the hand's Cirulla points, or of
    :func:`.values.estimate`'s points plus the declared ones (the scope and the declared
    points being certain); ``work`` holds at least 16 float64."""
    if exact:
        score_state_cirulla(state, rules, score)
        return end_value(
            eq, score[0, I_TOTAL], score[1, I_TOTAL], state[S_PILES], state[S_PILES + 1]
        )
    estimate(state, rules, 0, True, work)
    d0, d1 = float(state[S_DECLARED]), float(state[S_DECLARED + 1])
    left = rules[R_TOTAL_PLAYS] - state[S_PLAYS]
    return leaf_value(eq, work[12] + d0, work[13] + d1, state[S_SCOPE] + d0,
                      state[S_SCOPE + 1] + d1, left, rules[R_TOTAL_PLAYS])  # fmt: skip


@njit(cache=True)
def _static_cirulla(state, rules, info, score, work, exact, eq):
    """Value of a finished (``exact``) or depth-limited position for the seat to play: the
    margin of its side (paranoid: the deciding side's, negated for the coalition), from
    the hand's Cirulla score or from :func:`.values.estimate` plus the declared points;
    with the match objective (``info[V_MATCH]``), :func:`match_static_cirulla`'s value,
    negated for side 1; at a depth limit with ``info[V_LEAF]`` ``LEAF_EXPERT``, the
    expert's (:func:`.values_cirulla.expert_leaf_cirulla`)."""
    side = side_of(rules, state[S_TURN])
    if info[V_MATCH]:
        v = match_static_cirulla(state, rules, score, work[4:], exact, eq)
        return v if side == 0 else -v
    root = info[V_ROOT_SIDE] if info[V_PARANOID] else side
    if not exact and info[V_LEAF] == LEAF_EXPERT:
        v = expert_leaf_cirulla(state, rules, root)
        return v if side == root else -v
    totals = work[:4]
    if exact:
        score_state_cirulla(state, rules, score)
        for s in range(rules[R_SIDES]):
            totals[s] = float(score[s, I_TOTAL])
    else:
        est = work[4:]
        estimate(state, rules, root, True, est)
        for s in range(rules[R_SIDES]):
            totals[s] = est[12 + s] + state[S_DECLARED + s]
    v = _margin(rules, totals, root)
    return v if side == root else -v


@njit(cache=True)
def _team(rules, info, state):
    side = side_of(rules, state[S_TURN])
    if info[V_PARANOID]:
        return 1 if side == info[V_ROOT_SIDE] else 0
    return side


@njit(cache=True)
def _play_cirulla(st, rules, info, ply, card, take, meta):
    """Copy ``st[ply]`` to ``st[ply + 1]`` (the deck order is the same at every ply) and
    make the play there; return +1 when the same team is to play next, -1 otherwise."""
    s = st[ply]
    child = st[ply + 1]
    for i in range(S_DECK):
        child[i] = s[i]
    for i in range(S_DECK + 40, N_STATE):
        child[i] = s[i]
    apply_play_cirulla(child, rules, card, take, meta)
    return 1.0 if _team(rules, info, child) == _team(rules, info, s) else -1.0


@njit(cache=True)
def _negamax_cirulla(rules, ws, sc, tt_key, tt_val, tt_meta, info, score, work, ply0, depth0,
                     eq):  # fmt: skip
    """Fail-soft alpha-beta negamax with a transposition table (iterative, as
    :func:`.solver._negamax`): the value of ``st[ply0]`` for the seat to play, searched
    ``depth0`` plies (``eq``: the match objective's table, empty: margins). A table entry
    keeps the value, its bound, its depth and the index of the best play (tried first
    next time)."""
    st, bc, bt, bm, order, fl, fi = ws
    ply = ply0
    fl[ply, X_ALPHA] = -INF
    fl[ply, X_BETA] = INF
    fi[ply, X_DEPTH] = depth0
    mask = info[V_TT_MASK]
    while True:
        info[V_NODES] += 1
        s = st[ply]
        depth = fi[ply, X_DEPTH]
        alpha = fl[ply, X_ALPHA]
        beta = fl[ply, X_BETA]
        done = True
        value = 0.0
        if s[S_DONE]:
            value = _static_cirulla(s, rules, info, score, work, True, eq)
        elif depth <= 0:
            value = _static_cirulla(s, rules, info, score, work, False, eq)
        else:
            key = _key_cirulla(s, rules, info)
            slot = key & mask
            first = 0
            hit = False
            if tt_key[slot] == key:
                meta = tt_meta[slot]
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
                n = legal_plays_cirulla(s, rules, bc[ply], bt[ply], bm[ply], sc)
                if n == 0:
                    value = _static_cirulla(s, rules, info, score, work, False, eq)
                else:
                    if first >= n:
                        first = 0
                    order[ply, 0] = first
                    k = 1
                    for i in range(n):
                        if i != first:
                            order[ply, k] = i
                            k += 1
                    fi[ply, X_K] = 0
                    fi[ply, X_N] = n
                    fi[ply, X_BI] = first
                    fi[ply, X_KEY] = key
                    fl[ply, X_ALPHA0] = alpha
                    fl[ply, X_BEST] = -INF
                    done = False
        while done:
            if ply == ply0:
                return value
            ply -= 1
            v = fl[ply, X_SIGN] * value
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
        i = order[ply, fi[ply, X_K]]
        sign = _play_cirulla(st, rules, info, ply, bc[ply, i], bt[ply, i], bm[ply, i])
        fl[ply, X_SIGN] = sign
        a = fl[ply, X_ALPHA]
        b = fl[ply, X_BETA]
        fi[ply + 1, X_DEPTH] = fi[ply, X_DEPTH] - 1
        if sign > 0:
            fl[ply + 1, X_ALPHA] = a
            fl[ply + 1, X_BETA] = b
        else:
            fl[ply + 1, X_ALPHA] = -b
            fl[ply + 1, X_BETA] = -a
        ply += 1


@njit(cache=True)
def workspace_cirulla(state, rules):
    """Search stacks for the rest of the Cirulla hand at ``state``: states, play buffers
    (cards, takes, metas; ``MAX_PLAYS`` a ply), play orders and frames."""
    left = rules[R_TOTAL_PLAYS] - state[S_PLAYS]
    plies = left + 2
    cap = MAX_PLAYS
    st = np.empty((plies + 1, N_STATE), dtype=np.int64)
    bc = np.empty((plies, cap), dtype=np.int64)
    bt = np.empty((plies, cap), dtype=np.int64)
    bm = np.empty((plies, cap), dtype=np.int64)
    order = np.empty((plies, cap), dtype=np.int64)
    fl = np.zeros((plies + 1, X_COLS), dtype=np.float64)
    fi = np.zeros((plies + 1, X_COLS), dtype=np.int64)
    return st, bc, bt, bm, order, fl, fi


@njit(cache=True)
def solve_world_cirulla(state, rules, depth, tt_key, tt_val, tt_meta, info, ws, out_val, eq):
    """Value every legal play of the Cirulla position ``state`` (the plays written to the
    workspace's ``bc[0]``, ``bt[0]``, ``bm[0]``, their number returned) to ``out_val``,
    searched ``depth`` plies (``FULL_DEPTH``: to the end of the hand); ``eq`` the match
    objective's table (empty: margins)."""
    st = ws[0]
    bc, bt, bm = ws[1], ws[2], ws[3]
    sc = np.empty(SCRATCH, dtype=np.int64)
    score = np.zeros((4, N_ITEMS_CIRULLA), dtype=np.int64)  # Cirulla's items too
    work = np.zeros(24, dtype=np.float64)
    info[V_PARANOID] = 1 if rules[R_SIDES] > 2 else 0
    info[V_ROOT_SIDE] = side_of(rules, state[S_TURN])
    info[V_MATCH] = 1 if eq.shape[0] > 0 else 0
    for p in range(st.shape[0]):
        for i in range(N_STATE):
            st[p, i] = state[i]
    n = legal_plays_cirulla(state, rules, bc[0], bt[0], bm[0], sc)
    for i in range(n):
        sign = _play_cirulla(st, rules, info, 0, bc[0, i], bt[0, i], bm[0, i])
        v = _negamax_cirulla(rules, ws, sc, tt_key, tt_val, tt_meta, info, score, work, 1,
                             depth - 1, eq)  # fmt: skip
        out_val[i] = sign * v
    return n


@njit(cache=True, nogil=True)
def solve_root_cirulla(state, rules, depth, tt_key, tt_val, tt_meta, info, out_card, out_take,
                       out_meta, out_val, eq=None):  # fmt: skip
    """Exact (``depth >= FULL_DEPTH``) or depth-limited value of every legal play of the
    Cirulla position ``state`` for the side to play, as the hand's final point margin
    (see the module; with ``eq``, two sides, the match objective's values). Writes the
    plays (in :func:`.step.legal_plays_cirulla` order) and values to the ``out_*`` arrays
    and returns their number; ``info`` as for :func:`.solver.solve_root`."""
    e = np.empty(0) if eq is None else eq
    ws = workspace_cirulla(state, rules)
    n = solve_world_cirulla(state, rules, depth, tt_key, tt_val, tt_meta, info, ws, out_val, e)
    for i in range(n):
        out_card[i] = ws[1][0, i]
        out_take[i] = ws[2][0, i]
        out_meta[i] = ws[3][0, i]
    return n
