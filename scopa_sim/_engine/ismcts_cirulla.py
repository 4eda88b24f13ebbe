"""Single-observer ISMCTS on Cirulla (RULES.md §10): :func:`ismcts_run_cirulla`, the tree of
:mod:`.ismcts` (its node pool, UCB1 with availability counts and back-up) over Cirulla's
plays, each iteration played on a whole state vector by the Cirulla step kernels.

A Cirulla play is ``(card, take, meta)`` (:func:`.step.legal_plays_cirulla`: the matta's
named value and the declaration are part of the play), so a tree node keys its play by
:func:`play_code` (the card and its ``meta``) in the ``T_CARD`` column and its take in
``T_TAKE``: declaring, keeping quiet and the value named for the matta are decisions the
tree searches as it searches captures. A child is legal in an iteration's world when the
world's legal plays list it (the hand to play, and whether it qualifies to declare, differ
between worlds; the table at a node does not).

Each iteration's world deals again the cards the root seat cannot see (the stock and the
hands of the ``hidden`` seats; a hand shown by a declaration, ``S_SHOWN``, is known and
kept), each hand keeping its size, drawn again while a seat that played this deal's first
card without declaring under ``declare=auto`` would have held a hand that qualifies
(``quiet``; as :func:`scopa_sim.game.worlds.deal_hidden` does for PIMC's worlds). Rollouts
play the Cirulla step policies (:func:`.step.choose_cirulla`: random, greedy or expert, the
expert declaring by :data:`.policy_cirulla.EXPERT_DECLARES`). Rewards are the hand's
Cirulla point margins (:func:`.step.score_state_cirulla`: scope, declarations, grande,
piccola and cappotto counted), scaled by :data:`REWARD_SCALE_CIRULLA`; at a horizon the
position is valued as the Cirulla solver values a depth limit
(:func:`.values.estimate` plus the declared points). With the match objective (an ``eq``
table, two sides) rewards are the solver's match values instead
(:func:`.solver_cirulla.match_static_cirulla`), side 1's the negation of side 0's.

The learned policy's Cirulla model (:mod:`.learned_cirulla`) serves as on Scopa
(:func:`.ismcts.ismcts_run`), through the run's argument ``lp = (model, prior,
prior_visits)`` (:data:`NO_LEARNED`: none): ``policy = POLICY_LEARNED`` rolls out by
the model's best play (:func:`.learned_cirulla.learned_choice_cirulla`); ``leaf =
LEAF_LEARNED`` values a horizon by :func:`_anchored_values`, the expert's Cirulla
evaluation of the piles with the scope and the declared points
(:func:`.values_cirulla.expert_leaf_cirulla`, ``leaf=expert``'s value)
plus the model's value of the best play of the seat to play there, put on the level of the
expert's play values (:func:`anchored_plays`); ``prior`` rows
(:func:`root_prior_cirulla`) with ``prior_visits > 0`` give the root's plays virtual visits
at their prior value in UCB1's mean (:func:`_ucb1_prior`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .capture import declaration_points
from .ismcts import (
    EST_UNIT,
    LEAF_LEARNED,
    P_CARD,
    P_TAKE,
    P_VALUE,
    T_AVAIL,
    T_CARD,
    T_CHILD,
    T_NEXT,
    T_TAKE,
    prior_row,
    ucb1_child,
    ucb1_virtual,
)
from .ismcts import _add_child as add_child
from .ismcts import _back_up as back_up
from .layout import (
    I_TOTAL,
    MATTA_NONE,
    MAX_PLAYS,
    N_ITEMS_CIRULLA,
    N_STATE,
    POLICY_LEARNED,
    R_MATTA,
    R_PLAYERS,
    R_SIDES,
    S_DECK,
    S_DECK_SIZE,
    S_DECLARED,
    S_DONE,
    S_HANDS,
    S_STOCK,
    S_TURN,
    SCRATCH,
    side_of,
)
from .learned import D_EXPERT
from .learned_cirulla import learned_choice_cirulla, learned_scratch_cirulla, learned_value_cirulla
from .policy import EXPERT_SCRATCH
from .policy_cirulla import EXPERT_DECLARES
from .solver import FULL_DEPTH, MAX_PLY
from .solver_cirulla import match_static_cirulla
from .step import apply_play_cirulla, choose_cirulla, legal_plays_cirulla, score_state_cirulla
from .streams import rand_below
from .values import INF, LEAF_ESTIMATE, LEAF_EXPERT, estimate
from .values_cirulla import expert_leaf_cirulla

__all__ = [
    "CODE_SHIFT",
    "NO_LEARNED",
    "QUIET_TRIES",
    "REWARD_SCALE_CIRULLA",
    "anchored_plays",
    "ismcts_run_cirulla",
    "play_code",
    "root_prior_cirulla",
]

#: Where a play's ``meta`` starts in its tree key (:func:`play_code`): cards are below 64.
CODE_SHIFT = 6
#: ISMCTS's reward on Cirulla = hand point margin * REWARD_SCALE_CIRULLA. Cirulla's margins
#: spread about 2.7 times Scopa's (a standard deviation near 8 points a hand under random
#: and expert self-play, against 3: declarations, grande, piccola), and against the
#: expert the search gains from more exploration than on Scopa, so the scale is smaller
#: than :data:`.ismcts.REWARD_SCALE` by more than that spread: the default ``c = 0.7``
#: explores as ``c = 1.4`` would at a scale of 0.1 (docs/guide/search.md, Cirulla).
REWARD_SCALE_CIRULLA = 0.05
#: The draws of a world before one is kept that breaks a ``quiet`` constraint (as
#: :func:`scopa_sim.game.worlds.deal_hidden`).
QUIET_TRIES = 1000
#: :func:`ismcts_run_cirulla`'s ``lp`` without the learned model: no model, no root prior,
#: no virtual visits.
NO_LEARNED = (np.empty(0), np.empty((0, 3)), 0.0)


@njit(cache=True, inline="always")
def play_code(card, meta):
    """The key of a Cirulla play ``(card, ·, meta)`` in the tree's ``T_CARD`` column: the
    card in the low :data:`CODE_SHIFT` bits, its ``meta`` above."""
    return card | (meta << CODE_SHIFT)


@njit(cache=True, inline="always")
def _draw_world(w, root, players, base, pool, npool, hidden, sizes, quiet, wild, deck, rng):
    """An iteration's world in ``w``: ``root`` with the unseen cards ``base[:npool]`` (in
    card order, so that a world depends on the stream only and a run split into chunks
    draws the same worlds) shuffled into ``pool`` and dealt to the ``hidden`` seats (a bit
    a seat) by their ``sizes``, the rest to the stock; shuffled again (up to
    :data:`QUIET_TRIES` draws) while a seat with a ``quiet`` constraint (its cards played
    this deal, ``>= 0``) would have held a hand that qualifies to declare. The deck order
    is the cards dealt before (in card order, from the ``deck`` mask), then the stock."""
    for i in range(N_STATE):
        w[i] = root[i]
    for i in range(npool):
        pool[i] = base[i]
    at = 0
    for _try in range(QUIET_TRIES):
        for i in range(npool - 1, 0, -1):
            j = rand_below(rng, i + 1)
            t = pool[i]
            pool[i] = pool[j]
            pool[j] = t
        at = 0
        ok = True
        for s in range(players):
            if (hidden >> s) & 1:
                h = np.int64(0)
                for _i in range(sizes[s]):
                    h |= np.int64(1) << pool[at]
                    at += 1
                w[S_HANDS + s] = h
                if quiet[s] >= 0 and declaration_points(h | quiet[s], wild):
                    ok = False
        if ok:
            break
    stock = np.int64(0)
    for i in range(at, npool):
        stock |= np.int64(1) << pool[i]
    pos = S_DECK
    m = deck & ~stock
    while m:
        w[pos] = ctz(m)
        m &= m - 1
        pos += 1
    for i in range(at, npool):
        w[pos] = pool[i]
        pos += 1


@njit(cache=True, inline="always")
def _tree_step(tree, node, count, side, n, bc, bt, bm, slot, cn, path, plen, c, scale, rng,
               prior, pvis):  # fmt: skip
    """A step down the tree for the seat to play among the world's ``n`` legal plays
    (``bc``/``bt``/``bm``): the availability of each child among them counted; then one
    untried play expanded, chosen at random (unless the pool is full), which leaves the
    tree, or with every legal play tried the child of best UCB1 value followed
    (:func:`.ismcts.ucb1_child`; with ``pvis > 0``, the root's, :func:`_ucb1_prior` over
    the ``prior`` rows); return ``(i, node, count, plen, in_tree)``, ``i`` the play's
    index in the buffers."""
    for i in range(n):
        slot[i] = -1
    compat = 0
    ch = tree[node, T_CHILD]
    while ch >= 0:
        code = tree[ch, T_CARD]
        take = tree[ch, T_TAKE]
        for i in range(n):
            if slot[i] < 0 and bt[i] == take and play_code(bc[i], bm[i]) == code:
                slot[i] = ch
                tree[ch, T_AVAIL] += 1
                cn[compat] = ch
                compat += 1
                break
        ch = tree[ch, T_NEXT]
    if compat < n:  # expand one untried play, chosen at random
        r = rand_below(rng, n - compat)
        pick = 0
        for i in range(n):
            if slot[i] < 0:
                if r == 0:
                    pick = i
                    break
                r -= 1
        if count < tree.shape[0]:
            node = add_child(tree, node, count, play_code(bc[pick], bm[pick]), bt[pick])
            count += 1
            path[plen] = node
            path[plen + 1] = side
            plen += 2
        return pick, node, count, plen, False
    if pvis > 0.0:
        node = _ucb1_prior(tree, cn, compat, c, scale, prior, pvis)
    else:
        node = ucb1_child(tree, cn, compat, c, scale)
    pick = 0
    for i in range(n):
        if slot[i] == node:
            pick = i
            break
    path[plen] = node
    path[plen + 1] = side
    plen += 2
    return pick, node, count, plen, True


@njit(cache=True, inline="always")
def _ucb1_prior(tree, cn, compat, c, scale, prior, pvis):
    """:func:`.ismcts.ucb1_child` with a root prior: each child's mean taken over its visits
    and ``pvis`` virtual ones at its prior value (its :func:`.ismcts.prior_row`, ``P_VALUE`` in
    points scaled as the rewards; a child without a row: no virtual visits); return the
    child of best value, the first of equal values."""
    best = -INF
    node = cn[0]
    for q in range(compat):
        ch = cn[q]
        r = prior_row(prior, tree[ch, T_CARD], tree[ch, T_TAKE])
        virt = pvis if r >= 0 else 0.0
        pval = prior[r, P_VALUE] if r >= 0 else 0.0
        val = ucb1_virtual(tree, ch, c, scale, virt, virt * REWARD_SCALE_CIRULLA * pval)
        if val > best:
            best = val
            node = ch
    return node


@njit(cache=True)
def anchored_plays(state, rules, model, ls, bc, bt, bm, n, out):
    """The model's values of the ``n`` Cirulla plays in the buffers for the seat to play in
    ``state``, anchored, into ``out[:n]`` (points); return the best (0 without a play).
    The model learns only the differences between a decision's plays (its loss is
    centred per decision), so its level drifts by several points between positions; its
    values are put on the level of the expert's play values
    (:func:`.policy_cirulla.expert_play_value_cirulla`, the expected change in points):
    the expert's mean over the plays plus the model's difference from its own mean."""
    if n == 0:
        return 0.0
    fm = 0.0
    xm = 0.0
    for i in range(n):
        out[i] = learned_value_cirulla(state, rules, model, bc[i], bt[i], bm[i], ls)
        fm += out[i]
        xm += ls[1][D_EXPERT]
    shift = (xm - fm) / n
    best = -INF
    for i in range(n):
        out[i] += shift
        best = max(best, out[i])
    return best


@njit(cache=True)
def root_prior_cirulla(root, rules, model, out):
    """The root prior of :func:`ismcts_run_cirulla` at ``root`` (a world of the seat to
    play's information set; the model reads what the seat knows): each legal play's row in
    ``out`` (``P_*`` columns, at least ``MAX_PLAYS`` rows; ``P_CARD`` holds its
    :func:`play_code`), its value: :func:`.values_cirulla.expert_leaf_cirulla` of the seat's
    side plus the model's anchored value of the play (:func:`anchored_plays`, points);
    return the number of rows."""
    ls = learned_scratch_cirulla(model)
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    bm = np.empty(MAX_PLAYS, dtype=np.int64)
    vals = np.empty(MAX_PLAYS)
    n = legal_plays_cirulla(root, rules, bc, bt, bm, np.empty(SCRATCH, dtype=np.int64))
    anchored_plays(root, rules, model, ls, bc, bt, bm, n, vals)
    base = expert_leaf_cirulla(root, rules, side_of(rules, root[S_TURN]))
    for i in range(n):
        out[i, P_CARD] = play_code(bc[i], bm[i])
        out[i, P_TAKE] = bt[i]
        out[i, P_VALUE] = base + vals[i]
    return n


@njit(cache=True, inline="always")
def _anchored_values(w, rules, model, ls, unit, margins, bc, bt, bm, sc, fv):
    """The learned leaf (``leaf = LEAF_LEARNED``) of the position ``w`` where a rollout
    stopped, into ``margins`` (units of ``1 / unit`` points): the side to play there gets
    its :func:`.values_cirulla.expert_leaf_cirulla` plus the model's anchored value of its best play
    (:func:`anchored_plays`; none: 0), every other side its own anchor less that value
    (as :func:`.ismcts._learned_leaf` on Scopa); ``fv``: ``MAX_PLAYS`` floats of scratch."""
    n = legal_plays_cirulla(w, rules, bc, bt, bm, sc)
    gain = anchored_plays(w, rules, model, ls, bc, bt, bm, n, fv)
    side = side_of(rules, w[S_TURN])
    for s in range(rules[R_SIDES]):
        e = expert_leaf_cirulla(w, rules, s)
        margins[s] = np.int64(round((e + gain if s == side else e - gain) * unit))


@njit(cache=True, inline="always")
def _rewards(w, rules, cut, unit, score, work, margins, eq, leaf):
    """An iteration's reward of each side into ``margins`` (units of ``1 / unit``
    points): its Cirulla points minus the best other side's, from the finished hand's
    score or at a horizon (``cut``) from :func:`.values.estimate` plus the declared
    points; with the match objective (``eq`` not empty) side 0's match value
    (:func:`.solver_cirulla.match_static_cirulla`) and its negation for side 1; at a
    horizon with ``leaf`` ``LEAF_EXPERT``, each side's
    :func:`.values_cirulla.expert_leaf_cirulla` margin."""
    if eq.shape[0] > 0:
        v = match_static_cirulla(w, rules, score, work[4:], not cut, eq)
        margins[0] = np.int64(round(v * unit))
        margins[1] = -margins[0]
        return
    ns = rules[R_SIDES]
    if cut and leaf == LEAF_EXPERT:
        for s in range(ns):
            margins[s] = np.int64(round(expert_leaf_cirulla(w, rules, s) * unit))
        return
    totals = work[:4]
    if cut:
        est = work[4:]
        estimate(w, rules, 0, True, est)
        for s in range(ns):
            totals[s] = est[12 + s] + w[S_DECLARED + s]
    else:
        score_state_cirulla(w, rules, score)
        for s in range(ns):
            totals[s] = float(score[s, I_TOTAL])
    for s in range(ns):
        best = -INF
        for t in range(ns):
            if t != s and totals[t] > best:
                best = totals[t]
        margins[s] = np.int64(round((totals[s] - best) * unit))


@njit(cache=True, nogil=True)
def ismcts_run_cirulla(root, rules, tree, count, iterations, c, policy, horizon, rng, hidden,
                       quiet, lp, leaf=LEAF_ESTIMATE, eq=None):  # fmt: skip
    """Run ``iterations`` of single-observer ISMCTS on a Cirulla position from ``root``
    (the seat to play's information set: a world of it whose unseen cards, the stock and
    the hands of the ``hidden`` seats, a bit a seat, are dealt again every iteration) on
    the node pool ``tree`` (:mod:`.ismcts`'s ``T_*`` columns) holding ``count`` nodes;
    return the new count.

    Each iteration: a world (see the module; ``quiet[s] >= 0``: the cards seat ``s``
    played this deal without declaring under ``declare=auto``, -1: no constraint);
    selection from the root among the children legal in this world by UCB1 with
    availability counts, until a node has an untried legal play; its expansion (one
    chosen at random, unless the pool is full); a rollout by the Cirulla step policy
    ``policy`` (``POLICY_*``) for every seat; each side's margin backed up, each node
    getting its side's. With ``horizon < FULL_DEPTH`` a rollout stops ``horizon`` plays
    past the tree and the position is valued as the Cirulla solver's depth limit
    (``leaf``: ``LEAF_ESTIMATE``, or ``LEAF_EXPERT`` the expert's evaluation of the piles,
    :func:`.values_cirulla.expert_leaf_cirulla`); the
    tree's sums are then in units of ``1 / EST_UNIT`` points (else whole points). With
    ``eq`` (two sides; None or empty: margins) the rewards are the match objective's
    (see the module), in units of ``1 / EST_UNIT`` points with or without a horizon.
    ``rng`` (:func:`.streams.new_rng`) carries the random stream across calls, so a run
    split into chunks gives the same tree.

    ``lp = (model, prior, prior_visits)``: the learned policy's Cirulla model (the
    empty vector: none; :data:`NO_LEARNED` for none of it) as the rollouts' policy with
    ``policy = POLICY_LEARNED`` (the model's best play, ties at random, without the
    learned policy's exact endgame), as the horizon's value with ``leaf = LEAF_LEARNED``
    (:func:`_anchored_values`; not with ``eq``) and as a root prior, ``prior`` rows
    (:func:`root_prior_cirulla`) with ``prior_visits > 0`` virtual visits each
    (:func:`_ucb1_prior`)."""
    players = rules[R_PLAYERS]
    wild = rules[R_MATTA] != MATTA_NONE
    eqt = np.empty(0) if eq is None else eq
    unit = 1 if horizon >= FULL_DEPTH and eqt.shape[0] == 0 else EST_UNIT
    scale = REWARD_SCALE_CIRULLA / unit
    # the unseen cards (card order) and the hidden hands' sizes
    base = np.empty(40, dtype=np.int64)
    pool = np.empty(40, dtype=np.int64)
    sizes = np.zeros(4, dtype=np.int64)
    unseen = np.int64(0)
    for i in range(root[S_STOCK], root[S_DECK_SIZE]):
        unseen |= np.int64(1) << root[S_DECK + i]
    for s in range(players):
        if (hidden >> s) & 1:
            unseen |= root[S_HANDS + s]
            sizes[s] = popcount(root[S_HANDS + s])
    npool = 0
    m = unseen
    while m:
        base[npool] = ctz(m)
        m &= m - 1
        npool += 1
    deck = np.int64(0)
    for i in range(root[S_DECK_SIZE]):
        deck |= np.int64(1) << root[S_DECK + i]
    w = np.empty(N_STATE, dtype=np.int64)
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    bm = np.empty(MAX_PLAYS, dtype=np.int64)
    slot = np.empty(MAX_PLAYS, dtype=np.int64)
    cn = np.empty(MAX_PLAYS, dtype=np.int64)
    vals = np.empty(MAX_PLAYS, dtype=np.int64)
    xs = np.empty(EXPERT_SCRATCH)
    bt2 = np.empty(MAX_PLAYS, dtype=np.int64)
    bm2 = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    path = np.empty(2 * MAX_PLY, dtype=np.int64)  # node, side that made its play
    score = np.zeros((4, N_ITEMS_CIRULLA), dtype=np.int64)
    work = np.zeros(24, dtype=np.float64)
    margins = np.zeros(4, dtype=np.int64)
    lmodel, prior, pvis = lp  # the learned model, the root prior, its visits
    ls = learned_scratch_cirulla(lmodel)
    fv = np.empty(MAX_PLAYS)
    for _ in range(iterations):
        _draw_world(w, root, players, base, pool, npool, hidden, sizes, quiet, wild, deck, rng)
        node = 0
        plen = 0
        in_tree = True
        rolled = 0
        cut = False
        while not w[S_DONE]:
            if not in_tree and rolled >= horizon:
                cut = True
                break
            n = legal_plays_cirulla(w, rules, bc, bt, bm, sc)
            if n == 0:  # only in hand-made positions: nothing to play
                break
            if in_tree:
                side = side_of(rules, w[S_TURN])
                i, node, count, plen, in_tree = _tree_step(
                    tree, node, count, side, n, bc, bt, bm, slot, cn, path, plen, c, scale, rng,
                    prior, pvis if node == 0 else 0.0,
                )  # fmt: skip
            elif policy == POLICY_LEARNED:
                rolled += 1
                i = learned_choice_cirulla(w, rules, lmodel, rng, bc, bt, bm, n, ls)
            else:
                rolled += 1
                i = choose_cirulla(w, rules, policy, rng, bc, bt, bm, n, EXPERT_DECLARES, vals,
                                   xs, bt2, bm2, sc)  # fmt: skip
            apply_play_cirulla(w, rules, bc[i], bt[i], bm[i])
        if cut and leaf == LEAF_LEARNED and eqt.shape[0] == 0:  # the model's leaf
            _anchored_values(w, rules, lmodel, ls, unit, margins, bc, bt, bm, sc, fv)
        else:
            _rewards(w, rules, cut, unit, score, work, margins, eqt, leaf)
        back_up(tree, path, plen, margins)
    return count
